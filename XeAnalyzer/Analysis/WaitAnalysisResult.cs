using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis;

/// <summary>Waits of one wait type. Durations are in milliseconds, as Extended Events reports them.</summary>
/// <param name="WaitType">The wait type (map text of <c>wait_type</c>).</param>
/// <param name="Waits">Completed waits: End events of wait_info/wait_info_external, and wait_completed events.</param>
/// <param name="Begins">Begin events (they carry no duration).</param>
/// <param name="TotalDurationMs">Sum of <c>duration</c> over the waits.</param>
/// <param name="MeanDurationMs">Total / waits.</param>
/// <param name="MaxDurationMs">The longest wait.</param>
/// <param name="TotalSignalDurationMs">Sum of <c>signal_duration</c> (time between being signalled and
/// running).</param>
/// <param name="ShareOfDuration">This type's share of the total duration of all waits, as a fraction.</param>
public sealed record WaitTypeStats(
    string WaitType,
    long Waits,
    long Begins,
    long TotalDurationMs,
    double MeanDurationMs,
    long MaxDurationMs,
    long? TotalSignalDurationMs,
    double ShareOfDuration
);

/// <summary>How many waits of a wait type were on one resource (the <c>wait_resource</c> field, where the event's
/// schema has it).</summary>
/// <param name="WaitType">The wait type.</param>
/// <param name="Resource">The resource as rendered (a pointer as <c>0x</c> + 16 hex digits, or text), or
/// <see langword="null"/> for the row summing the other resources.</param>
/// <param name="Waits">Completed waits on it.</param>
/// <param name="ShareOfType">Waits / the wait type's completed waits.</param>
public sealed record WaitResourceCount(string WaitType, string? Resource, long Waits, double ShareOfType);

/// <summary>How many <c>wait_completed</c> events of a wait type had one <c>wait_result</c>.</summary>
/// <param name="WaitType">The wait type.</param>
/// <param name="Result">The <c>wait_result</c> value as rendered.</param>
/// <param name="Waits">Events.</param>
public sealed record WaitResultCount(string WaitType, string Result, long Waits);

/// <summary>Waits per scheduler (the <c>sqlos.scheduler_id</c> action).</summary>
/// <param name="Scheduler">The scheduler id (decimal).</param>
/// <param name="Waits">Completed waits.</param>
/// <param name="TotalDurationMs">Sum of their durations (ms).</param>
/// <param name="TopWaitType">The wait type with the most wait time on this scheduler.</param>
public sealed record SchedulerWaits(string Scheduler, long Waits, long TotalDurationMs, string TopWaitType);

/// <summary>Begin/End pairing of one wait type on workers.</summary>
/// <param name="WaitType">The wait type.</param>
/// <param name="Pairs">End events paired with a Begin of the same type on the same worker.</param>
/// <param name="BeginsWithoutEnd">Begin events never ended in the capture.</param>
/// <param name="EndsWithoutBegin">End events with no Begin before them (the wait began before the capture, or the Begin
/// was not captured).</param>
public sealed record WaitPairing(string WaitType, long Pairs, long BeginsWithoutEnd, long EndsWithoutBegin);

/// <summary>How often a wait type was immediately preceded, on the same worker, by another wait type.</summary>
/// <param name="WaitType">The wait type.</param>
/// <param name="PrecededBy">The wait type that ended last on the same worker before this wait began, or
/// <see langword="null"/> when no earlier wait is known.</param>
/// <param name="Count">How many waits of <paramref name="WaitType"/>.</param>
/// <param name="Share">Count / all waits of <paramref name="WaitType"/>, as a fraction.</param>
public sealed record PrecedingWait(string WaitType, string? PrecededBy, long Count, double Share);

/// <summary>The result of <see cref="WaitAnalysis"/>. Immutable.</summary>
public sealed class WaitAnalysisResult : IAnalysisResult, IDocumentSource
{
    internal WaitAnalysisResult() { }

    /// <summary>What the capture lacks, or <see langword="null"/> when the analysis could run.</summary>
    public MissingData? MissingData { get; internal init; }

    /// <summary>Whether the analysis could run.</summary>
    public bool IsComplete => MissingData is null;

    /// <summary>wait_info events (Begin and End).</summary>
    public long WaitInfoEvents { get; internal init; }

    /// <summary>wait_info_external events (Begin and End).</summary>
    public long WaitInfoExternalEvents { get; internal init; }

    /// <summary>wait_completed events.</summary>
    public long WaitCompletedEvents { get; internal init; }

    /// <summary>Completed waits (End events and wait_completed events).</summary>
    public long Waits { get; internal init; }

    /// <summary>Begin events.</summary>
    public long Begins { get; internal init; }

    /// <summary>Per wait type, most total wait time first.</summary>
    public IReadOnlyList<WaitTypeStats> ByWaitType { get; internal init; } = [];

    /// <summary>Per scheduler, in scheduler id order (empty without <c>sqlos.scheduler_id</c>).</summary>
    public IReadOnlyList<SchedulerWaits> BySchedulers { get; internal init; } = [];

    /// <summary>Why the per-scheduler table is empty or incomplete, or <see langword="null"/>.</summary>
    public string? SchedulerNote { get; internal init; }

    /// <summary>Whether Begin/End pairs could be formed (Begin events and a worker action present).</summary>
    public bool HasPairs { get; internal init; }

    /// <summary>Pairing per wait type (most pairs first).</summary>
    public IReadOnlyList<WaitPairing> Pairs { get; internal init; } = [];

    /// <summary>Why there are no pairs, or <see langword="null"/>.</summary>
    public string? PairNote { get; internal init; }

    /// <summary>Whether the preceded-by table could be built (a worker action present).</summary>
    public bool HasPrecedence { get; internal init; }

    /// <summary>For each wait type (most wait time first), the wait types that immediately preceded it on the same
    /// worker, most frequent first.</summary>
    public IReadOnlyList<PrecedingWait> PrecededBy { get; internal init; } = [];

    /// <summary>Why there is no preceded-by table, or <see langword="null"/>.</summary>
    public string? PrecedenceNote { get; internal init; }

    /// <summary>Wait events without a worker action (not paired, not in the preceded-by table).</summary>
    public long WaitsWithoutWorker { get; internal init; }

    /// <summary>Wait events of workers beyond <see cref="WaitAnalysisOptions.MaxWorkers"/>.</summary>
    public long WaitsOfUntrackedWorkers { get; internal init; }

    /// <summary>The action that identified workers (<c>sqlos.worker_address</c> or
    /// <c>sqlos.system_thread_id</c>).</summary>
    public string WorkerAction { get; internal init; } = string.Empty;

    /// <summary>How disordered the input was.</summary>
    internal OrderingStatistics Ordering { get; init; } = OrderingStatistics.None;

    /// <summary>Warnings about the result: events later than the reorder window, waits left out because a duration was
    /// out of range.</summary>
    public IReadOnlyList<AnalysisWarning> Warnings { get; internal init; } = [];

    /// <inheritdoc/>
    public string Key => "waits";

    /// <inheritdoc/>
    public string Title => "Waits";

    /// <summary>The wait_info, wait_info_external and wait_completed events read.</summary>
    public long EventsUsed => WaitInfoEvents + WaitInfoExternalEvents + WaitCompletedEvents;

    /// <summary>Whether any wait event's schema has a <c>wait_resource</c> field (a 2012-era <c>wait_info</c> has none;
    /// SQL Server 2017 has it as a pointer, <c>wait_completed</c> as text).</summary>
    public bool HasWaitResource { get; internal init; }

    /// <summary>Per wait type, the resources with the most waits (<see cref="WaitAnalysis.TopResourcesPerType"/>, then
    /// one row for the rest), where the schema has <c>wait_resource</c>.</summary>
    public IReadOnlyList<WaitResourceCount> TopResources { get; internal init; } = [];

    /// <summary>Per wait type, the <c>wait_completed</c> events by <c>wait_result</c>.</summary>
    public IReadOnlyList<WaitResultCount> Results { get; internal init; } = [];

    /// <summary>The unit of the wait events' <c>duration</c> field (<see cref="DurationUnits"/>), or
    /// <see langword="null"/> when the event types disagree.</summary>
    internal FieldUnit? DurationUnit { get; init; } = DurationUnits.Of("wait_info", "duration", null);

    /// <summary>The unit of <c>duration</c> as labels show it (<c>ms</c> on every known build).</summary>
    internal string DurationUnitLabel { get; init; } = "ms";

    /// <summary>The unit of <c>signal_duration</c> as labels show it.</summary>
    internal string SignalUnitLabel { get; init; } = "ms";

    /// <summary>What preceded waits of <paramref name="waitType"/>, most frequent first.</summary>
    /// <param name="waitType">The wait type (ordinal).</param>
    /// <returns>The rows.</returns>
    public IReadOnlyList<PrecedingWait> PrecededByFor(string waitType) =>
        [.. PrecededBy.Where(p => string.Equals(p.WaitType, waitType, StringComparison.Ordinal))];

    /// <summary>A bar chart of total wait time per wait type, the 20 largest.</summary>
    /// <returns>The chart.</returns>
    internal BarChart ToBarChart()
    {
        WaitTypeStats[] top = [.. ByWaitType.Where(w => w.Waits > 0).Take(20)];
        string u = DurationUnitLabel;
        return new BarChart(
            "Total wait time by wait type (" + u + ")",
            top.Select(w => w.WaitType),
            top.Select(w => (double)w.TotalDurationMs)
        )
        {
            CategoryAxisLabel = "wait_type",
            ValueAxisLabel = "total duration (" + u + ")",
        };
    }

    /// <summary>The result as a document: the same in every view (<see cref="ToReport"/>; the wait-type bar chart is
    /// its figure).</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => ToReport();

    /// <summary>The result as a report: summary, per wait type with chart, per scheduler, Begin/End pairs, preceded-by
    /// table.</summary>
    /// <returns>The report; a single "Missing data" section when <see cref="MissingData"/> is set.</returns>
    public ReportDocument ToReport()
    {
        const string Title = "Wait summary";
        if (MissingData is MissingData m)
        {
            return new ReportDocument(Title, [new ReportSection("Missing data", new Preformatted(m.Describe()))]);
        }

        string u = DurationUnitLabel;
        string unitSentence = DurationUnit is { Unit: FieldTimeUnit unit } known
            ? "Durations are in "
                + (unit == FieldTimeUnit.Microseconds ? "microseconds" : "milliseconds")
                + ", the unit of the duration field per "
                + known.Source
                + "."
            : "Durations are in the unit of each event type's duration field ("
                + u
                + "): the event types disagree, so totals mix units.";
        var sections = new List<ReportSection>();
        sections.Add(
            new ReportSection(
                "Summary",
                new KeyValueList([
                    Kv("wait_info events", WaitInfoEvents),
                    Kv("wait_info_external events", WaitInfoExternalEvents),
                    Kv("wait_completed events", WaitCompletedEvents),
                    Kv("completed waits", Waits),
                    Kv("Begin events", Begins),
                    Kv("total wait time (" + u + ")", ByWaitType.Sum(w => w.TotalDurationMs)),
                    Kv("ordering", Ordering.Describe()),
                ]),
                new Paragraph(
                    unitSentence
                        + " For wait_info and wait_info_external only End events (opcode = End) carry "
                        + "durations and count as waits; every wait_completed event counts."
                )
            )
        );

        var t = new TableBuilder("Waits by wait type")
            .AddColumn(TableColumn.Text("wait_type"))
            .AddColumn(TableColumn.Integer("waits"))
            .AddColumn(TableColumn.Integer("total " + u))
            .AddColumn(TableColumn.Decimal("mean " + u, 2))
            .AddColumn(TableColumn.Integer("max " + u))
            .AddColumn(TableColumn.Integer("signal " + SignalUnitLabel))
            .AddColumn(TableColumn.Percentage("share of wait time", 2))
            .AddColumn(TableColumn.Integer("begins"));
        foreach (WaitTypeStats w in ByWaitType)
        {
            t.AddRow(
                w.WaitType,
                w.Waits,
                w.TotalDurationMs,
                w.Waits > 0 ? w.MeanDurationMs : TableCell.Empty,
                w.MaxDurationMs,
                w.TotalSignalDurationMs is long sig ? sig : TableCell.NotApplicable,
                TableCell.FromPercentage(w.ShareOfDuration),
                w.Begins
            );
        }

        t.AddNote(
            "total/mean/max: the duration field of completed waits ("
                + u
                + "); signal "
                + SignalUnitLabel
                + ": the signal_duration field ("
                + SignalUnitLabel
                + "), n/a where the events' schema has no such field (wait_info_external on real builds)."
        );
        sections.Add(new ReportSection("By wait type", t.Build(), ToBarChart()));

        if (TopResources.Count > 0)
        {
            var rt = new TableBuilder("Top wait resources by wait type (wait_resource)")
                .AddColumn(TableColumn.Text("wait_type"))
                .AddColumn(TableColumn.Text("wait_resource"))
                .AddColumn(TableColumn.Integer("waits"))
                .AddColumn(TableColumn.Percentage("share of the type", 2));
            foreach (WaitResourceCount r in TopResources)
            {
                rt.AddRow(
                    r.WaitType,
                    r.Resource ?? "(other resources)",
                    r.Waits,
                    TableCell.FromPercentage(r.ShareOfType)
                );
            }

            rt.AddNote(
                "Completed waits per wait_resource, the "
                    + WaitAnalysis.TopResourcesPerType.ToString(Ic)
                    + " largest per wait type; only events whose schema has wait_resource are counted."
            );
            sections.Add(new ReportSection("Wait resources", rt.Build()));
        }

        if (Results.Count > 0)
        {
            var wr = new TableBuilder("wait_completed events by wait_result")
                .AddColumn(TableColumn.Text("wait_type"))
                .AddColumn(TableColumn.Text("wait_result"))
                .AddColumn(TableColumn.Integer("wait_result code"))
                .AddColumn(TableColumn.Integer("events"));
            foreach (WaitResultCount r in Results)
            {
                wr.AddRow(
                    r.WaitType,
                    WaitResults.Label(r.Result),
                    long.TryParse(r.Result, NumberStyles.None, Ic, out long code) ? code : TableCell.Empty,
                    r.Waits
                );
            }

            wr.AddNote(
                "wait_result: the Win32 wait return code SQLOS reports (0 signaled, 128 WAIT_ABANDONED, "
                    + "258 WAIT_TIMEOUT, 4294967295 WAIT_FAILED); other codes are shown as the number alone."
            );

            sections.Add(new ReportSection("Wait results", wr.Build()));
        }

        var sched = new List<ReportBlock>();
        if (BySchedulers.Count > 0)
        {
            var st = new TableBuilder("Waits by scheduler (sqlos.scheduler_id)")
                .AddColumn(TableColumn.Text("scheduler_id"))
                .AddColumn(TableColumn.Integer("waits"))
                .AddColumn(TableColumn.Integer("total " + u))
                .AddColumn(TableColumn.Text("top wait type"));
            foreach (SchedulerWaits s in BySchedulers)
            {
                st.AddRow(s.Scheduler, s.Waits, s.TotalDurationMs, s.TopWaitType);
            }

            if (SchedulerNote is not null)
            {
                st.AddNote(SchedulerNote);
            }

            sched.Add(st.Build());
        }
        else
        {
            sched.Add(new Paragraph(SchedulerNote ?? "No per-scheduler data."));
        }

        sections.Add(new ReportSection("By scheduler", sched));

        if (HasPairs)
        {
            var pt = new TableBuilder("Begin/End pairs on the same worker (" + WorkerAction + ")")
                .AddColumn(TableColumn.Text("wait_type"))
                .AddColumn(TableColumn.Integer("pairs"))
                .AddColumn(TableColumn.Integer("Begin without End"))
                .AddColumn(TableColumn.Integer("End without Begin"));
            foreach (WaitPairing p in Pairs)
            {
                pt.AddRow(p.WaitType, p.Pairs, p.BeginsWithoutEnd, p.EndsWithoutBegin);
            }

            pt.AddNote(
                "An End is paired with the most recent unpaired Begin of the same wait type on the same worker."
            );
            sections.Add(new ReportSection("Begin/End pairs", pt.Build()));
        }
        else
        {
            sections.Add(new ReportSection("Begin/End pairs", new Paragraph(PairNote ?? "No pairs.")));
        }

        if (HasPrecedence)
        {
            var pr = new TableBuilder("Wait type that ended immediately before each wait began, on the same worker")
                .AddColumn(TableColumn.Text("wait_type"))
                .AddColumn(TableColumn.Text("preceded by"))
                .AddColumn(TableColumn.Integer("waits"))
                .AddColumn(TableColumn.Percentage("share", 2));
            foreach (IGrouping<string, PrecedingWait> g in PrecededBy.GroupBy(p => p.WaitType, StringComparer.Ordinal))
            {
                PrecedingWait[] rows = [.. g];
                foreach (PrecedingWait p in rows.Take(5))
                {
                    pr.AddRow(
                        p.WaitType,
                        p.PrecededBy ?? "(none: first wait seen on the worker)",
                        p.Count,
                        TableCell.FromPercentage(p.Share)
                    );
                }

                if (rows.Length > 5)
                {
                    long rest = rows.Skip(5).Sum(r => r.Count);
                    pr.AddRow(
                        g.Key,
                        "(" + Counted(rows.Length - 5, "other wait type", "other wait types") + ")",
                        rest,
                        TableCell.FromPercentage(rows.Skip(5).Sum(r => r.Share))
                    );
                }
            }

            pr.AddNote(
                "A wait's start is its Begin event when it has one, else its End time minus its duration ("
                    + u
                    + ", with a 1 ms tolerance); the preceding wait is the latest wait on the same worker ("
                    + WorkerAction
                    + ") that ended at or before that start."
            );
            if (WaitsWithoutWorker > 0)
            {
                pr.AddWarning(N0(WaitsWithoutWorker) + " wait events without a worker action are not in this table.");
            }

            if (Ordering.LateEvents > 0)
            {
                pr.AddWarning(
                    N0(Ordering.LateEvents)
                        + " events arrived later than the reorder window allows and were processed out of order."
                );
            }

            sections.Add(new ReportSection("Preceded by", pr.Build()));
        }
        else
        {
            sections.Add(new ReportSection("Preceded by", new Paragraph(PrecedenceNote ?? "No worker data.")));
        }

        return new ReportDocument(Title, sections);
    }
}

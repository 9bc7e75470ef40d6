using XeAnalyzer.Events;
using XeAnalyzer.Output;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis;

/// <summary>Hold times of one latch class: the time between paired <c>latch_acquired</c> and <c>latch_released</c>
/// events.</summary>
/// <param name="LatchClass">The latch class (map text of the acquire's <c>class</c> field).</param>
/// <param name="Elapsed">Hold times in microseconds, from the two events' timestamps (100 ns resolution); p50/p99
/// within 0.4 %.</param>
/// <param name="DurationField">The <c>duration</c> field of the paired <c>latch_released</c> events, in the unit the
/// event reports (unverified), or <see langword="null"/> when the event has no such field.</param>
/// <param name="UnpairedAcquires">Acquires of this class never released in the capture (or dropped from the pending set
/// when it was full).</param>
/// <param name="UnpairedReleases">Releases of this class with no earlier unreleased acquire of the same latch and
/// worker.</param>
public sealed record LatchHoldTimes(
    string LatchClass,
    DistributionSummary Elapsed,
    DistributionSummary? DurationField,
    long UnpairedAcquires,
    long UnpairedReleases
);

/// <summary>The result of <see cref="LatchAnalysis"/>. Immutable.</summary>
public sealed class LatchAnalysisResult : IAnalysisResult, IDocumentSource
{
    internal LatchAnalysisResult() { }

    /// <summary>What the capture lacks, or <see langword="null"/> when the analysis could run. When set, the tallies
    /// are not meaningful.</summary>
    public MissingData? MissingData { get; internal init; }

    /// <summary>Whether the analysis could run (<see cref="MissingData"/> is <see langword="null"/>).</summary>
    public bool IsComplete => MissingData is null;

    /// <summary>Number of <c>latch_acquired</c> events.</summary>
    public long AcquiredEvents { get; internal init; }

    /// <summary>Number of <c>latch_released</c> events.</summary>
    public long ReleasedEvents { get; internal init; }

    /// <summary><c>latch_acquired</c> events without the <c>sqlos.scheduler_id</c> action, or of schedulers beyond the
    /// 65,536 distinct ones tallied (not in <see cref="Schedulers"/>).</summary>
    public long AcquiresWithoutScheduler { get; internal init; }

    /// <summary>Acquires per scheduler id, in increasing scheduler id order, with deviations and outlier
    /// flags.</summary>
    public IReadOnlyList<GroupTally> Schedulers { get; internal init; } = [];

    /// <summary>The mean number of acquires per scheduler (over the schedulers that have any).</summary>
    public double MeanPerScheduler =>
        Schedulers.Count == 0 ? 0 : (double)Schedulers.Sum(s => s.Count) / Schedulers.Count;

    /// <summary>The schedulers flagged as outliers.</summary>
    public IReadOnlyList<GroupTally> Outliers => [.. Schedulers.Where(s => s.IsOutlier)];

    /// <summary>Acquires per latch class (map text), most frequent first.</summary>
    public IReadOnlyList<CategoryTally> Classes { get; internal init; } = [];

    /// <summary>Acquires per latch mode (map text: NL, KP, SH, UP, EX, DT), most frequent first.</summary>
    public IReadOnlyList<CategoryTally> Modes { get; internal init; } = [];

    /// <summary>The second grouping requested.</summary>
    public LatchGrouping GroupBy { get; internal init; }

    /// <summary>Acquires per worker or session (empty when <see cref="GroupBy"/> is <see cref="LatchGrouping.None"/>),
    /// in key order.</summary>
    public IReadOnlyList<GroupTally> Groups { get; internal init; } = [];

    /// <summary>Acquires without the grouping action, or of groups beyond the 65,536 distinct ones tallied.</summary>
    public long AcquiresWithoutGroup { get; internal init; }

    /// <summary>Whether hold times could be computed (releases present and pairable).</summary>
    public bool HasHoldTimes { get; internal init; }

    /// <summary>Hold times per latch class (most pairs first); empty when <see cref="HasHoldTimes"/> is
    /// false.</summary>
    public IReadOnlyList<LatchHoldTimes> HoldTimes { get; internal init; } = [];

    /// <summary>Why there are no hold times, or <see langword="null"/>.</summary>
    public string? HoldTimeNote { get; internal init; }

    /// <summary>The unit of latch_released's <c>duration</c> field (<see cref="DurationUnits"/>), or
    /// <see langword="null"/> when event types disagree.</summary>
    internal FieldUnit? DurationFieldUnit { get; init; } = DurationUnits.Of("latch_released", "duration", null);

    /// <summary>That unit as labels show it (<c>µs, unit unverified</c> unless the metadata describes it).</summary>
    internal string DurationFieldUnitLabel { get; init; } = DurationUnits.Of("latch_released", "duration", null).Label;

    /// <summary>Releases paired with an acquire.</summary>
    public long PairedReleases { get; internal init; }

    /// <summary>Acquires never paired with a release (including <see cref="EvictedAcquires"/>); 0 when there are no
    /// releases.</summary>
    public long UnpairedAcquires { get; internal init; }

    /// <summary>Releases with no unreleased acquire of the same latch and worker before them.</summary>
    public long UnpairedReleases { get; internal init; }

    /// <summary>Acquires dropped from the pending set because it was full (counted as unpaired).</summary>
    public long EvictedAcquires { get; internal init; }

    /// <summary>Acquires without an address field or worker action, which cannot be paired.</summary>
    public long AcquiresWithoutPairingKey { get; internal init; }

    /// <summary>Releases without an address field or worker action, which cannot be paired.</summary>
    public long ReleasesWithoutPairingKey { get; internal init; }

    /// <summary>What pairs an acquire with its release (for example "address field + sqlos.worker_address
    /// action").</summary>
    public string PairingKey { get; internal init; } = string.Empty;

    /// <summary>How disordered the input was.</summary>
    internal OrderingStatistics Ordering { get; init; } = OrderingStatistics.None;

    /// <summary>Warnings about the result: events later than the reorder window, acquires without a scheduler, releases
    /// left out.</summary>
    public IReadOnlyList<AnalysisWarning> Warnings { get; internal init; } = [];

    /// <inheritdoc/>
    public string Key => "latches";

    /// <inheritdoc/>
    public string Title => "Latches";

    /// <summary>The latch_acquired and latch_released events read.</summary>
    public long EventsUsed => AcquiredEvents + ReleasedEvents;

    /// <summary>The outlier threshold used (a fraction).</summary>
    public double OutlierThreshold { get; internal init; }

    /// <summary>The bar chart of acquires per scheduler: outliers highlighted, a line at the mean.</summary>
    /// <returns>The chart.</returns>
    internal BarChart ToBarChart()
    {
        return new BarChart(
            "latch_acquired per scheduler",
            Schedulers.Select(s => s.Key),
            Schedulers.Select(s => (double)s.Count),
            Schedulers.Where(s => s.IsOutlier).Select(s => s.Key),
            Schedulers.Count > 0 ? ReferenceLine.Mean(Schedulers.Select(s => (double)s.Count)) : null
        )
        {
            CategoryAxisLabel = "scheduler_id",
            ValueAxisLabel = "latch acquires",
        };
    }

    /// <summary>The result as a document: the same in every view (<see cref="ToReport"/>; the scheduler bar chart is
    /// its figure).</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => ToReport();

    /// <summary>The result as a report (summary, per scheduler with chart, per class, per mode, per worker/session,
    /// hold times).</summary>
    /// <returns>The report; a single "Missing data" section when <see cref="MissingData"/> is set.</returns>
    public ReportDocument ToReport()
    {
        if (MissingData is MissingData m)
        {
            return new ReportDocument(
                "Latch acquires by scheduler",
                [new ReportSection("Missing data", new Preformatted(m.Describe()))]
            );
        }

        var sections = new List<ReportSection>();
        var summary = new List<KeyValuePair<string, TableCell>>
        {
            Kv("latch_acquired events", AcquiredEvents),
            Kv("latch_released events", ReleasedEvents),
            Kv("schedulers", Schedulers.Count),
            Kv("mean acquires per scheduler", MeanPerScheduler),
            Kv(
                "outliers (≥ " + Percent(OutlierThreshold, 1) + " from the median)",
                Outliers.Count == 0
                    ? "none"
                    : string.Join(
                        ", ",
                        Outliers.Select(o =>
                            "scheduler "
                            + o.Key
                            + " ("
                            + N0(o.Count)
                            + " acquires, "
                            + SignedPercent(o.DeviationFromMedian)
                            + " vs the median, "
                            + SignedPercent(o.DeviationFromPeerMean)
                            + " vs the mean of its peers)"
                        )
                    )
            ),
        };
        if (AcquiresWithoutScheduler > 0)
        {
            summary.Add(Kv("acquires without sqlos.scheduler_id", AcquiresWithoutScheduler));
        }

        summary.Add(Kv("ordering", Ordering.Describe()));
        sections.Add(new ReportSection("Summary", new KeyValueList(summary)));

        sections.Add(
            new ReportSection(
                "Acquires by scheduler",
                GroupTable(
                    "latch_acquired by sqlos.scheduler_id",
                    "scheduler_id",
                    Schedulers,
                    "acquires",
                    OutlierThreshold
                ),
                ToBarChart()
            )
        );
        sections.Add(
            new ReportSection(
                "Acquires by latch class",
                CategoryTable("latch_acquired by class", "class", Classes, "acquires")
            )
        );
        sections.Add(
            new ReportSection(
                "Acquires by latch mode",
                CategoryTable("latch_acquired by mode", "mode", Modes, "acquires")
            )
        );
        if (GroupBy != LatchGrouping.None)
        {
            string what = GroupBy == LatchGrouping.Worker ? "worker" : "session";
            string action = GroupBy == LatchGrouping.Worker ? "sqlos.worker_address" : "sqlserver.session_id";
            var notes = new List<string>();
            if (AcquiresWithoutGroup > 0)
            {
                notes.Add(N0(AcquiresWithoutGroup) + " acquires without " + action + " are not in this table.");
            }

            sections.Add(
                new ReportSection(
                    "Acquires by " + what,
                    GroupTable(
                        "latch_acquired by " + action,
                        what == "worker" ? "worker_address" : "session_id",
                        Groups,
                        "acquires",
                        OutlierThreshold,
                        notes
                    )
                )
            );
        }

        sections.Add(new ReportSection("Latch hold times", HoldTimeBlocks()));
        return new ReportDocument("Latch acquires by scheduler", sections);
    }

    private List<ReportBlock> HoldTimeBlocks()
    {
        if (!HasHoldTimes)
        {
            return [new Paragraph(HoldTimeNote ?? "No hold times.")];
        }

        bool duration = HoldTimes.Any(h => h.DurationField is not null);
        var t = new TableBuilder("Hold time per latch class (latch_acquired → latch_released)")
            .AddColumn(TableColumn.Text("class"))
            .AddColumn(TableColumn.Integer("pairs"))
            .AddColumn(TableColumn.Decimal("mean (µs)", 1))
            .AddColumn(TableColumn.Decimal("p50 (µs)", 1))
            .AddColumn(TableColumn.Decimal("p99 (µs)", 1))
            .AddColumn(TableColumn.Decimal("max (µs)", 1));
        if (duration)
        {
            string u = " (" + DurationFieldUnitLabel + ")";
            t.AddColumn(TableColumn.Decimal("duration field mean" + u, 1))
                .AddColumn(TableColumn.Decimal("duration field p50" + u, 1))
                .AddColumn(TableColumn.Decimal("duration field p99" + u, 1))
                .AddColumn(TableColumn.Decimal("duration field max" + u, 1));
        }

        t.AddColumn(TableColumn.Integer("unpaired acquires")).AddColumn(TableColumn.Integer("unpaired releases"));
        foreach (LatchHoldTimes h in HoldTimes)
        {
            var row = new List<TableCell> { h.LatchClass, h.Elapsed.Count };
            bool any = h.Elapsed.Count > 0;
            row.Add(any ? h.Elapsed.Mean : TableCell.Empty);
            row.Add(any ? h.Elapsed.P50 : TableCell.Empty);
            row.Add(any ? h.Elapsed.P99 : TableCell.Empty);
            row.Add(any ? h.Elapsed.Max : TableCell.Empty);
            if (duration)
            {
                DistributionSummary? d = h.DurationField;
                bool has = d is { Count: > 0 };
                row.Add(has ? d!.Mean : TableCell.Empty);
                row.Add(has ? d!.P50 : TableCell.Empty);
                row.Add(has ? d!.P99 : TableCell.Empty);
                row.Add(has ? d!.Max : TableCell.Empty);
            }

            row.Add(h.UnpairedAcquires);
            row.Add(h.UnpairedReleases);
            t.AddRow([.. row]);
        }

        t.AddNote(
            "Hold time: the time between a latch_acquired event and the latch_released event paired with it (same "
                + PairingKey
                + ", most recent unreleased acquire first), from the events' timestamps, in microseconds (100 ns "
                + "resolution). p50 and p99 are nearest-rank percentiles from a log-linear histogram, within 0.4 % of "
                + "the exact value."
        );
        if (duration)
        {
            t.AddNote(
                "duration field: latch_released's own duration field of the paired releases, in "
                    + DurationFieldUnitLabel
                    + " (the unit per "
                    + (DurationFieldUnit?.Source ?? "each event type")
                    + ")."
            );
        }

        t.AddNote(
            N0(PairedReleases)
                + " pairs; "
                + N0(UnpairedAcquires)
                + " acquires never released in the capture"
                + (
                    EvictedAcquires > 0
                        ? " (" + N0(EvictedAcquires) + " dropped because too many acquires were pending)"
                        : string.Empty
                )
                + "; "
                + N0(UnpairedReleases)
                + " releases with no acquire before them."
        );
        if (AcquiresWithoutPairingKey + ReleasesWithoutPairingKey > 0)
        {
            t.AddWarning(
                N0(AcquiresWithoutPairingKey)
                    + " acquires and "
                    + N0(ReleasesWithoutPairingKey)
                    + " releases have no address field or no worker action and were not paired."
            );
        }

        if (Ordering.LateEvents > 0)
        {
            t.AddWarning(
                N0(Ordering.LateEvents)
                    + " events arrived later than the reorder window allows; pairs involving them may be missed."
            );
        }

        return [t.Build()];
    }
}

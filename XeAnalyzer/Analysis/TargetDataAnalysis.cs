using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis;

/// <summary>
/// The target data of a capture: the targets read (kind, size, truncation) and their event_counter counts, from the
/// read's summary, and each histogram on an event field or action with its table and chart
/// (<see cref="HistogramAnalysis"/>; callstack histograms are the stack buckets'). It does not apply to inputs without
/// target data.
/// </summary>
/// <param name="options">Options of the histogram tables; <see langword="null"/> for the defaults.</param>
internal sealed class TargetDataAnalysis(HistogramAnalysisOptions? options = null) : ICaptureAnalysis
{
    private readonly HistogramAnalysis _histograms = new(options);

    /// <summary>The options of the histogram tables.</summary>
    public HistogramAnalysisOptions Options => _histograms.Options;

    /// <summary>Target data is not events: the reader decodes no event for this analysis.</summary>
    public IReadOnlyCollection<string>? EventNames => _histograms.EventNames;

    /// <inheritdoc/>
    public IAnalysisRun Start(AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new Run(_histograms.StartRun(context), context);
    }

    private sealed class Run(AnalysisRun<HistogramAnalysisResult> histograms, AnalysisContext context)
        : AnalysisRun<TargetDataResult>(context)
    {
        public override bool Accepts(XeEventType eventType, XeActionSet actions) => false;

        public override void Add(XEvent e) { }

        public override void AddHistogramSlot(HistogramTarget target, HistogramSlot slot) =>
            histograms.AddHistogramSlot(target, slot);

        protected override TargetDataResult Finish(CaptureSummary? capture, CancellationToken cancellationToken) =>
            new(capture, histograms.CompleteResult(capture, cancellationToken), Context.DisplayPath);
    }
}

/// <summary>The result of <see cref="TargetDataAnalysis"/>: the targets, event_counter counts and histograms on fields
/// of a capture. Immutable.</summary>
internal sealed class TargetDataResult : IAnalysisResult
{
    private readonly Func<string, string> _displayPath;

    internal TargetDataResult(
        CaptureSummary? capture,
        HistogramAnalysisResult histograms,
        Func<string, string> displayPath
    )
    {
        Targets = capture?.Targets ?? [];
        EventCounters = capture?.EventCounters ?? [];
        HistogramTargets = capture?.Histograms ?? [];
        Histograms = histograms;
        _displayPath = displayPath;
    }

    /// <summary>Every target root read.</summary>
    public IReadOnlyList<TargetSummary> Targets { get; }

    /// <summary>Every event_counter count read.</summary>
    public IReadOnlyList<EventCounterValueRead> EventCounters { get; }

    /// <summary>Every histogram target read (on callstacks or on values).</summary>
    public IReadOnlyList<HistogramTarget> HistogramTargets { get; }

    /// <summary>The histograms on event fields and actions, tabulated.</summary>
    public HistogramAnalysisResult Histograms { get; }

    /// <inheritdoc/>
    public string Key => "targets";

    /// <inheritdoc/>
    public string Title => "Target data";

    /// <summary>Never set: a capture without target data is <see cref="AnalysisStatus.NotApplicable"/>.</summary>
    public MissingData? MissingData => null;

    /// <summary>
    /// That the targets count more events in all than <see cref="EventsUsed"/> can say (the histograms' own warnings
    /// are reported as theirs).
    /// </summary>
    public IReadOnlyList<AnalysisWarning> Warnings =>
        Counted > long.MaxValue
            ?
            [
                new AnalysisWarning(
                    AnalysisWarningKind.ValueOutOfRange,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the targets count more than {long.MaxValue:N0} events in all (the slot counts of every "
                            + $"histogram, or the event_counter counts of every input); the overview shows that many"
                    )
                ),
            ]
            : [];

    /// <summary><see cref="AnalysisStatus.NotApplicable"/> without targets, else
    /// <see cref="AnalysisStatus.Complete"/>.</summary>
    public AnalysisStatus Status => Targets.Count == 0 ? AnalysisStatus.NotApplicable : AnalysisStatus.Complete;

    /// <summary>
    /// The events the targets counted: the larger of the histograms' slot counts and the event_counter counts (two
    /// targets of one session count the same events, so they are not added).
    /// </summary>
    public long EventsUsed => (long)Int128.Min(Counted, long.MaxValue);

    /// <summary>The larger of the two sums, wide enough for any number of targets.</summary>
    private Int128 Counted =>
        Int128.Max(Sum(HistogramTargets.Select(h => h.TotalCount)), Sum(EventCounters.Select(c => c.Count)));

    /// <summary>The target data as a document, the same in every view: the targets, the event counts, each histogram on
    /// a field.</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view)
    {
        var sections = new List<ReportSection>();
        var targets = new TableBuilder("Targets")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Integer("line"))
            .AddColumn(TableColumn.Text("target"))
            .AddColumn(TableColumn.Integer("items"))
            .AddColumn(TableColumn.Text("truncated"))
            .AddColumn(TableColumn.Text("notes"));
        foreach (TargetSummary t in Targets)
        {
            targets.AddRow(
                _displayPath(t.Input.Name),
                t.LineNumber,
                t.KindName,
                t.ItemCount,
                t.Truncated ? "yes" : "no",
                Notes(t)
            );
        }

        targets.AddNote(
            "Items are slots (histogram), events (ring_buffer, pair_matching, event lists), counters (event_counter) "
                + "or files (event_file)."
        );
        sections.Add(new ReportSection("Targets", targets.Build()));
        if (EventCounters.Count > 0)
        {
            var counters = new TableBuilder("Event counts (event_counter)")
                .AddColumn(TableColumn.Text("event"))
                .AddColumn(TableColumn.Integer("count"))
                .AddColumn(TableColumn.Text("input"));
            foreach (
                EventCounterValueRead c in EventCounters
                    .OrderByDescending(c => c.Count)
                    .ThenBy(c => c.FullName, StringComparer.Ordinal)
            )
            {
                counters.AddRow(c.FullName, c.Count, _displayPath(c.Input.Name));
            }

            counters.AddNote(
                "event_counter counts every time an event fired (after the session's predicate), whatever other "
                    + "targets kept."
            );
            sections.Add(new ReportSection("Event counts", counters.Build()));
        }

        sections.AddRange(Histograms.ToReport().Sections);
        return new ReportDocument("Target data", sections);
    }

    private static Int128 Sum(IEnumerable<long> values)
    {
        Int128 s = 0;
        foreach (long n in values)
        {
            s += n;
        }

        return s;
    }

    private string Notes(TargetSummary t)
    {
        var notes = new List<string>();
        if (
            t.Kind == TargetDataKind.Histogram
            && HistogramTargets.FirstOrDefault(h => ReferenceEquals(h.Input, t.Input) && h.TargetIndex == t.TargetIndex)
                is HistogramTarget h
        )
        {
            notes.Add(
                h.SourceKind switch
                {
                    HistogramSourceKind.Callstack => "source: callstacks (see Stacks)",
                    HistogramSourceKind.Value => "source: an event field or action",
                    _ => "no slot values",
                }
            );
            if (h.Buckets is int b)
            {
                notes.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"buckets "
                            + $"{b:N0}"
                            + $"{(h.SlotsReachedBuckets ? ", all in use: values may have been merged" : string.Empty)}"
                    )
                );
            }
        }

        if (t.EventFiles.Count > 0)
        {
            notes.Add(
                "files (server paths): "
                    + string.Join(", ", t.EventFiles.Take(5))
                    + (t.EventFiles.Count > 5 ? ", …" : string.Empty)
            );
        }

        if (t.BuffersDropped is ulong d)
        {
            notes.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"buffers logged {t.BuffersLogged?.ToString("N0", CultureInfo.InvariantCulture) ?? "?"}, dropped "
                        + $"{d:N0}"
                )
            );
        }

        if (t.GetAttribute("droppedCount") is string dropped && dropped != "0")
        {
            notes.Add("droppedCount " + dropped);
        }

        return string.Join("; ", notes);
    }
}

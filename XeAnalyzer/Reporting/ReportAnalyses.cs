using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Events;

namespace XeAnalyzer.Reporting;

/// <summary>The analyses a capture report runs by default, in page order.</summary>
public static class ReportAnalyses
{
    /// <summary>
    /// The default analyses: stack buckets, callstack symbolization, latches per scheduler, pages allocated over time, waits.
    /// Each runs with its default options; an analysis the capture's events do not allow becomes a note in the page.
    /// </summary>
    /// <returns>A new list.</returns>
    public static IReadOnlyList<IReportAnalysis> CreateDefault() =>
        [new StackReportAnalysis(), new CallstackSymbolization(), new LatchReportAnalysis(), new MemoryReportAnalysis(), new WaitReportAnalysis()];

    internal static bool NameIn(IReadOnlyList<string> names, XeEventType type)
    {
        foreach (string n in names)
        {
            if (string.Equals(n, type.Name, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    internal static string LateWarning(OrderingStatistics o) =>
        o.LateEvents > 0
            ? o.LateEvents.ToString("N0", CultureInfo.InvariantCulture) + " events arrived later than the reorder window allows and were processed out of time order"
            : string.Empty;
}

/// <summary>The latch analysis (<see cref="LatchAnalysis"/>: acquires per scheduler, class, mode, hold times) as a report analysis.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class LatchReportAnalysis(LatchAnalysisOptions? options = null) : IReportAnalysis
{
    /// <summary>The options.</summary>
    public LatchAnalysisOptions Options { get; } = options ?? LatchAnalysisOptions.Default;

    /// <inheritdoc/>
    public string Key => "latches";

    /// <inheritdoc/>
    public string Title => "Latches";

    /// <inheritdoc/>
    public IReadOnlyCollection<string>? EventNames => LatchAnalysis.EventNames;

    /// <inheritdoc/>
    public bool Accepts(XeEventType eventType, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(eventType);
        return ReportAnalyses.NameIn(LatchAnalysis.EventNames, eventType);
    }

    /// <inheritdoc/>
    public ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken)
    {
        LatchAnalysisResult r = new LatchAnalysis(Options).Analyze(events, cancellationToken);
        long used = r.AcquiredEvents + r.ReleasedEvents;
        return r.MissingData is MissingData m
            ? ReportAnalysisOutcome.NotPossible(m, used, r)
            : ReportAnalysisOutcome.Completed(r.ToReport(), used, [ReportAnalyses.LateWarning(r.Ordering)], r);
    }
}

/// <summary>The memory analysis (<see cref="MemoryAnalysis"/>: running total of pages allocated) as a report analysis.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class MemoryReportAnalysis(MemoryAnalysisOptions? options = null) : IReportAnalysis
{
    /// <summary>The options.</summary>
    public MemoryAnalysisOptions Options { get; } = options ?? MemoryAnalysisOptions.Default;

    /// <inheritdoc/>
    public string Key => "memory";

    /// <inheritdoc/>
    public string Title => "Memory";

    /// <inheritdoc/>
    public IReadOnlyCollection<string>? EventNames => MemoryAnalysis.EventNames;

    /// <inheritdoc/>
    public bool Accepts(XeEventType eventType, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(eventType);
        return ReportAnalyses.NameIn(MemoryAnalysis.EventNames, eventType);
    }

    /// <inheritdoc/>
    public ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken)
    {
        MemoryAnalysisResult r = new MemoryAnalysis(Options).Analyze(events, cancellationToken);
        long used = r.AllocationEvents + r.FreeEvents;
        if (r.MissingData is MissingData m)
        {
            return ReportAnalysisOutcome.NotPossible(m, used, r);
        }

        string noSequence = r.Ordering.EventsWithoutSequence > 0
            ? r.Ordering.EventsWithoutSequence.ToString("N0", CultureInfo.InvariantCulture) + " events lack package0.event_sequence: ties on timestamp follow file order"
            : string.Empty;
        return ReportAnalysisOutcome.Completed(r.ToReport(), used, [ReportAnalyses.LateWarning(r.Ordering), noSequence], r);
    }
}

/// <summary>The wait analysis (<see cref="WaitAnalysis"/>: per wait type, scheduler, pairs, preceded-by) as a report analysis.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class WaitReportAnalysis(WaitAnalysisOptions? options = null) : IReportAnalysis
{
    /// <summary>The options.</summary>
    public WaitAnalysisOptions Options { get; } = options ?? WaitAnalysisOptions.Default;

    /// <inheritdoc/>
    public string Key => "waits";

    /// <inheritdoc/>
    public string Title => "Waits";

    /// <inheritdoc/>
    public IReadOnlyCollection<string>? EventNames => WaitAnalysis.EventNames;

    /// <inheritdoc/>
    public bool Accepts(XeEventType eventType, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(eventType);
        return ReportAnalyses.NameIn(WaitAnalysis.EventNames, eventType);
    }

    /// <inheritdoc/>
    public ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken)
    {
        WaitAnalysisResult r = new WaitAnalysis(Options).Analyze(events, cancellationToken);
        long used = r.WaitInfoEvents + r.WaitInfoExternalEvents + r.WaitCompletedEvents;
        return r.MissingData is MissingData m
            ? ReportAnalysisOutcome.NotPossible(m, used, r)
            : ReportAnalysisOutcome.Completed(r.ToReport(), used, [ReportAnalyses.LateWarning(r.Ordering)], r);
    }
}

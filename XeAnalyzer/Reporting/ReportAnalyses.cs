using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Reporting;

/// <summary>The sections a capture report has by default, in page order.</summary>
public static class ReportAnalyses
{
    /// <summary>
    /// The default sections: target data (event_counter counts, histograms on fields), stack buckets, callstack symbolization (a per-event
    /// view of the same stacks), latches per scheduler, pages allocated over time, waits. Each runs with its default options; one the
    /// capture's events do not allow becomes a note in the page.
    /// </summary>
    /// <returns>A new list.</returns>
    public static IReadOnlyList<IReportAnalysis> CreateDefault()
    {
        var stacks = new StackBucketAnalysis();
        return [new TargetDataReportAnalysis(), new StackReportAnalysis(stacks), new SymbolizationReportAnalysis(stacks), new LatchReportAnalysis(), new MemoryReportAnalysis(), new WaitReportAnalysis()];
    }
}

/// <summary>The latch analysis (<see cref="LatchAnalysis"/>: acquires per scheduler, class, mode, hold times) as a report section.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class LatchReportAnalysis(LatchAnalysisOptions? options = null) : IReportAnalysis
{
    /// <inheritdoc/>
    public string Key => "latches";

    /// <inheritdoc/>
    public string Title => "Latches";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = new LatchAnalysis(options);

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        var r = (LatchAnalysisResult)result;
        long used = r.AcquiredEvents + r.ReleasedEvents;
        return r.MissingData is MissingData m ? ReportAnalysisOutcome.NotPossible(m, used, r) : ReportAnalysisOutcome.Completed(r.ToReport(), used, r.Warnings, r);
    }
}

/// <summary>The memory analysis (<see cref="MemoryAnalysis"/>: running total of pages allocated) as a report section.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class MemoryReportAnalysis(MemoryAnalysisOptions? options = null) : IReportAnalysis
{
    /// <inheritdoc/>
    public string Key => "memory";

    /// <inheritdoc/>
    public string Title => "Memory";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = new MemoryAnalysis(options);

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        var r = (MemoryAnalysisResult)result;
        long used = r.AllocationEvents + r.FreeEvents;
        return r.MissingData is MissingData m ? ReportAnalysisOutcome.NotPossible(m, used, r) : ReportAnalysisOutcome.Completed(r.ToReport(), used, r.Warnings, r);
    }
}

/// <summary>The wait analysis (<see cref="WaitAnalysis"/>: per wait type, scheduler, pairs, preceded-by) as a report section.</summary>
/// <param name="options">Options; <see langword="null"/> for the defaults.</param>
public sealed class WaitReportAnalysis(WaitAnalysisOptions? options = null) : IReportAnalysis
{
    /// <inheritdoc/>
    public string Key => "waits";

    /// <inheritdoc/>
    public string Title => "Waits";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = new WaitAnalysis(options);

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        var r = (WaitAnalysisResult)result;
        long used = r.WaitInfoEvents + r.WaitInfoExternalEvents + r.WaitCompletedEvents;
        return r.MissingData is MissingData m ? ReportAnalysisOutcome.NotPossible(m, used, r) : ReportAnalysisOutcome.Completed(r.ToReport(), used, r.Warnings, r);
    }
}

using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;

namespace XeAnalyzer.Reporting;

/// <summary>The analyses a capture report runs by default, in page order.</summary>
internal static class ReportAnalyses
{
    /// <summary>
    /// The default analyses, each with its default options: target data (event_counter counts, histograms on fields),
    /// stack buckets (and the symbolization of the same stacks, a per-event view), latches per scheduler, pages
    /// allocated over time, waits. A result gives its sections itself (<see cref="IAnalysisResult.Sections"/>); one the
    /// capture's events do not allow becomes a note in the page.
    /// </summary>
    /// <returns>A new list.</returns>
    public static IReadOnlyList<ICaptureAnalysis> CreateDefault() =>
        [
            new TargetDataAnalysis(),
            new StackBucketAnalysis(),
            new LatchAnalysis(),
            new MemoryAnalysis(),
            new WaitAnalysis(),
        ];
}

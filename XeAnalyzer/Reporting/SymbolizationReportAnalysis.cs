using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The callstack symbolization of a capture as a report section: how the frames resolved, counted per event, which PDBs they used and why
/// the others did not resolve. It is a per-event view of the same raw-stack table the stack buckets come from
/// (<see cref="StackBucketResult.Symbolization"/>), not a second symbolization: give it the same <see cref="StackBucketAnalysis"/>
/// instance as <see cref="StackReportAnalysis"/> and the stacks are read, counted and resolved once.
/// </summary>
/// <param name="analysis">The stack analysis whose result is described; <see langword="null"/> for the defaults.</param>
public sealed class SymbolizationReportAnalysis(StackBucketAnalysis? analysis = null) : IReportAnalysis
{
    /// <inheritdoc/>
    public string Key => "symbols";

    /// <inheritdoc/>
    public string Title => "Symbolization";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = analysis ?? new StackBucketAnalysis();

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        var stacks = (StackBucketResult)result;
        if (stacks.MissingData is MissingData m)
        {
            return ReportAnalysisOutcome.NotPossible(m, 0, stacks);
        }

        SymbolizationResult r = SymbolizationResult.From(stacks);
        return ReportAnalysisOutcome.Completed(r.ToReport(), r.EventsWithCallstacks, null, r, r.Summary);
    }
}

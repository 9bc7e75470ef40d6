using XeAnalyzer.Analysis;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Reporting;

/// <summary>
/// One section of a capture report (<see cref="CaptureReporter"/>): how latches, memory, waits, stack buckets, the callstack symbolization
/// and target data plug into <c>xeanalyze report</c> and <c>xeanalyze batch</c>. The reporter reads the capture once, runs each distinct
/// <see cref="Analysis"/> once over it (two sections may share one analysis: the stack buckets and the symbolization view of the same
/// stacks), and asks each section to describe the result.
/// </summary>
/// <remarks>Implementations must be immutable and thread-safe: one instance serves many captures at once (batch mode).</remarks>
public interface IReportAnalysis
{
    /// <summary>A short lowercase key (<c>latches</c>): the prefix of the section's files (<c>latches.&lt;table&gt;.csv</c>). Letters, digits and <c>-</c> only.</summary>
    string Key { get; }

    /// <summary>The title of the section in the page (<c>Latches</c>); its parts are titled <c>Latches: …</c>.</summary>
    string Title { get; }

    /// <summary>The analysis whose result the section describes (run once per report, even when several sections share it).</summary>
    ICaptureAnalysis Analysis { get; }

    /// <summary>Describes the analysis's result: the section's report, what the capture lacks, or that the section does not apply.</summary>
    /// <param name="result">The result of <see cref="Analysis"/> over the capture.</param>
    /// <param name="read">What the read found.</param>
    /// <param name="context">The run's context (how paths are shown, the filter).</param>
    /// <returns>The outcome.</returns>
    ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context);
}

/// <summary>What one <see cref="IReportAnalysis"/> gave for one capture: its report, or what the capture lacks. Immutable.</summary>
public sealed class ReportAnalysisOutcome
{
    private ReportAnalysisOutcome(ReportDocument? report, MissingData? missing, long eventsUsed, IEnumerable<string>? warnings, object? result, ResolutionSummary? symbolization)
    {
        Report = report;
        MissingData = missing;
        EventsUsed = eventsUsed;
        Warnings = Array.AsReadOnly(warnings?.Where(w => !string.IsNullOrEmpty(w)).ToArray() ?? []);
        Result = result;
        Symbolization = symbolization;
    }

    /// <summary>The analysis's report (its sections go into the page), or <see langword="null"/> when it was not possible.</summary>
    public ReportDocument? Report { get; }

    /// <summary>What the capture lacks, or <see langword="null"/> when the analysis ran.</summary>
    public MissingData? MissingData { get; }

    /// <summary>Whether the analysis ran (<see cref="Report"/> is set).</summary>
    public bool IsPossible => Report is not null;

    /// <summary>Whether the section does not apply to this capture at all (for example target data of a <c>.xel</c> capture): no section, no note.</summary>
    public bool IsNotApplicable => Report is null && MissingData is null;

    /// <summary>How many of the capture's events the analysis used (for the overview).</summary>
    public long EventsUsed { get; }

    /// <summary>Warnings about the result (events out of order beyond the reorder window, …).</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>The analysis's own result object (for example a <see cref="LatchAnalysisResult"/>), or <see langword="null"/>.</summary>
    public object? Result { get; }

    /// <summary>The resolution summary of the callstacks the analysis symbolized, or <see langword="null"/> when it symbolizes none.</summary>
    public ResolutionSummary? Symbolization { get; }

    /// <summary>An analysis that ran.</summary>
    /// <param name="report">Its report.</param>
    /// <param name="eventsUsed">How many events it used.</param>
    /// <param name="warnings">Warnings about the result.</param>
    /// <param name="result">The analysis's own result object.</param>
    /// <param name="symbolization">The resolution summary, when the analysis symbolized callstacks.</param>
    /// <returns>The outcome.</returns>
    public static ReportAnalysisOutcome Completed(ReportDocument report, long eventsUsed, IEnumerable<string>? warnings = null, object? result = null, ResolutionSummary? symbolization = null)
    {
        ArgumentNullException.ThrowIfNull(report);
        return new ReportAnalysisOutcome(report, null, eventsUsed, warnings, result, symbolization);
    }

    /// <summary>A section that does not apply to the capture (no section and no note in the page).</summary>
    /// <returns>The outcome.</returns>
    public static ReportAnalysisOutcome NotApplicable() => new(null, null, 0, null, null, null);

    /// <summary>An analysis that was not possible.</summary>
    /// <param name="missing">What the capture lacks.</param>
    /// <param name="eventsUsed">How many events it looked at.</param>
    /// <param name="result">The analysis's own result object.</param>
    /// <returns>The outcome.</returns>
    public static ReportAnalysisOutcome NotPossible(MissingData missing, long eventsUsed = 0, object? result = null)
    {
        ArgumentNullException.ThrowIfNull(missing);
        return new ReportAnalysisOutcome(null, missing, eventsUsed, null, result, null);
    }
}

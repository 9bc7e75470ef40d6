using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>Options of <see cref="CaptureReporter"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class ReportOptions
{
    /// <summary>The defaults: every default analysis, strict reading, sidecar module lists, a default
    /// resolver.</summary>
    public static ReportOptions Default { get; } = new();

    /// <summary>How the inputs are opened and read (integrity, limits, <c>--modules</c>, sidecars).</summary>
    public CaptureReadOptions Input { get; init; } = CaptureReadOptions.Default;

    /// <summary>
    /// The analyses, in page order (each result gives its sections: <see cref="Analysis.IAnalysisResult.Sections"/>);
    /// <see langword="null"/> for <see cref="ReportAnalyses.CreateDefault"/>. An analysis given twice runs once.
    /// </summary>
    public IReadOnlyList<Analysis.ICaptureAnalysis>? Analyses { get; init; }

    /// <summary>The symbol resolver (share one across a batch); <see langword="null"/> for a new default resolver per
    /// report.</summary>
    public CallstackResolver? Resolver { get; init; }

    /// <summary>How a path is shown in the report (batch reports show paths relative to the batch input);
    /// <see langword="null"/> for as given.</summary>
    public Func<string, string>? DisplayPath { get; init; }

    /// <summary>The page title; <see langword="null"/> for one naming the inputs.</summary>
    public string? Title { get; init; }

    /// <summary>
    /// Whether the page's frames end in <c> -- unresolved: reason</c> (default <see langword="true"/>;
    /// <c>--no-reasons</c>). The frames tables keep the reason as a column either way.
    /// </summary>
    public bool ShowUnresolvedReasons { get; init; } = true;

    /// <summary>Which end of the stacks the page's flame graphs grow from (default <see
    /// cref="FlameRoot.Auto"/>).</summary>
    public FlameRoot FlameRoot { get; init; } = FlameRoot.Auto;

    /// <summary>Which events every analysis and the capture summary see (<c>--event</c>, <c>--where</c>,
    /// <c>--from</c>/<c>--to</c>).</summary>
    public EventFilter Filter { get; init; } = EventFilter.None;
}

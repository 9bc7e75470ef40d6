using XeAnalyzer.Analysis;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>How a capture report reads its inputs.</summary>
public enum ReportReadMode
{
    /// <summary>
    /// Read every input once; the events go to every analysis at once, each analysis on its own thread (the default: one pass,
    /// and the analyses run in parallel with the reading).
    /// </summary>
    SinglePass,

    /// <summary>
    /// Read every input once for the capture summary, then once more per analysis with the reader's event-name filter (events
    /// of other names are skipped before they are decoded). Kept for comparison; see the <c>report</c> benchmark.
    /// </summary>
    PerAnalysis,
}

/// <summary>Options of <see cref="CaptureReporter"/>. Immutable.</summary>
public sealed class ReportOptions
{
    /// <summary>The defaults.</summary>
    public static ReportOptions Default { get; } = new();

    /// <summary>Reader options (integrity handling, limits).</summary>
    public AnalysisInputOptions Input { get; init; } = AnalysisInputOptions.Default;

    /// <summary>The analyses, in page order; <see langword="null"/> for <see cref="ReportAnalyses.CreateDefault"/>.</summary>
    public IReadOnlyList<IReportAnalysis>? Analyses { get; init; }

    /// <summary>
    /// The symbol resolver (its PDB caches are shared by every report that uses it; batch mode passes one for the whole batch).
    /// <see langword="null"/>: a resolver with an empty symbol path is made for the report (raw addresses are placed in modules
    /// but no PDB is searched).
    /// </summary>
    public CallstackResolver? Resolver { get; init; }

    /// <summary>A module list for every input's raw addresses (<c>--modules</c>); <see langword="null"/> to use each capture's sidecar.</summary>
    public string? ModuleList { get; init; }

    /// <summary>Whether each capture's <c>&lt;set-name&gt;.modules.txt</c> sidecar is looked for (see <see cref="ModuleListSidecar"/>); default <see langword="true"/>.</summary>
    public bool FindModuleLists { get; init; } = true;

    /// <summary>How file paths are shown in the report; <see langword="null"/> shows them as given.</summary>
    public Func<string, string>? DisplayPath { get; init; }

    /// <summary>The page title; <see langword="null"/> for <c>XeAnalyzer report: &lt;input&gt;</c>.</summary>
    public string? Title { get; init; }

    /// <summary>
    /// Which events every analysis sees (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>); the capture summary counts the
    /// same events. Histogram slots carry only a count: the filter's event names apply to them, its conditions cannot (a warning
    /// says so). Default: <see cref="EventFilter.None"/>.
    /// </summary>
    public EventFilter Filter { get; init; } = EventFilter.None;

    /// <summary>How the inputs are read (default <see cref="ReportReadMode.SinglePass"/>).</summary>
    public ReportReadMode ReadMode { get; init; } = ReportReadMode.SinglePass;
}

using XeAnalyzer.Analysis;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Reporting;

/// <summary>
/// One analysis of a capture report (<see cref="CaptureReporter"/>): the seam through which latches, memory, waits, the
/// callstack symbolization and stack buckets plug into <c>xeanalyze report</c> and <c>xeanalyze batch</c>. The reporter reads the
/// capture once and hands each analysis the events it <see cref="Accepts"/>; the analysis returns its report sections, or the
/// <see cref="MissingData"/> that says what the event session would need.
/// </summary>
/// <remarks>
/// Implementations must be thread-safe in the sense that one instance may analyse several captures at once (batch mode):
/// keep per-capture state inside <see cref="Analyze"/>. <see cref="Analyze"/> runs on its own thread while the capture is read,
/// so it must consume the events it is given (to the end, or until it throws) and must not touch the others.
/// </remarks>
public interface IReportAnalysis
{
    /// <summary>A short lowercase key (<c>latches</c>): the prefix of the analysis's files (<c>latches.&lt;table&gt;.csv</c>). Letters, digits and <c>-</c> only.</summary>
    string Key { get; }

    /// <summary>The title of the analysis in the page (<c>Latches</c>); its sections are titled <c>Latches: …</c>.</summary>
    string Title { get; }

    /// <summary>
    /// The short event names the analysis reads (for the reader's name filter when captures are read once per analysis), or
    /// <see langword="null"/> when the events cannot be named in advance (for example "every event with a callstack").
    /// </summary>
    IReadOnlyCollection<string>? EventNames { get; }

    /// <summary>Whether events of this type with these actions go to the analysis. Called once per distinct pair.</summary>
    /// <param name="eventType">The event type.</param>
    /// <param name="actions">The actions the events carry.</param>
    /// <returns>Whether the analysis reads such events.</returns>
    bool Accepts(XeEventType eventType, XeActionSet actions);

    /// <summary>Runs the analysis over the accepted events of one capture.</summary>
    /// <param name="events">The accepted events, input by input, each in file order.</param>
    /// <param name="context">The capture's symbol sessions and settings.</param>
    /// <param name="cancellationToken">Stops the analysis.</param>
    /// <returns>The sections, or why the analysis was not possible.</returns>
    ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken);
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

/// <summary>
/// What an <see cref="IReportAnalysis"/> may use besides the events: the symbol resolver shared by the whole run (one per
/// batch) and each input's <see cref="ResolverSession"/> (its module list). Immutable; thread-safe.
/// </summary>
public sealed class ReportAnalysisContext
{
    private readonly IReadOnlyDictionary<string, ResolverSession> _sessions;
    private readonly ResolverSession _fallback;

    private readonly Func<string, string> _display;

    internal ReportAnalysisContext(
        CallstackResolver resolver,
        IReadOnlyDictionary<string, ResolverSession> sessions,
        ResolverSession fallback,
        IReadOnlyDictionary<string, string> moduleLists,
        Func<string, string> display,
        IReadOnlyList<CaptureSet> captures,
        IReadOnlyList<string> targetDataFiles,
        AnalysisInputOptions inputOptions,
        bool moduleListIsExplicit,
        EventFilter filter)
    {
        Filter = filter;
        ModuleListIsExplicit = moduleListIsExplicit;
        Resolver = resolver;
        _sessions = sessions;
        _fallback = fallback;
        ModuleLists = moduleLists;
        _display = display;
        Captures = captures;
        TargetDataFiles = targetDataFiles;
        InputOptions = inputOptions;
    }

    /// <summary>
    /// The report's event filter. The events given to <see cref="IReportAnalysis.Analyze"/> have passed it already; an analysis
    /// that reads target-data files itself applies it there.
    /// </summary>
    public EventFilter Filter { get; }

    /// <summary>The <c>.xel</c> capture sets of the report, in input order.</summary>
    public IReadOnlyList<CaptureSet> Captures { get; }

    /// <summary>
    /// The target-data XML files of the report, in input order. Only their events reach <see cref="IReportAnalysis.Analyze"/>; an
    /// analysis that also reads other target data (histogram slots, event counters) reads these files itself.
    /// </summary>
    public IReadOnlyList<string> TargetDataFiles { get; }

    /// <summary>Whether one module list was given for every input (<c>--modules</c>) rather than found beside each capture.</summary>
    public bool ModuleListIsExplicit { get; }

    /// <summary>The reader options of the report (limits of the target-data reader).</summary>
    public AnalysisInputOptions InputOptions { get; }

    /// <summary>The resolver (PDB caches shared by every capture of the run).</summary>
    public CallstackResolver Resolver { get; }

    /// <summary>The module list (sidecar or <c>--modules</c>) used for each input file, by file path as read; files without one are absent.</summary>
    public IReadOnlyDictionary<string, string> ModuleLists { get; }

    /// <summary>How a path is shown in the report (batch reports show paths relative to the batch input, so they do not depend on where it lies).</summary>
    /// <param name="path">A file path as read.</param>
    /// <returns>The path to show.</returns>
    public string DisplayPath(string path) => _display(path);

    /// <summary>The resolver session for the file an event came from (its module list), or a session without module list.</summary>
    /// <param name="filePath">The event's <see cref="XeSourceLocation.FilePath"/>.</param>
    /// <returns>The session.</returns>
    public ResolverSession SessionFor(string? filePath) =>
        filePath is not null && _sessions.TryGetValue(filePath, out ResolverSession? s) ? s : _fallback;
}

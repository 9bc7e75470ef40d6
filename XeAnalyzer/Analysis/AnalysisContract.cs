using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis;

/// <summary>
/// The result of an analysis: its documents (one per <see cref="DocumentView"/>), its status, its warnings (typed) and
/// the events it used; what a capture report shows of it (<see cref="Sections"/>). Every analysis result implements it,
/// and the report composes results through it alone.
/// </summary>
public interface IAnalysisResult : IDocumentSource
{
    /// <summary>
    /// A short lowercase key (<c>latches</c>): the prefix of the result's files in a report
    /// (<c>latches.&lt;table&gt;.csv</c>) and of its warnings in the run's diagnostics. Letters, digits and <c>-</c>
    /// only.
    /// </summary>
    string Key { get; }

    /// <summary>The title of its section in a report (<c>Latches</c>); the section's parts are titled <c>Latches:
    /// …</c>.</summary>
    string Title { get; }

    /// <summary>What the capture lacks for this analysis (events, an action, a field), or <see langword="null"/> when
    /// it ran.</summary>
    MissingData? MissingData { get; }

    /// <summary>Warnings about the result: limits reached, values out of range, late events, events it could not
    /// use.</summary>
    IReadOnlyList<AnalysisWarning> Warnings { get; }

    /// <summary>How many of the capture's events (or histogram slot counts) the analysis used.</summary>
    long EventsUsed { get; }

    /// <summary>
    /// How the result itself came out: <see cref="AnalysisStatus.MissingData"/> when data is missing,
    /// <see cref="AnalysisStatus.Partial"/> when a warning left events out, else <see cref="AnalysisStatus.Complete"/>
    /// (whether the read was partial is the read's:
    /// <see cref="AnalysisOutcome.StatusOf"/>).
    /// </summary>
    AnalysisStatus Status =>
        MissingData is not null ? AnalysisStatus.MissingData
        : Warnings.Any(w => w.EventsLeftOut > 0) ? AnalysisStatus.Partial
        : AnalysisStatus.Complete;

    /// <summary>
    /// The sections it gives a capture report, in page order: the result itself for most; the stack buckets give their
    /// page and the symbolization of the same stacks. Each section is a result with its own key, title, documents and
    /// status.
    /// </summary>
    IReadOnlyList<IAnalysisResult> Sections => [this];

    /// <summary>How the callstack frames it used resolved, counted per event, or <see langword="null"/> when it reports
    /// none.</summary>
    SymbolizationCounts? FrameCounts => null;
}

/// <summary>
/// One run of an analysis over one read of the inputs: the pipeline (<see cref="CaptureSource.Read"/>) pushes inputs,
/// events and histogram slots to it (<see cref="ICaptureConsumer"/>), then asks for the result. Latches, memory, waits,
/// stack buckets, the callstack symbolization, histograms and any new analysis are fed through this one contract.
/// </summary>
public interface IAnalysisRun : ICaptureConsumer
{
    /// <summary>Ends the run: the read is over. The run reports the result's warnings to the context's diagnostics
    /// once.</summary>
    /// <param name="capture">What the read found (inputs, events by name before the filter, target data,
    /// diagnostics).</param>
    /// <param name="cancellationToken">Stops a long completion (symbolization).</param>
    /// <returns>The result.</returns>
    IAnalysisResult Complete(CaptureSummary capture, CancellationToken cancellationToken);
}

/// <summary>
/// An analysis: its options and the events it reads. Immutable and thread-safe; each <see cref="Start"/> begins an
/// independent run, so one instance serves many captures (batch).
/// </summary>
public interface ICaptureAnalysis
{
    /// <summary>
    /// The events the analysis reads (short or full names), pushed down to the <c>.xel</c> reader;
    /// <see langword="null"/> when they cannot be named in advance (for example "every event with a callstack").
    /// </summary>
    IReadOnlyCollection<string>? EventNames { get; }

    /// <summary>Starts a run.</summary>
    /// <param name="context">What the run may use besides the events.</param>
    /// <returns>The run.</returns>
    IAnalysisRun Start(AnalysisContext context);
}

/// <summary>What a run may use besides the events: the filter, the diagnostics collector, the symbol resolver and how
/// paths are shown. Immutable.</summary>
public sealed class AnalysisContext
{
    /// <summary>Creates a context.</summary>
    /// <param name="filter">The filter the events passed.</param>
    /// <param name="diagnostics">Where warnings go (late events, unverified matches, limits reached).</param>
    /// <param name="resolver">The symbol resolver shared by the run (or by a whole batch); <see langword="null"/> when
    /// the analysis must create its own.</param>
    /// <param name="displayPath">How a path is shown in results; <see langword="null"/> for paths as given.</param>
    public AnalysisContext(
        EventFilter? filter = null,
        CaptureDiagnostics? diagnostics = null,
        CallstackResolver? resolver = null,
        Func<string, string>? displayPath = null
    )
    {
        Filter = filter ?? EventFilter.None;
        Diagnostics = diagnostics ?? new CaptureDiagnostics();
        Resolver = resolver;
        DisplayPath = displayPath ?? (p => p);
    }

    /// <summary>The filter the events passed (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>).</summary>
    public EventFilter Filter { get; }

    /// <summary>The run's diagnostics collector.</summary>
    public CaptureDiagnostics Diagnostics { get; }

    /// <summary>The symbol resolver, or <see langword="null"/>.</summary>
    public CallstackResolver? Resolver { get; }

    /// <summary>How a path is shown (batch reports show paths relative to the batch input).</summary>
    public Func<string, string> DisplayPath { get; }
}

/// <summary>How an analysis ended, the same for every analysis and command (the CLI maps it to its exit
/// code).</summary>
public enum AnalysisStatus
{
    /// <summary>Every input was read and the analysis ran.</summary>
    Complete,

    /// <summary>
    /// Output was produced from part of the data: damaged buffers were skipped, a final buffer was incomplete, events
    /// could not be decoded, or events over a limit were counted but left out. Takes precedence over
    /// <see cref="MissingData"/>: what is missing may be in the part that could not be read.
    /// </summary>
    Partial,

    /// <summary>The capture lacks the events, an action or a field the analysis needs (the explanation says which
    /// session change adds it).</summary>
    MissingData,

    /// <summary>The analysis does not apply to the capture at all (target data of a <c>.xel</c> capture): a report
    /// shows no section and no note.</summary>
    NotApplicable,
}

/// <summary>What an analysis gave for one read: its result, its status, what the read found, and the explanation of any
/// missing data. Immutable.</summary>
/// <typeparam name="TResult">The analysis's result type.</typeparam>
public sealed class AnalysisOutcome<TResult>
    where TResult : class, IAnalysisResult
{
    internal AnalysisOutcome(TResult result, CaptureSummary read, IReadOnlyCollection<string>? analysisEvents)
    {
        Result = result;
        Read = read;
        Status = AnalysisOutcome.StatusOf(result, read.Diagnostics);
        Explanation = result.MissingData is MissingData m
            ? MissingDataExplainer.Explain(m, read, analysisEvents)
            : null;
    }

    /// <summary>The analysis's result.</summary>
    public TResult Result { get; }

    /// <summary>How the analysis ended.</summary>
    public AnalysisStatus Status { get; }

    /// <summary>What the read found.</summary>
    public CaptureSummary Read { get; }

    /// <summary>
    /// When data is missing: why, in the user's terms (the events found instead, or that the user's own filter left
    /// them out, or that the input was read only in part) and the session change that fixes it; otherwise
    /// <see langword="null"/>.
    /// </summary>
    public string? Explanation { get; }
}

/// <summary>Runs analyses over a <see cref="CaptureSource"/>: one read feeds every analysis.</summary>
public static class AnalysisOutcome
{
    /// <summary>The status rule, one for every analysis: partial reading first, then the result's own status
    /// (<see cref="IAnalysisResult.Status"/>).</summary>
    /// <param name="result">The result.</param>
    /// <param name="diagnostics">The run's diagnostics.</param>
    /// <returns>The status.</returns>
    public static AnalysisStatus StatusOf(IAnalysisResult result, CaptureDiagnostics diagnostics)
    {
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(diagnostics);
        return diagnostics.IsPartial ? AnalysisStatus.Partial : result.Status;
    }

    /// <summary>Whether a result has something to show: it ran (complete or partial), as opposed to missing data or not
    /// applying.</summary>
    /// <param name="result">The result.</param>
    /// <returns>Whether it ran.</returns>
    public static bool Ran(IAnalysisResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return result.Status is AnalysisStatus.Complete or AnalysisStatus.Partial;
    }

    /// <summary>
    /// Reports a result's warnings to a run's diagnostics once, each prefixed with the result's key: those that left
    /// events out make the read partial (<see cref="CaptureDiagnostics.AddPartial"/>); of the others, those
    /// <paramref name="reported"/> takes.
    /// </summary>
    internal static void Report(
        IAnalysisResult result,
        CaptureDiagnostics diagnostics,
        Func<AnalysisWarning, bool> reported
    )
    {
        foreach (AnalysisWarning w in result.Warnings)
        {
            if (w.EventsLeftOut > 0)
            {
                diagnostics.AddPartial(w.EventsLeftOut, result.Key + ": " + w.Text);
            }
            else if (reported(w))
            {
                diagnostics.Warn(result.Key + ": " + w.Text);
            }
        }
    }

    /// <summary>Reads the inputs once and runs one analysis.</summary>
    /// <typeparam name="TResult">The analysis's result type.</typeparam>
    /// <param name="source">The inputs.</param>
    /// <param name="analysis">The analysis.</param>
    /// <param name="context">The filter, diagnostics and resolver; <see langword="null"/> for no filter and a new
    /// collector.</param>
    /// <param name="cancellationToken">Stops the read and the analysis.</param>
    /// <returns>The outcome.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    /// <exception cref="InvalidCastException">The analysis does not return a
    /// <typeparamref name="TResult"/>.</exception>
    public static AnalysisOutcome<TResult> Run<TResult>(
        CaptureSource source,
        ICaptureAnalysis analysis,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    )
        where TResult : class, IAnalysisResult
    {
        ArgumentNullException.ThrowIfNull(analysis);
        IReadOnlyList<AnalysisOutcome<IAnalysisResult>> all = RunAll(source, [analysis], context, cancellationToken);
        return new AnalysisOutcome<TResult>((TResult)all[0].Result, all[0].Read, analysis.EventNames);
    }

    /// <summary>Reads the inputs once and runs every analysis over the events it accepts.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="analyses">The analyses.</param>
    /// <param name="context">The filter, diagnostics and resolver; <see langword="null"/> for no filter and a new
    /// collector.</param>
    /// <param name="cancellationToken">Stops the read and the analyses.</param>
    /// <returns>One outcome per analysis, in order (they share one <see cref="CaptureSummary"/>).</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static IReadOnlyList<AnalysisOutcome<IAnalysisResult>> RunAll(
        CaptureSource source,
        IReadOnlyList<ICaptureAnalysis> analyses,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    )
    {
        (CaptureSummary read, IAnalysisResult[] results) = Read(source, analyses, context, cancellationToken);
        var outcomes = new AnalysisOutcome<IAnalysisResult>[results.Length];
        for (int i = 0; i < results.Length; i++)
        {
            outcomes[i] = new AnalysisOutcome<IAnalysisResult>(results[i], read, analyses[i].EventNames);
        }

        return outcomes;
    }

    /// <summary>Reads the inputs once, runs every analysis over the events it accepts, and gives what the read found
    /// and the results.</summary>
    internal static (CaptureSummary Read, IAnalysisResult[] Results) Read(
        CaptureSource source,
        IReadOnlyList<ICaptureAnalysis> analyses,
        AnalysisContext? context,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(analyses);
        context ??= new AnalysisContext();
        var runs = new IAnalysisRun[analyses.Count];
        for (int i = 0; i < runs.Length; i++)
        {
            runs[i] = analyses[i].Start(context);
        }

        CaptureSummary read = source.Read(
            runs,
            context.Filter,
            EventNamesOf(analyses),
            context.Diagnostics,
            cancellationToken
        );
        var results = new IAnalysisResult[runs.Length];
        for (int i = 0; i < runs.Length; i++)
        {
            results[i] = runs[i].Complete(read, cancellationToken);
        }

        return (read, results);
    }

    /// <summary>The events a set of analyses reads (for the reader's name push-down): their union, or
    /// <see langword="null"/> when one of them reads any event.</summary>
    /// <param name="analyses">The analyses.</param>
    /// <returns>The names.</returns>
    public static IReadOnlyCollection<string>? EventNamesOf(IEnumerable<ICaptureAnalysis> analyses)
    {
        ArgumentNullException.ThrowIfNull(analyses);
        var names = new List<string>();
        foreach (ICaptureAnalysis a in analyses)
        {
            if (a.EventNames is null)
            {
                return null;
            }

            foreach (string n in a.EventNames)
            {
                if (!names.Contains(n, StringComparer.Ordinal))
                {
                    names.Add(n);
                }
            }
        }

        return names.AsReadOnly();
    }
}

using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis;

/// <summary>
/// The push run every analysis shares (<see cref="IAnalysisRun"/>): an analysis says which events it takes
/// (<see cref="Accepts"/>), takes them (<see cref="Add"/>, <see cref="AddHistogramSlot"/>, <see cref="BeginInput"/>)
/// and makes its result (<see cref="Finish"/>); the run ends the same way for every analysis (the result's warnings go
/// to the run's diagnostics once) and gives the streaming entry point (<see cref="Analyze"/>) over the same calls. Not
/// thread-safe: one run per read.
/// </summary>
/// <typeparam name="TResult">The analysis's result type.</typeparam>
/// <param name="context">What the run may use besides the events.</param>
internal abstract class AnalysisRun<TResult>(AnalysisContext context) : IAnalysisRun
    where TResult : class, IAnalysisResult
{
    /// <summary>What the run may use besides the events (filter, diagnostics, resolver, how paths are shown).</summary>
    protected AnalysisContext Context { get; } = context;

    /// <inheritdoc/>
    public abstract bool Accepts(XeEventType eventType, XeActionSet actions);

    /// <inheritdoc/>
    public virtual void BeginInput(CaptureInput input) { }

    /// <inheritdoc/>
    public abstract void Add(XEvent e);

    /// <inheritdoc/>
    public virtual void AddHistogramSlot(HistogramTarget target, HistogramSlot slot) { }

    /// <inheritdoc/>
    public virtual void EndInput(InputSummary input) { }

    /// <inheritdoc/>
    public IAnalysisResult Complete(CaptureSummary capture, CancellationToken cancellationToken) =>
        CompleteResult(capture, cancellationToken);

    /// <summary>Ends the run: makes the result and reports its warnings to the run's diagnostics.</summary>
    /// <param name="capture">What the read found, or <see langword="null"/> for events given as a stream.</param>
    /// <param name="cancellationToken">Stops a long completion (symbolization).</param>
    /// <returns>The result.</returns>
    public TResult CompleteResult(CaptureSummary? capture, CancellationToken cancellationToken)
    {
        TResult result = Finish(capture, cancellationToken);
        AnalysisOutcome.Report(result, Context.Diagnostics, ReportsToRun);
        return result;
    }

    /// <summary>Runs over a stream of events (every event is given to <see cref="Add"/>, which ignores those it does
    /// not read).</summary>
    /// <param name="events">The events.</param>
    /// <param name="cancellationToken">Checked every 4,096 events and at the end.</param>
    /// <returns>The result.</returns>
    public TResult Analyze(IEnumerable<XEvent> events, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(events);
        long n = 0;
        foreach (XEvent e in events)
        {
            if ((++n & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            Add(e);
        }

        cancellationToken.ThrowIfCancellationRequested();
        return CompleteResult(null, cancellationToken);
    }

    /// <summary>Makes the result once the events are in.</summary>
    /// <param name="capture">What the read found, or <see langword="null"/> for events given as a stream.</param>
    /// <param name="cancellationToken">Stops a long completion.</param>
    /// <returns>The result.</returns>
    protected abstract TResult Finish(CaptureSummary? capture, CancellationToken cancellationToken);

    /// <summary>
    /// Whether a warning that left no event out goes to the run's diagnostics (those that left events out always do,
    /// and make the read partial); a result whose own documents show its warnings keeps them there.
    /// </summary>
    /// <param name="warning">The warning.</param>
    /// <returns>Whether the run reports it.</returns>
    protected virtual bool ReportsToRun(AnalysisWarning warning) => true;
}

using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Buckets events by callstack after symbolization: <c>xeanalyze stacks</c>. See <see cref="StackBucketBuilder"/> for how raw stacks are
/// counted, symbolized once and merged.
/// </summary>
/// <remarks>
/// <para><b>Inputs.</b> Every input kind of a <see cref="CaptureSource"/>: <c>.xel</c> events and target-data events (the stack column
/// chosen by <see cref="StackColumns"/>, or <see cref="StackBucketOptions.StackSource"/>), and callstack histogram slots, which become
/// buckets with their counts (<c>module+offset</c> frames resolved offline, frames SQL Server symbolized with trace flag 3656 passed
/// through). A histogram on an event field or action is not a stack: it is counted and the result points to <c>xeanalyze histogram</c>.
/// Each input is resolved through its own module map.</para>
/// <para><b>Wait events.</b> When the events have a <c>duration</c> field, buckets sum and keep the maximum of <c>duration</c>, and of
/// <c>signal_duration</c> where the event's schema has it (n/a otherwise). <c>wait_info</c>/<c>wait_info_external</c> Begin events
/// carry 0: filter with <c>opcode=End</c>.</para>
/// </remarks>
public sealed class StackBucketAnalysis : ICaptureAnalysis
{
    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="StackBucketOptions.Default"/>.</param>
    public StackBucketAnalysis(StackBucketOptions? options = null)
    {
        Options = options ?? StackBucketOptions.Default;
    }

    /// <summary>The options.</summary>
    public StackBucketOptions Options { get; }

    /// <summary>Any event may carry a stack, so none are named in advance.</summary>
    public IReadOnlyCollection<string>? EventNames => null;

    /// <inheritdoc/>
    public IAnalysisRun Start(AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new Run(this, context);
    }

    /// <summary>Reads the inputs once and buckets their stacks.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="context">The filter, diagnostics and resolver (frame style, symbol path); <see langword="null"/> for a default resolver without network.</param>
    /// <param name="cancellationToken">Stops the read and symbolization.</param>
    /// <returns>The outcome.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public AnalysisOutcome<StackBucketResult> Analyze(CaptureSource source, AnalysisContext? context = null, CancellationToken cancellationToken = default) =>
        AnalysisOutcome.Run<StackBucketResult>(source, this, context, cancellationToken);

    /// <summary>Buckets the stacks of events of one input.</summary>
    /// <param name="events">The events (already filtered).</param>
    /// <param name="session">The session that resolves their frames (its module map places raw addresses).</param>
    /// <param name="cancellationToken">Checked every 4,096 events and during symbolization.</param>
    /// <returns>The result.</returns>
    internal StackBucketResult Analyze(IEnumerable<XEvent> events, ResolverSession session, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(session);
        var run = new Run(this, new AnalysisContext());
        run.BeginEvents(session);
        return run.Analyze(events, cancellationToken);
    }

    /// <summary>The summary name of an input: its display path, kind and module map.</summary>
    internal static StackInputInfo Describe(CaptureInput input, AnalysisContext context) => new(
        context.DisplayPath(input.Name),
        input.KindName,
        input.ModuleMap.Path is string p && input.ModuleMap.Map is not null ? (input.ModuleMap.Source == ModuleMapSource.Explicit ? p : context.DisplayPath(p)) : null,
        input.ModuleMap.Map is null ? ModuleMapSource.None : input.ModuleMap.Source);

    private sealed class Run(StackBucketAnalysis owner, AnalysisContext context) : AnalysisRun<StackBucketResult>(context)
    {
        private readonly StackBucketBuilder _builder = new(owner.Options) { Filter = context.Filter };
        private CallstackResolver? _owned;

        public override bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public override void BeginInput(CaptureInput input)
        {
            CallstackResolver resolver = Context.Resolver ?? (_owned ??= new CallstackResolver());
            _builder.BeginInput(resolver.CreateSession(input.ModuleMap.Map), Describe(input, Context));
        }

        /// <summary>Starts the one input of events given as a stream, resolved through <paramref name="session"/>.</summary>
        public void BeginEvents(ResolverSession session) => _builder.BeginInput(session, new StackInputInfo("events"));

        public override void Add(XEvent e) => _builder.AddEvent(e);

        public override void AddHistogramSlot(HistogramTarget target, HistogramSlot slot) => _builder.AddSlot(target, slot);

        protected override StackBucketResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            try
            {
                return _builder.Build(cancellationToken);
            }
            finally
            {
                _owned?.Dispose();
            }
        }

        /// <summary>The result's own documents show its other warnings: only those that left events out go to the run.</summary>
        protected override bool ReportsToRun(AnalysisWarning warning) => false;
    }
}

using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Buckets events by callstack after symbolization: <c>xeanalyze stacks</c>. See <see cref="StackBucketBuilder"/> for
/// how raw stacks are counted, symbolized once and merged.
/// </summary>
/// <remarks>
/// <para><b>Inputs.</b> Every input kind of a <see cref="CaptureSource"/>: <c>.xel</c> events and target-data events
/// (the stack column chosen by <see cref="StackColumns"/>, or <see cref="StackBucketOptions.StackSource"/>), and
/// callstack histogram slots, which become buckets with their counts (<c>module+offset</c> frames resolved offline,
/// frames SQL Server symbolized with trace flag 3656 passed through). A histogram on an event field or action is not a
/// stack: it is counted and the result points to <c>xeanalyze histogram</c>. Each input is resolved through its own
/// module map.</para>
/// <para><b>Wait events.</b> When the events have a <c>duration</c> field, buckets sum and keep the maximum of
/// <c>duration</c>, and of
/// <c>signal_duration</c> where the event's schema has it (n/a otherwise). <c>wait_info</c>/<c>wait_info_external</c>
/// Begin events carry 0: filter with <c>opcode=End</c>.</para>
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
    /// <param name="context">The filter, diagnostics and resolver (frame style, symbol path); <see langword="null"/>
    /// for a default resolver without network.</param>
    /// <param name="cancellationToken">Stops the read and symbolization.</param>
    /// <returns>The outcome.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public AnalysisOutcome<StackBucketResult> Analyze(
        CaptureSource source,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    ) => AnalysisOutcome.Run<StackBucketResult>(source, this, context, cancellationToken);

    /// <summary>Buckets the stacks of events of one input.</summary>
    /// <param name="events">The events (already filtered).</param>
    /// <param name="session">The session that resolves their frames (its module map places raw addresses).</param>
    /// <param name="cancellationToken">Checked every 4,096 events and during symbolization.</param>
    /// <returns>The result.</returns>
    internal StackBucketResult Analyze(
        IEnumerable<XEvent> events,
        ResolverSession session,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(session);
        var run = new Run(this, new AnalysisContext());
        run.BeginEvents(session);
        return run.Analyze(events, cancellationToken);
    }

    /// <summary>The summary name of an input: its display path, kind and module map.</summary>
    internal static StackInputInfo Describe(CaptureInput input, AnalysisContext context) =>
        Describe(input, input.ModuleMap, context.DisplayPath(input.Name), context);

    private static StackInputInfo Describe(
        CaptureInput input,
        ModuleMapBinding map,
        string name,
        AnalysisContext context
    )
    {
        string? shown =
            map.Path is string p && map.Map is not null
                ? (map.Source == ModuleMapSource.Explicit ? p : context.DisplayPath(p))
                : null;
        return new(name, input.KindName, shown, map.Map is null ? ModuleMapSource.None : map.Source);
    }

    /// <summary>
    /// The summary name of the files of an input that share a module map other than the others': the first such file
    /// (and how many more), its kind and that module map.
    /// </summary>
    private static StackInputInfo DescribePart(CaptureInput input, ModuleMapBinding map, AnalysisContext context)
    {
        string[] files = [.. input.Files.Where((_, i) => ReferenceEquals(input.FileModuleMaps[i], map))];
        string more =
            files.Length > 1
                ? string.Create(
                    System.Globalization.CultureInfo.InvariantCulture,
                    $" (+{files.Length - 1} more file(s))"
                )
                : string.Empty;
        string name = context.DisplayPath(files[0]) + more;
        return Describe(input, map, name, context);
    }

    /// <summary>
    /// One file of a multi-file input: its path as read, its name in the summary, and the session and part that count
    /// it.
    /// </summary>
    private sealed record FilePart(string Path, string Name, ResolverSession Session, StackInputInfo Part);

    private sealed class Run(StackBucketAnalysis owner, AnalysisContext context)
        : AnalysisRun<StackBucketResult>(context)
    {
        private readonly StackBucketBuilder _builder = new(owner.Options) { Filter = context.Filter };
        private CallstackResolver? _owned;

        // The files of the current input when it has several (each event is counted under its file, and a file with a
        // module list of its own is resolved through it); null otherwise.
        private FilePart[]? _files;
        private string? _lastFile;
        private FilePart? _current;

        public override bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public override void BeginInput(CaptureInput input)
        {
            CallstackResolver resolver = Context.Resolver ?? (_owned ??= new CallstackResolver());
            _files = null;
            _lastFile = null;
            if (input.Files.Count < 2 && !input.HasFileModuleMaps)
            {
                _builder.BeginInput(resolver.CreateSession(input.ModuleMap.Map), Describe(input, Context));
                return;
            }

            // One session (and one part of the summary) per distinct module map: files that share a list share its raw
            // stacks.
            var sessions = new Dictionary<ModuleMapBinding, (ResolverSession Session, StackInputInfo Part)>(
                ReferenceEqualityComparer.Instance
            );
            int distinct = input.FileModuleMaps.Distinct(ReferenceEqualityComparer.Instance).Count();
            _files = new FilePart[input.Files.Count];
            for (int i = 0; i < input.Files.Count; i++)
            {
                ModuleMapBinding map = input.FileModuleMaps[i];
                if (!sessions.TryGetValue(map, out var s))
                {
                    StackInputInfo part =
                        distinct == 1
                            ? Describe(input, map, Context.DisplayPath(input.Name), Context)
                            : DescribePart(input, map, Context);
                    s = (resolver.CreateSession(map.Map), part);
                    sessions.Add(map, s);
                }

                _files[i] = new FilePart(input.Files[i], Context.DisplayPath(input.Files[i]), s.Session, s.Part);
            }

            _builder.BeginInput(_files[0].Session, _files[0].Part);
            Switch(_files[0]);
        }

        public override void Add(XEvent e)
        {
            if (_files is not null && !ReferenceEquals(e.Source.FilePath, _lastFile))
            {
                Route(e.Source.FilePath);
            }

            _builder.AddEvent(e);
        }

        /// <summary>Starts the one input of events given as a stream, resolved through
        /// <paramref name="session"/>.</summary>
        public void BeginEvents(ResolverSession session) => _builder.BeginInput(session, new StackInputInfo("events"));

        /// <summary>
        /// Counts the events that follow under <paramref name="file"/> (by reference first: the reader hands out the
        /// set's own strings).
        /// </summary>
        private void Route(string? file)
        {
            _lastFile = file;
            FilePart[] files = _files!;
            FilePart? part =
                Array.Find(files, f => ReferenceEquals(f.Path, file))
                ?? Array.Find(files, f => string.Equals(f.Path, file, StringComparison.Ordinal));
            if (part is not null && !ReferenceEquals(part, _current))
            {
                Switch(part);
            }
        }

        private void Switch(FilePart part)
        {
            _current = part;
            _builder.BeginFile(part.Name, part.Session, part.Part);
        }

        public override void AddHistogramSlot(HistogramTarget target, HistogramSlot slot) =>
            _builder.AddSlot(target, slot);

        protected override StackBucketResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            try
            {
                StackBucketResult result = _builder.Build(cancellationToken);
                foreach (StackInputSummary input in result.Inputs)
                {
                    if (input.Resolution.ModuleListFit is { Misfits: true } fit)
                    {
                        Context.Diagnostics.Warn(fit.Notice(input.Name, input.ModuleMapPath));
                    }
                }

                return result;
            }
            finally
            {
                _owned?.Dispose();
            }
        }

        /// <summary>The result's own documents show its other warnings: only those that left events out go to the
        /// run.</summary>
        protected override bool ReportsToRun(AnalysisWarning warning) => false;
    }
}

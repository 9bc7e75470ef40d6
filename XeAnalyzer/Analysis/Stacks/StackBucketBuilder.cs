using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>Describes one input given to a <see cref="StackBucketBuilder"/>, for its summary.</summary>
/// <param name="Name">The input's name (a file path).</param>
/// <param name="Kind">What it is (<c>xel</c>, <c>target-xml</c>, <c>events</c>, <c>stacks</c>).</param>
/// <param name="ModuleMapPath">The module map of its session, if any.</param>
/// <param name="ModuleMapSource">Where that module map came from.</param>
internal sealed record StackInputInfo(string Name, string Kind = "events", string? ModuleMapPath = null, ModuleMapSource ModuleMapSource = ModuleMapSource.None);

/// <summary>
/// Accumulates the stacks of one or more inputs and buckets them by stack <b>after symbolization</b> (<see cref="Build"/>), so stacks
/// whose raw addresses differ (another process start moved the modules; one capture symbolized in-engine, another offline) but that
/// read the same merge into one bucket.
/// </summary>
/// <remarks>
/// <para><b>Parts.</b> The stack column of each event comes from <see cref="StackColumns"/> (the one rule); events are counted per
/// distinct raw stack in a raw-stack table per input (addresses, or stack text, plus the event name: a few hundred bytes per distinct
/// stack, nothing per event); <see cref="Build"/> symbolizes each input's table once (each distinct address once, each distinct text
/// stack once; one <see cref="ResolutionSummary"/> per input) and merges raw stacks whose rendered frame lists are equal (ordinal).
/// Memory is bounded by the number of distinct raw stacks (<see cref="StackBucketOptions.MaxDistinctStacks"/>); events of further
/// stacks are counted, reported, and make the result partial.</para>
/// <para><b>Inputs.</b> Each <see cref="BeginInput"/> starts an input with its own <see cref="ResolverSession"/> (its module map): raw
/// addresses of two inputs are never compared with each other, only their symbolized frames.</para>
/// <para>Not thread-safe; <see cref="Build"/> may be called once.</para>
/// </remarks>
internal sealed partial class StackBucketBuilder
{
    private const int MaxEventNames = 10_000;

    private readonly List<InputState> _inputs = [];
    private readonly NameTable _eventNames = new(MaxEventNames, "(other events)");
    private readonly Dictionary<string, long> _eventsSeen = new(StringComparer.Ordinal);
    private readonly Dictionary<string, long> _eventsWithoutStack = new(StringComparer.Ordinal);
    private readonly Dictionary<string, long> _eventsWithEmptyStack = new(StringComparer.Ordinal);
    private string? _emptyStackColumn;
    private readonly List<AnalysisWarning> _warnings = [];
    private readonly Dictionary<(XeEventType Type, XeActionSet Set), EventLayout> _layouts = [];
    private readonly Dictionary<string, string> _strings = new(StringComparer.Ordinal);
    private readonly StackLimitCounter _limit;
    private readonly ValuesOutOfRange _outOfRange = new();
    private readonly ValuesOutOfRange _notSummed = new();

    // Every count, duration and signal duration bucketed (or counted as untracked) is part of its total over the build, so no bucket,
    // input or merged sum can pass the range: an event or slot whose count would carry it past is left out and counted; a duration that
    // would is not summed (the event keeps its stack, counted without that duration) and counted.
    private WeightTotal _counts;
    private WeightTotal _durations;
    private WeightTotal _signals;
    private ulong[] _key;
    private InputState? _current;
    private FileTally? _file;
    private int _inputNumber;
    private readonly List<InputState> _inputParts = [];
    private long _untracked;
    private long _eventsPassed;
    private long _truncatedStacks;
    private long _valueHistogramSlots;
    private long _valueHistograms;
    private string? _unsupportedStack;
    private IReadOnlyList<string>? _availableColumns;
    private RecentEventLayouts<EventLayout> _recent;
    private bool _built;
    private bool _warnedSlotFilter;

    /// <summary>Creates a builder.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="StackBucketOptions.Default"/>.</param>
    public StackBucketBuilder(StackBucketOptions? options = null)
    {
        Options = options ?? StackBucketOptions.Default;
        _key = new ulong[Math.Min(Options.MaxFramesPerStack, 256) + 1];
        _limit = new StackLimitCounter(Options.MaxDistinctStacks);
    }

    /// <summary>The options.</summary>
    public StackBucketOptions Options { get; }

    /// <summary>The filter the events passed, for the warning that it does not apply to histogram slots; <see langword="null"/> for none.</summary>
    public EventFilter? Filter { get; init; }

    /// <summary>Starts an input: the events and slots added next are this input's, resolved through <paramref name="session"/>.</summary>
    /// <param name="session">The session that resolves this input's frames (its module map places raw addresses).</param>
    /// <param name="input">How the input is named in the summary.</param>
    /// <exception cref="InvalidOperationException"><see cref="Build"/> was already called.</exception>
    public void BeginInput(ResolverSession session, StackInputInfo input)
    {
        ArgumentNullException.ThrowIfNull(session);
        ArgumentNullException.ThrowIfNull(input);
        if (_built)
        {
            throw new InvalidOperationException("The builder has already been built.");
        }

        _current = new InputState(session, input) { InputNumber = ++_inputNumber };
        _inputs.Add(_current);
        _inputParts.Clear();
        _inputParts.Add(_current);
        _file = null;
    }

    /// <summary>
    /// Counts the events added next under one file of the current input (<see cref="StackInputSummary.Files"/>), in the
    /// part of the input whose frames <paramref name="session"/> resolves: the part started by <see cref="BeginInput"/>
    /// when it has that session, else one made for it (described by <paramref name="part"/>). Files that share a module
    /// map share a part: their raw stacks are counted, and each symbolized, once.
    /// </summary>
    /// <param name="file">The file's name in the summary.</param>
    /// <param name="session">The session that resolves the file's frames (its module map).</param>
    /// <param name="part">How a part made for the session is named in the summary.</param>
    /// <exception cref="InvalidOperationException">No input was started.</exception>
    public void BeginFile(string file, ResolverSession session, StackInputInfo part)
    {
        ArgumentNullException.ThrowIfNull(file);
        ArgumentNullException.ThrowIfNull(session);
        ArgumentNullException.ThrowIfNull(part);
        _ = _current ?? throw new InvalidOperationException("Call BeginInput first.");
        InputState? state = _inputParts.Find(p => ReferenceEquals(p.Session, session));
        if (state is null)
        {
            state = new InputState(session, part) { InputNumber = _inputNumber };
            _inputs.Add(state);
            _inputParts.Add(state);
        }

        _current = state;
        _file = new FileTally(file);
        state.Files.Add(_file);
    }

    /// <summary>
    /// Adds the events of one input (<see cref="BeginInput"/>, then <see cref="AddEvent"/> for each). Filtering is the caller's: every event
    /// given counts.
    /// </summary>
    /// <param name="events">The events.</param>
    /// <param name="session">The session that resolves this input's frames.</param>
    /// <param name="input">How the input is named in the summary; <see langword="null"/> for <c>events</c>.</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <exception cref="InvalidOperationException"><see cref="Build"/> was already called.</exception>
    public void AddEvents(IEnumerable<XEvent> events, ResolverSession session, StackInputInfo? input = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(events);
        BeginInput(session, input ?? new StackInputInfo("events"));

        // The loop stays inline (not AnalysisSupport.Feed with a closure): through the delegate, `B stacks` fell from about
        // 3.6 M to 1.4 M events/s on the 1 GB benchmark capture.
        long n = 0;
        foreach (XEvent e in events)
        {
            if ((++n & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            AddEvent(e);
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>
    /// Adds one event of the current input: its stack (the column <see cref="StackColumns.Find"/> picks, or
    /// <see cref="StackBucketOptions.StackSource"/>) is counted under the event's name; an event without one is counted in
    /// <see cref="StackBucketResult.EventsWithoutStack"/>.
    /// </summary>
    /// <param name="e">The event.</param>
    /// <exception cref="InvalidOperationException">No input was started.</exception>
    public void AddEvent(XEvent e)
    {
        ArgumentNullException.ThrowIfNull(e);
        InputState input = _current ?? throw new InvalidOperationException("Call BeginInput first.");
        EventLayout layout = Layout(e);
        _eventsPassed++;
        layout.Seen++;
        if (layout.Stack is not StackColumn column)
        {
            input.EventsWithoutStack++;
            if (_file is not null)
            {
                _file.EventsWithoutStack++;
            }

            layout.WithoutStack++;
            return;
        }

        XeValue v = column.GetValue(e);
        if (!column.HasFrames(v))
        {
            // An empty stack value (system_health's call_stack is often empty) is not a bucket of no frames.
            input.EventsWithoutStack++;
            if (_file is not null)
            {
                _file.EventsWithoutStack++;
            }

            layout.EmptyStack++;
            return;
        }

        if (!_counts.Fits(1))
        {
            _outOfRange.Add(ValuesOutOfRange.Describe(e, "count", 1));
            return;
        }

        _counts.Add(1);
        long duration = layout.Duration >= 0 ? Summed(e, layout.Duration, "duration", ref _durations) : -1;
        long signal = layout.Signal >= 0 ? Summed(e, layout.Signal, "signal_duration", ref _signals) : -1;
        long ticks = e.Timestamp == DateTime.MinValue ? long.MinValue : e.Timestamp.Ticks;
        input.Events++;
        if (_file is not null)
        {
            _file.Events++;
        }

        if (column.Kind == StackColumnKind.Addresses)
        {
            int n = v.CallstackFrameCount;
            bool cut = n > Options.MaxFramesPerStack;
            if (cut)
            {
                n = Options.MaxFramesPerStack;
            }

            if (_key.Length < n + 1)
            {
                _key = new ulong[Math.Max(n + 1, _key.Length * 2)];
            }

            Span<ulong> key = _key.AsSpan(0, n + 1);
            key[0] = unchecked((ulong)(long)layout.EventId);
            v.CopyCallstackTo(key[1..]);
            int before = _limit.Taken;
            RawStack? raw = input.Table.FindOrAdd(key, _limit);
            if (raw is null)
            {
                _untracked++;
                return;
            }

            if (cut && _limit.Taken > before)
            {
                _truncatedStacks++;
            }

            raw.Add(1, ticks, duration, signal);
            return;
        }

        AddText(input, layout.EventId, v.ToString(), 1, ticks, duration, signal);
    }

    /// <summary>
    /// Adds one histogram slot of the current input: a callstack slot counts as its slot count, bucketed by stack alone (slots carry no
    /// event name); a slot of a histogram on an event field or action is not a stack, and is counted so the result can point to
    /// <c>xeanalyze histogram</c>.
    /// </summary>
    /// <param name="target">The histogram.</param>
    /// <param name="slot">The slot.</param>
    /// <exception cref="InvalidOperationException">No input was started.</exception>
    public void AddSlot(HistogramTarget target, HistogramSlot slot)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(slot);
        InputState input = _current ?? throw new InvalidOperationException("Call BeginInput first.");
        if (target.SourceKind != HistogramSourceKind.Callstack)
        {
            if (target.SourceKind == HistogramSourceKind.Value)
            {
                _valueHistogramSlots++;
                if (input.ValueHistograms.Add(target.TargetIndex))
                {
                    _valueHistograms++;
                }
            }

            return;
        }

        if (Filter is { IsEmpty: false } f && !_warnedSlotFilter)
        {
            _warnedSlotFilter = true;
            _warnings.Add(new AnalysisWarning(AnalysisWarningKind.Note, input.Info.Name + ": the filter (" + f + ") does not apply to histogram slots, which carry only a count"));
        }

        if (!_counts.Fits(slot.Count))
        {
            _outOfRange.Add(input.Info.Name + ": line " + slot.LineNumber.ToString(CultureInfo.InvariantCulture) + ": histogram slot count "
                + slot.Count.ToString("N0", CultureInfo.InvariantCulture));
            return;
        }

        _counts.Add(slot.Count);
        long count = (long)slot.Count;
        input.Slots++;
        input.SlotCount += count;
        if (target.SlotsReachedBuckets)
        {
            input.MayHaveMergedValues = true;
        }

        string text = slot.Value?.TextWithElements() ?? string.Empty;
        if (string.IsNullOrWhiteSpace(text))
        {
            return;
        }

        AddText(input, -1, text, count, long.MinValue, -1, -1, slot.Value!.LineNumber);
    }

    /// <summary>Adds a stack of the current input that is not an event (plain text): counted <paramref name="count"/> times, by stack alone.</summary>
    /// <param name="frames">The stack's frames, leaf first, as text (one per line).</param>
    /// <param name="count">How many times it was seen.</param>
    /// <exception cref="InvalidOperationException">No input was started.</exception>
    public void AddStack(string frames, long count = 1)
    {
        ArgumentNullException.ThrowIfNull(frames);
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        InputState input = _current ?? throw new InvalidOperationException("Call BeginInput first.");
        _eventsPassed++;
        if (!_counts.Fits((ulong)count))
        {
            _outOfRange.Add(input.Info.Name + ": a stack counted " + count.ToString("N0", CultureInfo.InvariantCulture) + " times");
            return;
        }

        _counts.Add((ulong)count);
        input.Events++;
        AddText(input, -1, frames, count, long.MinValue, -1, -1);
    }

    /// <summary>
    /// Symbolizes every distinct address and text stack once per input, merges raw stacks whose frames read the same, and returns the
    /// buckets (all of them; see <see cref="StackBucketResult.Filter"/>), or the missing data when nothing could be bucketed.
    /// </summary>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The result.</returns>
    /// <exception cref="InvalidOperationException">Called twice.</exception>
    public StackBucketResult Build(CancellationToken cancellationToken = default)
    {
        if (_built)
        {
            throw new InvalidOperationException("Build can be called only once per builder.");
        }

        _built = true;
        CollectBetweenPhases();
        FoldLayoutCounts();
        var merger = new StackMerger(Options.GroupByEvent);
        var summaries = new List<StackInputSummary>();
        var tally = new StackSymbolizationTally();
        var overall = new ResolutionSummaryBuilder(null, _inputs.Any(i => i.Session.ModuleMap is not null));
        int rawTotal = 0;
        foreach (InputState input in _inputs)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var summary = new ResolutionSummaryBuilder(input.Info.Name, input.Session.ModuleMap is not null);
            int distinctStacks = input.Table.Order.Count;
            if (WithoutOwnModuleList(input) is string lacking)
            {
                summary.AddWarning(lacking);
            }

            var symbolizer = new StackSymbolizer(input.Session, Options.MaxFramesPerStack, Intern, Options.FramePool);
            foreach (SymbolizedStack s in symbolizer.Symbolize(input.Table, summary, tally, cancellationToken, input.Info.Name))
            {
                overall.Add(s.Resolved);
                merger.Add(s.Raw, s.Frames);
                if ((++rawTotal & (CollectEvery - 1)) == 0)
                {
                    CollectYoung(_limit.Taken);
                }
            }

            _truncatedStacks += symbolizer.TruncatedStacks;
            CollectBetweenPhases();
            foreach (string w in input.Warnings)
            {
                summary.AddWarning(w);
            }

            ResolutionSummary built = summary.Build(input.Session.Resolver);
            summaries.Add(new StackInputSummary(input.Info.Name, input.Info.Kind, input.Info.ModuleMapPath, input.Session.ModuleMap is null ? ModuleMapSource.None : input.Info.ModuleMapSource,
                input.Events, input.EventsWithoutStack, input.Slots, input.SlotCount, distinctStacks, built,
                input.Warnings.AsReadOnly())
            {
                Files = [.. input.Files.Select(f => new StackFileCount(f.Name, f.Events, f.EventsWithoutStack))],
                ModuleMap = input.Session.ModuleMap,
            });
        }

        var warnings = new List<AnalysisWarning>(_warnings);
        foreach (InputState input in _inputs)
        {
            warnings.AddRange(input.Warnings.Select(w => new AnalysisWarning(AnalysisWarningKind.Note, w)));
        }

        if (_eventsWithoutStack.Count > 0 && merger.Count > 0)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.EventsNotUsed, "events without a callstack were not bucketed: " + Names(_eventsWithoutStack)));
        }

        if (_eventsWithEmptyStack.Count > 0 && merger.Count > 0)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.EventsNotUsed, "events whose stack (" + _emptyStackColumn + ") is empty were not bucketed: " + Names(_eventsWithEmptyStack)));
        }

        if (_untracked > 0)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.LimitReached, string.Create(CultureInfo.InvariantCulture,
                $"more than {Options.MaxDistinctStacks:N0} distinct raw stacks (StackBucketOptions.MaxDistinctStacks): {_untracked:N0} event(s) of further stacks were counted but not bucketed"))
            {
                Limit = "StackBucketOptions.MaxDistinctStacks",
                LimitValue = Options.MaxDistinctStacks,
                EventsLeftOut = _untracked,
            });
        }

        if (_truncatedStacks > 0)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.LimitReached, string.Create(CultureInfo.InvariantCulture,
                $"{_truncatedStacks:N0} distinct stack(s) had more than {Options.MaxFramesPerStack:N0} frames and were cut (outermost frames dropped)"))
            {
                Limit = "StackBucketOptions.MaxFramesPerStack",
                LimitValue = Options.MaxFramesPerStack,
            });
        }

        if (_outOfRange.Warning("event(s) or histogram slot(s)") is AnalysisWarning outOfRange)
        {
            warnings.Add(outOfRange);
        }

        if (_notSummed.Warning("duration or signal_duration value(s) of bucketed events", eventsLeftOut: false) is AnalysisWarning notSummed)
        {
            warnings.Add(notSummed);
        }

        if (tally.OutOfRange)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.ValueOutOfRange, string.Create(CultureInfo.InvariantCulture,
                $"the frames counted per event (the histogram slot counts times their frames) pass {long.MaxValue:N0}; the symbolization's per-event figures show that many")));
        }

        if (_valueHistogramSlots > 0 && merger.Count > 0)
        {
            warnings.Add(new AnalysisWarning(AnalysisWarningKind.EventsNotUsed, string.Create(CultureInfo.InvariantCulture,
                $"{_valueHistograms:N0} histogram(s) on an event field or action ({_valueHistogramSlots:N0} slots) are not stacks and were not bucketed: see xeanalyze histogram")));
        }

        long slots = _inputs.Sum(i => i.Slots);
        bool mayHaveMerged = _inputs.Any(i => i.MayHaveMergedValues);
        MissingData? missing = merger.Count == 0 ? Missing(slots) : null;
        IReadOnlyList<StackBucket> buckets = merger.Buckets(_eventNames, out long total);
        ResolutionSummary overallSummary = overall.Build();
        FrameStyle resultStyle = _inputs.Count > 0 ? _inputs[0].Session.Resolver.Options.Style : FrameStyle.Engine;
        bool offsets = _inputs.Count == 0 || _inputs[0].Session.Resolver.Options.IncludeOffsets;
        return new StackBucketResult
        {
            MissingData = missing,
            Buckets = buckets,
            EventNames = StackBucketResult.NamesOf(buckets),
            TotalBuckets = buckets.Count,
            TotalCount = total,
            OmittedCount = 0,
            EventsRead = _eventsPassed,
            EventsWithStack = _inputs.Sum(i => i.Events),
            EventsWithoutStack = _eventsWithoutStack.Values.Sum() + _eventsWithEmptyStack.Values.Sum(),
            HistogramSlots = slots,
            UntrackedEvents = _untracked,
            DistinctRawStacks = rawTotal,
            GroupedByEvent = Options.GroupByEvent,
            MayHaveMergedHistogramValues = mayHaveMerged,
            Style = resultStyle,
            IncludeOffsets = offsets,
            Inputs = summaries.AsReadOnly(),
            Warnings = warnings.AsReadOnly(),
            Symbolization = tally.Build(overallSummary),
            ValueHistogramSlots = _valueHistogramSlots,
        };
    }

    /// <summary>
    /// For the files of a part of an input with no module list, while other files of the input have one (a rollover set
    /// with a list per file for some files): which files lack one, when their stacks hold raw addresses; else <see
    /// langword="null"/>.
    /// </summary>
    private string? WithoutOwnModuleList(InputState part)
    {
        if (part.Session.ModuleMap is not null || part.Files.Count == 0
            || !_inputs.Any(p => p.InputNumber == part.InputNumber && p.Session.ModuleMap is not null)
            || !part.Table.Order.Any(r => r.Addresses is not null))
        {
            return null;
        }

        const int shown = 8;
        return "no module list for " + string.Join(", ", part.Files.Take(shown).Select(f => f.Name))
            + (part.Files.Count > shown
                ? string.Create(CultureInfo.InvariantCulture, $" and {part.Files.Count - shown} more file(s)")
                : string.Empty)
            + ", so their raw addresses stay unresolved: save the sys.dm_os_loaded_modules output of the process "
            + "lifetime that wrote each file beside it as <file name>"
            + ModuleListSidecar.Suffix;
    }

    /// <summary>
    /// Between phases of a build over very many distinct stacks, returns the garbage of the phase before (the read's XML and event
    /// objects, the parsed and resolved stacks) before the next phase allocates: without it the process holds both at the peak.
    /// </summary>
    private void CollectBetweenPhases()
    {
        if (_limit.Taken >= LargeTable)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        }
    }

    /// <summary>
    /// The distinct-stack count above which <see cref="CollectBetweenPhases"/> and <see cref="CollectYoung"/> run.
    /// </summary>
    internal const int LargeTable = 100_000;

    /// <summary>Stacks symbolized (or buckets listed) between two <see cref="CollectYoung"/> calls.</summary>
    internal const int CollectEvery = 8192;

    /// <summary>
    /// In a phase over very many distinct stacks, collects the youngest generation every
    /// <see cref="CollectEvery"/> stacks: each stack leaves short-lived objects (its parse, resolution, rendered rows),
    /// and on a machine with a large cache the runtime lets a few hundred MB of them pile up before it collects, which
    /// was most of the peak.
    /// </summary>
    internal static void CollectYoung(int distinctStacks)
    {
        if (distinctStacks >= LargeTable)
        {
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        }
    }

    /// <summary>A field's value when its total can take it (then added to it), else −1 (the value is counted as not summed).</summary>
    private long Summed(XEvent e, int field, string name, ref WeightTotal total)
    {
        ulong value = e.GetField(field).AsUInt64();
        if (!total.Fits(value))
        {
            _notSummed.Add(ValuesOutOfRange.Describe(e, name, value));
            return -1;
        }

        total.Add(value);
        return (long)value;
    }

    private void AddText(
        InputState input, int eventId, string text, long count, long ticks, long duration, long signal, long line = 0)
    {
        RawStack? raw = input.Table.FindOrAdd(eventId, text, _limit, line);
        if (raw is null)
        {
            _untracked += count;
            return;
        }

        raw.Add(count, ticks, duration, signal);
    }

    private MissingData Missing(long slots)
    {
        if (_valueHistogramSlots > 0 && _eventsPassed == 0 && slots == 0)
        {
            return new MissingData(MissingDataKind.TargetData, ["package0.callstack"],
                string.Create(CultureInfo.InvariantCulture, $"The input holds {_valueHistograms:N0} histogram(s) on an event field or action ({_valueHistogramSlots:N0} slots), not on callstacks, so there are no stacks to bucket. Show it with: xeanalyze histogram <input>"),
                "-- to count stacks instead, give a histogram target the callstack as its source:\n" + HistogramTarget("sqlserver.your_event"));
        }

        if (_eventsPassed == 0)
        {
            string what = slots > 0 ? "The histogram slots hold no stack." : "No events were found (or none passed the filter), and no histogram slots.";
            return new MissingData(MissingDataKind.Events, [Options.StackSource ?? "package0.callstack"], what + " Nothing to bucket.",
                MissingData.AlterSession("sqlserver.your_event", ["package0.callstack"], null, dropFirst: false) + "\n" + HistogramHint("sqlserver.your_event"),
                eventsSeen: EventList(_eventsSeen));
        }

        string firstEvent = _eventsWithoutStack.Count > 0 ? _eventsWithoutStack.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).First().Key : "sqlserver.your_event";
        string sessionChange = MissingData.AlterSession(firstEvent, ["package0.callstack"], null, dropFirst: true) + "\n" + HistogramHint(firstEvent);
        string read = string.Create(CultureInfo.InvariantCulture, $"{_eventsPassed:N0} event(s) were read ({Names(_eventsSeen)})");
        if (Options.StackSource is string source)
        {
            string why = _unsupportedStack is not null
                ? read + ", but " + _unsupportedStack + "."
                : read + ", but none has a field or action named " + source + ".";
            return new MissingData(MissingDataKind.Field, [source], why, sessionChange, _availableColumns, EventList(_eventsSeen));
        }

        string message = _eventsWithEmptyStack.Count > 0 && _eventsWithoutStack.Count == 0
            ? read + ", but every one's stack (" + _emptyStackColumn + ") is empty."
            : read + ", but none carries a callstack: no package0.callstack or callstack_rva action and no callstack field (use --stack NAME to name another column holding frames).";
        return new MissingData(MissingDataKind.Action, ["package0.callstack"], message, sessionChange, _availableColumns, EventList(_eventsSeen));
    }

    private static string HistogramHint(string eventName) =>
        "-- or count stacks in the server, cheaply and without an event file, with a histogram target on the callstack:\n" + HistogramTarget(eventName);

    private static string HistogramTarget(string eventName) =>
        "ALTER EVENT SESSION [your_session] ON SERVER ADD TARGET package0.histogram\n" +
        "    (SET filtering_event_name = N'" + eventName + "', source_type = 1, source = N'package0.callstack', slots = 1024);";

    private static IReadOnlyList<EventNameCount> EventList(Dictionary<string, long> d) => EventNameCount.Sort(d);

    private static string Names(Dictionary<string, long> d) =>
        string.Join(", ", EventList(d).Take(20).Select(e => e.Name + " " + e.Count.ToString("N0", CultureInfo.InvariantCulture))) + (d.Count > 20 ? ", …" : string.Empty);

    private string Intern(string s)
    {
        if (_strings.TryGetValue(s, out string? known))
        {
            return known;
        }

        // Bounded: interning saves memory when frame texts repeat across stacks; with mostly distinct frames it would only cost.
        if (_strings.Count < 65_536)
        {
            _strings.Add(s, s);
        }

        return s;
    }

    private sealed class InputState(ResolverSession session, StackInputInfo info)
    {
        public ResolverSession Session { get; } = session;

        public StackInputInfo Info { get; } = info;

        public RawStackTable Table { get; } = new();

        public List<string> Warnings { get; } = [];

        public HashSet<int> ValueHistograms { get; } = [];

        /// <summary>
        /// The files of a multi-file input counted in this part (<see cref="BeginFile"/>), in the order read.
        /// </summary>
        public List<FileTally> Files { get; } = [];

        /// <summary>Which input the part belongs to (parts of one input share it).</summary>
        public int InputNumber { get; init; }

        public long Events { get; set; }

        public long EventsWithoutStack { get; set; }

        public long Slots { get; set; }

        public long SlotCount { get; set; }

        public bool MayHaveMergedValues { get; set; }
    }

    private sealed class FileTally(string name)
    {
        public string Name { get; } = name;

        public long Events { get; set; }

        public long EventsWithoutStack { get; set; }
    }
}

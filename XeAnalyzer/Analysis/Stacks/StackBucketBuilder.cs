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
internal sealed record StackInputInfo(
    string Name,
    string Kind = "events",
    string? ModuleMapPath = null,
    ModuleMapSource ModuleMapSource = ModuleMapSource.None
);

/// <summary>
/// Accumulates the stacks of one or more inputs and buckets them by stack <b>after symbolization</b>
/// (<see cref="Build"/>), so stacks whose raw addresses differ (another process start moved the modules; one capture
/// symbolized in-engine, another offline) but that read the same merge into one bucket.
/// </summary>
/// <remarks>
/// <para><b>Parts.</b> The stack column of each event comes from <see cref="StackColumns"/> (the one rule); events are
/// counted per distinct raw stack in a raw-stack table per input (addresses, or stack text, plus the event name: a few
/// hundred bytes per distinct stack, nothing per event); <see cref="Build"/> symbolizes each input's table once (each
/// distinct address once, each distinct text stack once; one <see cref="ResolutionSummary"/> per input) and merges raw
/// stacks whose rendered frame lists are equal (ordinal). Memory is bounded by the number of distinct raw stacks
/// (<see cref="StackBucketOptions.MaxDistinctStacks"/>); events of further stacks are counted, reported, and make the
/// result partial.</para>
/// <para><b>Inputs.</b> Each <see cref="BeginInput"/> starts an input with its own <see cref="ResolverSession"/> (its
/// module map): raw addresses of two inputs are never compared with each other, only their symbolized frames.</para>
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
    private readonly Dictionary<(string EventName, string Field), FieldUnit> _fieldUnits = [];
    private readonly Dictionary<string, string> _strings = new(StringComparer.Ordinal);
    private readonly StackLimitCounter _limit;
    private readonly ValuesOutOfRange _outOfRange = new();
    private readonly ValuesOutOfRange _notSummed = new();

    // Every count, duration and signal duration bucketed (or counted as untracked) is part of its total over the build,
    // so no bucket, input or merged sum can pass the range: an event or slot whose count would carry it past is left
    // out and counted; a duration that would is not summed (the event keeps its stack, counted without that duration)
    // and counted.
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

    /// <summary>The filter the events passed, for the warning that it does not apply to histogram slots;
    /// <see langword="null"/> for none.</summary>
    public EventFilter? Filter { get; init; }

    /// <summary>Starts an input: the events and slots added next are this input's, resolved through
    /// <paramref name="session"/>.</summary>
    /// <param name="session">The session that resolves this input's frames (its module map places raw
    /// addresses).</param>
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
    /// Adds the events of one input (<see cref="BeginInput"/>, then <see cref="AddEvent"/> for each). Filtering is the
    /// caller's: every event given counts.
    /// </summary>
    /// <param name="events">The events.</param>
    /// <param name="session">The session that resolves this input's frames.</param>
    /// <param name="input">How the input is named in the summary; <see langword="null"/> for <c>events</c>.</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <exception cref="InvalidOperationException"><see cref="Build"/> was already called.</exception>
    public void AddEvents(
        IEnumerable<XEvent> events,
        ResolverSession session,
        StackInputInfo? input = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(events);
        BeginInput(session, input ?? new StackInputInfo("events"));

        // The loop stays inline (not AnalysisSupport.Feed with a closure): through the delegate, `B stacks` fell from
        // about 3.6 M to 1.4 M events/s on the 1 GB benchmark capture.
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
    /// <see cref="StackBucketOptions.StackSource"/>) is counted under the event's name; an event without one is counted
    /// in
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
            int id = input.Table.FindOrAdd(key, _limit);
            if (id < 0)
            {
                _untracked++;
                return;
            }

            if (cut && _limit.Taken > before)
            {
                _truncatedStacks++;
            }

            input.Table.Add(id, 1, ticks, duration, signal);
            return;
        }

        AddText(input, layout.EventId, v.ToString(), 1, ticks, duration, signal);
    }

    /// <summary>
    /// Adds one histogram slot of the current input: a callstack slot counts as its slot count, bucketed by stack alone
    /// (slots carry no event name); a slot of a histogram on an event field or action is not a stack, and is counted so
    /// the result can point to
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
            _warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.Note,
                    input.Info.Name
                        + ": the filter ("
                        + f
                        + ") does not apply to histogram slots, which carry only a count"
                )
            );
        }

        if (!_counts.Fits(slot.Count))
        {
            _outOfRange.Add(
                input.Info.Name
                    + ": line "
                    + slot.LineNumber.ToString(CultureInfo.InvariantCulture)
                    + ": histogram slot count "
                    + slot.Count.ToString("N0", CultureInfo.InvariantCulture)
            );
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

    /// <summary>Adds a stack of the current input that is not an event (plain text): counted <paramref name="count"/>
    /// times, by stack alone.</summary>
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
            _outOfRange.Add(
                input.Info.Name + ": a stack counted " + count.ToString("N0", CultureInfo.InvariantCulture) + " times"
            );
            return;
        }

        _counts.Add((ulong)count);
        input.Events++;
        AddText(input, -1, frames, count, long.MinValue, -1, -1);
    }

    /// <summary>A field's value when its total can take it (then added to it), else −1 (the value is counted as not
    /// summed).</summary>
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
        InputState input,
        int eventId,
        string text,
        long count,
        long ticks,
        long duration,
        long signal,
        long line = 0
    )
    {
        int id = input.Table.FindOrAdd(eventId, text, _limit, line);
        if (id < 0)
        {
            _untracked += count;
            return;
        }

        input.Table.Add(id, count, ticks, duration, signal);
    }

    private string Intern(string s)
    {
        if (_strings.TryGetValue(s, out string? known))
        {
            return known;
        }

        // Bounded: interning saves memory when frame texts repeat across stacks; with mostly distinct frames it would
        // only cost.
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

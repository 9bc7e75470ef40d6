using System.Collections.Immutable;
using System.Globalization;
using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>Describes one input given to a <see cref="StackBucketBuilder"/>, for its summary.</summary>
/// <param name="Name">The input's name (a file path).</param>
/// <param name="Kind">What it is (<c>xel</c>, <c>target-xml</c>, <c>events</c>, <c>stacks</c>).</param>
/// <param name="ModuleMapPath">The module map of its session, if any.</param>
/// <param name="ModuleMapSource">Where that module map came from.</param>
public sealed record StackInputInfo(string Name, string Kind = "events", string? ModuleMapPath = null, ModuleMapSource ModuleMapSource = ModuleMapSource.None);

/// <summary>
/// Accumulates the stacks of one or more inputs and buckets them by stack <b>after symbolization</b> (<see cref="Build"/>), so stacks
/// whose raw addresses differ (another process start moved the modules; one capture symbolized in-engine, another offline) but that
/// read the same merge into one bucket.
/// </summary>
/// <remarks>
/// <para><b>Scale.</b> Events are first aggregated by raw stack: the array of return addresses (or the stack text) plus the event
/// name, one entry per distinct raw stack (count, duration sums, first/last time), found without allocating per event. Only
/// <see cref="Build"/> symbolizes: per input, each distinct address once through <see cref="ResolverSession.ResolveAddresses"/> and
/// each distinct text stack once, then raw entries whose rendered frame lists are equal (ordinal) are merged. Memory is bounded by
/// the number of distinct raw stacks (<see cref="StackBucketOptions.MaxDistinctStacks"/>), not by the number of events.</para>
/// <para><b>Inputs.</b> Each <c>Add…</c> call is one input with its own <see cref="ResolverSession"/> (its module map): raw addresses
/// of two inputs are never compared with each other, only their symbolized frames.</para>
/// <para>Not thread-safe; <see cref="Build"/> may be called once.</para>
/// </remarks>
public sealed class StackBucketBuilder
{
    private const int MaxEventNames = 10_000;

    private readonly List<InputState> _inputs = [];
    private readonly NameTable _eventNames = new(MaxEventNames, "(other events)");
    private readonly Dictionary<string, long> _eventsSeen = new(StringComparer.Ordinal);
    private readonly Dictionary<string, long> _eventsWithoutStack = new(StringComparer.Ordinal);
    private readonly List<string> _warnings = [];
    private readonly Dictionary<(XeEventType Type, XeActionSet Set), EventLayout> _layouts = [];
    private readonly Dictionary<string, string> _strings = new(StringComparer.Ordinal);
    private ulong[] _key;
    private int _distinctStacks;
    private long _untracked;
    private long _eventsPassed;
    private long _truncatedStacks;
    private string? _unsupportedStack;
    private IReadOnlyList<string>? _availableColumns;
    private XeEventType? _lastType;
    private XeActionSet? _lastSet;
    private EventLayout? _lastLayout;
    private bool _built;

    /// <summary>Creates a builder.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="StackBucketOptions.Default"/>.</param>
    public StackBucketBuilder(StackBucketOptions? options = null)
    {
        Options = options ?? StackBucketOptions.Default;
        _key = new ulong[Math.Min(Options.MaxFramesPerStack, 256) + 1];
    }

    /// <summary>The options.</summary>
    public StackBucketOptions Options { get; }

    /// <summary>
    /// Adds the events of one input. Events without the stack field or action (<see cref="StackBucketOptions.StackSource"/>) are counted
    /// in <see cref="StackBucketResult.EventsWithoutStack"/>. Filtering (<see cref="EventFilter"/>) is the caller's: every event given counts.
    /// </summary>
    /// <param name="events">The events.</param>
    /// <param name="session">The session that resolves this input's frames (its module map places raw addresses).</param>
    /// <param name="input">How the input is named in the summary; <see langword="null"/> for <c>events</c>.</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <exception cref="InvalidOperationException"><see cref="Build"/> was already called.</exception>
    public void AddEvents(IEnumerable<XEvent> events, ResolverSession session, StackInputInfo? input = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(events);
        ArgumentNullException.ThrowIfNull(session);
        InputState state = Begin(session, input ?? new StackInputInfo("events"));
        // The loop stays inline (not AnalysisSupport.Feed with a closure): through the delegate, `B stacks` fell from about
        // 3.6 M to 1.4 M events/s on the 1 GB benchmark capture.
        long n = 0;
        foreach (XEvent e in events)
        {
            if ((++n & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            AddEvent(state, e);
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>
    /// Adds parsed stacks of one input (from <see cref="StackTextReader"/>): a histogram slot counts as its slot count (it carries no
    /// event name); an event's stack counts once, under the event's name (only the event's stack field chosen by
    /// <see cref="StackBucketOptions.StackSource"/> is used; an event without one counts as an event without stack); plain text
    /// counts once.
    /// </summary>
    /// <param name="stacks">The stacks.</param>
    /// <param name="session">The session that resolves this input's frames.</param>
    /// <param name="input">How the input is named in the summary; <see langword="null"/> for <c>stacks</c>.</param>
    /// <param name="filter">
    /// Applied to events (their fields and actions as <see cref="TargetEventConverter"/> reads them); histogram slots and plain text carry
    /// nothing to filter on and are kept (with a warning when the filter is not empty). <see langword="null"/> for none.
    /// </param>
    /// <param name="cancellationToken">Checked every 256 stacks.</param>
    /// <exception cref="InvalidOperationException"><see cref="Build"/> was already called.</exception>
    public void AddStacks(IEnumerable<Callstack> stacks, ResolverSession session, StackInputInfo? input = null, EventFilter? filter = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(stacks);
        ArgumentNullException.ThrowIfNull(session);
        InputState state = Begin(session, input ?? new StackInputInfo("stacks"));
        AddStacksCore(state, stacks, filter, cancellationToken);
    }

    /// <summary>
    /// Adds a whole target-data input read by <paramref name="reader"/> (histogram slots, ring-buffer or event-list events) as one input,
    /// with the reader's warnings (for example a histogram whose slots may hold merged values).
    /// </summary>
    /// <param name="reader">A fresh reader (its stacks are enumerated here).</param>
    /// <param name="session">The session that resolves this input's frames.</param>
    /// <param name="input">How the input is named in the summary.</param>
    /// <param name="filter">See <see cref="AddStacks"/>.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <exception cref="InvalidTextInputException">The input is malformed.</exception>
    public void AddTargetData(StackTextReader reader, ResolverSession session, StackInputInfo? input = null, EventFilter? filter = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(reader);
        ArgumentNullException.ThrowIfNull(session);
        InputState state = Begin(session, input ?? new StackInputInfo("target-xml", "target-xml"));
        AddStacksCore(state, reader.ReadStacks(cancellationToken), filter, cancellationToken);
        foreach (InputWarning w in reader.Warnings)
        {
            state.Warnings.Add(string.Create(CultureInfo.InvariantCulture, $"{state.Info.Name}: line {w.LineNumber}: {w.Message}"));
        }
    }

    /// <summary>Adds a warning to the result.</summary>
    /// <param name="warning">The text.</param>
    public void AddWarning(string warning)
    {
        ArgumentException.ThrowIfNullOrEmpty(warning);
        _warnings.Add(warning);
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
        FoldLayoutCounts();
        var merged = new Dictionary<MergeKey, MergedBucket>();
        var mergedOrder = new List<MergedBucket>();
        var summaries = new List<StackInputSummary>();
        int rawTotal = 0;
        foreach (InputState input in _inputs)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var summary = new ResolutionSummaryBuilder(input.Info.Name, input.Session.ModuleMap is not null);
            FrameStyle style = input.Session.Resolver.Options.Style;

            // Every distinct address of the input, resolved once, in address order (deterministic).
            var distinct = new HashSet<ulong>();
            foreach (RawBucket raw in input.Order)
            {
                if (raw.Addresses is ulong[] a)
                {
                    for (int i = 1; i < a.Length; i++)
                    {
                        distinct.Add(a[i]);
                    }
                }
            }

            ulong[] addresses = [.. distinct.Order()];
            var resolutions = new FrameResolution[addresses.Length];
            input.Session.ResolveAddresses(addresses, resolutions, cancellationToken);
            var byAddress = new Dictionary<ulong, (BucketFrame Frame, ResolvedFrame Resolved)>(addresses.Length);
            for (int i = 0; i < addresses.Length; i++)
            {
                string raw = "0x" + addresses[i].ToString("X16", CultureInfo.InvariantCulture);
                var vaFrame = new VirtualAddressFrame(addresses[i], raw, FrameProvenance.Binary);
                byAddress.Add(addresses[i], (Render(resolutions[i], vaFrame, style), new ResolvedFrame(vaFrame, resolutions[i])));
            }

            var textFrames = new Dictionary<(FrameResolution, string), BucketFrame>();
            foreach (RawBucket raw in input.Order)
            {
                cancellationToken.ThrowIfCancellationRequested();
                BucketFrame[] frames;
                ResolvedCallstack resolved;
                if (raw.Addresses is ulong[] a)
                {
                    frames = new BucketFrame[a.Length - 1];
                    var rf = new ResolvedFrame[a.Length - 1];
                    var sf = new StackFrame[a.Length - 1];
                    for (int i = 1; i < a.Length; i++)
                    {
                        (BucketFrame f, ResolvedFrame r) = byAddress[a[i]];
                        frames[i - 1] = f;
                        rf[i - 1] = r;
                        sf[i - 1] = r.Frame;
                    }

                    resolved = new ResolvedCallstack(BinaryStack(sf), ImmutableCollectionsMarshal.AsImmutableArray(rf), sf.Length == 0 ? StackShape.NoFrames : StackShape.RawAddresses);
                    frames = WithInlineFrames(frames, resolved, style);
                }
                else
                {
                    resolved = input.Session.Resolve(raw.Stack!, cancellationToken);
                    frames = new BucketFrame[resolved.Frames.Length];
                    for (int i = 0; i < frames.Length; i++)
                    {
                        ResolvedFrame r = resolved.Frames[i];
                        var key = (r.Resolution, r.Frame.Raw);
                        if (!textFrames.TryGetValue(key, out BucketFrame? f))
                        {
                            f = Render(r.Resolution, r.Frame, style);
                            if (textFrames.Count < 1_000_000)
                            {
                                textFrames.Add(key, f);
                            }
                        }

                        frames[i] = f;
                    }

                    frames = WithInlineFrames(frames, resolved, style);
                }

                summary.Add(resolved);
                rawTotal++;
                var mk = new MergeKey(Options.GroupByEvent ? raw.EventId : -1, [.. frames.Select(f => f.Text)]);
                if (!merged.TryGetValue(mk, out MergedBucket? m))
                {
                    m = new MergedBucket(mk, frames);
                    merged.Add(mk, m);
                    mergedOrder.Add(m);
                }

                m.Add(raw, frames);
            }

            foreach (string w in input.Warnings)
            {
                summary.AddWarning(w);
            }

            ResolutionSummary built = summary.Build(input.Session.Resolver);
            summaries.Add(new StackInputSummary(input.Info.Name, input.Info.Kind, input.Info.ModuleMapPath, input.Session.ModuleMap is null ? ModuleMapSource.None : input.Info.ModuleMapSource,
                input.Events, input.EventsWithoutStack, input.Slots, input.SlotCount, input.Order.Count, built, input.Warnings.AsReadOnly()));
        }

        var warnings = new List<string>(_warnings);
        foreach (InputState input in _inputs)
        {
            warnings.AddRange(input.Warnings);
        }

        if (_eventsWithoutStack.Count > 0 && merged.Count > 0)
        {
            warnings.Add("events without a callstack were not bucketed: " + Names(_eventsWithoutStack));
        }

        if (_untracked > 0)
        {
            warnings.Add(string.Create(CultureInfo.InvariantCulture,
                $"more than {Options.MaxDistinctStacks:N0} distinct raw stacks: {_untracked:N0} event(s) of further stacks were counted but not bucketed"));
        }

        if (_truncatedStacks > 0)
        {
            warnings.Add(string.Create(CultureInfo.InvariantCulture,
                $"{_truncatedStacks:N0} distinct stack(s) had more than {Options.MaxFramesPerStack:N0} frames and were cut (outermost frames dropped)"));
        }

        long slots = _inputs.Sum(i => i.Slots);
        bool mayHaveMerged = _inputs.Any(i => i.MayHaveMergedValues);
        MissingData? missing = merged.Count == 0 ? Missing(slots) : null;
        long total = 0;
        foreach (MergedBucket m in mergedOrder)
        {
            total = SatAdd(total, m.Count);
        }

        MergedBucket[] sorted = [.. mergedOrder];
        Array.Sort(sorted, CompareBuckets);
        var buckets = new StackBucket[sorted.Length];
        for (int i = 0; i < sorted.Length; i++)
        {
            MergedBucket m = sorted[i];
            string[] names = [.. m.EventIds.Where(id => id >= 0).Select(id => _eventNames[id]).Order(StringComparer.Ordinal)];
            string? eventName = m.Key.EventId >= 0 ? _eventNames[m.Key.EventId] : null;
            StackDurations? durations = m.DurationEvents > 0 ? new StackDurations(m.DurationEvents, m.DurationSum, m.DurationMax, m.SignalSum, m.SignalMax) : null;
            buckets[i] = new StackBucket(i + 1, eventName, Array.AsReadOnly(names), Array.AsReadOnly(m.Frames), m.Count, total == 0 ? 0 : (double)m.Count / total, durations,
                m.First == long.MaxValue ? null : new DateTime(m.First, DateTimeKind.Utc), m.Last == long.MinValue ? null : new DateTime(m.Last, DateTimeKind.Utc), m.RawStacks);
        }

        FrameStyle resultStyle = _inputs.Count > 0 ? _inputs[0].Session.Resolver.Options.Style : FrameStyle.Engine;
        bool offsets = _inputs.Count == 0 || _inputs[0].Session.Resolver.Options.IncludeOffsets;
        return new StackBucketResult(missing, Array.AsReadOnly(buckets), buckets.Length, total, 0, _eventsPassed, _inputs.Sum(i => i.Events), SumValues(_eventsWithoutStack),
            slots, _untracked, rawTotal, Options.GroupByEvent, mayHaveMerged, resultStyle, offsets, summaries.AsReadOnly(), warnings.AsReadOnly());
    }

    /// <summary>A stack of frames decoded from a binary capture: one line per frame, with no input line number (0).</summary>
    private static Callstack BinaryStack(StackFrame[] frames)
    {
        var lines = new StackLine[frames.Length];
        for (int i = 0; i < frames.Length; i++)
        {
            lines[i] = new StackLine(frames[i].Raw, 0, frames, i, 1, null);
        }

        return new Callstack(0, null, ImmutableCollectionsMarshal.AsImmutableArray(lines), ImmutableCollectionsMarshal.AsImmutableArray(frames), false);
    }

    private void FoldLayoutCounts()
    {
        foreach (EventLayout l in _layouts.Values)
        {
            if (l.Seen > 0)
            {
                _eventsSeen[l.EventName] = SatAdd(_eventsSeen.GetValueOrDefault(l.EventName), l.Seen);
            }

            if (l.WithoutStack > 0)
            {
                _eventsWithoutStack[l.EventName] = SatAdd(_eventsWithoutStack.GetValueOrDefault(l.EventName), l.WithoutStack);
            }
        }
    }

    private static long SumValues(Dictionary<string, long> d)
    {
        long s = 0;
        foreach (long v in d.Values)
        {
            s = SatAdd(s, v);
        }

        return s;
    }

    private int CompareBuckets(MergedBucket a, MergedBucket b)
    {
        int c = b.Count.CompareTo(a.Count);
        if (c != 0)
        {
            return c;
        }

        c = CompareFrames(a.Key.Frames, b.Key.Frames);
        if (c != 0)
        {
            return c;
        }

        string? ea = a.Key.EventId >= 0 ? _eventNames[a.Key.EventId] : null;
        string? eb = b.Key.EventId >= 0 ? _eventNames[b.Key.EventId] : null;
        return string.CompareOrdinal(ea, eb);
    }

    /// <summary>Compares frame lists element by element (ordinal), a shorter prefix first.</summary>
    internal static int CompareFrames(IReadOnlyList<string> a, IReadOnlyList<string> b)
    {
        int n = Math.Min(a.Count, b.Count);
        for (int i = 0; i < n; i++)
        {
            int c = string.CompareOrdinal(a[i], b[i]);
            if (c != 0)
            {
                return c;
            }
        }

        return a.Count.CompareTo(b.Count);
    }

    private MissingData Missing(long slots)
    {
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
                ? read + ", but " + source + " is " + _unsupportedStack + ", not a callstack."
                : read + ", but none has a field or action named " + source + ".";
            return new MissingData(MissingDataKind.Field, [source], why, sessionChange, _availableColumns, EventList(_eventsSeen));
        }

        string message = _unsupportedStack is not null
            ? read + ", but their callstack action is " + _unsupportedStack + ", not a callstack."
            : read + ", but none carries a callstack: the package0.callstack action is missing (use --stack NAME for another callstack field or action, such as system_health's call_stack).";
        return new MissingData(MissingDataKind.Action, ["package0.callstack"], message, sessionChange, _availableColumns, EventList(_eventsSeen));
    }

    private static string HistogramHint(string eventName) =>
        "-- or count stacks in the server, cheaply and without an event file, with a histogram target on the callstack:\n" +
        "ALTER EVENT SESSION [your_session] ON SERVER ADD TARGET package0.histogram\n" +
        "    (SET filtering_event_name = N'" + eventName + "', source_type = 1, source = N'package0.callstack', slots = 1024);";

    private static IReadOnlyList<EventNameCount> EventList(Dictionary<string, long> d) =>
        [.. d.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => new EventNameCount(kv.Key, kv.Value))];

    private static string Names(Dictionary<string, long> d) =>
        string.Join(", ", EventList(d).Take(20).Select(e => e.Name + " " + e.Count.ToString("N0", CultureInfo.InvariantCulture))) + (d.Count > 20 ? ", …" : string.Empty);

    private InputState Begin(ResolverSession session, StackInputInfo info)
    {
        if (_built)
        {
            throw new InvalidOperationException("The builder has already been built.");
        }

        var state = new InputState(session, info);
        _inputs.Add(state);
        return state;
    }

    private void AddEvent(InputState input, XEvent e)
    {
        EventLayout layout = Layout(e);
        _eventsPassed++;
        if (layout.Stored)
        {
            layout.Seen++;
        }
        else
        {
            Count(_eventsSeen, layout.EventName);
        }

        if (layout.Kind == StackKind.None)
        {
            input.EventsWithoutStack++;
            if (layout.Stored)
            {
                layout.WithoutStack++;
            }
            else
            {
                Count(_eventsWithoutStack, layout.EventName);
            }

            return;
        }

        XeValue v = layout.Stack >= 0 ? e.GetField(layout.Stack) : e.GetAction(~layout.Stack);
        long duration = -1, signal = -1;
        if (layout.Duration >= 0)
        {
            duration = Clamp(e.GetField(layout.Duration).AsUInt64());
            signal = layout.Signal >= 0 ? Clamp(e.GetField(layout.Signal).AsUInt64()) : 0;
        }

        long ticks = e.Timestamp.Ticks;
        input.Events++;
        if (layout.Kind == StackKind.Addresses)
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
            RawBucket? raw = input.Lookup(key, this, cut);
            raw?.Add(1, ticks, duration, signal);
            if (raw is null)
            {
                _untracked++;
            }

            return;
        }

        string text = v.ToString();
        RawBucket? t = input.LookupText(layout.EventId, text, this, out bool created);
        if (t is null)
        {
            _untracked++;
            return;
        }

        if (created)
        {
            t.Stack = ParseText(input, text);
        }

        t.Add(1, ticks, duration, signal);
    }

    private Callstack ParseText(InputState input, string text)
    {
        input.Parser ??= new FrameParser();
        var frames = new List<StackFrame>();
        foreach (string line in text.Split('\n'))
        {
            if (line.Length == 0 || string.IsNullOrWhiteSpace(line))
            {
                continue;
            }

            frames.AddRange(input.Parser.ParseLine(line.TrimEnd('\r')));
            if (frames.Count > Options.MaxFramesPerStack)
            {
                frames.RemoveRange(Options.MaxFramesPerStack, frames.Count - Options.MaxFramesPerStack);
                _truncatedStacks++;
                break;
            }
        }

        return Callstack.FromFrames(frames);
    }

    private void AddStacksCore(InputState input, IEnumerable<Callstack> stacks, EventFilter? filter, CancellationToken ct)
    {
        filter ??= EventFilter.None;
        bool filtering = !filter.IsEmpty;
        bool warnedSlots = false;
        TargetEventConverter? converter = null;
        var slotsPerTarget = new Dictionary<StackTargetInfo, long>(ReferenceEqualityComparer.Instance);

        // The event being read: StackTextReader hands out one stack per stack-like field of an event (or one without field).
        TargetEvent? lastEvent = null;
        XEvent? current = null;
        EventField? chosen = null;
        bool used = false;
        long n = 0;
        foreach (Callstack stack in stacks)
        {
            if ((++n & 0xFF) == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            StackHeader? h = stack.Header;
            if (h?.Event is TargetEvent te && h.Origin == StackOrigin.Event && !stack.IsContinuation)
            {
                if (!ReferenceEquals(te, lastEvent))
                {
                    FinishEvent(input, current, chosen, used);
                    lastEvent = te;
                    current = null;
                    chosen = null;
                    used = false;
                    if (!filter.MatchesName(te.Package, te.Name))
                    {
                        continue;
                    }

                    converter ??= new TargetEventConverter(input.Info.Name);
                    XEvent e = converter.Convert(te);
                    if (filtering && !filter.Matches(e))
                    {
                        continue;
                    }

                    current = e;
                    chosen = ChosenField(te);
                    _eventsPassed++;
                    Count(_eventsSeen, e.FullName);
                    if (chosen is null)
                    {
                        RememberColumns(te);
                    }
                }

                if (current is not null && chosen is not null && !used && ReferenceEquals(h.Field, chosen))
                {
                    used = true;
                    AddEventStack(input, current, stack);
                }

                continue;
            }

            if (h is null || stack.IsContinuation || h.Origin is StackOrigin.PlainText or StackOrigin.SqlDumperBlock)
            {
                if (stack.Frames.Length == 0)
                {
                    continue;
                }

                // Plain text (or the next piece of a long one): one stack, counted once.
                AddParsed(input, -1, stack, 1, long.MinValue, -1, -1);
                _eventsPassed++;
                input.Events++;
                continue;
            }

            if (h.Origin == StackOrigin.HistogramSlot)
            {
                if (filtering && !warnedSlots)
                {
                    warnedSlots = true;
                    input.Warnings.Add(input.Info.Name + ": the filter (" + filter + ") does not apply to histogram slots, which carry only a count");
                }

                ulong count = h.SlotCount ?? 0;
                long c = count > long.MaxValue ? long.MaxValue : (long)count;
                input.Slots++;
                input.SlotCount = SatAdd(input.SlotCount, c);
                if (h.Target is StackTargetInfo target)
                {
                    long seen = slotsPerTarget.GetValueOrDefault(target) + 1;
                    slotsPerTarget[target] = seen;
                    if (target.Start.Buckets is int b && b > 0 && seen >= b)
                    {
                        input.MayHaveMergedValues = true;
                    }
                }

                AddParsed(input, -1, stack, c, long.MinValue, -1, -1);
            }

            // An empty target holds nothing to count.
        }

        FinishEvent(input, current, chosen, used);
        ct.ThrowIfCancellationRequested();
    }

    /// <summary>Counts an event that passed the filter but gave no stack.</summary>
    private void FinishEvent(InputState input, XEvent? e, EventField? chosen, bool used)
    {
        if (e is null || used)
        {
            return;
        }

        _ = chosen;
        input.EventsWithoutStack++;
        Count(_eventsWithoutStack, e.FullName);
    }

    private void AddEventStack(InputState input, XEvent e, Callstack stack)
    {
        int eventId = EventId(e.FullName);
        long duration = -1, signal = -1;
        int d = LatchAnalysis.NumericField(e.EventType, "duration");
        if (d >= 0)
        {
            duration = Clamp(e.GetField(d).AsUInt64());
            int s = LatchAnalysis.NumericField(e.EventType, "signal_duration");
            signal = s >= 0 ? Clamp(e.GetField(s).AsUInt64()) : 0;
        }

        input.Events++;
        long ticks = e.Timestamp == DateTime.MinValue ? long.MinValue : e.Timestamp.Ticks;
        AddParsed(input, eventId, stack, 1, ticks, duration, signal);
    }

    /// <summary>The stack field of an event that is bucketed: <see cref="StackBucketOptions.StackSource"/>, else <c>callstack</c>, else <c>callstack_rva</c>, else the first stack-like field.</summary>
    private EventField? ChosenField(TargetEvent te)
    {
        if (Options.StackSource is string source)
        {
            int dot = source.IndexOf('.', StringComparison.Ordinal);
            if (dot < 0)
            {
                EventField? f = te.Fields.FirstOrDefault(x => string.Equals(x.Name, source, StringComparison.Ordinal))
                    ?? te.Fields.FirstOrDefault(x => string.Equals(x.Name, source, StringComparison.OrdinalIgnoreCase));
                if (f is not null)
                {
                    return f;
                }
            }

            string pkg = dot < 0 ? string.Empty : source[..dot];
            string nm = dot < 0 ? source : source[(dot + 1)..];
            return te.Actions.FirstOrDefault(x => string.Equals(x.Name, nm, StringComparison.OrdinalIgnoreCase) && (dot < 0 || string.Equals(x.Package, pkg, StringComparison.OrdinalIgnoreCase)));
        }

        return te.Actions.FirstOrDefault(x => string.Equals(x.Name, "callstack", StringComparison.Ordinal))
            ?? te.Actions.FirstOrDefault(x => string.Equals(x.Name, "callstack_rva", StringComparison.Ordinal))
            ?? te.Actions.Concat(te.Fields).FirstOrDefault(StackTextReader.IsStackField);
    }

    private void RememberColumns(TargetEvent te) =>
        _availableColumns ??= [.. te.Fields.Select(f => f.Name), .. te.Actions.Select(a => (a.Package is null ? string.Empty : a.Package + ".") + a.Name)];

    private void AddParsed(InputState input, int eventId, Callstack stack, long count, long ticks, long duration, long signal)
    {
        string key = string.Join('\n', stack.Frames.Select(f => f.Raw));
        RawBucket? raw = input.LookupText(eventId, key, this, out bool created);
        if (raw is null)
        {
            _untracked = SatAdd(_untracked, count);
            return;
        }

        if (created)
        {
            if (stack.Frames.Length > Options.MaxFramesPerStack)
            {
                _truncatedStacks++;
                stack = Callstack.FromFrames(stack.Frames.Take(Options.MaxFramesPerStack));
            }

            raw.Stack = stack;
        }

        raw.Add(count, ticks, duration, signal);
    }

    private EventLayout Layout(XEvent e)
    {
        if (ReferenceEquals(e.EventType, _lastType) && ReferenceEquals(e.ActionSet, _lastSet))
        {
            return _lastLayout!;
        }

        if (!_layouts.TryGetValue((e.EventType, e.ActionSet), out EventLayout? layout))
        {
            layout = CreateLayout(e.EventType, e.ActionSet);
            if (_layouts.Count < 100_000)
            {
                // Stored layouts count their events themselves (folded into the per-name counts by FoldLayoutCounts).
                layout.Stored = true;
                _layouts.Add((e.EventType, e.ActionSet), layout);
            }
        }

        _lastType = e.EventType;
        _lastSet = e.ActionSet;
        _lastLayout = layout;
        return layout;
    }

    private EventLayout CreateLayout(XeEventType type, XeActionSet set)
    {
        var layout = new EventLayout { EventName = type.FullName, EventId = EventId(type.FullName) };
        int column;
        if (Options.StackSource is string source)
        {
            column = EventFilter.FindColumn(type, set, source, source.Contains('.', StringComparison.Ordinal));
        }
        else
        {
            int a = set.IndexOf("callstack");
            if (a < 0)
            {
                a = set.IndexOf("callstack_rva");
            }

            column = a >= 0 ? ~a : int.MinValue;
        }

        if (column != int.MinValue)
        {
            XeColumn c = column >= 0 ? type.Fields[column] : set[~column];
            if (c.BaseType == XeBaseType.Callstack && !c.IsMap)
            {
                layout.Kind = StackKind.Addresses;
            }
            else if (XeBaseTypes.IsText(c.BaseType) && !c.IsMap)
            {
                layout.Kind = StackKind.Text;
            }
            else
            {
                _unsupportedStack ??= c.FullName + " of " + type.FullName + " (type " + c.TypeName + ")";
                column = int.MinValue;
            }
        }

        layout.Stack = column;
        if (column == int.MinValue)
        {
            _availableColumns ??= [.. type.Fields.Select(f => f.Name), .. set.Columns.Select(a => a.FullName)];
        }

        layout.Duration = LatchAnalysis.NumericField(type, "duration");
        layout.Signal = layout.Duration >= 0 ? LatchAnalysis.NumericField(type, "signal_duration") : -1;
        return layout;
    }

    private int EventId(string name) => _eventNames.Intern(name);

    private static void Count(Dictionary<string, long> d, string name)
    {
        if (d.TryGetValue(name, out long c))
        {
            d[name] = c + 1;
        }
        else if (d.Count < 1000)
        {
            d.Add(name, 1);
        }
    }

    private string Intern(string s)
    {
        if (_strings.TryGetValue(s, out string? known))
        {
            return known;
        }

        if (_strings.Count < 4_000_000)
        {
            _strings.Add(s, s);
        }

        return s;
    }

    /// <summary>Each frame preceded by its inline frames (innermost first), when the resolver gives them (<c>--inlines</c>).</summary>
    private BucketFrame[] WithInlineFrames(BucketFrame[] frames, ResolvedCallstack resolved, FrameStyle style)
    {
        int extra = 0;
        foreach (ResolvedFrame r in resolved.Frames)
        {
            extra += r.Resolution.InlineFrames.Count;
        }

        if (extra == 0)
        {
            return frames;
        }

        var expanded = new BucketFrame[frames.Length + extra];
        int k = 0;
        for (int i = 0; i < frames.Length; i++)
        {
            foreach (FrameResolution inline in resolved.Frames[i].Resolution.InlineFrames)
            {
                expanded[k++] = Render(inline, resolved.Frames[i].Frame, style);
            }

            expanded[k++] = frames[i];
        }

        return expanded;
    }

    private BucketFrame Render(FrameResolution r, StackFrame frame, FrameStyle style)
    {
        string text;
        if (r.Text is string t)
        {
            text = t;
        }
        else if (r.ModuleDisplayName is string display && r.Rva is ulong rva)
        {
            text = FrameText.StyledModule(display, style) + "+0x" + rva.ToString("X16", CultureInfo.InvariantCulture);
        }
        else if (frame is VirtualAddressFrame va)
        {
            text = "0x" + va.Address.ToString("X16", CultureInfo.InvariantCulture);
        }
        else
        {
            text = frame.Raw;
        }

        return new BucketFrame(Intern(text), r.Status, r.IsVerified, r.ModuleDisplayName, r.Function, r.ReasonText);
    }

    private static long Clamp(ulong v) => v > long.MaxValue ? long.MaxValue : (long)v;

    internal static long SatAdd(long a, long b)
    {
        long s = unchecked(a + b);
        return ((a ^ s) & (b ^ s)) < 0 ? (a < 0 ? long.MinValue : long.MaxValue) : s;
    }

    private enum StackKind : byte
    {
        None,
        Addresses,
        Text,
    }

    private sealed class EventLayout
    {
        public string EventName = string.Empty;
        public int EventId;
        public StackKind Kind;
        public int Stack = int.MinValue;
        public int Duration = -1;
        public int Signal = -1;
        public bool Stored;
        public long Seen;
        public long WithoutStack;
    }

    /// <summary>One distinct raw stack of one input: the key (event id + addresses, or event id + text) and its tallies.</summary>
    private sealed class RawBucket
    {
        public int EventId;
        public ulong[]? Addresses; // [event id, frame 0 (leaf), frame 1, …]
        public Callstack? Stack;
        public long Count;
        public long DurationEvents;
        public long DurationSum;
        public long DurationMax;
        public long SignalSum;
        public long SignalMax;
        public long First = long.MaxValue;
        public long Last = long.MinValue;

        public void Add(long count, long ticks, long duration, long signal)
        {
            Count = SatAdd(Count, count);
            if (ticks != long.MinValue && ticks > DateTime.MinValue.Ticks)
            {
                First = Math.Min(First, ticks);
                Last = Math.Max(Last, ticks);
            }

            if (duration >= 0)
            {
                DurationEvents = SatAdd(DurationEvents, count);
                DurationSum = SatAdd(DurationSum, duration);
                DurationMax = Math.Max(DurationMax, duration);
                SignalSum = SatAdd(SignalSum, signal);
                SignalMax = Math.Max(SignalMax, signal);
            }
        }
    }

    private sealed class InputState
    {
        private readonly Dictionary<ulong[], RawBucket> _byAddresses = new(AddressKeyComparer.Instance);
        private readonly Dictionary<ulong[], RawBucket>.AlternateLookup<ReadOnlySpan<ulong>> _lookup;
        private readonly Dictionary<(int, string), RawBucket> _byText = [];

        public InputState(ResolverSession session, StackInputInfo info)
        {
            Session = session;
            Info = info;
            _lookup = _byAddresses.GetAlternateLookup<ReadOnlySpan<ulong>>();
        }

        public ResolverSession Session { get; }

        public StackInputInfo Info { get; }

        public List<RawBucket> Order { get; } = [];

        public List<string> Warnings { get; } = [];

        public FrameParser? Parser { get; set; }

        public long Events { get; set; }

        public long EventsWithoutStack { get; set; }

        public long Slots { get; set; }

        public long SlotCount { get; set; }

        public bool MayHaveMergedValues { get; set; }

        public RawBucket? Lookup(ReadOnlySpan<ulong> key, StackBucketBuilder owner, bool cut)
        {
            if (_lookup.TryGetValue(key, out RawBucket? raw))
            {
                return raw;
            }

            if (owner._distinctStacks >= owner.Options.MaxDistinctStacks)
            {
                return null;
            }

            owner._distinctStacks++;
            if (cut)
            {
                owner._truncatedStacks++;
            }

            ulong[] array = key.ToArray();
            raw = new RawBucket { EventId = unchecked((int)(long)array[0]), Addresses = array };
            _byAddresses.Add(array, raw);
            Order.Add(raw);
            return raw;
        }

        public RawBucket? LookupText(int eventId, string text, StackBucketBuilder owner, out bool created)
        {
            created = false;
            if (_byText.TryGetValue((eventId, text), out RawBucket? raw))
            {
                return raw;
            }

            if (owner._distinctStacks >= owner.Options.MaxDistinctStacks)
            {
                return null;
            }

            owner._distinctStacks++;
            created = true;
            raw = new RawBucket { EventId = eventId };
            _byText.Add((eventId, text), raw);
            Order.Add(raw);
            return raw;
        }
    }

    /// <summary>Compares address keys by content, and looks them up by span without allocating.</summary>
    private sealed class AddressKeyComparer : IEqualityComparer<ulong[]>, IAlternateEqualityComparer<ReadOnlySpan<ulong>, ulong[]>
    {
        public static readonly AddressKeyComparer Instance = new();

        public bool Equals(ulong[]? x, ulong[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

        public int GetHashCode(ulong[] obj) => Hash(obj);

        public bool Equals(ReadOnlySpan<ulong> alternate, ulong[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<ulong> alternate) => Hash(alternate);

        public ulong[] Create(ReadOnlySpan<ulong> alternate) => alternate.ToArray();

        private static int Hash(ReadOnlySpan<ulong> s)
        {
            unchecked
            {
                ulong h = 0x9E3779B97F4A7C15UL ^ (ulong)s.Length;
                foreach (ulong v in s)
                {
                    ulong x = v * 0xBF58476D1CE4E5B9UL;
                    x ^= x >> 31;
                    h = (h ^ x) * 0x94D049BB133111EBUL;
                    h ^= h >> 29;
                }

                return (int)(h ^ (h >> 32));
            }
        }
    }

    private readonly struct MergeKey(int eventId, string[] frames) : IEquatable<MergeKey>
    {
        public int EventId { get; } = eventId;

        public string[] Frames { get; } = frames;

        public bool Equals(MergeKey other)
        {
            if (EventId != other.EventId || Frames.Length != other.Frames.Length)
            {
                return false;
            }

            for (int i = 0; i < Frames.Length; i++)
            {
                if (!ReferenceEquals(Frames[i], other.Frames[i]) && !string.Equals(Frames[i], other.Frames[i], StringComparison.Ordinal))
                {
                    return false;
                }
            }

            return true;
        }

        public override bool Equals(object? obj) => obj is MergeKey k && Equals(k);

        public override int GetHashCode()
        {
            var h = new HashCode();
            h.Add(EventId);
            foreach (string f in Frames)
            {
                h.Add(f, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }

    private sealed class MergedBucket(MergeKey key, BucketFrame[] frames)
    {
        private long _bestCount = -1;

        public MergeKey Key { get; } = key;

        public BucketFrame[] Frames { get; private set; } = frames;

        public long Count { get; private set; }

        public long DurationEvents { get; private set; }

        public long DurationSum { get; private set; }

        public long DurationMax { get; private set; }

        public long SignalSum { get; private set; }

        public long SignalMax { get; private set; }

        public long First { get; private set; } = long.MaxValue;

        public long Last { get; private set; } = long.MinValue;

        public int RawStacks { get; private set; }

        public SortedSet<int> EventIds { get; } = [];

        public void Add(RawBucket raw, BucketFrame[] frames)
        {
            RawStacks++;
            if (raw.Count > _bestCount)
            {
                _bestCount = raw.Count;
                Frames = frames;
            }

            Count = SatAdd(Count, raw.Count);
            DurationEvents = SatAdd(DurationEvents, raw.DurationEvents);
            DurationSum = SatAdd(DurationSum, raw.DurationSum);
            DurationMax = Math.Max(DurationMax, raw.DurationMax);
            SignalSum = SatAdd(SignalSum, raw.SignalSum);
            SignalMax = Math.Max(SignalMax, raw.SignalMax);
            First = Math.Min(First, raw.First);
            Last = Math.Max(Last, raw.Last);
            if (raw.EventId >= 0 && EventIds.Count < 64)
            {
                EventIds.Add(raw.EventId);
            }
        }
    }
}

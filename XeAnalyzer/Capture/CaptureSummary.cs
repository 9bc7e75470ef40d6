using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>What the reader skipped or an analysis left out, from a run's <see cref="CaptureDiagnostics"/>.</summary>
/// <param name="SkippedBuffers">Damaged buffers skipped (only with skip-corrupt reading).</param>
/// <param name="IncompleteBuffers">Incomplete final buffers (a capture cut short).</param>
/// <param name="UndecodableEvents">Events whose type could not be decoded.</param>
/// <param name="EventsLeftOut">Events an analysis counted but left out (a limit was reached, a value was out of
/// range).</param>
public sealed record CaptureReadStatistics(
    long SkippedBuffers,
    long IncompleteBuffers,
    long UndecodableEvents,
    long EventsLeftOut = 0
)
{
    /// <summary>Whether anything was skipped or left out.</summary>
    public bool IsPartial => SkippedBuffers > 0 || IncompleteBuffers > 0 || UndecodableEvents > 0 || EventsLeftOut > 0;

    /// <summary>The statistics a run's diagnostics hold now.</summary>
    /// <param name="diagnostics">The diagnostics.</param>
    /// <returns>The statistics.</returns>
    public static CaptureReadStatistics Of(CaptureDiagnostics diagnostics)
    {
        ArgumentNullException.ThrowIfNull(diagnostics);
        return new(
            diagnostics.Reader.SkippedBuffers,
            diagnostics.Reader.IncompleteBuffers,
            diagnostics.Reader.UndecodableEvents,
            diagnostics.EventsLeftOut
        );
    }
}

/// <summary>
/// One event type of a read: its schema (the fields of <see cref="EventType"/>, the actions its events carried, whether
/// a column holds a callstack) and what its events held (how many passed the filter, their time range, how many carried
/// a non-empty stack). A file lists each event type of its metadata (or each event shape of target-data XML); an input
/// and the capture merge them by name. Immutable.
/// </summary>
public sealed class EventTypeSummary
{
    internal EventTypeSummary(
        string name,
        XeEventType eventType,
        IReadOnlyList<XeColumn> actions,
        long count,
        DateTime? first,
        DateTime? last,
        bool hasCallstack,
        long eventsWithStack
    )
    {
        Name = name;
        EventType = eventType;
        Actions = actions;
        Count = count;
        FirstEvent = first;
        LastEvent = last;
        HasCallstack = hasCallstack;
        EventsWithStack = eventsWithStack;
    }

    /// <summary>The full name (<c>package.event</c>), or <c>(other events)</c> for the events of names beyond the
    /// capture's limit.</summary>
    public string Name { get; }

    /// <summary>The event type (its fields with their types and maps); for types merged by name, the one with the most
    /// fields.</summary>
    public XeEventType EventType { get; }

    /// <summary>Every action seen on its events, in first-seen order (merged by full name).</summary>
    public IReadOnlyList<XeColumn> Actions { get; }

    /// <summary>Events of the type that passed the filter.</summary>
    public long Count { get; }

    /// <summary>The earliest event time, or <see langword="null"/> when no event has a timestamp.</summary>
    public DateTime? FirstEvent { get; }

    /// <summary>The latest event time, or <see langword="null"/> when no event has a timestamp.</summary>
    public DateTime? LastEvent { get; }

    /// <summary>Whether a field or an action of its events can hold a callstack (<see cref="StackColumns.Find"/>, the
    /// one rule): a schema fact.</summary>
    public bool HasCallstack { get; }

    /// <summary>Events whose stack column held at least one frame (<see cref="StackColumn.HasFrames"/>): a data
    /// fact.</summary>
    public long EventsWithStack { get; }

    /// <summary>Merges event types by full name, in the order their names were first seen.</summary>
    /// <param name="types">The types, in first-seen order.</param>
    /// <returns>One per name: counts and stacks summed, time ranges joined, actions merged by full name.</returns>
    internal static List<EventTypeSummary> MergeByName(IEnumerable<EventTypeSummary> types)
    {
        var order = new List<string>();
        var groups = new Dictionary<string, List<EventTypeSummary>>(StringComparer.Ordinal);
        foreach (EventTypeSummary t in types)
        {
            if (!groups.TryGetValue(t.Name, out List<EventTypeSummary>? g))
            {
                g = [];
                groups.Add(t.Name, g);
                order.Add(t.Name);
            }

            g.Add(t);
        }

        return [.. order.Select(n => Merge(n, groups[n]))];
    }

    /// <summary>One summary of several types under one name.</summary>
    internal static EventTypeSummary Merge(string name, IReadOnlyList<EventTypeSummary> group)
    {
        if (group.Count == 1 && group[0].Name == name)
        {
            return group[0];
        }

        XeEventType widest = group[0].EventType;
        var actions = new List<XeColumn>();
        var actionNames = new HashSet<string>(StringComparer.Ordinal);
        long count = 0,
            withStack = 0;
        DateTime? first = null,
            last = null;
        bool stack = false;
        foreach (EventTypeSummary t in group)
        {
            if (t.EventType.Fields.Count > widest.Fields.Count)
            {
                widest = t.EventType;
            }

            foreach (XeColumn a in t.Actions.Where(a => actionNames.Add(a.FullName)))
            {
                actions.Add(a);
            }

            count += t.Count;
            withStack += t.EventsWithStack;
            first = Earlier(first, t.FirstEvent);
            last = Later(last, t.LastEvent);
            stack |= t.HasCallstack;
        }

        return new EventTypeSummary(name, widest, actions.AsReadOnly(), count, first, last, stack, withStack);
    }

    internal static DateTime? Earlier(DateTime? a, DateTime? b) =>
        a is null ? b
        : b is null ? a
        : a <= b ? a
        : b;

    internal static DateTime? Later(DateTime? a, DateTime? b) =>
        a is null ? b
        : b is null ? a
        : a >= b ? a
        : b;
}

/// <summary>
/// One file of a read: a <c>.xel</c> file of a capture set (with its buffers and metadata) or a target-data XML file;
/// its size, the events of it that passed the filter by event type, and the warnings about it. Immutable.
/// </summary>
public sealed class FileSummary
{
    internal FileSummary(
        CaptureInput input,
        string path,
        long length,
        IReadOnlyList<EventTypeSummary> eventTypes,
        XelFileFacts? xel,
        IReadOnlyList<string> warnings
    )
    {
        Input = input;
        Path = path;
        Length = length;
        EventTypes = eventTypes;
        Xel = xel;
        Warnings = warnings;
        Events = eventTypes.Sum(t => t.Count);
        FirstEvent = eventTypes.Aggregate((DateTime?)null, (f, t) => EventTypeSummary.Earlier(f, t.FirstEvent));
        LastEvent = eventTypes.Aggregate((DateTime?)null, (l, t) => EventTypeSummary.Later(l, t.LastEvent));
    }

    /// <summary>The input the file belongs to.</summary>
    public CaptureInput Input { get; }

    /// <summary>The file, as the input named it.</summary>
    public string Path { get; }

    /// <summary>Its size in bytes.</summary>
    public long Length { get; }

    /// <summary>Its event types (of the events that passed the filter), in the order first seen.</summary>
    public IReadOnlyList<EventTypeSummary> EventTypes { get; }

    /// <summary>Events of the file that passed the filter.</summary>
    public long Events { get; }

    /// <summary>The earliest time of those events, or <see langword="null"/>.</summary>
    public DateTime? FirstEvent { get; }

    /// <summary>The latest time of those events, or <see langword="null"/>.</summary>
    public DateTime? LastEvent { get; }

    /// <summary>For a <c>.xel</c> file: its buffers and metadata; <see langword="null"/> for target data.</summary>
    internal XelFileFacts? Xel { get; }

    /// <summary>Warnings about the file: the reader's (with byte offsets) for <c>.xel</c>, those about its targets and
    /// events for XML.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// Whether any of its event types has a callstack column (a schema fact;
    /// <see cref="EventTypeSummary.EventsWithStack"/> is the data fact).
    /// </summary>
    public bool HasCallstacks => EventTypes.Any(t => t.HasCallstack);
}

/// <summary>What one input held, as one read of it found it. Immutable once the read has ended.</summary>
public sealed class InputSummary
{
    internal InputSummary(CaptureInput input)
    {
        Input = input;
    }

    /// <summary>The input.</summary>
    public CaptureInput Input { get; }

    /// <summary>
    /// Every event the input holds, by full name, most frequent first — counted before any filter (the <c>.xel</c>
    /// reader counts the records it skips by name without decoding them).
    /// </summary>
    public IReadOnlyList<EventNameCount> EventsByName { get; internal set; } = [];

    /// <summary>Events that passed the whole filter (names, <c>--where</c>, <c>--from</c>/<c>--to</c>).</summary>
    public long EventsMatched { get; internal set; }

    /// <summary>Events read and decoded (those of the names asked for), before the value and time conditions.</summary>
    public long EventsRead { get; internal set; }

    /// <summary>The earliest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? FirstEvent { get; internal set; }

    /// <summary>The latest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? LastEvent { get; internal set; }

    /// <summary>
    /// The time range of the events read before the value and time conditions (kept only when the filter has such
    /// conditions, to say why none passed).
    /// </summary>
    internal TickRange ReadRange { get; set; }

    /// <summary>For target data: the event types read (its schema, as far as the XML shows one).</summary>
    internal IReadOnlyList<XeEventType> TypesRead { get; set; } = [];

    /// <summary>For target data: the full names of the actions on the events read.</summary>
    internal IReadOnlyList<string> ActionsRead { get; set; } = [];

    /// <summary>Its files, in reading order (one for target data).</summary>
    public IReadOnlyList<FileSummary> Files { get; internal set; } = [];

    /// <summary>The event types of its files merged by name, in the order first seen.</summary>
    public IReadOnlyList<EventTypeSummary> EventTypes { get; internal set; } = [];

    /// <summary>For target data: the target roots read, in input order.</summary>
    public IReadOnlyList<TargetSummary> Targets { get; internal set; } = [];

    /// <summary>For target data: the histogram targets, in input order.</summary>
    public IReadOnlyList<HistogramTarget> Histograms { get; internal set; } = [];

    /// <summary>For target data: the event_counter counts, in input order.</summary>
    public IReadOnlyList<EventCounterValueRead> EventCounters { get; internal set; } = [];

    /// <summary>For target data: events without a parseable timestamp (they sort first).</summary>
    public long EventsWithoutTimestamp { get; internal set; }

    /// <summary>Whether an event type has a callstack column or a histogram counts callstacks (schema facts).</summary>
    public bool HasCallstacks =>
        EventTypes.Any(t => t.HasCallstack) || Histograms.Any(h => h.SourceKind == HistogramSourceKind.Callstack);
}

/// <summary>
/// What one read of a <see cref="CaptureSource"/> found (<see cref="CaptureSource.Read"/>), the one model of what a
/// capture holds: per input its files, each file's event types (schema and data facts) and buffers, the events by name
/// before the filter, its target-level data (targets, histograms, event_counter counts); the totals of the whole
/// capture; and the run's diagnostics (what was skipped). A command reads its inputs once and explains everything from
/// this (what is missing, whether the filter excluded it), never by reading again.
/// </summary>
public sealed class CaptureSummary
{
    /// <summary>The most event names <see cref="EventTypes"/> lists; the events of further names are summed as
    /// <c>(other events)</c>.</summary>
    public const int MaxEventNames = 10_000;

    internal CaptureSummary(IReadOnlyList<InputSummary> inputs, CaptureDiagnostics diagnostics, EventFilter filter)
    {
        Inputs = inputs;
        Diagnostics = diagnostics;
        Filter = filter;
        var byName = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (InputSummary i in inputs)
        {
            foreach (EventNameCount c in i.EventsByName)
            {
                byName[c.Name] = byName.GetValueOrDefault(c.Name) + c.Count;
            }
        }

        EventsByName = EventNameCount.Sort(byName);
        EventsMatched = inputs.Sum(i => i.EventsMatched);
        EventsRead = inputs.Sum(i => i.EventsRead);
        Histograms = [.. inputs.SelectMany(i => i.Histograms)];
        EventCounters = [.. inputs.SelectMany(i => i.EventCounters)];
        Targets = [.. inputs.SelectMany(i => i.Targets)];
        Files = [.. inputs.SelectMany(i => i.Files)];
        TotalLength = Files.Sum(f => f.Length);
        FirstEvent = inputs.Aggregate((DateTime?)null, (f, i) => EventTypeSummary.Earlier(f, i.FirstEvent));
        LastEvent = inputs.Aggregate((DateTime?)null, (l, i) => EventTypeSummary.Later(l, i.LastEvent));
        EventTypes = ByName(inputs.SelectMany(i => i.EventTypes));
        ReadRange = inputs.Aggregate(default(TickRange), (r, i) => r.Join(i.ReadRange));
    }

    /// <summary>
    /// The time range of the events read before the value and time conditions (see
    /// <see cref="InputSummary.ReadRange"/>).
    /// </summary>
    internal TickRange ReadRange { get; }

    /// <summary>Per input, in the order read.</summary>
    public IReadOnlyList<InputSummary> Inputs { get; }

    /// <summary>Every file of every input, in reading order.</summary>
    public IReadOnlyList<FileSummary> Files { get; }

    /// <summary>The total size of the files in bytes.</summary>
    public long TotalLength { get; }

    /// <summary>The filter the events were read through.</summary>
    public EventFilter Filter { get; }

    /// <summary>What was skipped or is doubtful, and whether the result is partial.</summary>
    public CaptureDiagnostics Diagnostics { get; }

    /// <summary>What the reader skipped and the analyses left out so far (<see cref="Diagnostics"/>).</summary>
    public CaptureReadStatistics ReadStatistics => CaptureReadStatistics.Of(Diagnostics);

    /// <summary>Every event of every input by full name (before the filter), most frequent first (ties by name,
    /// ordinal).</summary>
    public IReadOnlyList<EventNameCount> EventsByName { get; }

    /// <summary>
    /// The event types of the events that passed the filter, merged by full name over every input: most events first
    /// (ties by name, ordinal); names beyond the first <see cref="MaxEventNames"/> seen are summed as <c>(other
    /// events)</c>.
    /// </summary>
    public IReadOnlyList<EventTypeSummary> EventTypes { get; }

    /// <summary>Events that passed the whole filter.</summary>
    public long EventsMatched { get; }

    /// <summary>Events read and decoded (of the names asked for), before the value and time conditions.</summary>
    public long EventsRead { get; }

    /// <summary>The earliest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? FirstEvent { get; }

    /// <summary>The latest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? LastEvent { get; }

    /// <summary>
    /// Whether any matched event type has a callstack column, or a histogram's slots are callstacks (schema facts, the
    /// rule of <see cref="InputSummary.HasCallstacks"/>; <see cref="EventTypeSummary.EventsWithStack"/> says how many
    /// events carried one).
    /// </summary>
    public bool HasCallstacks => Inputs.Any(i => i.HasCallstacks);

    /// <summary>Every histogram target read.</summary>
    public IReadOnlyList<HistogramTarget> Histograms { get; }

    /// <summary>Every event_counter count read.</summary>
    public IReadOnlyList<EventCounterValueRead> EventCounters { get; }

    /// <summary>Every target root read.</summary>
    public IReadOnlyList<TargetSummary> Targets { get; }

    /// <summary>Whether the read was partial (see <see cref="CaptureDiagnostics.IsPartial"/>).</summary>
    public bool IsPartial => Diagnostics.IsPartial;

    /// <summary>How many events the inputs hold of these names (short <c>event</c> or <c>package.event</c>), before the
    /// filter.</summary>
    /// <param name="names">The names.</param>
    /// <returns>The count.</returns>
    public long CountOf(IEnumerable<string> names)
    {
        ArgumentNullException.ThrowIfNull(names);
        string[] wanted = [.. names];
        long n = 0;
        foreach (EventNameCount c in EventsByName)
        {
            foreach (string w in wanted)
            {
                if (EventNameMatches(c.Name, w))
                {
                    n += c.Count;
                    break;
                }
            }
        }

        return n;
    }

    /// <summary>Whether a full name (<c>package.event</c>) matches a name given by a user or an analysis (<c>event</c>
    /// or <c>package.event</c>).</summary>
    internal static bool EventNameMatches(string fullName, string name)
    {
        if (name.Contains('.', StringComparison.Ordinal))
        {
            return string.Equals(fullName, name, StringComparison.Ordinal);
        }

        int dot = fullName.IndexOf('.', StringComparison.Ordinal);
        return string.Equals(dot < 0 ? fullName : fullName[(dot + 1)..], name, StringComparison.Ordinal);
    }

    /// <summary>The types merged by name, names beyond <see cref="MaxEventNames"/> (first seen first) as one, most
    /// events first.</summary>
    private static IReadOnlyList<EventTypeSummary> ByName(IEnumerable<EventTypeSummary> types)
    {
        List<EventTypeSummary> merged = EventTypeSummary.MergeByName(types);
        if (merged.Count > MaxEventNames)
        {
            merged =
            [
                .. merged.Take(MaxEventNames),
                EventTypeSummary.Merge("(other events)", merged.Skip(MaxEventNames).ToList()),
            ];
        }

        return [.. merged.OrderByDescending(t => t.Count).ThenBy(t => t.Name, StringComparer.Ordinal)];
    }
}

/// <summary>The earliest and latest of some timestamps, as ticks; empty until the first is added.</summary>
internal struct TickRange
{
    private long _first;
    private long _last;

    /// <summary>Whether a time was added.</summary>
    public readonly bool IsEmpty => _first == 0 && _last == 0;

    /// <summary>The earliest time, or <see langword="null"/>.</summary>
    public readonly DateTime? First => IsEmpty ? null : new DateTime(_first, DateTimeKind.Utc);

    /// <summary>The latest time, or <see langword="null"/>.</summary>
    public readonly DateTime? Last => IsEmpty ? null : new DateTime(_last, DateTimeKind.Utc);

    /// <summary>Widens the range to hold <paramref name="ticks"/> (a positive tick count).</summary>
    public void Add(long ticks)
    {
        if (IsEmpty)
        {
            _first = _last = ticks;
        }
        else if (ticks < _first)
        {
            _first = ticks;
        }
        else if (ticks > _last)
        {
            _last = ticks;
        }
    }

    /// <summary>The range holding both.</summary>
    public readonly TickRange Join(TickRange other)
    {
        if (other.IsEmpty)
        {
            return this;
        }

        TickRange r = this;
        r.Add(other._first);
        r.Add(other._last);
        return r;
    }
}

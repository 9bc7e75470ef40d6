using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>
/// Hands each event of a read to the consumers that accept its type and actions (asked once per distinct pair), and
/// tallies what the read finds per event type for the <see cref="CaptureSummary"/>: the events, their time range, the
/// actions they carry, whether a column holds a stack and how many stacks held frames. The work per event is two
/// reference comparisons for the usual event (see
/// <see cref="RecentEventLayouts{T}"/>), a count and the stack test where the type has a stack column. Not thread-safe.
/// </summary>
internal sealed class EventDispatcher(IReadOnlyList<ICaptureConsumer> consumers)
{
    /// <summary>The most (event type, action set) pairs remembered, and the most event types tallied per
    /// read.</summary>
    private const int MaxShapes = 100_000;

    private readonly ICaptureConsumer[] _consumers = [.. consumers];
    private readonly Dictionary<(XeEventType, XeActionSet), Shape> _shapes = [];
    private readonly Dictionary<XeEventType, TypeTally> _types = new(ReferenceEqualityComparer.Instance);
    private readonly List<TypeTally> _inputTypes = [];
    private readonly Dictionary<string, TypeTally> _overflow = new(StringComparer.Ordinal);
    private RecentEventLayouts<Shape> _recent;

    /// <summary>The consumers, in the order they are called.</summary>
    public IReadOnlyList<ICaptureConsumer> Consumers => _consumers;

    /// <summary>Tallies an event and hands it to the consumers that accept it.</summary>
    public void Add(XEvent e)
    {
        XeEventType type = e.EventType;
        XeActionSet set = e.ActionSet;
        if (!_recent.TryGet(type, set, out Shape? shape))
        {
            if (!_shapes.TryGetValue((type, set), out shape))
            {
                shape = NewShape(e);
                if (_shapes.Count < MaxShapes)
                {
                    _shapes.Add((type, set), shape);
                }
            }

            _recent.Add(type, set, shape);
        }

        TypeTally t = shape.Type;
        t.Count++;
        long ticks = e.Timestamp.Ticks;

        // Target-data events without a timestamp have DateTime.MinValue: counted, but not in the time range.
        if (ticks != 0)
        {
            if (ticks < t.FirstTicks)
            {
                t.FirstTicks = ticks;
            }

            if (ticks > t.LastTicks)
            {
                t.LastTicks = ticks;
            }
        }

        if (shape.HasStack && shape.Stack.HasFrames(shape.Stack.GetValue(e)))
        {
            t.EventsWithStack++;
        }

        foreach (ICaptureConsumer c in shape.Accepted)
        {
            c.Add(e);
        }
    }

    /// <summary>Starts the tally of an input.</summary>
    public void BeginInput()
    {
        _inputTypes.Clear();
        _overflow.Clear();
    }

    /// <summary>The files of the input read since <see cref="BeginInput"/>, each with its event types.</summary>
    /// <param name="input">The input.</param>
    /// <param name="xel">The reader's facts of each <c>.xel</c> file (none for target data).</param>
    /// <param name="warnings">The warnings about a file.</param>
    /// <returns>The files, in the input's order.</returns>
    public IReadOnlyList<FileSummary> EndInput(
        CaptureInput input,
        IReadOnlyList<XelFileFacts> xel,
        Func<string, IReadOnlyList<string>> warnings
    )
    {
        var byFile = input.Files.ToDictionary(f => f, _ => new List<EventTypeSummary>(), StringComparer.Ordinal);
        foreach (TypeTally t in _inputTypes.Concat(_overflow.Values))
        {
            List<EventTypeSummary> list =
                t.File is string f && byFile.TryGetValue(f, out List<EventTypeSummary>? l) ? l : byFile[input.Files[0]];
            list.Add(t.ToSummary());
        }

        var files = new List<FileSummary>(input.Files.Count);
        foreach (string path in input.Files)
        {
            XelFileFacts? facts = xel.LastOrDefault(x => string.Equals(x.FilePath, path, StringComparison.Ordinal));
            files.Add(
                new FileSummary(
                    input,
                    path,
                    facts?.Length ?? LengthOf(path),
                    byFile[path].AsReadOnly(),
                    facts,
                    warnings(path)
                )
            );
        }

        return files.AsReadOnly();
    }

    private static long LengthOf(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    private Shape NewShape(XEvent e)
    {
        XeEventType type = e.EventType;
        XeActionSet set = e.ActionSet;
        if (!_types.TryGetValue(type, out TypeTally? tally))
        {
            string? file = e.Source.FilePath;
            if (_types.Count < MaxShapes)
            {
                tally = new TypeTally(type, type.FullName, file);
                _types.Add(type, tally);
                _inputTypes.Add(tally);
            }
            else
            {
                // Beyond the limit, the events of further types are summed per file (their counts stay right).
                string key = file ?? string.Empty;
                if (!_overflow.TryGetValue(key, out tally))
                {
                    tally = new TypeTally(type, "(other events)", file);
                    _overflow.Add(key, tally);
                }
            }
        }

        StackColumn? stack = StackColumns.Find(type, set, null, out _);
        tally.AddActions(set, stack is not null);
        var accepted = new List<ICaptureConsumer>();
        foreach (ICaptureConsumer c in _consumers)
        {
            if (c.Accepts(type, set))
            {
                accepted.Add(c);
            }
        }

        return new Shape([.. accepted], tally, stack ?? default, stack is not null);
    }

    /// <summary>What is worked out once per (event type, action set) pair.</summary>
    private sealed class Shape(ICaptureConsumer[] accepted, TypeTally type, StackColumn stack, bool hasStack)
    {
        public readonly ICaptureConsumer[] Accepted = accepted;
        public readonly TypeTally Type = type;
        public readonly StackColumn Stack = stack;
        public readonly bool HasStack = hasStack;
    }

    /// <summary>The events of one event type so far.</summary>
    private sealed class TypeTally(XeEventType type, string name, string? file)
    {
        private readonly List<XeColumn> _actions = [];
        private readonly HashSet<XeColumn> _seen = new(ReferenceEqualityComparer.Instance);
        private bool _hasCallstack;

        public string? File { get; } = file;

        public long Count;
        public long FirstTicks = long.MaxValue;
        public long LastTicks = long.MinValue;
        public long EventsWithStack;

        public void AddActions(XeActionSet set, bool stack)
        {
            _hasCallstack |= stack;
            foreach (XeColumn c in set.Columns)
            {
                if (_seen.Add(c))
                {
                    _actions.Add(c);
                }
            }
        }

        public EventTypeSummary ToSummary() =>
            new(
                name,
                type,
                _actions.ToArray(),
                Count,
                FirstTicks == long.MaxValue ? null : new DateTime(FirstTicks, DateTimeKind.Utc),
                LastTicks == long.MinValue ? null : new DateTime(LastTicks, DateTimeKind.Utc),
                _hasCallstack,
                EventsWithStack
            );
    }
}

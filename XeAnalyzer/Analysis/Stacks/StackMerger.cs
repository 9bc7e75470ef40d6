namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Merges symbolized raw stacks whose rendered frame lists are equal (ordinal), per event name unless grouping by event
/// is off, and orders the buckets: count descending, then frames, then event name (ordinal), so output is
/// deterministic.
/// </summary>
internal sealed class StackMerger
{
    // The buckets by column, under a dense id in the order first made: the merge key's event (the raw stack's event id,
    // or −1 when not grouping by event; the first event id met when not grouping), the frames of the raw stack with the
    // most events, and the tallies. Times, durations and a bucket's further event ids take room only when some raw
    // stack has them: with a million distinct stacks an object per bucket was most of the merge's memory.
    private readonly bool _groupByEvent;
    private readonly HashSet<int> _index;
    private BucketFrame[][] _frames = [];
    private int[] _events = [];
    private readonly TallyColumns _tallies = new();
    private long[] _bestCounts = [];
    private int[] _rawStacks = [];
    private Dictionary<int, List<int>>? _moreEvents;

    public StackMerger(bool groupByEvent)
    {
        _groupByEvent = groupByEvent;
        _index = new HashSet<int>(new BucketIds(this));
    }

    /// <summary>The buckets so far.</summary>
    public int Count { get; private set; }

    /// <summary>Adds a symbolized raw stack of <paramref name="table"/>: a new bucket, or into the bucket whose key
    /// reads the same.</summary>
    public void Add(RawStackTable table, int id, BucketFrame[] frames)
    {
        int rawEvent = table.EventIdAt(id);
        long count = table.CountAt(id);
        long first = table.FirstAt(id);
        long last = table.LastAt(id);

        // The candidate is written past the end to be compared, and kept only when no bucket has its key.
        int b = Count;
        if (b == _tallies.Capacity)
        {
            GrowTo(Math.Max(16, b * 2));
        }

        _frames[b] = frames;
        _events[b] = rawEvent;
        if (_index.Add(b))
        {
            Count = b + 1;
            _tallies.AddCount(b, count);
            _bestCounts[b] = count;
            _rawStacks[b] = 1;
            _tallies.AddTimes(b, first, last);
            _tallies.AddDurations(b, table.DurationsAt(id));
            return;
        }

        _index.TryGetValue(b, out int bucket);
        _frames[b] = null!;
        _rawStacks[bucket]++;
        if (count > _bestCounts[bucket])
        {
            _bestCounts[bucket] = count;
            _frames[bucket] = frames;
        }

        _tallies.AddCount(bucket, count);
        _tallies.AddDurations(bucket, table.DurationsAt(id));
        _tallies.AddTimes(bucket, first, last);

        if (rawEvent >= 0)
        {
            AddEvent(bucket, rawEvent);
        }
    }

    public IReadOnlyList<StackBucket> Buckets(NameTable eventNames, out long total)
    {
        total = 0;
        long frames = 0;
        for (int b = 0; b < Count; b++)
        {
            total += _tallies.CountAt(b);
            frames += _frames[b].Length;
        }

        _index.Clear();
        _index.TrimExcess();
        int[] sorted = new int[Count];
        for (int b = 0; b < sorted.Length; b++)
        {
            sorted[b] = b;
        }

        Array.Sort(sorted, (x, y) => Compare(x, y, eventNames));
        var list = new StackBucketList.Builder(
            sorted.Length,
            checked((int)frames),
            [.. Enumerable.Range(0, eventNames.Count).Select(id => eventNames[id])]
        );
        var eventIds = new List<int>();
        foreach (int b in sorted)
        {
            StackDurations? durations = _tallies.DurationsAt(b) is { DurationEvents: > 0 } d
                ? new StackDurations(
                    d.DurationEvents,
                    d.DurationSum,
                    d.DurationMax,
                    d.SignalEvents > 0 ? d.SignalSum : null,
                    d.SignalEvents > 0 ? d.SignalMax : null
                )
                : null;
            eventIds.Clear();
            if (_events[b] >= 0)
            {
                eventIds.Add(_events[b]);
            }

            if (_moreEvents is not null && _moreEvents.TryGetValue(b, out List<int>? more))
            {
                eventIds.AddRange(more);
            }

            list.Add(
                KeyEvent(b),
                eventIds,
                _frames[b],
                _tallies.CountAt(b),
                durations,
                _tallies.FirstAt(b),
                _tallies.LastAt(b),
                _rawStacks[b]
            );
            _frames[b] = null!;
        }

        Count = 0;
        _frames = [];
        _events = [];
        _tallies.Release();
        _bestCounts = [];
        _rawStacks = [];
        _moreEvents = null;
        return list.Build(total);
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

    /// <summary>Compares frames by their text element by element (ordinal), a shorter prefix first.</summary>
    internal static int CompareFrames(ReadOnlySpan<BucketFrame> a, ReadOnlySpan<BucketFrame> b)
    {
        int n = Math.Min(a.Length, b.Length);
        for (int i = 0; i < n; i++)
        {
            int c = string.CompareOrdinal(a[i].Text, b[i].Text);
            if (c != 0)
            {
                return c;
            }
        }

        return a.Length.CompareTo(b.Length);
    }

    // The merge key's event: the bucket's event id when grouping by event, else −1.
    private int KeyEvent(int b) => _groupByEvent ? _events[b] : -1;

    // A bucket's event ids: the first met (in _events) and up to 63 more, distinct, in the order met.
    private void AddEvent(int b, int eventId)
    {
        if (_events[b] < 0)
        {
            _events[b] = eventId;
            return;
        }

        if (_events[b] == eventId)
        {
            return;
        }

        _moreEvents ??= [];
        if (!_moreEvents.TryGetValue(b, out List<int>? more))
        {
            _moreEvents.Add(b, more = []);
        }

        if (more.Count < 63 && !more.Contains(eventId))
        {
            more.Add(eventId);
        }
    }

    private void GrowTo(int capacity)
    {
        Array.Resize(ref _frames, capacity);
        Array.Resize(ref _events, capacity);
        _tallies.Grow(capacity);
        Array.Resize(ref _bestCounts, capacity);
        Array.Resize(ref _rawStacks, capacity);
    }

    private int Compare(int a, int b, NameTable eventNames)
    {
        int c = _tallies.CountAt(b).CompareTo(_tallies.CountAt(a));
        if (c != 0)
        {
            return c;
        }

        c = CompareFrames(_frames[a], _frames[b]);
        if (c != 0)
        {
            return c;
        }

        int ea = KeyEvent(a),
            eb = KeyEvent(b);
        return string.CompareOrdinal(ea >= 0 ? eventNames[ea] : null, eb >= 0 ? eventNames[eb] : null);
    }

    /// <summary>Compares bucket ids by their merge key: the event (or −1) and the rendered frames, by their
    /// text.</summary>
    private sealed class BucketIds(StackMerger merger) : IEqualityComparer<int>
    {
        public bool Equals(int x, int y)
        {
            if (merger.KeyEvent(x) != merger.KeyEvent(y))
            {
                return false;
            }

            BucketFrame[] a = merger._frames[x],
                b = merger._frames[y];
            if (a.Length != b.Length)
            {
                return false;
            }

            for (int i = 0; i < a.Length; i++)
            {
                if (
                    !ReferenceEquals(a[i].Text, b[i].Text)
                    && !string.Equals(a[i].Text, b[i].Text, StringComparison.Ordinal)
                )
                {
                    return false;
                }
            }

            return true;
        }

        public int GetHashCode(int obj)
        {
            var h = new HashCode();
            h.Add(merger.KeyEvent(obj));
            foreach (BucketFrame f in merger._frames[obj])
            {
                h.Add(f.Text, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }
}

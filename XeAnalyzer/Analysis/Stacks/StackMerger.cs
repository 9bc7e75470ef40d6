namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Merges symbolized raw stacks whose rendered frame lists are equal (ordinal), per event name unless grouping by event is off, and
/// orders the buckets: count descending, then frames, then event name (ordinal), so output is deterministic.
/// </summary>
internal sealed class StackMerger(bool groupByEvent)
{
    private readonly Dictionary<MergeKey, MergedBucket> _merged = [];
    private readonly List<MergedBucket> _order = [];

    public int Count => _order.Count;

    public void Add(RawStack raw, BucketFrame[] frames)
    {
        string[] texts = new string[frames.Length];
        for (int i = 0; i < texts.Length; i++)
        {
            texts[i] = frames[i].Text;
        }

        var key = new MergeKey(groupByEvent ? raw.EventId : -1, texts);
        if (!_merged.TryGetValue(key, out MergedBucket? m))
        {
            m = new MergedBucket(key, frames);
            _merged.Add(key, m);
            _order.Add(m);
        }

        m.Add(raw, frames);
    }

    public IReadOnlyList<StackBucket> Buckets(NameTable eventNames, out long total)
    {
        total = 0;
        foreach (MergedBucket m in _order)
        {
            total = StackBucketBuilder.SatAdd(total, m.Count);
        }

        MergedBucket[] sorted = [.. _order];
        Array.Sort(sorted, (a, b) => Compare(a, b, eventNames));
        var buckets = new StackBucket[sorted.Length];
        for (int i = 0; i < sorted.Length; i++)
        {
            MergedBucket m = sorted[i];
            string[] names = [.. m.EventIds.Where(id => id >= 0).Select(id => eventNames[id]).Order(StringComparer.Ordinal)];
            string? eventName = m.Key.EventId >= 0 ? eventNames[m.Key.EventId] : null;
            StackDurations? durations = m.DurationEvents > 0
                ? new StackDurations(m.DurationEvents, m.DurationSum, m.DurationMax, m.SignalEvents > 0 ? m.SignalSum : null, m.SignalEvents > 0 ? m.SignalMax : null)
                : null;
            buckets[i] = new StackBucket(i + 1, eventName, Array.AsReadOnly(names), Array.AsReadOnly(m.Frames), m.Count, total == 0 ? 0 : (double)m.Count / total, durations,
                m.First == long.MaxValue ? null : new DateTime(m.First, DateTimeKind.Utc), m.Last == long.MinValue ? null : new DateTime(m.Last, DateTimeKind.Utc), m.RawStacks);
        }

        return Array.AsReadOnly(buckets);
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

    private static int Compare(MergedBucket a, MergedBucket b, NameTable eventNames)
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

        string? ea = a.Key.EventId >= 0 ? eventNames[a.Key.EventId] : null;
        string? eb = b.Key.EventId >= 0 ? eventNames[b.Key.EventId] : null;
        return string.CompareOrdinal(ea, eb);
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
        private List<int>? _eventIds;

        public MergeKey Key { get; } = key;

        public BucketFrame[] Frames { get; private set; } = frames;

        public long Count { get; private set; }

        public long DurationEvents { get; private set; }

        public long DurationSum { get; private set; }

        public long DurationMax { get; private set; }

        public long SignalEvents { get; private set; }

        public long SignalSum { get; private set; }

        public long SignalMax { get; private set; }

        public long First { get; private set; } = long.MaxValue;

        public long Last { get; private set; } = long.MinValue;

        public int RawStacks { get; private set; }

        public IEnumerable<int> EventIds => _eventIds ?? (IEnumerable<int>)[];

        public void Add(RawStack raw, BucketFrame[] frames)
        {
            RawStacks++;
            if (raw.Count > _bestCount)
            {
                _bestCount = raw.Count;
                Frames = frames;
            }

            Count = StackBucketBuilder.SatAdd(Count, raw.Count);
            DurationEvents = StackBucketBuilder.SatAdd(DurationEvents, raw.DurationEvents);
            DurationSum = StackBucketBuilder.SatAdd(DurationSum, raw.DurationSum);
            DurationMax = Math.Max(DurationMax, raw.DurationMax);
            SignalEvents = StackBucketBuilder.SatAdd(SignalEvents, raw.SignalEvents);
            SignalSum = StackBucketBuilder.SatAdd(SignalSum, raw.SignalSum);
            SignalMax = Math.Max(SignalMax, raw.SignalMax);
            First = Math.Min(First, raw.First);
            Last = Math.Max(Last, raw.Last);
            if (raw.EventId >= 0)
            {
                _eventIds ??= [];
                if (_eventIds.Count < 64 && !_eventIds.Contains(raw.EventId))
                {
                    _eventIds.Add(raw.EventId);
                }
            }
        }
    }
}

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Merges symbolized raw stacks whose rendered frame lists are equal (ordinal), per event name unless grouping by event
/// is off, and orders the buckets: count descending, then frames, then event name (ordinal), so output is
/// deterministic.
/// </summary>
internal sealed class StackMerger(bool groupByEvent)
{
    // The first raw stack of each merge key is the bucket: later raw stacks with the same rendered frames are added
    // into it and let go, so merging costs no object per bucket beyond the raw stack itself.
    private readonly Dictionary<MergeKey, RawStack> _merged = [];

    public int Count => _merged.Count;

    public void Add(RawStack raw, BucketFrame[] frames)
    {
        var key = new MergeKey(groupByEvent ? raw.EventId : -1, frames);
        if (!_merged.TryGetValue(key, out RawStack? bucket))
        {
            _merged.Add(key, raw);
            raw.Frames = frames;
            raw.BestCount = raw.Count;
            raw.RawStacks = 1;
            raw.Text = null;
            raw.Addresses = null;
            if (raw.EventId >= 0)
            {
                raw.EventIds = [raw.EventId];
            }

            if (!groupByEvent)
            {
                raw.EventId = -1;
            }

            return;
        }

        bucket.RawStacks++;
        if (raw.Count > bucket.BestCount)
        {
            bucket.BestCount = raw.Count;
            bucket.Frames = frames;
        }

        bucket.Count += raw.Count;
        if (raw.Durations is RawDurations d)
        {
            (bucket.Durations ??= new RawDurations()).Add(d);
        }

        bucket.First = Math.Min(bucket.First, raw.First);
        bucket.Last = Math.Max(bucket.Last, raw.Last);
        if (raw.EventId >= 0)
        {
            bucket.EventIds ??= [];
            if (bucket.EventIds.Count < 64 && !bucket.EventIds.Contains(raw.EventId))
            {
                bucket.EventIds.Add(raw.EventId);
            }
        }
    }

    public IReadOnlyList<StackBucket> Buckets(NameTable eventNames, out long total)
    {
        total = 0;
        long frames = 0;
        foreach (RawStack m in _merged.Values)
        {
            total += m.Count;
            frames += m.Frames!.Length;
        }

        RawStack[] sorted = [.. _merged.Values];
        _merged.Clear();
        _merged.TrimExcess();
        Array.Sort(sorted, (a, b) => Compare(a, b, eventNames));
        var list = new StackBucketList.Builder(
            sorted.Length,
            checked((int)frames),
            [.. Enumerable.Range(0, eventNames.Count).Select(id => eventNames[id])]
        );
        for (int i = 0; i < sorted.Length; i++)
        {
            RawStack m = sorted[i];
            sorted[i] = null!;
            StackDurations? durations = m.Durations is { DurationEvents: > 0 } d
                ? new StackDurations(
                    d.DurationEvents,
                    d.DurationSum,
                    d.DurationMax,
                    d.SignalEvents > 0 ? d.SignalSum : null,
                    d.SignalEvents > 0 ? d.SignalMax : null
                )
                : null;
            list.Add(m.EventId, m.EventIds, m.Frames!, m.Count, durations, m.First, m.Last, m.RawStacks);
        }

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

    private static int Compare(RawStack a, RawStack b, NameTable eventNames)
    {
        int c = b.Count.CompareTo(a.Count);
        if (c != 0)
        {
            return c;
        }

        c = CompareFrames(a.Frames!, b.Frames!);
        if (c != 0)
        {
            return c;
        }

        string? ea = a.EventId >= 0 ? eventNames[a.EventId] : null;
        string? eb = b.EventId >= 0 ? eventNames[b.EventId] : null;
        return string.CompareOrdinal(ea, eb);
    }

    /// <summary>The merge key: the event (or -1) and the rendered frames, compared by their text.</summary>
    private readonly struct MergeKey(int eventId, BucketFrame[] frames) : IEquatable<MergeKey>
    {
        public int EventId { get; } = eventId;

        public BucketFrame[] Frames { get; } = frames;

        public bool Equals(MergeKey other)
        {
            if (EventId != other.EventId || Frames.Length != other.Frames.Length)
            {
                return false;
            }

            for (int i = 0; i < Frames.Length; i++)
            {
                string a = Frames[i].Text,
                    b = other.Frames[i].Text;
                if (!ReferenceEquals(a, b) && !string.Equals(a, b, StringComparison.Ordinal))
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
            foreach (BucketFrame f in Frames)
            {
                h.Add(f.Text, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }
}

using System.Numerics;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// One distinct raw stack of one input and its tallies: the event id and the return addresses, or the event id and the
/// stack text as read (frames are parsed only when the table is symbolized). Kept small: a few hundred bytes per
/// distinct stack.
/// </summary>
internal sealed class RawStack
{
    public int EventId;
    public ulong[]? Addresses; // [event id, frame 0 (leaf), frame 1, …]
    public string? Text;

    // The file line where the first value with this text starts (a target-data value), 0 for a .xel field: what the
    // resolution summary's "line N" names, as resolve does.
    public long FirstLine;
    public long Count;
    public long First = long.MaxValue;
    public long Last = long.MinValue;
    public RawDurations? Durations; // only for events with a duration field (wait events)

    // When merging (StackMerger), the first raw stack of a merge key becomes the bucket and the others are added into
    // it.
    public BucketFrame[]? Frames;
    public List<int>? EventIds;
    public long BestCount = -1;
    public int RawStacks;

    public int FrameCount => Addresses is ulong[] a ? a.Length - 1 : 0;

    /// <summary>Adds events of this stack: their count, time (or <see cref="long.MinValue"/>), duration and signal
    /// duration (−1 when the event has no such field).</summary>
    public void Add(long count, long ticks, long duration, long signal)
    {
        Count += count;
        if (ticks != long.MinValue && ticks > DateTime.MinValue.Ticks)
        {
            First = Math.Min(First, ticks);
            Last = Math.Max(Last, ticks);
        }

        if (duration >= 0 || signal >= 0)
        {
            (Durations ??= new RawDurations()).Add(count, duration, signal);
        }
    }
}

/// <summary>The duration and signal_duration tallies of a raw stack or bucket (a field the events lack stays at 0
/// events: n/a).</summary>
internal sealed class RawDurations
{
    public long DurationEvents;
    public long DurationSum;
    public long DurationMax;
    public long SignalEvents;
    public long SignalSum;
    public long SignalMax;

    public void Add(long count, long duration, long signal)
    {
        if (duration >= 0)
        {
            DurationEvents += count;
            DurationSum += duration;
            DurationMax = Math.Max(DurationMax, duration);
        }

        if (signal >= 0)
        {
            SignalEvents += count;
            SignalSum += signal;
            SignalMax = Math.Max(SignalMax, signal);
        }
    }

    public void Add(RawDurations other)
    {
        DurationEvents += other.DurationEvents;
        DurationSum += other.DurationSum;
        DurationMax = Math.Max(DurationMax, other.DurationMax);
        SignalEvents += other.SignalEvents;
        SignalSum += other.SignalSum;
        SignalMax = Math.Max(SignalMax, other.SignalMax);
    }
}

/// <summary>
/// The count per distinct raw stack of one input: events are aggregated by raw stack (the array of return addresses, or
/// the stack text, plus the event name) without allocating per event. Raw addresses of two inputs are never compared
/// (each input has its own table and module map). Bounded by the distinct-stack cap shared by every table of a builder.
/// </summary>
internal sealed class RawStackTable
{
    private readonly Dictionary<ulong[], RawStack> _byAddresses = new(AddressKeyComparer.Instance);
    private readonly Dictionary<ulong[], RawStack>.AlternateLookup<ReadOnlySpan<ulong>> _lookup;

    // Text stacks are their own keys (event id and text): a set's entry is half a dictionary's with a (int, string)
    // key, which matters with a million distinct histogram slots. Looked up through one reusable probe.
    private readonly HashSet<RawStack> _byText = new(TextKeyComparer.Instance);
    private readonly RawStack _probe = new();

    public RawStackTable() => _lookup = _byAddresses.GetAlternateLookup<ReadOnlySpan<ulong>>();

    /// <summary>The distinct raw stacks in the order first seen (entries are cleared by
    /// <see cref="TakeAll"/>).</summary>
    public List<RawStack> Order { get; } = [];

    /// <summary>
    /// Hands out every raw stack once, in the order first seen, and lets go of each (and of the lookups) as it goes, so
    /// the memory of the table is given back while its stacks are symbolized and merged: the peak is not the table plus
    /// the buckets.
    /// </summary>
    public IEnumerable<RawStack> TakeAll()
    {
        _byAddresses.Clear();
        _byAddresses.TrimExcess();
        _byText.Clear();
        _byText.TrimExcess();
        for (int i = 0; i < Order.Count; i++)
        {
            RawStack raw = Order[i];
            Order[i] = null!;
            yield return raw;
        }

        Order.Clear();
        Order.TrimExcess();
    }

    /// <summary>Finds or adds an address stack (key = event id, then the frames); <see langword="null"/> when the cap
    /// is reached.</summary>
    public RawStack? FindOrAdd(ReadOnlySpan<ulong> key, StackLimitCounter limit)
    {
        if (_lookup.TryGetValue(key, out RawStack? raw))
        {
            return raw;
        }

        if (!limit.TryTake())
        {
            return null;
        }

        ulong[] array = key.ToArray();
        raw = new RawStack { EventId = unchecked((int)(long)array[0]), Addresses = array };
        _byAddresses.Add(array, raw);
        Order.Add(raw);
        return raw;
    }

    /// <summary>
    /// Finds or adds a text stack (read from <paramref name="line"/>, 0 when none); <see langword="null"/> when the
    /// cap is reached.
    /// </summary>
    public RawStack? FindOrAdd(int eventId, string text, StackLimitCounter limit, long line = 0)
    {
        _probe.EventId = eventId;
        _probe.Text = text;
        bool found = _byText.TryGetValue(_probe, out RawStack? raw);
        _probe.Text = null;
        if (found)
        {
            return raw;
        }

        if (!limit.TryTake())
        {
            return null;
        }

        raw = new RawStack
        {
            EventId = eventId,
            Text = text,
            FirstLine = line,
        };
        _byText.Add(raw);
        Order.Add(raw);
        return raw;
    }

    /// <summary>Compares text stacks by event id and text (ordinal).</summary>
    private sealed class TextKeyComparer : IEqualityComparer<RawStack>
    {
        public static readonly TextKeyComparer Instance = new();

        public bool Equals(RawStack? x, RawStack? y) =>
            ReferenceEquals(x, y)
            || (
                x is not null
                && y is not null
                && x.EventId == y.EventId
                && string.Equals(x.Text, y.Text, StringComparison.Ordinal)
            );

        public int GetHashCode(RawStack obj) =>
            HashCode.Combine(obj.EventId, StringComparer.Ordinal.GetHashCode(obj.Text!));
    }

    /// <summary>Compares address keys by content, and looks them up by span without allocating.</summary>
    private sealed class AddressKeyComparer
        : IEqualityComparer<ulong[]>,
            IAlternateEqualityComparer<ReadOnlySpan<ulong>, ulong[]>
    {
        public static readonly AddressKeyComparer Instance = new();

        public bool Equals(ulong[]? x, ulong[]? y) =>
            ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

        public int GetHashCode(ulong[] obj) => Hash(obj);

        public bool Equals(ReadOnlySpan<ulong> alternate, ulong[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<ulong> alternate) => Hash(alternate);

        public ulong[] Create(ReadOnlySpan<ulong> alternate) => alternate.ToArray();

        private static int Hash(ReadOnlySpan<ulong> s)
        {
            // Two independent lanes (even and odd frames), one multiply per frame, then a final mix: about half the
            // latency of a single chain with a full mix per frame. Only lookups use the hash (the table's order is the
            // order stacks were added).
            unchecked
            {
                ulong a = 0x9E3779B97F4A7C15UL ^ (ulong)s.Length;
                ulong b = 0xC2B2AE3D27D4EB4FUL;
                int i = 0;
                for (; i + 1 < s.Length; i += 2)
                {
                    a = (a ^ s[i]) * 0xBF58476D1CE4E5B9UL;
                    b = (b ^ s[i + 1]) * 0x94D049BB133111EBUL;
                    a ^= a >> 29;
                    b ^= b >> 32;
                }

                if (i < s.Length)
                {
                    a = (a ^ s[i]) * 0xBF58476D1CE4E5B9UL;
                }

                ulong h = (a ^ BitOperations.RotateLeft(b, 31)) * 0x94D049BB133111EBUL;
                h ^= h >> 31;
                return (int)(h ^ (h >> 32));
            }
        }
    }
}

/// <summary>The distinct-stack cap shared by the tables of one builder.</summary>
internal sealed class StackLimitCounter(int max)
{
    public int Taken { get; private set; }

    public bool TryTake()
    {
        if (Taken >= max)
        {
            return false;
        }

        Taken++;

        // Reading very many distinct stacks leaves each one's read garbage (its text, the XML reader's strings): as the
        // symbolization does, collect it every few thousand stacks rather than let it pile up to the runtime's budget.
        if ((Taken & (StackBucketBuilder.CollectEvery - 1)) == 0)
        {
            StackBucketBuilder.CollectYoung(Taken);
        }

        return true;
    }
}

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// One distinct raw stack of one input and its tallies: the event id and the return addresses, or the event id and the stack text as
/// read (frames are parsed only when the table is symbolized). Kept small: a few hundred bytes per distinct stack.
/// </summary>
internal sealed class RawStack
{
    public int EventId;
    public ulong[]? Addresses; // [event id, frame 0 (leaf), frame 1, …]
    public string? Text;
    public long Count;
    public long DurationEvents;
    public long DurationSum;
    public long DurationMax;
    public long SignalEvents;
    public long SignalSum;
    public long SignalMax;
    public long First = long.MaxValue;
    public long Last = long.MinValue;

    public int FrameCount => Addresses is ulong[] a ? a.Length - 1 : 0;

    /// <summary>Adds events of this stack: their count, time (or <see cref="long.MinValue"/>), duration and signal duration (−1 when the event has no such field).</summary>
    public void Add(long count, long ticks, long duration, long signal)
    {
        Count = StackBucketBuilder.SatAdd(Count, count);
        if (ticks != long.MinValue && ticks > DateTime.MinValue.Ticks)
        {
            First = Math.Min(First, ticks);
            Last = Math.Max(Last, ticks);
        }

        if (duration >= 0)
        {
            DurationEvents = StackBucketBuilder.SatAdd(DurationEvents, count);
            DurationSum = StackBucketBuilder.SatAdd(DurationSum, duration);
            DurationMax = Math.Max(DurationMax, duration);
        }

        if (signal >= 0)
        {
            SignalEvents = StackBucketBuilder.SatAdd(SignalEvents, count);
            SignalSum = StackBucketBuilder.SatAdd(SignalSum, signal);
            SignalMax = Math.Max(SignalMax, signal);
        }
    }
}

/// <summary>
/// The count per distinct raw stack of one input: events are aggregated by raw stack (the array of return addresses, or the stack
/// text, plus the event name) without allocating per event. Raw addresses of two inputs are never compared (each input has its own
/// table and module map). Bounded by the distinct-stack cap shared by every table of a builder.
/// </summary>
internal sealed class RawStackTable
{
    private readonly Dictionary<ulong[], RawStack> _byAddresses = new(AddressKeyComparer.Instance);
    private readonly Dictionary<ulong[], RawStack>.AlternateLookup<ReadOnlySpan<ulong>> _lookup;
    private readonly Dictionary<(int, string), RawStack> _byText = [];

    public RawStackTable() => _lookup = _byAddresses.GetAlternateLookup<ReadOnlySpan<ulong>>();

    /// <summary>The distinct raw stacks in the order first seen.</summary>
    public List<RawStack> Order { get; } = [];

    /// <summary>Finds or adds an address stack (key = event id, then the frames); <see langword="null"/> when the cap is reached.</summary>
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

    /// <summary>Finds or adds a text stack; <see langword="null"/> when the cap is reached.</summary>
    public RawStack? FindOrAdd(int eventId, string text, StackLimitCounter limit)
    {
        if (_byText.TryGetValue((eventId, text), out RawStack? raw))
        {
            return raw;
        }

        if (!limit.TryTake())
        {
            return null;
        }

        raw = new RawStack { EventId = eventId, Text = text };
        _byText.Add((eventId, text), raw);
        Order.Add(raw);
        return raw;
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
        return true;
    }
}

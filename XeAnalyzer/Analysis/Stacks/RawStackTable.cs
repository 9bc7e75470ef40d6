using System.Numerics;

namespace XeAnalyzer.Analysis.Stacks;

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
/// <remarks>
/// The stacks are held by column, each under a dense id in the order first seen: a stack costs its key (the address
/// array or the text), its event id, count and first line, and one entry of a set of ids whose comparer reads the key
/// columns. Times and durations take a column only once some event has them. With a million distinct histogram slots an
/// object per stack was most of the table.
/// </remarks>
internal sealed class RawStackTable
{
    private int[] _eventIds = [];
    private readonly TallyColumns _tallies = new();
    private ulong[]?[]? _addresses; // [event id, frame 0 (leaf), frame 1, …]
    private string?[]? _texts;

    // The file line where the first value with this text starts (a target-data value), 0 for a .xel field: what the
    // resolution summary's "line N" names, as resolve does.
    private long[]? _firstLines;

    private HashSet<int>? _byAddresses;
    private HashSet<int>.AlternateLookup<ReadOnlySpan<ulong>> _addressLookup;
    private HashSet<int>? _byText;
    private HashSet<int>.AlternateLookup<TextKey> _textLookup;
    private bool _lookupsReleased;

    /// <summary>The distinct raw stacks: their ids are 0 to this, less one.</summary>
    public int Count { get; private set; }

    /// <summary>Whether some stack is a raw address stack.</summary>
    public bool HasAddresses => _addresses is not null;

    public int EventIdAt(int id) => _eventIds[id];

    public long CountAt(int id) => _tallies.CountAt(id);

    /// <summary>The event id, then the frames (leaf first); <see langword="null"/> for a text stack or once
    /// released.</summary>
    public ulong[]? AddressesAt(int id) => _addresses?[id];

    /// <summary>The stack text as read; <see langword="null"/> for an address stack or once released.</summary>
    public string? TextAt(int id) => _texts?[id];

    public long FirstLineAt(int id) => _firstLines?[id] ?? 0;

    /// <summary>The earliest event time in ticks, or <see cref="long.MaxValue"/>.</summary>
    public long FirstAt(int id) => _tallies.FirstAt(id);

    /// <summary>The latest event time in ticks, or <see cref="long.MinValue"/>.</summary>
    public long LastAt(int id) => _tallies.LastAt(id);

    public RawDurations? DurationsAt(int id) => _tallies.DurationsAt(id);

    /// <summary>Finds or adds an address stack (key = event id, then the frames); −1 when the cap is reached.</summary>
    public int FindOrAdd(ReadOnlySpan<ulong> key, StackLimitCounter limit)
    {
        if (_byAddresses is null)
        {
            ThrowIfReleased();
            _byAddresses = new HashSet<int>(new AddressIds(this));
            _addressLookup = _byAddresses.GetAlternateLookup<ReadOnlySpan<ulong>>();
        }

        if (_addressLookup.TryGetValue(key, out int id))
        {
            return id;
        }

        if (!limit.TryTake())
        {
            return -1;
        }

        id = Append(unchecked((int)(long)key[0]));
        (_addresses ??= new ulong[]?[_tallies.Capacity])[id] = key.ToArray();
        _byAddresses.Add(id);
        return id;
    }

    /// <summary>Finds or adds a text stack (read from <paramref name="line"/>, 0 when none); −1 when the cap is
    /// reached.</summary>
    public int FindOrAdd(int eventId, string text, StackLimitCounter limit, long line = 0)
    {
        if (_byText is null)
        {
            ThrowIfReleased();
            _byText = new HashSet<int>(new TextIds(this));
            _textLookup = _byText.GetAlternateLookup<TextKey>();
        }

        if (_textLookup.TryGetValue(new TextKey(eventId, text), out int id))
        {
            return id;
        }

        if (!limit.TryTake())
        {
            return -1;
        }

        id = Append(eventId);
        (_texts ??= new string?[_tallies.Capacity])[id] = text;
        if (line != 0)
        {
            (_firstLines ??= new long[_tallies.Capacity])[id] = line;
        }

        _byText.Add(id);
        return id;
    }

    /// <summary>Adds events of a stack: their count, time (or <see cref="long.MinValue"/>), duration and signal
    /// duration (−1 when the event has no such field).</summary>
    public void Add(int id, long count, long ticks, long duration, long signal)
    {
        _tallies.AddCount(id, count);
        if (ticks != long.MinValue && ticks > DateTime.MinValue.Ticks)
        {
            _tallies.AddTimes(id, ticks, ticks);
        }

        _tallies.AddDurations(id, count, duration, signal);
    }

    /// <summary>Lets go of the lookups once every stack is added (the table is read by id from then on).</summary>
    public void ReleaseLookups()
    {
        _lookupsReleased = true;
        _byAddresses = null;
        _addressLookup = default;
        _byText = null;
        _textLookup = default;
    }

    /// <summary>Lets go of a stack's key (its addresses or text) once it is symbolized, so the table's memory is given
    /// back as its stacks are merged: the peak is not the table plus the buckets.</summary>
    public void ReleaseKey(int id)
    {
        if (_addresses is not null)
        {
            _addresses[id] = null;
        }

        if (_texts is not null)
        {
            _texts[id] = null;
        }
    }

    /// <summary>Lets go of every column once the stacks are merged.</summary>
    public void Release()
    {
        ReleaseLookups();
        Count = 0;
        _eventIds = [];
        _tallies.Release();
        _addresses = null;
        _texts = null;
        _firstLines = null;
    }

    private void ThrowIfReleased()
    {
        if (_lookupsReleased)
        {
            throw new InvalidOperationException("The table was symbolized: no stacks can be added.");
        }
    }

    private int Append(int eventId)
    {
        int id = Count;
        if (id == _tallies.Capacity)
        {
            int capacity = Math.Max(16, _tallies.Capacity * 2);
            Array.Resize(ref _eventIds, capacity);
            _tallies.Grow(capacity);
            Grow(ref _addresses, capacity, null);
            Grow(ref _texts, capacity, null);
            Grow(ref _firstLines, capacity, 0);
        }

        _eventIds[id] = eventId;
        Count = id + 1;
        return id;
    }

    private static void Grow<T>(ref T[]? column, int capacity, T empty)
    {
        if (column is not null)
        {
            int old = column.Length;
            Array.Resize(ref column, capacity);
            column.AsSpan(old).Fill(empty);
        }
    }

    /// <summary>A text stack's key: its event id and text.</summary>
    private readonly record struct TextKey(int EventId, string Text);

    /// <summary>Compares the ids of text stacks by event id and text (ordinal), and looks them up by key.</summary>
    private sealed class TextIds(RawStackTable table) : IEqualityComparer<int>, IAlternateEqualityComparer<TextKey, int>
    {
        public bool Equals(int x, int y) =>
            x == y
            || (
                table._eventIds[x] == table._eventIds[y]
                && string.Equals(table._texts![x], table._texts[y], StringComparison.Ordinal)
            );

        public int GetHashCode(int obj) => Hash(table._eventIds[obj], table._texts![obj]!);

        public bool Equals(TextKey alternate, int other) =>
            alternate.EventId == table._eventIds[other]
            && string.Equals(alternate.Text, table._texts![other], StringComparison.Ordinal);

        public int GetHashCode(TextKey alternate) => Hash(alternate.EventId, alternate.Text);

        public int Create(TextKey alternate) => throw new NotSupportedException("The table adds its ids.");

        private static int Hash(int eventId, string text) =>
            HashCode.Combine(eventId, StringComparer.Ordinal.GetHashCode(text));
    }

    /// <summary>Compares the ids of address stacks by their keys' content, and looks them up by span without
    /// allocating.</summary>
    private sealed class AddressIds(RawStackTable table)
        : IEqualityComparer<int>,
            IAlternateEqualityComparer<ReadOnlySpan<ulong>, int>
    {
        public bool Equals(int x, int y) => x == y || table._addresses![x].AsSpan().SequenceEqual(table._addresses[y]);

        public int GetHashCode(int obj) => Hash(table._addresses![obj]);

        public bool Equals(ReadOnlySpan<ulong> alternate, int other) =>
            alternate.SequenceEqual(table._addresses![other]);

        public int GetHashCode(ReadOnlySpan<ulong> alternate) => Hash(alternate);

        public int Create(ReadOnlySpan<ulong> alternate) => throw new NotSupportedException("The table adds its ids.");

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
        // symbolization does, collect it every few thousand stacks rather than let it pile up to the runtime's budget,
        // generation 1 too, since the table keeps what it adds.
        if ((Taken & (StackBucketBuilder.CollectEvery - 1)) == 0)
        {
            StackBucketBuilder.CollectYoung(Taken, generation: 1);
        }

        return true;
    }
}

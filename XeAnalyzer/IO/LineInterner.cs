using System.Numerics;
using System.Runtime.InteropServices;

namespace XeAnalyzer.IO;

/// <summary>
/// A small, bounded table of the text lines an input repeats (a callstack text of 750,000 stacks names a few thousand distinct
/// frames): a line seen before comes back as the same <see cref="Entry"/>, so its string is not allocated again and what was
/// worked out from its text once (<see cref="Entry.Memo"/>, e.g. the frame it parses to) is reused.
/// </summary>
/// <remarks>
/// Bounded in every dimension, so hostile input costs at most a failed probe per line: at most <see cref="MaxEntries"/> lines of at
/// most <see cref="MaxLineLength"/> characters are kept (then the table stops growing), a lookup probes at most
/// <see cref="MaxProbes"/> slots, and when fewer than one line in four is a repeat after the first 65,536 lines the table turns
/// itself off (an input of distinct lines pays for no lookups). Not thread-safe: one per input.
/// </remarks>
internal sealed class LineInterner
{
    /// <summary>The longest line kept.</summary>
    public const int MaxLineLength = 256;

    /// <summary>The most lines kept.</summary>
    public const int MaxEntries = 1 << 13;

    /// <summary>The most slots a lookup probes.</summary>
    public const int MaxProbes = 8;

    private const int InitialSlots = 1 << 10;
    private const int TrialLines = 1 << 16;

    // Open addressing over packed slots (the line's hash in the high half, its index in _entries plus one in the low half), kept at
    // most half full and doubled as lines are added: the table a lookup touches stays as small as the input's distinct lines allow,
    // which matters because a lookup happens for every line.
    private ulong[] _slots = new ulong[InitialSlots];
    private Entry[] _entries = new Entry[InitialSlots / 2];
    private int _count;
    private long _lookups;
    private long _hits;
    private bool _off;

    /// <summary>Returns the entry of <paramref name="line"/> (adding it when there is room), or <see langword="null"/> when the line is not kept: too long, the table full or off, or its probes taken.</summary>
    /// <param name="line">The line's text, without its line break.</param>
    public Entry? Find(ReadOnlySpan<char> line)
    {
        if (_off || line.Length > MaxLineLength)
        {
            return null;
        }

        if (++_lookups == TrialLines && _hits < TrialLines / 4)
        {
            _off = true;
            _slots = [];
            _entries = [];
            return null;
        }

        uint hash = Hash(line);
        ulong[] slots = _slots;
        int mask = slots.Length - 1;
        int slot = (int)(hash & (uint)mask);
        for (int probe = 0; probe < MaxProbes; probe++, slot = (slot + 1) & mask)
        {
            ulong packed = slots[slot];
            if (packed == 0)
            {
                return _count < MaxEntries ? Add(line, hash, slot) : null;
            }

            if ((uint)(packed >> 32) == hash)
            {
                Entry e = _entries[unchecked((int)(uint)packed) - 1];
                if (line.SequenceEqual(e.Text))
                {
                    _hits++;
                    return e;
                }
            }
        }

        return null;
    }

    private Entry Add(ReadOnlySpan<char> line, uint hash, int slot)
    {
        var e = new Entry(line.ToString(), hash);
        if (_count == _entries.Length)
        {
            Array.Resize(ref _entries, _count * 2);
        }

        _entries[_count++] = e;
        _slots[slot] = ((ulong)hash << 32) | (uint)_count;
        if (_count * 2 > _slots.Length)
        {
            Grow();
        }

        return e;
    }

    private void Grow()
    {
        var slots = new ulong[_slots.Length * 2];
        int mask = slots.Length - 1;
        for (int i = 0; i < _count; i++)
        {
            int slot = (int)(_entries[i].Hash & (uint)mask);
            while (slots[slot] != 0)
            {
                slot = (slot + 1) & mask;
            }

            slots[slot] = ((ulong)_entries[i].Hash << 32) | (uint)(i + 1);
        }

        _slots = slots;
    }

    // Every 8-byte word multiplied (independently, so the multiplies overlap) and folded in with a rotation; a final mix spreads the
    // bits. Fast on short ASCII lines; the bounded probing, not the hash, protects against collisions.
    private static uint Hash(ReadOnlySpan<char> line)
    {
        ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes(line);
        ulong h = (ulong)bytes.Length;
        int i = 0;
        for (; i + 8 <= bytes.Length; i += 8)
        {
            h = BitOperations.RotateLeft(h, 23) ^ unchecked(MemoryMarshal.Read<ulong>(bytes[i..]) * 0x9E3779B97F4A7C15UL);
        }

        if (i < bytes.Length)
        {
            ulong tail = 0;
            if (bytes.Length >= 8)
            {
                tail = MemoryMarshal.Read<ulong>(bytes[(bytes.Length - 8)..]);
            }
            else
            {
                foreach (byte x in bytes)
                {
                    tail = (tail << 8) | x;
                }
            }

            h = BitOperations.RotateLeft(h, 23) ^ unchecked(tail * 0xC2B2AE3D27D4EB4FUL);
        }

        h ^= h >> 31;
        h = unchecked(h * 0xBF58476D1CE4E5B9UL);
        return unchecked((uint)(h >> 32));
    }

    /// <summary>A kept line.</summary>
    internal sealed class Entry(string text, uint hash)
    {
        /// <summary>The line's text (one string for every occurrence).</summary>
        public string Text { get; } = text;

        /// <summary>The line's hash (to rebuild the table when it grows).</summary>
        public uint Hash { get; } = hash;

        /// <summary>What the reader worked out from the text alone, for the next occurrence; <see langword="null"/> until set.</summary>
        public object? Memo { get; set; }
    }
}

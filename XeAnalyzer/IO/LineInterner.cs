using System.Numerics;
using System.Runtime.CompilerServices;
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

    // Open addressing over slots that hold what a lookup compares (hash, length, and where the text is in one character arena) and the
    // entry, kept at most half full and doubled as lines are added. A lookup happens for every line, and it is bound by memory latency:
    // a slot and the arena are the only two loads before the answer, and the arena keeps the texts of the table side by side.
    private Slot[] _slots = new Slot[InitialSlots];
    private char[] _arena = new char[InitialSlots * 32];
    private int _arenaUsed;
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
            _arena = [];
            return null;
        }

        uint hash = Hash(line);
        Slot[] slots = _slots;
        int mask = slots.Length - 1;
        int slot = (int)(hash & (uint)mask);
        for (int probe = 0; probe < MaxProbes; probe++, slot = (slot + 1) & mask)
        {
            ref Slot s = ref slots[slot];
            if (s.Entry is null)
            {
                return _count < MaxEntries ? Add(line, hash, slot) : null;
            }

            if (s.Hash == hash && s.Length == line.Length && line.SequenceEqual(_arena.AsSpan(s.Offset, s.Length)))
            {
                _hits++;
                return s.Entry;
            }
        }

        return null;
    }

    private Entry Add(ReadOnlySpan<char> line, uint hash, int slot)
    {
        var e = new Entry(line.ToString());
        if (_arenaUsed + line.Length > _arena.Length)
        {
            Array.Resize(ref _arena, Math.Max(_arena.Length * 2, _arenaUsed + line.Length));
        }

        line.CopyTo(_arena.AsSpan(_arenaUsed));
        _slots[slot] = new Slot(e, hash, _arenaUsed, line.Length);
        _arenaUsed += line.Length;
        _count++;
        if (_count * 2 > _slots.Length)
        {
            Grow();
        }

        return e;
    }

    private void Grow()
    {
        var slots = new Slot[_slots.Length * 2];
        int mask = slots.Length - 1;
        foreach (Slot old in _slots)
        {
            if (old.Entry is null)
            {
                continue;
            }

            int slot = (int)(old.Hash & (uint)mask);
            while (slots[slot].Entry is not null)
            {
                slot = (slot + 1) & mask;
            }

            slots[slot] = old;
        }

        _slots = slots;
    }

    // Every byte goes in, in 8-byte words read without bounds checks (the span's length bounds every read): 32-byte blocks, then the
    // rest as its first and last 16 bytes, which may overlap (the length, mixed in first, tells such lines apart). Each word is
    // multiplied by a constant of its own and the products folded in with rotations, so the multiplies of a block run side by side.
    // About 4 ns for a 29-character frame line (a word-at-a-time chain took 12). Fast on short ASCII lines; the bounded probing, not
    // the hash, protects against collisions.
    private static uint Hash(ReadOnlySpan<char> line)
    {
        unchecked
        {
            ref byte p = ref Unsafe.As<char, byte>(ref MemoryMarshal.GetReference(line));
            int n = line.Length * sizeof(char);
            ulong a = (ulong)n * 0x9E3779B97F4A7C15UL, b = 0x2545F4914F6CDD1DUL;
            if (n >= 16)
            {
                int i = 0;
                for (; n - i > 32; i += 32)
                {
                    ulong c = Word(ref p, i) * 0x9E3779B97F4A7C15UL, d = Word(ref p, i + 8) * 0xC2B2AE3D27D4EB4FUL;
                    ulong e = Word(ref p, i + 16) * 0x165667B19E3779F9UL, f = Word(ref p, i + 24) * 0xD6E8FEB86659FD93UL;
                    a = BitOperations.RotateLeft(a ^ c ^ e, 29);
                    b = BitOperations.RotateLeft(b ^ d ^ f, 31) + a;
                }

                // 1 to 32 bytes are left: the first 16 of them when there are more than 16, and the last 16 bytes (which overlap
                // what came before when fewer are left).
                ulong k = n - i > 16 ? (Word(ref p, i) * 0x94D049BB133111EBUL) ^ (Word(ref p, i + 8) * 0xBF58476D1CE4E5B9UL) : 0;
                a ^= k ^ (Word(ref p, n - 16) * 0xFF51AFD7ED558CCDUL);
                b ^= Word(ref p, n - 8) * 0xC4CEB9FE1A85EC53UL;
            }
            else if (n >= 8)
            {
                a ^= Word(ref p, 0) * 0xFF51AFD7ED558CCDUL;
                b ^= Word(ref p, n - 8) * 0xC4CEB9FE1A85EC53UL;
            }
            else
            {
                ulong tail = 0;
                for (int i = 0; i < n; i++)
                {
                    tail = (tail << 8) | Unsafe.Add(ref p, i);
                }

                a ^= tail * 0xFF51AFD7ED558CCDUL;
            }

            ulong x = a ^ BitOperations.RotateLeft(b, 32);
            x ^= x >> 31;
            x *= 0xBF58476D1CE4E5B9UL;
            return (uint)(x >> 32);
        }
    }

    private static ulong Word(ref byte p, int offset) => Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, offset));

    /// <summary>A used slot: its entry, the line's hash and length, and where its text starts in the arena.</summary>
    private readonly record struct Slot(Entry? Entry, uint Hash, int Offset, int Length);

    /// <summary>A kept line.</summary>
    internal sealed class Entry(string text)
    {
        /// <summary>The line's text (one string for every occurrence).</summary>
        public string Text { get; } = text;

        /// <summary>What the reader worked out from the text alone, for the next occurrence; <see langword="null"/> until set.</summary>
        public object? Memo { get; set; }

        /// <summary>Whether the line starts a SQLDumper stack dump (the stack reader's test, on the text alone); <see langword="null"/> until asked.</summary>
        public bool? IsDumpMarker { get; set; }
    }
}

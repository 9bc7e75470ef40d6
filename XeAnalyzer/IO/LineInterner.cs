using System.Diagnostics.CodeAnalysis;

namespace XeAnalyzer.IO;

/// <summary>
/// A small, bounded table of the text lines an input repeats (a callstack text of 750,000 stacks names a few thousand
/// distinct frames): a line seen before comes back as the same string and the same id, so its string is not allocated
/// again, and a reader keeps what it worked out from the line's text once (the frame it parses to) in an array indexed
/// by the id. Ids are dense: 0, 1, 2, … in the order lines were first kept, below <see cref="MaxEntries"/>.
/// </summary>
/// <remarks>
/// Bounded, so hostile input costs at most one lookup per line: at most <see cref="MaxEntries"/> lines of at most
/// <see cref="MaxLineLength"/> characters are kept (then the table stops growing), and when fewer than one line in four
/// is a repeat after the first 65,536 lines the table turns itself off (an input of distinct lines pays for no
/// lookups). Lines are looked up by span in a <see cref="Dictionary{TKey, TValue}"/>, whose ordinal string comparer
/// turns to randomized hashing by itself when colliding keys pile up. Not thread-safe: one per input.
/// </remarks>
internal sealed class LineInterner
{
    /// <summary>The longest line kept.</summary>
    public const int MaxLineLength = 256;

    /// <summary>The most lines kept.</summary>
    public const int MaxEntries = 1 << 13;

    private const int TrialLines = 1 << 16;

    private readonly Dictionary<string, int> _ids = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int>.AlternateLookup<ReadOnlySpan<char>> _lookup;
    private long _lookups;
    private long _hits;
    private bool _off;

    /// <summary>Creates an empty table.</summary>
    public LineInterner()
    {
        _lookup = _ids.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>
    /// Finds <paramref name="line"/>, adding it when there is room; false when the line is not kept (too long, the
    /// table full or off).
    /// </summary>
    /// <param name="line">The line's text, without its line break.</param>
    /// <param name="text">The kept string (one for every occurrence of the line).</param>
    /// <param name="id">The line's id.</param>
    public bool TryIntern(ReadOnlySpan<char> line, [NotNullWhen(true)] out string? text, out int id)
    {
        if (_off || line.Length > MaxLineLength)
        {
            text = null;
            id = -1;
            return false;
        }

        if (++_lookups == TrialLines && _hits < TrialLines / 4)
        {
            _off = true;
            _ids.Clear();
            _ids.TrimExcess();
            text = null;
            id = -1;
            return false;
        }

        if (_lookup.TryGetValue(line, out text, out id))
        {
            _hits++;
            return true;
        }

        if (_ids.Count >= MaxEntries)
        {
            text = null;
            id = -1;
            return false;
        }

        text = line.ToString();
        id = _ids.Count;
        _ids.Add(text, id);
        return true;
    }

    /// <summary>Grows <paramref name="byId"/>, an array indexed by line id, so it holds
    /// <paramref name="id"/>.</summary>
    public static void EnsureRoom<T>(ref T[] byId, int id)
    {
        if (id >= byId.Length)
        {
            Array.Resize(ref byId, Math.Min(Math.Max(id + 1, Math.Max(256, byId.Length * 2)), MaxEntries));
        }
    }
}

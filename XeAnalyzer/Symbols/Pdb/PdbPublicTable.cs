using System.Text;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The checked <c>S_PUB32</c> records of the publics address map (<see cref="PdbFile"/>'s publics reader), by
/// address-map entry: source RVA and the name, either as a slice of one UTF-8 pool (<see cref="Pool"/> not null) or as
/// its place in the symbol record stream (<see cref="Stream"/>, read on demand); with record fields, also segment,
/// offset and flags (for <see cref="PdbFile.GetPublics"/>).
/// </summary>
internal sealed class PdbPublicRecords
{
    /// <summary>The name length of an entry whose <c>segment:offset</c> maps to no RVA (names are at most 65,522
    /// bytes).</summary>
    public const ushort Unmapped = ushort.MaxValue;

    /// <summary>No publics (a PDB without a publics stream).</summary>
    public static PdbPublicRecords Empty { get; } = new(0, null, [], recordFields: true);

    /// <param name="count">The number of address-map entries.</param>
    /// <param name="stream">The symbol record stream when names stay there (read on demand); <see langword="null"/> to
    /// pool them.</param>
    /// <param name="pool">The pool the names are copied to (at most the stream's size), or empty when
    /// <paramref name="stream"/> is given.</param>
    /// <param name="recordFields">Whether to keep segment, offset and flags.</param>
    public PdbPublicRecords(int count, MsfStream? stream, byte[] pool, bool recordFields)
    {
        Count = count;
        SourceRva = new uint[count];
        NameOffset = new uint[count];
        NameLength = new ushort[count];
        NameLength.AsSpan().Fill(Unmapped);
        Stream = stream;
        Pool = stream is null ? pool : null;
        if (recordFields)
        {
            Segment = new ushort[count];
            Offset = new uint[count];
            Flags = new ushort[count];
        }
    }

    /// <summary>The number of address-map entries.</summary>
    public int Count { get; }

    public uint[] SourceRva { get; }

    /// <summary>Where the name starts: in <see cref="Pool"/>, or in <see cref="Stream"/> when the names stay
    /// there.</summary>
    public uint[] NameOffset { get; }

    /// <summary>The name's length in bytes, or <see cref="Unmapped"/>.</summary>
    public ushort[] NameLength { get; }

    /// <summary>The names (only the first <see cref="PoolLength"/> bytes are used), or <see langword="null"/> when they
    /// stay in <see cref="Stream"/>.</summary>
    public byte[]? Pool { get; }

    /// <summary>The symbol record stream the names are read from on demand, or <see langword="null"/> when they are
    /// pooled.</summary>
    public MsfStream? Stream { get; }

    public int PoolLength { get; set; }

    public ushort[]? Segment { get; }

    public uint[]? Offset { get; }

    public ushort[]? Flags { get; }

    /// <summary>The pooled name of <paramref name="entry"/> (only when the names are pooled).</summary>
    public ReadOnlySpan<byte> Name(int entry) => Pool.AsSpan((int)NameOffset[entry], NameLength[entry]);
}

/// <summary>
/// The publics of one PDB sorted by source RVA, in struct-of-arrays form: 10 bytes per public, plus its name's UTF-8
/// bytes either in one pool or left in the PDB's symbol record stream and read when a lookup returns them (then the
/// table is only valid while the
/// <see cref="PdbFile"/> is open: a 300,000-public PDB holds about 50 MB of names). No object per symbol: names are
/// decoded (and undecorated) only when a lookup returns them. Immutable; safe for concurrent reads (stream reads are
/// positional).
/// </summary>
internal sealed class PdbPublicTable
{
    public static readonly PdbPublicTable Empty = new([], [], [], [], null);

    private readonly uint[] _start;
    private readonly uint[] _nameOffset;
    private readonly ushort[] _nameLength;
    private readonly byte[]? _pool;
    private readonly MsfStream? _stream;

    private PdbPublicTable(uint[] start, uint[] nameOffset, ushort[] nameLength, byte[]? pool, MsfStream? stream)
    {
        _start = start;
        _nameOffset = nameOffset;
        _nameLength = nameLength;
        _pool = pool;
        _stream = stream;
    }

    public int Count => _start.Length;

    /// <summary>Whether names are read from the PDB on demand (the table needs the file open).</summary>
    public bool ReadsNamesFromFile => _stream is not null;

    /// <summary>
    /// Sorts the mapped entries of <paramref name="records"/> by source RVA; entries at the same RVA stay in
    /// address-map order (the position that breaks ties between identical names).
    /// </summary>
    public static PdbPublicTable Build(PdbPublicRecords records)
    {
        int mapped = 0;
        foreach (ushort length in records.NameLength)
        {
            if (length != PdbPublicRecords.Unmapped)
            {
                mapped++;
            }
        }

        ulong[] keys = new ulong[mapped];
        bool sorted = true;
        int k = 0;
        for (int i = 0; i < records.Count; i++)
        {
            if (records.NameLength[i] != PdbPublicRecords.Unmapped)
            {
                keys[k] = ((ulong)records.SourceRva[i] << 32) | (uint)i;
                sorted &= k == 0 || keys[k] > keys[k - 1];
                k++;
            }
        }

        if (!sorted)
        {
            Array.Sort(keys);
        }

        uint[] start = new uint[mapped];
        uint[] nameOffset = new uint[mapped];
        ushort[] nameLength = new ushort[mapped];
        for (k = 0; k < keys.Length; k++)
        {
            int entry = unchecked((int)(uint)keys[k]);
            start[k] = (uint)(keys[k] >> 32);
            nameOffset[k] = records.NameOffset[entry];
            nameLength[k] = records.NameLength[entry];
        }

        return new PdbPublicTable(start, nameOffset, nameLength, records.Pool, records.Stream);
    }

    /// <summary>The source RVA of the public at sorted position <paramref name="index"/>.</summary>
    public uint Start(int index) => _start[index];

    /// <summary>The length in bytes of the stored name of the public at sorted position
    /// <paramref name="index"/>.</summary>
    public int NameLength(int index) => _nameLength[index];

    /// <summary>
    /// The stored (decorated) name of the public at sorted position <paramref name="index"/>, as UTF-8: a slice of the
    /// pool, or read from the PDB into <paramref name="scratch"/> (into a new array when it is shorter than
    /// <see cref="NameLength"/>).
    /// </summary>
    /// <exception cref="InvalidPdbDataException">The file was truncated since the table was built.</exception>
    /// <exception cref="ObjectDisposedException">The names are read from the file, and it is closed.</exception>
    public ReadOnlySpan<byte> NameBytes(int index, Span<byte> scratch)
    {
        int length = _nameLength[index];
        if (_pool is not null)
        {
            return _pool.AsSpan((int)_nameOffset[index], length);
        }

        Span<byte> destination = length <= scratch.Length ? scratch[..length] : new byte[length];
        _stream!.Read(_nameOffset[index], destination);
        return destination;
    }

    public string Name(int index) => Encoding.UTF8.GetString(NameBytes(index, stackalloc byte[256]));

    /// <summary>The position of the last public starting at or before <paramref name="source"/>, or -1.</summary>
    public int LastAtOrBefore(uint source) => PdbSymbolIndex.UpperBound(_start, source) - 1;
}

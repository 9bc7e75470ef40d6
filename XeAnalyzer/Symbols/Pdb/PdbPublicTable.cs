using System.Text;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The checked <c>S_PUB32</c> records of the publics address map (<see cref="PdbFile"/>'s publics reader), by address-map entry: source
/// RVA and the name as a slice of one UTF-8 pool; with record fields, also segment, offset and flags (for <see cref="PdbFile.GetPublics"/>).
/// </summary>
internal sealed class PdbPublicRecords
{
    /// <summary>The name length of an entry whose <c>segment:offset</c> maps to no RVA (names are at most 65,522 bytes).</summary>
    public const ushort Unmapped = ushort.MaxValue;

    public static readonly PdbPublicRecords Empty = new(0, 0, recordFields: true);

    public PdbPublicRecords(int count, long poolCapacity, bool recordFields)
    {
        Count = count;
        SourceRva = new uint[count];
        NameOffset = new uint[count];
        NameLength = new ushort[count];
        NameLength.AsSpan().Fill(Unmapped);
        Pool = GC.AllocateUninitializedArray<byte>((int)poolCapacity);
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

    public uint[] NameOffset { get; }

    /// <summary>The name's length in bytes, or <see cref="Unmapped"/>.</summary>
    public ushort[] NameLength { get; }

    /// <summary>The names (only the first <see cref="PoolLength"/> bytes are used).</summary>
    public byte[] Pool { get; }

    public int PoolLength { get; set; }

    public ushort[]? Segment { get; }

    public uint[]? Offset { get; }

    public ushort[]? Flags { get; }

    public ReadOnlySpan<byte> Name(int entry) => Pool.AsSpan((int)NameOffset[entry], NameLength[entry]);
}

/// <summary>
/// The publics of one PDB sorted by source RVA, in struct-of-arrays form: 10 bytes per public plus its name's UTF-8 bytes in one pool.
/// No object per symbol: names are decoded (and undecorated) only when a lookup returns them. Immutable; safe for concurrent reads.
/// </summary>
internal sealed class PdbPublicTable
{
    public static readonly PdbPublicTable Empty = new([], [], [], []);

    private readonly uint[] _start;
    private readonly uint[] _nameOffset;
    private readonly ushort[] _nameLength;
    private readonly byte[] _pool;

    private PdbPublicTable(uint[] start, uint[] nameOffset, ushort[] nameLength, byte[] pool)
    {
        _start = start;
        _nameOffset = nameOffset;
        _nameLength = nameLength;
        _pool = pool;
    }

    public int Count => _start.Length;

    /// <summary>
    /// Sorts the mapped entries of <paramref name="records"/> by source RVA; entries at the same RVA stay in address-map order (the
    /// position that breaks ties between identical names).
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

        return new PdbPublicTable(start, nameOffset, nameLength, records.Pool);
    }

    /// <summary>The source RVA of the public at sorted position <paramref name="index"/>.</summary>
    public uint Start(int index) => _start[index];

    /// <summary>The stored (decorated) name of the public at sorted position <paramref name="index"/>, as UTF-8.</summary>
    public ReadOnlySpan<byte> NameBytes(int index) => _pool.AsSpan((int)_nameOffset[index], _nameLength[index]);

    public string Name(int index) => Encoding.UTF8.GetString(NameBytes(index));

    /// <summary>The position of the last public starting at or before <paramref name="source"/>, or -1.</summary>
    public int LastAtOrBefore(uint source) => PdbSymbolIndex.UpperBound(_start, source) - 1;
}

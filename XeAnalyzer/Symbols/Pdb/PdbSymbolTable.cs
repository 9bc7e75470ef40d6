using System.Buffers;
using System.Text;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>One symbol as parsed, before it is turned into a public type: addresses plus a slice of the shared UTF-8
/// name pool.</summary>
internal readonly record struct RawSymbol(
    uint SourceRva,
    uint ImageRva,
    uint Size,
    uint Offset,
    ushort Segment,
    ushort Flags,
    bool IsGlobal,
    int Module,
    int NameStart,
    int NameLength,
    PdbNameDecoration Decoration
);

/// <summary>Parsed procedures: compact structs plus one UTF-8 name pool, so large PDBs do not create a string per
/// symbol until asked.</summary>
internal sealed class PdbSymbolTable
{
    public static readonly PdbSymbolTable Empty = new([], []);

    public PdbSymbolTable(RawSymbol[] items, byte[] names)
    {
        Items = items;
        Names = names;
    }

    public RawSymbol[] Items { get; }

    public byte[] Names { get; }

    public ReadOnlySpan<byte> NameBytes(int index) => Names.AsSpan(Items[index].NameStart, Items[index].NameLength);

    public string Name(int index) => Encoding.UTF8.GetString(NameBytes(index));

    /// <summary>Accumulates symbols, copying each name into the table's own pool.</summary>
    internal sealed class Builder
    {
        private readonly ArrayBufferWriter<byte> _names = new();
        private RawSymbol[] _items = new RawSymbol[16];
        private int _count;

        public int Count => _count;

        /// <summary>Total bytes of the names added so far.</summary>
        public long NameBytes { get; private set; }

        public void Add(
            uint sourceRva,
            uint imageRva,
            uint size,
            uint offset,
            ushort segment,
            ushort flags,
            bool isGlobal,
            int module,
            ReadOnlySpan<byte> name,
            PdbNameDecoration decoration
        )
        {
            int start = _names.WrittenCount;
            _names.Write(name);
            Append(
                new RawSymbol(
                    sourceRva,
                    imageRva,
                    size,
                    offset,
                    segment,
                    flags,
                    isGlobal,
                    module,
                    start,
                    name.Length,
                    decoration
                )
            );
        }

        public PdbSymbolTable Build()
        {
            Array.Resize(ref _items, _count);
            return new PdbSymbolTable(_items, _names.WrittenSpan.ToArray());
        }

        private void Append(in RawSymbol symbol)
        {
            if (_count == _items.Length)
            {
                Array.Resize(ref _items, _items.Length * 2);
            }

            _items[_count++] = symbol;
            NameBytes += symbol.NameLength;
        }
    }
}

/// <summary>Classifies stored names (see <see cref="PdbNameDecoration"/>).</summary>
internal static class PdbNames
{
    public static PdbNameDecoration Classify(ReadOnlySpan<byte> name, bool isPublic, bool isX86)
    {
        if (name.Length > 0 && name[0] == (byte)'?')
        {
            return PdbNameDecoration.Msvc;
        }

        if (!isPublic || name.Length < 2)
        {
            return PdbNameDecoration.None;
        }

        // vectorcall: name@@N on any machine.
        int at2 = name.IndexOf("@@"u8);
        if (at2 > 0 && IsDigits(name[(at2 + 2)..]))
        {
            return PdbNameDecoration.CallingConvention;
        }

        if (!isX86)
        {
            return PdbNameDecoration.None;
        }

        int lastAt = name.LastIndexOf((byte)'@');
        if (name[0] == (byte)'@')
        {
            // fastcall: @name@N
            return lastAt > 0 && IsDigits(name[(lastAt + 1)..])
                ? PdbNameDecoration.CallingConvention
                : PdbNameDecoration.None;
        }

        if (name[0] == (byte)'_')
        {
            // cdecl _name or stdcall _name@N
            return lastAt < 0 || IsDigits(name[(lastAt + 1)..])
                ? PdbNameDecoration.CallingConvention
                : PdbNameDecoration.None;
        }

        return PdbNameDecoration.None;
    }

    private static bool IsDigits(ReadOnlySpan<byte> s)
    {
        if (s.IsEmpty)
        {
            return false;
        }

        foreach (byte b in s)
        {
            if (b is < (byte)'0' or > (byte)'9')
            {
                return false;
            }
        }

        return true;
    }
}

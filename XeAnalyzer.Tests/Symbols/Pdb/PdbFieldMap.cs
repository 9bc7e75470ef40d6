using System.Buffers.Binary;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>What a swept integer field holds, which decides its "just past the end" value.</summary>
internal enum PdbFieldKind
{
    /// <summary>A byte size, offset or count: past the end is the file length + 1.</summary>
    Bytes,

    /// <summary>An MSF block index: past the end is the file's block count.</summary>
    Block,

    /// <summary>An MSF stream index: past the end is the directory's stream count.</summary>
    Stream,

    /// <summary>A 1-based section number: past the end is the section count + 1.</summary>
    Section,
}

/// <summary>One integer field of a PDB: where its bytes are in the file (a stream field may straddle blocks), its width
/// and kind.</summary>
/// <param name="Name">Which field, for failure messages (<c>DBI header +24 (module-info size)</c>).</param>
/// <param name="FileOffsets">The file offset of each byte of the field, little-endian order.</param>
/// <param name="Kind">What the field holds.</param>
internal sealed record PdbField(string Name, long[] FileOffsets, PdbFieldKind Kind)
{
    public int Width => FileOffsets.Length;

    public ulong Max => Width == 2 ? ushort.MaxValue : uint.MaxValue;
}

/// <summary>
/// Enumerates the integer fields of an MSF 7.0 PDB for the sweeps: the superblock, the directory's block map, the
/// stream directory (stream count, sizes, block indices), the PDB info stream, the DBI header and its substream sizes,
/// the optional debug header slots, module-info records, section headers, the publics (PSGSI and GSI hash) header and
/// address map, the globals GSI header, and the symbol records (<c>S_PUB32</c> and every record's length and kind in
/// the symbol record stream; procedure records in module streams). Written for the tests from the format description,
/// independently of the library's reader.
/// </summary>
internal sealed class PdbFieldMap
{
    private readonly byte[] _file;
    private readonly int _blockSize;
    private readonly List<uint[]> _blocks = [];
    private readonly List<long> _sizes = [];

    private PdbFieldMap(byte[] file)
    {
        _file = file;
        _blockSize = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(32));
        NumBlocks = BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(40));
    }

    public uint NumBlocks { get; }

    public int StreamCount => _sizes.Count;

    public int SectionCount { get; private set; }

    public List<PdbField> Fields { get; } = [];

    public static PdbFieldMap Build(byte[] file, int maxRecordsPerStream = 24)
    {
        var map = new PdbFieldMap(file);
        map.Enumerate(maxRecordsPerStream);
        return map;
    }

    /// <summary>The values each field is swept with: 0, 1, max−1, max and just past the end (distinct, within the
    /// field's width).</summary>
    public IEnumerable<ulong> ValuesFor(PdbField field)
    {
        ulong pastEnd = field.Kind switch
        {
            PdbFieldKind.Block => NumBlocks,
            PdbFieldKind.Stream => (ulong)StreamCount,
            PdbFieldKind.Section => (ulong)SectionCount + 1,
            _ => (ulong)_file.Length + 1,
        };
        var values = new List<ulong> { 0, 1, field.Max - 1, field.Max };
        if (pastEnd <= field.Max)
        {
            values.Add(pastEnd);
        }

        return values.Distinct();
    }

    /// <summary>A copy of the file with <paramref name="field"/> set to <paramref name="value"/>.</summary>
    public byte[] With(PdbField field, ulong value)
    {
        byte[] copy = (byte[])_file.Clone();
        for (int i = 0; i < field.Width; i++)
        {
            copy[field.FileOffsets[i]] = (byte)(value >> (8 * i));
        }

        return copy;
    }

    private void Enumerate(int maxRecords)
    {
        string[] superblock =
        [
            "block size",
            "free block map block",
            "block count",
            "directory bytes",
            "unknown",
            "block map address",
        ];
        for (int i = 0; i < superblock.Length; i++)
        {
            Raw(
                "superblock +" + (32 + (i * 4)) + " (" + superblock[i] + ")",
                32 + (i * 4),
                4,
                i is 1 or 5 ? PdbFieldKind.Block : PdbFieldKind.Bytes
            );
        }

        // The directory: its block list sits in the block-map block(s).
        int dirBytes = BinaryPrimitives.ReadInt32LittleEndian(_file.AsSpan(44));
        uint mapBlock = BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan(52));
        int dirBlocks = (dirBytes + _blockSize - 1) / _blockSize;
        uint[] dirBlockList = new uint[dirBlocks];
        for (int i = 0; i < dirBlocks; i++)
        {
            long at = ((long)mapBlock * _blockSize) + (i * 4L);
            dirBlockList[i] = BinaryPrimitives.ReadUInt32LittleEndian(_file.AsSpan((int)at));
            Raw("block map entry " + i + " (directory block)", at, 4, PdbFieldKind.Block);
        }

        _blocks.Add(dirBlockList); // stream -1 is kept at index 0 while reading the directory
        _sizes.Add(dirBytes);
        byte[] dir = ReadStream(0);
        Stream(0, "directory", 0, 4, PdbFieldKind.Bytes, "stream count");
        int n = BinaryPrimitives.ReadInt32LittleEndian(dir);
        int pos = 4 + (4 * n);
        var blocks = new List<uint[]>();
        var sizes = new List<long>();
        for (int s = 0; s < n; s++)
        {
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(dir.AsSpan(4 + (4 * s)));
            Stream(0, "directory", 4 + (4 * s), 4, PdbFieldKind.Bytes, "size of stream " + s);
            int count = size == uint.MaxValue ? 0 : (int)((size + (uint)_blockSize - 1) / (uint)_blockSize);
            uint[] list = new uint[count];
            for (int k = 0; k < count; k++)
            {
                list[k] = BinaryPrimitives.ReadUInt32LittleEndian(dir.AsSpan(pos));
                Stream(0, "directory", pos, 4, PdbFieldKind.Block, "block " + k + " of stream " + s);
                pos += 4;
            }

            blocks.Add(list);
            sizes.Add(size == uint.MaxValue ? 0 : size);
        }

        // From here on, stream indices are the PDB's own.
        _blocks.Clear();
        _sizes.Clear();
        _blocks.AddRange(blocks);
        _sizes.AddRange(sizes);

        string[] info = ["version", "signature", "age"];
        for (int i = 0; i < info.Length && _sizes.Count > 1 && _sizes[1] >= 12; i++)
        {
            Stream(1, "PDB info", i * 4, 4, PdbFieldKind.Bytes, info[i]);
        }

        if (_sizes.Count <= 3 || _sizes[3] < 64)
        {
            return;
        }

        byte[] dbi = ReadStream(3);
        (int Offset, int Width, PdbFieldKind Kind, string Name)[] header =
        [
            (0, 4, PdbFieldKind.Bytes, "version signature"),
            (4, 4, PdbFieldKind.Bytes, "version"),
            (8, 4, PdbFieldKind.Bytes, "age"),
            (12, 2, PdbFieldKind.Stream, "globals stream"),
            (14, 2, PdbFieldKind.Bytes, "build number"),
            (16, 2, PdbFieldKind.Stream, "publics stream"),
            (18, 2, PdbFieldKind.Bytes, "PDB DLL version"),
            (20, 2, PdbFieldKind.Stream, "symbol record stream"),
            (22, 2, PdbFieldKind.Bytes, "PDB DLL rebuild"),
            (24, 4, PdbFieldKind.Bytes, "module-info size"),
            (28, 4, PdbFieldKind.Bytes, "section-contribution size"),
            (32, 4, PdbFieldKind.Bytes, "section-map size"),
            (36, 4, PdbFieldKind.Bytes, "file-info size"),
            (40, 4, PdbFieldKind.Bytes, "type-server-map size"),
            (44, 4, PdbFieldKind.Bytes, "MFC type server"),
            (48, 4, PdbFieldKind.Bytes, "optional debug header size"),
            (52, 4, PdbFieldKind.Bytes, "EC size"),
            (56, 2, PdbFieldKind.Bytes, "flags"),
            (58, 2, PdbFieldKind.Bytes, "machine"),
            (60, 4, PdbFieldKind.Bytes, "padding"),
        ];
        foreach ((int o, int w, PdbFieldKind k, string name) in header)
        {
            Stream(3, "DBI header", o, w, k, name);
        }

        int moduleInfo = BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(24));
        int debugOffset = 64;
        foreach (int o in new[] { 24, 28, 32, 36, 40, 52 })
        {
            debugOffset += BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(o));
        }

        int debugSize = BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(48));
        var slots = new int?[Math.Min(debugSize / 2, 11)];
        for (int i = 0; i < slots.Length; i++)
        {
            ushort v = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(debugOffset + (2 * i)));
            slots[i] = v == 0xFFFF ? null : v;
            Stream(3, "DBI optional debug header", debugOffset + (2 * i), 2, PdbFieldKind.Stream, "slot " + i);
        }

        var moduleStreams = new List<(int Stream, int SymBytes)>();
        int m = 64;
        int index = 0;
        while (m + 64 <= 64 + moduleInfo)
        {
            (int Offset, int Width, PdbFieldKind Kind, string Name)[] module =
            [
                (0, 4, PdbFieldKind.Bytes, "unused"),
                (4, 2, PdbFieldKind.Section, "contribution section"),
                (8, 4, PdbFieldKind.Bytes, "contribution offset"),
                (12, 4, PdbFieldKind.Bytes, "contribution size"),
                (16, 4, PdbFieldKind.Bytes, "contribution characteristics"),
                (20, 2, PdbFieldKind.Bytes, "contribution module"),
                (32, 2, PdbFieldKind.Bytes, "flags"),
                (34, 2, PdbFieldKind.Stream, "symbol stream"),
                (36, 4, PdbFieldKind.Bytes, "symbol bytes"),
                (40, 4, PdbFieldKind.Bytes, "C11 bytes"),
                (44, 4, PdbFieldKind.Bytes, "C13 bytes"),
                (48, 2, PdbFieldKind.Bytes, "source files"),
                (52, 4, PdbFieldKind.Bytes, "file name offset"),
                (56, 4, PdbFieldKind.Bytes, "source file name index"),
                (60, 4, PdbFieldKind.Bytes, "PDB path index"),
            ];
            foreach ((int o, int w, PdbFieldKind k, string name) in module)
            {
                Stream(3, "DBI module " + index, m + o, w, k, name);
            }

            ushort stream = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(m + 34));
            int symBytes = BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(m + 36));
            if (stream != 0xFFFF)
            {
                moduleStreams.Add((stream, symBytes));
            }

            int p = Array.IndexOf(dbi, (byte)0, m + 64) + 1;
            p = Array.IndexOf(dbi, (byte)0, p) + 1;
            m = (p + 3) & ~3;
            index++;
        }

        if (slots.Length > 5 && slots[5] is int sectionStream && sectionStream < _sizes.Count)
        {
            SectionCount = (int)(_sizes[sectionStream] / 40);
            (int Offset, int Width, string Name)[] section =
            [
                (8, 4, "virtual size"),
                (12, 4, "virtual address"),
                (16, 4, "raw data size"),
                (20, 4, "raw data pointer"),
                (24, 4, "relocations pointer"),
                (28, 4, "line numbers pointer"),
                (32, 2, "relocation count"),
                (34, 2, "line number count"),
                (36, 4, "characteristics"),
            ];
            for (int s = 0; s < SectionCount; s++)
            {
                foreach ((int o, int w, string name) in section)
                {
                    Stream(sectionStream, "section header " + s, (s * 40) + o, w, PdbFieldKind.Bytes, name);
                }
            }
        }

        int publics = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(16));
        if (publics < _sizes.Count && _sizes[publics] >= 44)
        {
            (int Offset, int Width, PdbFieldKind Kind, string Name)[] psgsi =
            [
                (0, 4, PdbFieldKind.Bytes, "symbol hash size"),
                (4, 4, PdbFieldKind.Bytes, "address map size"),
                (8, 4, PdbFieldKind.Bytes, "thunk count"),
                (12, 4, PdbFieldKind.Bytes, "thunk size"),
                (16, 2, PdbFieldKind.Section, "thunk table section"),
                (18, 2, PdbFieldKind.Bytes, "padding"),
                (20, 4, PdbFieldKind.Bytes, "thunk table offset"),
                (24, 4, PdbFieldKind.Bytes, "section count"),
                (28, 4, PdbFieldKind.Bytes, "GSI signature"),
                (32, 4, PdbFieldKind.Bytes, "GSI version"),
                (36, 4, PdbFieldKind.Bytes, "GSI hash records size"),
                (40, 4, PdbFieldKind.Bytes, "GSI buckets size"),
            ];
            foreach ((int o, int w, PdbFieldKind k, string name) in psgsi)
            {
                Stream(publics, "publics header", o, w, k, name);
            }

            byte[] pub = ReadStream(publics);
            long mapAt = 28L + BinaryPrimitives.ReadUInt32LittleEndian(pub);
            uint mapSize = BinaryPrimitives.ReadUInt32LittleEndian(pub.AsSpan(4));
            for (int e = 0; e < Math.Min(mapSize / 4, (uint)maxRecords) && mapAt + (4 * e) + 4 <= pub.Length; e++)
            {
                Stream(publics, "publics address map", (int)mapAt + (4 * e), 4, PdbFieldKind.Bytes, "entry " + e);
            }
        }

        int globals = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(12));
        if (globals < _sizes.Count && _sizes[globals] >= 16)
        {
            string[] gsi = ["signature", "version", "hash records size", "buckets size"];
            for (int i = 0; i < gsi.Length; i++)
            {
                Stream(globals, "globals GSI header", i * 4, 4, PdbFieldKind.Bytes, gsi[i]);
            }
        }

        int records = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(20));
        if (records < _sizes.Count)
        {
            byte[] rec = ReadStream(records);
            int at = 0;
            for (int r = 0; r < maxRecords && at + 4 <= rec.Length; r++)
            {
                ushort length = BinaryPrimitives.ReadUInt16LittleEndian(rec.AsSpan(at));
                ushort kind = BinaryPrimitives.ReadUInt16LittleEndian(rec.AsSpan(at + 2));
                Stream(records, "symbol record " + r, at, 2, PdbFieldKind.Bytes, "length");
                Stream(records, "symbol record " + r, at + 2, 2, PdbFieldKind.Bytes, "kind");
                if (kind == 0x110E && length >= 12)
                {
                    Stream(records, "S_PUB32 " + r, at + 4, 4, PdbFieldKind.Bytes, "flags");
                    Stream(records, "S_PUB32 " + r, at + 8, 4, PdbFieldKind.Bytes, "offset");
                    Stream(records, "S_PUB32 " + r, at + 12, 2, PdbFieldKind.Section, "segment");
                }

                at += 2 + length;
            }
        }

        foreach ((int stream, int symBytes) in moduleStreams)
        {
            if (stream >= _sizes.Count || symBytes < 4 || symBytes > _sizes[stream])
            {
                continue;
            }

            byte[] data = ReadStream(stream);
            Stream(stream, "module symbols", 0, 4, PdbFieldKind.Bytes, "signature");
            int at = 4;
            for (int r = 0; r < maxRecords && at + 4 <= symBytes; r++)
            {
                ushort length = BinaryPrimitives.ReadUInt16LittleEndian(data.AsSpan(at));
                ushort kind = BinaryPrimitives.ReadUInt16LittleEndian(data.AsSpan(at + 2));
                Stream(stream, "module record " + r, at, 2, PdbFieldKind.Bytes, "length");
                Stream(stream, "module record " + r, at + 2, 2, PdbFieldKind.Bytes, "kind");
                if (kind is 0x110F or 0x1110 or 0x1146 or 0x1147 && length >= 37)
                {
                    (int Offset, int Width, PdbFieldKind Kind, string Name)[] proc =
                    [
                        (4, 4, PdbFieldKind.Bytes, "parent"),
                        (8, 4, PdbFieldKind.Bytes, "end"),
                        (12, 4, PdbFieldKind.Bytes, "next"),
                        (16, 4, PdbFieldKind.Bytes, "code size"),
                        (20, 4, PdbFieldKind.Bytes, "debug start"),
                        (24, 4, PdbFieldKind.Bytes, "debug end"),
                        (28, 4, PdbFieldKind.Bytes, "type"),
                        (32, 4, PdbFieldKind.Bytes, "code offset"),
                        (36, 2, PdbFieldKind.Section, "segment"),
                    ];
                    foreach ((int o, int w, PdbFieldKind k, string name) in proc)
                    {
                        Stream(stream, "procedure record " + r, at + o, w, k, name);
                    }
                }

                if (length < 2)
                {
                    break;
                }

                at += 2 + length;
            }
        }
    }

    private void Raw(string name, long offset, int width, PdbFieldKind kind)
    {
        if (offset + width <= _file.Length)
        {
            Fields.Add(new PdbField(name, [.. Enumerable.Range(0, width).Select(i => offset + i)], kind));
        }
    }

    private void Stream(int stream, string what, int offset, int width, PdbFieldKind kind, string name)
    {
        if (offset < 0 || offset + width > _sizes[stream])
        {
            return;
        }

        var offsets = new long[width];
        for (int i = 0; i < width; i++)
        {
            int p = offset + i;
            offsets[i] = ((long)_blocks[stream][p / _blockSize] * _blockSize) + (p % _blockSize);
        }

        string where = stream == 0 && what == "directory" ? "directory" : what + " (stream " + stream + ")";
        Fields.Add(new PdbField(where + " +" + offset + " (" + name + ")", offsets, kind));
    }

    private byte[] ReadStream(int stream)
    {
        byte[] data = new byte[_sizes[stream]];
        for (int p = 0; p < data.Length; p += _blockSize)
        {
            int n = (int)Math.Min(_blockSize, data.Length - p);
            _file.AsSpan((int)((long)_blocks[stream][p / _blockSize] * _blockSize), n).CopyTo(data.AsSpan(p));
        }

        return data;
    }
}

using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The source information of one module (compiland) stream, parsed once on first use: its C13 line table (<c>DEBUG_S_LINES</c>),
/// file checksums (<c>DEBUG_S_FILECHKSMS</c>, file id → <c>/names</c> offset), inlinee base lines (<c>DEBUG_S_INLINEELINES</c>) and the
/// inline sites of its procedures (<c>S_INLINESITE</c>/<c>S_INLINESITE2</c>, nested through their parent pointers) with their code ranges.
/// Addresses are source RVAs (the pre-OMAP space of the PDB's symbols). Immutable once built.
/// </summary>
internal sealed class PdbModuleSourceInfo
{
    private const uint DebugSLines = 0xF2;
    private const uint DebugSFileChecksums = 0xF4;
    private const uint DebugSInlineeLines = 0xF6;
    private const uint SubsectionIgnore = 0x80000000;

    private const ushort SInlineSite = 0x114D;
    private const ushort SInlineSite2 = 0x115D;

    public static readonly PdbModuleSourceInfo Empty = new(-1, [], [], [], [], [], []);

    private readonly LineEntry[] _lines;
    private readonly Procedure[] _procedures;
    private readonly Site[] _sites;

    private PdbModuleSourceInfo(int module, LineEntry[] lines, Procedure[] procedures, Site[] sites,
        Dictionary<uint, uint> fileNames, Dictionary<uint, (uint File, uint Line)> inlinees, IReadOnlyList<PdbLineRecordRaw> records)
    {
        ModuleIndex = module;
        _lines = lines;
        _procedures = procedures;
        _sites = sites;
        FileNames = fileNames;
        Inlinees = inlinees;
        Records = records;
    }

    public int ModuleIndex { get; }

    /// <summary>File checksum offset → <c>/names</c> offset.</summary>
    public Dictionary<uint, uint> FileNames { get; }

    /// <summary>Inlinee function id → its file (checksum offset) and base line.</summary>
    public Dictionary<uint, (uint File, uint Line)> Inlinees { get; }

    /// <summary>Every line record, in subsection then address order (lengths computed).</summary>
    public IReadOnlyList<PdbLineRecordRaw> Records { get; }

    /// <summary>The line record covering <paramref name="source"/> (a source RVA), if any.</summary>
    public LineEntry? FindLine(uint source)
    {
        int i = UpperBound(_lines, source) - 1;

        // Zero-length records (an earlier record at the same address) never cover anything: the last one at an address is the real one.
        while (i >= 0 && _lines[i].Length == 0)
        {
            i--;
        }

        if (i < 0 || (ulong)source >= (ulong)_lines[i].Start + _lines[i].Length)
        {
            return null;
        }

        return _lines[i];
    }

    /// <summary>The inline sites containing <paramref name="source"/>, outermost first, each with the range that holds it.</summary>
    public List<(Site Site, InlineRange Range, uint BlockStart)> FindInlineChain(uint source)
    {
        var chain = new List<(Site, InlineRange, uint)>();
        int p = ProcedureIndex(source);
        if (p < 0)
        {
            return chain;
        }

        Procedure proc = _procedures[p];
        uint offset = source - proc.Start;
        int parent = -1;
        bool descended = true;
        while (descended)
        {
            descended = false;
            for (int s = proc.FirstSite; s < proc.FirstSite + proc.SiteCount; s++)
            {
                Site site = _sites[s];
                if (site.Parent != parent)
                {
                    continue;
                }

                int r = site.RangeContaining(offset);
                if (r >= 0)
                {
                    chain.Add((site, site.Ranges[r], proc.Start + site.BlockStart(r)));
                    parent = s;
                    descended = true;
                    break;
                }
            }
        }

        return chain;
    }

    private int ProcedureIndex(uint source)
    {
        int lo = 0, hi = _procedures.Length;
        while (lo < hi)
        {
            int mid = lo + ((hi - lo) >> 1);
            if (_procedures[mid].Start <= source)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        // The procedure with the greatest start at or before the address that contains it (procedures do not nest in practice).
        for (int i = lo - 1; i >= 0 && lo - i <= 64; i--)
        {
            if ((ulong)source < (ulong)_procedures[i].Start + _procedures[i].Size)
            {
                return i;
            }
        }

        return -1;
    }

    private static int UpperBound(LineEntry[] lines, uint value)
    {
        int lo = 0, hi = lines.Length;
        while (lo < hi)
        {
            int mid = lo + ((hi - lo) >> 1);
            if (lines[mid].Start <= value)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    /// <summary>Parses module <paramref name="module"/>'s stream.</summary>
    /// <exception cref="InvalidPdbDataException">The stream's sizes, subsections, line blocks or inline annotations are damaged.</exception>
    public static PdbModuleSourceInfo Parse(PdbFile pdb, PdbModule module, PdbAddressMap map, CancellationToken cancellationToken)
    {
        if (module.SymbolStreamIndex is not int index)
        {
            return Empty;
        }

        MsfStream stream = pdb.Msf.GetStream(index)
            ?? throw new InvalidPdbDataException(pdb.Name, null, string.Create(CultureInfo.InvariantCulture, $"expected the symbol stream {index} of module {module.Index} ('{module.ModuleName}'), but that stream is absent"));
        string description = string.Create(CultureInfo.InvariantCulture, $"symbol stream of module {module.Index} ('{module.ModuleName}')");
        long c13Start = (long)module.SymbolByteSize + module.C11LineByteSize;
        if (c13Start + module.C13LineByteSize > stream.Length)
        {
            throw stream.Error(0, description, string.Create(CultureInfo.InvariantCulture,
                $"symbols ({module.SymbolByteSize} bytes), C11 lines ({module.C11LineByteSize}) and C13 lines ({module.C13LineByteSize}) within the stream's {stream.Length} bytes"));
        }

        var fileNames = new Dictionary<uint, uint>();
        var inlinees = new Dictionary<uint, (uint, uint)>();
        var lines = new List<LineEntry>();
        var records = new List<PdbLineRecordRaw>();
        if (module.C13LineByteSize > 0)
        {
            byte[] c13 = stream.ReadRange(c13Start, module.C13LineByteSize, pdb.Limits.MaxStreamBytes, "C13 debug subsections");
            ReadSubsections(pdb, module, new SpanReader(c13, stream, c13Start, description), map, fileNames, inlinees, lines, records, cancellationToken);
        }

        var procedures = new List<Procedure>();
        var sites = new List<Site>();
        if (module.SymbolByteSize >= 4)
        {
            byte[] symbols = stream.ReadRange(0, module.SymbolByteSize, pdb.Limits.MaxStreamBytes, "module symbols");
            ReadInlineSites(pdb, symbols, stream, description, map, procedures, sites, cancellationToken);
        }

        LineEntry[] sortedLines = [.. lines];
        Array.Sort(sortedLines, static (a, b) => a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.Order.CompareTo(b.Order));
        return new PdbModuleSourceInfo(module.Index, sortedLines, [.. procedures], [.. sites], fileNames, inlinees, records.AsReadOnly());
    }

    private static void ReadSubsections(PdbFile pdb, PdbModule module, SpanReader r, PdbAddressMap map, Dictionary<uint, uint> fileNames,
        Dictionary<uint, (uint, uint)> inlinees, List<LineEntry> lines, List<PdbLineRecordRaw> records, CancellationToken ct)
    {
        while (r.Remaining > 0)
        {
            ct.ThrowIfCancellationRequested();
            if (r.Remaining < 8)
            {
                // Trailing padding shorter than a subsection header.
                break;
            }

            int start = r.Position;
            uint kind = r.ReadUInt32("debug subsection kind");
            uint length = r.ReadUInt32("debug subsection length");
            if (length > (uint)r.Remaining)
            {
                throw r.Error(start + 4, string.Create(CultureInfo.InvariantCulture, $"a debug subsection (kind 0x{kind:X}) of at most {r.Remaining} bytes, found a length of {length}"));
            }

            int dataStart = r.Position;
            ReadOnlySpan<byte> data = r.Advance((int)length, "debug subsection data");
            if ((kind & SubsectionIgnore) == 0)
            {
                switch (kind)
                {
                    case DebugSLines:
                        ReadLines(pdb, module, data, dataStart, r, map, lines, records);
                        break;
                    case DebugSFileChecksums:
                        ReadChecksums(data, dataStart, r, fileNames);
                        break;
                    case DebugSInlineeLines:
                        ReadInlineeLines(data, dataStart, r, inlinees);
                        break;
                }
            }

            int pad = (4 - (r.Position % 4)) % 4;
            r.Position = Math.Min(r.Length, r.Position + pad);
        }
    }

    private static void ReadLines(PdbFile pdb, PdbModule module, ReadOnlySpan<byte> data, int at, SpanReader r, PdbAddressMap map,
        List<LineEntry> lines, List<PdbLineRecordRaw> records)
    {
        if (data.Length < 12)
        {
            throw r.Error(at, string.Create(CultureInfo.InvariantCulture, $"a 12-byte DEBUG_S_LINES header, found {data.Length} bytes"));
        }

        uint offCon = BinaryPrimitives.ReadUInt32LittleEndian(data);
        ushort segCon = BinaryPrimitives.ReadUInt16LittleEndian(data[4..]);
        bool columns = (BinaryPrimitives.ReadUInt16LittleEndian(data[6..]) & 1) != 0;
        uint cbCon = BinaryPrimitives.ReadUInt32LittleEndian(data[8..]);
        var entries = new List<(uint Offset, uint Bits, uint File)>();
        int pos = 12;
        while (pos < data.Length)
        {
            if (data.Length - pos < 12)
            {
                throw r.Error(at + pos, string.Create(CultureInfo.InvariantCulture, $"a 12-byte line block header, but only {data.Length - pos} bytes remain in the DEBUG_S_LINES subsection"));
            }

            uint file = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            uint count = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 4)..]);
            uint blockBytes = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 8)..]);
            ulong needed = 12UL + (count * (columns ? 12UL : 8UL));
            if (blockBytes < needed || blockBytes > (uint)(data.Length - pos))
            {
                throw r.Error(at + pos, string.Create(CultureInfo.InvariantCulture,
                    $"a line block of {count} lines ({needed} bytes{(columns ? " with columns" : string.Empty)}) within the {data.Length - pos} bytes left in its DEBUG_S_LINES subsection, found a block size of {blockBytes}"));
            }

            if (lines.Count + (long)entries.Count + count > pdb.Limits.MaxLineRecordsPerModule)
            {
                throw r.Error(at + pos, string.Create(CultureInfo.InvariantCulture, $"at most {pdb.Limits.MaxLineRecordsPerModule} line records in module {module.Index} (PdbReaderLimits.MaxLineRecordsPerModule)"));
            }

            for (int i = 0; i < count; i++)
            {
                int e = pos + 12 + (i * 8);
                entries.Add((BinaryPrimitives.ReadUInt32LittleEndian(data[e..]), BinaryPrimitives.ReadUInt32LittleEndian(data[(e + 4)..]), file));
            }

            pos += (int)blockBytes;
        }

        if (!map.TryGetSourceRva(segCon, offCon, out uint baseRva))
        {
            // Lines of a section the PDB has no header for (or segment 0): nothing can be addressed.
            return;
        }

        // A record runs to the next record of the subsection in address order (across its file blocks), the last to the subsection's end.
        var order = new int[entries.Count];
        for (int i = 0; i < order.Length; i++)
        {
            order[i] = i;
        }

        Array.Sort(order, (a, b) => entries[a].Offset != entries[b].Offset ? entries[a].Offset.CompareTo(entries[b].Offset) : a.CompareTo(b));
        for (int k = 0; k < order.Length; k++)
        {
            (uint offset, uint bits, uint file) = entries[order[k]];
            uint end = k + 1 < order.Length ? entries[order[k + 1]].Offset : Math.Max(cbCon, offset);
            ulong start = (ulong)baseRva + offset;
            if (start > uint.MaxValue)
            {
                continue;
            }

            uint length = (uint)Math.Min(end - offset, uint.MaxValue - start);
            var entry = new LineEntry((uint)start, length, (int)(bits & 0xFFFFFF), file, (bits & 0x80000000) != 0, lines.Count);
            lines.Add(entry);
            records.Add(new PdbLineRecordRaw(entry.Start, entry.Length, entry.Line, file, entry.IsStatement));
        }
    }

    private static void ReadChecksums(ReadOnlySpan<byte> data, int at, SpanReader r, Dictionary<uint, uint> fileNames)
    {
        int pos = 0;
        while (pos < data.Length)
        {
            if (data.Length - pos < 6)
            {
                // Alignment padding after the last entry.
                if (data[pos..].ContainsAnyExcept((byte)0))
                {
                    throw r.Error(at + pos, string.Create(CultureInfo.InvariantCulture, $"a 6-byte file checksum entry or padding, found {data.Length - pos} other bytes"));
                }

                break;
            }

            uint name = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            byte size = data[pos + 4];
            if (pos + 6 + size > data.Length)
            {
                throw r.Error(at + pos + 4, string.Create(CultureInfo.InvariantCulture, $"a checksum of {size} bytes within the {data.Length - pos - 6} bytes left in DEBUG_S_FILECHKSMS"));
            }

            fileNames.TryAdd((uint)pos, name);
            pos += 6 + size;
            pos += (4 - (pos % 4)) % 4;
        }
    }

    private static void ReadInlineeLines(ReadOnlySpan<byte> data, int at, SpanReader r, Dictionary<uint, (uint, uint)> inlinees)
    {
        if (data.Length < 4)
        {
            throw r.Error(at, "a 4-byte DEBUG_S_INLINEELINES signature");
        }

        uint signature = BinaryPrimitives.ReadUInt32LittleEndian(data);
        if (signature > 1)
        {
            throw r.Error(at, string.Create(CultureInfo.InvariantCulture, $"DEBUG_S_INLINEELINES signature 0 or 1 (with extra files), found {signature}"));
        }

        int pos = 4;
        while (pos < data.Length)
        {
            int need = signature == 1 ? 16 : 12;
            if (data.Length - pos < need)
            {
                throw r.Error(at + pos, string.Create(CultureInfo.InvariantCulture, $"an inlinee entry of {need} bytes, but only {data.Length - pos} remain"));
            }

            uint inlinee = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            uint file = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 4)..]);
            uint line = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 8)..]);
            if (line > 0xFFFFFF)
            {
                throw r.Error(at + pos + 8, string.Create(CultureInfo.InvariantCulture, $"an inlinee base line below 0x1000000 (24 bits, as in line records), found {line}"));
            }

            pos += 12;
            if (signature == 1)
            {
                uint extra = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
                pos += 4;
                if (extra > (uint)(data.Length - pos) / 4)
                {
                    throw r.Error(at + pos - 4, string.Create(CultureInfo.InvariantCulture, $"at most {(data.Length - pos) / 4} extra files, found {extra}"));
                }

                pos += (int)extra * 4;
            }

            inlinees.TryAdd(inlinee, (file, line));
        }
    }

    private static void ReadInlineSites(PdbFile pdb, byte[] symbols, MsfStream stream, string description, PdbAddressMap map, List<Procedure> procedures,
        List<Site> sites, CancellationToken ct)
    {
        var r = new SpanReader(symbols, stream, 0, description);
        // Every scope record (procedure, block, thunk, with, separated code, inline site) by its stream offset: the procedure it is in,
        // the inline site it is (or is nested in), and its depth. Inline sites find their parent through their parent pointer.
        var scopes = new Dictionary<uint, (int Procedure, int Site, int Depth)>();
        var siteLists = new List<List<Site>>();
        r.ReadUInt32("symbol signature");
        int count = 0;
        while (r.Remaining > 0)
        {
            int start = r.Position;
            ushort length = r.ReadUInt16("record length");
            if (length < 2 || length > r.Remaining)
            {
                throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"a record length between 2 and {r.Remaining} (the bytes left in the module's symbols), found {length}"));
            }

            int end = start + 2 + length;
            ushort kind = r.ReadUInt16("record kind");
            switch (kind)
            {
                case 0x110F or 0x1110 or 0x1146 or 0x1147 or 0x1155 or 0x1156:
                {
                    if (length < 2 + 35 + 1)
                    {
                        throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"a procedure record (kind 0x{kind:X4}) of at least 38 bytes, found {length}"));
                    }

                    r.Skip(12, "procedure parent/end/next");
                    uint size = r.ReadUInt32("procedure code size");
                    r.Skip(12, "procedure debug start/end and type");
                    uint offset = r.ReadUInt32("procedure code offset");
                    ushort segment = r.ReadUInt16("procedure segment");
                    int proc = -1;
                    if (map.TryGetSourceRva(segment, offset, out uint rva))
                    {
                        proc = procedures.Count;
                        procedures.Add(new Procedure(rva, size, 0, 0));
                        siteLists.Add([]);
                    }

                    scopes[(uint)start] = (proc, -1, 0);
                    break;
                }

                case 0x1102 or 0x1103 or 0x1104 or 0x1132 or 0x112A or 0x112B:
                {
                    // Thunk, block, with, separated code, managed procedures: scopes that inline sites may name as parent.
                    uint parent = r.ReadUInt32("scope parent");
                    (int p, int s, int d) = scopes.TryGetValue(parent, out var outer) ? outer : (-1, -1, 0);
                    if (d + 1 > pdb.Limits.MaxInlineDepth)
                    {
                        throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"scopes nested at most {pdb.Limits.MaxInlineDepth} deep (PdbReaderLimits.MaxInlineDepth)"));
                    }

                    scopes[(uint)start] = (p, s, d + 1);
                    break;
                }

                case SInlineSite or SInlineSite2:
                {
                    int fixedBytes = kind == SInlineSite2 ? 16 : 12;
                    if (length < 2 + fixedBytes)
                    {
                        throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"an inline site record of at least {2 + fixedBytes} bytes, found {length}"));
                    }

                    if (++count > pdb.Limits.MaxInlineSitesPerModule)
                    {
                        throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"at most {pdb.Limits.MaxInlineSitesPerModule} inline sites in a module (PdbReaderLimits.MaxInlineSitesPerModule)"));
                    }

                    uint parent = r.ReadUInt32("inline site parent");
                    r.Skip(4, "inline site end");
                    uint inlinee = r.ReadUInt32("inline site inlinee");
                    if (kind == SInlineSite2)
                    {
                        r.Skip(4, "inline site invocations");
                    }

                    if (!scopes.TryGetValue(parent, out var outer))
                    {
                        throw r.Error(start + 4, string.Create(CultureInfo.InvariantCulture, $"an inline site parent that is an earlier procedure, block or inline site, found offset {parent}"));
                    }

                    if (outer.Depth + 1 > pdb.Limits.MaxInlineDepth)
                    {
                        throw r.Error(start, string.Create(CultureInfo.InvariantCulture, $"inline sites nested at most {pdb.Limits.MaxInlineDepth} deep (PdbReaderLimits.MaxInlineDepth)"));
                    }

                    int annotationsAt = r.Position;
                    ReadOnlySpan<byte> annotations = r.Advance(end - r.Position, "binary annotations");
                    int siteIndex = -1;
                    if (outer.Procedure >= 0)
                    {
                        List<InlineRange> ranges = PdbInlineAnnotations.Decode(annotations, procedures[outer.Procedure].Size,
                            (at, expected) => stream.Error(annotationsAt + at, description, "binary annotations of the inline site at offset " + start.ToString(CultureInfo.InvariantCulture) + ": " + expected));
                        List<Site> list = siteLists[outer.Procedure];
                        siteIndex = list.Count;
                        list.Add(new Site(outer.Site, inlinee, Sorted(ranges)));
                    }

                    scopes[(uint)start] = (outer.Procedure, siteIndex, outer.Depth + 1);
                    break;
                }
            }

            if ((count & 0xFFF) == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            r.Position = end;
        }

        // Sort procedures by start; their sites go to one array, each procedure's sites contiguous (parents are procedure-local indices).
        int[] order = new int[procedures.Count];
        for (int i = 0; i < order.Length; i++)
        {
            order[i] = i;
        }

        Array.Sort(order, (a, b) => procedures[a].Start != procedures[b].Start ? procedures[a].Start.CompareTo(procedures[b].Start) : a.CompareTo(b));
        var sorted = new List<Procedure>(procedures.Count);
        foreach (int i in order)
        {
            List<Site> list = siteLists[i];
            int first = sites.Count;
            foreach (Site s in list)
            {
                sites.Add(s with { Parent = s.Parent < 0 ? -1 : s.Parent + first });
            }

            sorted.Add(procedures[i] with { FirstSite = first, SiteCount = list.Count });
        }

        procedures.Clear();
        procedures.AddRange(sorted);
    }

    private static InlineRange[] Sorted(List<InlineRange> ranges)
    {
        InlineRange[] a = [.. ranges];
        Array.Sort(a, static (x, y) => x.Start != y.Start ? x.Start.CompareTo(y.Start) : x.End.CompareTo(y.End));
        return a;
    }

    /// <summary>A line record in source RVA space; <see cref="Order"/> keeps the file order of records at one address.</summary>
    internal readonly record struct LineEntry(uint Start, uint Length, int Line, uint File, bool IsStatement, int Order);

    private readonly record struct Procedure(uint Start, uint Size, int FirstSite, int SiteCount);

    /// <summary>An inline site: its parent site (index into the module's site array, or -1 for a site directly in its procedure), the inlinee id, its ranges sorted by start.</summary>
    internal sealed record Site(int Parent, uint Inlinee, InlineRange[] Ranges)
    {
        /// <summary>The index of the range containing <paramref name="offset"/> (procedure-relative), or -1.</summary>
        public int RangeContaining(uint offset)
        {
            for (int i = 0; i < Ranges.Length; i++)
            {
                if (offset >= Ranges[i].Start && offset < Ranges[i].End)
                {
                    return i;
                }
            }

            return -1;
        }

        /// <summary>The procedure-relative start of the contiguous run of ranges that range <paramref name="index"/> belongs to.</summary>
        public uint BlockStart(int index)
        {
            int i = index;
            while (i > 0 && Ranges[i - 1].End == Ranges[i].Start)
            {
                i--;
            }

            return Ranges[i].Start;
        }
    }
}

/// <summary>A line record as stored: source RVA, length, line, file checksum offset, statement flag.</summary>
internal readonly record struct PdbLineRecordRaw(uint Start, uint Length, int Line, uint File, bool IsStatement);

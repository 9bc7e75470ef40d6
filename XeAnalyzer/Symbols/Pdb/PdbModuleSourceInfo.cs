using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The source information of one module (compiland) stream, parsed once on first use: its C13 line table
/// (<c>DEBUG_S_LINES</c>), file checksums (<c>DEBUG_S_FILECHKSMS</c>, file id → <c>/names</c> offset), inlinee base
/// lines (<c>DEBUG_S_INLINEELINES</c>) and the inline sites of its procedures
/// (<c>S_INLINESITE</c>/<c>S_INLINESITE2</c>, nested through their parent pointers) with their code ranges. Addresses
/// are source RVAs (the pre-OMAP space of the PDB's symbols). Immutable once built.
/// </summary>
internal sealed partial class PdbModuleSourceInfo
{
    public static readonly PdbModuleSourceInfo Empty = new(-1, [], [], [], [], [], []);

    private readonly LineEntry[] _lines;
    private readonly Procedure[] _procedures;
    private readonly Site[] _sites;

    private PdbModuleSourceInfo(
        int module,
        LineEntry[] lines,
        Procedure[] procedures,
        Site[] sites,
        Dictionary<uint, uint> fileNames,
        Dictionary<uint, (uint File, uint Line)> inlinees,
        IReadOnlyList<PdbLineRecordRaw> records
    )
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

        // Zero-length records (an earlier record at the same address) never cover anything: the last one at an address
        // is the real one.
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

    /// <summary>The inline sites containing <paramref name="source"/>, outermost first, each with the range that holds
    /// it.</summary>
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
        int lo = 0,
            hi = _procedures.Length;
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

        // The procedure with the greatest start at or before the address that contains it (procedures do not nest in
        // practice).
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
        int lo = 0,
            hi = lines.Length;
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
    /// <exception cref="InvalidPdbDataException">The stream's sizes, subsections, line blocks or inline annotations are
    /// damaged.</exception>
    public static PdbModuleSourceInfo Parse(
        PdbFile pdb,
        PdbModule module,
        PdbAddressMap map,
        CancellationToken cancellationToken
    )
    {
        if (module.SymbolStreamIndex is not int index)
        {
            return Empty;
        }

        MsfStream stream =
            pdb.Msf.GetStream(index)
            ?? throw new InvalidPdbDataException(
                pdb.Name,
                null,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected the symbol stream {index} of module {module.Index} ('{module.ModuleName}'), but that "
                        + $"stream is absent"
                )
            );
        string description = string.Create(
            CultureInfo.InvariantCulture,
            $"symbol stream of module {module.Index} ('{module.ModuleName}')"
        );
        long c13Start = (long)module.SymbolByteSize + module.C11LineByteSize;
        if (c13Start + module.C13LineByteSize > stream.Length)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"symbols ({module.SymbolByteSize} bytes), C11 lines ({module.C11LineByteSize}) and C13 lines "
                        + $"({module.C13LineByteSize}) within the stream's {stream.Length} bytes"
                )
            );
        }

        var fileNames = new Dictionary<uint, uint>();
        var inlinees = new Dictionary<uint, (uint, uint)>();
        var lines = new List<LineEntry>();
        var records = new List<PdbLineRecordRaw>();
        if (module.C13LineByteSize > 0)
        {
            byte[] c13 = stream.ReadRange(
                c13Start,
                module.C13LineByteSize,
                pdb.Limits.MaxStreamBytes,
                "C13 debug subsections"
            );
            ReadSubsections(
                pdb,
                module,
                new SpanReader(c13, stream, c13Start, description),
                map,
                fileNames,
                inlinees,
                lines,
                records,
                cancellationToken
            );
        }

        var procedures = new List<Procedure>();
        var sites = new List<Site>();
        if (module.SymbolByteSize >= 4)
        {
            byte[] symbols = stream.ReadRange(0, module.SymbolByteSize, pdb.Limits.MaxStreamBytes, "module symbols");
            ReadInlineSites(pdb, symbols, stream, description, map, procedures, sites, cancellationToken);
        }

        LineEntry[] sortedLines = [.. lines];
        Array.Sort(
            sortedLines,
            static (a, b) => a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.Order.CompareTo(b.Order)
        );
        return new PdbModuleSourceInfo(
            module.Index,
            sortedLines,
            [.. procedures],
            [.. sites],
            fileNames,
            inlinees,
            records.AsReadOnly()
        );
    }

    /// <summary>A line record in source RVA space; <see cref="Order"/> keeps the file order of records at one
    /// address.</summary>
    internal readonly record struct LineEntry(
        uint Start,
        uint Length,
        int Line,
        uint File,
        bool IsStatement,
        int Order
    );

    private readonly record struct Procedure(uint Start, uint Size, int FirstSite, int SiteCount);

    /// <summary>An inline site: its parent site (index into the module's site array, or -1 for a site directly in its
    /// procedure), the inlinee id, its ranges sorted by start.</summary>
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

        /// <summary>The procedure-relative start of the contiguous run of ranges that range <paramref name="index"/>
        /// belongs to.</summary>
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

using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>
/// Source lines and inline frames of private PDBs: the DBI section contributions (which module owns an address), each
/// module's C13 line table and inline sites (read lazily, one module at a time, on first use), the <c>/names</c> string
/// table and the IPI/TPI names of inlined functions. Public-only (stripped) PDBs have none of these and answer
/// <see cref="PdbSourceInfo.None"/>.
/// </content>
internal sealed partial class PdbFile
{
    private const uint SectionContributionVersion60 = 0xEFFE0000 + 19970605;
    private const uint SectionContributionVersion2 = 0xEFFE0000 + 20140516;

    private Contribution[]? _contributions;
    private PdbModuleSourceInfo?[]? _moduleSource;
    private PdbStringTable? _strings;
    private PdbInlineeNames? _inlineeNames;

    /// <summary>
    /// The source line and (when <paramref name="includeInlineFrames"/>) the inline frames at <paramref name="rva"/>:
    /// the module owning the address is found through the DBI section contributions, and its line table and inline
    /// sites are read on first use.
    /// </summary>
    /// <param name="rva">An image RVA.</param>
    /// <param name="includeInlineFrames">Whether to find the inline sites the address lies in (and their
    /// names).</param>
    /// <param name="cancellationToken">Cancels reading a module.</param>
    /// <returns>The source information; <see cref="PdbSourceInfo.None"/> when the PDB has none for the
    /// address.</returns>
    /// <exception cref="InvalidPdbDataException">The section contributions, the module's stream, <c>/names</c> or the
    /// IPI/TPI stream are damaged.</exception>
    public PdbSourceInfo GetSourceInfo(
        uint rva,
        bool includeInlineFrames = true,
        CancellationToken cancellationToken = default
    )
    {
        PdbAddressMap map = GetAddressMap();
        if (!map.TryImageToSource(rva, out uint source))
        {
            return PdbSourceInfo.None;
        }

        int module = ModuleOf(source);
        if (module < 0)
        {
            return PdbSourceInfo.None;
        }

        PdbModuleSourceInfo info = GetModuleSource(module, cancellationToken);
        PdbSourceLocation? location = null;
        if (info.FindLine(source) is PdbModuleSourceInfo.LineEntry line)
        {
            location = new PdbSourceLocation(FileName(info, line.File), line.Line);
        }

        if (!includeInlineFrames)
        {
            return location is null ? PdbSourceInfo.None : new PdbSourceInfo([], location);
        }

        var chain = info.FindInlineChain(source);
        if (chain.Count == 0)
        {
            return location is null ? PdbSourceInfo.None : new PdbSourceInfo([], location);
        }

        PdbStringTable strings = GetStrings();
        PdbInlineeNames names = GetInlineeNames();
        var frames = new PdbInlineFrame[chain.Count];
        for (int i = 0; i < chain.Count; i++)
        {
            (PdbModuleSourceInfo.Site site, InlineRange range, uint blockStart) = chain[chain.Count - 1 - i];
            PdbSourceLocation? at = null;
            if (info.Inlinees.TryGetValue(site.Inlinee, out var inlinee))
            {
                long number = (long)inlinee.Line + range.LineOffset;
                uint file = range.FileId == InlineRange.DefaultFile ? inlinee.File : range.FileId;
                if (number > 0)
                {
                    at = new PdbSourceLocation(FileName(info, file, strings), (int)number);
                }
            }

            uint blockRva = map.TrySourceToImage(blockStart, out uint image) ? image : rva;
            frames[i] = new PdbInlineFrame(names.Get(site.Inlinee, cancellationToken), blockRva, at);
        }

        return new PdbSourceInfo(Array.AsReadOnly(frames), location);
    }

    /// <summary>
    /// Every line record of module <paramref name="moduleIndex"/> (see <see cref="GetModules"/>), in the order of its
    /// line subsections, each subsection's records in address order; empty for a module without C13 lines. Reads the
    /// module on first use.
    /// </summary>
    /// <param name="moduleIndex">The module.</param>
    /// <param name="cancellationToken">Cancels reading the module.</param>
    /// <returns>The records, with RVAs in image space.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="moduleIndex"/> is not a module of the
    /// PDB.</exception>
    /// <exception cref="InvalidPdbDataException">The module's stream or <c>/names</c> is damaged.</exception>
    public IReadOnlyList<PdbLineRecord> GetLineRecords(int moduleIndex, CancellationToken cancellationToken = default)
    {
        IReadOnlyList<PdbModule> modules = GetModules();
        ArgumentOutOfRangeException.ThrowIfNegative(moduleIndex);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(moduleIndex, modules.Count);
        PdbModuleSourceInfo info = GetModuleSource(moduleIndex, cancellationToken);
        PdbAddressMap map = GetAddressMap();
        var list = new List<PdbLineRecord>(info.Records.Count);
        foreach (PdbLineRecordRaw r in info.Records)
        {
            if (map.TrySourceToImage(r.Start, out uint image))
            {
                list.Add(
                    new PdbLineRecord(image, r.Length, r.Line, FileName(info, r.File), moduleIndex, r.IsStatement)
                );
            }
        }

        return list.AsReadOnly();
    }

    /// <summary>Whether the PDB carries C13 line information in any module (false for public-only and stripped
    /// PDBs).</summary>
    /// <returns><see langword="true"/> when at least one module has C13 debug subsections.</returns>
    /// <exception cref="InvalidPdbDataException">The module-info substream is damaged.</exception>
    public bool HasLineInfo() => GetModules().Any(m => m.C13LineByteSize > 0);

    private string FileName(PdbModuleSourceInfo info, uint checksumOffset, PdbStringTable? strings = null)
    {
        if (!info.FileNames.TryGetValue(checksumOffset, out uint nameOffset))
        {
            throw new InvalidPdbDataException(
                Name,
                null,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a file checksum entry at offset {checksumOffset} of module {info.ModuleIndex}'s "
                        + $"DEBUG_S_FILECHKSMS subsection (named by a line block or inline site), but there is none"
                )
            );
        }

        return (strings ?? GetStrings()).Get(
            nameOffset,
            string.Create(CultureInfo.InvariantCulture, $"a source file of module {info.ModuleIndex}")
        );
    }

    private PdbModuleSourceInfo GetModuleSource(int module, CancellationToken cancellationToken)
    {
        PdbModuleSourceInfo?[] cache = Volatile.Read(ref _moduleSource) ?? InitModuleSourceCache();
        PdbModuleSourceInfo? info = Volatile.Read(ref cache[module]);
        if (info is not null)
        {
            return info;
        }

        lock (_gate)
        {
            if (cache[module] is null)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                PdbModule m = GetModuleArray()[module];
                Volatile.Write(
                    ref cache[module],
                    PdbModuleSourceInfo.Parse(this, m, GetAddressMap(), cancellationToken)
                );
            }

            return cache[module]!;
        }
    }

    private PdbModuleSourceInfo?[] InitModuleSourceCache()
    {
        lock (_gate)
        {
            return _moduleSource ??= new PdbModuleSourceInfo?[GetModuleArray().Length];
        }
    }

    private PdbStringTable GetStrings()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed && _strings is null, this);
            return _strings ??= PdbStringTable.Read(this);
        }
    }

    private PdbInlineeNames GetInlineeNames()
    {
        lock (_gate)
        {
            return _inlineeNames ??= new PdbInlineeNames(this);
        }
    }

    /// <summary>The module owning source RVA <paramref name="source"/> by the DBI section contributions, or
    /// -1.</summary>
    private int ModuleOf(uint source)
    {
        Contribution[] c = Volatile.Read(ref _contributions) ?? ReadContributions();
        int lo = 0,
            hi = c.Length;
        while (lo < hi)
        {
            int mid = lo + ((hi - lo) >> 1);
            if (c[mid].Start <= source)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        for (int i = lo - 1; i >= 0 && lo - i <= 8; i--)
        {
            if ((ulong)source < (ulong)c[i].Start + c[i].Size)
            {
                return c[i].Module;
            }
        }

        return -1;
    }

    /// <summary>
    /// Reads the section contribution substream (after module info in the DBI stream): a version (V60 or V2), then
    /// 28-byte (V60) or 32-byte (V2) entries of section, offset, size, characteristics and module index.
    /// </summary>
    private Contribution[] ReadContributions()
    {
        lock (_gate)
        {
            if (_contributions is not null)
            {
                return _contributions;
            }

            ObjectDisposedException.ThrowIf(_disposed, this);
            PdbDbiHeader dbi = RequireDbi("read section contributions");
            PdbAddressMap map = GetAddressMap();
            int moduleCount = GetModuleArray().Length;
            var list = new List<Contribution>();
            if (dbi.SectionContributionSize >= 4)
            {
                MsfStream stream = Msf.GetStream(DbiStreamIndex)!;
                long at = PdbDbiHeader.Size + (long)dbi.ModuleInfoSize;
                byte[] raw = stream.ReadRange(
                    at,
                    dbi.SectionContributionSize,
                    Limits.MaxStreamBytes,
                    "section-contribution substream"
                );
                var r = new SpanReader(raw, stream, at, "DBI section-contribution substream");
                uint version = r.ReadUInt32("section contribution version");
                int entrySize = version switch
                {
                    SectionContributionVersion60 => 28,
                    SectionContributionVersion2 => 32,
                    _ => throw r.Error(
                        0,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"section contribution version 0x{SectionContributionVersion60:X8} or "
                                + $"0x{SectionContributionVersion2:X8}, found 0x{version:X8}"
                        )
                    ),
                };
                if (r.Remaining % entrySize != 0)
                {
                    throw r.Error(
                        4,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a whole number of {entrySize}-byte entries, found {r.Remaining} bytes"
                        )
                    );
                }

                while (r.Remaining > 0)
                {
                    int start = r.Position;
                    ushort section = r.ReadUInt16("contribution section");
                    r.Skip(2, "contribution padding");
                    uint offset = r.ReadUInt32("contribution offset");
                    uint size = r.ReadUInt32("contribution size");
                    r.Skip(4, "contribution characteristics");
                    ushort module = r.ReadUInt16("contribution module");
                    r.Skip(entrySize - 18, "contribution tail");
                    if (module >= moduleCount)
                    {
                        throw r.Error(
                            start + 16,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"a module index below {moduleCount}, found {module}"
                            )
                        );
                    }

                    if (size > 0 && map.TryGetSourceRva(section, offset, out uint rva))
                    {
                        list.Add(new Contribution(rva, size, module));
                    }
                }
            }

            Contribution[] sorted = [.. list];
            Array.Sort(
                sorted,
                static (a, b) => a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.Module.CompareTo(b.Module)
            );
            Volatile.Write(ref _contributions, sorted);
            return sorted;
        }
    }

    private readonly record struct Contribution(uint Start, uint Size, int Module);
}

using System.Buffers.Binary;
using System.Globalization;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>Publics, modules, procedures and the RVA → symbol index. Each is read once, on first use, under a lock
/// (thread-safe).</content>
internal sealed partial class PdbFile
{
    private const ushort SPub32 = 0x110E;
    private const int ModuleHeaderSize = 64;

    private readonly Lock _gate = new();
    private PdbAddressMap? _addressMap;
    private PdbPublicTable? _publics;
    private PdbPublicTable? _filePublics;
    private PdbSymbolTable? _procedures;
    private PdbModule[]? _modules;
    private IReadOnlyList<PdbPublicSymbol>? _publicList;
    private IReadOnlyList<PdbProcedure>? _procedureList;
    private PdbSymbolIndex? _index;
    private PdbSymbolIndex? _fileIndex;
    private bool _disposed;

    /// <summary>Whether the PDB translates addresses through OMAP (an image reordered after linking).</summary>
    /// <exception cref="InvalidPdbDataException">The OMAP streams are damaged.</exception>
    public bool HasOmap() => GetAddressMap().HasOmap;

    /// <summary>
    /// The public symbols (<c>S_PUB32</c>) in publics address-map order (by section, then offset), each with its image
    /// RVA. Publics whose <c>segment:offset</c> maps to no RVA (segment 0 for absolute symbols, a segment with no
    /// section header, an OMAP hole) are left out. Read on first call, then cached.
    /// </summary>
    /// <returns>The publics; empty when the PDB has no publics stream.</returns>
    /// <exception cref="InvalidPdbDataException">The publics stream or a symbol record is damaged.</exception>
    public IReadOnlyList<PdbPublicSymbol> GetPublics()
    {
        lock (_gate)
        {
            if (_publicList is null)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                PdbPublicRecords r = ReadPublicRecords(recordFields: true, poolNames: true, CancellationToken.None);
                PdbAddressMap map = GetAddressMap();
                bool isX86 = IsX86;
                var list = new List<PdbPublicSymbol>(r.Count);
                for (int i = 0; i < r.Count; i++)
                {
                    if (r.NameLength[i] != PdbPublicRecords.Unmapped)
                    {
                        ReadOnlySpan<byte> name = r.Name(i);
                        map.TrySourceToImage(r.SourceRva[i], out uint image);
                        list.Add(
                            new PdbPublicSymbol(
                                Encoding.UTF8.GetString(name),
                                image,
                                r.Segment![i],
                                r.Offset![i],
                                (PdbPublicAttributes)r.Flags![i],
                                PdbNames.Classify(name, isPublic: true, isX86)
                            )
                        );
                    }
                }

                _publicList = list.AsReadOnly();
            }

            return _publicList;
        }
    }

    /// <summary>The module (compiland) records of the DBI stream, in order. Read on first call, then cached.</summary>
    /// <returns>The modules; empty when the PDB has none.</returns>
    /// <exception cref="InvalidPdbDataException">The module-info substream is damaged.</exception>
    public IReadOnlyList<PdbModule> GetModules()
    {
        lock (_gate)
        {
            return Array.AsReadOnly(GetModuleArray());
        }
    }

    /// <summary>
    /// The procedures (<c>S_GPROC32</c>, <c>S_LPROC32</c>, <c>S_GPROC32_ID</c>, <c>S_LPROC32_ID</c> and the DPC forms)
    /// of every module symbol stream, in module then record order, each with its image RVA and code size. Stripped PDBs
    /// may still hold a few. Procedures whose address maps to no RVA are left out. Read on first call, then cached.
    /// </summary>
    /// <returns>The procedures; empty for a PDB without module symbol streams.</returns>
    /// <exception cref="InvalidPdbDataException">A module stream or record is damaged.</exception>
    public IReadOnlyList<PdbProcedure> GetProcedures()
    {
        lock (_gate)
        {
            if (_procedureList is null)
            {
                PdbSymbolTable t = GetProcedureTable(CancellationToken.None);
                var list = new PdbProcedure[t.Items.Length];
                for (int i = 0; i < list.Length; i++)
                {
                    RawSymbol s = t.Items[i];
                    list[i] = new PdbProcedure(
                        t.Name(i),
                        s.ImageRva,
                        s.Size,
                        s.Segment,
                        s.Offset,
                        s.IsGlobal,
                        s.Module
                    );
                }

                _procedureList = Array.AsReadOnly(list);
            }

            return _procedureList;
        }
    }

    /// <summary>
    /// The sorted RVA → symbol index of this PDB, built on the first call (reading publics and module streams) and then
    /// shared. Thread-safe; a cancelled or failed build is not cached, so a later call tries again.
    /// </summary>
    /// <param name="cancellationToken">Cancels building the index.</param>
    /// <returns>The index.</returns>
    /// <exception cref="InvalidPdbDataException">The PDB's symbol data is damaged.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled before the index was built.</exception>
    public PdbSymbolIndex GetSymbolIndex(CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            return _index ??= new PdbSymbolIndex(
                GetAddressMap(),
                GetProcedureTable(cancellationToken),
                GetPublicTable(cancellationToken)
            )
            {
                IsX86 = IsX86,
            };
        }
    }

    /// <summary>
    /// The index of <see cref="GetSymbolIndex"/>, except that public names are not held in memory but read from this
    /// file when a lookup returns them: a few bytes per public instead of the names (tens of MB in a big PDB). Valid
    /// only while this file is open (lookups throw <see cref="ObjectDisposedException"/> after); the resolver keeps the
    /// file open for as long as it keeps the index.
    /// </summary>
    /// <param name="cancellationToken">Cancels building the index.</param>
    /// <returns>The index.</returns>
    /// <exception cref="InvalidPdbDataException">The PDB's symbol data is damaged.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled before the index was built.</exception>
    internal PdbSymbolIndex GetFileBackedSymbolIndex(CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            if (_fileIndex is null)
            {
                PdbSymbolTable procedures = GetProcedureTable(cancellationToken);
                if (_filePublics is null)
                {
                    ObjectDisposedException.ThrowIf(_disposed, this);
                    _filePublics = PdbPublicTable.Build(
                        ReadPublicRecords(recordFields: false, poolNames: false, cancellationToken)
                    );
                }

                _fileIndex = new PdbSymbolIndex(GetAddressMap(), procedures, _filePublics) { IsX86 = IsX86 };
            }

            return _fileIndex;
        }
    }

    /// <summary>Finds the symbol for <paramref name="rva"/>; see <see cref="PdbSymbolIndex.Lookup"/>. Builds the index
    /// on first use.</summary>
    /// <param name="rva">An image RVA (address minus module base).</param>
    /// <returns>The match, or <see langword="null"/> when the RVA precedes every symbol (or falls in an OMAP
    /// hole).</returns>
    /// <exception cref="InvalidPdbDataException">The PDB's symbol data is damaged.</exception>
    public PdbSymbolMatch? Lookup(uint rva) => GetSymbolIndex().Lookup(rva);

    private PdbAddressMap GetAddressMap()
    {
        lock (_gate)
        {
            if (_addressMap is null)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                PdbDbiHeader dbi = RequireDbi("translate symbol addresses");
                if (Sections.Count == 0 && (dbi.PublicStreamIndex is not null || dbi.ModuleInfoSize > 0))
                {
                    throw new InvalidPdbDataException(
                        Name,
                        DbiFileOffset(Msf, dbi.SlotOffset(SectionHeaderSlot)),
                        "expected section headers (DBI optional debug header slot 5) to turn symbol section:offset "
                            + "addresses into RVAs, but the PDB has none"
                    );
                }

                _addressMap = PdbAddressMap.Create(this);
            }

            return _addressMap;
        }
    }

    private PdbDbiHeader RequireDbi(string purpose) =>
        Dbi
        ?? throw new InvalidPdbDataException(
            Name,
            Msf.StreamEntryOffset(DbiStreamIndex),
            "expected a DBI stream (stream 3) to " + purpose + ", but the PDB has none (a type-only PDB?)"
        );

    private MsfStream RequireStream(int index, string what, int dbiFieldOffset) =>
        Msf.GetStream(index)
        ?? throw new InvalidPdbDataException(
            Name,
            DbiFileOffset(Msf, dbiFieldOffset),
            string.Create(
                CultureInfo.InvariantCulture,
                $"expected the {what} stream {index} named by the DBI header (offset {dbiFieldOffset}), but the MSF "
                    + $"directory has {Msf.StreamCount} streams and that one is absent"
            )
        );

    private bool IsX86 => Dbi?.Machine == Machine.I386;

    private PdbPublicTable GetPublicTable(CancellationToken ct)
    {
        if (_publics is null)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _publics = PdbPublicTable.Build(ReadPublicRecords(recordFields: false, poolNames: true, ct));
        }

        return _publics;
    }

    private PdbSymbolTable GetProcedureTable(CancellationToken ct)
    {
        if (_procedures is null)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _procedures = ReadProcedures(ct);
        }

        return _procedures;
    }

    private PdbModule[] GetModuleArray()
    {
        if (_modules is null)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _modules = ReadModules();
        }

        return _modules;
    }

    private PdbModule[] ReadModules()
    {
        PdbDbiHeader dbi = RequireDbi("read modules");
        if (dbi.ModuleInfoSize == 0)
        {
            return [];
        }

        MsfStream stream = Msf.GetStream(DbiStreamIndex)!;
        byte[] raw = stream.ReadRange(
            PdbDbiHeader.Size,
            dbi.ModuleInfoSize,
            Limits.MaxStreamBytes,
            "module-info substream"
        );
        var r = new SpanReader(raw, stream, PdbDbiHeader.Size, "DBI module-info substream");
        var modules = new List<PdbModule>();
        var ownedStreams = new HashSet<int>();
        while (r.Remaining > 0)
        {
            if (modules.Count >= Limits.MaxModules)
            {
                throw r.Error(
                    r.Position,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"at most {Limits.MaxModules} modules (PdbReaderLimits.MaxModules)"
                    )
                );
            }

            int start = r.Position;
            r.Skip(4 + 28 + 2, "module header (unused field, section contribution, flags)");
            ushort symStream = r.ReadUInt16("module symbol stream index");
            uint symBytes = r.ReadUInt32("module symbol byte size");
            uint c11Bytes = r.ReadUInt32("module C11 line byte size");
            uint c13Bytes = r.ReadUInt32("module C13 line byte size");
            ushort files = r.ReadUInt16("module source file count");
            r.Skip(2 + 12, "module header tail");
            string module = Encoding.UTF8.GetString(r.ReadCString(r.Remaining, "module name"));
            string obj = Encoding.UTF8.GetString(r.ReadCString(r.Remaining, "object file name"));
            int pad = (4 - (r.Position % 4)) % 4;
            r.Position = Math.Min(r.Length, r.Position + pad);
            if (symStream != 0xFFFF && symStream >= Msf.StreamCount)
            {
                throw r.Error(
                    start + 34,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a symbol stream index below {Msf.StreamCount} for module {modules.Count} ('{module}'), "
                            + $"found {symStream}"
                    )
                );
            }

            // Each module owns its stream; a damaged table repeating one large stream would make reading cost modules ×
            // stream size.
            if (symStream != 0xFFFF && !ownedStreams.Add(symStream))
            {
                throw r.Error(
                    start + 34,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"module {modules.Count} ('{module}') to have its own symbol stream, but stream {symStream} "
                            + $"already belongs to another module"
                    )
                );
            }

            modules.Add(
                new PdbModule(modules.Count, module, obj, symStream == 0xFFFF ? null : symStream, symBytes, files)
                {
                    C11LineByteSize = c11Bytes,
                    C13LineByteSize = c13Bytes,
                }
            );
        }

        return [.. modules];
    }

    // hot loop over every module record, run once: skip tier-0 code
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private PdbSymbolTable ReadProcedures(CancellationToken ct)
    {
        PdbModule[] modules = GetModuleArray();
        PdbAddressMap map = GetAddressMap();
        var builder = new PdbSymbolTable.Builder();
        bool isX86 = IsX86;
        foreach (PdbModule module in modules)
        {
            ct.ThrowIfCancellationRequested();
            if (module.SymbolStreamIndex is not int index || module.SymbolByteSize == 0)
            {
                continue;
            }

            MsfStream stream =
                Msf.GetStream(index)
                ?? throw new InvalidPdbDataException(
                    Name,
                    Msf.StreamEntryOffset(index),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected the symbol stream {index} of module {module.Index} ('{module.ModuleName}'), but "
                            + $"that stream is absent"
                    )
                );
            string description = string.Create(
                CultureInfo.InvariantCulture,
                $"symbol stream of module {module.Index} ('{module.ModuleName}')"
            );
            if (module.SymbolByteSize > stream.Length || module.SymbolByteSize < 4)
            {
                throw stream.Error(
                    0,
                    description,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a symbol byte size between 4 and the stream's {stream.Length} bytes, found "
                            + $"{module.SymbolByteSize}"
                    )
                );
            }

            byte[] data = stream.ReadRange(0, module.SymbolByteSize, Limits.MaxStreamBytes, "module symbols");
            var r = new SpanReader(data, stream, 0, description);
            r.ReadUInt32("symbol signature");
            while (r.Remaining > 0)
            {
                int start = r.Position;
                ushort length = r.ReadUInt16("record length");
                if (length < 2 || length > r.Remaining)
                {
                    throw r.Error(
                        start,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a record length between 2 and {r.Remaining} (the bytes left in the module's symbols), "
                                + $"found {length}"
                        )
                    );
                }

                int end = start + 2 + length;
                ushort kind = r.ReadUInt16("record kind");
                if (kind is 0x110F or 0x1110 or 0x1146 or 0x1147 or 0x1155 or 0x1156)
                {
                    if (length < 2 + 35 + 1)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"a procedure record (kind 0x{kind:X4}) of at least 38 bytes, found {length}"
                            )
                        );
                    }

                    if (builder.Count >= Limits.MaxProcedures)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"at most {Limits.MaxProcedures} procedures (PdbReaderLimits.MaxProcedures)"
                            )
                        );
                    }

                    r.Skip(12, "procedure parent/end/next");
                    uint size = r.ReadUInt32("procedure code size");
                    r.Skip(12, "procedure debug start/end and type");
                    uint offset = r.ReadUInt32("procedure code offset");
                    ushort segment = r.ReadUInt16("procedure segment");
                    r.Skip(1, "procedure flags");
                    ReadOnlySpan<byte> name = r.ReadCString(end - r.Position, "procedure name");
                    if (
                        map.TryGetSourceRva(segment, offset, out uint source)
                        && map.TrySourceToImage(source, out uint image)
                    )
                    {
                        bool global = kind is 0x1110 or 0x1147;
                        builder.Add(
                            source,
                            image,
                            size,
                            offset,
                            segment,
                            kind,
                            global,
                            module.Index,
                            name,
                            PdbNames.Classify(name, isPublic: false, isX86)
                        );
                    }
                }

                r.Position = end;
            }
        }

        return builder.Build();
    }
}

using System.Reflection.PortableExecutable;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The header of the DBI stream (stream 3) and the stream indices of its optional debug header. Immutable.
/// </summary>
internal sealed class PdbDbiHeader
{
    internal const int Size = 64;

    internal PdbDbiHeader(
        int versionSignature,
        uint versionHeader,
        int age,
        ushort globalStreamIndex,
        ushort buildNumber,
        ushort publicStreamIndex,
        ushort pdbDllVersion,
        ushort symbolRecordStreamIndex,
        ushort pdbDllRebuild,
        int[] substreamSizes,
        uint mfcTypeServerIndex,
        ushort flags,
        ushort machine,
        IReadOnlyList<int?> debugStreams,
        long debugHeaderOffset
    )
    {
        DebugHeaderOffset = debugHeaderOffset;
        VersionSignature = versionSignature;
        VersionHeader = versionHeader;
        Age = age;
        GlobalStreamIndex = NullIfNil(globalStreamIndex);
        BuildNumber = buildNumber;
        PublicStreamIndex = NullIfNil(publicStreamIndex);
        PdbDllVersion = pdbDllVersion;
        SymbolRecordStreamIndex = NullIfNil(symbolRecordStreamIndex);
        PdbDllRebuild = pdbDllRebuild;
        ModuleInfoSize = substreamSizes[0];
        SectionContributionSize = substreamSizes[1];
        SectionMapSize = substreamSizes[2];
        SourceInfoSize = substreamSizes[3];
        TypeServerMapSize = substreamSizes[4];
        ECSubstreamSize = substreamSizes[5];
        OptionalDebugHeaderSize = substreamSizes[6];
        MfcTypeServerIndex = mfcTypeServerIndex;
        Flags = flags;
        Machine = (Machine)machine;
        DebugStreams = debugStreams;
    }

    /// <summary>The version signature at offset 0 (−1 for every DBI stream this reader accepts).</summary>
    public int VersionSignature { get; }

    /// <summary>The DBI version at offset 4 (19990903 = V70 in practice).</summary>
    public uint VersionHeader { get; }

    /// <summary>The DBI age at offset 8: the age symbol servers key the PDB by.</summary>
    public int Age { get; }

    /// <summary>The stream holding the globals hash (offset 12), or <see langword="null"/> when absent.</summary>
    public int? GlobalStreamIndex { get; }

    /// <summary>The raw toolchain build number (offset 14): bit 15 new format, bits 8–14 major, bits 0–7
    /// minor.</summary>
    public ushort BuildNumber { get; }

    /// <summary>The major version of the toolchain that wrote the PDB (bits 8–14 of
    /// <see cref="BuildNumber"/>).</summary>
    public int BuildMajorVersion => (BuildNumber >> 8) & 0x7F;

    /// <summary>The minor version of the toolchain that wrote the PDB (bits 0–7 of
    /// <see cref="BuildNumber"/>).</summary>
    public int BuildMinorVersion => BuildNumber & 0xFF;

    /// <summary>The stream holding the publics (offset 16): hash, address map, thunk and section maps;
    /// <see langword="null"/> when absent.</summary>
    public int? PublicStreamIndex { get; }

    /// <summary>The version of mspdb.dll that wrote the PDB (offset 18).</summary>
    public ushort PdbDllVersion { get; }

    /// <summary>The stream holding the global symbol records, <c>S_PUB32</c> among them (offset 20);
    /// <see langword="null"/> when absent.</summary>
    public int? SymbolRecordStreamIndex { get; }

    /// <summary>The rebuild number of mspdb.dll that wrote the PDB (offset 22).</summary>
    public ushort PdbDllRebuild { get; }

    /// <summary>Size in bytes of the module-info substream (offset 24).</summary>
    public int ModuleInfoSize { get; }

    /// <summary>Size in bytes of the section-contribution substream (offset 28).</summary>
    public int SectionContributionSize { get; }

    /// <summary>Size in bytes of the section-map substream (offset 32).</summary>
    public int SectionMapSize { get; }

    /// <summary>Size in bytes of the file-info (source info) substream (offset 36).</summary>
    public int SourceInfoSize { get; }

    /// <summary>Size in bytes of the type-server-map substream (offset 40).</summary>
    public int TypeServerMapSize { get; }

    /// <summary>The MFC type server index (offset 44).</summary>
    public uint MfcTypeServerIndex { get; }

    /// <summary>Size in bytes of the optional debug header substream (offset 48).</summary>
    public int OptionalDebugHeaderSize { get; }

    /// <summary>Size in bytes of the edit-and-continue substream (offset 52).</summary>
    public int ECSubstreamSize { get; }

    /// <summary>The raw flags (offset 56): 0x1 incrementally linked, 0x2 private symbols stripped, 0x4 conflicting
    /// types.</summary>
    public ushort Flags { get; }

    /// <summary>Whether the image was incrementally linked (flag 0x1).</summary>
    public bool IsIncrementallyLinked => (Flags & 0x1) != 0;

    /// <summary>Whether private symbols were stripped (flag 0x2), as in Microsoft's public PDBs.</summary>
    public bool IsStripped => (Flags & 0x2) != 0;

    /// <summary>Whether the PDB has conflicting types (flag 0x4).</summary>
    public bool HasConflictingTypes => (Flags & 0x4) != 0;

    /// <summary>The target machine (offset 58): <see cref="Machine.Amd64"/> (0x8664), <see cref="Machine.I386"/>
    /// (0x14C), ….</summary>
    public Machine Machine { get; }

    /// <summary>
    /// The optional debug header: one stream index per slot, <see langword="null"/> for an absent slot or stream (−1).
    /// Slots: 0 FPO, 1 exception, 2 fixup, 3 OMAP to source, 4 OMAP from source, 5 section headers, 6 token/RID map,
    /// 7 xdata, 8 pdata, 9 new FPO, 10 original section headers.
    /// </summary>
    public IReadOnlyList<int?> DebugStreams { get; }

    /// <summary>The OMAP "to source" stream (slot 3): image RVA to original RVA; <see langword="null"/> when
    /// absent.</summary>
    public int? OmapToSourceStreamIndex => Slot(3);

    /// <summary>The OMAP "from source" stream (slot 4): original RVA to image RVA; <see langword="null"/> when
    /// absent.</summary>
    public int? OmapFromSourceStreamIndex => Slot(4);

    /// <summary>The section header stream (slot 5); <see langword="null"/> when absent.</summary>
    public int? SectionHeaderStreamIndex => Slot(5);

    /// <summary>The original (pre-OMAP) section header stream (slot 10); <see langword="null"/> when absent.</summary>
    public int? OriginalSectionHeaderStreamIndex => Slot(10);

    /// <summary>The offset of the optional debug header in the DBI stream (for locating errors about its
    /// slots).</summary>
    internal long DebugHeaderOffset { get; }

    /// <summary>The DBI stream offset of slot <paramref name="slot"/> of the optional debug header.</summary>
    internal long SlotOffset(int slot) => DebugHeaderOffset + (2L * slot);

    private int? Slot(int index) => index < DebugStreams.Count ? DebugStreams[index] : null;

    private static int? NullIfNil(ushort index) => index == 0xFFFF ? null : index;
}

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>How resolved frames are written.</summary>
public enum FrameStyle
{
    /// <summary>
    /// As SQL Server writes frames it symbolizes itself (trace flag 3656): module file name with its extension,
    /// <c>!</c>, the function, <c>+0x</c> and the displacement in lower-case hex:
    /// <c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>. Offline-resolved and in-engine frames then read the
    /// same, so stacks from both bucket together. The default.
    /// </summary>
    Engine,

    /// <summary>
    /// As microsoft/SQLCallStackResolver writes them: module without <c>.dll</c>/<c>.exe</c>, decimal displacement:
    /// <c>sqlmin!XeSqlPkg::latch_acquired::Publish+425</c>.
    /// </summary>
    Resolver,

    /// <summary>As WinDbg's <c>k</c> writes them: module without extension, <c>+0x</c> hex displacement:
    /// <c>sqlmin!XeSqlPkg::latch_acquired::Publish+0x1a9</c>.</summary>
    WinDbg,
}

/// <summary>How a frame got (or did not get) its symbol.</summary>
public enum FrameResolutionStatus
{
    /// <summary>The capture already held the symbol (in-engine symbolization with trace flag 3656, or a resolver's
    /// output); only normalised to the chosen style.</summary>
    InEngine,

    /// <summary>Looked up offline in a PDB.</summary>
    ResolvedOffline,

    /// <summary>Not resolved: <see cref="FrameResolution.Reason"/> says why; the frame is written as it was
    /// captured.</summary>
    Unresolved,
}

/// <summary>Why a frame stayed unresolved.</summary>
public enum UnresolvedReason
{
    /// <summary>The frame is resolved (no reason).</summary>
    None,

    /// <summary>No PDB of the module's build was found along the symbol path (or on the symbol server).</summary>
    NoPdb,

    /// <summary>The PDB was found but could not be read (truncated, damaged symbol streams).</summary>
    PdbDamaged,

    /// <summary>The RVA lies before the first symbol of the PDB (image headers, uncovered padding).</summary>
    BeforeFirstSymbol,

    /// <summary>A raw virtual address, but no module list (<c>sys.dm_os_loaded_modules</c>) was given.</summary>
    NoModuleMap,

    /// <summary>A raw virtual address outside every module of the module list.</summary>
    NoModuleForAddress,

    /// <summary>An <c>OrdinalN</c> frame, but the module's DLL (its export table) was not given.</summary>
    OrdinalNeedsDll,

    /// <summary>An <c>OrdinalN</c> frame whose DLL has no code export with that ordinal (absent, or forwarded to
    /// another DLL).</summary>
    OrdinalNotExported,

    /// <summary>A <c>callstack_rva</c> frame without PDB name, GUID/age or RVA (an unresolvable module, an abbreviated
    /// frame with no full frame before it).</summary>
    IncompleteFrame,

    /// <summary>The RVA does not fit in 32 bits, so it cannot be an address inside a PE image.</summary>
    RvaOutOfRange,

    /// <summary>The RVA lies past the end of the image the PDB describes: the PDB (or the DLL it was identified from)
    /// is of another build.</summary>
    BeyondImage,
}

/// <summary>What the frames of one stack are, as captured (before offline resolution).</summary>
public enum StackShape
{
    /// <summary>The stack holds no frame (text only, an event without callstack, an empty target).</summary>
    NoFrames,

    /// <summary>
    /// Symbolized in-engine (trace flag 3656 up to SQL Server 2017; 3656 and 2592 from 2019), possibly with
    /// module+offset frames of modules SQL Server has no PDB for (ntdll, KERNEL32).
    /// </summary>
    SymbolizedInEngine,

    /// <summary>Module+offset frames only (<c>sqldk.dll+0x00000000000FD919</c>): no trace flag, or 3656 without 2592 on
    /// 2019+.</summary>
    ModuleOffset,

    /// <summary>Raw virtual addresses only (<c>0x00007FFEABD0D919</c>, as read from <c>.xel</c> files).</summary>
    RawAddresses,

    /// <summary>Export ordinals (<c>sqlmin.dll!Ordinal1634+0x76c</c>), usually among symbolized frames: trace flag 3656
    /// was on but some PDBs were not in Binn.</summary>
    Ordinals,

    /// <summary>SQL Server 2022+ <c>callstack_rva</c> frames carrying PDB name, GUID, age and RVA.</summary>
    CallstackRva,

    /// <summary>Any other combination.</summary>
    Mixed,
}

/// <summary>Where the PDB identity (GUID and age) used for a module came from.</summary>
internal enum PdbIdentitySource
{
    /// <summary>Nothing identified the build: a PDB found by name only is used, and its frames are marked
    /// unverified.</summary>
    None,

    /// <summary>The <c>callstack_rva</c> frame itself.</summary>
    Frame,

    /// <summary>CSV symbol metadata (in the input, or given in the options).</summary>
    SymbolMetadata,

    /// <summary>The module's DLL/EXE (its RSDS record) in a binaries folder.</summary>
    Binary,

    /// <summary>The SQL Server build catalog entry of the build given.</summary>
    BuildCatalog,
}

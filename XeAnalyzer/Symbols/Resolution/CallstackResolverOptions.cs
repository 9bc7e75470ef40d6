using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Settings of a <see cref="CallstackResolver"/>: where PDBs are found, what identifies each module's build, and how
/// frames are written. Immutable once built (init-only properties).
/// </summary>
/// <remarks>
/// <para><b>Which PDB build a module's frames are looked up in</b>, first match wins: the <c>callstack_rva</c> frame's
/// own GUID/age; CSV symbol metadata (of the input, then <see cref="SymbolMetadata"/>); the RSDS record of the module's
/// DLL in <see cref="Binaries"/>; the entry of <see cref="SqlBuild"/>; otherwise nothing identifies the build, and a
/// PDB is matched by name only, and only from the folders named for it
/// (<see cref="SymbolStoreOptions.NameOnlyFolders"/>; never a cache or symbol store), when exactly one build of that
/// name is there: its frames then carry <c> -- unverified: PDB matched by name only</c> in their text, in every
/// output.</para>
/// </remarks>
public sealed class CallstackResolverOptions
{
    /// <summary>The defaults: empty symbol path (nothing resolves offline), engine style with offsets.</summary>
    public static CallstackResolverOptions Default { get; } = new();

    /// <summary>
    /// The locator to find PDBs with (not disposed by the resolver). When <see langword="null"/>, the resolver creates
    /// one from
    /// <see cref="SymbolPath"/> and <see cref="StoreOptions"/> and disposes it.
    /// </summary>
    public SymbolLocator? Locator { get; init; }

    /// <summary>The symbol path used when <see cref="Locator"/> is <see langword="null"/>;
    /// <see cref="Store.SymbolPath.Empty"/> by default.</summary>
    public SymbolPath? SymbolPath { get; init; }

    /// <summary>Symbol-store settings used when <see cref="Locator"/> is <see langword="null"/> (network, timeouts,
    /// caches).</summary>
    public SymbolStoreOptions? StoreOptions { get; init; }

    /// <summary>
    /// No network at all: when the resolver creates its locator, <see cref="SymbolStoreOptions.Offline"/> is forced on
    /// (only folders, stores and caches are searched). Has no effect on a <see cref="Locator"/> given by the caller.
    /// </summary>
    public bool Offline { get; init; }

    /// <summary>The module list for raw virtual addresses (<c>sys.dm_os_loaded_modules</c>), used when a session is
    /// given none.</summary>
    public ModuleMap? ModuleMap { get; init; }

    /// <summary>Module → PDB identities known in advance (CSV symbol metadata read separately); an input's own metadata
    /// takes precedence.</summary>
    internal IReadOnlyList<ModulePdbInfo>? SymbolMetadata { get; init; }

    /// <summary>The SQL Server build the capture came from (an entry of the build catalog): the PDB identity of each
    /// engine module.</summary>
    public SqlBuildInfo? SqlBuild { get; init; }

    /// <summary>The DLLs/EXEs of the capture's build (<see cref="ModuleBinaries.Scan"/>): RSDS identities, and export
    /// tables for <c>OrdinalN</c> frames.</summary>
    public ModuleBinaries? Binaries { get; init; }

    /// <summary>How frames are written; <see cref="FrameStyle.Engine"/> by default.</summary>
    public FrameStyle Style { get; init; } = FrameStyle.Engine;

    /// <summary>Whether displacements are written (<c>+0x1a9</c>); <see langword="true"/> by default.</summary>
    public bool IncludeOffsets { get; init; } = true;

    /// <summary>
    /// Whether frames resolved through a private PDB get their source file and line, from the PDB's C13 line table at
    /// the frame's address (<see cref="Pdb.PdbFile.GetSourceInfo"/>): <c> [C:\src\latch.cpp @ 123]</c> in the engine
    /// and WinDbg styles,
    /// <c>\t(C:\src\latch.cpp:123)</c> in the resolver style (see <see cref="FrameStyle"/>). Frames resolved through
    /// public PDBs (no line table) are written exactly as without it. <see langword="false"/> by default, so bucketing
    /// does not change.
    /// </summary>
    public bool IncludeSourceLines { get; init; }

    /// <summary>
    /// Whether a frame inside code the compiler inlined (a private PDB's <c>S_INLINESITE</c> records) is preceded by
    /// its inline chain, innermost first, each frame written as <c>(Inline Function) {module}!{inlined
    /// function}+{displacement}</c> (the displacement from the start of the inline site's code block holding the
    /// address), with its source line when <see cref="IncludeSourceLines"/> is set. The chain is
    /// <see cref="FrameResolution.InlineFrames"/>; <see cref="FrameResolution.Text"/> stays the frame itself.
    /// <see langword="false"/> by default.
    /// </summary>
    public bool IncludeInlineFrames { get; init; }

    /// <summary>
    /// Receives <see cref="WorkKind.Resolving"/> reports while stack bucketing symbolizes an input (distinct addresses,
    /// then distinct text stacks, done of their total; the item is the input's name), about once per thousand and once
    /// at the end;
    /// <see langword="null"/> (the default) for none.
    /// </summary>
    public IProgress<WorkProgress>? Progress { get; init; }

    /// <summary>Caps on PDB sizes and counts; <see cref="PdbReaderLimits.Default"/> when
    /// <see langword="null"/>.</summary>
    internal PdbReaderLimits? PdbLimits { get; init; }

    /// <summary>
    /// The most distinct addresses (and distinct in-engine symbols) whose resolution is cached; further ones are
    /// resolved each time they occur. Bounds memory on inputs with millions of distinct addresses (each entry costs
    /// about 200 bytes); 65,536 by default. An address enters the cache when it is resolved a second time, so addresses
    /// that occur once never take a place. Stack bucketing resolves each distinct address of an input once whatever
    /// this is; the cache serves repeated frames across inputs and in <c>resolve</c> text.
    /// </summary>
    public int MaxCachedFrames
    {
        get => _maxCachedFrames;
        init =>
            _maxCachedFrames =
                value >= 0
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a non-negative count");
    }

    private readonly int _maxCachedFrames = 65_536;
}

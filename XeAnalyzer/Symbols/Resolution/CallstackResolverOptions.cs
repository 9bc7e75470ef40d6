using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Settings of a <see cref="CallstackResolver"/>: where PDBs are found, what identifies each module's build, and how frames are written.
/// Immutable once built (init-only properties).
/// </summary>
/// <remarks>
/// <para><b>Which PDB build a module's frames are looked up in</b>, first match wins: the <c>callstack_rva</c> frame's own GUID/age;
/// CSV symbol metadata (of the input, then <see cref="SymbolMetadata"/>); the RSDS record of the module's DLL in <see cref="Binaries"/>;
/// the entry of <see cref="SqlBuild"/>; otherwise nothing identifies the build, and a PDB found by name only (exactly one build of that
/// name along the symbol path) is used with its frames marked unverified.</para>
/// </remarks>
public sealed class CallstackResolverOptions
{
    /// <summary>The defaults: empty symbol path (nothing resolves offline), engine style with offsets.</summary>
    public static CallstackResolverOptions Default { get; } = new();

    /// <summary>
    /// The locator to find PDBs with (not disposed by the resolver). When <see langword="null"/>, the resolver creates one from
    /// <see cref="SymbolPath"/> and <see cref="StoreOptions"/> and disposes it.
    /// </summary>
    public SymbolLocator? Locator { get; init; }

    /// <summary>The symbol path used when <see cref="Locator"/> is <see langword="null"/>; <see cref="Store.SymbolPath.Empty"/> by default.</summary>
    public SymbolPath? SymbolPath { get; init; }

    /// <summary>Symbol-store settings used when <see cref="Locator"/> is <see langword="null"/> (network, timeouts, caches).</summary>
    public SymbolStoreOptions? StoreOptions { get; init; }

    /// <summary>
    /// No network at all: when the resolver creates its locator, <see cref="SymbolStoreOptions.Offline"/> is forced on
    /// (only folders, stores and caches are searched). Has no effect on a <see cref="Locator"/> given by the caller.
    /// </summary>
    public bool Offline { get; init; }

    /// <summary>The module list for raw virtual addresses (<c>sys.dm_os_loaded_modules</c>), used when a session is given none.</summary>
    public ModuleMap? ModuleMap { get; init; }

    /// <summary>Module → PDB identities known in advance (CSV symbol metadata read separately); an input's own metadata takes precedence.</summary>
    public IReadOnlyList<ModulePdbInfo>? SymbolMetadata { get; init; }

    /// <summary>The SQL Server build the capture came from (an entry of the build catalog): the PDB identity of each engine module.</summary>
    public SqlBuildInfo? SqlBuild { get; init; }

    /// <summary>The DLLs/EXEs of the capture's build (<see cref="ModuleBinaries.Scan"/>): RSDS identities, and export tables for <c>OrdinalN</c> frames.</summary>
    public ModuleBinaries? Binaries { get; init; }

    /// <summary>How frames are written; <see cref="FrameStyle.Engine"/> by default.</summary>
    public FrameStyle Style { get; init; } = FrameStyle.Engine;

    /// <summary>Whether displacements are written (<c>+0x1a9</c>); <see langword="true"/> by default.</summary>
    public bool IncludeOffsets { get; init; } = true;

    /// <summary>
    /// Whether a PDB found by name only may be used when nothing identifies the module's build (its frames are then marked unverified);
    /// <see langword="true"/> by default.
    /// </summary>
    public bool AllowUnverifiedPdbs { get; init; } = true;

    /// <summary>Caps on PDB sizes and counts; <see cref="PdbReaderLimits.Default"/> when <see langword="null"/>.</summary>
    public PdbReaderLimits? PdbLimits { get; init; }

    /// <summary>
    /// The most distinct addresses (and distinct in-engine symbols) whose resolution is cached; further ones are resolved each time they
    /// occur. Bounds memory on inputs with millions of distinct addresses (each entry costs about 200 bytes); 65,536 by default.
    /// Stack bucketing resolves each distinct address of an input once whatever this is; the cache serves repeated frames across
    /// inputs and in <c>resolve</c> text.
    /// </summary>
    public int MaxCachedFrames
    {
        get => _maxCachedFrames;
        init => _maxCachedFrames = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a non-negative count");
    }

    private readonly int _maxCachedFrames = 65_536;
}

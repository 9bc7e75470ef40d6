using System.Collections.Concurrent;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Resolves callstack frames of any shape offline: module+offset, raw virtual addresses (with a module map), export
/// ordinals (with the DLLs), SQL Server 2022+ <c>callstack_rva</c> frames and frames SQL Server already symbolized,
/// into
/// <c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c> (or the <see cref="FrameStyle"/> chosen), with a reason
/// for every frame that stays unresolved. No DIA, no Windows: PDBs are read by <see cref="Pdb.PdbFile"/> and found by
/// <see cref="SymbolLocator"/>.
/// </summary>
/// <remarks>
/// <para><b>Sessions.</b> Inputs differ in module map and CSV symbol metadata, so resolution runs in a
/// <see cref="ResolverSession"/> (<see cref="CreateSession"/>); the resolver's own <c>Resolve</c> methods use a default
/// session built from
/// <see cref="CallstackResolverOptions.ModuleMap"/> and <see cref="CallstackResolverOptions.SymbolMetadata"/>.</para>
/// <para><b>Caching.</b> Each PDB build (name + GUID/age) is found and opened once per resolver, its sorted symbol
/// index kept and the file closed; a PDB that cannot be found or read becomes the reason of its frames, never an
/// exception. A distinct address (module identity + RVA) that occurs again is cached from its second resolution, and
/// each distinct in-engine symbol from its first, up to <see cref="CallstackResolverOptions.MaxCachedFrames"/> entries
/// in all.</para>
/// <para><b>Thread safety.</b> All members may be called concurrently.</para>
/// </remarks>
public sealed class CallstackResolver : IDisposable
{
    private readonly ConcurrentDictionary<PdbKey, PdbHandle> _pdbs = new();
    private readonly Dictionary<string, SqlBuildPdb> _catalog = new(StringComparer.Ordinal);
    private readonly SymbolLocator _locator;
    private readonly bool _ownsLocator;
    private readonly List<string> _warnings = [];
    private readonly Lazy<ResolverSession> _defaultSession;
    private int _cachedFrames;

    /// <summary>Creates a resolver.</summary>
    /// <param name="options">Settings; <see cref="CallstackResolverOptions.Default"/> when
    /// <see langword="null"/>.</param>
    public CallstackResolver(CallstackResolverOptions? options = null)
    {
        Options = options ?? CallstackResolverOptions.Default;
        if (Options.Locator is not null)
        {
            _locator = Options.Locator;
        }
        else
        {
            SymbolStoreOptions store = Options.StoreOptions ?? SymbolStoreOptions.Default;
            if (Options.Offline && !store.Offline)
            {
                store = CopyOffline(store);
            }

            _locator = new SymbolLocator(Options.SymbolPath ?? SymbolPath.Empty, store);
            _ownsLocator = true;
        }

        _warnings.AddRange(_locator.SymbolPath.Warnings.Select(w => "symbol path: " + w));
        if (Options.Binaries is not null)
        {
            _warnings.AddRange(Options.Binaries.Warnings.Select(w => "binaries: " + w));
        }

        if (Options.SqlBuild is SqlBuildInfo build)
        {
            foreach (SqlBuildPdb pdb in build.Pdbs)
            {
                _catalog.TryAdd(ModuleName.KeyOf(pdb.Name), pdb);
            }
        }

        _defaultSession = new Lazy<ResolverSession>(
            () => CreateSession(Options.ModuleMap, Options.SymbolMetadata),
            LazyThreadSafetyMode.ExecutionAndPublication
        );
    }

    /// <summary>The settings in force.</summary>
    public CallstackResolverOptions Options { get; }

    /// <summary>The locator PDBs are found with.</summary>
    public SymbolLocator Locator => _locator;

    /// <summary>
    /// Problems with the setup: unusable symbol-path elements, binaries that are not PE images or exist in two builds;
    /// and the symbol servers that failed so far (a redirect not followed, a timeout, a rejected download), which were
    /// skipped.
    /// </summary>
    public IReadOnlyList<string> Warnings =>
        [.. _warnings, .. _locator.GetServerProblems().Select(p => "symbol server skipped: " + p)];

    /// <summary>
    /// The PDBs looked up so far (found, damaged or missing), ordered by name then identity: what was searched and what
    /// was used.
    /// </summary>
    public IReadOnlyList<PdbBinding> GetPdbBindings() =>
        _pdbs
            .Values.Where(h => h.Attempted)
            .Select(h => h.Binding)
            .OrderBy(b => b.PdbName, StringComparer.OrdinalIgnoreCase)
            .ThenBy(b => b.Identity?.Key ?? string.Empty, StringComparer.Ordinal)
            .ToList()
            .AsReadOnly();

    /// <summary>Starts a session for one input: its module map and CSV symbol metadata.</summary>
    /// <param name="moduleMap">The module list for the input's raw addresses;
    /// <see cref="CallstackResolverOptions.ModuleMap"/> when <see langword="null"/>.</param>
    /// <param name="symbolMetadata">The input's module → PDB identities (they take precedence over
    /// <see cref="CallstackResolverOptions.SymbolMetadata"/>).</param>
    /// <returns>The session.</returns>
    internal ResolverSession CreateSession(
        ModuleMap? moduleMap = null,
        IEnumerable<ModulePdbInfo>? symbolMetadata = null
    ) => new(this, moduleMap ?? Options.ModuleMap, symbolMetadata);

    /// <summary>Resolves every frame of a stack in the default session (see
    /// <see cref="ResolverSession.Resolve(Callstack, CancellationToken)"/>).</summary>
    /// <param name="stack">The stack.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolved stack.</returns>
    public ResolvedCallstack Resolve(Callstack stack, CancellationToken cancellationToken = default) =>
        _defaultSession.Value.Resolve(stack, cancellationToken);

    /// <summary>Resolves one frame in the default session.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The frame with its resolution.</returns>
    public ResolvedFrame Resolve(StackFrame frame, CancellationToken cancellationToken = default) =>
        _defaultSession.Value.Resolve(frame, cancellationToken);

    /// <summary>Resolves raw return addresses (an <c>.xel</c> callstack) with
    /// <see cref="CallstackResolverOptions.ModuleMap"/>.</summary>
    /// <param name="addresses">The virtual addresses, leaf first.</param>
    /// <param name="destination">Receives one resolution per address; at least as long as
    /// <paramref name="addresses"/>.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    public void ResolveAddresses(
        ReadOnlySpan<ulong> addresses,
        Span<FrameResolution> destination,
        CancellationToken cancellationToken = default
    ) => _defaultSession.Value.ResolveAddresses(addresses, destination, cancellationToken);

    /// <summary>Closes the PDBs kept open for source lines and inline frames, and disposes the locator when the
    /// resolver created it.</summary>
    public void Dispose()
    {
        foreach (PdbHandle h in _pdbs.Values)
        {
            h.Dispose();
        }

        if (_ownsLocator)
        {
            _locator.Dispose();
        }
    }

    internal bool TryReserveCacheEntry() =>
        Volatile.Read(ref _cachedFrames) < Options.MaxCachedFrames
        && Interlocked.Increment(ref _cachedFrames) <= Options.MaxCachedFrames;

    internal bool TryGetCatalogPdb(ModuleName module, out SqlBuildPdb pdb) =>
        _catalog.TryGetValue(module.Key, out pdb!);

    internal PdbHandle GetPdb(string pdbName, PdbIdentity? identity, PdbIdentitySource source) =>
        _pdbs.GetOrAdd(
            new PdbKey(pdbName, identity),
            static (k, a) =>
                new PdbHandle(
                    a.Name,
                    k.Identity,
                    a.Source,
                    a.Self._locator,
                    a.Self.Options.PdbLimits,
                    a.Self.Options.IncludeSourceLines || a.Self.Options.IncludeInlineFrames
                ),
            (Name: pdbName, Source: source, Self: this)
        );

    private static SymbolStoreOptions CopyOffline(SymbolStoreOptions s) =>
        new()
        {
            Offline = true,
            ConnectTimeout = s.ConnectTimeout,
            Timeout = s.Timeout,
            MaxRetries = s.MaxRetries,
            RetryDelay = s.RetryDelay,
            MaxDownloadBytes = s.MaxDownloadBytes,
            MaxExpandedBytes = s.MaxExpandedBytes,
            DefaultCacheDirectory = s.DefaultCacheDirectory,
            SearchFoldersRecursively = s.SearchFoldersRecursively,
            MaxSearchDepth = s.MaxSearchDepth,
            AllowPointerTargetsOutsideSymbolPath = s.AllowPointerTargetsOutsideSymbolPath,
            NameOnlyFolders = s.NameOnlyFolders,
            MaxParallelDownloads = s.MaxParallelDownloads,
            UserAgent = s.UserAgent,
        };

    /// <summary>A PDB build: the name in any letter case and the identity (or none).</summary>
    private readonly struct PdbKey(string name, PdbIdentity? identity) : IEquatable<PdbKey>
    {
        public string Name { get; } = name;

        public PdbIdentity? Identity { get; } = identity;

        public bool Equals(PdbKey other) =>
            Identity == other.Identity && string.Equals(Name, other.Name, StringComparison.OrdinalIgnoreCase);

        public override bool Equals(object? obj) => obj is PdbKey k && Equals(k);

        public override int GetHashCode() =>
            HashCode.Combine(StringComparer.OrdinalIgnoreCase.GetHashCode(Name), Identity);
    }
}

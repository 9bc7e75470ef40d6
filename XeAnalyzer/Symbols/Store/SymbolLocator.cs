using System.Collections.Concurrent;
using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// Finds PDBs along a <see cref="SymbolPath"/>: plain folders, local symbol stores and caches (probed in every letter
/// case, flat and two-tier layouts, <c>.pd_</c> cabinets, <c>file.ptr</c> pointers), then HTTP symbol servers
/// (downloaded into the chain's cache, verified before use, written atomically). Every candidate's GUID and age are
/// checked against the request; a file with another identity is never returned. All local locations are searched before
/// any server is asked.
/// </summary>
/// <remarks>
/// <para>Thread safety: all members may be called concurrently. Lookups of the same PDB (name in any case, same
/// identity) are coalesced: one search and at most one download run, and the result is remembered for the locator's
/// lifetime (a session), including "not found" and server 404s.</para>
/// <para>Untrusted names: PDB names must pass <see cref="PdbNames.IsValid"/>; a rejected name is reported, never used
/// in a path or URL.</para>
/// </remarks>
public sealed partial class SymbolLocator : IDisposable
{
    private readonly List<LocalLocation> _local = [];
    private readonly List<LocalLocation> _nameOnly = [];
    private readonly List<ServerLocation> _servers = [];
    private readonly List<string> _allowedRoots = [];
    private readonly ConcurrentDictionary<LookupKey, Lazy<Task<PdbLookupResult>>> _lookups = new();
    private readonly CancellationTokenSource _lifetime = new();
    private readonly string _defaultCache;
    private int _disposed;

    /// <summary>Creates a locator for <paramref name="symbolPath"/>.</summary>
    /// <param name="symbolPath">Where to search, in order.</param>
    /// <param name="options">Network, timeout, cap and cache settings; <see cref="SymbolStoreOptions.Default"/> when
    /// null.</param>
    public SymbolLocator(SymbolPath symbolPath, SymbolStoreOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(symbolPath);
        SymbolPath = symbolPath;
        Options = options ?? SymbolStoreOptions.Default;
        _defaultCache = Path.TrimEndingDirectorySeparator(
            Path.GetFullPath(Options.DefaultCacheDirectory ?? SymbolStoreOptions.GetDefaultCacheDirectory())
        );
        BuildPlan();
        foreach (string folder in Options.NameOnlyFolders)
        {
            string full = Path.TrimEndingDirectorySeparator(Path.GetFullPath(folder));
            if (!_nameOnly.Exists(l => l.Directory == full))
            {
                _nameOnly.Add(new LocalLocation(full, IsPlainFolder: true, _defaultCache));
            }
        }

        if (!Options.Offline && _servers.Count > 0)
        {
            _http = CreateHttpClient(Options);
        }
    }

    /// <summary>The symbol path searched.</summary>
    public SymbolPath SymbolPath { get; }

    /// <summary>The settings in force.</summary>
    public SymbolStoreOptions Options { get; }

    /// <summary>The default cache directory in force (from the options or the per-user default).</summary>
    public string DefaultCacheDirectory => _defaultCache;

    /// <summary>
    /// Finds the PDB <paramref name="pdbName"/> with <paramref name="identity"/>, synchronously (for resolvers running
    /// on worker threads). Equivalent to <see cref="LocatePdbAsync"/>; local-only lookups complete without blocking on
    /// I/O completion ports.
    /// </summary>
    /// <param name="pdbName">The PDB file name (<c>sqlmin.pdb</c>); must pass <see cref="PdbNames.IsValid"/>.</param>
    /// <param name="identity">The GUID and age, or <see langword="null"/> when nothing identifies the build (then a
    /// unique name match is returned as <see cref="PdbLookupStatus.Unverified"/>).</param>
    /// <param name="cancellationToken">Stops waiting; a shared download already running continues for the other
    /// callers.</param>
    /// <returns>The lookup result; never throws for missing or bad files (see
    /// <see cref="PdbLookupResult.Reasons"/>).</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    /// <exception cref="ObjectDisposedException">The locator was disposed.</exception>
    public PdbLookupResult LocatePdb(
        string pdbName,
        PdbIdentity? identity,
        CancellationToken cancellationToken = default
    ) => LocatePdbAsync(pdbName, identity, cancellationToken).GetAwaiter().GetResult();

    /// <summary>Finds the PDB <paramref name="pdbName"/> with <paramref name="identity"/>; see
    /// <see cref="LocatePdb"/>.</summary>
    /// <param name="pdbName">The PDB file name (<c>sqlmin.pdb</c>); must pass <see cref="PdbNames.IsValid"/>.</param>
    /// <param name="identity">The GUID and age, or <see langword="null"/> when nothing identifies the build.</param>
    /// <param name="cancellationToken">Stops waiting; a shared download already running continues for the other
    /// callers.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    /// <exception cref="ObjectDisposedException">The locator was disposed.</exception>
    public Task<PdbLookupResult> LocatePdbAsync(
        string pdbName,
        PdbIdentity? identity,
        CancellationToken cancellationToken = default
    )
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (!PdbNames.IsValid(pdbName, out string? problem))
        {
            return Task.FromResult(
                NotFound(pdbName ?? string.Empty, identity, [problem + "; rejected, nothing was searched"])
            );
        }

        Lazy<Task<PdbLookupResult>> lookup = _lookups.GetOrAdd(
            new LookupKey(pdbName, identity),
            _ => new Lazy<Task<PdbLookupResult>>(
                () => LocateCoreAsync(pdbName, identity, _lifetime.Token),
                LazyThreadSafetyMode.ExecutionAndPublication
            )
        );
        Task<PdbLookupResult> task = lookup.Value;
        return task.IsCompleted || !cancellationToken.CanBeCanceled ? task : task.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Makes sure the PDB is available locally, downloading it into the cache when needed (for <c>xeanalyze symbols
    /// fetch</c>). A file already present in a folder or store is not copied.
    /// </summary>
    /// <param name="pdbName">The PDB file name.</param>
    /// <param name="identity">The GUID and age (required: a server is only asked for a known build).</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public Task<PdbLookupResult> FetchAsync(
        string pdbName,
        PdbIdentity identity,
        CancellationToken cancellationToken = default
    ) => LocatePdbAsync(pdbName, identity, cancellationToken);

    /// <summary>Fetches several PDBs, synchronously (for a command line); see
    /// <see cref="FetchAsync(IEnumerable{PdbRequest}, CancellationToken)"/>.</summary>
    /// <param name="requests">The PDBs to fetch.</param>
    /// <param name="cancellationToken">Stops the downloads.</param>
    /// <returns>One result per request, in request order.</returns>
    public IReadOnlyList<PdbLookupResult> Fetch(
        IEnumerable<PdbRequest> requests,
        CancellationToken cancellationToken = default
    ) => FetchAsync(requests, cancellationToken).GetAwaiter().GetResult();

    /// <summary>
    /// Fetches many PDBs, at most <see cref="SymbolStoreOptions.MaxParallelDownloads"/> at a time; results are in
    /// request order. Requests without an identity are not searched (a server cannot be asked for an unknown build).
    /// </summary>
    /// <param name="requests">The PDBs to fetch.</param>
    /// <param name="cancellationToken">Stops the batch.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public async Task<IReadOnlyList<PdbLookupResult>> FetchAsync(
        IEnumerable<PdbRequest> requests,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(requests);
        PdbRequest[] list = requests.ToArray();
        var results = new PdbLookupResult[list.Length];
        using var gate = new SemaphoreSlim(Options.MaxParallelDownloads);
        var tasks = new Task[list.Length];
        for (int i = 0; i < list.Length; i++)
        {
            int index = i;
            tasks[i] = Task.Run(
                async () =>
                {
                    PdbRequest r = list[index];
                    if (r.Identity is not PdbIdentity id)
                    {
                        results[index] = NotFound(
                            r.PdbName ?? string.Empty,
                            null,
                            ["no GUID/age given: a symbol server can only be asked for a known build"]
                        );
                        return;
                    }

                    await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
                    try
                    {
                        results[index] = await FetchAsync(r.PdbName, id, cancellationToken).ConfigureAwait(false);
                    }
                    finally
                    {
                        gate.Release();
                    }
                },
                cancellationToken
            );
        }

        await Task.WhenAll(tasks).ConfigureAwait(false);
        return results;
    }

    /// <summary>Cancels running downloads and releases the HTTP client.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        // The token source is canceled but not disposed: lookups still running may observe its token afterwards.
        _lifetime.Cancel();
        _http?.Dispose();
    }

    private static PdbLookupResult NotFound(
        string name,
        PdbIdentity? identity,
        IReadOnlyList<string> reasons,
        List<(string Path, string Damage)>? damaged = null
    ) =>
        new(
            name,
            identity,
            PdbLookupStatus.NotFound,
            null,
            null,
            PdbOrigin.None,
            null,
            false,
            false,
            reasons.ToArray().AsReadOnly(),
            damaged is { Count: > 0 } ? damaged[0].Path : null,
            damaged is { Count: > 0 } ? damaged[0].Damage : null
        );

    private void BuildPlan()
    {
        string? currentCache = null;
        foreach (SymbolPathElement e in SymbolPath.Elements)
        {
            switch (e.Kind)
            {
                case SymbolPathElementKind.Folder:
                    AddLocal(new LocalLocation(e.Directory!, IsPlainFolder: true, currentCache ?? _defaultCache));
                    break;
                case SymbolPathElementKind.Cache:
                    currentCache = e.Directory ?? _defaultCache;
                    AddLocal(new LocalLocation(currentCache, IsPlainFolder: false, currentCache));
                    break;
                case SymbolPathElementKind.SymbolServer:
                    string Resolve(SymbolStoreTier t) => t.Directory ?? currentCache ?? _defaultCache;
                    SymbolStoreTier first = e.Tiers[0];

                    // The downstream store is the first tier of a chain of two or more; a lone store is searched but
                    // not written to.
                    string downstream =
                        e.Tiers.Count >= 2 && !first.IsServer ? Resolve(first) : currentCache ?? _defaultCache;
                    foreach (SymbolStoreTier t in e.Tiers)
                    {
                        if (t.IsServer)
                        {
                            _servers.Add(new ServerLocation(t.Server!, downstream, e.Text));
                        }
                        else
                        {
                            AddLocal(new LocalLocation(Resolve(t), IsPlainFolder: false, downstream));
                        }
                    }

                    break;
            }
        }

        foreach (ServerLocation s in _servers)
        {
            AddRoot(s.Cache);
        }
    }

    private void AddLocal(LocalLocation location)
    {
        if (!_local.Exists(l => l.Directory == location.Directory && l.IsPlainFolder == location.IsPlainFolder))
        {
            _local.Add(location);
        }

        AddRoot(location.Directory);
        AddRoot(location.ExpansionCache);
    }

    private void AddRoot(string dir)
    {
        if (!_allowedRoots.Contains(dir))
        {
            _allowedRoots.Add(dir);
        }
    }

    private async Task<PdbLookupResult> LocateCoreAsync(
        string name,
        PdbIdentity? identity,
        CancellationToken cancellationToken
    )
    {
        var reasons = new List<string>();
        var damaged = new List<(string Path, string Damage)>();
        try
        {
            if (_local.Count == 0 && _servers.Count == 0 && (identity is not null || _nameOnly.Count == 0))
            {
                reasons.Add(
                    "the symbol path is empty"
                        + (
                            SymbolPath.Warnings.Count > 0
                                ? " ("
                                    + SymbolPath.Warnings.Count.ToString(CultureInfo.InvariantCulture)
                                    + " elements were unusable)"
                                : string.Empty
                        )
                );
                return NotFound(name, identity, reasons);
            }

            if (identity is not PdbIdentity id)
            {
                return LocateByNameOnly(name, reasons, cancellationToken);
            }

            foreach (LocalLocation location in _local)
            {
                cancellationToken.ThrowIfCancellationRequested();
                PdbLookupResult? found = ProbeLocal(location, name, id, reasons, damaged, cancellationToken);
                if (found is not null)
                {
                    return found;
                }
            }

            if (_servers.Count > 0)
            {
                if (_http is null)
                {
                    reasons.Add(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"offline: {_servers.Count} symbol server(s) not asked "
                                + $"({string.Join(", ", _servers.Select(s => s.Server.OriginalString))})"
                        )
                    );
                }
                else
                {
                    foreach (ServerLocation server in _servers)
                    {
                        PdbLookupResult? found = await TryServerAsync(server, name, id, reasons, cancellationToken)
                            .ConfigureAwait(false);
                        if (found is not null)
                        {
                            return found;
                        }
                    }
                }
            }

            reasons.Add(
                name
                    + " "
                    + id.ToString()
                    + " was not found in "
                    + (_local.Count + _servers.Count).ToString(CultureInfo.InvariantCulture)
                    + " location(s)"
            );
            return NotFound(name, identity, reasons, damaged);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            reasons.Add("the lookup was canceled (the locator was disposed)");
            return NotFound(name, identity, reasons);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // A folder vanished or became unreadable during the search: report it rather than fail the caller's
            // resolution.
            reasons.Add("the search stopped on an I/O error: " + ex.Message);
            return NotFound(name, identity, reasons);
        }
    }

    private static PdbLookupResult Found(
        string name,
        PdbIdentity? requested,
        PdbLookupStatus status,
        string path,
        PdbIdentity actual,
        PdbOrigin origin,
        string where,
        bool expanded,
        bool pointer,
        List<string> reasons
    ) =>
        new(
            name,
            requested,
            status,
            Path.GetFullPath(path),
            actual,
            origin,
            where,
            expanded,
            pointer,
            reasons.ToArray().AsReadOnly()
        );

    /// <summary>A lookup's identity for coalescing: the name in any letter case, and the GUID/age (or none).</summary>
    private readonly struct LookupKey(string name, PdbIdentity? identity) : IEquatable<LookupKey>
    {
        private readonly string _name = name;
        private readonly PdbIdentity? _identity = identity;

        public bool Equals(LookupKey other) =>
            _identity == other._identity && string.Equals(_name, other._name, StringComparison.OrdinalIgnoreCase);

        public override bool Equals(object? obj) => obj is LookupKey other && Equals(other);

        public override int GetHashCode() =>
            HashCode.Combine(StringComparer.OrdinalIgnoreCase.GetHashCode(_name), _identity);
    }

    /// <summary>A local folder, store or cache to probe; <paramref name="ExpansionCache"/> receives PDBs expanded from
    /// <c>.pd_</c> files found there.</summary>
    private sealed record LocalLocation(string Directory, bool IsPlainFolder, string ExpansionCache);

    /// <summary>An HTTP(S) symbol server and the cache its downloads go to.</summary>
    private sealed record ServerLocation(Uri Server, string Cache, string Element);
}

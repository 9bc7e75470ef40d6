using System.Collections.Concurrent;
using System.Globalization;
using System.Net;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// Finds PDBs along a <see cref="SymbolPath"/>: plain folders, local symbol stores and caches (probed in every letter case,
/// flat and two-tier layouts, <c>.pd_</c> cabinets, <c>file.ptr</c> pointers), then HTTP symbol servers (downloaded into the
/// chain's cache, verified before use, written atomically). Every candidate's GUID and age are checked against the request;
/// a file with another identity is never returned. All local locations are searched before any server is asked.
/// </summary>
/// <remarks>
/// <para>Thread safety: all members may be called concurrently. Lookups of the same PDB (name in any case, same identity)
/// are coalesced: one search and at most one download run, and the result is remembered for the locator's lifetime
/// (a session), including "not found" and server 404s.</para>
/// <para>Untrusted names: PDB names must pass <see cref="PdbNames.IsValid"/>; a rejected name is reported, never used in a path or URL.</para>
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
    /// <param name="options">Network, timeout, cap and cache settings; <see cref="SymbolStoreOptions.Default"/> when null.</param>
    public SymbolLocator(SymbolPath symbolPath, SymbolStoreOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(symbolPath);
        SymbolPath = symbolPath;
        Options = options ?? SymbolStoreOptions.Default;
        _defaultCache = Path.TrimEndingDirectorySeparator(Path.GetFullPath(Options.DefaultCacheDirectory ?? SymbolStoreOptions.GetDefaultCacheDirectory()));
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
    /// Finds the PDB <paramref name="pdbName"/> with <paramref name="identity"/>, synchronously (for resolvers running on
    /// worker threads). Equivalent to <see cref="LocatePdbAsync"/>; local-only lookups complete without blocking on I/O completion ports.
    /// </summary>
    /// <param name="pdbName">The PDB file name (<c>sqlmin.pdb</c>); must pass <see cref="PdbNames.IsValid"/>.</param>
    /// <param name="identity">The GUID and age, or <see langword="null"/> when nothing identifies the build (then a unique name match is returned as <see cref="PdbLookupStatus.Unverified"/>).</param>
    /// <param name="cancellationToken">Stops waiting; a shared download already running continues for the other callers.</param>
    /// <returns>The lookup result; never throws for missing or bad files (see <see cref="PdbLookupResult.Reasons"/>).</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    /// <exception cref="ObjectDisposedException">The locator was disposed.</exception>
    public PdbLookupResult LocatePdb(string pdbName, PdbIdentity? identity, CancellationToken cancellationToken = default) =>
        LocatePdbAsync(pdbName, identity, cancellationToken).GetAwaiter().GetResult();

    /// <summary>Finds the PDB <paramref name="pdbName"/> with <paramref name="identity"/>; see <see cref="LocatePdb"/>.</summary>
    /// <param name="pdbName">The PDB file name (<c>sqlmin.pdb</c>); must pass <see cref="PdbNames.IsValid"/>.</param>
    /// <param name="identity">The GUID and age, or <see langword="null"/> when nothing identifies the build.</param>
    /// <param name="cancellationToken">Stops waiting; a shared download already running continues for the other callers.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    /// <exception cref="ObjectDisposedException">The locator was disposed.</exception>
    public Task<PdbLookupResult> LocatePdbAsync(string pdbName, PdbIdentity? identity, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (!PdbNames.IsValid(pdbName, out string? problem))
        {
            return Task.FromResult(NotFound(pdbName ?? string.Empty, identity, [problem + "; rejected, nothing was searched"]));
        }

        Lazy<Task<PdbLookupResult>> lookup = _lookups.GetOrAdd(
            new LookupKey(pdbName, identity),
            _ => new Lazy<Task<PdbLookupResult>>(() => LocateCoreAsync(pdbName, identity, _lifetime.Token), LazyThreadSafetyMode.ExecutionAndPublication));
        Task<PdbLookupResult> task = lookup.Value;
        return task.IsCompleted || !cancellationToken.CanBeCanceled ? task : task.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Makes sure the PDB is available locally, downloading it into the cache when needed (for <c>xeanalyze symbols fetch</c>).
    /// A file already present in a folder or store is not copied.
    /// </summary>
    /// <param name="pdbName">The PDB file name.</param>
    /// <param name="identity">The GUID and age (required: a server is only asked for a known build).</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public Task<PdbLookupResult> FetchAsync(string pdbName, PdbIdentity identity, CancellationToken cancellationToken = default) =>
        LocatePdbAsync(pdbName, identity, cancellationToken);

    /// <summary>Fetches several PDBs, synchronously (for a command line); see <see cref="FetchAsync(IEnumerable{PdbRequest}, CancellationToken)"/>.</summary>
    /// <param name="requests">The PDBs to fetch.</param>
    /// <param name="cancellationToken">Stops the downloads.</param>
    /// <returns>One result per request, in request order.</returns>
    public IReadOnlyList<PdbLookupResult> Fetch(IEnumerable<PdbRequest> requests, CancellationToken cancellationToken = default) =>
        FetchAsync(requests, cancellationToken).GetAwaiter().GetResult();

    /// <summary>
    /// Fetches many PDBs, at most <see cref="SymbolStoreOptions.MaxParallelDownloads"/> at a time; results are in request order.
    /// Requests without an identity are not searched (a server cannot be asked for an unknown build).
    /// </summary>
    /// <param name="requests">The PDBs to fetch.</param>
    /// <param name="cancellationToken">Stops the batch.</param>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled.</exception>
    public async Task<IReadOnlyList<PdbLookupResult>> FetchAsync(IEnumerable<PdbRequest> requests, CancellationToken cancellationToken = default)
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
                        results[index] = NotFound(r.PdbName ?? string.Empty, null, ["no GUID/age given: a symbol server can only be asked for a known build"]);
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
                cancellationToken);
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

    private static PdbLookupResult NotFound(string name, PdbIdentity? identity, IReadOnlyList<string> reasons, List<(string Path, string Damage)>? damaged = null) =>
        new(name, identity, PdbLookupStatus.NotFound, null, null, PdbOrigin.None, null, false, false, reasons.ToArray().AsReadOnly(),
            damaged is { Count: > 0 } ? damaged[0].Path : null, damaged is { Count: > 0 } ? damaged[0].Damage : null);

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

                    // The downstream store is the first tier of a chain of two or more; a lone store is searched but not written to.
                    string downstream = e.Tiers.Count >= 2 && !first.IsServer ? Resolve(first) : currentCache ?? _defaultCache;
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

    private async Task<PdbLookupResult> LocateCoreAsync(string name, PdbIdentity? identity, CancellationToken cancellationToken)
    {
        var reasons = new List<string>();
        var damaged = new List<(string Path, string Damage)>();
        try
        {
            if (_local.Count == 0 && _servers.Count == 0 && (identity is not null || _nameOnly.Count == 0))
            {
                reasons.Add("the symbol path is empty" + (SymbolPath.Warnings.Count > 0 ? " (" + SymbolPath.Warnings.Count.ToString(CultureInfo.InvariantCulture) + " elements were unusable)" : string.Empty));
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
                    reasons.Add(string.Create(CultureInfo.InvariantCulture, $"offline: {_servers.Count} symbol server(s) not asked ({string.Join(", ", _servers.Select(s => s.Server.OriginalString))})"));
                }
                else
                {
                    foreach (ServerLocation server in _servers)
                    {
                        PdbLookupResult? found = await TryServerAsync(server, name, id, reasons, cancellationToken).ConfigureAwait(false);
                        if (found is not null)
                        {
                            return found;
                        }
                    }
                }
            }

            reasons.Add(name + " " + id.ToString() + " was not found in " + (_local.Count + _servers.Count).ToString(CultureInfo.InvariantCulture) + " location(s)");
            return NotFound(name, identity, reasons, damaged);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            reasons.Add("the lookup was canceled (the locator was disposed)");
            return NotFound(name, identity, reasons);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // A folder vanished or became unreadable during the search: report it rather than fail the caller's resolution.
            reasons.Add("the search stopped on an I/O error: " + ex.Message);
            return NotFound(name, identity, reasons);
        }
    }

    private PdbLookupResult? ProbeLocal(LocalLocation location, string name, PdbIdentity id, List<string> reasons, List<(string Path, string Damage)> damaged, CancellationToken cancellationToken)
    {
        if (!Directory.Exists(location.Directory))
        {
            if (location.IsPlainFolder)
            {
                reasons.Add("folder " + location.Directory + " does not exist");
            }

            return null;
        }

        if (location.IsPlainFolder)
        {
            foreach (string candidate in FolderCandidates(location.Directory, name))
            {
                if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual))
                {
                    return Found(name, id, PdbLookupStatus.Verified, candidate, actual, PdbOrigin.Folder, location.Directory, false, false, reasons);
                }
            }
        }

        foreach (string nameDir in StoreLayout.NameFolders(location.Directory, name))
        {
            foreach (string keyDir in StoreLayout.Match(nameDir, id.Key, directories: true))
            {
                foreach (string candidate in StoreLayout.Match(keyDir, name, directories: false))
                {
                    if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual, out string? damage))
                    {
                        return Found(name, id, PdbLookupStatus.Verified, candidate, actual, PdbOrigin.Store, location.Directory, false, false, reasons);
                    }

                    if (damage is not null)
                    {
                        // Its key folder says it is the wanted build: a file there that cannot be read is a damaged PDB, not a missing one.
                        damaged.Add((Path.GetFullPath(candidate), damage));
                    }
                }

                foreach (string cab in StoreLayout.Match(keyDir, StoreLayout.CompressedName(name), directories: false))
                {
                    string? expanded = StoreLayout.ExpandCabinet(cab, name, id, location.ExpansionCache, Options.MaxExpandedBytes, reasons, cancellationToken);
                    if (expanded is not null)
                    {
                        return Found(name, id, PdbLookupStatus.Verified, expanded, id, PdbOrigin.Store, location.Directory, true, false, reasons);
                    }
                }

                foreach (string pointer in StoreLayout.Match(keyDir, StoreLayout.PointerFileName, directories: false))
                {
                    string? text = ReadPointerFile(pointer, reasons);
                    if (text is not null)
                    {
                        PdbLookupResult? viaPointer = FollowPointer(text, pointer, keyDir, name, id, location.ExpansionCache, PdbOrigin.Store, reasons, cancellationToken);
                        if (viaPointer is not null)
                        {
                            return viaPointer;
                        }
                    }
                }
            }
        }

        return null;
    }

    private IEnumerable<string> FolderCandidates(string folder, string name)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string direct in StoreLayout.Match(folder, name, directories: false))
        {
            if (seen.Add(direct))
            {
                yield return direct;
            }
        }

        if (!Options.SearchFoldersRecursively)
        {
            yield break;
        }

        var options = new EnumerationOptions
        {
            RecurseSubdirectories = true,
            MaxRecursionDepth = Options.MaxSearchDepth,
            MatchCasing = MatchCasing.CaseInsensitive,
            MatchType = MatchType.Simple,
            IgnoreInaccessible = true,
            AttributesToSkip = FileAttributes.Hidden | FileAttributes.System | FileAttributes.ReparsePoint,
        };
        int count = 0;
        foreach (string path in Directory.EnumerateFiles(folder, name, options))
        {
            if (seen.Add(path))
            {
                yield return path;
                if (++count >= MaxRecursiveCandidates)
                {
                    yield break;
                }
            }
        }
    }

    private const int MaxRecursiveCandidates = 256;

    private PdbLookupResult LocateByNameOnly(string name, List<string> reasons, CancellationToken cancellationToken)
    {
        // Nothing identifies the build: collect every file of that name in the folders named for name-only matching
        // (SymbolStoreOptions.NameOnlyFolders), and accept one only if all of them are the same build. Caches and stores never count.
        var byIdentity = new Dictionary<PdbIdentity, (string Path, LocalLocation Where, PdbOrigin Origin)>();
        var order = new List<PdbIdentity>();
        foreach (LocalLocation location in _nameOnly)
        {
            foreach ((string path, PdbOrigin origin) in NameCandidates(location, name, cancellationToken))
            {
                if (StoreLayout.TryVerify(path, null, reasons, out PdbIdentity actual) && !byIdentity.ContainsKey(actual))
                {
                    byIdentity[actual] = (path, location, origin);
                    order.Add(actual);
                }
            }
        }

        if (_servers.Count > 0)
        {
            reasons.Add("no GUID/age is known for " + name + ", so symbol servers were not asked");
        }

        if (order.Count == 1)
        {
            var (path, where, origin) = byIdentity[order[0]];
            reasons.Add("matched by name only: nothing identifies the build, so " + path + " (" + order[0].ToString() + ") is unverified");
            return Found(name, null, PdbLookupStatus.Unverified, path, order[0], origin, where.Directory, false, false, reasons);
        }

        if (order.Count > 1)
        {
            reasons.Add(string.Create(CultureInfo.InvariantCulture, $"{order.Count} different builds of {name} were found ({string.Join(", ", order.Select(i => i.ToString()))}) and nothing identifies which one is wanted"));
            return NotFound(name, null, reasons);
        }

        reasons.Add(_nameOnly.Count == 0
            ? "no GUID/age is known for " + name + ", and no folder was named for matching a PDB by name only"
            : "no file named " + name + " was found in the " + _nameOnly.Count.ToString(CultureInfo.InvariantCulture) + " folder(s) named for matching by name only");

        // Say what the symbol path holds under that name, and why it is not used.
        int shown = 0;
        foreach (LocalLocation location in _local)
        {
            foreach ((string path, _) in NameCandidates(location, name, cancellationToken))
            {
                if (shown++ < 4)
                {
                    reasons.Add(path + " has that name but is not used: without a GUID/age a PDB is matched by name only from a folder named for it, never from a cache or symbol store (it may be of another build)");
                }
            }
        }

        return NotFound(name, null, reasons);
    }

    /// <summary>Files named <paramref name="name"/> in a location: in the folder (recursively when enabled) and in symbol-store layout.</summary>
    private List<(string Path, PdbOrigin Origin)> NameCandidates(LocalLocation location, string name, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var candidates = new List<(string, PdbOrigin)>();
        if (!Directory.Exists(location.Directory))
        {
            return candidates;
        }

        if (location.IsPlainFolder)
        {
            candidates.AddRange(FolderCandidates(location.Directory, name).Select(c => (c, PdbOrigin.Folder)));
        }

        foreach (string nameDir in StoreLayout.NameFolders(location.Directory, name))
        {
            foreach (string keyDir in SafeSubdirectories(nameDir))
            {
                candidates.AddRange(StoreLayout.Match(keyDir, name, directories: false).Select(c => (c, PdbOrigin.Store)));
            }
        }

        return candidates;
    }

    private static string[] SafeSubdirectories(string dir)
    {
        try
        {
            return Directory.GetDirectories(dir);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static string? ReadPointerFile(string path, List<string> reasons)
    {
        try
        {
            using var fs = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            if (fs.Length > StoreLayout.MaxPointerBytes)
            {
                reasons.Add(path + " is " + fs.Length.ToString(CultureInfo.InvariantCulture) + " bytes, too large for a pointer file; ignored");
                return null;
            }

            using var reader = new StreamReader(fs);
            return reader.ReadToEnd();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            reasons.Add(path + " cannot be read: " + ex.Message);
            return null;
        }
    }

    /// <summary>
    /// Follows a <c>file.ptr</c> (<c>PATH:&lt;path&gt;</c> or <c>MSG:&lt;text&gt;</c>). A PATH must be a local absolute path
    /// (or, for a local pointer, relative to its key folder) that lies inside one of the symbol path's local folders, stores or caches,
    /// unless <see cref="SymbolStoreOptions.AllowPointerTargetsOutsideSymbolPath"/> is set; the target is verified like any candidate.
    /// </summary>
    private PdbLookupResult? FollowPointer(string text, string pointerLabel, string? keyDir, string name, PdbIdentity id, string expansionCache, PdbOrigin origin, List<string> reasons, CancellationToken cancellationToken)
    {
        string line = text.Split('\n')[0].Trim().TrimStart('\uFEFF');
        if (line.StartsWith("MSG:", StringComparison.OrdinalIgnoreCase))
        {
            reasons.Add(pointerLabel + " says: " + PdbNames.Printable(line[4..].Trim()));
            return null;
        }

        if (!line.StartsWith("PATH:", StringComparison.OrdinalIgnoreCase))
        {
            reasons.Add(pointerLabel + " is not a pointer file (expected 'PATH:' or 'MSG:', found '" + PdbNames.Printable(line) + "')");
            return null;
        }

        string target = line[5..].Trim();
        string shown = "'" + PdbNames.Printable(target) + "'";
        if (target.Length == 0 || target.Any(char.IsControl))
        {
            reasons.Add(pointerLabel + " points to an empty or unprintable path; ignored");
            return null;
        }

        if (!OperatingSystem.IsWindows() && (target.StartsWith(@"\\", StringComparison.Ordinal) || (target.Length >= 2 && char.IsAsciiLetter(target[0]) && target[1] == ':')))
        {
            reasons.Add(pointerLabel + " points to the Windows path " + shown + ", which cannot be used on this OS");
            return null;
        }

        if (!Path.IsPathRooted(target))
        {
            if (keyDir is null)
            {
                reasons.Add(pointerLabel + " points to the relative path " + shown + "; a server's pointer must be absolute; ignored");
                return null;
            }

            target = Path.Join(keyDir, target);
        }

        string full;
        try
        {
            full = Path.GetFullPath(target);
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or PathTooLongException)
        {
            reasons.Add(pointerLabel + " points to the invalid path " + shown + "; ignored");
            return null;
        }

        if (!Options.AllowPointerTargetsOutsideSymbolPath && !_allowedRoots.Exists(root => StoreLayout.IsUnder(full, root)))
        {
            reasons.Add(pointerLabel + " points to " + PdbNames.Printable(full) + ", outside the symbol path's folders and caches; ignored");
            return null;
        }

        if (Directory.Exists(full))
        {
            foreach (string candidate in StoreLayout.Match(full, name, directories: false))
            {
                if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual))
                {
                    return Found(name, id, PdbLookupStatus.Verified, candidate, actual, origin, full, false, true, reasons);
                }
            }

            reasons.Add(pointerLabel + " points to the folder " + full + ", which holds no matching " + name);
            return null;
        }

        if (!File.Exists(full))
        {
            reasons.Add(pointerLabel + " points to " + full + ", which does not exist");
            return null;
        }

        if (full.EndsWith(".pd_", StringComparison.OrdinalIgnoreCase))
        {
            string? expanded = StoreLayout.ExpandCabinet(full, name, id, expansionCache, Options.MaxExpandedBytes, reasons, cancellationToken);
            return expanded is null ? null : Found(name, id, PdbLookupStatus.Verified, expanded, id, origin, full, true, true, reasons);
        }

        return StoreLayout.TryVerify(full, id, reasons, out PdbIdentity found)
            ? Found(name, id, PdbLookupStatus.Verified, full, found, origin, full, false, true, reasons)
            : null;
    }

    private static PdbLookupResult Found(string name, PdbIdentity? requested, PdbLookupStatus status, string path, PdbIdentity actual, PdbOrigin origin, string where, bool expanded, bool pointer, List<string> reasons) =>
        new(name, requested, status, Path.GetFullPath(path), actual, origin, where, expanded, pointer, reasons.ToArray().AsReadOnly());

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

    /// <summary>A local folder, store or cache to probe; <paramref name="ExpansionCache"/> receives PDBs expanded from <c>.pd_</c> files found there.</summary>
    private sealed record LocalLocation(string Directory, bool IsPlainFolder, string ExpansionCache);

    /// <summary>An HTTP(S) symbol server and the cache its downloads go to.</summary>
    private sealed record ServerLocation(Uri Server, string Cache, string Element);
}

namespace XeAnalyzer.Symbols.Store;

/// <summary>What one <c>;</c>-separated element of a symbol path is.</summary>
internal enum SymbolPathElementKind
{
    /// <summary>A plain folder holding PDB files (<c>/opt/pdbs</c>, <c>C:\pdbs</c>); also probed in symbol-store
    /// layout.</summary>
    Folder,

    /// <summary>A symbol server chain (<c>srv*cache*url</c>, <c>srv*url</c>, <c>symsrv*symsrv.dll*cache*url</c>,
    /// <c>srv*store</c>).</summary>
    SymbolServer,

    /// <summary>A <c>cache*dir</c> element: a local store that also receives the files found by the elements after
    /// it.</summary>
    Cache,
}

/// <summary>
/// One tier of a symbol server chain: a local store directory or an HTTP(S) server. Tiers are searched left to right;
/// files found on a server are saved into the chain's downstream store (its first tier).
/// </summary>
internal sealed class SymbolStoreTier
{
    private SymbolStoreTier(string? directory, Uri? server)
    {
        Directory = directory;
        Server = server;
    }

    /// <summary>The full path of a local store directory, or <see langword="null"/> for a server or for the default
    /// cache.</summary>
    public string? Directory { get; }

    /// <summary>The server base URL (http or https), or <see langword="null"/> for a local tier.</summary>
    public Uri? Server { get; }

    /// <summary>Whether this tier is the default downstream cache
    /// (<see cref="SymbolStoreOptions.DefaultCacheDirectory"/>), used when a chain names no cache.</summary>
    public bool IsDefaultCache => Directory is null && Server is null;

    /// <summary>Whether this tier is an HTTP(S) server.</summary>
    public bool IsServer => Server is not null;

    internal static SymbolStoreTier DefaultCache { get; } = new(null, null);

    internal static SymbolStoreTier Local(string directory) => new(directory, null);

    internal static SymbolStoreTier Http(Uri server) => new(null, server);

    /// <summary>The tier as written in a symbol path (the default cache prints as an empty string).</summary>
    public override string ToString() => Server?.OriginalString ?? Directory ?? string.Empty;
}

/// <summary>One parsed element of a <see cref="SymbolPath"/>. Immutable.</summary>
internal sealed class SymbolPathElement
{
    private SymbolPathElement(
        SymbolPathElementKind kind,
        string text,
        string? directory,
        IReadOnlyList<SymbolStoreTier> tiers
    )
    {
        Kind = kind;
        Text = text;
        Directory = directory;
        Tiers = tiers;
    }

    /// <summary>What the element is.</summary>
    public SymbolPathElementKind Kind { get; }

    /// <summary>The element as the user wrote it.</summary>
    public string Text { get; }

    /// <summary>
    /// For <see cref="SymbolPathElementKind.Folder"/>: the folder's full path. For
    /// <see cref="SymbolPathElementKind.Cache"/>: the cache directory, or <see langword="null"/> for the default cache
    /// (<c>cache*</c>). Otherwise <see langword="null"/>.
    /// </summary>
    public string? Directory { get; }

    /// <summary>For <see cref="SymbolPathElementKind.SymbolServer"/>: the chain's tiers, left to right; empty
    /// otherwise.</summary>
    public IReadOnlyList<SymbolStoreTier> Tiers { get; }

    /// <summary>Whether the element needs the network (a server chain with at least one HTTP tier).</summary>
    public bool UsesNetwork => Tiers.Any(t => t.IsServer);

    internal static SymbolPathElement Folder(string text, string directory) =>
        new(SymbolPathElementKind.Folder, text, directory, []);

    internal static SymbolPathElement Cache(string text, string? directory) =>
        new(SymbolPathElementKind.Cache, text, directory, []);

    internal static SymbolPathElement Server(string text, IReadOnlyList<SymbolStoreTier> tiers) =>
        new(SymbolPathElementKind.SymbolServer, text, null, tiers);

    /// <summary>The element as written.</summary>
    public override string ToString() => Text;
}

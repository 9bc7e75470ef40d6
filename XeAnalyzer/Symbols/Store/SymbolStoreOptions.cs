namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// Settings of a <see cref="SymbolLocator"/>: network use, timeouts, retries, size caps, the default cache and local
/// search. Immutable once built (init-only properties, validated).
/// </summary>
public sealed class SymbolStoreOptions
{
    private readonly TimeSpan _connectTimeout = TimeSpan.FromSeconds(15);
    private readonly TimeSpan _timeout = TimeSpan.FromMinutes(5);
    private readonly int _maxRetries = 2;
    private readonly TimeSpan _retryDelay = TimeSpan.FromSeconds(1);
    private readonly long _maxDownloadBytes = 2L * 1024 * 1024 * 1024;
    private readonly long _maxExpandedBytes = 2L * 1024 * 1024 * 1024;
    private readonly int _maxSearchDepth = 8;
    private readonly int _maxParallelDownloads = 4;

    /// <summary>The defaults: online, 15 s connect / 5 min overall timeout, 2 retries, 2 GB caps, no recursive folder
    /// search.</summary>
    public static SymbolStoreOptions Default { get; } = new();

    /// <summary>
    /// Offline mode: no network access at all (no HTTP client is even created); only caches, stores and folders are
    /// searched.
    /// </summary>
    public bool Offline { get; init; }

    /// <summary>Time allowed to open a TCP/TLS connection to a symbol server.</summary>
    public TimeSpan ConnectTimeout
    {
        get => _connectTimeout;
        init => _connectTimeout = Positive(value);
    }

    /// <summary>Time allowed for one request, from sending it to the last byte of the body. Timeouts are not
    /// retried.</summary>
    public TimeSpan Timeout
    {
        get => _timeout;
        init => _timeout = Positive(value);
    }

    /// <summary>How many times a request is repeated after a server error (5xx, 408, 429) or a broken connection (0 =
    /// no retry).</summary>
    public int MaxRetries
    {
        get => _maxRetries;
        init =>
            _maxRetries = value is >= 0 and <= 10
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "expected 0 to 10");
    }

    /// <summary>The pause before the first retry; each further retry waits one more multiple of it.</summary>
    public TimeSpan RetryDelay
    {
        get => _retryDelay;
        init =>
            _retryDelay =
                value >= TimeSpan.Zero
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a non-negative delay");
    }

    /// <summary>The largest body accepted from a server (a declared larger <c>Content-Length</c> is refused before
    /// reading).</summary>
    public long MaxDownloadBytes
    {
        get => _maxDownloadBytes;
        init =>
            _maxDownloadBytes =
                value > 0
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a positive size");
    }

    /// <summary>The largest PDB expanded from a <c>.pd_</c> cabinet (guards against decompression bombs).</summary>
    public long MaxExpandedBytes
    {
        get => _maxExpandedBytes;
        init =>
            _maxExpandedBytes =
                value > 0
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a positive size");
    }

    /// <summary>
    /// The downstream cache used by <c>srv*&lt;url&gt;</c>, <c>cache*</c> and for expanding <c>.pd_</c> files found
    /// outside a cache;
    /// <see langword="null"/> means <see cref="GetDefaultCacheDirectory"/>.
    /// </summary>
    public string? DefaultCacheDirectory { get; init; }

    /// <summary>Whether plain folders are searched recursively (up to <see cref="MaxSearchDepth"/> levels, symbolic
    /// links not followed).</summary>
    public bool SearchFoldersRecursively { get; init; }

    /// <summary>How deep a recursive folder search goes.</summary>
    public int MaxSearchDepth
    {
        get => _maxSearchDepth;
        init =>
            _maxSearchDepth = value is >= 0 and <= 64
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "expected 0 to 64");
    }

    /// <summary>
    /// Whether a <c>file.ptr</c> may point outside the folders of the symbol path. Off by default: a pointer file
    /// (local or served) may only lead to a file under one of the symbol path's local folders, stores or caches.
    /// </summary>
    public bool AllowPointerTargetsOutsideSymbolPath { get; init; }

    /// <summary>
    /// The folders where a PDB may be matched by name only, when nothing gives its GUID and age (no
    /// <c>callstack_rva</c> identity, CSV metadata, DLL or build catalog entry): only folders the user named for this
    /// run (the CLI passes the plain folders of
    /// <c>--symbols</c> and the <c>--binaries</c> folders), searched like plain folders (and in symbol-store layout
    /// inside them), and the match is used only when exactly one build of that name is found there. Never the default
    /// cache, a <c>cache*</c> element or a
    /// <c>srv*</c> store: a cache collects PDBs of every build ever fetched, so a name alone says nothing about which
    /// build a frame comes from. Empty by default: no PDB is used without its identity.
    /// </summary>
    public IReadOnlyList<string> NameOnlyFolders { get; init; } = [];

    /// <summary>How many downloads <see cref="SymbolLocator.FetchAsync(IEnumerable{PdbRequest}, CancellationToken)"/>
    /// runs at once.</summary>
    public int MaxParallelDownloads
    {
        get => _maxParallelDownloads;
        init =>
            _maxParallelDownloads = value is >= 1 and <= 64
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "expected 1 to 64");
    }

    /// <summary>
    /// Receives <see cref="WorkKind.Downloading"/> reports of each download from a symbol server (bytes received of the
    /// declared length; the item is the PDB name): when the body starts, about once per mebibyte, and once when it ends
    /// (saved or refused);
    /// <see langword="null"/> (the default) for none. Parallel downloads report from several threads at once.
    /// </summary>
    public IProgress<WorkProgress>? DownloadProgress { get; init; }

    /// <summary>The <c>User-Agent</c> sent to symbol servers.</summary>
    public string UserAgent { get; init; } = "XeAnalyzer-SymbolStore/1.0";

    /// <summary>
    /// The per-user default cache: <c>$XDG_CACHE_HOME/xeanalyzer/symbols</c> or <c>~/.cache/xeanalyzer/symbols</c> on
    /// Linux and macOS,
    /// <c>%LOCALAPPDATA%\xeanalyzer\symbols</c> on Windows, else a folder under the temp directory.
    /// </summary>
    public static string GetDefaultCacheDirectory()
    {
        if (OperatingSystem.IsWindows())
        {
            string local = Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData);
            if (local.Length > 0)
            {
                return Path.Combine(local, "xeanalyzer", "symbols");
            }
        }
        else
        {
            string? xdg = Environment.GetEnvironmentVariable("XDG_CACHE_HOME");
            if (!string.IsNullOrEmpty(xdg) && Path.IsPathRooted(xdg))
            {
                return Path.Combine(xdg, "xeanalyzer", "symbols");
            }

            string home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            if (home.Length > 0)
            {
                return Path.Combine(home, ".cache", "xeanalyzer", "symbols");
            }
        }

        return Path.Combine(Path.GetTempPath(), "xeanalyzer-symbols");
    }

    private static TimeSpan Positive(TimeSpan value) =>
        value > TimeSpan.Zero
            ? value
            : throw new ArgumentOutOfRangeException(nameof(value), value, "expected a positive time");
}

using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// A parsed symbol path, written as for WinDbg/dbghelp: <c>;</c>-separated elements, each a plain folder,
/// <c>srv*&lt;cache&gt;*&lt;url&gt;</c>, <c>srv*&lt;url&gt;</c> (default cache), <c>srv*&lt;store&gt;</c>,
/// <c>symsrv*symsrv.dll*&lt;cache&gt;*&lt;url&gt;</c> or <c>cache*&lt;dir&gt;</c>.
/// Parsing never fails: elements that cannot be used on this machine (a UNC share or a <c>C:\</c> path on Linux,
/// an unsupported URL scheme, another symbol-server DLL) are left out and described in <see cref="Warnings"/>.
/// Relative folders are made absolute against the current directory at parse time. Immutable and thread-safe.
/// </summary>
public sealed class SymbolPath
{
    /// <summary>The environment variable dbghelp reads the symbol path from.</summary>
    public const string EnvironmentVariable = "_NT_SYMBOL_PATH";

    /// <summary>The environment variable dbghelp searches before <see cref="EnvironmentVariable"/>.</summary>
    public const string AlternateEnvironmentVariable = "_NT_ALT_SYMBOL_PATH";

    private SymbolPath(string text, IReadOnlyList<SymbolPathElement> elements, IReadOnlyList<string> warnings)
    {
        Text = text;
        Elements = elements;
        Warnings = warnings;
    }

    /// <summary>An empty symbol path (no elements).</summary>
    public static SymbolPath Empty { get; } = new(string.Empty, [], []);

    /// <summary>The text the path was parsed from.</summary>
    public string Text { get; }

    /// <summary>The usable elements, in search order.</summary>
    internal IReadOnlyList<SymbolPathElement> Elements { get; }

    /// <summary>One message per element that was left out (and why), in input order.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>Whether the path has no usable element.</summary>
    public bool IsEmpty => Elements.Count == 0;

    /// <summary>Whether any element needs the network.</summary>
    public bool UsesNetwork => Elements.Any(e => e.UsesNetwork);

    /// <summary>
    /// Reads <c>_NT_ALT_SYMBOL_PATH</c> and <c>_NT_SYMBOL_PATH</c> (searched in that order, as dbghelp does);
    /// <see cref="Empty"/> when neither is set.
    /// </summary>
    public static SymbolPath FromEnvironment()
    {
        string? alt = Environment.GetEnvironmentVariable(AlternateEnvironmentVariable);
        string? main = Environment.GetEnvironmentVariable(EnvironmentVariable);
        string joined = string.Join(';', new[] { alt, main }.Where(s => !string.IsNullOrWhiteSpace(s)));
        return Parse(joined);
    }

    /// <summary>Parses a symbol path. Never throws for bad elements: they are skipped and reported in
    /// <see cref="Warnings"/>.</summary>
    /// <param name="text">The symbol path; <see langword="null"/> or blank gives an empty path.</param>
    public static SymbolPath Parse(string? text)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return Empty;
        }

        var elements = new List<SymbolPathElement>();
        var warnings = new List<string>();
        foreach (string raw in text.Split(';'))
        {
            string item = Unquote(raw.Trim());
            if (item.Length == 0)
            {
                continue;
            }

            SymbolPathElement? element = ParseElement(item, warnings);
            if (element is not null)
            {
                elements.Add(element);
            }
        }

        return new SymbolPath(text, elements.AsReadOnly(), warnings.AsReadOnly());
    }

    /// <summary>The usable elements joined with <c>;</c>, as written.</summary>
    public override string ToString() => string.Join(';', Elements.Select(e => e.Text));

    private static SymbolPathElement? ParseElement(string item, List<string> warnings)
    {
        if (item.StartsWith("srv*", StringComparison.OrdinalIgnoreCase))
        {
            return ParseServer(item, item[4..], warnings);
        }

        if (item.StartsWith("symsrv*", StringComparison.OrdinalIgnoreCase))
        {
            string rest = item[7..];
            int star = rest.IndexOf('*', StringComparison.Ordinal);
            string dll = star < 0 ? rest : rest[..star];
            if (!dll.Trim().Equals("symsrv.dll", StringComparison.OrdinalIgnoreCase))
            {
                warnings.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"'{item}': only symsrv.dll chains are supported, found '{dll}'; element ignored"
                    )
                );
                return null;
            }

            return ParseServer(item, star < 0 ? string.Empty : rest[(star + 1)..], warnings);
        }

        if (
            item.StartsWith("cache*", StringComparison.OrdinalIgnoreCase)
            || item.Equals("cache", StringComparison.OrdinalIgnoreCase)
        )
        {
            string dir = item.Length > 6 ? item[6..].Trim() : string.Empty;
            if (dir.Length == 0)
            {
                return SymbolPathElement.Cache(item, null);
            }

            string? full = ParseDirectory(item, dir, warnings);
            return full is null ? null : SymbolPathElement.Cache(item, full);
        }

        if (LooksLikeUrl(item))
        {
            // A bare URL is taken as srv*<url> (SQLCallStackResolver accepts it, and dbghelp treats http paths as
            // stores).
            return ParseServer(item, item, warnings);
        }

        if (item.Contains("://", StringComparison.Ordinal))
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"'{item}': only http and https servers are supported; element ignored"
                )
            );
            return null;
        }

        string? folder = ParseDirectory(item, item, warnings);
        return folder is null ? null : SymbolPathElement.Folder(item, folder);
    }

    private static SymbolPathElement? ParseServer(string item, string chain, List<string> warnings)
    {
        var tiers = new List<SymbolStoreTier>();
        string[] parts = chain.Split('*');
        for (int i = 0; i < parts.Length; i++)
        {
            string part = Unquote(parts[i].Trim());
            if (part.Length == 0)
            {
                if (i == 0 && parts.Length > 1)
                {
                    tiers.Add(SymbolStoreTier.DefaultCache); // srv**url: the default downstream store
                }

                continue;
            }

            if (LooksLikeUrl(part))
            {
                if (
                    Uri.TryCreate(part, UriKind.Absolute, out Uri? uri)
                    && (uri.Scheme == Uri.UriSchemeHttp || uri.Scheme == Uri.UriSchemeHttps)
                    && uri.Host.Length > 0
                )
                {
                    tiers.Add(SymbolStoreTier.Http(uri));
                }
                else
                {
                    warnings.Add(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"'{item}': '{part}' is not a valid http(s) URL; tier ignored"
                        )
                    );
                }

                continue;
            }

            if (part.Contains("://", StringComparison.Ordinal))
            {
                warnings.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"'{item}': only http and https servers are supported, found '{part}'; tier ignored"
                    )
                );
                continue;
            }

            string? dir = ParseDirectory(item, part, warnings);
            if (dir is not null)
            {
                tiers.Add(SymbolStoreTier.Local(dir));
            }
            else if (i == 0 && parts.Length > 1)
            {
                // A cache this machine cannot use (srv*C:\Symbols*https://… on Linux): keep the chain, cache in the
                // default place.
                warnings.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"'{item}': using the default symbol cache instead of '{part}'"
                    )
                );
                tiers.Add(SymbolStoreTier.DefaultCache);
            }
        }

        if (tiers.Count > 0 && tiers[0].IsServer)
        {
            tiers.Insert(0, SymbolStoreTier.DefaultCache); // srv*url: files go to the default downstream store
        }

        if (!tiers.Any(t => t.IsServer || t.Directory is not null))
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"'{item}': names no usable store or server; element ignored"
                )
            );
            return null;
        }

        return SymbolPathElement.Server(item, tiers.AsReadOnly());
    }

    private static string? ParseDirectory(string item, string dir, List<string> warnings)
    {
        if (dir.Contains('\0', StringComparison.Ordinal) || dir.Any(char.IsControl))
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"'{Printable(item)}': the folder contains control characters; ignored"
                )
            );
            return null;
        }

        if (!OperatingSystem.IsWindows())
        {
            if (dir.StartsWith(@"\\", StringComparison.Ordinal))
            {
                warnings.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"'{item}': UNC share '{dir}' cannot be used on this OS (mount it and give the mount point); "
                            + $"ignored"
                    )
                );
                return null;
            }

            if (dir.Length >= 2 && char.IsAsciiLetter(dir[0]) && dir[1] == ':')
            {
                warnings.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"'{item}': '{dir}' is a Windows drive path, which cannot be used on this OS; ignored"
                    )
                );
                return null;
            }
        }

        if (dir == "~" || dir.StartsWith("~/", StringComparison.Ordinal))
        {
            string home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            if (home.Length > 0)
            {
                dir = Path.Join(home, dir.Length > 2 ? dir[2..] : string.Empty);
            }
        }

        try
        {
            return Path.TrimEndingDirectorySeparator(Path.GetFullPath(dir));
        }
        catch (Exception ex)
            when (ex
                    is ArgumentException
                        or NotSupportedException
                        or PathTooLongException
                        or System.Security.SecurityException
            )
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"'{item}': '{dir}' is not a valid folder ({ex.Message}); ignored"
                )
            );
            return null;
        }
    }

    private static bool LooksLikeUrl(string s) =>
        s.StartsWith("http://", StringComparison.OrdinalIgnoreCase)
        || s.StartsWith("https://", StringComparison.OrdinalIgnoreCase);

    private static string Unquote(string s) => s.Length >= 2 && s[0] == '"' && s[^1] == '"' ? s[1..^1].Trim() : s;

    private static string Printable(string s) => new(s.Select(c => char.IsControl(c) ? '?' : c).ToArray());
}

using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text.Json;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Symbols.Catalog;

/// <summary>One public PDB of a SQL Server build, as listed in the build catalog.</summary>
public sealed class SqlBuildPdb
{
    internal SqlBuildPdb(
        string name,
        string pdbFileName,
        PdbIdentity identity,
        string downloadUrl,
        bool downloadVerified,
        string? fileVersion
    )
    {
        Name = name;
        PdbFileName = pdbFileName;
        Identity = identity;
        DownloadUrl = downloadUrl;
        DownloadVerified = downloadVerified;
        FileVersion = fileVersion;
    }

    /// <summary>The <c>PDBName</c> field (<c>sqldk</c>, <c>SqlDK</c>): the module name without extension.</summary>
    public string Name { get; }

    /// <summary>The PDB file name from the download URL (<c>sqldk.pdb</c>).</summary>
    public string PdbFileName { get; }

    /// <summary>The GUID and age from the download URL's key directory (age in hex there).</summary>
    public PdbIdentity Identity { get; }

    /// <summary>The symbol-store path, <c>{PdbFileName}/{Identity.Key}/{PdbFileName}</c>.</summary>
    public string StorePath => PdbFileName + "/" + Identity.Key + "/" + PdbFileName;

    /// <summary>The <c>DownloadURL</c> field as written (never fetched by XeAnalyzer).</summary>
    public string DownloadUrl { get; }

    /// <summary>The <c>DownloadVerified</c> field.</summary>
    public bool DownloadVerified { get; }

    /// <summary>The <c>FileVersion</c> field, when present.</summary>
    public string? FileVersion { get; }
}

/// <summary>One build of the SQL Server build catalog (<c>sqlbuildinfo.json</c>): version, level, machine type and its
/// public PDBs.</summary>
public sealed class SqlBuildInfo
{
    internal SqlBuildInfo(
        string productMajorVersion,
        string productLevel,
        string label,
        string buildNumber,
        Version? version,
        string kbInfo,
        string machineType,
        IReadOnlyList<SqlBuildPdb> pdbs,
        long lineNumber,
        string? source = null
    )
    {
        Source = source;
        ProductMajorVersion = productMajorVersion;
        ProductLevel = productLevel;
        Label = label;
        BuildNumber = buildNumber;
        Version = version;
        KBInfo = kbInfo;
        MachineType = machineType;
        Pdbs = pdbs;
        LineNumber = lineNumber;
    }

    /// <summary>The <c>ProductMajorVersion</c> field (<c>SQL Server 2016</c>).</summary>
    public string ProductMajorVersion { get; }

    /// <summary>The <c>ProductLevel</c> field (<c>SP1</c>, <c>RTM</c>).</summary>
    public string ProductLevel { get; }

    /// <summary>The <c>Label</c> field (<c>CU7</c>, <c>Hotfix KB 3146034</c>).</summary>
    public string Label { get; }

    /// <summary>The <c>BuildNumber</c> field as written (<c>13.0.4001.0</c>).</summary>
    public string BuildNumber { get; }

    /// <summary>The build number as a <see cref="System.Version"/> (missing parts as 0), or <see langword="null"/> when
    /// it does not parse.</summary>
    public Version? Version { get; }

    /// <summary>The <c>KBInfo</c> field.</summary>
    public string KBInfo { get; }

    /// <summary>The <c>MachineType</c> field (<c>x64</c>, <c>x86</c>).</summary>
    public string MachineType { get; }

    /// <summary>The PDBs, in catalog order.</summary>
    public IReadOnlyList<SqlBuildPdb> Pdbs { get; }

    /// <summary>1-based line of the catalog (for the embedded catalog: the line of the published
    /// <c>sqlbuildinfo.json</c>).</summary>
    public long LineNumber { get; }

    /// <summary>Where the entry comes from: the catalog file, <see cref="SqlBuildCatalog.EmbeddedSource"/>, or
    /// <see langword="null"/> when read from a text reader without a file.</summary>
    public string? Source { get; }

    /// <summary>A display name, <c>SQL Server 2016 SP1 SP1 - 13.0.4001.0 - x64</c>.</summary>
    public string DisplayName => $"{ProductMajorVersion} {ProductLevel} {Label} - {BuildNumber} - {MachineType}";

    /// <summary>Returns <see cref="DisplayName"/>.</summary>
    public override string ToString() => DisplayName;
}

/// <summary>The outcome of <see cref="SqlBuildCatalog.Find"/>.</summary>
public enum SqlBuildLookupStatus
{
    /// <summary>Exactly one entry matches.</summary>
    Found,

    /// <summary>No entry matches.</summary>
    NotFound,

    /// <summary>Several entries match the same build number and machine type.</summary>
    Ambiguous,
}

/// <summary>The result of a build lookup.</summary>
public sealed class SqlBuildLookupResult
{
    internal SqlBuildLookupResult(
        SqlBuildLookupStatus status,
        IReadOnlyList<SqlBuildInfo> matches,
        IReadOnlyList<string> otherMachineTypes
    )
    {
        Status = status;
        Matches = matches;
        OtherMachineTypes = otherMachineTypes;
    }

    /// <summary>Found, not found, or ambiguous.</summary>
    public SqlBuildLookupStatus Status { get; }

    /// <summary>The matching entries (one when <see cref="SqlBuildLookupStatus.Found"/>, several when
    /// ambiguous).</summary>
    public IReadOnlyList<SqlBuildInfo> Matches { get; }

    /// <summary>The build when exactly one entry matched, else <see langword="null"/>.</summary>
    public SqlBuildInfo? Build => Status == SqlBuildLookupStatus.Found ? Matches[0] : null;

    /// <summary>Machine types the same build number exists for, other than the one asked (to explain a miss).</summary>
    public IReadOnlyList<string> OtherMachineTypes { get; }
}

/// <summary>
/// The SQL Server build catalog (microsoft/SQLCallStackResolver's <c>sqlbuildinfo.json</c>): one JSON object per line
/// with
/// <c>ProductMajorVersion</c>, <c>ProductLevel</c>, <c>Label</c>, <c>BuildNumber</c>, <c>KBInfo</c>, <c>MachineType</c>
/// and
/// <c>SymbolDetails[]</c> (<c>PDBName</c>, <c>DownloadURL</c>, <c>DownloadVerified</c>, <c>FileVersion</c>). Each PDB's
/// identity is read from its download URL (<c>…/sqldk.pdb/1D3FA75EB35540E287B2E012D69785DF2/sqldk.pdb</c>: 32 hex GUID
/// digits then the age in hex).
/// </summary>
public sealed partial class SqlBuildCatalog
{
    private const int MaxLineLength = 1024 * 1024;
    private const int MaxPdbsPerBuild = 4096;
    private const int MaxBuilds = 1_000_000;

    private static readonly System.Buffers.SearchValues<char> s_hex = System.Buffers.SearchValues.Create(
        "0123456789abcdefABCDEF"
    );

    private readonly SqlBuildInfo[] _builds;

    private SqlBuildCatalog(SqlBuildInfo[] builds) => _builds = builds;

    /// <summary>The builds in catalog order.</summary>
    public IReadOnlyList<SqlBuildInfo> Builds => _builds;

    /// <summary>Streams the builds of a catalog.</summary>
    /// <param name="input">The text; not disposed.</param>
    /// <param name="filePath">The catalog file for error messages, if any.</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    /// <returns>The builds in order.</returns>
    /// <exception cref="InvalidTextInputException">A line is not a JSON object of the expected shape, or a download URL
    /// is malformed or unsafe, with the line.</exception>
    public static IEnumerable<SqlBuildInfo> Enumerate(
        TextReader input,
        string? filePath = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(input);
        return Iterate(input, filePath, cancellationToken);
    }

    /// <summary>Reads a whole catalog.</summary>
    /// <param name="input">The text; not disposed.</param>
    /// <param name="filePath">The catalog file for error messages, if any.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The catalog.</returns>
    /// <exception cref="InvalidTextInputException">A malformed line, with the line.</exception>
    public static SqlBuildCatalog Read(
        TextReader input,
        string? filePath = null,
        CancellationToken cancellationToken = default
    )
    {
        var builds = new List<SqlBuildInfo>();
        foreach (SqlBuildInfo b in Enumerate(input, filePath, cancellationToken))
        {
            if (builds.Count >= MaxBuilds)
            {
                throw new InvalidTextInputException(
                    filePath,
                    (int)Math.Min(b.LineNumber, int.MaxValue),
                    string.Create(CultureInfo.InvariantCulture, $"at most {MaxBuilds} builds in a catalog")
                );
            }

            builds.Add(b);
        }

        return new SqlBuildCatalog([.. builds]);
    }

    /// <summary>Reads a catalog file.</summary>
    /// <param name="path">The file.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The catalog.</returns>
    /// <exception cref="InvalidTextInputException">A malformed line, with the file and line.</exception>
    public static SqlBuildCatalog Load(string path, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        using StreamReader reader = TextInput.OpenText(path);
        return Read(reader, path, cancellationToken);
    }

    /// <summary>Finds a build by number and machine type.</summary>
    /// <param name="buildNumber">The build, <c>13.0.4001.0</c> (or <c>13.0.4001</c>: missing parts count as 0).</param>
    /// <param name="machineType">The machine type, <c>x64</c> by default (compared case-insensitively).</param>
    /// <returns>The result: found, not found (with the machine types the build exists for), or ambiguous (with every
    /// match).</returns>
    /// <exception cref="ArgumentException"><paramref name="buildNumber"/> is not a version number.</exception>
    public SqlBuildLookupResult Find(string buildNumber, string machineType = "x64")
    {
        ArgumentNullException.ThrowIfNull(buildNumber);
        ArgumentNullException.ThrowIfNull(machineType);
        Version wanted =
            ParseBuildNumber(buildNumber)
            ?? throw new ArgumentException(
                $"'{buildNumber}' is not a " + "build number such as 13.0.4001.0.",
                nameof(buildNumber)
            );
        var matches = new List<SqlBuildInfo>();
        var others = new SortedSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (SqlBuildInfo b in _builds)
        {
            if (b.Version is null || b.Version != wanted)
            {
                continue;
            }

            if (string.Equals(b.MachineType, machineType, StringComparison.OrdinalIgnoreCase))
            {
                matches.Add(b);
            }
            else
            {
                others.Add(b.MachineType);
            }
        }

        SqlBuildLookupStatus status = matches.Count switch
        {
            0 => SqlBuildLookupStatus.NotFound,
            1 => SqlBuildLookupStatus.Found,
            _ => SqlBuildLookupStatus.Ambiguous,
        };
        return new SqlBuildLookupResult(status, matches, [.. others]);
    }

    /// <summary>
    /// Reads a PDB's file name and identity from a symbol-server download URL, <c>https://…/&lt;pdb&gt;/&lt;GUID 32
    /// hex&gt;&lt;age hex&gt;/&lt;pdb&gt;</c>. URLs whose path has <c>.</c>/<c>..</c> segments, back-slashes, escaped
    /// separators, a query or a fragment are refused.
    /// </summary>
    /// <param name="url">The URL.</param>
    /// <param name="pdbFileName">The PDB file name, when valid.</param>
    /// <param name="identity">The GUID and age, when valid.</param>
    /// <param name="error">Why the URL was refused, otherwise <see langword="null"/>.</param>
    /// <returns><see langword="true"/> when the URL is valid.</returns>
    public static bool TryParsePdbUrl(
        string url,
        [NotNullWhen(true)] out string? pdbFileName,
        out PdbIdentity identity,
        [NotNullWhen(false)] out string? error
    )
    {
        ArgumentNullException.ThrowIfNull(url);
        pdbFileName = null;
        identity = default;
        int scheme = url.IndexOf("://", StringComparison.Ordinal);
        if (
            scheme <= 0
            || !(
                url.StartsWith("https://", StringComparison.OrdinalIgnoreCase)
                || url.StartsWith("http://", StringComparison.OrdinalIgnoreCase)
            )
        )
        {
            error = "an http(s) URL";
            return false;
        }

        if (url.AsSpan().IndexOfAny('?', '#') >= 0 || url.Contains('\\', StringComparison.Ordinal))
        {
            error = "a URL without query, fragment or back-slash";
            return false;
        }

        int pathStart = url.IndexOf('/', scheme + 3);
        if (pathStart < 0)
        {
            error = "a URL path …/<pdb>/<GUID><age>/<pdb>";
            return false;
        }

        string[] segments = url[(pathStart + 1)..].Split('/');
        if (segments.Length < 3)
        {
            error = "a URL path …/<pdb>/<GUID><age>/<pdb>";
            return false;
        }

        foreach (string raw in segments)
        {
            string seg;
            try
            {
                seg = Uri.UnescapeDataString(raw);
            }
            catch (UriFormatException)
            {
                error = "a URL with valid escapes";
                return false;
            }

            if (
                raw.Length == 0
                || seg is "." or ".."
                || seg.Contains("..", StringComparison.Ordinal)
                || seg.AsSpan().IndexOfAny('/', '\\', ':') >= 0
                || seg.AsSpan().ContainsAnyInRange('\0', '\u001F')
            )
            {
                error = $"URL path segments without '.', '..', separators or control characters, found \"{raw}\"";
                return false;
            }
        }

        string first = Uri.UnescapeDataString(segments[^3]);
        string key = segments[^2];
        string last = Uri.UnescapeDataString(segments[^1]);
        if (
            !string.Equals(first, last, StringComparison.OrdinalIgnoreCase)
            || !last.EndsWith(".pdb", StringComparison.OrdinalIgnoreCase)
            || last.Length <= 4
        )
        {
            error = $"…/<name>.pdb/<key>/<name>.pdb with the same name twice, found \"{first}\" and \"{last}\"";
            return false;
        }

        if (key.Length is < 33 or > 40 || key.AsSpan().ContainsAnyExcept(s_hex))
        {
            error = $"a key of 32 hex GUID digits and 1–8 hex age digits, found \"{key}\"";
            return false;
        }

        if (
            !Guid.TryParseExact(key[..32], "N", out Guid guid)
            || !int.TryParse(key.AsSpan(32), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out int age)
            || age < 0
        )
        {
            error = $"a key of 32 hex GUID digits and a hex age that fits in 31 bits, found \"{key}\"";
            return false;
        }

        pdbFileName = last;
        identity = new PdbIdentity(guid, age);
        error = null;
        return true;
    }

    private static IEnumerable<SqlBuildInfo> Iterate(
        TextReader input,
        string? filePath,
        CancellationToken cancellationToken
    )
    {
        foreach ((string line, long number) in BoundedLines.Read(input, filePath, MaxLineLength, cancellationToken))
        {
            if (string.IsNullOrWhiteSpace(line))
            {
                continue;
            }

            yield return ParseLine(line, number, filePath);
        }
    }

    private static SqlBuildInfo ParseLine(string line, long number, string? filePath)
    {
        JsonDocument doc;
        try
        {
            doc = JsonDocument.Parse(line, new JsonDocumentOptions { MaxDepth = 8 });
        }
        catch (JsonException ex)
        {
            throw Error(filePath, number, "one JSON object per line: " + ex.Message, ex);
        }
        catch (ArgumentException ex)
        {
            // Invalid UTF-16 (a lone surrogate) cannot be transcoded for the JSON reader.
            throw Error(filePath, number, "one JSON object per line of valid text: " + ex.Message, ex);
        }

        using (doc)
        {
            try
            {
                return ParseBuild(doc.RootElement, number, filePath);
            }
            catch (InvalidOperationException ex)
            {
                // A string or property name holding a lone surrogate escape ("\ud800") cannot be read as text.
                throw Error(
                    filePath,
                    number,
                    "JSON strings of valid text (a \\uD800-\\uDFFF escape needs its pair): " + ex.Message,
                    ex
                );
            }
        }
    }

    private static SqlBuildInfo ParseBuild(JsonElement root, long number, string? filePath)
    {
        if (root.ValueKind != JsonValueKind.Object)
        {
            throw Error(filePath, number, $"one JSON object per line, found a {root.ValueKind}");
        }

        string buildNumber = RequiredString(root, "BuildNumber", filePath, number);
        string machineType = RequiredString(root, "MachineType", filePath, number);
        if (!root.TryGetProperty("SymbolDetails", out JsonElement details) || details.ValueKind != JsonValueKind.Array)
        {
            throw Error(filePath, number, "a \"SymbolDetails\" array");
        }

        var pdbs = new List<SqlBuildPdb>();
        foreach (JsonElement d in details.EnumerateArray())
        {
            if (pdbs.Count >= MaxPdbsPerBuild)
            {
                throw Error(
                    filePath,
                    number,
                    string.Create(CultureInfo.InvariantCulture, $"at most {MaxPdbsPerBuild} PDBs per build")
                );
            }

            if (d.ValueKind != JsonValueKind.Object)
            {
                throw Error(filePath, number, $"objects in \"SymbolDetails\", found a {d.ValueKind}");
            }

            string url = RequiredString(d, "DownloadURL", filePath, number);
            if (!TryParsePdbUrl(url, out string? pdbFile, out PdbIdentity identity, out string? why))
            {
                throw Error(filePath, number, $"DownloadURL \"{url}\": expected {why}");
            }

            string name = OptionalString(d, "PDBName", filePath, number) ?? pdbFile[..^4];
            bool verified =
                d.TryGetProperty("DownloadVerified", out JsonElement v) && v.ValueKind == JsonValueKind.True;
            if (
                d.TryGetProperty("DownloadVerified", out v)
                && v.ValueKind is not (JsonValueKind.True or JsonValueKind.False or JsonValueKind.Null)
            )
            {
                throw Error(filePath, number, "\"DownloadVerified\" to be true or false");
            }

            pdbs.Add(
                new SqlBuildPdb(
                    name,
                    pdbFile,
                    identity,
                    url,
                    verified,
                    OptionalString(d, "FileVersion", filePath, number)
                )
            );
        }

        return new SqlBuildInfo(
            OptionalString(root, "ProductMajorVersion", filePath, number) ?? string.Empty,
            OptionalString(root, "ProductLevel", filePath, number) ?? string.Empty,
            OptionalString(root, "Label", filePath, number) ?? string.Empty,
            buildNumber,
            ParseBuildNumber(buildNumber),
            OptionalString(root, "KBInfo", filePath, number) ?? string.Empty,
            machineType,
            pdbs,
            number,
            filePath
        );
    }

    /// <summary>
    /// A build number as the catalog compares it: two to four dot-separated numbers (<c>13.0.4001.0</c>,
    /// <c>13.0.4001</c>), missing parts as 0; surrounding blanks are ignored.
    /// </summary>
    /// <param name="text">The build number.</param>
    /// <returns>The version, or <see langword="null"/> when <paramref name="text"/> is not a build number.</returns>
    public static Version? ParseBuildNumber(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        if (!Version.TryParse(text.Trim(), out Version? v))
        {
            return null;
        }

        return new Version(v.Major, v.Minor, Math.Max(v.Build, 0), Math.Max(v.Revision, 0));
    }

    private static string RequiredString(JsonElement obj, string name, string? filePath, long number) =>
        OptionalString(obj, name, filePath, number) ?? throw Error(filePath, number, $"a \"{name}\" string");

    private static string? OptionalString(JsonElement obj, string name, string? filePath, long number)
    {
        if (!obj.TryGetProperty(name, out JsonElement e) || e.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        return e.ValueKind == JsonValueKind.String
            ? e.GetString()
            : throw Error(filePath, number, $"\"{name}\" to be a string, found a {e.ValueKind}");
    }

    private static InvalidTextInputException Error(
        string? filePath,
        long line,
        string expected,
        Exception? inner = null
    ) => new(filePath, (int)Math.Min(line, int.MaxValue), "SQL build catalog: expected " + expected, inner);
}

using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using ResolutionFrameStyle = XeAnalyzer.Symbols.Resolution.FrameStyle;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The symbol options shared by every command that resolves frames (<c>resolve</c>, <c>symbols</c>, <c>stacks</c>,
/// <c>diff</c>,
/// <c>report</c>, <c>batch</c>, <c>export --resolve</c>): <c>--symbols</c>, <c>--offline</c>, <c>--symbol-timeout</c>,
/// <c>--sql-build</c> + <c>--machine</c> + <c>--catalog</c> (or <c>XEANALYZER_BUILD_CATALOG</c>), <c>--binaries</c>,
/// <c>--modules</c>, and the frame text options <c>--frame-style</c> and <c>--no-offsets</c>;
/// <see cref="GetResolverOptions"/> turns them into the resolver's options the same way for all of them.
/// </summary>
internal sealed class SymbolCommandOptions
{
    /// <summary>The environment variable naming the build catalog when <c>--catalog</c> is not given.</summary>
    public const string CatalogEnvironmentVariable = "XEANALYZER_BUILD_CATALOG";

    /// <summary>Microsoft's public symbol server.</summary>
    public const string MicrosoftSymbolServer = "https://msdl.microsoft.com/download/symbols";

    public Option<string?> Symbols { get; } =
        new("--symbols")
        {
            Description =
                "Symbol path, as for WinDbg: folders, cache*DIR, srv*CACHE*URL, separated by ';'. Default: "
                + "_NT_SYMBOL_PATH, else the default cache only (no network).",
        };

    public Option<bool> Offline { get; } =
        new("--offline")
        {
            Description = "Never use the network: search only folders, stores and caches of the symbol path.",
        };

    public Option<double?> Timeout { get; } =
        new("--symbol-timeout") { Description = "Seconds allowed for one symbol-server request (default 300)." };

    public Option<string?> SqlBuild { get; } =
        new("--sql-build")
        {
            Description =
                "The SQL Server build of the capture (e.g. 13.0.4001.0): each engine module's PDB GUID/age come from "
                + "the build catalog.",
        };

    public Option<string> Machine { get; } =
        new("--machine")
        {
            Description = "The machine type of --sql-build in the catalog: x64 (default) or x86.",
            DefaultValueFactory = _ => "x64",
        };

    public Option<string?> Catalog { get; } =
        new Option<string?>("--catalog")
        {
            Description =
                "A build catalog file (sqlbuildinfo.json format, one JSON object per line) that adds to or overrides "
                + "the catalog embedded in XeAnalyzer; default: $"
                + CatalogEnvironmentVariable
                + ".",
        }.AcceptsPaths("a catalog file");

    public Option<string[]> Binaries { get; } =
        new Option<string[]>("--binaries")
        {
            Description =
                "Folders with the capture's DLLs/EXEs (searched recursively): PDB identities from their RSDS "
                + "records, export tables for OrdinalN frames. Repeatable.",
            AllowMultipleArgumentsPerToken = false,
        }.AcceptsPaths("a folder of DLLs and EXEs");

    public Option<string?> Modules { get; } =
        new Option<string?>("--modules")
        {
            Description =
                "Module list for raw addresses (select name, base_address from sys.dm_os_loaded_modules), from the "
                + "same process lifetime. Default: <set-name>.modules.txt beside each input, if present.",
        }.AcceptsPaths("a module list file");

    public Option<string> FrameStyle { get; } = CreateFrameStyle();

    public Option<bool> NoOffsets { get; } =
        new("--no-offsets")
        {
            Description =
                "Frames without displacement (sqlmin.dll!Name). For stacks and diff a coarser bucketing: stacks that "
                + "differ only by offsets within the same functions merge. Unresolved frames keep their module+offset.",
        };

    public Option<bool> NoReasons { get; } =
        new("--no-reasons")
        {
            Description =
                "List unresolved frames without ' -- unresolved: reason' (the resolution summary still counts them "
                + "by reason).",
        };

    public Option<bool> Lines { get; } =
        new("--lines")
        {
            Description =
                "Source file and line of frames resolved through private PDBs: engine/windbg 'sqlmin.dll!Name+0x1a9 "
                + "[C:\\src\\x.cpp @ 123]', resolver 'sqlmin!Name+425<TAB>(C:\\src\\x.cpp:123)'. Public PDBs have "
                + "none. Off by default (bucketing unchanged).",
        };

    public Option<bool> Inlines { get; } =
        new("--inlines")
        {
            Description =
                "Precede each frame in inlined code with its inline frames, innermost first, as '(Inline Function) "
                + "sqlmin.dll!Inner+0x12' (private PDBs only).",
        };

    private bool _frameOptionsAdded;

    /// <summary>Adds <c>--frame-style</c>, <c>--no-offsets</c>, <c>--lines</c> and <c>--inlines</c>.</summary>
    public void AddFrameOptions(Command command)
    {
        command.Options.Add(FrameStyle);
        command.Options.Add(NoOffsets);
        command.Options.Add(Lines);
        command.Options.Add(Inlines);
        _frameOptionsAdded = true;
    }

    /// <summary>
    /// The resolver options of the parsed symbol options (default symbol path: <c>_NT_SYMBOL_PATH</c>, else the default
    /// cache only, no network); frame style and offsets from <c>--frame-style</c>/<c>--no-offsets</c> when the command
    /// has them.
    /// </summary>
    public CallstackResolverOptions GetResolverOptions(
        ParseResult parse,
        CancellationToken cancellationToken,
        ModuleMap? moduleMap = null
    ) =>
        new()
        {
            SymbolPath = GetSymbolPath(parse, "cache*"),
            StoreOptions = GetStoreOptions(parse),
            Offline = parse.GetValue(Offline),
            SqlBuild = GetSqlBuild(parse, cancellationToken),
            Binaries = GetBinaries(parse, cancellationToken),
            ModuleMap = moduleMap,
            Style = !_frameOptionsAdded
                ? ResolutionFrameStyle.Engine
                : parse.GetValue(FrameStyle) switch
                {
                    "resolver" => ResolutionFrameStyle.Resolver,
                    "windbg" => ResolutionFrameStyle.WinDbg,
                    _ => ResolutionFrameStyle.Engine,
                },
            IncludeOffsets = !_frameOptionsAdded || !parse.GetValue(NoOffsets),
            IncludeSourceLines = _frameOptionsAdded && parse.GetValue(Lines),
            IncludeInlineFrames = _frameOptionsAdded && parse.GetValue(Inlines),
            Progress = TerminalProgress.Current,
        };

    /// <summary>Adds the symbol-path options (<c>--symbols</c>, <c>--offline</c>, <c>--symbol-timeout</c>).</summary>
    public void AddPathOptions(Command command)
    {
        command.Options.Add(Symbols);
        command.Options.Add(Offline);
        command.Options.Add(Timeout);
    }

    /// <summary>Adds <c>--sql-build</c>, <c>--machine</c> and <c>--catalog</c>.</summary>
    public void AddBuildOptions(Command command)
    {
        command.Options.Add(SqlBuild);
        command.Options.Add(Machine);
        command.Options.Add(Catalog);
    }

    /// <summary>The symbol path: <c>--symbols</c>, else <c>_NT_SYMBOL_PATH</c>, else
    /// <paramref name="fallback"/>.</summary>
    public SymbolPath GetSymbolPath(ParseResult parse, string fallback)
    {
        string? text = parse.GetValue(Symbols);
        if (text is not null)
        {
            if (string.IsNullOrWhiteSpace(text))
            {
                throw new UsageException("--symbols: expected a symbol path, found an empty value");
            }

            return SymbolPath.Parse(text);
        }

        SymbolPath env = SymbolPath.FromEnvironment();
        return env.IsEmpty ? SymbolPath.Parse(fallback) : env;
    }

    /// <summary>The store options from <c>--offline</c> and <c>--symbol-timeout</c>.</summary>
    public SymbolStoreOptions GetStoreOptions(ParseResult parse)
    {
        double? seconds = parse.GetValue(Timeout);
        if (seconds is double s && (double.IsNaN(s) || s <= 0 || s > 86_400))
        {
            throw new UsageException(
                "--symbol-timeout: expected a number of seconds between 0 and 86400, found "
                    + s.ToString(CultureInfo.InvariantCulture)
            );
        }

        TimeSpan timeout = seconds is double t ? TimeSpan.FromSeconds(t) : SymbolStoreOptions.Default.Timeout;
        return new SymbolStoreOptions
        {
            Offline = parse.GetValue(Offline),
            Timeout = timeout,
            ConnectTimeout =
                timeout < SymbolStoreOptions.Default.ConnectTimeout
                    ? timeout
                    : SymbolStoreOptions.Default.ConnectTimeout,
            NameOnlyFolders = GetNameOnlyFolders(parse),
            DownloadProgress = TerminalProgress.Current,
        };
    }

    /// <summary>
    /// The folders the user named on this command line, where a PDB may be matched by name only when nothing identifies
    /// a module's build: the plain folders of <c>--symbols</c> (not its <c>cache*</c> or <c>srv*</c> elements, nor
    /// <c>_NT_SYMBOL_PATH</c>, nor the default cache) and the <c>--binaries</c> folders.
    /// </summary>
    public IReadOnlyList<string> GetNameOnlyFolders(ParseResult parse)
    {
        var folders = new List<string>();
        string? text = parse.GetValue(Symbols);
        if (!string.IsNullOrWhiteSpace(text))
        {
            folders.AddRange(
                SymbolPath
                    .Parse(text)
                    .Elements.Where(e => e.Kind == SymbolPathElementKind.Folder)
                    .Select(e => e.Directory!)
            );
        }

        folders.AddRange((parse.GetValue(Binaries) ?? []).Select(Path.GetFullPath));
        return folders.Distinct(StringComparer.Ordinal).ToList().AsReadOnly();
    }

    /// <summary>The catalog entry of <c>--sql-build</c>, or <see langword="null"/> when no build was given.</summary>
    /// <exception cref="UsageException">The build is not (or not uniquely) in the catalog in force; the message names
    /// the nearest known builds.</exception>
    public SqlBuildInfo? GetSqlBuild(ParseResult parse, CancellationToken cancellationToken = default)
    {
        string? build = parse.GetValue(SqlBuild);
        if (build is null)
        {
            return null;
        }

        CheckBuildNumber(build, "--sql-build");
        string machine = parse.GetValue(Machine) ?? "x64";
        string? catalogPath = GetCatalogPath(parse);
        var warnings = new List<string>();
        SqlBuildCatalog catalog = SqlBuildCatalog.LoadForLookup(catalogPath, warnings, cancellationToken);
        TextWriter error = TerminalProgress.Current?.Error ?? parse.InvocationConfiguration.Error;
        foreach (string w in warnings)
        {
            error.WriteLine("xeanalyze: warning: " + w);
        }

        return FindBuild(catalog, build, machine, catalogPath, "--sql-build " + build);
    }

    /// <summary>
    /// Checks a build number the user gave (<c>--sql-build</c>, <c>catalog show BUILD</c>) by the catalog's own rule
    /// (<see cref="SqlBuildCatalog.ParseBuildNumber"/>).
    /// </summary>
    /// <exception cref="UsageException">It is not a build number; the message names <paramref
    /// name="what"/>.</exception>
    public static void CheckBuildNumber(string build, string what)
    {
        if (SqlBuildCatalog.ParseBuildNumber(build) is null)
        {
            throw new UsageException(
                what + ": expected a build number such as 13.0.4001.0, found '" + PdbNames.Printable(build) + "'"
            );
        }
    }

    /// <summary>The catalog file of <c>--catalog</c>, else <c>$XEANALYZER_BUILD_CATALOG</c>, else
    /// <see langword="null"/>.</summary>
    public string? GetCatalogPath(ParseResult parse)
    {
        string? path = parse.GetValue(Catalog) ?? Environment.GetEnvironmentVariable(CatalogEnvironmentVariable);
        return string.IsNullOrWhiteSpace(path) ? null : path;
    }

    /// <summary>
    /// The one entry of <paramref name="build"/> in <paramref name="catalog"/>; otherwise a usage error naming the
    /// catalogs searched, the nearest known builds and the command that records a build from its DLLs.
    /// </summary>
    public static SqlBuildInfo FindBuild(
        SqlBuildCatalog catalog,
        string build,
        string machine,
        string? catalogPath,
        string what
    )
    {
        SqlBuildLookupResult result = catalog.Find(build, machine);
        switch (result.Status)
        {
            case SqlBuildLookupStatus.Found:
                return result.Build!;
            case SqlBuildLookupStatus.Ambiguous:
                IEnumerable<string> matches = result.Matches.Select(m =>
                    m.DisplayName
                    + " in "
                    + (m.Source ?? "?")
                    + ", line "
                    + m.LineNumber.ToString(CultureInfo.InvariantCulture)
                );
                throw new UsageException(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{what}: {result.Matches.Count} {machine} entries match ({string.Join("; ", matches)})"
                    )
                );
            default:
                string searched =
                    "the catalog embedded in XeAnalyzer ("
                    + SqlBuildCatalog.Embedded.Builds.Count.ToString(CultureInfo.InvariantCulture)
                    + " builds)";
                string user = SqlBuildCatalog.GetUserCatalogPath();
                if (File.Exists(user))
                {
                    searched += ", " + user;
                }

                if (catalogPath is not null)
                {
                    searched += ", " + catalogPath;
                }

                string others =
                    result.OtherMachineTypes.Count > 0
                        ? " It is known for " + string.Join(", ", result.OtherMachineTypes) + ": use --machine."
                        : string.Empty;
                IReadOnlyList<SqlBuildInfo> nearest = catalog.FindNearest(build, machine);
                string near =
                    nearest.Count == 0
                        ? string.Empty
                        : " Nearest known "
                            + machine
                            + " builds: "
                            + string.Join(", ", nearest.Select(n => n.BuildNumber + " (" + Describe(n) + ")"))
                            + ".";
                throw new UsageException(
                    what
                        + ": no "
                        + machine
                        + " build "
                        + build
                        + " in "
                        + searched
                        + "."
                        + others
                        + near
                        + " To record a build the catalog does not know yet, from the DLLs of its Binn folder: "
                        + "xeanalyze symbols catalog add --binaries <Binn folder> --sql-build "
                        + build
                        + (catalogPath is null ? string.Empty : " --catalog " + catalogPath)
                );
        }
    }

    /// <summary>A build's product, level and label, without repeats (<c>SQL Server 2016 SP1</c>, <c>SQL Server 2019 RTM
    /// CU16</c>).</summary>
    public static string Describe(SqlBuildInfo b)
    {
        var parts = new List<string> { b.ProductMajorVersion };
        foreach (string p in new[] { b.ProductLevel, b.Label })
        {
            if (p.Length > 0 && !parts.Contains(p, StringComparer.Ordinal))
            {
                parts.Add(p);
            }
        }

        return string.Join(' ', parts.Where(p => p.Length > 0));
    }

    /// <summary>The images of <c>--binaries</c>, or <see langword="null"/> when none was given.</summary>
    public ModuleBinaries? GetBinaries(ParseResult parse, CancellationToken cancellationToken = default)
    {
        string[] dirs = parse.GetValue(Binaries) ?? [];
        return dirs.Length == 0 ? null : ModuleBinaries.Scan(dirs, cancellationToken);
    }

    private static Option<string> CreateFrameStyle()
    {
        var o = new Option<string>("--frame-style")
        {
            Description =
                "engine: sqlmin.dll!Name+0x1a9 (as SQL Server symbolizes; default); resolver: sqlmin!Name+425 "
                + "(SQLCallStackResolver); windbg: sqlmin!Name+0x1a9.",
            DefaultValueFactory = _ => "engine",
        };
        o.AcceptOnlyFromAmong("engine", "resolver", "windbg");
        return o;
    }
}

using System.Globalization;
using System.IO.Compression;
using System.Reflection.PortableExecutable;
using System.Text;
using System.Text.Json;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Pe;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Symbols.Catalog;

/// <content>
/// The catalog that ships with XeAnalyzer (the facts of <c>sqlbuildinfo.json</c> as published with
/// microsoft/SQLCallStackResolver under the MIT licence, stored compactly by <c>tools/catalog/make-catalog.py</c>),
/// layering of catalogs (a user's file adds builds or overrides embedded ones), the nearest known builds of an unknown
/// one, and recording a build from its DLLs.
/// </content>
sealed partial class SqlBuildCatalog
{
    /// <summary>The <see cref="SqlBuildInfo.Source"/> of the embedded catalog's entries.</summary>
    public const string EmbeddedSource = "embedded";

    /// <summary>The environment variable naming a catalog file that adds to or overrides the embedded
    /// catalog.</summary>
    public const string EnvironmentVariable = "XEANALYZER_BUILD_CATALOG";

    private const string ResourceName = "XeAnalyzer.Symbols.Catalog.sqlbuildinfo.tsv.gz";
    private const string MsdlBase = "https://msdl.microsoft.com/download/symbols/";

    private static readonly Lazy<(SqlBuildCatalog Catalog, string Sha256)> s_embedded = new(
        ReadEmbedded,
        LazyThreadSafetyMode.ExecutionAndPublication
    );

    /// <summary>
    /// The embedded catalog: every build of the published <c>sqlbuildinfo.json</c> (SQL Server 2008 to 2025, x64 and
    /// x86), in its order. Each entry's <see cref="SqlBuildPdb.DownloadUrl"/> is rebuilt as
    /// <c>https://msdl.microsoft.com/download/symbols/{name}.pdb/{key}/{name}.pdb</c>, as every published one is
    /// written.
    /// </summary>
    public static SqlBuildCatalog Embedded => s_embedded.Value.Catalog;

    /// <summary>The SHA-256 (hex) of the published <c>sqlbuildinfo.json</c> the embedded catalog was generated
    /// from.</summary>
    public static string EmbeddedSourceSha256 => s_embedded.Value.Sha256;

    /// <summary>
    /// The per-user catalog file that <c>xeanalyze symbols catalog add</c> writes by default and every lookup reads
    /// after the embedded catalog: <c>$XDG_CONFIG_HOME/xeanalyzer/sqlbuildinfo.json</c> or
    /// <c>~/.config/xeanalyzer/sqlbuildinfo.json</c> on Linux and macOS,
    /// <c>%APPDATA%\xeanalyzer\sqlbuildinfo.json</c> on Windows.
    /// </summary>
    /// <returns>The path (the file may not exist).</returns>
    public static string GetUserCatalogPath()
    {
        if (OperatingSystem.IsWindows())
        {
            string appData = Environment.GetFolderPath(Environment.SpecialFolder.ApplicationData);
            if (appData.Length > 0)
            {
                return Path.Combine(appData, "xeanalyzer", "sqlbuildinfo.json");
            }
        }
        else
        {
            string? xdg = Environment.GetEnvironmentVariable("XDG_CONFIG_HOME");
            if (!string.IsNullOrEmpty(xdg) && Path.IsPathRooted(xdg))
            {
                return Path.Combine(xdg, "xeanalyzer", "sqlbuildinfo.json");
            }

            string home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            if (home.Length > 0)
            {
                return Path.Combine(home, ".config", "xeanalyzer", "sqlbuildinfo.json");
            }
        }

        return Path.Combine(Path.GetTempPath(), "xeanalyzer", "sqlbuildinfo.json");
    }

    /// <summary>
    /// The catalog in force: the embedded one, then the per-user file (<see cref="GetUserCatalogPath"/>) when it
    /// exists, then
    /// <paramref name="catalogFile"/> (the CLI's <c>--catalog</c>, else <c>$XEANALYZER_BUILD_CATALOG</c>) when given.
    /// An entry of a later layer replaces the entries of the same build number and machine type of the earlier ones;
    /// other entries are added.
    /// </summary>
    /// <param name="catalogFile">A catalog file to add, or <see langword="null"/>.</param>
    /// <param name="cancellationToken">Stops reading.</param>
    /// <returns>The combined catalog.</returns>
    /// <exception cref="InvalidTextInputException">A catalog file is malformed (with file and line).</exception>
    /// <exception cref="IOException">A catalog file cannot be read.</exception>
    public static SqlBuildCatalog LoadLayered(string? catalogFile, CancellationToken cancellationToken = default) =>
        Layer(catalogFile, null, cancellationToken);

    /// <summary>
    /// The catalog in force for a build lookup: as <see cref="LoadLayered"/>, except that a per-user file that cannot
    /// be read is left out, with a warning naming it, instead of failing every lookup (the embedded catalog and
    /// <paramref name="catalogFile"/> still answer). A bad <paramref name="catalogFile"/>, which the user named, still
    /// fails.
    /// </summary>
    /// <param name="catalogFile">A catalog file to add, or <see langword="null"/>.</param>
    /// <param name="warnings">Receives one line when the per-user file is left out.</param>
    /// <param name="cancellationToken">Stops reading.</param>
    /// <returns>The combined catalog.</returns>
    /// <exception cref="InvalidTextInputException"><paramref name="catalogFile"/> is malformed (with file and
    /// line).</exception>
    /// <exception cref="IOException"><paramref name="catalogFile"/> cannot be read.</exception>
    public static SqlBuildCatalog LoadForLookup(
        string? catalogFile,
        ICollection<string> warnings,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(warnings);
        return Layer(catalogFile, warnings, cancellationToken);
    }

    private static SqlBuildCatalog Layer(
        string? catalogFile,
        ICollection<string>? warnings,
        CancellationToken cancellationToken
    )
    {
        SqlBuildCatalog catalog = Embedded;
        string user = GetUserCatalogPath();
        if (File.Exists(user) && !SamePath(user, catalogFile))
        {
            try
            {
                catalog = catalog.Overlay(Load(user, cancellationToken));
            }
            catch (Exception ex) when (warnings is not null && InputFailure.IsReadFailure(ex))
            {
                warnings.Add(
                    "the per-user build catalog "
                        + user
                        + " is left out: it cannot be read: "
                        + InputFailure.Describe(ex)
                );
            }
        }

        if (!string.IsNullOrWhiteSpace(catalogFile))
        {
            catalog = catalog.Overlay(Load(catalogFile, cancellationToken));
        }

        return catalog;
    }

    /// <summary>
    /// This catalog with <paramref name="overrides"/> laid over it: its entries replace those of the same build number
    /// and machine type here (every one of them), and the rest are added after this catalog's entries.
    /// </summary>
    /// <param name="overrides">The catalog that wins.</param>
    /// <returns>The combined catalog.</returns>
    public SqlBuildCatalog Overlay(SqlBuildCatalog overrides)
    {
        ArgumentNullException.ThrowIfNull(overrides);
        var replaced = new HashSet<(Version, string)>();
        foreach (SqlBuildInfo b in overrides._builds)
        {
            if (b.Version is Version v)
            {
                replaced.Add((v, b.MachineType.ToUpperInvariant()));
            }
        }

        var builds = new List<SqlBuildInfo>(_builds.Length + overrides._builds.Length);
        builds.AddRange(
            _builds.Where(b => b.Version is not Version v || !replaced.Contains((v, b.MachineType.ToUpperInvariant())))
        );
        builds.AddRange(overrides._builds);
        return new SqlBuildCatalog([.. builds]);
    }

    /// <summary>
    /// The known builds of <paramref name="machineType"/> nearest to <paramref name="buildNumber"/>: up to
    /// <paramref name="count"/> entries closest below and above it, of the same major version when there are any, in
    /// version order.
    /// </summary>
    /// <param name="buildNumber">The build asked for.</param>
    /// <param name="machineType">The machine type (<c>x64</c>, <c>x86</c>).</param>
    /// <param name="count">How many to return at most.</param>
    /// <returns>The nearest builds; empty when the catalog has none of that machine type.</returns>
    /// <exception cref="ArgumentException"><paramref name="buildNumber"/> is not a version number.</exception>
    public IReadOnlyList<SqlBuildInfo> FindNearest(string buildNumber, string machineType = "x64", int count = 4)
    {
        ArgumentNullException.ThrowIfNull(buildNumber);
        Version wanted =
            ParseBuildNumber(buildNumber)
            ?? throw new ArgumentException(
                $"'{buildNumber}' is not a " + "build number such as 13.0.4001.0.",
                nameof(buildNumber)
            );
        var known = _builds
            .Where(b =>
                b.Version is not null && string.Equals(b.MachineType, machineType, StringComparison.OrdinalIgnoreCase)
            )
            .ToList();
        var sameMajor = known.Where(b => b.Version!.Major == wanted.Major).ToList();
        List<SqlBuildInfo> pool = sameMajor.Count > 0 ? sameMajor : known;
        var below = pool.Where(b => b.Version! < wanted)
            .OrderByDescending(b => b.Version)
            .Take((count + 1) / 2)
            .ToList();
        var above = pool.Where(b => b.Version! > wanted).OrderBy(b => b.Version).Take(count - below.Count).ToList();
        if (below.Count + above.Count < count)
        {
            below = pool.Where(b => b.Version! < wanted)
                .OrderByDescending(b => b.Version)
                .Take(count - above.Count)
                .ToList();
        }

        return [.. below.Concat(above).DistinctBy(b => (b.Version, b.LineNumber, b.Source)).OrderBy(b => b.Version)];
    }

    /// <summary>
    /// Describes a build from its DLLs and EXEs: one PDB per image with an RSDS record (the SQL Server engine modules,
    /// <see cref="IsEngineModule"/>, unless <paramref name="allModules"/>), named as the RSDS names it, with the
    /// image's file version, in module-name order; <c>DownloadURL</c> is Microsoft's symbol-server key for it and
    /// <c>DownloadVerified</c> false (not checked).
    /// </summary>
    /// <param name="buildNumber">The build number (<c>16.0.4135.4</c>).</param>
    /// <param name="machineType">The machine type, or <see langword="null"/> to take it from the images (they must
    /// agree).</param>
    /// <param name="images">The images (the resolver's <c>ModuleBinaries.Scan(…).Images</c>).</param>
    /// <param name="allModules">Whether to record every image, not only the engine's.</param>
    /// <param name="label">The <c>Label</c> to record; "recorded by xeanalyze" by default.</param>
    /// <returns>The entry, with at least one PDB.</returns>
    /// <exception cref="ArgumentException">The build number is not a version, no image qualifies, or the images'
    /// machine types differ.</exception>
    /// <exception cref="InvalidPeDataException">
    /// An image's RSDS record names a PDB file <see cref="PdbNames.IsValid"/> refuses: the entry could not name that
    /// module's PDB, so none is made. </exception>
    internal static SqlBuildInfo Describe(
        string buildNumber,
        string? machineType,
        IEnumerable<ModuleBinary> images,
        bool allModules = false,
        string? label = null
    )
    {
        ArgumentNullException.ThrowIfNull(buildNumber);
        ArgumentNullException.ThrowIfNull(images);
        Version version =
            ParseBuildNumber(buildNumber)
            ?? throw new ArgumentException(
                $"'{buildNumber}' is not a " + "build number such as 16.0.4135.4.",
                nameof(buildNumber)
            );
        var recorded = images
            .Where(i => i.CodeView is not null && (allModules || IsEngineModule(i.Module)))
            .OrderBy(i => i.Module.Key, StringComparer.Ordinal)
            .ThenBy(i => i.Path, StringComparer.Ordinal)
            .ToList();
        if (recorded.Count == 0)
        {
            throw new ArgumentException(
                allModules
                    ? "no image with an RSDS (CodeView) record was found in the binaries folders"
                    : "no SQL Server engine module (sql*, hk*, qds) with an RSDS (CodeView) record was found in the "
                        + "binaries folders (use all modules to record the others)",
                nameof(images)
            );
        }

        string machine = machineType ?? MachineOf(recorded);
        var pdbs = new List<SqlBuildPdb>();
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (ModuleBinary image in recorded)
        {
            PeCodeViewRecord cv = image.CodeView!;
            string file = cv.PdbFileName;
            if (!PdbNames.IsValid(file, out string? problem))
            {
                throw new InvalidPeDataException(
                    image.Path,
                    null,
                    "expected an RSDS (CodeView) record naming a PDB " + "file a symbol store can hold: " + problem
                );
            }

            if (!seen.Add(file))
            {
                continue;
            }

            string name = file[..^4];
            string url =
                MsdlBase
                + Uri.EscapeDataString(file)
                + "/"
                + cv.Identity.Key.ToLowerInvariant()
                + "/"
                + Uri.EscapeDataString(file);
            string? fileVersion = null;
            try
            {
                fileVersion = PeVersionResource.TryReadFileVersion(image.Path);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // The image was readable a moment ago; without a version it is still recorded.
            }

            pdbs.Add(new SqlBuildPdb(name, file, cv.Identity, url, downloadVerified: false, fileVersion));
        }

        return new SqlBuildInfo(
            ProductName(version),
            string.Empty,
            label ?? "recorded by xeanalyze symbols catalog add",
            buildNumber.Trim(),
            version,
            string.Empty,
            machine,
            pdbs.AsReadOnly(),
            0
        );
    }

    /// <summary>
    /// Whether a module is part of the SQL Server engine (<c>sql*</c>, <c>hk*</c>, <c>qds</c>): its PDBs are public,
    /// SQL Server symbolizes it in-engine with the PDB in Binn, and the catalog records it for a build.
    /// </summary>
    /// <param name="module">The module.</param>
    internal static bool IsEngineModule(ModuleName module)
    {
        string k = module.Key;
        return k.StartsWith("sql", StringComparison.Ordinal)
            || k.StartsWith("hk", StringComparison.Ordinal)
            || string.Equals(k, "qds", StringComparison.Ordinal);
    }

    /// <summary>One catalog line in the published format (one compact JSON object, the published key order).</summary>
    /// <param name="build">The entry.</param>
    /// <returns>The line, without line break.</returns>
    public static string ToJsonLine(SqlBuildInfo build)
    {
        ArgumentNullException.ThrowIfNull(build);
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer))
        {
            w.WriteStartObject();
            w.WriteString("ProductMajorVersion", build.ProductMajorVersion);
            w.WriteString("ProductLevel", build.ProductLevel);
            w.WriteString("Label", build.Label);
            w.WriteString("BuildNumber", build.BuildNumber);
            w.WriteString("KBInfo", build.KBInfo);
            w.WriteStartArray("SymbolDetails");
            foreach (SqlBuildPdb p in build.Pdbs)
            {
                w.WriteStartObject();
                w.WriteString("PDBName", p.Name);
                w.WriteString("DownloadURL", p.DownloadUrl);
                w.WriteBoolean("DownloadVerified", p.DownloadVerified);
                if (p.FileVersion is not null)
                {
                    w.WriteString("FileVersion", p.FileVersion);
                }

                w.WriteEndObject();
            }

            w.WriteEndArray();
            w.WriteString("MachineType", build.MachineType);
            w.WriteEndObject();
        }

        return Encoding.UTF8.GetString(buffer.ToArray());
    }

    /// <summary>
    /// Adds <paramref name="build"/> to the catalog file at <paramref name="path"/> (created with its folder when
    /// missing), replacing any line of the same build number and machine type; the file is rewritten through a
    /// temporary file and a rename.
    /// </summary>
    /// <param name="path">The catalog file.</param>
    /// <param name="build">The entry.</param>
    /// <returns>How many lines were replaced (0 or more).</returns>
    /// <exception cref="InvalidTextInputException">The existing file is malformed (it is left as it is).</exception>
    /// <exception cref="IOException">The file cannot be written.</exception>
    public static int AddToFile(string path, SqlBuildInfo build)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentNullException.ThrowIfNull(build);
        var lines = new List<string>();
        int replaced = 0;
        if (File.Exists(path))
        {
            string[] existing = File.ReadAllLines(path);
            SqlBuildCatalog parsed = Load(path);
            var byLine = parsed._builds.ToDictionary(b => b.LineNumber);
            for (int i = 0; i < existing.Length; i++)
            {
                if (
                    byLine.TryGetValue(i + 1, out SqlBuildInfo? old)
                    && old.Version == build.Version
                    && string.Equals(old.MachineType, build.MachineType, StringComparison.OrdinalIgnoreCase)
                )
                {
                    replaced++;
                    continue;
                }

                if (existing[i].Trim().Length > 0)
                {
                    lines.Add(existing[i]);
                }
            }
        }

        lines.Add(ToJsonLine(build));
        string full = Path.GetFullPath(path);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        string temp = full + "." + Guid.NewGuid().ToString("N") + ".tmp";
        try
        {
            File.WriteAllText(
                temp,
                string.Concat(lines.Select(l => l + "\n")),
                new UTF8Encoding(encoderShouldEmitUTF8Identifier: false)
            );
            File.Move(temp, full, overwrite: true);
        }
        finally
        {
            if (File.Exists(temp))
            {
                File.Delete(temp);
            }
        }

        return replaced;
    }

    /// <summary>The product name of a version: 10.0 SQL Server 2008, 10.50 2008 R2, 11 2012, 12 2014, 13 2016, 14 2017,
    /// 15 2019, 16 2022, 17 2025.</summary>
    internal static string ProductName(Version v) =>
        v.Major switch
        {
            10 => v.Minor >= 50 ? "SQL Server 2008 R2" : "SQL Server 2008",
            11 => "SQL Server 2012",
            12 => "SQL Server 2014",
            13 => "SQL Server 2016",
            14 => "SQL Server 2017",
            15 => "SQL Server 2019",
            16 => "SQL Server 2022",
            17 => "SQL Server 2025",
            _ => "SQL Server " + v.Major.ToString(CultureInfo.InvariantCulture),
        };

    private static string MachineOf(List<ModuleBinary> images)
    {
        var machines = images
            .Select(i =>
                i.Image.Machine switch
                {
                    Machine.Amd64 => "x64",
                    Machine.I386 => "x86",
                    Machine.Arm64 => "arm64",
                    _ => ((int)i.Image.Machine).ToString("X4", CultureInfo.InvariantCulture),
                }
            )
            .Distinct(StringComparer.Ordinal)
            .ToList();
        return machines.Count == 1
            ? machines[0]
            : throw new ArgumentException(
                "the images are of several machine types (" + string.Join(", ", machines) + "): give the machine type",
                nameof(images)
            );
    }

    private static bool SamePath(string a, string? b) =>
        b is not null
        && string.Equals(
            Path.GetFullPath(a),
            Path.GetFullPath(b),
            OperatingSystem.IsWindows() ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal
        );

    /// <summary>Reads the embedded resource written by <c>tools/catalog/make-catalog.py</c> (see that script for the
    /// format).</summary>
    private static (SqlBuildCatalog, string) ReadEmbedded()
    {
        using Stream resource =
            typeof(SqlBuildCatalog).Assembly.GetManifestResourceStream(ResourceName)
            ?? throw new InvalidOperationException(
                "the embedded build catalog " + ResourceName + " is missing from the assembly"
            );
        using var gzip = new GZipStream(resource, CompressionMode.Decompress);
        using var reader = new StreamReader(gzip, Encoding.UTF8);
        string header = reader.ReadLine() ?? string.Empty;
        string[] h = header.Split('\t');
        if (h.Length != 5 || h[0] != "#xeanalyzer-sqlbuildinfo" || h[1] != "1")
        {
            throw new InvalidOperationException("the embedded build catalog has an unknown header: " + header);
        }

        var builds = new List<SqlBuildInfo>();
        string[]? build = null;
        var pdbs = new List<SqlBuildPdb>();
        void Flush()
        {
            if (build is not null)
            {
                builds.Add(
                    new SqlBuildInfo(
                        build[1],
                        build[2],
                        build[3],
                        build[4],
                        ParseBuildNumber(build[4]),
                        build[5],
                        build[6],
                        pdbs.ToArray().AsReadOnly(),
                        builds.Count + 1,
                        EmbeddedSource
                    )
                );
            }

            pdbs.Clear();
        }

        while (reader.ReadLine() is string line)
        {
            string[] f = line.Split('\t');
            if (f[0] == "B" && f.Length == 7)
            {
                Flush();
                build = f;
            }
            else if (f[0] == "P" && f.Length == 5 && build is not null)
            {
                string file = f[1] + ".pdb";
                string url = MsdlBase + file + "/" + f[2] + "/" + file;
                if (!TryParsePdbUrl(url, out string? pdbFile, out PdbIdentity identity, out string? why))
                {
                    throw new InvalidOperationException(
                        "the embedded build catalog has a bad entry (" + why + "): " + line
                    );
                }

                pdbs.Add(new SqlBuildPdb(f[1], pdbFile, identity, url, f[3] == "1", f[4]));
            }
            else
            {
                throw new InvalidOperationException("the embedded build catalog has a bad line: " + line);
            }
        }

        Flush();
        if (
            builds.Count.ToString(CultureInfo.InvariantCulture) != h[3]
            || builds.Sum(b => b.Pdbs.Count).ToString(CultureInfo.InvariantCulture) != h[4]
        )
        {
            throw new InvalidOperationException(
                "the embedded build catalog's counts do not match its header: " + header
            );
        }

        return (new SqlBuildCatalog([.. builds]), h[2]);
    }
}

using System.Globalization;
using System.Text;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Pe;
using XeAnalyzer.Symbols.Store.Cab;

namespace XeAnalyzer.Fuzz;

/// <summary>One seed input of a target: a short name (used in finding file names, so a finding replays against the same
/// seed) and its bytes.</summary>
/// <param name="Name">Short name, e.g. <c>sqlmin-stripped</c>.</param>
/// <param name="Bytes">The seed's bytes.</param>
/// <param name="PdbName">For PDB and CAB seeds: the PDB file name the seed stands for.</param>
/// <param name="Identity">For PDB and CAB seeds: the seed's GUID and age, under which the mutated file is placed in a
/// store.</param>
public sealed record FuzzSeed(string Name, byte[] Bytes, string? PdbName = null, PdbIdentity? Identity = null);

/// <summary>
/// A format under fuzz: its seeds (committed fixtures the project builds itself) and how one input is exercised:
/// through the library's reader and through the <c>xeanalyze</c> commands that read that format, run in-process.
/// </summary>
public sealed class FuzzTarget
{
    private static readonly string[] HistogramSamples =
    [
        "latch_nesting_full_histogram",
        "cci_insert_memory_histogram",
        "blob_storage_waits_histogram",
        "latch_nesting_full_counter",
    ];

    /// <summary>Builds the catalog seeds hold: the fixture's, one with PDBs and one without (as published).</summary>
    private static readonly string[] CatalogBuilds = ["99.0.1000.1", "13.0.4001.0", "10.50.6520.0"];

    private readonly Action<FuzzSeed, byte[], FuzzExecution> _execute;
    private readonly Func<byte[], byte[], Random, byte[]>? _mutate;

    private FuzzTarget(
        string name,
        bool isText,
        int maxLength,
        IReadOnlyList<FuzzSeed> seeds,
        Action<FuzzSeed, byte[], FuzzExecution> execute,
        Func<byte[], byte[], Random, byte[]>? mutate = null
    )
    {
        Name = name;
        IsText = isText;
        MaxLength = maxLength;
        Seeds = seeds;
        _execute = execute;
        _mutate = mutate;
    }

    /// <summary>The target's name: <c>xel</c>, <c>pdb</c>, <c>pe</c>, <c>cab</c>, <c>xml</c> or <c>text</c>.</summary>
    public string Name { get; }

    /// <summary>Whether text mutations apply.</summary>
    public bool IsText { get; }

    /// <summary>The largest mutated input.</summary>
    public int MaxLength { get; }

    /// <summary>The seeds, in a fixed order.</summary>
    public IReadOnlyList<FuzzSeed> Seeds { get; }

    /// <summary>
    /// The target names, in the order the runner visits them (new ones go last: a target's index seeds its inputs).
    /// </summary>
    public static IReadOnlyList<string> Names { get; } =
    ["xel", "pdb", "pe", "cab", "xml", "text", "values", "catalog", "rsds", "args"];

    /// <summary>Builds the target <paramref name="name"/> from the fixtures under
    /// <paramref name="repoRoot"/>.</summary>
    public static FuzzTarget Create(string name, string repoRoot) =>
        name switch
        {
            "xel" => Xel(repoRoot),
            "pdb" => Pdb(repoRoot),
            "pe" => Pe(repoRoot),
            "cab" => Cab(repoRoot),
            "xml" => Xml(repoRoot),
            "text" => Text(repoRoot),
            "values" => Values(repoRoot),
            "catalog" => CatalogFiles(repoRoot),
            "rsds" => Rsds(repoRoot),
            "args" => Args(repoRoot),
            _ => throw new ArgumentException(
                "unknown fuzz target '" + name + "' (expected " + string.Join(", ", Names) + ")",
                nameof(name)
            ),
        };

    /// <summary>
    /// A mutation of <paramref name="seed"/>: the target's own kind, else <see cref="Mutator.Mutate"/>.
    /// </summary>
    public byte[] Mutate(byte[] seed, byte[] other, Random random) =>
        _mutate is null ? Mutator.Mutate(seed, other, IsText, random, MaxLength) : _mutate(seed, other, random);

    /// <summary>Runs <paramref name="input"/> (a mutation of <paramref name="seed"/>) through the target; problems go
    /// to <paramref name="run"/>.</summary>
    public void Execute(FuzzSeed seed, byte[] input, FuzzExecution run) => _execute(seed, input, run);

    /// <summary>The seed named <paramref name="name"/>, or the first seed when there is none of that name.</summary>
    public FuzzSeed SeedNamed(string name) => Seeds.FirstOrDefault(s => s.Name == name) ?? Seeds[0];

    private static string P(string root, params string[] parts) => Path.Combine([root, .. parts]);

    private static FuzzSeed Seed(string name, string path) => new(name.Replace('.', '_'), File.ReadAllBytes(path));

    private static FuzzSeed PdbSeed(string name, string path)
    {
        using PdbFile pdb = PdbFile.Open(path);
        return new FuzzSeed(name, File.ReadAllBytes(path), Path.GetFileName(path), pdb.Identity);
    }

    private static string SymbolsCache(string root) => P(root, "symbols-cache");

    private static string Catalog(string root) =>
        P(root, "XeAnalyzer.Tests", "TestData", "catalog", "fixture-buildinfo.json");

    private static FuzzTarget Xel(string root)
    {
        string xel = P(root, "XeAnalyzer.Tests", "TestData", "xel");
        FuzzSeed[] seeds =
        [
            Seed("latch", P(xel, "latch.xel")),
            Seed("all-types", P(xel, "all-types.xel")),
            .. Directory
                .GetFiles(P(xel, "rollover"), "*.xel")
                .Order(StringComparer.Ordinal)
                .Select((f, i) => Seed("rollover" + i.ToString(CultureInfo.InvariantCulture), f)),
        ];
        return new FuzzTarget(
            "xel",
            isText: false,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string file = run.WriteInput("in.xel", input);
                string cache = SymbolsCache(root);
                run.Cli("info", file);
                run.Cli("events", file, "--format", "json", "--limit", "2000");
                run.Cli("events", file, "--skip-corrupt", "--format", "csv", "--limit", "2000");
                run.Cli("stacks", file, "--skip-corrupt", "--offline", "--symbols", cache, "--binaries", cache);
                run.Cli("latches", file, "--skip-corrupt");
                run.Cli("memory", file, "--skip-corrupt");
                run.Cli("waits", file, "--skip-corrupt");
            }
        );
    }

    private static FuzzTarget Pdb(string root)
    {
        FuzzSeed[] seeds =
        [
            PdbSeed("tiny-full", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "full", "tiny.pdb")),
            PdbSeed("tiny-publics", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "publics", "tiny.pdb")),
            PdbSeed(
                "sqlmin-stripped",
                Directory
                    .GetFiles(P(root, "symbols-cache", "sqlmin.pdb"), "sqlmin.pdb", SearchOption.AllDirectories)
                    .Single()
            ),
            PdbSeed(
                "sqlmin-full",
                Directory
                    .GetFiles(
                        P(root, "XeAnalyzer.Tests", "TestData", "symbols-private", "sqlmin.pdb"),
                        "sqlmin.pdb",
                        SearchOption.AllDirectories
                    )
                    .Single()
            ),
        ];
        return new FuzzTarget(
            "pdb",
            isText: false,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                run.Library(
                    "PdbFile",
                    () =>
                    {
                        using PdbFile pdb = PdbFile.Open(
                            new MemoryRandomAccessSource(input, "fuzz.pdb"),
                            ownsSource: true
                        );
                        _ =
                            pdb.Identity.ToString()
                            + pdb.Sections.Count
                            + pdb.OriginalSections.Count
                            + pdb.Dbi?.Machine;
                        _ = pdb.GetModules().Count + pdb.GetPublics().Count + pdb.GetProcedures().Count;
                        _ = pdb.HasOmap();
                        foreach (uint rva in new uint[] { 0, 0x1000, 0x11E9, 0x1D00, 0x7FFFFFFF, uint.MaxValue })
                        {
                            _ = pdb.Lookup(rva)?.ToString();
                        }
                    }
                );
                string store = run.Folder("store");
                run.WriteFile(Path.Combine(store, seed.PdbName!, seed.Identity!.Value.Key, seed.PdbName!), input);
                string frames = RvaFrames(seed, "0x1000", "0x11e9", "0x1d00", "0xffffffff");
                run.Cli(
                    "resolve",
                    run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)),
                    "--symbols",
                    store,
                    "--offline"
                );
            }
        );
    }

    private static FuzzTarget Pe(string root)
    {
        string DllOf(string module) =>
            Directory
                .GetFiles(P(root, "symbols-cache", module + ".dll"), module + ".dll", SearchOption.AllDirectories)
                .Single();
        FuzzSeed[] seeds =
        [
            Seed("sqldk", DllOf("sqldk")),
            Seed("sqlTsEs", DllOf("sqlTsEs")),
            Seed("tiny", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "full", "tiny.dll")),
        ];
        return new FuzzTarget(
            "pe",
            isText: false,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string bin = run.Folder("bin");
                string dll = run.WriteFile(Path.Combine(bin, seed.Name + ".dll"), input);
                run.Library(
                    "PeImage",
                    () =>
                    {
                        PeImage image = PeImage.Open(dll);
                        _ =
                            image.SymbolServerKey
                            + image.Machine
                            + image.Is64Bit
                            + image.ImageBase
                            + image.SizeOfImage
                            + image.Sections.Count;
                        _ =
                            image.CodeView?.ToString()
                            + image.ExportDllName
                            + image.ExportOrdinalBase
                            + image.Exports.Count;
                    }
                );
                string frames =
                    seed.Name
                    + ".dll!Ordinal1+0x10\n"
                    + seed.Name
                    + ".dll!Ordinal4294967295+0x1\n"
                    + seed.Name
                    + ".dll+0x11f5\n"
                    + seed.Name
                    + "+0x1000\n";
                string cache = SymbolsCache(root);
                run.Cli(
                    "resolve",
                    run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)),
                    "--binaries",
                    bin,
                    "--symbols",
                    cache,
                    "--offline"
                );
            }
        );
    }

    private static FuzzTarget Cab(string root)
    {
        string storeA = P(root, "XeAnalyzer.Tests", "TestData", "store");
        string sqldkCab = Directory
            .GetFiles(P(root, "XeAnalyzer.Tests", "TestData", "cab"), "*.pd_", SearchOption.AllDirectories)
            .Single();
        FuzzSeed CabSeed(string name, string cab, string pdbName, string pdbPath)
        {
            using PdbFile pdb = PdbFile.Open(pdbPath);
            return new FuzzSeed(name, File.ReadAllBytes(cab), pdbName, pdb.Identity);
        }

        FuzzSeed[] seeds =
        [
            CabSeed("storea", P(storeA, "storea.pd_"), "storea.pdb", P(storeA, "storea.pdb")),
            CabSeed(
                "sqldk",
                sqldkCab,
                "sqldk.pdb",
                Directory
                    .GetFiles(P(root, "symbols-cache", "sqldk.pdb"), "sqldk.pdb", SearchOption.AllDirectories)
                    .Single()
            ),
        ];
        return new FuzzTarget(
            "cab",
            isText: false,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                run.Library(
                    "CabArchive",
                    () =>
                    {
                        using CabArchive cab = CabArchive.Open(
                            new MemoryRandomAccessSource(input, "fuzz.pd_"),
                            ownsSource: true
                        );
                        foreach (CabFileEntry entry in cab.Files)
                        {
                            _ = entry.Name + entry.Length;
                            cab.Extract(entry, Stream.Null, 64L << 20, CancellationToken.None);
                        }
                    }
                );
                string store = run.Folder("store");
                string cache = run.Folder("cache");
                string pdbName = seed.PdbName!;
                run.WriteFile(Path.Combine(store, pdbName, seed.Identity!.Value.Key, pdbName[..^1] + "_"), input);
                string frames = RvaFrames(seed, "0x1000", "0x11e9");
                run.Cli(
                    "resolve",
                    run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)),
                    "--symbols",
                    "cache*" + cache + ";" + store,
                    "--offline"
                );
            }
        );
    }

    private static FuzzTarget Xml(string root)
    {
        string text = P(root, "XeAnalyzer.Tests", "TestData", "text");
        FuzzSeed[] seeds =
        [
            .. Directory
                .GetFiles(text, "*.xml")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
            .. Directory
                .GetFiles(P(root, "sample-xel", "latch_nesting_full_histogram"), "*.xml")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        return new FuzzTarget(
            "xml",
            isText: true,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string file = run.WriteInput("target.xml", input);
                string cache = SymbolsCache(root);
                run.Cli("resolve", file, "--symbols", cache, "--offline");
                run.Cli("stacks", file, "--symbols", cache, "--binaries", cache, "--offline");
                run.Cli("latches", file);
                run.Cli("waits", file);
            }
        );
    }

    private static FuzzTarget Text(string root)
    {
        string text = P(root, "XeAnalyzer.Tests", "TestData", "text");
        FuzzSeed[] seeds =
        [
            .. Directory
                .GetFiles(text, "*.txt")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
            .. Directory
                .GetFiles(P(root, "XeAnalyzer.Fuzz", "seeds", "text"), "*.txt")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        string modules = P(text, "loaded_modules_crlf.txt");
        return new FuzzTarget(
            "text",
            isText: true,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string file = run.WriteInput("stacks.txt", input);
                string cache = SymbolsCache(root);
                run.Cli(
                    "resolve",
                    file,
                    "--symbols",
                    cache,
                    "--offline",
                    "--sql-build",
                    "99.0.1000.1",
                    "--catalog",
                    Catalog(root)
                );
                run.Cli(
                    "resolve",
                    file,
                    "--symbols",
                    cache,
                    "--offline",
                    "--resolved-input",
                    "--frame-style",
                    "resolver"
                );
                run.Cli(
                    "resolve",
                    file,
                    "--symbols",
                    cache,
                    "--offline",
                    "--modules",
                    modules,
                    "--binaries",
                    cache,
                    "--single-line"
                );
                run.Cli("resolve", file, "--symbols", cache, "--offline", "--modules", file);
            }
        );
    }

    /// <summary>
    /// Target XML whose numbers are extreme or no numbers at all (event_sequence, duration, slot counts near and past
    /// 2^63, negative, huge exponents), through every analysis that sums or orders them.
    /// </summary>
    private static FuzzTarget Values(string root)
    {
        FuzzSeed[] seeds =
        [
            Seed("ring_buffer_waits", P(root, "sample-xel", "ring_buffer_waits", "ring_buffer_waits.ring_buffer.xml")),
            .. HistogramSamples
                .SelectMany(d => Directory.GetFiles(P(root, "sample-xel", d), "*.xml").Order(StringComparer.Ordinal))
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
            .. Directory
                .GetFiles(P(root, "XeAnalyzer.Tests", "TestData", "text"), "*.xml")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        return new FuzzTarget(
            "values",
            isText: true,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string file = run.WriteInput("target.xml", input);
                string cache = SymbolsCache(root);
                run.Cli("info", file);
                run.Cli("events", file, "--format", "csv");
                run.Cli("waits", file);
                run.Cli("latches", file);
                run.Cli("memory", file);
                run.Cli("histogram", file);
                run.Cli(
                    "stacks",
                    file,
                    "--symbols",
                    cache,
                    "--binaries",
                    cache,
                    "--offline",
                    "--weight",
                    "duration",
                    "--format",
                    "folded"
                );
                run.Cli("report", file, "-o", run.Folder("report"), "--symbols", cache, "--offline");
            },
            (seed, other, random) => Mutator.MutateNumbers(seed, other, random, 1 << 20)
        );
    }

    /// <summary>
    /// Build catalog files (one JSON object per line) with hostile values, read as <c>--catalog</c> and as the per-user
    /// catalog every <c>--sql-build</c> lookup reads.
    /// </summary>
    private static FuzzTarget CatalogFiles(string root)
    {
        FuzzSeed[] seeds =
        [
            Seed("fixture", Catalog(root)),
            new FuzzSeed(
                "published",
                Encoding.UTF8.GetBytes(
                    string.Concat(
                        XeAnalyzer
                            .Symbols.Catalog.SqlBuildCatalog.Embedded.Builds.Where(b =>
                                b.BuildNumber is "13.0.4001.0" or "10.50.6520.0" or "10.50.6542.0"
                            )
                            .Select(b => XeAnalyzer.Symbols.Catalog.SqlBuildCatalog.ToJsonLine(b) + "\n")
                    )
                )
            ),
        ];
        return new FuzzTarget(
            "catalog",
            isText: true,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string file = run.WriteInput("catalog.json", input);
                string frames = run.WriteInput("frames.txt", "sqldk+0x40609\nsqlmin.dll+0x11e9\n"u8.ToArray());
                string empty = run.Folder("empty");
                run.Library(
                    "SqlBuildCatalog",
                    () =>
                    {
                        using var reader = new StringReader(Encoding.UTF8.GetString(input));
                        XeAnalyzer.Symbols.Catalog.SqlBuildCatalog c = XeAnalyzer.Symbols.Catalog.SqlBuildCatalog.Read(
                            reader,
                            "catalog.json"
                        );
                        foreach (XeAnalyzer.Symbols.Catalog.SqlBuildInfo b in c.Builds.Take(50))
                        {
                            // Find takes build numbers only (ArgumentException otherwise, as documented); an entry may
                            // hold any text.
                            _ =
                                (b.Version is null ? null : c.Find(b.BuildNumber, b.MachineType).Status)
                                + b.DisplayName
                                + XeAnalyzer.Symbols.Catalog.SqlBuildCatalog.ToJsonLine(b);
                        }
                    }
                );
                run.Cli("symbols", "catalog", "list", "--catalog", file);
                foreach (string build in CatalogBuilds)
                {
                    run.Cli("symbols", "catalog", "show", build, "--catalog", file);
                    run.Cli(
                        "resolve",
                        frames,
                        "--sql-build",
                        build,
                        "--catalog",
                        file,
                        "--symbols",
                        empty,
                        "--offline"
                    );
                }

                // The same file as the per-user catalog, which every lookup reads unasked.
                run.WithUserFolders(() =>
                {
                    string user = XeAnalyzer.Symbols.Catalog.SqlBuildCatalog.GetUserCatalogPath();
                    run.WriteFile(user, input);
                    run.Cli("resolve", frames, "--sql-build", "13.0.4001.0", "--symbols", empty, "--offline");
                    run.Cli("symbols", "catalog", "list");
                });
            },
            (seed, other, random) => Mutator.MutateJsonValues(seed, other, random, 1 << 20)
        );
    }

    /// <summary>
    /// Engine DLLs whose RSDS record is mutated, recorded by <c>symbols catalog add</c>; what it wrote is read back by
    /// <c>catalog show</c> and a <c>--sql-build</c> lookup.
    /// </summary>
    private static FuzzTarget Rsds(string root)
    {
        string DllOf(string module) =>
            Directory
                .GetFiles(P(root, "symbols-cache", module + ".dll"), module + ".dll", SearchOption.AllDirectories)
                .Single();
        FuzzSeed[] seeds =
        [
            Seed("sqldk", DllOf("sqldk")),
            Seed("sqlTsEs", DllOf("sqlTsEs")),
            Seed("sqlmin", DllOf("sqlmin")),
        ];
        return new FuzzTarget(
            "rsds",
            isText: false,
            maxLength: 1 << 20,
            seeds,
            (seed, input, run) =>
            {
                string bin = run.Folder("bin");
                run.WriteFile(Path.Combine(bin, seed.Name + ".dll"), input);
                string catalog = Path.Combine(run.Folder("catalog"), "catalog.json");
                string cache = SymbolsCache(root);
                if (
                    run.Cli(
                        "symbols",
                        "catalog",
                        "add",
                        "--binaries",
                        bin,
                        "--sql-build",
                        "16.0.1.0",
                        "--catalog",
                        catalog
                    ) == 0
                )
                {
                    run.Cli("symbols", "catalog", "show", "16.0.1.0", "--catalog", catalog);
                    string frames = run.WriteInput(
                        "frames.txt",
                        Encoding.UTF8.GetBytes(seed.Name + "+0x11e9\n" + seed.Name + ".dll+0x1000\n")
                    );
                    run.Cli(
                        "resolve",
                        frames,
                        "--sql-build",
                        "16.0.1.0",
                        "--catalog",
                        catalog,
                        "--symbols",
                        cache,
                        "--offline"
                    );
                }

                run.Cli(
                    "symbols",
                    "catalog",
                    "add",
                    "--binaries",
                    bin,
                    "--sql-build",
                    "16.0.2.0",
                    "--all-modules",
                    "--machine",
                    "x64",
                    "--catalog",
                    catalog
                );
            },
            (seed, other, random) => Mutator.MutateRsds(seed, other, random, 1 << 20)
        );
    }

    /// <summary>
    /// Command lines (one argument per line) with empty arguments, options as values, unknown options, <c>--</c> and
    /// huge numbers. They run in a scratch folder holding the inputs they name, with the per-user folders (build
    /// catalog, symbol cache) moved there too, so nothing they write lands elsewhere; the network is never asked.
    /// </summary>
    private static FuzzTarget Args(string root)
    {
        FuzzSeed[] seeds =
        [
            .. Directory
                .GetFiles(P(root, "XeAnalyzer.Fuzz", "seeds", "args"), "*.txt")
                .Order(StringComparer.Ordinal)
                .Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        (string Name, string Source)[] inputs =
        [
            ("latch.xel", P(root, "XeAnalyzer.Tests", "TestData", "xel", "latch.xel")),
            (
                "histogram.xml",
                P(root, "sample-xel", "latch_nesting_full_histogram", "latch_nesting_full.histogram.xml")
            ),
            (
                "waits.xml",
                P(root, "sample-xel", "blob_storage_waits_histogram", "blob_storage_waits.wait_type.histogram.xml")
            ),
            ("maps.tsv", P(root, "sample-xel", "blob_storage_waits_histogram", "blob_storage_waits.map_values.tsv")),
            ("stacks.txt", P(root, "XeAnalyzer.Fuzz", "seeds", "text", "module_offset.txt")),
            ("modules.txt", P(root, "XeAnalyzer.Tests", "TestData", "text", "loaded_modules_crlf.txt")),
            ("catalog.json", Catalog(root)),
        ];
        string[] tokens =
        [
            "",
            " ",
            "--",
            "-",
            "--format",
            "--chart",
            "-o",
            "-q",
            "--quiet",
            "--help",
            "--version",
            "--bogus",
            "--fromat",
            "-x",
            "--output=",
            "--format=--chart",
            "--output=--out",
            "9223372036854775807",
            "9223372036854775808",
            "-1",
            "-9223372036854775809",
            "1e999",
            "NaN",
            "0",
            "--sql-build",
            "13.0.4001.0",
            "99.0.1000.1",
            "--top",
            "--min-count",
            "--limit",
            "--jobs",
            "--reorder-window",
            "--reorder-max",
            "--symbol-timeout",
            "--outlier-threshold",
            "--row-group-size",
            "--where",
            "=",
            "a=",
            "=b",
            "opcode=End",
            "--from",
            "--to",
            "9999-12-31T23:59:59",
            "0001-01-01",
            "2024-02-30",
            "--event",
            "latch_acquired",
            "--modules",
            "--binaries",
            "--catalog",
            "--series",
            "--map-values",
            "--map",
            "--symbols",
            "--frame-style",
            "--lines",
            "--weight",
            "duration",
            "latch.xel",
            "histogram.xml",
            "stacks.txt",
            "out",
            "out.csv",
            "@missing.rsp",
            "x\ty",
            "--skip-corrupt",
            "--machine",
            "x86",
            "cache",
            "*.xel",
            "info",
            "stacks",
        ];
        return new FuzzTarget(
            "args",
            isText: true,
            maxLength: 1 << 16,
            seeds,
            (seed, input, run) =>
            {
                string cwd = run.Folder("cwd");
                foreach ((string name, string source) in inputs)
                {
                    run.WriteFile(Path.Combine(cwd, name), File.ReadAllBytes(source));
                }

                Directory.CreateDirectory(Path.Combine(cwd, "cache"));
                List<string> args = [.. Mutator.Arguments(input)];
                if (args.Count == 0 || args.Contains("\0"))
                {
                    return;
                }

                // symbols fetch reads the network unless told not to; resolve - reads standard input, which may be a
                // terminal.
                int fetch = args.IndexOf("fetch");
                if (fetch >= 0)
                {
                    args.Insert(fetch + 1, "--offline");
                }

                if (args[0] == "resolve")
                {
                    args = [.. args.Select(a => a == "-" ? "stacks.txt" : a)];
                }

                run.WithUserFolders(() => run.CliIn(cwd, [.. args]));
            },
            (seed, other, random) => Mutator.MutateArguments(seed, other, random, tokens)
        );
    }

    private static string RvaFrames(FuzzSeed seed, params string[] rvas)
    {
        PdbIdentity id = seed.Identity!.Value;
        string module = seed.PdbName![..^4] + ".dll";
        var sb = new StringBuilder();
        for (int i = 0; i < rvas.Length; i++)
        {
            sb.Append(
                CultureInfo.InvariantCulture,
                $"<frame id=\"{i:00}\" pdb=\"{seed.PdbName}\" age=\"{id.Age}\" "
                    + $"guid=\"{id.Guid.ToString().ToUpperInvariant()}\" module=\"{module}\" rva=\"{rvas[i]}\" />\n"
            );
        }

        return sb.ToString();
    }
}

using System.Globalization;
using System.Text;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Pe;
using XeAnalyzer.Symbols.Store.Cab;

namespace XeAnalyzer.Fuzz;

/// <summary>One seed input of a target: a short name (used in finding file names, so a finding replays against the same seed) and its bytes.</summary>
/// <param name="Name">Short name, e.g. <c>sqlmin-stripped</c>.</param>
/// <param name="Bytes">The seed's bytes.</param>
/// <param name="PdbName">For PDB and CAB seeds: the PDB file name the seed stands for.</param>
/// <param name="Identity">For PDB and CAB seeds: the seed's GUID and age, under which the mutated file is placed in a store.</param>
public sealed record FuzzSeed(string Name, byte[] Bytes, string? PdbName = null, PdbIdentity? Identity = null);

/// <summary>
/// A format under fuzz: its seeds (committed fixtures the project builds itself) and how one input is exercised: through the
/// library's reader and through the <c>xeanalyze</c> commands that read that format, run in-process.
/// </summary>
public sealed class FuzzTarget
{
    private readonly Action<FuzzSeed, byte[], FuzzExecution> _execute;

    private FuzzTarget(string name, bool isText, int maxLength, IReadOnlyList<FuzzSeed> seeds, Action<FuzzSeed, byte[], FuzzExecution> execute)
    {
        Name = name;
        IsText = isText;
        MaxLength = maxLength;
        Seeds = seeds;
        _execute = execute;
    }

    /// <summary>The target's name: <c>xel</c>, <c>pdb</c>, <c>pe</c>, <c>cab</c>, <c>xml</c> or <c>text</c>.</summary>
    public string Name { get; }

    /// <summary>Whether text mutations apply.</summary>
    public bool IsText { get; }

    /// <summary>The largest mutated input.</summary>
    public int MaxLength { get; }

    /// <summary>The seeds, in a fixed order.</summary>
    public IReadOnlyList<FuzzSeed> Seeds { get; }

    /// <summary>The target names, in the order the runner visits them.</summary>
    public static IReadOnlyList<string> Names { get; } = ["xel", "pdb", "pe", "cab", "xml", "text"];

    /// <summary>Builds the target <paramref name="name"/> from the fixtures under <paramref name="repoRoot"/>.</summary>
    public static FuzzTarget Create(string name, string repoRoot) => name switch
    {
        "xel" => Xel(repoRoot),
        "pdb" => Pdb(repoRoot),
        "pe" => Pe(repoRoot),
        "cab" => Cab(repoRoot),
        "xml" => Xml(repoRoot),
        "text" => Text(repoRoot),
        _ => throw new ArgumentException("unknown fuzz target '" + name + "' (expected " + string.Join(", ", Names) + ")", nameof(name)),
    };

    /// <summary>Runs <paramref name="input"/> (a mutation of <paramref name="seed"/>) through the target; problems go to <paramref name="run"/>.</summary>
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

    private static string Catalog(string root) => P(root, "XeAnalyzer.Tests", "TestData", "catalog", "fixture-buildinfo.json");

    private static FuzzTarget Xel(string root)
    {
        string xel = P(root, "XeAnalyzer.Tests", "TestData", "xel");
        FuzzSeed[] seeds =
        [
            Seed("latch", P(xel, "latch.xel")),
            Seed("all-types", P(xel, "all-types.xel")),
            .. Directory.GetFiles(P(xel, "rollover"), "*.xel").Order(StringComparer.Ordinal).Select((f, i) => Seed("rollover" + i.ToString(CultureInfo.InvariantCulture), f)),
        ];
        return new FuzzTarget("xel", isText: false, maxLength: 1 << 20, seeds, (seed, input, run) =>
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
        });
    }

    private static FuzzTarget Pdb(string root)
    {
        FuzzSeed[] seeds =
        [
            PdbSeed("tiny-full", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "full", "tiny.pdb")),
            PdbSeed("tiny-publics", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "publics", "tiny.pdb")),
            PdbSeed("sqlmin-stripped", Directory.GetFiles(P(root, "symbols-cache", "sqlmin.pdb"), "sqlmin.pdb", SearchOption.AllDirectories).Single()),
            PdbSeed("sqlmin-full", Directory.GetFiles(P(root, "XeAnalyzer.Tests", "TestData", "symbols-private", "sqlmin.pdb"), "sqlmin.pdb", SearchOption.AllDirectories).Single()),
        ];
        return new FuzzTarget("pdb", isText: false, maxLength: 1 << 20, seeds, (seed, input, run) =>
        {
            run.Library("PdbFile", () =>
            {
                using PdbFile pdb = PdbFile.Open(new MemoryRandomAccessSource(input, "fuzz.pdb"), ownsSource: true);
                _ = pdb.Identity.ToString() + pdb.Sections.Count + pdb.OriginalSections.Count + pdb.Dbi?.Machine;
                _ = pdb.GetModules().Count + pdb.GetPublics().Count + pdb.GetProcedures().Count;
                _ = pdb.HasOmap();
                foreach (uint rva in new uint[] { 0, 0x1000, 0x11E9, 0x1D00, 0x7FFFFFFF, uint.MaxValue })
                {
                    _ = pdb.Lookup(rva)?.ToString();
                }
            });
            string store = run.Folder("store");
            run.WriteFile(Path.Combine(store, seed.PdbName!, seed.Identity!.Value.Key, seed.PdbName!), input);
            string frames = RvaFrames(seed, "0x1000", "0x11e9", "0x1d00", "0xffffffff");
            run.Cli("resolve", run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)), "--symbols", store, "--offline");
        });
    }

    private static FuzzTarget Pe(string root)
    {
        string DllOf(string module) => Directory.GetFiles(P(root, "symbols-cache", module + ".dll"), module + ".dll", SearchOption.AllDirectories).Single();
        FuzzSeed[] seeds =
        [
            Seed("sqldk", DllOf("sqldk")),
            Seed("sqlTsEs", DllOf("sqlTsEs")),
            Seed("tiny", P(root, "XeAnalyzer.Tests", "TestData", "pdb", "full", "tiny.dll")),
        ];
        return new FuzzTarget("pe", isText: false, maxLength: 1 << 20, seeds, (seed, input, run) =>
        {
            string bin = run.Folder("bin");
            string dll = run.WriteFile(Path.Combine(bin, seed.Name + ".dll"), input);
            run.Library("PeImage", () =>
            {
                PeImage image = PeImage.Open(dll);
                _ = image.SymbolServerKey + image.Machine + image.Is64Bit + image.ImageBase + image.SizeOfImage + image.Sections.Count;
                _ = image.CodeView?.ToString() + image.ExportDllName + image.ExportOrdinalBase + image.Exports.Count;
            });
            string frames = seed.Name + ".dll!Ordinal1+0x10\n" + seed.Name + ".dll!Ordinal4294967295+0x1\n" + seed.Name + ".dll+0x11f5\n" + seed.Name + "+0x1000\n";
            string cache = SymbolsCache(root);
            run.Cli("resolve", run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)), "--binaries", bin, "--symbols", cache, "--offline");
        });
    }

    private static FuzzTarget Cab(string root)
    {
        string storeA = P(root, "XeAnalyzer.Tests", "TestData", "store");
        string sqldkCab = Directory.GetFiles(P(root, "XeAnalyzer.Tests", "TestData", "cab"), "*.pd_", SearchOption.AllDirectories).Single();
        FuzzSeed CabSeed(string name, string cab, string pdbName, string pdbPath)
        {
            using PdbFile pdb = PdbFile.Open(pdbPath);
            return new FuzzSeed(name, File.ReadAllBytes(cab), pdbName, pdb.Identity);
        }

        FuzzSeed[] seeds =
        [
            CabSeed("storea", P(storeA, "storea.pd_"), "storea.pdb", P(storeA, "storea.pdb")),
            CabSeed("sqldk", sqldkCab, "sqldk.pdb", Directory.GetFiles(P(root, "symbols-cache", "sqldk.pdb"), "sqldk.pdb", SearchOption.AllDirectories).Single()),
        ];
        return new FuzzTarget("cab", isText: false, maxLength: 1 << 20, seeds, (seed, input, run) =>
        {
            run.Library("CabArchive", () =>
            {
                using CabArchive cab = CabArchive.Open(new MemoryRandomAccessSource(input, "fuzz.pd_"), ownsSource: true);
                foreach (CabFileEntry entry in cab.Files)
                {
                    _ = entry.Name + entry.Length;
                    cab.Extract(entry, Stream.Null, 64L << 20, CancellationToken.None);
                }
            });
            string store = run.Folder("store");
            string cache = run.Folder("cache");
            string pdbName = seed.PdbName!;
            run.WriteFile(Path.Combine(store, pdbName, seed.Identity!.Value.Key, pdbName[..^1] + "_"), input);
            string frames = RvaFrames(seed, "0x1000", "0x11e9");
            run.Cli("resolve", run.WriteInput("frames.txt", Encoding.UTF8.GetBytes(frames)), "--symbols", "cache*" + cache + ";" + store, "--offline");
        });
    }

    private static FuzzTarget Xml(string root)
    {
        string text = P(root, "XeAnalyzer.Tests", "TestData", "text");
        FuzzSeed[] seeds =
        [
            .. Directory.GetFiles(text, "*.xml").Order(StringComparer.Ordinal).Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
            .. Directory.GetFiles(P(root, "sample-xel", "latch_nesting_full_histogram"), "*.xml").Order(StringComparer.Ordinal).Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        return new FuzzTarget("xml", isText: true, maxLength: 1 << 20, seeds, (seed, input, run) =>
        {
            string file = run.WriteInput("target.xml", input);
            string cache = SymbolsCache(root);
            run.Cli("resolve", file, "--symbols", cache, "--offline");
            run.Cli("stacks", file, "--symbols", cache, "--binaries", cache, "--offline");
            run.Cli("latches", file);
            run.Cli("waits", file);
        });
    }

    private static FuzzTarget Text(string root)
    {
        string text = P(root, "XeAnalyzer.Tests", "TestData", "text");
        FuzzSeed[] seeds =
        [
            .. Directory.GetFiles(text, "*.txt").Order(StringComparer.Ordinal).Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
            .. Directory.GetFiles(P(root, "XeAnalyzer.Fuzz", "seeds", "text"), "*.txt").Order(StringComparer.Ordinal).Select(f => Seed(Path.GetFileNameWithoutExtension(f), f)),
        ];
        string modules = P(text, "loaded_modules_crlf.txt");
        return new FuzzTarget("text", isText: true, maxLength: 1 << 20, seeds, (seed, input, run) =>
        {
            string file = run.WriteInput("stacks.txt", input);
            string cache = SymbolsCache(root);
            run.Cli("resolve", file, "--symbols", cache, "--offline", "--sql-build", "99.0.1000.1", "--catalog", Catalog(root));
            run.Cli("resolve", file, "--symbols", cache, "--offline", "--resolved-input", "--frame-style", "resolver");
            run.Cli("resolve", file, "--symbols", cache, "--offline", "--modules", modules, "--binaries", cache, "--single-line");
            run.Cli("resolve", file, "--symbols", cache, "--offline", "--modules", file);
        });
    }

    private static string RvaFrames(FuzzSeed seed, params string[] rvas)
    {
        PdbIdentity id = seed.Identity!.Value;
        string module = seed.PdbName![..^4] + ".dll";
        var sb = new StringBuilder();
        for (int i = 0; i < rvas.Length; i++)
        {
            sb.Append(CultureInfo.InvariantCulture, $"<frame id=\"{i:00}\" pdb=\"{seed.PdbName}\" age=\"{id.Age}\" guid=\"{id.Guid.ToString().ToUpperInvariant()}\" module=\"{module}\" rva=\"{rvas[i]}\" />\n");
        }

        return sb.ToString();
    }
}

using System.Diagnostics;
using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Callstack resolution throughput, text to resolved text: <c>xeanalyze resolve</c> of this checkout against the same
/// command of a baseline commit, in the same run. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- resolve [--stacks 750000] [--frames 25] [--dir
/// /tmp/xeresolve] [--shapes text,histogram,va] [--runs 3] [--warmup 1] [--baseline REF|none]</c>. Each run starts the
/// built CLI (<c>XeAnalyzer.Cli/bin/Release</c>) and the baseline's (<see cref="BaselineCli"/>; by default the commit
/// before the symbolizer work of issue 12), alternating, each under <c>/usr/bin/time</c> (wall, CPU, max RSS), and
/// checks that both outputs are byte-identical. Before the timed rounds of each shape, each build runs <c>--warmup</c>
/// times untimed, the same way: the first run after other work paid up to 1–2 s of extra system time on this VM (fresh
/// page-cache pages; the kernel evicts page cache by itself), which fell on whichever build ran first. Generates the
/// inputs once over the fixture modules (symbols-cache, build 99.0.1000.1): module+offset text, a histogram target with
/// one slot per stack, and raw virtual addresses with a module list; frames come from the fixture functions
/// (manifest.tsv), and one stack in ten ends in an ntdll frame that has no PDB (unresolved). The peer's own test allows
/// 45 minutes for 750,000 stacks of 25 frames on 2 vCPUs.
/// <para>
/// Also: <c>-- pdb [--pdb /tmp/bigpdb/big.pdb] [--rva 12345]</c> opens a large PDB cold and answers one lookup
/// (<see cref="PdbPerformanceProbe"/>; make the PDB with <c>tools/bigpdb/make.sh</c>).
/// </para>
/// </summary>
internal static class ResolveBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    private static readonly Dictionary<string, ulong> Bases = new(StringComparer.Ordinal)
    {
        ["sqlmin"] = 0x00007FFAD08A0000,
        ["sqldk"] = 0x00007FFAD7A10000,
        ["sqllang"] = 0x00007FFACB6F0000,
        ["sqlTsEs"] = 0x00007FFACA220000,
        ["ntdll"] = 0x00007FFB63130000,
    };

    public static int Run(string[] args)
    {
        if (args.Length > 0 && args[0] == "pdb")
        {
            return RunPdb(args);
        }

        int stacks = 750_000,
            frames = 25,
            runs = 3,
            warmup = 1;
        string dir = Path.Combine(Path.GetTempPath(), "xeresolve");
        string[] shapes = ["text", "histogram", "va"];
        string? baseline = null;
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--stacks":
                    stacks = int.Parse(args[i + 1], Ic);
                    break;
                case "--frames":
                    frames = int.Parse(args[i + 1], Ic);
                    break;
                case "--dir":
                    dir = args[i + 1];
                    break;
                case "--shapes":
                    shapes = args[i + 1].Split(',');
                    break;
                case "--runs":
                    runs = int.Parse(args[i + 1], Ic);
                    break;
                case "--warmup":
                    warmup = int.Parse(args[i + 1], Ic);
                    break;
                case "--baseline":
                    baseline = args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = FindRepo();
        string cli = Path.Combine(repo, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        if (!File.Exists(cli))
        {
            Console.Error.WriteLine(
                cli + " does not exist: build the solution first (dotnet build XeAnalyzer.sln -c Release)"
            );
            return 1;
        }

        Directory.CreateDirectory(dir);
        Console.WriteLine(
            "XeAnalyzer callstack resolution benchmark (text in, resolved text out: xeanalyze resolve, this checkout "
                + "and a baseline)"
        );
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, load average "
                    + $"{SymbolizerBenchmark.LoadAverage()}; {stacks:N0} stacks x {frames} frames = "
                    + $"{(long)stacks * frames:N0} frames"
            )
        );
        string? baselineCli = null;
        if (baseline != "none")
        {
            (baselineCli, string note) = BaselineCli.Build(repo, baseline ?? BaselineCli.DefaultRef(repo));
            Console.WriteLine(note);
        }

        List<(string Module, uint Rva)> pool = FramePool(repo);
        Console.WriteLine(
            string.Create(
                Ic,
                $"frame pool: {pool.Count} distinct addresses in 4 fixture modules, plus ntdll frames without PDB"
            )
        );
        string catalog = Path.Combine(repo, "XeAnalyzer.Tests", "TestData", "catalog", "fixture-buildinfo.json");
        string modules = Path.Combine(dir, "modules.txt");
        File.WriteAllText(
            modules,
            "name\tbase_address\n"
                + string.Concat(
                    Bases.Select(b =>
                        string.Create(
                            Ic,
                            $"C:\\Program Files\\Microsoft SQL "
                                + $"Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\{b.Key}.dll\t0x{b.Value:X16}\n"
                        )
                    )
                )
        );

        int failures = 0;
        foreach (string shape in shapes)
        {
            string input = Path.Combine(
                dir,
                string.Create(Ic, $"{shape}_{stacks}x{frames}.{(shape == "histogram" ? "xml" : "txt")}")
            );
            if (!File.Exists(input))
            {
                var sw = Stopwatch.StartNew();
                Generate(input, shape, stacks, frames, pool);
                Console.WriteLine(
                    string.Create(
                        Ic,
                        $"generated {input}: {new FileInfo(input).Length / 1048576.0:F0} MiB in "
                            + $"{sw.Elapsed.TotalSeconds:F1} s"
                    )
                );
            }

            // What `xeanalyze resolve INPUT --symbols symbols-cache --offline --sql-build 99.0.1000.1 --catalog …
            // [--modules …] -o OUTPUT` does.
            string[] Args(string output) =>
                [
                    "resolve",
                    input,
                    "--symbols",
                    Path.Combine(repo, "symbols-cache"),
                    "--offline",
                    "--sql-build",
                    "99.0.1000.1",
                    "--catalog",
                    catalog,
                    .. shape == "va" ? new[] { "--modules", modules } : [],
                    "-o",
                    output,
                ];

            var ours = new List<SymbolizerBenchmark.Measure>();
            var theirs = new List<SymbolizerBenchmark.Measure>();
            string oursOut = Path.ChangeExtension(input, ".resolved.txt"),
                baseOut = Path.ChangeExtension(input, ".baseline.txt");
            // One run of a build: its previous output removed and dirty pages flushed first (Settle), then timed.
            SymbolizerBenchmark.Measure RunBuild(string dll, string output)
            {
                Settle(output);
                return SymbolizerBenchmark.Timed("dotnet", [dll, .. Args(output)], null, output + ".stdout");
            }

            for (int w = 1; w <= warmup; w++)
            {
                if (baselineCli is not null)
                {
                    Console.WriteLine(
                        string.Create(
                            Ic,
                            $"{shape, -9} warm-up {w} (not counted): baseline  {RunBuild(baselineCli, baseOut)}"
                        )
                    );
                }

                Console.WriteLine(
                    string.Create(Ic, $"{shape, -9} warm-up {w} (not counted): this code {RunBuild(cli, oursOut)}")
                );
            }

            for (int run = 1; run <= runs; run++)
            {
                if (baselineCli is not null)
                {
                    SymbolizerBenchmark.Measure b = RunBuild(baselineCli, baseOut);
                    theirs.Add(b);
                    Console.WriteLine(
                        string.Create(
                            Ic,
                            $"{shape, -9} run {run}: baseline  "
                                + $"{b}{(b.ExitCode != 0 ? " EXIT " + b.ExitCode : string.Empty)}"
                        )
                    );
                }

                SymbolizerBenchmark.Measure o = RunBuild(cli, oursOut);
                ours.Add(o);
                string exit = o.ExitCode != 0 ? " EXIT " + o.ExitCode : string.Empty;
                string versus = baselineCli is null
                    ? string.Empty
                    : string.Create(
                        Ic,
                        $" -> {theirs[^1].Wall / o.Wall:F2}x faster (wall), "
                            + $"{(theirs[^1].User + theirs[^1].Sys) / (o.User + o.Sys):F2}x less CPU"
                    );
                Console.WriteLine(string.Create(Ic, $"{shape, -9} run {run}: this code {o}{exit}{versus}"));
                failures += o.ExitCode != 0 || (baselineCli is not null && theirs[^1].ExitCode != 0) ? 1 : 0;
            }

            long frameCount = (long)stacks * frames;
            string line = string.Create(
                Ic,
                $"{shape, -9} summary: this code wall "
                    + $"{SymbolizerBenchmark.Spread(ours.Select(m => m.Wall).ToList())} s "
                    + $"({frameCount / SymbolizerBenchmark.Median(ours.Select(m => m.Wall).ToList()) / 1e6:F2} M "
                    + $"frames/s "
                    + $"at the median), max RSS {SymbolizerBenchmark.Spread(ours.Select(m => m.MaxRssMiB).ToList())} "
                    + $"MiB"
            );
            if (baselineCli is not null)
            {
                bool same = SameBytes(oursOut, baseOut);
                failures += same ? 0 : 1;
                double speedup =
                    SymbolizerBenchmark.Median(theirs.Select(m => m.Wall).ToList())
                    / SymbolizerBenchmark.Median(ours.Select(m => m.Wall).ToList());
                line += string.Create(
                    Ic,
                    $"; baseline wall {SymbolizerBenchmark.Spread(theirs.Select(m => m.Wall).ToList())} s, "
                        + $"max RSS {SymbolizerBenchmark.Spread(theirs.Select(m => m.MaxRssMiB).ToList())} MiB; "
                        + $"median speedup {speedup:F2}x; outputs {(same ? "byte-identical" : "DIFFER")}"
                );
                File.Delete(baseOut);
            }

            Console.WriteLine(line);
            File.Delete(oursOut);
        }

        return failures == 0 ? 0 : 1;
    }

    private static int RunPdb(string[] args)
    {
        string path = Path.Combine(Path.GetTempPath(), "bigpdb", "big.pdb");
        uint rva = 0x12345;
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--pdb":
                    path = args[i + 1];
                    break;
                case "--rva":
                    rva = uint.Parse(args[i + 1], NumberStyles.AllowHexSpecifier, Ic);
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        if (!File.Exists(path))
        {
            Console.Error.WriteLine(
                path + " does not exist: make it with tools/bigpdb/make.sh (clang-14, lld-link-14)"
            );
            return 1;
        }

        PdbProbeResult r = PdbPerformanceProbe.OpenAndLookup(path, rva);
        Console.WriteLine(
            string.Create(
                Ic,
                $"{path}: {r.FileBytes / 1048576.0:F1} MB, {r.PublicCount} publics, {r.ProcedureCount} procedures; "
                    + $"open {r.Open.TotalMilliseconds:F0} ms, index {r.IndexBuild.TotalMilliseconds:F0} ms, first "
                    + $"lookup "
                    + $"{r.FirstLookup.TotalMilliseconds:F3} ms, total {r.Total.TotalMilliseconds:F0} ms (cold "
                    + $"process), "
                    + $"allocated {r.AllocatedBytes / 1048576.0:F0} MB; 0x{rva:X} -> {r.Symbol ?? "(unresolved)"}"
            )
        );
        return 0;
    }

    /// <summary>Addresses inside the fixture functions (manifest.tsv): each function's seed offsets and 15 evenly
    /// spread ones.</summary>
    private static List<(string Module, uint Rva)> FramePool(string repo)
    {
        var pool = new List<(string, uint)>();
        string[] lines = File.ReadAllLines(Path.Combine(repo, "tools", "fixtures", "expected", "manifest.tsv"));
        string[] header = lines[0].Split('\t');
        int mi = Array.IndexOf(header, "module"),
            ri = Array.IndexOf(header, "rva"),
            si = Array.IndexOf(header, "size");
        foreach (string line in lines.Skip(1))
        {
            string[] c = line.Split('\t');
            uint rva = uint.Parse(c[ri].AsSpan(2), NumberStyles.AllowHexSpecifier, Ic);
            uint size = uint.Parse(c[si].AsSpan(2), NumberStyles.AllowHexSpecifier, Ic);
            for (uint k = 1; k < 16; k++)
            {
                pool.Add((c[mi], rva + (size * k / 16)));
            }
        }

        return pool.Distinct().ToList();
    }

    /// <summary>Compares two files in 1 MB pieces (not two 850 MB arrays, whose fresh pages cost the next shape's first
    /// runs).</summary>
    private static bool SameBytes(string a, string b)
    {
        using FileStream fa = File.OpenRead(a),
            fb = File.OpenRead(b);
        if (fa.Length != fb.Length)
        {
            return false;
        }

        byte[] ba = new byte[1 << 20],
            bb = new byte[1 << 20];
        while (true)
        {
            int na = fa.ReadAtLeast(ba, ba.Length, throwOnEndOfStream: false);
            int nb = fb.ReadAtLeast(bb, bb.Length, throwOnEndOfStream: false);
            if (na != nb || !ba.AsSpan(0, na).SequenceEqual(bb.AsSpan(0, nb)))
            {
                return false;
            }

            if (na == 0)
            {
                return true;
            }
        }
    }

    /// <summary>
    /// Before a timed run: removes the output the previous run of the same build left and flushes dirty pages
    /// (<c>sync</c>), so no run pays for truncating 850 MB or for the write-back of the run before it (the same for
    /// both builds).
    /// </summary>
    private static void Settle(string output)
    {
        File.Delete(output);
        _ = SymbolizerBenchmark.Exec("sync", []);
    }

    private static void Generate(
        string path,
        string shape,
        int stacks,
        int frames,
        List<(string Module, uint Rva)> pool
    )
    {
        using var writer = new StreamWriter(path, false, new UTF8Encoding(false), 1 << 20);
        if (shape == "histogram")
        {
            writer.Write("<HistogramTarget truncated=\"0\" buckets=\"1048576\">\n");
        }

        ulong seed = 0x9E3779B97F4A7C15UL;
        var line = new StringBuilder();
        for (int s = 0; s < stacks; s++)
        {
            if (shape == "histogram")
            {
                writer.Write(string.Create(Ic, $"  <Slot count=\"{(s % 1000) + 1}\">\n    <value>"));
            }

            // A stack shares its first frames with one of 256 "hot paths", as histogram buckets do; the rest varies.
            ulong hot = (ulong)(s % 256) * 0x2545F4914F6CDD1DUL;
            for (int f = 0; f < frames; f++)
            {
                seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
                (string module, uint rva) =
                    f < frames / 2
                        ? pool[(int)((hot + (ulong)f * 7919UL) % (ulong)pool.Count)]
                        : pool[(int)((seed >> 33) % (ulong)pool.Count)];
                if (f == frames - 1 && s % 10 == 0)
                {
                    (module, rva) = ("ntdll", 0x6A271);
                }

                line.Clear();
                if (shape == "va")
                {
                    line.Append(CultureInfo.InvariantCulture, $"0x{Bases[module] + rva:X16}");
                }
                else
                {
                    line.Append(CultureInfo.InvariantCulture, $"{module}.dll+0x{rva:X16}");
                }

                writer.Write(line);
                writer.Write(f == frames - 1 && shape == "histogram" ? string.Empty : "\n");
            }

            writer.Write(shape == "histogram" ? "</value>\n  </Slot>\n" : "\n");
        }

        if (shape == "histogram")
        {
            writer.Write("</HistogramTarget>\n");
        }
    }

    /// <summary>The checkout: the first folder holding XeAnalyzer.sln above the current directory or the
    /// program.</summary>
    internal static string FindRepo()
    {
        foreach (string start in new[] { Directory.GetCurrentDirectory(), AppContext.BaseDirectory })
        {
            for (string? d = start; d is not null; d = Path.GetDirectoryName(d))
            {
                if (File.Exists(Path.Combine(d, "XeAnalyzer.sln")))
                {
                    return d;
                }
            }
        }

        throw new InvalidOperationException("XeAnalyzer.sln not found above the current directory");
    }
}

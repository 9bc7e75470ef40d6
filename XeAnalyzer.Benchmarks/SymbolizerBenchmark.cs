using System.Diagnostics;
using System.Globalization;
using System.Reflection.PortableExecutable;
using System.Text;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Our resolver against a real peer, llvm-symbolizer-14, on the same random addresses of a big publics-only PDB, in the
/// same run. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- symbolizer [--dir /tmp/bigpdb] [--functions 300000]
/// [--addresses 200000] [--runs 3] [--seed 1] [--baseline REF|none]</c>.
/// <para>
/// Makes <c>big.dll</c> + <c>big.pdb</c> with <c>tools/bigpdb/make.sh</c> when the folder has none, draws the addresses
/// uniformly over the DLL's <c>.text</c> (seeded, so every run and tool sees the same ones), then runs, alternating,
/// per round:
/// <c>llvm-symbolizer-14 --obj=big.dll --relative-address</c> (its default output: demangled names and locations) on a
/// file of
/// <c>0x&lt;rva&gt;</c> lines, and <c>xeanalyze resolve</c> (the built CLI, <c>XeAnalyzer.Cli/bin/Release</c>) on a
/// file of
/// <c>big.dll+0x&lt;rva&gt;</c> lines with <c>--symbols DIR --binaries DIR --offline</c>. Both are separate processes,
/// both read the addresses from a file and write their answers to a file, and both are measured by <c>/usr/bin/time</c>
/// the same way (elapsed wall time, user and system CPU, maximum resident set size), so start-up is counted for both.
/// The same
/// <c>xeanalyze resolve</c> of a baseline commit (<see cref="BaselineCli"/>; by default the one before the symbolizer
/// work of issue 12) runs too, and its output must be byte-identical to ours.
/// </para>
/// <para>
/// Agreement: every one of our frames must be resolved, and its function (DIA's name-only form) must be the one llvm
/// named: llvm's demangled name, with the blanks after commas of template arguments removed (DIA writes
/// <c>&lt;1,2&gt;</c>), is ours followed by its parameter list (or, with a return type, contains <c>" " + ours +
/// "("</c>). Any disagreement is counted and the first ones printed.
/// </para>
/// </summary>
internal static class SymbolizerBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    private const string Llvm = "llvm-symbolizer-14";
    private const string Time = "/usr/bin/time";

    public static int Run(string[] args)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bigpdb");
        int functions = 300_000,
            addresses = 200_000,
            runs = 3;
        ulong seed = 1;
        string? baseline = null;
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--dir":
                    dir = args[i + 1];
                    break;
                case "--functions":
                    functions = int.Parse(args[i + 1], Ic);
                    break;
                case "--addresses":
                    addresses = int.Parse(args[i + 1], Ic);
                    break;
                case "--runs":
                    runs = int.Parse(args[i + 1], Ic);
                    break;
                case "--seed":
                    seed = ulong.Parse(args[i + 1], Ic);
                    break;
                case "--baseline":
                    baseline = args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = ResolveBenchmark.FindRepo();
        string cli = Path.Combine(repo, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        if (!File.Exists(cli))
        {
            Console.Error.WriteLine(
                cli + " does not exist: build the solution first (dotnet build XeAnalyzer.sln -c Release)"
            );
            return 1;
        }

        if (!File.Exists(Time))
        {
            Console.Error.WriteLine(Time + " is needed to measure both tools the same way (Debian package time)");
            return 1;
        }

        string dll = Path.Combine(dir, "big.dll"),
            pdb = Path.Combine(dir, "big.pdb");
        if (!File.Exists(dll) || !File.Exists(pdb))
        {
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"making {dir} with tools/bigpdb/make.sh {functions} (clang-14, lld-link-14; a few minutes)"
                )
            );
            if (Exec("bash", [Path.Combine(repo, "tools", "bigpdb", "make.sh"), functions.ToString(Ic), dir]) != 0)
            {
                Console.Error.WriteLine("tools/bigpdb/make.sh failed");
                return 1;
            }
        }

        Console.WriteLine(
            "XeAnalyzer symbolizer benchmark: xeanalyze resolve against llvm-symbolizer-14, same addresses, same run"
        );
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, load average {LoadAverage()}; "
                    + $"{pdb}: {new FileInfo(pdb).Length / 1048576.0:F1} MiB"
            )
        );
        string? baselineCli = null;
        if (baseline != "none")
        {
            (baselineCli, string note) = BaselineCli.Build(repo, baseline ?? BaselineCli.DefaultRef(repo));
            Console.WriteLine(note);
        }

        (uint textStart, uint textEnd) = TextSection(dll);
        uint[] rvas = Draw(addresses, textStart, textEnd, seed);
        string work = Path.Combine(dir, "symbolizer-bench");
        Directory.CreateDirectory(work);
        string llvmIn = Path.Combine(work, "llvm.in"),
            oursIn = Path.Combine(work, "ours.in");
        File.WriteAllText(llvmIn, string.Concat(rvas.Select(r => string.Create(Ic, $"0x{r:x}\n"))));
        File.WriteAllText(oursIn, string.Concat(rvas.Select(r => string.Create(Ic, $"big.dll+0x{r:x}\n"))));
        Console.WriteLine(
            string.Create(
                Ic,
                $"{addresses:N0} addresses drawn uniformly in .text [0x{textStart:x}, 0x{textEnd:x}) with seed {seed}"
            )
        );

        var llvmWall = new List<double>();
        var oursWall = new List<double>();
        var llvmRss = new List<double>();
        var oursRss = new List<double>();
        var baseWall = new List<double>();
        var baseRss = new List<double>();
        bool baselineSame = true;
        int disagreements = -1;
        for (int run = 1; run <= runs; run++)
        {
            string llvmOut = Path.Combine(work, "llvm.out"),
                oursOut = Path.Combine(work, "ours.out");
            Measure l = Timed(Llvm, ["--obj=" + dll, "--relative-address"], llvmIn, llvmOut);
            Measure o = Timed(
                "dotnet",
                [cli, "resolve", oursIn, "--symbols", dir, "--binaries", dir, "--offline", "-o", oursOut],
                null,
                Path.Combine(work, "ours.stdout")
            );
            if (l.ExitCode != 0 || o.ExitCode != 0)
            {
                Console.Error.WriteLine(
                    string.Create(
                        Ic,
                        $"run {run}: llvm-symbolizer exit {l.ExitCode}, xeanalyze resolve exit {o.ExitCode}"
                    )
                );
                return 1;
            }

            Console.WriteLine(string.Create(Ic, $"run {run}: llvm-symbolizer {l}"));
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"run {run}: xeanalyze      {o}  -> wall {o.Wall / l.Wall:F2}x, peak "
                        + $"{o.MaxRssMiB / l.MaxRssMiB:F2}x llvm's"
                )
            );
            if (baselineCli is not null)
            {
                string baseOut = Path.Combine(work, "baseline.out");
                Measure b = Timed(
                    "dotnet",
                    [baselineCli, "resolve", oursIn, "--symbols", dir, "--binaries", dir, "--offline", "-o", baseOut],
                    null,
                    Path.Combine(work, "baseline.stdout")
                );
                Console.WriteLine(
                    string.Create(
                        Ic,
                        $"run {run}: baseline      {b}  -> wall {b.Wall / l.Wall:F2}x, peak "
                            + $"{b.MaxRssMiB / l.MaxRssMiB:F2}x "
                            + $"llvm's{(b.ExitCode != 0 ? " EXIT " + b.ExitCode : string.Empty)}"
                    )
                );
                baseWall.Add(b.Wall);
                baseRss.Add(b.MaxRssMiB);
                baselineSame &=
                    b.ExitCode == 0 && File.ReadAllBytes(baseOut).AsSpan().SequenceEqual(File.ReadAllBytes(oursOut));
            }

            llvmWall.Add(l.Wall);
            oursWall.Add(o.Wall);
            llvmRss.Add(l.MaxRssMiB);
            oursRss.Add(o.MaxRssMiB);
            if (run == 1)
            {
                disagreements = Compare(rvas, llvmOut, oursOut);
                if (disagreements < 0)
                {
                    return 1;
                }
            }
        }

        Console.WriteLine(
            string.Create(
                Ic,
                $"summary over {runs} runs: wall llvm-symbolizer {Spread(llvmWall)} s, xeanalyze {Spread(oursWall)} "
                    + $"s (median ratio {Median(oursWall) / Median(llvmWall):F2}); max RSS llvm-symbolizer "
                    + $"{Spread(llvmRss)} MiB, xeanalyze {Spread(oursRss)} MiB (median ratio "
                    + $"{Median(oursRss) / Median(llvmRss):F2}); names agree on {addresses - disagreements:N0} of "
                    + $"{addresses:N0} addresses ({100.0 * (addresses - disagreements) / addresses:F3} %)"
            )
        );
        if (baselineCli is not null)
        {
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"baseline over {runs} runs: wall {Spread(baseWall)} s, max RSS {Spread(baseRss)} MiB; its "
                        + $"output {(baselineSame ? "byte-identical to ours" : "DIFFERS from ours")}"
                )
            );
        }

        return disagreements == 0 && baselineSame ? 0 : 3;
    }

    /// <summary>Counts the addresses whose names differ (printing the first few); -1 when an output cannot be
    /// read.</summary>
    private static int Compare(uint[] rvas, string llvmOut, string oursOut)
    {
        // llvm-symbolizer: per address, the function line, the location line, a blank line.
        string[] l = File.ReadAllLines(llvmOut);
        string[] o = File.ReadAllLines(oursOut);
        if (l.Length < 3 * rvas.Length || o.Length < rvas.Length)
        {
            Console.Error.WriteLine(
                string.Create(
                    Ic,
                    $"expected {3 * rvas.Length} lines from llvm-symbolizer and {rvas.Length} from xeanalyze, got "
                        + $"{l.Length} and {o.Length}"
                )
            );
            return -1;
        }

        int bad = 0;
        for (int i = 0; i < rvas.Length; i++)
        {
            string theirs = l[3 * i].Replace(", ", ",", StringComparison.Ordinal);
            string line = o[i];
            const string Prefix = "big.dll!";
            int plus = line.LastIndexOf('+');
            string? ours =
                line.StartsWith(Prefix, StringComparison.Ordinal)
                && plus > Prefix.Length
                && !line.Contains(" -- ", StringComparison.Ordinal)
                    ? line[Prefix.Length..plus].Replace(", ", ",", StringComparison.Ordinal)
                    : null;
            if (
                ours is null
                || !(
                    theirs.StartsWith(ours + "(", StringComparison.Ordinal)
                    || theirs.Contains(" " + ours + "(", StringComparison.Ordinal)
                )
            )
            {
                if (++bad <= 5)
                {
                    Console.WriteLine(
                        string.Create(
                            Ic,
                            $"  disagreement at 0x{rvas[i]:x}: llvm-symbolizer '{l[3 * i]}', xeanalyze '{line}'"
                        )
                    );
                }
            }
        }

        return bad;
    }

    private static (uint Start, uint End) TextSection(string dll)
    {
        using var pe = new PEReader(File.OpenRead(dll));
        SectionHeader text = pe.PEHeaders.SectionHeaders.Single(s => s.Name == ".text");
        return ((uint)text.VirtualAddress, (uint)(text.VirtualAddress + text.VirtualSize));
    }

    private static uint[] Draw(int count, uint start, uint end, ulong seed)
    {
        var rvas = new uint[count];
        ulong s = seed * 0x9E3779B97F4A7C15UL | 1;
        for (int i = 0; i < count; i++)
        {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            rvas[i] = start + (uint)(s % (end - start));
        }

        return rvas;
    }

    /// <summary>What <c>/usr/bin/time</c> measured of one child process.</summary>
    internal readonly record struct Measure(int ExitCode, double Wall, double User, double Sys, double MaxRssMiB)
    {
        public override string ToString() =>
            string.Create(
                CultureInfo.InvariantCulture,
                $"wall {Wall:F2} s (user {User:F2} s, sys {Sys:F2} s), max RSS {MaxRssMiB:F0} MiB"
            );
    }

    /// <summary>
    /// Runs <paramref name="program"/> under <c>/usr/bin/time</c>, its standard input and output redirected from and to
    /// files by the shell (<c>/dev/null</c> when not given; standard error appended to the output's name +
    /// <c>.stderr</c>), so no pipe through this process slows either tool.
    /// </summary>
    internal static Measure Timed(string program, string[] args, string? stdin, string? stdout)
    {
        string report = Path.GetTempFileName();
        int exit = Exec(
            "sh",
            [
                "-c",
                "in=$1; out=$2; shift 2; exec \"$@\" <\"$in\" >\"$out\" 2>>\"$out.stderr\"",
                "sh",
                stdin ?? "/dev/null",
                stdout ?? "/dev/null",
                Time,
                "-o",
                report,
                "-f",
                "%e %U %S %M",
                program,
                .. args,
            ]
        );
        string[] f = File.ReadAllText(report).Trim().Split('\n')[^1].Split(' ');
        File.Delete(report);
        return new Measure(
            exit,
            double.Parse(f[0], Ic),
            double.Parse(f[1], Ic),
            double.Parse(f[2], Ic),
            long.Parse(f[3], Ic) / 1024.0
        );
    }

    internal static int Exec(string program, string[] args)
    {
        var psi = new ProcessStartInfo(program) { UseShellExecute = false };
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        p.WaitForExit();
        return p.ExitCode;
    }

    internal static string LoadAverage() =>
        File.Exists("/proc/loadavg")
            ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3))
            : "unknown";

    internal static double Median(List<double> v)
    {
        var s = v.Order().ToList();
        return s.Count % 2 == 1 ? s[s.Count / 2] : (s[(s.Count / 2) - 1] + s[s.Count / 2]) / 2;
    }

    internal static string Spread(List<double> v) =>
        string.Create(CultureInfo.InvariantCulture, $"{v.Min():F2}–{v.Max():F2} (median {Median(v):F2})");
}

using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- report [--size-gb 1] [--small-gb 0.25] [--rounds 3]
/// [--dir /tmp/xebench-stacks] [--analysis-dir /tmp/xebench] [--baseline REF|none]</c>: <c>xeanalyze report CAPTURE -o
/// DIR --symbols symbols-cache --binaries symbols-cache
/// --offline</c> end to end, the baseline commit's <c>xeanalyze</c> (built in a temporary worktree) against the current
/// one, alternating in every round, on the stacks benchmark's latch captures (callstacks resolved against
/// <c>symbols-cache</c>: summary, stacks, symbolization and latch sections) and, when the analysis benchmark has made
/// them, its waits captures. Each run is a fresh
/// <c>dotnet xeanalyze.dll</c> process timed from start to exit here, its peak resident set measured by
/// <c>/usr/bin/time</c>; the report folders of both builds are compared byte for byte.
/// </summary>
internal static class ReportBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        double sizeGb = 1,
            smallGb = 0.25;
        int rounds = 3;
        string? baselineRef = BaselineBuild.PerformanceBaseline;
        string dir = Path.Combine(Path.GetTempPath(), "xebench-stacks");
        string analysisDir = Path.Combine(Path.GetTempPath(), "xebench");
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--size-gb":
                    sizeGb = double.Parse(args[i + 1], Ic);
                    break;
                case "--small-gb":
                    smallGb = double.Parse(args[i + 1], Ic);
                    break;
                case "--dir":
                    dir = args[i + 1];
                    break;
                case "--analysis-dir":
                    analysisDir = args[i + 1];
                    break;
                case "--rounds":
                    rounds = int.Parse(args[i + 1], Ic);
                    break;
                case "--baseline":
                    baselineRef = args[i + 1] == "none" ? null : args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = StacksBenchmark.FindRepo();
        string symbols = Path.Combine(repo, "symbols-cache");
        string cli = Path.Combine(repo, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        Console.WriteLine("XeAnalyzer report benchmark (xeanalyze report end to end, one process per run)");
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}; "
                    + $"{BaselineBuild.Load()}"
            )
        );
        Console.WriteLine("current code: " + BaselineBuild.CurrentCode() + ", " + cli);
        BaselineBuild? baseline = baselineRef is null ? null : BaselineBuild.Prepare(baselineRef, cli: true);
        if (baseline is not null)
        {
            Console.WriteLine("baseline: commit " + baseline.Commit + " (its own xeanalyze), " + baseline.Note);
        }

        var captures = new List<string>();
        foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
        {
            captures.Add(StacksBenchmark.EnsureCapture(repo, dir, gb));
            string waits = Path.Combine(analysisDir, string.Create(Ic, $"analysis-waits_{gb:0.###}gb.xel"));
            if (File.Exists(waits))
            {
                captures.Add(waits);
            }
        }

        var events = new Dictionary<string, long>();
        foreach (string c in captures)
        {
            long n = 0;
            CaptureSource.Open([c]).Read([new Counter(() => n++)]);
            events[c] = n;
            Console.WriteLine(string.Create(Ic, $"{c}: {new FileInfo(c).Length / 1048576.0:F0} MiB, {n:N0} events"));
        }

        var table = new RunTable();
        var hashes = new Dictionary<string, HashSet<string>>();
        string output = Path.Combine(Path.GetTempPath(), "xebench-report-out");
        for (int round = 1; round <= rounds; round++)
        {
            Console.WriteLine(string.Create(Ic, $"round {round} ({BaselineBuild.Load()})"));
            foreach (string c in captures)
            {
                foreach ((string who, string? dll) in new[] { ("baseline", baseline?.CliDll), ("new", (string?)cli) })
                {
                    if (dll is null)
                    {
                        continue;
                    }

                    (string line, string hash) = RunReport(dll, c, events[c], output, symbols);
                    table.Add("report " + Path.GetFileName(c) + " " + who, line);
                    if (!hashes.TryGetValue(c, out HashSet<string>? h))
                    {
                        hashes[c] = h = new HashSet<string>(StringComparer.Ordinal);
                    }

                    h.Add(hash);
                }
            }
        }

        bool met = true;
        Console.WriteLine();
        Console.WriteLine(string.Create(Ic, $"summary (medians of {rounds} rounds; {BaselineBuild.Load()})"));
        foreach (string c in captures)
        {
            Console.WriteLine("  " + table.Compare("report " + Path.GetFileName(c), 2, ref met));
            Console.WriteLine(
                "  report "
                    + Path.GetFileName(c)
                    + ": output folders of every run "
                    + (
                        hashes[c].Count == 1
                            ? "byte-identical"
                            : "DIFFER (" + hashes[c].Count.ToString(Ic) + " distinct)"
                    )
            );
            met &= hashes[c].Count == 1;
        }

        Console.WriteLine(
            met
                ? "report targets (>= 2x events/s, identical output): met"
                : "report targets (>= 2x events/s, identical output): NOT met"
        );
        return 0;
    }

    /// <summary>Runs one report in a fresh process; returns the measurement line and the hash of the output
    /// folder.</summary>
    private static (string Line, string Hash) RunReport(
        string dll,
        string capture,
        long events,
        string output,
        string symbols
    )
    {
        if (Directory.Exists(output))
        {
            Directory.Delete(output, recursive: true);
        }

        string timeReport = Path.GetTempFileName();
        bool timed = File.Exists("/usr/bin/time");
        var psi = new ProcessStartInfo(timed ? "/usr/bin/time" : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (timed)
        {
            foreach (string a in new[] { "-o", timeReport, "-f", "%U %S %M", "dotnet" })
            {
                psi.ArgumentList.Add(a);
            }
        }

        foreach (
            string a in new[]
            {
                dll,
                "report",
                capture,
                "-o",
                output,
                "--symbols",
                symbols,
                "--binaries",
                symbols,
                "--offline",
            }
        )
        {
            psi.ArgumentList.Add(a);
        }

        var sw = Stopwatch.StartNew();
        using Process p = Process.Start(psi)!;
        Task<string> err = p.StandardError.ReadToEndAsync();
        string stdout = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        double s = sw.Elapsed.TotalSeconds;
        string rss = "n/a",
            cpu = string.Empty;
        if (timed)
        {
            string[] f = File.ReadAllText(timeReport).Trim().Split('\n')[^1].Split(' ');
            rss = (long.Parse(f[2], Ic) / 1024.0).ToString("F0", Ic);
            cpu = "; cpu user " + f[0] + " s, sys " + f[1] + " s";
        }

        File.Delete(timeReport);
        string hash = Hash(output);
        _ = stdout;
        _ = err.Result;
        return (
            string.Create(
                Ic,
                $"{events:N0} events in {s:F2} s = {events / s / 1e6:F2} M events/s; peak working set {rss} MiB; "
                    + $"gen2 GCs n/a (max RSS by /usr/bin/time){cpu}; exit {p.ExitCode}; output {hash[..16]}"
            ),
            hash
        );
    }

    private static string Hash(string root)
    {
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        if (Directory.Exists(root))
        {
            foreach (
                string f in Directory.GetFiles(root, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal)
            )
            {
                sha.AppendData(System.Text.Encoding.UTF8.GetBytes(Path.GetRelativePath(root, f) + "\n"));
                sha.AppendData(File.ReadAllBytes(f));
            }
        }

        return Convert.ToHexString(sha.GetHashAndReset());
    }

    private sealed class Counter(Action add) : ICaptureConsumer
    {
        public bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public void Add(XEvent e) => add();
    }
}

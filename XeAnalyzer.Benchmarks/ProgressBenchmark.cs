using System.Diagnostics;
using System.Globalization;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- progress [--size-mb 200] [--runs 5] [--dir
/// /tmp/xebench-progress]</c>: what the progress display costs. Runs the built <c>xeanalyze latches</c> (build
/// <c>XeAnalyzer.Cli</c> in Release first) on the small committed latch sample and on a generated latch capture, each
/// three ways, interleaved: stderr on a pseudo-terminal with progress (util-linux <c>script</c>, default delay), the
/// same with <c>--quiet</c>, and with no terminal at all; prints the median, minimum and maximum wall time of each
/// (process start included), and whether stdout was byte-identical in every run.
/// </summary>
internal static class ProgressBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        int sizeMb = 200,
            runs = 5;
        string dir = Path.Combine(Path.GetTempPath(), "xebench-progress");
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--size-mb":
                    sizeMb = int.Parse(args[i + 1], Ic);
                    break;
                case "--runs":
                    runs = int.Parse(args[i + 1], Ic);
                    break;
                case "--dir":
                    dir = args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = BatchBenchmark.FindRepo();
        string cli = Path.Combine(repo, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        if (!File.Exists(cli) || !File.Exists("/usr/bin/script"))
        {
            Console.Error.WriteLine(
                "needs " + cli + " (dotnet build XeAnalyzer.Cli -c Release) and /usr/bin/script (bsdutils)"
            );
            return 2;
        }

        Directory.CreateDirectory(dir);
        string big = Path.Combine(dir, string.Create(Ic, $"latches_{sizeMb}mb.xel"));
        if (!File.Exists(big))
        {
            AnalysisBenchmarks.GenerateLatches(big, sizeMb * 1024L * 1024);
        }

        Console.WriteLine("XeAnalyzer progress-display benchmark: xeanalyze latches, wall time per process");
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores; machine shared with other "
                    + $"builds: compare the modes of one run, not runs"
            )
        );
        foreach (
            (string name, string input) in new[]
            {
                ("sample latch_nesting_full", Path.Combine(repo, "sample-xel", "latch_nesting_full")),
                (string.Create(Ic, $"generated {new FileInfo(big).Length / 1048576.0:F0} MiB"), big),
            }
        )
        {
            string[] modes = ["terminal, progress", "terminal, --quiet", "no terminal"];
            var times = modes.ToDictionary(m => m, _ => new List<double>());
            var outputs = new HashSet<string>(StringComparer.Ordinal);
            string q(string s) => "'" + s.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
            for (int r = -1; r < runs; r++)
            {
                foreach (string mode in modes)
                {
                    string stdout = Path.Combine(dir, "stdout.txt");
                    string cmd =
                        "dotnet "
                        + q(cli)
                        + " latches "
                        + q(input)
                        + (mode.Contains("--quiet", StringComparison.Ordinal) ? " --quiet" : string.Empty)
                        + " > "
                        + q(stdout);
                    ProcessStartInfo psi =
                        mode == "no terminal"
                            ? new ProcessStartInfo("/bin/sh", ["-c", cmd + " 2>/dev/null"])
                            : new ProcessStartInfo("/usr/bin/script", ["-q", "-e", "-c", cmd, "/dev/null"]);
                    psi.RedirectStandardInput = psi.RedirectStandardOutput = psi.RedirectStandardError = true;
                    psi.Environment["TERM"] = "xterm-256color";
                    psi.Environment.Remove("XEANALYZER_PROGRESS_DELAY_MS");
                    var sw = Stopwatch.StartNew();
                    using (Process p = Process.Start(psi)!)
                    {
                        p.StandardInput.Close();
                        Task<string> e = p.StandardError.ReadToEndAsync();
                        _ = p.StandardOutput.ReadToEnd();
                        p.WaitForExit();
                        _ = e.GetAwaiter().GetResult();
                        if (p.ExitCode != 0)
                        {
                            Console.Error.WriteLine(mode + ": exit " + p.ExitCode.ToString(Ic));
                            return 1;
                        }
                    }

                    double seconds = sw.Elapsed.TotalSeconds;
                    if (r >= 0)
                    {
                        // The first round warms the page cache and is not counted.
                        times[mode].Add(seconds);
                    }

                    outputs.Add(
                        Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(stdout)))
                    );
                }
            }

            Console.WriteLine(name + ":");
            foreach (string mode in modes)
            {
                List<double> t = times[mode];
                Console.WriteLine(
                    string.Create(
                        Ic,
                        $"  {mode, -20} median {BatchBenchmark.Median(t):F3} s  (min {t.Min():F3}, max {t.Max():F3}, "
                            + $"{t.Count} runs)"
                    )
                );
            }

            Console.WriteLine("  stdout identical in every run: " + (outputs.Count == 1 ? "yes" : "NO"));
        }

        return 0;
    }
}

using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Export;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Throughput, output size and memory of <c>xeanalyze export --format parquet</c>'s library path, against the previous
/// writer in the same run. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- export [--size-gb 1] [--small-gb 0.25] [--dir
/// /tmp/xebench] [--rounds 3] [--codecs zstd,snappy,gzip,none] [--baseline REF|none]</c>.
/// </summary>
/// <remarks>
/// Uses (or generates, as the <c>xel</c> mode does) latch_acquired captures. Every export runs in a child process, so
/// peak memory is per export. A baseline named with <c>--baseline REF</c> runs every codec of <c>--codecs</c>, each
/// right before the current code's run of the same codec. The default baseline is XeAnalyzer's own Parquet writer (GZIP
/// pages, PLAIN values; run with GZIP only) as it was before
/// Parquet.Net: by default the parent of the commit that deleted <c>XeAnalyzer/Export/Parquet/ParquetWriter.cs</c>. The
/// benchmark checks that commit out into a temporary git worktree, builds its benchmark project (Release) and runs that
/// build's own <c>export-child</c> mode on the same capture, alternating with the current code's runs in every round,
/// so both see the same machine load. The output folder of every run is measured by this process (sum of the
/// <c>.parquet</c> files), not taken from the child; with <c>/usr/bin/time</c> (Debian package <c>time</c>) each
/// child's CPU time and peak resident set are measured by the OS too, the same way for both builds (CPU time is less
/// disturbed by other load on the machine than elapsed time).
/// </remarks>
internal static class ExportBenchmark
{
    private const string OldWriterPath = "XeAnalyzer/Export/Parquet/ParquetWriter.cs";
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        if (args.Length >= 4 && args[0] == "export-child")
        {
            return Child(args[1], args[2], args[3]);
        }

        double sizeGb = 1,
            smallGb = 0.25;
        int rounds = 3;
        string dir = Path.Combine(Path.GetTempPath(), "xebench");
        string[] codecs = ["zstd", "snappy", "gzip", "none"];
        string? baseline = null;
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
                case "--rounds":
                    rounds = int.Parse(args[i + 1], Ic);
                    break;
                case "--codecs":
                    codecs = args[i + 1].Split(',');
                    break;
                case "--baseline":
                    baseline = args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        Directory.CreateDirectory(dir);
        Console.WriteLine("XeAnalyzer Parquet export benchmark");
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}"
            )
        );
        string repo = BaselineBuild.RepoRoot();
        Console.WriteLine(
            "current code: "
                + BaselineBuild.Git(repo, "rev-parse", "--short", "HEAD")
                + (
                    BaselineBuild.Git(repo, "status", "--porcelain").Length > 0
                        ? " (with uncommitted changes)"
                        : string.Empty
                )
        );
        string? baselineDll = null;
        bool oldWriter = baseline is null;
        string[] baselineCodecs = oldWriter ? ["gzip"] : codecs;
        string? worktree = null;
        if (baseline != "none")
        {
            baseline ??= BaselineBuild.Git(repo, "rev-list", "-1", "HEAD", "--", OldWriterPath) + "^";
            string commit = BaselineBuild.Git(repo, "rev-parse", "--short", baseline);
            worktree = Path.Combine(Path.GetTempPath(), "xebench-baseline-" + commit);
            (baselineDll, string note) = BuildBaseline(repo, commit, worktree);
            Console.WriteLine("baseline: commit " + commit + ", " + note);
        }

        try
        {
            foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
            {
                string path = Path.Combine(dir, string.Create(Ic, $"latch_{gb:0.###}gb.xel"));
                long target = (long)(gb * 1024 * 1024 * 1024);
                if (!File.Exists(path) || new FileInfo(path).Length < target)
                {
                    var sw = Stopwatch.StartNew();
                    long n = Program.Generate(path, target);
                    Console.WriteLine(
                        string.Create(
                            Ic,
                            $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in "
                                + $"{sw.Elapsed.TotalSeconds:F1} s"
                        )
                    );
                }

                string outDir = Path.Combine(dir, "export-out");
                for (int round = 1; round <= rounds; round++)
                {
                    foreach (string codec in codecs.Union(baselineDll is null ? [] : baselineCodecs))
                    {
                        if (baselineDll is not null && baselineCodecs.Contains(codec))
                        {
                            string line = ChildProcess.RunTimed(baselineDll, "export-child", path, outDir, codec);
                            Report(path, (oldWriter ? "old writer " : "baseline ") + codec, round, outDir, line);
                        }

                        if (codecs.Contains(codec))
                        {
                            string line = ChildProcess.RunTimed(null, "export-child", path, outDir, codec);
                            Report(path, "Parquet.Net " + codec, round, outDir, line);
                        }
                    }
                }
            }
        }
        finally
        {
            if (worktree is not null && Directory.Exists(worktree))
            {
                BaselineBuild.Git(repo, "worktree", "remove", "--force", worktree);
            }
        }

        return 0;
    }

    /// <summary>Prints one run: the child's line and the size of what it wrote (measured here), then removes the
    /// output.</summary>
    private static void Report(string path, string what, int round, string outDir, string line)
    {
        long bytes = Directory.Exists(outDir)
            ? Directory.GetFiles(outDir, "*.parquet").Sum(f => new FileInfo(f).Length)
            : -1;
        Console.WriteLine(
            string.Create(
                Ic,
                $"{Path.GetFileName(path)} round {round} {what}: output {bytes:N0} bytes ({bytes / 1048576.0:F1} "
                    + $"MiB); {line}"
            )
        );
        if (Directory.Exists(outDir))
        {
            Directory.Delete(outDir, recursive: true);
        }
    }

    /// <summary>Checks the baseline commit out into <paramref name="worktree"/> and builds its benchmark
    /// project.</summary>
    private static (string Dll, string Note) BuildBaseline(string repo, string commit, string worktree)
    {
        if (Directory.Exists(worktree))
        {
            BaselineBuild.Git(repo, "worktree", "remove", "--force", worktree);
        }

        BaselineBuild.Git(repo, "worktree", "add", "--detach", worktree, commit);
        var psi = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = worktree,
        };
        foreach (
            string a in new[]
            {
                "build",
                "XeAnalyzer.Benchmarks/XeAnalyzer.Benchmarks.csproj",
                "-c",
                "Release",
                "-nologo",
                "-v",
                "q",
            }
        )
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        Task<string> err = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        string dll = Path.Combine(
            worktree,
            "XeAnalyzer.Benchmarks",
            "bin",
            "Release",
            "net10.0",
            "XeAnalyzer.Benchmarks.dll"
        );
        if (p.ExitCode != 0 || !File.Exists(dll))
        {
            throw new InvalidOperationException(
                "building the baseline benchmark at " + commit + " failed: " + output + err.Result
            );
        }

        return (dll, "built in " + worktree + " (its XeAnalyzer.Benchmarks export-child mode, GZIP pages)");
    }

    private static int Child(string path, string outDir, string compression)
    {
        long length = new FileInfo(path).Length;
        long allocatedBefore = GC.GetTotalAllocatedBytes(true);
        var options = new XelExportOptions
        {
            Compression = compression switch
            {
                "none" => ParquetCompression.None,
                "snappy" => ParquetCompression.Snappy,
                "gzip" => ParquetCompression.Gzip,
                "zstd" => ParquetCompression.Zstd,
                _ => throw new ArgumentException("unknown compression " + compression),
            },
        };
        var sw = Stopwatch.StartNew();
        XelExportResult result = XelParquetExporter.Export(Capture.CaptureSource.Open([path]), outDir, options);
        sw.Stop();
        long allocated = GC.GetTotalAllocatedBytes(true) - allocatedBefore;
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        long written = result.Tables.Sum(t => t.Bytes);
        Console.WriteLine(
            string.Create(
                Ic,
                $"{result.Events:N0} rows in {s:F2} s = {result.Events / s / 1e6:F2} M rows/s, "
                    + $"{length / 1048576.0 / s:F0} MiB/s of .xel in; wrote {written / 1048576.0:F0} MiB in "
                    + $"{result.Tables.Sum(t => t.RowGroups)} row groups ({written / 1048576.0 / s:F0} MiB/s out); "
                    + $"allocated {allocated / 1048576.0:F0} MiB; peak working set "
                    + $"{me.PeakWorkingSet64 / 1048576.0:F0} "
                    + $"MiB; gen2 GCs {GC.CollectionCount(2)}"
            )
        );
        return 0;
    }
}

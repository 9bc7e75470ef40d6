using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using XeAnalyzer.Events;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- batch [--captures 100] [--repeat 5] [--dir
/// /tmp/xebench/batch] [--loh yes]</c>: writes N small captures with <see cref="XelWriter"/> (variants of the three
/// committed samples: every event, or all but every m-th, each with its sample's module list), then times
/// <see cref="BatchRunner"/> over them with 1 and 2 jobs (median of the repeats, a fresh shared resolver each run),
/// checks both outputs are byte-identical, counts the PDBs opened with one shared resolver against one resolver per
/// capture, and compares the two ways a report reads a capture (one pass feeding every analysis vs. one name-filtered
/// pass per analysis). With <c>--loh yes</c>, instead: one <c>--jobs 1</c> run counting what it allocates on the
/// large-object heap, by type and size.
/// </summary>
internal static class BatchBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        int count = 100,
            repeat = 5;
        bool loh = false;
        string dir = Path.Combine(Path.GetTempPath(), "xebench", "batch");
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--captures":
                    count = int.Parse(args[i + 1], Ic);
                    break;
                case "--repeat":
                    repeat = int.Parse(args[i + 1], Ic);
                    break;
                case "--dir":
                    dir = args[i + 1];
                    break;
                case "--loh":
                    loh = args[i + 1] == "yes";
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = FindRepo();
        string input = Path.Combine(dir, "in");
        Console.WriteLine("XeAnalyzer batch benchmark");
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}"
            )
        );
        var sw = Stopwatch.StartNew();
        (long bytes, long events) = Generate(repo, input, count);
        Console.WriteLine(
            events < 0
                ? string.Create(Ic, $"reusing {count} captures in {input}: {bytes / 1048576.0:F1} MiB")
                : string.Create(
                    Ic,
                    $"generated {count} captures in {input}: {bytes / 1048576.0:F1} MiB, {events:N0} events in "
                        + $"{sw.Elapsed.TotalSeconds:F1} s"
                )
        );

        string[] inputs = [input];
        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover(inputs);
        string symbols = Path.Combine(repo, "symbols-cache");

        // Warm-up, not timed: the first run of a process pays for JIT (tiered compilation) and is ~2x slower.
        RunBatch(inputs, captures, Path.Combine(dir, "warmup"), 2, symbols);
        RunBatch(inputs, captures, Path.Combine(dir, "warmup"), 1, symbols);
        if (loh)
        {
            // What a batch allocates on the large-object heap (each allocation there brings a full collection closer):
            // one --jobs 1 run, the runtime's allocation ticks (one per ~100 KB) of large objects counted by type and
            // size.
            using var ticks = new LargeAllocationListener();
            ticks.On = true;
            RunBatch(inputs, captures, Path.Combine(dir, "out-loh"), 1, symbols);
            ticks.On = false;
            Console.WriteLine("large-object-heap allocation ticks of one --jobs 1 run, by type and size (top 20):");
            foreach (string line in ticks.Top(20))
            {
                Console.WriteLine("  " + line);
            }

            return 0;
        }

        // Runs alternate between 1 and 2 jobs, so load from other processes on a shared machine hits both alike.
        var results = new Dictionary<int, List<(double Seconds, int Pdbs)>> { [1] = [], [2] = [] };
        for (int r = 0; r < repeat; r++)
        {
            foreach (int jobs in new[] { 1, 2 })
            {
                string output = Path.Combine(dir, string.Create(Ic, $"out-j{jobs}-{r}"));
                results[jobs].Add(RunBatch(inputs, captures, output, jobs, symbols));
            }
        }

        double j1 = Median(results[1].Select(x => x.Seconds));
        double j2 = Median(results[2].Select(x => x.Seconds));
        bool identical =
            Enumerable
                .Range(0, repeat)
                .SelectMany(r => new[] { "out-j1-" + r.ToString(Ic), "out-j2-" + r.ToString(Ic) })
                .Select(d => Hash(Path.Combine(dir, d)))
                .Distinct(StringComparer.Ordinal)
                .Count() == 1;
        Console.WriteLine(
            string.Create(
                Ic,
                $"batch, {captures.Count} captures, shared resolver: --jobs 1 {j1:F2} s ({captures.Count / j1:F1} "
                    + $"captures/s), --jobs 2 {j2:F2} s ({captures.Count / j2:F1} captures/s): speedup {j1 / j2:F2}x "
                    + $"(median of {repeat}; runs: j1 "
                    + $"{string.Join(" ", results[1].Select(x => x.Seconds.ToString("F2", Ic)))}, j2 "
                    + $"{string.Join(" ", results[2].Select(x => x.Seconds.ToString("F2", Ic)))})"
            )
        );
        Console.WriteLine("outputs of every --jobs 1 and --jobs 2 run byte-identical: " + (identical ? "yes" : "NO"));
        Console.WriteLine(
            string.Create(Ic, $"PDBs opened with one shared resolver: {results[2][0].Pdbs} for the whole batch")
        );

        // One resolver per capture: every capture opens the PDBs its frames need again.
        sw.Restart();
        int opens = 0;
        var gate = new Lock();
        Parallel.ForEach(
            captures,
            new ParallelOptions { MaxDegreeOfParallelism = 2 },
            c =>
            {
                using CallstackResolver resolver = Resolver(symbols);
                CaptureReport report = CaptureReporter.Run(
                    c.Files,
                    new ReportOptions { Resolver = resolver, DisplayPath = c.DisplayPath }
                );
                report.Write(Path.Combine(dir, "out-unshared", c.Folder));
                int n = resolver.GetPdbBindings().Count(b => b.IsLoaded);
                lock (gate)
                {
                    opens += n;
                }
            }
        );
        double unshared = sw.Elapsed.TotalSeconds;
        Console.WriteLine(
            string.Create(
                Ic,
                $"PDBs opened with one resolver per capture: {opens} ({unshared:F2} s with 2 threads, vs {j2:F2} s "
                    + $"shared)"
            )
        );

        // A report reads each capture once, feeding every analysis (the only way since the capture pipeline).
        for (int run = 0; run < 2; run++)
        {
            using CallstackResolver resolver = Resolver(symbols);
            sw.Restart();
            foreach (BatchCapture c in captures)
            {
                _ = CaptureReporter.Run(c.Files, new ReportOptions { Resolver = resolver });
            }

            Console.WriteLine(
                string.Create(
                    Ic,
                    $"report, {captures.Count} captures one after another, run {run + 1}: "
                        + $"{sw.Elapsed.TotalSeconds:F2} s ({bytes / 1048576.0 / sw.Elapsed.TotalSeconds:F0} MiB/s)"
                )
            );
        }

        // Where a batch's time goes: building the reports vs. writing their files.
        {
            using CallstackResolver resolver = Resolver(symbols);
            sw.Restart();
            CaptureReport[] reports =
            [
                .. captures.Select(c =>
                    CaptureReporter.Run(c.Files, new ReportOptions { Resolver = resolver, DisplayPath = c.DisplayPath })
                ),
            ];
            double build = sw.Elapsed.TotalSeconds;
            sw.Restart();
            for (int i = 0; i < reports.Length; i++)
            {
                reports[i].Write(Path.Combine(dir, "out-split", captures[i].Folder));
            }

            Console.WriteLine(
                string.Create(
                    Ic,
                    $"one job, split: building {reports.Length} reports {build:F2} s, writing their "
                        + $"{reports.Sum(r => r.Files.Count):N0} files {sw.Elapsed.TotalSeconds:F2} s"
                )
            );
            sw.Restart();
            foreach (BatchCapture c in captures)
            {
                CaptureReporter
                    .Run(c.Files, new ReportOptions { Resolver = resolver, DisplayPath = c.DisplayPath })
                    .Write(Path.Combine(dir, "out-split", c.Folder));
            }

            Console.WriteLine(
                string.Create(Ic, $"one job, each report built then written: {sw.Elapsed.TotalSeconds:F2} s")
            );
        }

        string big = Path.Combine(dir, "big", "waits_x40_0_133601608255530000.xel");
        long bigEvents = Concatenate(Path.Combine(repo, "sample-xel", "blob_storage_waits"), big, 40);
        for (int run = 0; run < 2; run++)
        {
            using CallstackResolver resolver = Resolver(symbols);
            sw.Restart();
            CaptureReport report = CaptureReporter.Run([big], new ReportOptions { Resolver = resolver });
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"report, one capture of {new FileInfo(big).Length / 1048576.0:F0} MiB ({bigEvents:N0} events, "
                        + $"{report.Completed.Count()} analyses), run {run + 1}: {sw.Elapsed.TotalSeconds:F2} s"
                )
            );
        }

        return identical ? 0 : 1;
    }

    private static (double Seconds, int Pdbs) RunBatch(
        string[] inputs,
        IReadOnlyList<BatchCapture> captures,
        string output,
        int jobs,
        string symbols
    )
    {
        if (Directory.Exists(output))
        {
            Directory.Delete(output, recursive: true);
        }

        using CallstackResolver resolver = Resolver(symbols);
        int gen0 = GC.CollectionCount(0),
            gen2 = GC.CollectionCount(2);
        TimeSpan pause = GC.GetTotalPauseDuration(),
            cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var sw = Stopwatch.StartNew();
        BatchResult result = BatchRunner.Run(
            inputs,
            captures,
            output,
            new BatchOptions
            {
                Jobs = jobs,
                KeepGoing = true,
                Report = new ReportOptions { Resolver = resolver },
            }
        );
        double seconds = sw.Elapsed.TotalSeconds;
        Console.WriteLine(
            string.Create(
                Ic,
                $"  --jobs {jobs}: {seconds:F2} s, process cpu "
                    + $"{(Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalSeconds:F2} s, GCs gen0 "
                    + $"{GC.CollectionCount(0) - gen0}, gen2 {GC.CollectionCount(2) - gen2}, GC pauses "
                    + $"{(GC.GetTotalPauseDuration() - pause).TotalSeconds:F2} s"
            )
        );
        if (result.AnyFailed)
        {
            throw new InvalidOperationException(
                "a capture failed: " + result.Items.First(i => i.Status == BatchStatus.Failed).Reason
            );
        }

        return (seconds, resolver.GetPdbBindings().Count(b => b.IsLoaded));
    }

    private static CallstackResolver Resolver(string symbols) =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(symbols),
                Offline = true,
                Binaries = ModuleBinaries.Scan([symbols]),
            }
        );

    /// <summary>Writes the captures once (reused when the folder already holds them).</summary>
    private static (long Bytes, long Events) Generate(string repo, string input, int count)
    {
        string[] sets = ["latch_nesting_full", "cci_insert_memory", "blob_storage_waits"];
        if (Directory.Exists(input) && Directory.GetFiles(input, "*.xel", SearchOption.AllDirectories).Length == count)
        {
            return (
                Directory.GetFiles(input, "*.xel", SearchOption.AllDirectories).Sum(f => new FileInfo(f).Length),
                -1
            );
        }

        if (Directory.Exists(input))
        {
            Directory.Delete(input, recursive: true);
        }

        long bytes = 0,
            events = 0;
        for (int k = 0; k < count; k++)
        {
            string set = sets[k % sets.Length];
            string sourceDir = Path.Combine(repo, "sample-xel", set);
            string source = Directory.GetFiles(sourceDir, set + "_0_*.xel").Single();
            string folder = Path.Combine(input, string.Create(Ic, $"agent{k % 10:D2}"));
            Directory.CreateDirectory(folder);
            string name = string.Create(Ic, $"{set}_{k:D3}");
            string target = Path.Combine(folder, name + "_0_133601526724170000.xel");
            int modulus = k % 4 == 0 ? 0 : 2 + (k % 5);
            XeSchema schema = XelReader.ReadSchema(source);
            using (
                XelWriter w = XelWriter.Create(
                    target,
                    schema,
                    new XelWriterOptions
                    {
                        StartTimeUtc = new DateTime(2024, 5, 14, 9, 0, 0, DateTimeKind.Utc),
                        Partitions = 4,
                    }
                )
            )
            {
                int i = 0;
                foreach (XEvent e in XelReader.ReadEvents(source))
                {
                    if (modulus == 0 || i++ % modulus != 0)
                    {
                        w.Write(e);
                        events++;
                    }
                }
            }

            File.Copy(
                Path.Combine(sourceDir, set + ".modules.txt"),
                Path.Combine(folder, name + ".modules.txt"),
                overwrite: true
            );
            bytes += new FileInfo(target).Length;
        }

        return (bytes, events);
    }

    /// <summary>One capture holding a sample's events <paramref name="times"/> times (with its module list).</summary>
    private static long Concatenate(string sampleDir, string target, int times)
    {
        string set = Path.GetFileName(sampleDir);
        string source = Directory.GetFiles(sampleDir, set + "_0_*.xel").Single();
        Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        File.Copy(
            Path.Combine(sampleDir, set + ".modules.txt"),
            Path.Combine(Path.GetDirectoryName(target)!, "waits_x40.modules.txt"),
            overwrite: true
        );
        XEvent[] events = [.. XelReader.ReadEvents(source)];
        using XelWriter w = XelWriter.Create(
            target,
            XelReader.ReadSchema(source),
            new XelWriterOptions
            {
                StartTimeUtc = new DateTime(2024, 5, 14, 11, 0, 0, DateTimeKind.Utc),
                Partitions = 4,
            }
        );
        for (int t = 0; t < times; t++)
        {
            foreach (XEvent e in events)
            {
                w.Write(e);
            }
        }

        return w.EventsWritten;
    }

    private static string Hash(string root)
    {
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (string f in Directory.GetFiles(root, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
        {
            sha.AppendData(System.Text.Encoding.UTF8.GetBytes(Path.GetRelativePath(root, f) + "\n"));
            sha.AppendData(File.ReadAllBytes(f));
        }

        return Convert.ToHexString(sha.GetHashAndReset());
    }

    internal static double Median(IEnumerable<double> values)
    {
        double[] v = [.. values.Order()];
        return v.Length % 2 == 1 ? v[v.Length / 2] : (v[(v.Length / 2) - 1] + v[v.Length / 2]) / 2;
    }

    internal static string FindRepo()
    {
        foreach (string start in new[] { Environment.CurrentDirectory, AppContext.BaseDirectory })
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

    /// <summary>Counts the runtime's allocation ticks of large objects (GCAllocationTick, kind 1) by type name and
    /// size.</summary>
    private sealed class LargeAllocationListener : System.Diagnostics.Tracing.EventListener
    {
        private readonly Dictionary<string, int> _counts = [];
        private readonly Lock _gate = new();

        public volatile bool On;

        public IEnumerable<string> Top(int n)
        {
            lock (_gate)
            {
                return
                [
                    .. _counts
                        .OrderByDescending(kv => kv.Value)
                        .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                        .Take(n)
                        .Select(kv => string.Create(Ic, $"{kv.Value, 6} {kv.Key}")),
                ];
            }
        }

        protected override void OnEventSourceCreated(System.Diagnostics.Tracing.EventSource eventSource)
        {
            if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(
                    eventSource,
                    System.Diagnostics.Tracing.EventLevel.Verbose,
                    (System.Diagnostics.Tracing.EventKeywords)0x1
                );
            }
        }

        protected override void OnEventWritten(System.Diagnostics.Tracing.EventWrittenEventArgs eventData)
        {
            if (
                !On
                || eventData.EventName is null
                || !eventData.EventName.StartsWith("GCAllocationTick", StringComparison.Ordinal)
                || eventData.Payload is null
                || eventData.PayloadNames is null
            )
            {
                return;
            }

            int kind = eventData.PayloadNames.IndexOf("AllocationKind"),
                type = eventData.PayloadNames.IndexOf("TypeName"),
                size = eventData.PayloadNames.IndexOf("ObjectSize");
            if (kind < 0 || type < 0 || Convert.ToUInt32(eventData.Payload[kind], Ic) != 1)
            {
                return;
            }

            string key =
                eventData.Payload[type]
                + (
                    size >= 0
                        ? string.Create(Ic, $", ~{Convert.ToInt64(eventData.Payload[size], Ic) / 1024} KB")
                        : string.Empty
                );
            lock (_gate)
            {
                _counts[key] = _counts.GetValueOrDefault(key) + 1;
            }
        }
    }
}

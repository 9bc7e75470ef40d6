using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// End-to-end benchmark of <c>xeanalyze stacks</c>. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- stacks [--size-gb 1] [--small-gb 0.25] [--dir
/// /tmp/xebench]</c>. Generates a latch capture per size with <see cref="XelWriter"/> (latch_acquired with a
/// <c>package0.callstack</c> action, latch_released without, 8 per-CPU buffer slots; reused when present) whose return
/// addresses are the seed stacks' frames (<c>tools/fixtures/expected/stacks.tsv</c>) at module bases written to the
/// capture's <c>.modules.txt</c> sidecar, 512 distinct stacks (seed stacks with one frame swapped for another fixture
/// frame), so resolution does real work against the committed
/// <c>symbols-cache</c> (PDB identities from the DLLs). Each capture is then bucketed in a child process exactly as the
/// command does (read, aggregate raw stacks, symbolize each distinct address once, merge, render text and folded
/// output), printing events/s and the child's peak working set, for the small and the large capture, to show memory
/// stays flat.
/// </summary>
internal static class StacksBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;
    private static readonly DateTime Start = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static readonly Dictionary<string, ulong> Bases = new(StringComparer.OrdinalIgnoreCase)
    {
        ["sqlservr.exe"] = 0x00007FF7A3E40000,
        ["sqlmin.dll"] = 0x00007FFDE8B70000,
        ["sqllang.dll"] = 0x00007FFDEB5C0000,
        ["sqlTsEs.dll"] = 0x00007FFDF0A10000,
        ["sqldk.dll"] = 0x00007FFDF1A20000,
        ["KERNEL32.DLL"] = 0x00007FFE1D4F0000,
        ["ntdll.dll"] = 0x00007FFE1E8B0000,
    };

    public static int Run(string[] args)
    {
        if (args.Length >= 3 && args[0] == "stacks-child")
        {
            return Child(args[1], args[2]);
        }

        double sizeGb = 1,
            smallGb = 0.25;
        int rounds = 3;
        string? baselineRef = BaselineBuild.PerformanceBaseline;
        string dir = Path.Combine(Path.GetTempPath(), "xebench");
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
                case "--baseline":
                    baselineRef = args[i + 1] == "none" ? null : args[i + 1];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = FindRepo();
        Console.WriteLine(
            "XeAnalyzer stack-bucket benchmark (xeanalyze stacks end to end: read, bucket, symbolize offline, merge, "
                + "render)"
        );
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}; "
                    + $"{BaselineBuild.Load()}"
            )
        );
        Console.WriteLine("current code: " + BaselineBuild.CurrentCode());
        BaselineBuild? baseline = baselineRef is null ? null : BaselineBuild.Prepare(baselineRef, cli: false);
        if (baseline is not null)
        {
            Console.WriteLine("baseline: commit " + baseline.Commit + " (its own stacks-child mode), " + baseline.Note);
        }

        string[] paths = [.. new[] { smallGb, sizeGb }.Distinct().Select(gb => EnsureCapture(repo, dir, gb))];
        var table = new RunTable();
        for (int round = 1; round <= rounds; round++)
        {
            Console.WriteLine(string.Create(Ic, $"round {round} ({BaselineBuild.Load()})"));
            foreach (string path in paths)
            {
                if (baseline is not null)
                {
                    table.Add(
                        "stacks " + Path.GetFileName(path) + " baseline",
                        ChildProcess.RunTimed(
                            baseline.BenchmarkDll,
                            "stacks-child",
                            path,
                            Path.Combine(repo, "symbols-cache")
                        )
                    );
                }

                table.Add(
                    "stacks " + Path.GetFileName(path) + " new",
                    ChildProcess.RunTimed(null, "stacks-child", path, Path.Combine(repo, "symbols-cache"))
                );
            }
        }

        bool met = true;
        Console.WriteLine();
        Console.WriteLine(string.Create(Ic, $"summary (medians of {rounds} rounds; {BaselineBuild.Load()})"));
        foreach (string path in paths)
        {
            Console.WriteLine("  " + table.Compare("stacks " + Path.GetFileName(path), 2, ref met));
        }

        Console.WriteLine(met ? "stacks target (>= 2x events/s): met" : "stacks target (>= 2x events/s): NOT met");
        return 0;
    }

    /// <summary>The stacks capture of one size in <paramref name="dir"/> (generated when missing) with its module
    /// list.</summary>
    internal static string EnsureCapture(string repo, string dir, double gb)
    {
        Directory.CreateDirectory(dir);
        string path = Path.Combine(dir, string.Create(Ic, $"stacks-latch_{gb:0.###}gb.xel"));
        long target = (long)(gb * 1024 * 1024 * 1024);
        if (!File.Exists(path) || new FileInfo(path).Length < target)
        {
            List<ulong[]> stacks = DistinctStacks(repo, 512);
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"{stacks.Count} distinct stacks over {stacks.SelectMany(s => s).Distinct().Count()} distinct "
                        + $"addresses (fixture frames of stacks.tsv)"
                )
            );
            var sw = Stopwatch.StartNew();
            long n = Generate(path, target, stacks);
            Console.WriteLine(
                string.Create(
                    Ic,
                    $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in "
                        + $"{sw.Elapsed.TotalSeconds:F1} s"
                )
            );
        }

        File.WriteAllText(
            Path.ChangeExtension(path, null) + ".modules.txt",
            "name\tbase_address\n"
                + string.Concat(
                    Bases.Select(b =>
                        string.Create(
                            Ic,
                            $"C:\\Program Files\\Microsoft SQL "
                                + $"Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\{b.Key}\t0x{b.Value:X16}\n"
                        )
                    )
                )
        );
        return path;
    }

    /// <summary>Buckets one capture as <c>xeanalyze stacks CAPTURE --symbols DIR --binaries DIR</c> does, and prints
    /// throughput and memory.</summary>
    private static int Child(string path, string symbols)
    {
        long length = new FileInfo(path).Length;
        var sw = Stopwatch.StartNew();
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(symbols),
                Offline = true,
                Binaries = ModuleBinaries.Scan([symbols]),
            }
        );
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([path]), new AnalysisContext(resolver: resolver))
            .Result;
        TimeSpan analyzed = sw.Elapsed;
        var document = new StackBucketDocument(r);
        string text = OutputFormats.ToText(document);
        using var ms = new MemoryStream();
        OutputFormats.Write(document, "folded", ms);
        sw.Stop();
        long events = r.EventsRead;
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        ResolutionSummary res = r.Inputs[0].Resolution;
        Console.WriteLine(
            string.Create(
                Ic,
                $"{events:N0} events ({r.EventsWithStack:N0} with a callstack) in {s:F2} s = {events / s / 1e6:F2} M "
                    + $"events/s, {length / 1048576.0 / s:F0} MiB/s (bucketing {analyzed.TotalSeconds:F2} s); peak "
                    + $"working "
                    + $"set {me.PeakWorkingSet64 / 1048576.0:F0} MiB; gen2 GCs {GC.CollectionCount(2)}; "
                    + $"{r.DistinctRawStacks:N0} raw stacks -> {r.TotalBuckets:N0} buckets; frames of distinct stacks: "
                    + $"{res.ResolvedOffline:N0} offline, {res.Unresolved:N0} unresolved; text {text.Length:N0} chars, "
                    + $"folded {ms.Length:N0} bytes; top bucket {r.Buckets[0].Count:N0}"
            ) + ChildProcess.CpuNote()
        );
        return 0;
    }

    /// <summary>
    /// Distinct stacks from the fixture frames: each seed stack, then variants with one frame replaced by another
    /// fixture frame (every frame a real address inside the fixture modules, or a KERNEL32/ntdll frame without PDB).
    /// </summary>
    private static List<ulong[]> DistinctStacks(string repo, int count)
    {
        var seeds = new Dictionary<string, List<ulong>>(StringComparer.Ordinal);
        var pool = new List<ulong>();
        string[] lines = File.ReadAllLines(Path.Combine(repo, "tools", "fixtures", "expected", "stacks.tsv"));
        string[] header = lines[0].Split('\t');
        int iStack = Array.IndexOf(header, "stack"),
            iModule = Array.IndexOf(header, "module"),
            iFunction = Array.IndexOf(header, "function");
        int iOffset = Array.IndexOf(header, "offset"),
            iRva = Array.IndexOf(header, "frame_rva");
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0))
        {
            string[] c = line.Split('\t');
            string module = c[iModule].Contains('.', StringComparison.Ordinal) ? c[iModule] : c[iModule] + ".dll";
            if (!Bases.TryGetValue(module, out ulong b))
            {
                continue;
            }

            ulong rva = ulong.Parse(
                (c[iFunction] == "-" ? c[iOffset] : c[iRva]).AsSpan(2),
                NumberStyles.AllowHexSpecifier,
                Ic
            );
            ulong address = b + rva;
            if (!seeds.TryGetValue(c[iStack], out List<ulong>? s))
            {
                seeds[c[iStack]] = s = [];
            }

            s.Add(address);
            pool.Add(address);
        }

        ulong[] distinctPool = [.. pool.Distinct().Order()];
        var result = new List<ulong[]>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        List<ulong>[] seedList = [.. seeds.Values.Where(s => s.Count >= 3)];
        ulong seed = 0x9E3779B97F4A7C15UL;
        for (int i = 0; result.Count < count && i < count * 20; i++)
        {
            List<ulong> baseStack = seedList[i % seedList.Length];
            ulong[] stack = [.. baseStack];
            if (i >= seedList.Length)
            {
                seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
                int at = (int)((seed >> 33) % (ulong)stack.Length);
                stack[at] = distinctPool[(int)((seed >> 13) % (ulong)distinctPool.Length)];
            }

            if (seen.Add(string.Join(",", stack)))
            {
                result.Add(stack);
            }
        }

        return result;
    }

    /// <summary>latch_acquired (with callstack; skewed: a few stacks dominate, as in the seed) and latch_released
    /// (without) on 16 schedulers.</summary>
    private static long Generate(string path, long targetBytes, List<ulong[]> stacks)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        XeMap latchClass = sBuilder.AddMap(
            sqlserver,
            "latch_class",
            [new(3, "BUFFER"), new(17, "NESTING_TRANSACTION_FULL")]
        );
        XeMap latchMode = sBuilder.AddMap(sqlserver, "latch_mode", [new(2, "SH"), new(4, "EX")]);
        XeFieldDefinition[] common =
        [
            XeFieldDefinition.Of("class", latchClass),
            XeFieldDefinition.Of("mode", latchMode),
            XeFieldDefinition.Of("address", XeBaseType.Pointer),
            XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
        ];
        XeEventType acq = sBuilder.AddEvent(
            sqlserver,
            "latch_acquired",
            Guid.Parse("4d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1"),
            common
        );
        XeEventType rel = sBuilder.AddEvent(
            sqlserver,
            "latch_released",
            Guid.Parse("4d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab2"),
            [.. common, XeFieldDefinition.Of("duration", XeBaseType.UInt64)]
        );
        XeColumn scheduler = sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);
        XeColumn sequence = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeColumn callstack = sBuilder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0);
        XeSchema s = sBuilder.Build();
        ulong seed = 0x1234567890ABCDEFUL;
        long n = 0;
        long tick = 0;
        var fields = new XeValue[4];
        var rfields = new XeValue[5];
        var aActions = new XeValue[3];
        var rActions = new XeValue[2];
        using (
            XelWriter w = XelWriter.Create(
                path,
                s,
                new XelWriterOptions
                {
                    StartTimeUtc = Start,
                    BufferSize = 1024 * 1024,
                    Partitions = 8,
                }
            )
        )
        using (var fs = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
        {
            while (true)
            {
                for (int k = 0; k < 50_000; k++)
                {
                    seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
                    ulong r = seed >> 16;
                    int sched = (int)(r % 16);

                    // Skewed: half the acquires on the first 8 stacks, the rest spread over all.
                    int stack = (r >> 8) % 2 == 0 ? (int)((r >> 12) % 8) : (int)((r >> 12) % (ulong)stacks.Count);
                    fields[0] = XeValue.Create(acq.Fields[0], (r >> 20) % 2 == 0 ? 17UL : 3UL);
                    fields[1] = XeValue.Create(acq.Fields[1], 4UL);
                    fields[2] = XeValue.Create(acq.Fields[2], 0x000001A200000000UL + ((r >> 24) % 4096 * 64));
                    fields[3] = XeValue.Create(acq.Fields[3], 2UL);
                    aActions[0] = XeValue.Create(scheduler, (ulong)sched);
                    aActions[1] = XeValue.Create(sequence, (ulong)++n);
                    aActions[2] = XeValue.Create(callstack, stacks[stack]);
                    tick += 10;
                    w.Write(acq, Start.AddTicks(tick), fields, aActions, sched % 8);
                    for (int i = 0; i < 4; i++)
                    {
                        rfields[i] = XeValue.Create(rel.Fields[i], fields[i].AsUInt64());
                    }

                    rfields[4] = XeValue.Create(rel.Fields[4], (r >> 30) % 50);
                    rActions[0] = aActions[0];
                    rActions[1] = XeValue.Create(sequence, (ulong)++n);
                    tick += 10;
                    w.Write(rel, Start.AddTicks(tick), rfields, rActions, sched % 8);
                }

                if (fs.Length >= targetBytes)
                {
                    break;
                }
            }
        }

        return n;
    }

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

        throw new InvalidOperationException("XeAnalyzer.sln not found above the current or the program's directory");
    }
}

using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// End-to-end benchmark of the <c>latches</c>, <c>memory</c> and <c>waits</c> analyses. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- analysis [--commands latches,memory,waits] [--size-gb 1]
/// [--small-gb 0.25] [--dir /tmp/xebench]</c>. Generates one capture per command and size with <see cref="XelWriter"/>
/// (8 per-CPU buffer slots, so records are out of time order; reused when present), then runs each analysis in a child
/// process exactly as the command does (open the input, read with the event-name push-down, analyse, build the report,
/// render it as text and the chart as SVG) and prints events/s, MiB/s and the child's peak working set, for the small
/// and the large capture, to show memory stays flat.
/// </summary>
internal static class AnalysisBenchmarks
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;
    private static readonly DateTime Start = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    public static int Run(string[] args)
    {
        double sizeGb = 1,
            smallGb = 0.25;
        int rounds = 3;
        string? baselineRef = BaselineBuild.PerformanceBaseline;
        string dir = Path.Combine(Path.GetTempPath(), "xebench");
        string[] commands = ["latches", "memory", "waits"];
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
                case "--commands":
                    commands = args[i + 1].Split(',');
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

        Directory.CreateDirectory(dir);
        Console.WriteLine("XeAnalyzer analysis benchmark (latches, memory, waits end to end)");
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
            Console.WriteLine(
                "baseline: commit " + baseline.Commit + " (its own analysis-child mode), " + baseline.Note
            );
        }

        var paths = new List<(string Command, double Gb, string Path)>();
        foreach (string command in commands)
        {
            foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
            {
                string path = Path.Combine(dir, string.Create(Ic, $"analysis-{command}_{gb:0.###}gb.xel"));
                long target = (long)(gb * 1024 * 1024 * 1024);
                if (!File.Exists(path) || new FileInfo(path).Length < target)
                {
                    var sw = Stopwatch.StartNew();
                    long n = command switch
                    {
                        "latches" => GenerateLatches(path, target),
                        "memory" => GenerateMemory(path, target),
                        "waits" => GenerateWaits(path, target),
                        _ => throw new ArgumentException("unknown command " + command),
                    };
                    Console.WriteLine(
                        string.Create(
                            Ic,
                            $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in "
                                + $"{sw.Elapsed.TotalSeconds:F1} s"
                        )
                    );
                }

                paths.Add((command, gb, path));
            }
        }

        // Rounds alternate the baseline and the current code on each capture, so load from other processes hits both
        // alike.
        var table = new RunTable();
        for (int round = 1; round <= rounds; round++)
        {
            Console.WriteLine(string.Create(Ic, $"round {round} ({BaselineBuild.Load()})"));
            foreach ((string command, double gb, string path) in paths)
            {
                string what = string.Create(Ic, $"{command} {Path.GetFileName(path)}");
                if (baseline is not null)
                {
                    table.Add(
                        what + " baseline",
                        ChildProcess.RunTimed(baseline.BenchmarkDll, "analysis-child", command, path)
                    );
                }

                table.Add(what + " new", ChildProcess.RunTimed(null, "analysis-child", command, path));
            }
        }

        bool met = true;
        Console.WriteLine();
        Console.WriteLine(string.Create(Ic, $"summary (medians of {rounds} rounds; {BaselineBuild.Load()})"));
        foreach ((string command, double gb, string path) in paths)
        {
            string line = table.Compare(string.Create(Ic, $"{command} {Path.GetFileName(path)}"), 2, ref met);
            Console.WriteLine("  " + line);
        }

        Console.WriteLine(
            met ? "analysis targets (>= 2x events/s): met" : "analysis targets (>= 2x events/s): NOT met"
        );
        return 0;
    }

    /// <summary>Runs one analysis as the command does and prints throughput and memory.</summary>
    public static int Child(string command, string path)
    {
        long length = new FileInfo(path).Length;
        var sw = Stopwatch.StartNew();
        CaptureSource input = CaptureSource.Open([path]);
        long events = 0;
        ReportDocument report;
        string chart;
        string summary;
        switch (command)
        {
            case "latches":
            {
                AnalysisOutcome<LatchAnalysisResult> o = new LatchAnalysis().Analyze(input);
                LatchAnalysisResult r = o.Result;
                events = o.Read.EventsRead;
                report = r.ToReport();
                chart = ChartSvg.ToSvg(r.ToBarChart());
                summary = string.Create(
                    Ic,
                    $"acquires {r.AcquiredEvents:N0}, releases {r.ReleasedEvents:N0}, pairs {r.PairedReleases:N0}, "
                        + $"outliers [{string.Join(",", r.Outliers.Select(o => o.Key))}], late "
                        + $"{r.Ordering.LateEvents:N0}, "
                        + $"out of order {r.Ordering.ArrivedOutOfOrder:N0}"
                );
                break;
            }

            case "memory":
            {
                AnalysisOutcome<MemoryAnalysisResult> o = new MemoryAnalysis().Analyze(input);
                MemoryAnalysisResult r = o.Result;
                events = o.Read.EventsRead;
                report = r.ToReport();
                chart = ChartSvg.ToSvg(r.ToLineChart());
                summary = string.Create(
                    Ic,
                    $"peak {r.PeakPages:N0} pages, series {r.Total.PointsBeforeReduction:N0} -> "
                        + $"{r.Total.Points.Count:N0} points, late {r.Ordering.LateEvents:N0}, out of order "
                        + $"{r.Ordering.ArrivedOutOfOrder:N0}"
                );
                break;
            }

            default:
            {
                AnalysisOutcome<WaitAnalysisResult> o = new WaitAnalysis().Analyze(input);
                WaitAnalysisResult r = o.Result;
                events = o.Read.EventsRead;
                report = r.ToReport();
                chart = ChartSvg.ToSvg(r.ToBarChart());
                IReadOnlyList<PrecedingWait> pre = r.PrecededByFor("PAGEIOLATCH_SH");
                PrecedingWait? top = pre.Count > 0 ? pre[0] : null;
                summary = string.Create(
                    Ic,
                    $"waits {r.Waits:N0}, PAGEIOLATCH_SH preceded by {top?.PrecededBy} {top?.Share:P1}, late "
                        + $"{r.Ordering.LateEvents:N0}, out of order {r.Ordering.ArrivedOutOfOrder:N0}"
                );
                break;
            }
        }

        using var ms = new MemoryStream();
        new TextReportWriter().Write(report, ms);
        sw.Stop();
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        Console.WriteLine(
            string.Create(
                Ic,
                $"{events:N0} events in {s:F2} s = {events / s / 1e6:F2} M events/s, {length / 1048576.0 / s:F0} "
                    + $"MiB/s; peak working set {me.PeakWorkingSet64 / 1048576.0:F0} MiB; gen2 GCs "
                    + $"{GC.CollectionCount(2)}; report {ms.Length:N0} bytes, chart {chart.Length:N0} chars; {summary}"
            ) + ChildProcess.CpuNote()
        );
        return 0;
    }

    private static ulong Next(ref ulong seed)
    {
        seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
        return seed >> 32;
    }

    /// <summary>latch_acquired/latch_released pairs on 16 schedulers (one worker each; scheduler 5 gets ~10 % fewer),
    /// with a 16-frame callstack on acquires.</summary>
    internal static long GenerateLatches(string path, long targetBytes)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        string[] classNames = ["BUFFER", "ACCESS_METHODS_DATASET_PARENT", "NESTING_TRANSACTION_FULL", "LOG_MANAGER"];
        XeMap latchClass = sBuilder.AddMap(
            sqlserver,
            "latch_class",
            classNames.Select((n, i) => new XeMapEntry((uint)(i * 7 + 3), n))
        );
        XeMap latchMode = sBuilder.AddMap(
            sqlserver,
            "latch_mode",
            [new(0, "NL"), new(1, "KP"), new(2, "SH"), new(3, "UP"), new(4, "EX"), new(5, "DT")]
        );
        XeFieldDefinition[] common =
        [
            XeFieldDefinition.Of("class", latchClass),
            XeFieldDefinition.Of("mode", latchMode),
            XeFieldDefinition.Of("address", XeBaseType.Pointer),
            XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
            XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
        ];
        XeEventType acq = sBuilder.AddEvent(
            sqlserver,
            "latch_acquired",
            Guid.Parse("2d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1"),
            common
        );
        XeEventType rel = sBuilder.AddEvent(
            sqlserver,
            "latch_released",
            Guid.Parse("2d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab2"),
            [.. common, XeFieldDefinition.Of("duration", XeBaseType.UInt64)]
        );
        XeColumn scheduler = sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);
        XeColumn worker = sBuilder.AddAction(sqlos, "worker_address", XeBaseType.Pointer);
        XeColumn session = sBuilder.AddAction(sqlserver, "session_id", XeBaseType.UInt16);
        XeColumn sequence = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeColumn callstack = sBuilder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0);
        XeSchema s = sBuilder.Build();
        var stacks = new ulong[32][];
        ulong seed = 0x9E3779B97F4A7C15UL;
        for (int i = 0; i < stacks.Length; i++)
        {
            stacks[i] = new ulong[16];
            for (int f = 0; f < 16; f++)
            {
                stacks[i][f] = 0x00007FF800000000UL + (Next(ref seed) << 4);
            }
        }

        long n = 0;
        long tick = 0;
        var fields = new XeValue[5];
        var rfields = new XeValue[6];
        var aActions = new XeValue[5];
        var rActions = new XeValue[4];
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
                    ulong r = Next(ref seed);
                    int sched = (int)(r % 16);
                    if (sched == 5 && (r >> 8) % 10 == 0)
                    {
                        sched = 6; // scheduler 5 is busy: ~10 % fewer acquires
                    }

                    int cls = (int)((r >> 4) % 4);
                    ulong address = 0x000001A200000000UL + ((r >> 12) % 4096 * 64);
                    fields[0] = XeValue.Create(acq.Fields[0], (ulong)(cls * 7 + 3));
                    fields[1] = XeValue.Create(acq.Fields[1], (ulong)(2 + (r >> 20) % 3));
                    fields[2] = XeValue.Create(acq.Fields[2], address);
                    fields[3] = XeValue.Create(acq.Fields[3], 5UL);
                    fields[4] = XeValue.Create(acq.Fields[4], (ulong)((r >> 6) % 100_000));
                    ulong workerAddress = 0x000001D94E000000UL + ((ulong)sched * 0x22000);
                    aActions[0] = XeValue.Create(scheduler, (ulong)sched);
                    aActions[1] = XeValue.Create(worker, workerAddress);
                    aActions[2] = XeValue.Create(session, (ulong)(51 + sched));
                    aActions[3] = XeValue.Create(sequence, (ulong)++n);
                    aActions[4] = XeValue.Create(callstack, stacks[(r >> 24) % 32]);
                    tick += 10;
                    w.Write(acq, Start.AddTicks(tick), fields, aActions, sched % 8);
                    long hold = 5 + (long)((r >> 16) % 200);
                    for (int i = 0; i < 5; i++)
                    {
                        rfields[i] = XeValue.Create(rel.Fields[i], fields[i].AsUInt64());
                    }

                    rfields[5] = XeValue.Create(rel.Fields[5], (ulong)(hold / 10));
                    rActions[0] = aActions[0];
                    rActions[1] = aActions[1];
                    rActions[2] = aActions[2];
                    rActions[3] = XeValue.Create(sequence, (ulong)++n);
                    w.Write(rel, Start.AddTicks(tick + hold), rfields, rActions, sched % 8);
                    tick += hold;
                }

                if (fs.Length >= targetBytes)
                {
                    break;
                }
            }
        }

        return n;
    }

    /// <summary>page_allocated/page_freed of 8 sessions rising and falling in cycles; pages mostly 1 + 2^k.</summary>
    private static long GenerateMemory(string path, long targetBytes)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        XeFieldDefinition[] f =
        [
            XeFieldDefinition.Of("number_pages", XeBaseType.UInt64),
            XeFieldDefinition.Of("memory_clerk_name", XeBaseType.UnicodeString),
            XeFieldDefinition.Of("page_location", XeBaseType.Pointer),
        ];
        XeEventType alloc = sBuilder.AddEvent(
            sqlos,
            "page_allocated",
            Guid.Parse("3d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1"),
            f
        );
        XeEventType free = sBuilder.AddEvent(
            sqlos,
            "page_freed",
            Guid.Parse("3d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab2"),
            f
        );
        XeColumn session = sBuilder.AddAction(sqlserver, "session_id", XeBaseType.UInt16);
        XeColumn sequence = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeColumn scheduler = sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);
        XeSchema s = sBuilder.Build();
        string[] clerks = ["MEMORYCLERK_SQLQERESERVATIONS", "MEMORYCLERK_SQLBUFFERPOOL", "MEMORYCLERK_SOSNODE"];
        var outstanding = new Queue<long>[8];
        for (int i = 0; i < outstanding.Length; i++)
        {
            outstanding[i] = new Queue<long>();
        }

        ulong seed = 0x1234567890ABCDEFUL;
        long n = 0;
        long tick = 0;
        var fields = new XeValue[3];
        var actions = new XeValue[3];
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
                for (int k = 0; k < 100_000; k++)
                {
                    ulong r = Next(ref seed);
                    int sess = (int)(r % 8);
                    Queue<long> q = outstanding[sess];
                    long phase = (n / 200_000) % 2; // rise, then fall
                    bool doAlloc = q.Count == 0 || (phase == 0 ? (r >> 8) % 10 < 7 : (r >> 8) % 10 < 3);
                    long pages = (r >> 12) % 8 == 0 ? 1 : 1 + (1L << (int)((r >> 16) % 8));
                    XeEventType t = doAlloc ? alloc : free;
                    if (doAlloc)
                    {
                        q.Enqueue(pages);
                    }
                    else
                    {
                        pages = q.Dequeue();
                    }

                    fields[0] = XeValue.Create(t.Fields[0], (ulong)pages);
                    fields[1] = XeValue.Create(t.Fields[1], clerks[(r >> 20) % 10 < 8 ? 0 : 1 + (int)((r >> 24) % 2)]);
                    fields[2] = XeValue.Create(t.Fields[2], 0x000001A200000000UL + ((r >> 8) % 65536 * 8192));
                    actions[0] = XeValue.Create(session, (ulong)(51 + sess));
                    actions[1] = XeValue.Create(sequence, (ulong)++n);
                    actions[2] = XeValue.Create(scheduler, (ulong)sess);
                    tick += 7 + (long)((r >> 28) % 20);
                    w.Write(t, Start.AddTicks(tick), fields, actions, sess);
                }

                if (fs.Length >= targetBytes)
                {
                    break;
                }
            }
        }

        return n;
    }

    /// <summary>wait_info/wait_info_external Begin/End pairs on 64 workers: PREEMPTIVE_HTTP_REQUEST before every
    /// PAGEIOLATCH_SH, plus LATCH_EX and CXPACKET.</summary>
    private static long GenerateWaits(string path, long targetBytes)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        XeMap waitTypes = sBuilder.AddMap(
            sqlos,
            "wait_types",
            [
                new(36, "LATCH_EX"),
                new(66, "PAGEIOLATCH_SH"),
                new(191, "CXPACKET"),
                new(1086, "PREEMPTIVE_HTTP_REQUEST"),
            ],
            keySize: 4
        );
        XeMap opcode = sBuilder.AddMap(sqlos, "event_opcode", [new(0, "Begin"), new(1, "End")]);
        XeFieldDefinition[] f =
        [
            XeFieldDefinition.Of("wait_type", waitTypes),
            XeFieldDefinition.Of("opcode", opcode),
            XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            XeFieldDefinition.Of("signal_duration", XeBaseType.UInt64),
            XeFieldDefinition.Of("wait_resource", XeBaseType.Pointer),
        ];
        XeEventType info = sBuilder.AddEvent(sqlos, "wait_info", Guid.Parse("992caa1d-ef90-4278-9821-ebdd0180db0c"), f);
        XeEventType ext = sBuilder.AddEvent(
            sqlos,
            "wait_info_external",
            Guid.Parse("992caa1d-ef90-4278-9821-ebdd0180db0e"),
            f
        );
        XeColumn scheduler = sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);
        XeColumn worker = sBuilder.AddAction(sqlos, "worker_address", XeBaseType.Pointer);
        XeColumn session = sBuilder.AddAction(sqlserver, "session_id", XeBaseType.UInt16);
        XeColumn sequence = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeSchema s = sBuilder.Build();
        ulong seed = 0x0FEDCBA987654321UL;
        long n = 0;
        long tick = 0;
        var fields = new XeValue[5];
        var actions = new XeValue[4];
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
            void Write(XeEventType t, ulong type, bool end, long durationMs, int wk)
            {
                fields[0] = XeValue.Create(t.Fields[0], type);
                fields[1] = XeValue.Create(t.Fields[1], end ? 1UL : 0UL);
                fields[2] = XeValue.Create(t.Fields[2], (ulong)durationMs);
                fields[3] = XeValue.Create(t.Fields[3], end ? (ulong)(durationMs / 20) : 0UL);
                fields[4] = XeValue.Create(t.Fields[4], 0x000001A2B3C40000UL + (ulong)wk);
                actions[0] = XeValue.Create(scheduler, (ulong)(wk % 16));
                actions[1] = XeValue.Create(worker, 0x000001D94E000000UL + ((ulong)wk * 0x22000));
                actions[2] = XeValue.Create(session, (ulong)(51 + wk));
                actions[3] = XeValue.Create(sequence, (ulong)++n);
                w.Write(t, Start.AddTicks(tick), fields, actions, wk % 8);
            }

            while (true)
            {
                for (int k = 0; k < 25_000; k++)
                {
                    ulong r = Next(ref seed);
                    int wk = (int)(r % 64);
                    // Timestamps advance 2 µs per event (a busy server; every buffer slot spans well under the reorder
                    // window); the durations are field values, as in End events.
                    switch ((r >> 8) % 10)
                    {
                        case < 6:
                            // A read from blob storage: preemptive HTTP request, then the page I/O latch wait.
                            Write(ext, 1086, false, 0, wk);
                            tick += 20;
                            Write(ext, 1086, true, 1 + (long)((r >> 12) % 3), wk);
                            tick += 20;
                            Write(info, 66, false, 0, wk);
                            tick += 20;
                            Write(info, 66, true, 5 + (long)((r >> 16) % 60), wk);
                            break;
                        case < 9:
                            Write(info, 36, false, 0, wk);
                            tick += 20;
                            Write(info, 36, true, 100 + (long)((r >> 16) % 4000), wk);
                            break;
                        default:
                            Write(info, 191, false, 0, wk);
                            tick += 20;
                            Write(info, 191, true, 300 + (long)((r >> 16) % 2000), wk);
                            break;
                    }

                    tick += 20;
                }

                if (fs.Length >= targetBytes)
                {
                    break;
                }
            }
        }

        return n;
    }
}

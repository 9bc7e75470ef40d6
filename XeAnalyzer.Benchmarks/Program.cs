using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Throughput and memory benchmark of the native .xel reader. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- xel [--size-gb 1] [--small-gb 0.25] [--dir
/// /tmp/xebench]</c>. Generates latch_acquired-like captures with <see cref="XelWriter"/> (once; reused when present),
/// then reads each one in a child process (so peak memory is per file) decoding every field and action value.
/// </summary>
internal static class Program
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;
    private static readonly string[] DecodeModes = ["baseline decode", "new decode", "new decode-1", "new decode-enum"];

    public static int Main(string[] args)
    {
        if (args.Length >= 2 && args[0] == "read-child")
        {
            return ReadChild(args[1], args.Length > 2 ? args[2] : "decode");
        }

        if (args.Length >= 1 && args[0] is "export" or "export-child")
        {
            return ExportBenchmark.Run(args);
        }

        if (args.Length >= 3 && args[0] == "analysis-child")
        {
            return AnalysisBenchmarks.Child(args[1], args[2]);
        }

        if (args.Length >= 1 && args[0] == "analysis")
        {
            return AnalysisBenchmarks.Run(args);
        }

        if (args.Length >= 1 && args[0] is "stacks" or "stacks-child")
        {
            return StacksBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] is "stackmem" or "stackmem-child")
        {
            return StackMemoryBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] == "report")
        {
            return ReportBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] == "batch")
        {
            return BatchBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] == "symbolizer")
        {
            return SymbolizerBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] == "progress")
        {
            return ProgressBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] == "text")
        {
            return TextBenchmark.Run(args);
        }

        if (args.Length > 0 && args[0] is "resolve" or "pdb")
        {
            return ResolveBenchmark.Run(args);
        }

        if (args.Length == 0 || args[0] != "xel")
        {
            Console.Error.WriteLine(
                "usage: XeAnalyzer.Benchmarks xel [--size-gb 1] [--small-gb 0.25] [--dir /tmp/xebench]"
            );
            Console.Error.WriteLine(
                "       XeAnalyzer.Benchmarks analysis [--commands latches,memory,waits] [--size-gb 1] [--small-gb "
                    + "0.25] [--dir /tmp/xebench]"
            );
            Console.Error.WriteLine(
                "       XeAnalyzer.Benchmarks stacks | report | batch | export | resolve | pdb | symbolizer | text "
                    + "... (see docs/performance.md)"
            );
            return 2;
        }

        return XelBenchmark(args);
    }

    /// <summary>
    /// The reader benchmark: per capture size and round, today's reader (the baseline commit's own <c>read-child</c>,
    /// built in a temporary worktree) and the current one, alternating so both see the same machine load, each in a
    /// child process; then the medians, their ratio and whether the issue-12 targets are met (decode at least 2x the
    /// baseline, at most 16 bytes allocated per event on the pooled path, peak memory the same for both sizes).
    /// </summary>
    private static int XelBenchmark(string[] args)
    {
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

        Directory.CreateDirectory(dir);
        Console.WriteLine("XeAnalyzer .xel reader benchmark");
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}; "
                    + $"{BaselineBuild.Load()}"
            )
        );
        Console.WriteLine(
            "XELite comparison: not run. Microsoft.SqlServer.XEvent.XELite is not available in this environment's "
                + "package registry, and no published XELite throughput figures exist (XEL-FORMAT.md §11.5)."
        );
        Console.WriteLine(
            "current code: "
                + BaselineBuild.CurrentCode()
                + "; its modes: decode/scan = CaptureSource.Read pushing transient events from pooled buffers decoded "
                + "on "
                + XelReadOptions.DefaultDecodeThreads
                + " threads; decode-1 = the same on one thread; decode-enum = XelReader.ReadEvents (events own their "
                + "buffers)"
        );
        BaselineBuild? baseline = baselineRef is null ? null : BaselineBuild.Prepare(baselineRef, cli: false);
        if (baseline is not null)
        {
            Console.WriteLine(
                "baseline: commit "
                    + baseline.Commit
                    + " (today's single-threaded reader, XelReader.ReadEvents), "
                    + baseline.Note
            );
        }

        var peaks = new Dictionary<(double, string), List<double>>();
        var summary = new List<string>();
        bool met = true;
        foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
        {
            string path = Path.Combine(dir, string.Create(Ic, $"latch_{gb:0.###}gb.xel"));
            long target = (long)(gb * 1024 * 1024 * 1024);
            if (!File.Exists(path) || new FileInfo(path).Length < target)
            {
                var sw = Stopwatch.StartNew();
                long n = Generate(path, target);
                Console.WriteLine(
                    string.Create(
                        Ic,
                        $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in "
                            + $"{sw.Elapsed.TotalSeconds:F1} s "
                            + $"({new FileInfo(path).Length / 1048576.0 / sw.Elapsed.TotalSeconds:F0} MiB/s)"
                    )
                );
            }

            var lines = new Dictionary<string, List<string>>();
            void Record(string key, string line)
            {
                if (!lines.TryGetValue(key, out List<string>? l))
                {
                    lines[key] = l = [];
                }

                l.Add(line);
                Console.WriteLine(string.Create(Ic, $"{Path.GetFileName(path)} {key}: {line}"));
            }

            for (int round = 1; round <= rounds; round++)
            {
                Console.WriteLine(string.Create(Ic, $"round {round} ({BaselineBuild.Load()})"));
                foreach (string mode in new[] { "decode", "scan" })
                {
                    if (baseline is not null)
                    {
                        Record(
                            "baseline " + mode,
                            ChildProcess.RunTimed(baseline.BenchmarkDll, "read-child", path, mode)
                        );
                    }

                    Record("new " + mode, ChildProcess.RunTimed(null, "read-child", path, mode));
                }

                Record("new decode-1", ChildProcess.RunTimed(null, "read-child", path, "decode-1"));
                Record("new decode-enum", ChildProcess.RunTimed(null, "read-child", path, "decode-enum"));
            }

            double Med(string key, string unit) =>
                lines.TryGetValue(key, out List<string>? l)
                    ? BaselineBuild.Median(l.Select(x => BaselineBuild.Figure(x, unit)))
                    : double.NaN;
            string Spr(string key, string unit) =>
                lines.TryGetValue(key, out List<string>? l)
                    ? BaselineBuild.Spread(l.Select(x => BaselineBuild.Figure(x, unit)))
                    : "n/a";
            foreach (string mode in new[] { "decode", "scan" })
            {
                double b = Med("baseline " + mode, "M events/s"),
                    n = Med("new " + mode, "M events/s");
                bool ok = mode != "decode" || double.IsNaN(b) || n / b >= 2;
                met &= ok;
                summary.Add(
                    string.Create(
                        Ic,
                        $"{Path.GetFileName(path)} {mode}: baseline {b:F2} M events/s (runs "
                            + $"{Spr("baseline " + mode, "M events/s")}), new {n:F2} (runs "
                            + $"{Spr("new " + mode, "M events/s")}): {n / b:F2}x"
                    ) + (mode == "decode" ? (ok ? " (target >= 2x: met)" : " (target >= 2x: NOT met)") : string.Empty)
                );
            }

            foreach (string mode in new[] { "decode", "scan" })
            {
                double b = BaselineBuild.Median(
                        lines.GetValueOrDefault("baseline " + mode, []).Select(l => RunTable.CpuBound(l))
                    ),
                    n = BaselineBuild.Median(
                        lines.GetValueOrDefault("new " + mode, []).Select(l => RunTable.CpuBound(l))
                    );
                summary.Add(
                    string.Create(
                        Ic,
                        $"{Path.GetFileName(path)} {mode}, CPU-bound estimate (events / max(busiest thread CPU, "
                            + $"process CPU / {Environment.ProcessorCount}), what an otherwise idle machine allows): "
                            + $"baseline {b:F2} M events/s, new {n:F2}: {n / b:F2}x"
                    )
                );
            }

            double alloc = Med("new decode", "B/event");
            met &= alloc <= 16;
            summary.Add(
                string.Create(
                    Ic,
                    $"{Path.GetFileName(path)} allocated per event: baseline {Med("baseline decode", "B/event"):F1} "
                        + $"B, new pooled path {alloc:F1} B (target <= 16: {(alloc <= 16 ? "met" : "NOT met")}), new "
                        + $"decode-enum {Med("new decode-enum", "B/event"):F1} B"
                )
            );
            foreach (string who in new[] { "baseline decode", "new decode", "new decode-enum" })
            {
                if (lines.ContainsKey(who))
                {
                    if (!peaks.TryGetValue((gb, who), out List<double>? p))
                    {
                        peaks[(gb, who)] = p = [];
                    }

                    p.Add(Med(who, "MiB; gen2"));
                }
            }

            string checks = string.Join(
                ", ",
                DecodeModes
                    .Where(lines.ContainsKey)
                    .Select(k =>
                        lines[k]
                            .Select(l =>
                                System.Text.RegularExpressions.Regex.Match(l, "checksum ([0-9A-F]+)").Groups[1].Value
                            )
                            .Distinct()
                            .Single()
                    )
                    .Distinct()
            );
            summary.Add(
                Path.GetFileName(path)
                    + " decode checksums of every build and mode: "
                    + checks
                    + (checks.Contains(',', StringComparison.Ordinal) ? " (DIFFER)" : " (equal)")
            );
        }

        foreach (string who in new[] { "baseline decode", "new decode", "new decode-enum" })
        {
            double small = peaks.GetValueOrDefault((smallGb, who))?.FirstOrDefault() ?? double.NaN,
                large = peaks.GetValueOrDefault((sizeGb, who))?.FirstOrDefault() ?? double.NaN;
            summary.Add(
                string.Create(
                    Ic,
                    $"peak working set, {who}: {smallGb:0.###} GB {small:F0} MiB, {sizeGb:0.###} GB {large:F0} MiB"
                )
            );
        }

        Console.WriteLine();
        Console.WriteLine("summary (medians of " + rounds.ToString(Ic) + " rounds; " + BaselineBuild.Load() + ")");
        foreach (string line in summary)
        {
            Console.WriteLine("  " + line);
        }

        Console.WriteLine(met ? "reader targets: met" : "reader targets: NOT met");
        return 0;
    }

    private static int ReadChild(string path, string mode)
    {
        long length = new FileInfo(path).Length;
        long allocatedBefore = GC.GetTotalAllocatedBytes(true);
        var sw = Stopwatch.StartNew();
        var decoder = new DecodingConsumer(mode.StartsWith("scan", StringComparison.Ordinal));
        if (mode.EndsWith("-enum", StringComparison.Ordinal))
        {
            foreach (XEvent e in XelReader.ReadEvents(path))
            {
                decoder.Add(e);
            }
        }
        else
        {
            CaptureSource source = CaptureSource.Open(
                [path],
                new CaptureReadOptions
                {
                    DecodeThreads = mode.EndsWith("-1", StringComparison.Ordinal)
                        ? 1
                        : XelReadOptions.DefaultDecodeThreads,
                }
            );
            source.Read([decoder]);
        }

        sw.Stop();
        long allocated = GC.GetTotalAllocatedBytes(true) - allocatedBefore;
        long events = decoder.Events;
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        Console.WriteLine(
            string.Create(
                Ic,
                $"{events:N0} events in {s:F2} s = {events / s / 1e6:F2} M events/s, {length / 1048576.0 / s:F0} "
                    + $"MiB/s; allocated {allocated / 1048576.0:F1} MiB ({(double)allocated / Math.Max(1, events):F1} "
                    + $"B/event); peak working set {me.PeakWorkingSet64 / 1048576.0:F0} MiB; gen2 GCs "
                    + $"{GC.CollectionCount(2)} (checksum {decoder.Checksum:X})"
            ) + ChildProcess.CpuNote()
        );
        return 0;
    }

    /// <summary>Decodes every field and action of every event (or, scanning, only counts them), as the baseline's
    /// read-child does.</summary>
    private sealed class DecodingConsumer(bool scanOnly) : ICaptureConsumer
    {
        private readonly ulong[] _frames = new ulong[256];
        private XeEventType? _lastType;
        private XeActionSet? _lastSet;
        private int _fieldCount;
        private int _callstackIndex = -1;
        private ulong _sum;
        private ulong _hash = 14695981039346656037UL;

        public long Events { get; private set; }

        public ulong Checksum => scanOnly ? 14695981039346656037UL : _sum ^ _hash;

        public bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public void Add(XEvent e)
        {
            Events++;
            if (scanOnly)
            {
                return;
            }

            if (!ReferenceEquals(e.EventType, _lastType))
            {
                _lastType = e.EventType;
                _fieldCount = e.FieldCount;
            }

            for (int i = 0; i < _fieldCount; i++)
            {
                _sum = unchecked(_sum + e.GetField(i).AsUInt64());
            }

            if (!ReferenceEquals(e.ActionSet, _lastSet))
            {
                _lastSet = e.ActionSet;
                _callstackIndex = _lastSet.IndexOf("callstack");
            }

            for (int i = 0; i < e.ActionCount; i++)
            {
                if (i == _callstackIndex)
                {
                    int n = e.GetAction(i).CopyCallstackTo(_frames);
                    for (int f = 0; f < n; f++)
                    {
                        _hash = unchecked((_hash ^ _frames[f]) * 1099511628211UL);
                    }
                }
                else
                {
                    _sum = unchecked(_sum + e.GetAction(i).AsUInt64());
                }
            }
        }
    }

    internal static long Generate(string path, long targetBytes)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        string[] classNames =
        [
            "BUFFER",
            "ACCESS_METHODS_HOBT_VIRTUAL_ROOT",
            "FGCB_ADD_REMOVE",
            "LOG_MANAGER",
            "TRACE_CONTROLLER",
            "DATABASE_MIRRORING_CONNECTION",
        ];
        XeMap latchClass = sBuilder.AddMap(
            sqlserver,
            "latch_class",
            classNames.Select((n, i) => new XeMapEntry((uint)(i * 7), n))
        );
        XeMap latchMode = sBuilder.AddMap(
            sqlserver,
            "latch_mode",
            [new(0, "NL"), new(1, "KP"), new(2, "SH"), new(3, "UP"), new(4, "EX"), new(5, "DT")]
        );
        XeEventType latch = sBuilder.AddEvent(
            sqlserver,
            "latch_acquired",
            new Guid("2d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1"),
            [
                XeFieldDefinition.Of("class", latchClass),
                XeFieldDefinition.Of("mode", latchMode),
                XeFieldDefinition.Of("address", XeBaseType.Pointer),
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ]
        );
        XeColumn scheduler = sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);
        XeColumn session = sBuilder.AddAction(sqlserver, "session_id", XeBaseType.UInt16);
        XeColumn sequence = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeColumn callstack = sBuilder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0);
        XeSchema s = sBuilder.Build();

        // 64 distinct 24-frame stacks.
        var stacks = new ulong[64][];
        ulong seed = 0x9E3779B97F4A7C15UL;
        for (int i = 0; i < stacks.Length; i++)
        {
            stacks[i] = new ulong[24];
            for (int f = 0; f < 24; f++)
            {
                seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
                stacks[i][f] = 0x00007FF800000000UL + (seed >> 36);
            }
        }

        DateTime start = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        long n = 0;
        XeValue[] fields = new XeValue[7];
        XeValue[] actions = new XeValue[4];
        using (
            XelWriter w = XelWriter.Create(
                path,
                s,
                new XelWriterOptions
                {
                    StartTimeUtc = start,
                    BufferSize = 1024 * 1024,
                    Partitions = 4,
                }
            )
        )
        {
            using var fs = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            while (true)
            {
                for (int k = 0; k < 100_000; k++, n++)
                {
                    seed = unchecked((seed * 6364136223846793005UL) + 1442695040888963407UL);
                    uint r = (uint)(seed >> 32);
                    fields[0] = XeValue.Create(latch.Fields[0], (ulong)((r % 6) * 7));
                    fields[1] = XeValue.Create(latch.Fields[1], (ulong)((r >> 4) % 6));
                    fields[2] = XeValue.Create(latch.Fields[2], 0x000001A200000000UL + ((ulong)(r & 0xFFFF) << 13));
                    fields[3] = XeValue.Create(latch.Fields[3], (ulong)(5 + ((r >> 8) % 20)));
                    fields[4] = XeValue.Create(latch.Fields[4], 1UL);
                    fields[5] = XeValue.Create(latch.Fields[5], (ulong)(r % 1_000_000));
                    fields[6] = XeValue.Create(latch.Fields[6], (ulong)((r >> 12) % 5000));
                    actions[0] = XeValue.Create(scheduler, (ulong)(r % 16));
                    actions[1] = XeValue.Create(session, (ulong)(51 + ((r >> 16) % 200)));
                    actions[2] = XeValue.Create(sequence, (ulong)n + 1);
                    actions[3] = XeValue.Create(callstack, stacks[(r >> 20) % 64]);
                    w.Write(latch, start.AddTicks(n * 10), fields, actions, (int)(r % 4));
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

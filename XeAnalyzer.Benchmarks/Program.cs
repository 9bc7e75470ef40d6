using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Throughput and memory benchmark of the native .xel reader. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- xel [--size-gb 1] [--small-gb 0.25] [--dir /tmp/xebench]</c>.
/// Generates latch_acquired-like captures with <see cref="XelWriter"/> (once; reused when present), then reads each one in a
/// child process (so peak memory is per file) decoding every field and action value.
/// </summary>
internal static class Program
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Main(string[] args)
    {
        if (args.Length >= 2 && args[0] == "read-child")
        {
            return ReadChild(args[1], args.Length > 2 && args[2] == "scan");
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

        if (args.Length > 0 && args[0] == "batch")
        {
            return BatchBenchmark.Run(args);
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
            Console.Error.WriteLine("usage: XeAnalyzer.Benchmarks xel [--size-gb 1] [--small-gb 0.25] [--dir /tmp/xebench]");
            Console.Error.WriteLine("       XeAnalyzer.Benchmarks analysis [--commands latches,memory,waits] [--size-gb 1] [--small-gb 0.25] [--dir /tmp/xebench]");
            Console.Error.WriteLine("       XeAnalyzer.Benchmarks export | resolve | pdb | text ... (see README, Performance)");
            return 2;
        }

        double sizeGb = 1, smallGb = 0.25;
        string dir = Path.Combine(Path.GetTempPath(), "xebench");
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--size-gb": sizeGb = double.Parse(args[i + 1], Ic); break;
                case "--small-gb": smallGb = double.Parse(args[i + 1], Ic); break;
                case "--dir": dir = args[i + 1]; break;
                default: Console.Error.WriteLine("unknown option " + args[i]); return 2;
            }
        }

        Directory.CreateDirectory(dir);
        Console.WriteLine("XeAnalyzer .xel reader benchmark");
        Console.WriteLine(string.Create(Ic, $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}"));
        Console.WriteLine("XELite comparison: not run. Microsoft.SqlServer.XEvent.XELite is not available in this environment's package registry, and no published XELite throughput figures exist (XEL-FORMAT.md §11.5).");
        foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
        {
            string path = Path.Combine(dir, string.Create(Ic, $"latch_{gb:0.###}gb.xel"));
            long target = (long)(gb * 1024 * 1024 * 1024);
            if (!File.Exists(path) || new FileInfo(path).Length < target)
            {
                var sw = Stopwatch.StartNew();
                long n = Generate(path, target);
                Console.WriteLine(string.Create(Ic, $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in {sw.Elapsed.TotalSeconds:F1} s ({new FileInfo(path).Length / 1048576.0 / sw.Elapsed.TotalSeconds:F0} MiB/s)"));
            }

            foreach (string mode in new[] { "decode", "scan" })
            {
                for (int run = 1; run <= 2; run++)
                {
                    string line = ChildProcess.Run("read-child", path, mode);
                    Console.WriteLine(string.Create(Ic, $"{Path.GetFileName(path)} {mode} run {run}: {line}"));
                }
            }
        }

        return 0;
    }

    private static int ReadChild(string path, bool scanOnly)
    {
        long length = new FileInfo(path).Length;
        long allocatedBefore = GC.GetTotalAllocatedBytes(true);
        var sw = Stopwatch.StartNew();
        long events = 0;
        ulong sum = 0;
        ulong hash = 14695981039346656037UL;
        int[]? fieldSlots = null;
        XeEventType? lastType = null;
        XeActionSet? lastSet = null;
        int callstackIndex = -1;
        Span<ulong> frames = stackalloc ulong[256];
        foreach (XEvent e in XelReader.ReadEvents(path))
        {
            events++;
            if (scanOnly)
            {
                continue;
            }

            if (!ReferenceEquals(e.EventType, lastType))
            {
                lastType = e.EventType;
                fieldSlots = [.. Enumerable.Range(0, e.FieldCount)];
            }

            for (int i = 0; i < fieldSlots!.Length; i++)
            {
                sum = unchecked(sum + e.GetField(i).AsUInt64());
            }

            if (!ReferenceEquals(e.ActionSet, lastSet))
            {
                lastSet = e.ActionSet;
                callstackIndex = lastSet.IndexOf("callstack");
            }

            for (int i = 0; i < e.ActionCount; i++)
            {
                if (i == callstackIndex)
                {
                    int n = e.GetAction(i).CopyCallstackTo(frames);
                    for (int f = 0; f < n; f++)
                    {
                        hash = unchecked((hash ^ frames[f]) * 1099511628211UL);
                    }
                }
                else
                {
                    sum = unchecked(sum + e.GetAction(i).AsUInt64());
                }
            }
        }

        sw.Stop();
        long allocated = GC.GetTotalAllocatedBytes(true) - allocatedBefore;
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        Console.WriteLine(string.Create(Ic,
            $"{events:N0} events in {s:F2} s = {events / s / 1e6:F2} M events/s, {length / 1048576.0 / s:F0} MiB/s; allocated {allocated / 1048576.0:F0} MiB ({(double)allocated / Math.Max(1, events):F0} B/event); peak working set {me.PeakWorkingSet64 / 1048576.0:F0} MiB; gen2 GCs {GC.CollectionCount(2)} (checksum {sum ^ hash:X})"));
        return 0;
    }

    internal static long Generate(string path, long targetBytes)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        string[] classNames = ["BUFFER", "ACCESS_METHODS_HOBT_VIRTUAL_ROOT", "FGCB_ADD_REMOVE", "LOG_MANAGER", "TRACE_CONTROLLER", "DATABASE_MIRRORING_CONNECTION"];
        XeMap latchClass = sBuilder.AddMap(sqlserver, "latch_class", classNames.Select((n, i) => new XeMapEntry((uint)(i * 7), n)));
        XeMap latchMode = sBuilder.AddMap(sqlserver, "latch_mode", [new(0, "NL"), new(1, "KP"), new(2, "SH"), new(3, "UP"), new(4, "EX"), new(5, "DT")]);
        XeEventType latch = sBuilder.AddEvent(sqlserver, "latch_acquired", new Guid("2d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1"),
        [
            XeFieldDefinition.Of("class", latchClass),
            XeFieldDefinition.Of("mode", latchMode),
            XeFieldDefinition.Of("address", XeBaseType.Pointer),
            XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
            XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
            XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
            XeFieldDefinition.Of("duration", XeBaseType.UInt64),
        ]);
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
        using (XelWriter w = XelWriter.Create(path, s, new XelWriterOptions { StartTimeUtc = start, BufferSize = 1024 * 1024, Partitions = 4 }))
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

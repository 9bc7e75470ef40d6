using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Export;
using XeAnalyzer.Export.Parquet;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Throughput and memory of <c>xeanalyze export --format parquet</c>'s library path. Usage:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- export [--size-gb 1] [--small-gb 0.25] [--dir /tmp/xebench]</c>.
/// Uses (or generates, as the <c>xel</c> mode does) latch_acquired captures, then exports each in a child process (so peak
/// memory is per export) with GZIP and with uncompressed pages, twice each.
/// </summary>
internal static class ExportBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        if (args.Length >= 4 && args[0] == "export-child")
        {
            return Child(args[1], args[2], args[3]);
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
        Console.WriteLine("XeAnalyzer Parquet export benchmark");
        Console.WriteLine(string.Create(Ic, $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, OS {Environment.OSVersion}"));
        foreach (double gb in new[] { smallGb, sizeGb }.Distinct())
        {
            string path = Path.Combine(dir, string.Create(Ic, $"latch_{gb:0.###}gb.xel"));
            long target = (long)(gb * 1024 * 1024 * 1024);
            if (!File.Exists(path) || new FileInfo(path).Length < target)
            {
                var sw = Stopwatch.StartNew();
                long n = Program.Generate(path, target);
                Console.WriteLine(string.Create(Ic, $"generated {path}: {new FileInfo(path).Length / 1048576.0:F0} MiB, {n:N0} events in {sw.Elapsed.TotalSeconds:F1} s"));
            }

            foreach (string compression in new[] { "gzip", "none" })
            {
                for (int run = 1; run <= 2; run++)
                {
                    string outDir = Path.Combine(dir, "export-out");
                    string line = ChildProcess.Run("export-child", path, outDir, compression);
                    Console.WriteLine(string.Create(Ic, $"{Path.GetFileName(path)} export {compression} run {run}: {line}"));
                    Directory.Delete(outDir, recursive: true);
                }
            }
        }

        return 0;
    }

    private static int Child(string path, string outDir, string compression)
    {
        long length = new FileInfo(path).Length;
        long allocatedBefore = GC.GetTotalAllocatedBytes(true);
        var options = new XelExportOptions
        {
            Parquet = new ParquetWriterOptions { Compression = compression == "none" ? ParquetCompression.None : ParquetCompression.Gzip },
        };
        var sw = Stopwatch.StartNew();
        XelExportResult result = XelParquetExporter.Export([path], outDir, options);
        sw.Stop();
        long allocated = GC.GetTotalAllocatedBytes(true) - allocatedBefore;
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double s = sw.Elapsed.TotalSeconds;
        long written = result.Tables.Sum(t => t.Bytes);
        Console.WriteLine(string.Create(Ic,
            $"{result.Events:N0} rows in {s:F2} s = {result.Events / s / 1e6:F2} M rows/s, {length / 1048576.0 / s:F0} MiB/s of .xel in; wrote {written / 1048576.0:F0} MiB in {result.Tables.Sum(t => t.RowGroups)} row groups ({written / 1048576.0 / s:F0} MiB/s out); allocated {allocated / 1048576.0:F0} MiB; peak working set {me.PeakWorkingSet64 / 1048576.0:F0} MiB; gen2 GCs {GC.CollectionCount(2)}"));
        return 0;
    }
}

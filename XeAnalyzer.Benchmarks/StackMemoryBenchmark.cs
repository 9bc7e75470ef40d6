using System.Diagnostics;
using System.Globalization;
using System.Text;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Peak memory of stack bucketing on histogram XML with N distinct one-frame slots (issue 13's case):
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- stackmem [--slots 250000,1000000,2000000] [--dir /tmp/xestackmem]</c>.
/// Each file is bucketed in a child process as <c>xeanalyze stacks FILE --offline --top 1</c> does (no PDB: every frame stays
/// <c>module+offset</c>), printing the peak working set, the XML's size and their ratio.
/// </summary>
internal static class StackMemoryBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        if (args[0] == "stackmem-child")
        {
            return Child(args[1]);
        }

        int[] slots = [250_000, 1_000_000, 2_000_000];
        string dir = Path.Combine(Path.GetTempPath(), "xestackmem");
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--slots": slots = [.. args[i + 1].Split(',').Select(s => int.Parse(s, Ic))]; break;
                case "--dir": dir = args[i + 1]; break;
                default: Console.Error.WriteLine("unknown option " + args[i]); return 2;
            }
        }

        Directory.CreateDirectory(dir);
        Console.WriteLine("XeAnalyzer stack-bucketing memory benchmark: histogram XML of N distinct one-frame slots, bucketed offline in a child process");
        Console.WriteLine(string.Create(Ic, $"runtime {Environment.Version}, {Environment.ProcessorCount} cores, default distinct-stack cap {StackBucketOptions.Default.MaxDistinctStacks:N0}"));
        foreach (int n in slots)
        {
            string path = Path.Combine(dir, "slots_" + n.ToString(Ic) + ".xml");
            if (!File.Exists(path))
            {
                Write(path, n);
            }

            Console.WriteLine(string.Create(Ic, $"{n:N0} slots, {new FileInfo(path).Length / 1048576.0:F1} MiB of XML: {ChildProcess.Run("stackmem-child", path)}"));
        }

        return 0;
    }

    private static void Write(string path, int slots)
    {
        var rng = new Random(slots);
        using var w = new StreamWriter(path, false, new UTF8Encoding(false), 1 << 20) { NewLine = "\n" };
        w.WriteLine("<HistogramTarget truncated=\"0\" buckets=\"16384\">");
        for (int i = 0; i < slots; i++)
        {
            w.Write("<Slot count=\"");
            w.Write(rng.Next(1, 1000).ToString(Ic));
            w.Write("\"><value>sqldk.dll+0x");
            w.Write((0x10000UL + ((ulong)i * 16)).ToString("X16", Ic));
            w.WriteLine("</value></Slot>");
        }

        w.WriteLine("</HistogramTarget>");
    }

    private static int Child(string path)
    {
        var sw = Stopwatch.StartNew();
        using var resolver = new CallstackResolver(new CallstackResolverOptions { Offline = true, SymbolPath = SymbolPath.Parse(Path.GetDirectoryName(path)!) });
        var diagnostics = new CaptureDiagnostics();
        AnalysisOutcome<StackBucketResult> o = new StackBucketAnalysis().Analyze(CaptureSource.Open([path]), new AnalysisContext(diagnostics: diagnostics, resolver: resolver));
        string text = OutputFormats.ToText(new StackBucketDocument(o.Result.Filter(1, 0)));
        sw.Stop();
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        long peak = me.PeakWorkingSet64;
        long xml = new FileInfo(path).Length;
        Console.WriteLine(string.Create(Ic,
            $"peak working set {peak / 1048576.0:F0} MiB ({(double)peak / xml:F1}x the XML, {(double)peak / o.Result.DistinctRawStacks:F0} bytes per distinct stack); {o.Result.DistinctRawStacks:N0} distinct stacks, {o.Result.UntrackedEvents:N0} events over the cap; status {o.Status}; {sw.Elapsed.TotalSeconds:F1} s; text {text.Length:N0} chars"));
        return 0;
    }
}

using System.Diagnostics;
using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// Throughput of <see cref="StackTextReader"/> on a generated 750,000 stacks × 25 module+offset frames input (about 600 MB),
/// written to a temporary file first. Explicit: run it on purpose, in Release:
/// <c>dotnet test XeAnalyzer.Tests -c Release --filter "FullyQualifiedName~ParsePerformanceTests" --logger "console;verbosity=detailed"</c>.
/// </summary>
[Explicit("Writes about 1.2 GB of temporary files and takes tens of seconds; a measurement, not a check.")]
[Category("Performance")]
public class ParsePerformanceTests
{
    private const int Stacks = 750_000;
    private const int FramesPerStack = 25;

    [TestCase(GeneratedInput.Shape.Histogram)]
    [TestCase(GeneratedInput.Shape.PlainText)]
    public void ReadStacks_Throughput_750kStacksOf25Frames(GeneratedInput.Shape shape)
    {
        string path = Path.Combine(Path.GetTempPath(), $"xea-perf-{shape}-{Guid.NewGuid():N}.txt");
        try
        {
            using (var input = new GeneratedInput(shape, Stacks, FramesPerStack))
            using (var output = new StreamWriter(path, false, new UTF8Encoding(false), 1 << 20))
            {
                char[] buffer = new char[1 << 16];
                int n;
                while ((n = input.Read(buffer, 0, buffer.Length)) > 0)
                {
                    output.Write(buffer, 0, n);
                }
            }

            double megabytes = new FileInfo(path).Length / 1e6;
            for (int pass = 1; pass <= 2; pass++)
            {
                GC.Collect();
                using var process = Process.GetCurrentProcess();
                TimeSpan cpu0 = process.TotalProcessorTime;
                long frames = 0, stacks = 0;
                var sw = Stopwatch.StartNew();
                using (StackTextReader reader = StackTextReader.OpenFile(path))
                {
                    foreach (Callstack s in reader.ReadStacks())
                    {
                        stacks++;
                        frames += s.Frames.Length;
                    }
                }

                sw.Stop();
                process.Refresh();
                double cpu = (process.TotalProcessorTime - cpu0).TotalSeconds;
                Assert.That(frames, Is.EqualTo((long)Stacks * FramesPerStack));
                TestContext.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"{shape} pass {pass}: {megabytes:F0} MB, {stacks} stacks, {frames} frames in {sw.Elapsed.TotalSeconds:F2} s wall / {cpu:F2} s CPU = {frames / sw.Elapsed.TotalSeconds / 1e6:F1} M frames/s, {megabytes / sw.Elapsed.TotalSeconds:F0} MB/s"));
            }
        }
        finally
        {
            File.Delete(path);
        }
    }
}

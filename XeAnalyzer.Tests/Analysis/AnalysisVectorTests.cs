using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>The analyses on the shared real-world vectors (ignored when ../shared/vectors is absent).</summary>
public sealed class AnalysisVectorTests
{
    [Test]
    public void WaitAnalysis_SummarisesTheRealWaitInfoEvent_OfSqlHealth()
    {
        string path = TestPaths.RequireVector("xel", "sqlhealth.xel");

        // Expected values straight from the reader, independently of the analysis.
        XEvent[] raw = [.. XelReader.ReadEvents(path).Where(e => e.Name == "wait_info")];
        Assert.That(raw, Has.Length.EqualTo(1), "SOURCES.md: one sqlos.wait_info event");
        XEvent w = raw[0];
        string type = w.GetField("wait_type").MapText;
        bool end = w.GetField("opcode").MapText == "End";
        long duration = (long)w.GetField("duration").AsUInt64();

        WaitAnalysisResult r = new WaitAnalysis().Analyze(CaptureSource.Open([path])).Result;
        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.WaitInfoEvents, Is.EqualTo(1));
        Assert.That(r.ByWaitType.Single().WaitType, Is.EqualTo(type));
        Assert.That(r.Waits, Is.EqualTo(end ? 1 : 0));
        Assert.That(r.ByWaitType.Single().TotalDurationMs, Is.EqualTo(end ? duration : 0));
        Assert.That(r.HasPrecedence, Is.False, "the event has no worker action");
    }

    [Test]
    public void Latches_ExitsFourNamingTheRingBufferEvents_ForOomRingBuffer()
    {
        string path = TestPaths.RequireVector("target-xml", "oom_ring_buffer.xml");
        var names = TargetDataReader
            .ReadFile(path)
            .OfType<TargetEvent>()
            .GroupBy(e => e.Package + "." + e.Name)
            .ToDictionary(g => g.Key, g => g.Count());

        (int exit, string output, string err) = CliRunner.Run("latches", path);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(output, Is.Empty);
        foreach ((string name, int count) in names)
        {
            Assert.That(err, Does.Contain(name + " (" + count + ")"));
        }
    }

    [Test]
    public void CaptureSource_ConvertsEveryRingBufferEvent_OfOomRingBuffer()
    {
        string path = TestPaths.RequireVector("target-xml", "oom_ring_buffer.xml");
        TargetEvent[] expected = [.. TargetDataReader.ReadFile(path).OfType<TargetEvent>()];
        XEvent[] converted = [.. CaptureSource.Open([path]).ReadEvents()];
        Assert.That(converted, Has.Length.EqualTo(expected.Length));
        for (int i = 0; i < expected.Length; i++)
        {
            Assert.That(converted[i].Name, Is.EqualTo(expected[i].Name));
            Assert.That(converted[i].TimestampOffset, Is.EqualTo(expected[i].Timestamp));
            foreach (EventField f in expected[i].Fields)
            {
                XeValue v = converted[i].GetField(f.Name);
                if (f.TypeName == "boolean")
                {
                    Assert.That(v.AsBoolean(), Is.EqualTo(bool.Parse(f.ValueText!)), f.Name);
                }
                else
                {
                    Assert.That(
                        f.MapText is null ? v.ToString() : v.MapText,
                        Is.EqualTo(f.MapText ?? f.ValueText),
                        f.Name
                    );
                }
            }
        }
    }
}

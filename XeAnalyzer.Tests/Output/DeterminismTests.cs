using System.Globalization;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>Every writer gives the same bytes for the same input, whatever the current culture.</summary>
public class DeterminismTests
{
    public static IEnumerable<IReportWriter> ReportWriters() => OutputFormats.ReportWriters;

    public static IEnumerable<ICallTreeWriter> TreeWriters() =>
        [.. OutputFormats.CallTreeWriters, new FlameGraphSvgWriter(new FlameGraphOptions { Inverted = true, ChildOrder = FlameChildOrder.HeaviestFirst })];

    [TestCaseSource(nameof(ReportWriters))]
    public void ReportWriter_WritesSameBytes_UnderTurkishAndGermanCultures(IReportWriter writer)
    {
        ReportDocument report = SampleReport.Build();
        byte[] invariant = WithCulture(CultureInfo.InvariantCulture, () => Write(writer, report));
        foreach (CultureInfo culture in HostileCultures())
        {
            byte[] other = WithCulture(culture, () => Write(writer, report));
            Assert.That(other, Is.EqualTo(invariant), $"{writer.Format} under {culture.Name}");
        }

        Assert.That(Write(writer, report), Is.EqualTo(invariant), "a second run gives the same bytes");
    }

    [TestCaseSource(nameof(TreeWriters))]
    public void CallTreeWriter_WritesSameBytes_UnderTurkishAndGermanCultures(ICallTreeWriter writer)
    {
        foreach (CallTree tree in new[] { SampleReport.LatchTree(), SampleReport.WaitDiffTree() })
        {
            byte[] invariant = WithCulture(CultureInfo.InvariantCulture, () => Write(writer, tree));
            foreach (CultureInfo culture in HostileCultures())
            {
                Assert.That(WithCulture(culture, () => Write(writer, tree)), Is.EqualTo(invariant), $"{writer.Format} under {culture.Name}");
            }
        }
    }

    [Test]
    public void ChartSvg_WritesSameBytes_UnderGermanCulture()
    {
        string bar = ChartSvgWriter.ToSvg(SampleReport.SchedulerChart());
        string line = ChartSvgWriter.ToSvg(SampleReport.MemoryChart());
        CultureInfo de = HostileCultures()[0];
        Assert.That(WithCulture(de, () => ChartSvgWriter.ToSvg(SampleReport.SchedulerChart())), Is.EqualTo(bar));
        Assert.That(WithCulture(de, () => ChartSvgWriter.ToSvg(SampleReport.MemoryChart())), Is.EqualTo(line));
        Assert.That(bar, Does.Contain("44,1"), "grouping uses the invariant comma");
    }

    [Test]
    public void Writers_WouldDiffer_IfTheyUsedTheCurrentCulture()
    {
        // Proves the culture switch above is effective: culture-sensitive formatting of the same value differs.
        CultureInfo de = HostileCultures()[0];
        Assert.That(WithCulture(de, () => 1234.5.ToString("N1", CultureInfo.CurrentCulture)), Is.Not.EqualTo(1234.5.ToString("N1", CultureInfo.InvariantCulture)));
    }

    [Test]
    public void OutputFormats_FindsEveryWriter_ByName()
    {
        Assert.That(OutputFormats.ReportWriters.Select(w => w.Format), Is.EqualTo(new[] { "text", "csv", "json", "html" }));
        Assert.That(OutputFormats.CallTreeWriters.Select(w => w.Format), Is.EqualTo(new[] { "folded", "speedscope", "svg" }));
        Assert.That(OutputFormats.FindReportWriter("HTML"), Is.InstanceOf<HtmlReportWriter>());
        Assert.That(OutputFormats.FindCallTreeWriter("speedscope"), Is.InstanceOf<SpeedscopeWriter>());
        Assert.That(OutputFormats.FindReportWriter("pdf"), Is.Null);
    }
}

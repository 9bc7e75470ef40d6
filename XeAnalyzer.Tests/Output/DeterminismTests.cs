using System.Globalization;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>Every writer gives the same bytes for the same input, whatever the current culture.</summary>
internal sealed class DeterminismTests
{
    public static IEnumerable<IReportWriter> ReportWriters() =>
        OutputFormats.Writers.Where(w => w.View != DocumentView.Figure);

    public static IEnumerable<TestCaseData> TreeWriters() =>
        [
            .. OutputFormats
                .Writers.Where(w => w.View == DocumentView.Figure)
                .Select(w => new TestCaseData(w, null).SetArgDisplayNames(w.Format)),
            new TestCaseData(
                OutputFormats.Get("svg"),
                new FlameGraphOptions { Inverted = true, ChildOrder = FlameChildOrder.HeaviestFirst }
            ).SetArgDisplayNames("svg-inverted"),
        ];

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
    public void FlameWriter_WritesSameBytes_UnderTurkishAndGermanCultures(
        IReportWriter writer,
        FlameGraphOptions? options
    )
    {
        foreach (CallTree tree in new[] { SampleReport.LatchTree(), SampleReport.WaitDiffTree() })
        {
            byte[] invariant = WithCulture(CultureInfo.InvariantCulture, () => Write(writer, tree, options));
            foreach (CultureInfo culture in HostileCultures())
            {
                Assert.That(
                    WithCulture(culture, () => Write(writer, tree, options)),
                    Is.EqualTo(invariant),
                    $"{writer.Format} under {culture.Name}"
                );
            }
        }
    }

    [Test]
    public void ChartSvg_WritesSameBytes_UnderGermanCulture()
    {
        string bar = ChartSvg.ToSvg(SampleReport.SchedulerChart());
        string line = ChartSvg.ToSvg(SampleReport.MemoryChart());
        CultureInfo de = HostileCultures()[0];
        Assert.That(WithCulture(de, () => ChartSvg.ToSvg(SampleReport.SchedulerChart())), Is.EqualTo(bar));
        Assert.That(WithCulture(de, () => ChartSvg.ToSvg(SampleReport.MemoryChart())), Is.EqualTo(line));
        Assert.That(bar, Does.Contain("44,1"), "grouping uses the invariant comma");
    }

    [Test]
    public void Writers_WouldDiffer_IfTheyUsedTheCurrentCulture()
    {
        // Proves the culture switch above is effective: culture-sensitive formatting of the same value differs.
        CultureInfo de = HostileCultures()[0];
        Assert.That(
            WithCulture(de, () => 1234.5.ToString("N1", CultureInfo.CurrentCulture)),
            Is.Not.EqualTo(1234.5.ToString("N1", CultureInfo.InvariantCulture))
        );
    }

    [Test]
    public void OutputFormats_IsOneRegistry_FindingEveryWriterByName()
    {
        Assert.That(
            OutputFormats.Names,
            Is.EqualTo(new[] { "text", "csv", "json", "html", "svg", "folded", "speedscope" })
        );
        Assert.That(
            OutputFormats.Writers.Select(w => w.Format).Distinct(StringComparer.OrdinalIgnoreCase).Count(),
            Is.EqualTo(OutputFormats.Writers.Count),
            "one writer per format"
        );
        Assert.That(OutputFormats.Find("HTML"), Is.InstanceOf<HtmlReportWriter>());
        Assert.That(OutputFormats.Find("speedscope"), Is.InstanceOf<SpeedscopeWriter>());
        Assert.That(OutputFormats.Find("svg"), Is.InstanceOf<SvgReportWriter>());
        Assert.That(OutputFormats.Find("pdf"), Is.Null);
        Assert.That(
            () => OutputFormats.Get("pdf"),
            Throws.ArgumentException.With.Message.Contains("text, csv, json, html, svg, folded, speedscope")
        );
        Assert.That(
            OutputFormats.Writers.Select(w => w.View),
            Is.EqualTo(
                new[]
                {
                    DocumentView.Listing,
                    DocumentView.Table,
                    DocumentView.Data,
                    DocumentView.Page,
                    DocumentView.Figure,
                    DocumentView.Figure,
                    DocumentView.Figure,
                }
            )
        );
    }
}

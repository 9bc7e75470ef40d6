using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

public class ChartSvgTests
{
    private static BarChart SchedulerChart()
    {
        string[] schedulers = [.. Enumerable.Range(24, 24).Select(i => i.ToString(CultureInfo.InvariantCulture))];
        double[] values = [.. Enumerable.Range(24, 24).Select(i => i == 27 ? 39_961.0 : 44_000 + (i * 13 % 300))];
        return new BarChart("Latch acquires per scheduler", schedulers, values, ["27"], ReferenceLine.Mean(values))
        {
            CategoryAxisLabel = "scheduler_id",
            ValueAxisLabel = "latch_acquired events",
        };
    }

    private static XElement[] Ticks(XDocument d, string group) =>
        [.. d.Descendants(SvgNs + "g").Single(g => HasClass(g, group)).Elements(SvgNs + "text")];

    [Test]
    public void BarChart_DrawsOneBarPerCategory_HeightsProportionalToValues()
    {
        BarChart chart = SchedulerChart();
        XDocument d = ParseXml(ChartSvg.ToSvg(chart));
        XElement[] bars = [.. d.Descendants(SvgNs + "rect").Where(r => HasClass(r, "bar"))];

        Assert.That(bars, Has.Length.EqualTo(24));
        double perUnit = Attr(bars[0], "height") / chart.Values[0];
        for (int i = 0; i < bars.Length; i++)
        {
            Assert.That(Attr(bars[i], "height"), Is.EqualTo(chart.Values[i] * perUnit).Within(0.011));
            Assert.That(
                bars[i].Element(SvgNs + "title")!.Value,
                Is.EqualTo($"{chart.Categories[i]}: {chart.Values[i].ToString("N0", CultureInfo.InvariantCulture)}")
            );
        }

        Assert.That(Attr(bars[1], "x"), Is.GreaterThan(Attr(bars[0], "x")));
    }

    [Test]
    public void BarChart_HighlightsOnlyTheChosenCategory()
    {
        XElement[] bars =
        [
            .. ParseXml(ChartSvg.ToSvg(SchedulerChart())).Descendants(SvgNs + "rect").Where(r => HasClass(r, "bar")),
        ];
        XElement[] highlighted = [.. bars.Where(b => HasClass(b, "highlighted"))];
        Assert.That(highlighted, Has.Length.EqualTo(1));
        Assert.That(highlighted[0].Element(SvgNs + "title")!.Value, Does.StartWith("27: "));
        Assert.That(bars.Select(b => b.Attribute("fill")!.Value).Distinct().Count(), Is.EqualTo(2));
        Assert.That(highlighted[0].Attribute("fill")!.Value, Is.Not.EqualTo(bars[0].Attribute("fill")!.Value));
    }

    [Test]
    public void BarChart_DrawsMeanLine_AtMeanHeight()
    {
        BarChart chart = SchedulerChart();
        XDocument d = ParseXml(ChartSvg.ToSvg(chart));
        XElement[] bars = [.. d.Descendants(SvgNs + "rect").Where(r => HasClass(r, "bar"))];
        double baseline = Attr(bars[0], "y") + Attr(bars[0], "height");
        double perUnit = Attr(bars[0], "height") / chart.Values[0];
        XElement line = d.Descendants(SvgNs + "line").Single(l => HasClass(l, "reference-line"));
        Assert.That(Attr(line, "y1"), Is.EqualTo(baseline - (chart.ReferenceLine!.Value * perUnit)).Within(0.02));
        Assert.That(line.Attribute("stroke-dasharray"), Is.Not.Null);
        string label = d.Descendants(SvgNs + "text").Single(t => HasClass(t, "reference-label")).Value;
        Assert.That(
            label,
            Is.EqualTo("mean " + chart.ReferenceLine.Value.ToString("N1", CultureInfo.InvariantCulture))
        );
    }

    [Test]
    public void BarChart_UsesNiceTicks_FromZero()
    {
        XElement[] ticks = Ticks(ParseXml(ChartSvg.ToSvg(SchedulerChart())), "y-ticks");
        Assert.That(ticks.Select(t => t.Value), Is.EqualTo(new[] { "0", "10k", "20k", "30k", "40k", "50k" }));
        double[] ys = [.. ticks.Select(t => Attr(t, "y"))];
        for (int i = 2; i < ys.Length; i++)
        {
            Assert.That(ys[i - 1] - ys[i], Is.EqualTo(ys[0] - ys[1]).Within(0.011), "ticks evenly spaced");
        }
    }

    [Test]
    public void BarChart_RotatesLongLabels_AndKeepsFullNameInTooltip()
    {
        string[] cats =
        [
            .. Enumerable
                .Range(0, 12)
                .Select(i => "PREEMPTIVE_OS_WAIT_TYPE_NUMBER_" + i.ToString(CultureInfo.InvariantCulture)),
        ];
        var chart = new BarChart("waits", cats, [.. Enumerable.Range(1, 12).Select(i => (double)i)]);
        XDocument d = ParseXml(ChartSvg.ToSvg(chart));
        XElement[] labels = Ticks(d, "category-labels");
        Assert.That(labels, Has.Length.EqualTo(12));
        Assert.That(
            labels.All(l => l.Attribute("transform")?.Value.StartsWith("rotate(-45", StringComparison.Ordinal) == true),
            Is.True
        );
        Assert.That(labels[0].Value, Does.EndWith("\u2026"));
        Assert.That(d.Descendants(SvgNs + "title").Select(t => t.Value), Does.Contain(cats[0] + ": 1"));
    }

    [Test]
    public void BarChart_WritesValueLabels_OnlyWhenTheyFitTheBars()
    {
        XElement[] Labels(BarChart c, int width) =>
            [
                .. ParseXml(ChartSvg.ToSvg(c, new ChartSvgOptions { Width = width }))
                    .Descendants(SvgNs + "g")
                    .Where(g => HasClass(g, "value-labels"))
                    .Elements(SvgNs + "text"),
            ];

        var few = new BarChart("few", ["a", "b", "c"], [1234.0, 0, 98765]);
        Assert.That(Labels(few, 900).Select(t => t.Value), Is.EqualTo(new[] { "1,234", "0", "98,765" }));
        Assert.That(Labels(SchedulerChart(), 400), Is.Empty, "24 five-digit labels do not fit 400 px");
    }

    [Test]
    public void LineChart_LabelsTimeAxisInUtc_WithNiceSteps()
    {
        var start = new DateTime(2024, 5, 1, 10, 0, 0, DateTimeKind.Utc);
        LineSeries s = LineSeries.FromTimestamps(
            "pages",
            Enumerable.Range(0, 601).Select(i => (start.AddSeconds(i), (double)(i % 100)))
        );
        XDocument d = ParseXml(ChartSvg.ToSvg(new LineChart("memory", XAxisKind.Time, [s])));
        string[] labels = [.. Ticks(d, "x-ticks").Select(t => t.Value)];
        Assert.That(labels, Is.EqualTo(new[] { "10:00", "10:02", "10:04", "10:06", "10:08", "10:10" }));
        Assert.That(d.Descendants(SvgNs + "text").Any(t => t.Value == "time (UTC), 2024-05-01"), Is.True);
    }

    [Test]
    public void LineChart_DrawsEverySeries_WithLegend()
    {
        var a = new LineSeries("allocated", [0.0, 1, 2], [1.0, 5, 2]);
        var b = new LineSeries("freed <&>", [0.0, 2], [0.0, 4]);
        XDocument d = ParseXml(
            ChartSvg.ToSvg(new LineChart("pages", XAxisKind.Number, [a, b]) { YAxisLabel = "pages" })
        );
        XElement[] lines = [.. d.Descendants(SvgNs + "polyline")];
        Assert.That(lines, Has.Length.EqualTo(2));
        Assert.That(lines[0].Attribute("points")!.Value.Split(' '), Has.Length.EqualTo(3));
        Assert.That(lines[0].Attribute("stroke")!.Value, Is.Not.EqualTo(lines[1].Attribute("stroke")!.Value));
        string[] legend =
        [
            .. d.Descendants(SvgNs + "g")
                .Single(g => HasClass(g, "legend"))
                .Elements(SvgNs + "text")
                .Select(t => t.Value),
        ];
        Assert.That(legend, Is.EqualTo(new[] { "allocated", "freed <&>" }));
    }

    [Test]
    public void LineChart_KeepsGlobalSpikeAndDip_WhenDownsampling5MillionPoints()
    {
        const int n = 5_000_000;
        double[] x = new double[n];
        double[] y = new double[n];
        var start = new DateTime(2024, 5, 1, 10, 0, 0, DateTimeKind.Utc);
        double t0 = LineSeries.ToUnixSeconds(start);
        for (int i = 0; i < n; i++)
        {
            x[i] = t0 + (i * 0.001);
            y[i] = 100 + (i % 7);
        }

        y[2_345_678] = 1000;
        y[4_000_001] = -500;
        var chart = new LineChart("spike", XAxisKind.Time, [new LineSeries("running total", x, y)]);

        string svg = ChartSvg.ToSvg(chart);

        XDocument d = ParseXml(svg);
        XElement poly = d.Descendants(SvgNs + "polyline").Single();
        double[][] pts =
        [
            .. poly.Attribute("points")!
                .Value.Split(' ')
                .Select(p => p.Split(',').Select(v => double.Parse(v, CultureInfo.InvariantCulture)).ToArray()),
        ];
        XElement[] yTicks = Ticks(d, "y-ticks");
        double TickY(string label) => Attr(yTicks.Single(t => t.Value == label), "y") - 4;

        Assert.That(poly.Attribute("data-points")!.Value, Is.EqualTo("5000000"));
        Assert.That(pts.Min(p => p[1]), Is.EqualTo(TickY("1,000")).Within(0.011), "the single spike to 1000 is drawn");
        Assert.That(pts.Max(p => p[1]), Is.EqualTo(TickY("-500")).Within(0.011), "the single dip to -500 is drawn");
        double plotWidth =
            Attr(
                d.Descendants(SvgNs + "line")
                    .First(l => HasClass(l, "axis") && l.Attribute("y1")!.Value == l.Attribute("y2")!.Value),
                "x2"
            ) - Attr(d.Descendants(SvgNs + "line").First(l => HasClass(l, "axis")), "x1");
        Assert.That(pts.Length, Is.LessThanOrEqualTo(4 * ((int)plotWidth + 1)));
        Assert.That(
            pts.Length,
            Is.GreaterThanOrEqualTo(2 * (int)plotWidth),
            "every pixel column keeps its min and max"
        );
        for (int i = 1; i < pts.Length; i++)
        {
            Assert.That(pts[i][0], Is.GreaterThanOrEqualTo(pts[i - 1][0]), "points stay in x order");
        }

        TestContext.Out.WriteLine($"5,000,000-point line chart: {pts.Length} points drawn, {svg.Length:N0} chars");
    }

    [Test]
    public void LineChart_WritesNoData_ForEmptyChart()
    {
        XDocument d = ParseXml(
            ChartSvg.ToSvg(new LineChart("empty", XAxisKind.Time, [new LineSeries("none", [], [])]))
        );
        Assert.That(d.Descendants(SvgNs + "text").Any(t => t.Value == "no data"), Is.True);
        Assert.That(d.Descendants(SvgNs + "polyline"), Is.Empty);
    }

    [Test]
    public void BarChart_HandlesNegativeValues_BarsBelowZero()
    {
        XDocument d = ParseXml(ChartSvg.ToSvg(new BarChart("delta", ["a", "b"], [10.0, -5])));
        XElement[] bars = [.. d.Descendants(SvgNs + "rect").Where(r => HasClass(r, "bar"))];
        double zeroA = Attr(bars[0], "y") + Attr(bars[0], "height");
        Assert.That(Attr(bars[1], "y"), Is.EqualTo(zeroA).Within(0.011));
        Assert.That(Attr(bars[1], "height"), Is.EqualTo(Attr(bars[0], "height") / 2).Within(0.011));
    }
}

using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

public class FlameGraphSvgTests
{
    private static CallTree LatchTree()
    {
        var b = new CallTreeBuilder();
        b.AddStack(
            [
                "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
                "sqlmin.dll!PFSPageRef::ModifyPFSRow+0x68b",
                "sqlmin!FnProducerOpen",
            ],
            115_192
        );
        b.AddStack(
            [
                "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
                "sqlmin.dll!PageRef::ModifyBits+0x3e0",
                "sqlmin!FnProducerOpen",
            ],
            115_189
        );
        b.AddStack(["sqlTsEs.dll!CDefaultCollation::IHashW+0x227", "sqlmin!FnProducerOpen"], 472);
        b.AddStack(["sqldk!SOS_Task::PushWait", "KERNEL32.DLL+0x0000000000017974"], 50_000);
        b.AddStack(["<<SHARED STACKS REMOVED>>"], 10_000);
        return b.Build();
    }

    private static (XElement Rect, string Title, string? Text)[] Frames(string svg)
    {
        XDocument d = ParseXml(svg);
        return
        [
            .. d.Descendants(SvgNs + "g")
                .Where(g => HasClass(g, "frame"))
                .Select(g =>
                    (g.Element(SvgNs + "rect")!, g.Element(SvgNs + "title")!.Value, g.Element(SvgNs + "text")?.Value)
                ),
        ];
    }

    [Test]
    public void Render_DrawsOneRectAndTitlePerFrame_WidthsProportionalToWeight()
    {
        CallTree tree = LatchTree();
        FlameGraphRendering r = FlameGraphSvg.Render(tree, new FlameGraphOptions { MinWidthPixels = 0 });
        var frames = Frames(r.Svg);

        Assert.That(frames, Has.Length.EqualTo(tree.NodeCount));
        Assert.That(r.Stats.DrawnFrames, Is.EqualTo(tree.NodeCount));
        Assert.That(r.Stats.HiddenFrames, Is.Zero);
        double rootWidth = Attr(frames[0].Rect, "width");
        Assert.That(frames[0].Title, Does.StartWith("all (290,853 samples, 100.00%)"));
        foreach (CallTreeNode n in tree.EnumerateDepthFirst().Skip(1))
        {
            var f = frames.Single(x =>
                x.Title.StartsWith(n.Name + " (", StringComparison.Ordinal)
                && Math.Abs(Attr(x.Rect, "width") - (rootWidth * n.Weight / tree.TotalWeight)) < 0.0051
            );
            string share = (100.0 * n.Weight / tree.TotalWeight).ToString("F2", CultureInfo.InvariantCulture);
            Assert.That(
                f.Title,
                Is.EqualTo($"{n.Name} ({n.Weight.ToString("N0", CultureInfo.InvariantCulture)} samples, {share}%)")
            );
        }
    }

    [Test]
    public void Render_ColoursFramesPerModule_StableAcrossGraphs()
    {
        var frames = Frames(FlameGraphSvg.Render(LatchTree(), new FlameGraphOptions { MinWidthPixels = 0 }).Svg);
        string Fill(string prefix) =>
            frames.First(f => f.Title.StartsWith(prefix, StringComparison.Ordinal)).Rect.Attribute("fill")!.Value;

        string sqlmin = Fill("sqlmin.dll!ParNestedXdes");
        Assert.That(Fill("sqlmin.dll!PFSPageRef"), Is.EqualTo(sqlmin), "same module, same colour");
        Assert.That(Fill("sqlmin!FnProducerOpen"), Is.EqualTo(sqlmin), "module with and without .dll share a colour");
        Assert.That(Fill("sqlTsEs.dll!"), Is.Not.EqualTo(sqlmin));
        Assert.That(Fill("sqldk!"), Is.Not.EqualTo(sqlmin));
        Assert.That(Fill("KERNEL32.DLL+0x"), Is.Not.EqualTo(Fill("sqldk!")));
        Assert.That(Fill("<<SHARED"), Is.EqualTo("#c9c9c9"), "frames without a module are grey");

        var other = new CallTreeBuilder();
        other.AddStack(["sqlmin!SomethingElse", "sqldk!Other"], 1);
        var otherFrames = Frames(FlameGraphSvg.Render(other.Build()).Svg);
        Assert.That(
            otherFrames
                .First(f => f.Title.StartsWith("sqlmin!", StringComparison.Ordinal))
                .Rect.Attribute("fill")!
                .Value,
            Is.EqualTo(sqlmin)
        );
        Assert.That(
            otherFrames
                .First(f => f.Title.StartsWith("sqldk!", StringComparison.Ordinal))
                .Rect.Attribute("fill")!
                .Value,
            Is.EqualTo(Fill("sqldk!"))
        );
    }

    [Test]
    public void Render_HidesNarrowFrames_AndReportsHiddenWeight()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["big", "main"], 1_000_000);
        b.AddStack(["tiny", "main"], 10);
        b.AddStack(["deeper", "tiny2", "main"], 20);
        FlameGraphRendering r = FlameGraphSvg.Render(
            b.Build(),
            new FlameGraphOptions { Width = 1200, MinWidthPixels = 0.1 }
        );

        Assert.That(r.Stats.HiddenFrames, Is.EqualTo(3));
        Assert.That(r.Stats.HiddenWeight, Is.EqualTo(30));
        Assert.That(Frames(r.Svg).Select(f => f.Title.Split(' ')[0]), Is.EqualTo(new[] { "all", "main", "big" }));
        XElement info = ParseXml(r.Svg).Descendants(SvgNs + "text").Single(t => HasClass(t, "info"));
        Assert.That(
            info.Value,
            Is.EqualTo("3 frames narrower than 0.1 px not drawn (30 samples, 0.00% of the total).")
        );
    }

    [Test]
    public void Render_ClipsLabels_WithEllipsisToFrameWidth()
    {
        var b = new CallTreeBuilder();
        string longName = "sqllang!`anonymous namespace'::TSendRowClassNoCount<7,0>::TSendUnlimitedVartype<0>";
        b.AddStack([longName, "main"], 1);
        b.AddStack(["x", "main"], 9);
        var frames = Frames(FlameGraphSvg.Render(b.Build(), new FlameGraphOptions { Width = 400, FontSize = 11 }).Svg);
        var f = frames.Single(x => x.Title.StartsWith(longName, StringComparison.Ordinal));
        double width = Attr(f.Rect, "width");
        Assert.That(f.Text, Does.EndWith("\u2026"));
        Assert.That(longName, Does.StartWith(f.Text![..^1]));
        Assert.That(f.Text.Length * 11 * 0.61, Is.LessThanOrEqualTo(width - 6));
    }

    [Test]
    public void Render_PutsRootAtBottom_OrTopWhenInverted()
    {
        CallTree tree = LatchTree();
        double RootY(bool inverted)
        {
            var frames = Frames(
                FlameGraphSvg.Render(tree, new FlameGraphOptions { Inverted = inverted, MinWidthPixels = 0 }).Svg
            );
            double root = Attr(frames[0].Rect, "y");
            double[] others = [.. frames.Skip(1).Select(f => Attr(f.Rect, "y"))];
            Assert.That(inverted ? others.All(y => y > root) : others.All(y => y < root), Is.True);
            return root;
        }

        Assert.That(RootY(inverted: true), Is.LessThan(RootY(inverted: false)));
    }

    [Test]
    public void Render_ColoursGrowthRedAndShrinkBlue_ForDifferentialTree()
    {
        var before = new CallTreeBuilder();
        before.AddStack(["grew", "main"], 100);
        before.AddStack(["shrank", "main"], 300);
        before.AddStack(["same", "main"], 100);
        var after = new CallTreeBuilder();
        after.AddStack(["grew", "main"], 300);
        after.AddStack(["shrank", "main"], 100);
        after.AddStack(["same", "main"], 100);
        CallTree diff = CallTree.Diff(before.Build(), after.Build());

        var frames = Frames(FlameGraphSvg.Render(diff).Svg);
        (int R, int G, int B) Rgb(string name)
        {
            string fill = frames
                .Single(f => f.Title.StartsWith(name + " (", StringComparison.Ordinal))
                .Rect.Attribute("fill")!
                .Value;
            return (Convert.ToInt32(fill[1..3], 16), Convert.ToInt32(fill[3..5], 16), Convert.ToInt32(fill[5..7], 16));
        }

        var grew = Rgb("grew");
        var shrank = Rgb("shrank");
        var same = Rgb("same");
        Assert.That(grew.R, Is.GreaterThan(grew.B + 100), "growth is red");
        Assert.That(shrank.B, Is.GreaterThan(shrank.R + 100), "shrink is blue");
        Assert.That(Math.Abs(same.R - same.B), Is.LessThan(5), "no change is neutral");
        Assert.That(
            frames.Single(f => f.Title.StartsWith("grew (", StringComparison.Ordinal)).Title,
            Is.EqualTo("grew (current 300, baseline 100, delta +200 samples; share 20.00% \u2192 60.00%)")
        );
        Assert.That(
            frames.Single(f => f.Title.StartsWith("shrank (", StringComparison.Ordinal)).Title,
            Does.Contain("delta -200")
        );
    }

    [Test]
    public void Render_UsesBaselineWidths_WhenAsked()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["a"], 10, 30);
        b.AddStack(["b"], 30, 10);
        var frames = Frames(
            FlameGraphSvg
                .Render(b.Build(), new FlameGraphOptions { DifferentialWidth = DifferentialWidth.Baseline })
                .Svg
        );
        double root = Attr(frames[0].Rect, "width");
        Assert.That(
            Attr(frames.Single(f => f.Title.StartsWith("a (", StringComparison.Ordinal)).Rect, "width"),
            Is.EqualTo(root * 0.75).Within(0.011)
        );
    }

    [Test]
    public void Render_EscapesHostileNames_InTitlesAndLabels()
    {
        var b = new CallTreeBuilder();
        foreach (string n in HostileNames)
        {
            b.AddStack([n], 1);
        }

        string svg = FlameGraphSvg.Render(b.Build(), new FlameGraphOptions { Title = "<title> & \"quotes\"" }).Svg;
        XDocument d = ParseXml(svg);
        Assert.That(d.Descendants().Any(e => e.Name.LocalName == "script"), Is.False);
        var titles = d.Descendants(SvgNs + "title").Select(t => t.Value).ToArray();
        Assert.That(titles, Has.Some.StartsWith("<script>alert('x')</script> (1 samples"));
        Assert.That(titles, Has.Some.StartsWith("a&b &amp; <img src=x onerror=alert(1)> ("));
        Assert.That(titles, Has.Some.StartsWith("lone\uFFFDsurrogate ("));
        Assert.That(
            d.Descendants(SvgNs + "text").First(t => HasClass(t, "title")).Value,
            Is.EqualTo("<title> & \"quotes\"")
        );
        Assert.That(svg, Does.Not.Contain("href"));
    }

    [Test]
    public void Render_WritesNoData_ForEmptyTree()
    {
        FlameGraphRendering r = FlameGraphSvg.Render(new CallTreeBuilder().Build());
        Assert.That(r.Stats.DrawnFrames, Is.Zero);
        Assert.That(ParseXml(r.Svg).Descendants(SvgNs + "text").Any(t => t.Value == "no data"), Is.True);
    }

    [Test]
    public void Render_FormatsEveryCoordinateWithTwoDecimals()
    {
        string svg = FlameGraphSvg.Render(LatchTree()).Svg;
        foreach (XElement rect in ParseXml(svg).Descendants(SvgNs + "rect"))
        {
            foreach (string a in new[] { "x", "y", "width", "height" })
            {
                Assert.That(rect.Attribute(a)!.Value, Does.Match(@"^-?\d+\.\d\d$"));
            }
        }
    }
}

using System.Xml.Linq;
using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// Which end a flame graph grows from: stacks that share their leaf but not their root (a wait histogram's) are drawn
/// from the leaf, as an icicle that says so in its title; full stacks that share their root stay classic; either can be
/// forced.
/// </summary>
public class FlameOrientationTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    /// <summary>Every stack ends in the same wait leaf; the callers (truncated stacks) differ.</summary>
    private static CallTree WaitHistogram()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["sqldk!SOS_Task::Wait", "sqlmin!BPool::Get", "sqlmin!PageRef::Fix"], 50);
        b.AddStack(["sqldk!SOS_Task::Wait", "sqlmin!BPool::Get", "sqlmin!BTreeMgr::Seek"], 30);
        b.AddStack(["sqldk!SOS_Task::Wait", "sqlmin!LatchBase::Suspend", "sqlmin!AllocPages"], 20);
        return b.Build();
    }

    /// <summary>Full stacks: every one starts at the thread's first frame, leaves differ.</summary>
    private static CallTree FullStacks()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["sqlmin!A", "sqldk!Run", "kernel32!BaseThreadInitThunk"], 60);
        b.AddStack(["sqlmin!B", "sqldk!Run", "kernel32!BaseThreadInitThunk"], 40);
        return b.Build();
    }

    private static (string Title, XElement[] Labels) Draw(CallTree tree, FlameRoot root)
    {
        FlameGraphRendering r = FlameGraphSvg.Render(
            tree,
            new FlameGraphOptions
            {
                Title = "Stacks",
                Root = root,
                MinWidthPixels = 0,
            }
        );
        XDocument d = XDocument.Parse(r.Svg);
        string title = d.Descendants(Svg + "text").First(t => (string?)t.Attribute("class") == "title").Value;
        return (title, [.. d.Descendants(Svg + "g").Where(g => (string?)g.Attribute("class") == "frame")]);
    }

    /// <summary>The y of the frame whose tooltip starts with <paramref name="name"/>.</summary>
    private static double Y(XElement[] frames, string name) =>
        double.Parse(
            frames
                .First(f => f.Element(Svg + "title")!.Value.StartsWith(name + " (", StringComparison.Ordinal))
                .Element(Svg + "rect")!
                .Attribute("y")!
                .Value,
            System.Globalization.CultureInfo.InvariantCulture
        );

    [Test]
    public void Rule_ComparesTheMostCommonLeafWithTheMostCommonRoot()
    {
        // Independently: the wait leaf ends 100 of 100; the heaviest outermost frame (PageRef::Fix) starts 50.
        Assert.That(FlameOrientation.HeaviestLeafWeight(WaitHistogram()), Is.EqualTo(100));
        Assert.That(FlameOrientation.HeaviestRootWeight(WaitHistogram()), Is.EqualTo(50));
        Assert.That(FlameOrientation.IsLeafRooted(WaitHistogram(), FlameRoot.Auto), Is.True);

        // Full stacks: the leaf A ends 60, the thread's first frame starts 100.
        Assert.That(FlameOrientation.HeaviestLeafWeight(FullStacks()), Is.EqualTo(60));
        Assert.That(FlameOrientation.HeaviestRootWeight(FullStacks()), Is.EqualTo(100));
        Assert.That(FlameOrientation.IsLeafRooted(FullStacks(), FlameRoot.Auto), Is.False);

        Assert.That(FlameOrientation.IsLeafRooted(FullStacks(), FlameRoot.Leaf), Is.True);
        Assert.That(FlameOrientation.IsLeafRooted(WaitHistogram(), FlameRoot.Caller), Is.False);
    }

    [Test]
    public void LeafRootedTree_HasTheLeafOutermost_AndKeepsEveryWeight()
    {
        CallTree t = FlameOrientation.LeafRooted(WaitHistogram());
        CallTreeNode leaf = t.Root.Children.Single();
        Assert.That(leaf.Name, Is.EqualTo("sqldk!SOS_Task::Wait"));
        Assert.That(leaf.Weight, Is.EqualTo(100));
        Assert.That(
            leaf.Children.Select(c => (c.Name, c.Weight)),
            Is.EquivalentTo(new[] { ("sqlmin!BPool::Get", 80L), ("sqlmin!LatchBase::Suspend", 20L) })
        );
        Assert.That(t.TotalWeight, Is.EqualTo(WaitHistogram().TotalWeight));
        Assert.That(t.StackCount, Is.EqualTo(3));
        Assert.That(
            leaf.Children.Single(c => c.Name == "sqlmin!BPool::Get").Children.Select(c => c.Name),
            Is.EquivalentTo(new[] { "sqlmin!PageRef::Fix", "sqlmin!BTreeMgr::Seek" })
        );
    }

    [Test]
    public void WaitHistogram_IsDrawnFromTheLeaf_ByDefault_AndTheTitleSaysSo()
    {
        (string title, XElement[] frames) = Draw(WaitHistogram(), FlameRoot.Auto);
        Assert.That(title, Does.Contain("icicle from the leaf frame"));
        Assert.That(
            Y(frames, CallTree.RootName),
            Is.LessThan(Y(frames, "sqldk!SOS_Task::Wait")),
            "the root at the top"
        );
        Assert.That(
            Y(frames, "sqldk!SOS_Task::Wait"),
            Is.LessThan(Y(frames, "sqlmin!BPool::Get")),
            "the leaf just below it, callers further down"
        );
        Assert.That(
            frames.Count(f =>
                f.Element(Svg + "title")!.Value.StartsWith("sqldk!SOS_Task::Wait (", StringComparison.Ordinal)
            ),
            Is.EqualTo(1),
            "the shared leaf is one frame, not one per stack"
        );
    }

    [Test]
    public void FullStacks_StayClassic_ByDefault_AndEitherEndCanBeForced()
    {
        (string title, XElement[] frames) = Draw(FullStacks(), FlameRoot.Auto);
        Assert.That(title, Is.EqualTo("Stacks"));
        Assert.That(
            Y(frames, CallTree.RootName),
            Is.GreaterThan(Y(frames, "kernel32!BaseThreadInitThunk")),
            "the root at the bottom"
        );

        (string forcedTitle, XElement[] forced) = Draw(FullStacks(), FlameRoot.Leaf);
        Assert.That(forcedTitle, Does.Contain("icicle from the leaf frame"));
        Assert.That(Y(forced, "sqlmin!A"), Is.LessThan(Y(forced, "sqldk!Run")));

        (string callerTitle, XElement[] caller) = Draw(WaitHistogram(), FlameRoot.Caller);
        Assert.That(callerTitle, Is.EqualTo("Stacks"));
        Assert.That(
            caller.Count(f =>
                f.Element(Svg + "title")!.Value.StartsWith("sqldk!SOS_Task::Wait (", StringComparison.Ordinal)
            ),
            Is.EqualTo(3),
            "drawn from the caller, the shared leaf is split across the three stacks"
        );
    }

    [Test]
    public void DifferentialTree_StaysClassic_UnderAuto()
    {
        CallTree diff = CallTree.Diff(WaitHistogram(), WaitHistogram());
        Assert.That(FlameOrientation.IsLeafRooted(diff, FlameRoot.Auto), Is.False);
    }
}

using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

public class CallTreeTests
{
    [Test]
    public void AddStack_MergesIdenticalPaths_RootFirstInternally()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["leaf", "mid", "outer"], 3);
        b.AddStack(["leaf", "mid", "outer"], 2);
        b.AddStack(["mid", "outer"], 4);
        b.AddStack(["other", "outer"], 1);
        CallTree tree = b.Build();

        Assert.That(tree.TotalWeight, Is.EqualTo(10));
        Assert.That(tree.StackCount, Is.EqualTo(4));
        Assert.That(tree.Root.Children, Has.Count.EqualTo(1));
        CallTreeNode outer = tree.Root.Children[0];
        Assert.That(outer.Name, Is.EqualTo("outer"));
        Assert.That(outer.Weight, Is.EqualTo(10));
        Assert.That(outer.SelfWeight, Is.EqualTo(0));
        Assert.That(outer.Children.Select(c => c.Name), Is.EqualTo(new[] { "mid", "other" }));
        CallTreeNode mid = outer.Children[0];
        Assert.That(mid.Weight, Is.EqualTo(9));
        Assert.That(mid.SelfWeight, Is.EqualTo(4));
        Assert.That(mid.Children[0].Weight, Is.EqualTo(5));
        Assert.That(mid.Children[0].GetPath(), Is.EqualTo(new[] { "outer", "mid", "leaf" }));
        Assert.That(mid.Children[0].Depth, Is.EqualTo(3));
        Assert.That(tree.NodeCount, Is.EqualTo(5));
        Assert.That(tree.MaxDepth, Is.EqualTo(3));
    }

    [Test]
    public void AddStack_ComparesNamesOrdinally()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["A"], 1);
        b.AddStack(["a"], 1);
        Assert.That(b.Build().Root.Children, Has.Count.EqualTo(2));
    }

    [Test]
    public void AddStack_Throws_WhenWeightNegative()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new CallTreeBuilder().AddStack(["a"], -1));
    }

    [Test]
    public void AddStack_ThrowsOverflow_WhenTotalExceedsInt64()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["a"], long.MaxValue);
        Assert.Throws<OverflowException>(() => b.AddStack(["a"], 1));
    }

    [Test]
    public void Build_HandlesVeryDeepStacks_WithoutRecursion()
    {
        string[] frames = [.. Enumerable.Range(0, 50_000).Select(i => "f" + i)];
        var b = new CallTreeBuilder();
        b.AddStack(frames, 7);
        CallTree tree = b.Build();
        Assert.That(tree.MaxDepth, Is.EqualTo(50_000));
        Assert.That(FoldedStackWriter.GetLines(tree), Has.Count.EqualTo(1));
        Assert.That(FlameGraphSvg.Render(tree).Stats.DrawnDepth, Is.EqualTo(50_000));
    }

    [Test]
    public void Builder_KeepsCollecting_AfterBuild()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["a"], 1);
        CallTree first = b.Build();
        b.AddStack(["a"], 1);
        Assert.That(first.TotalWeight, Is.EqualTo(1));
        Assert.That(b.Build().TotalWeight, Is.EqualTo(2));
    }

    [Test]
    public void Diff_PutsCurrentInWeight_AndBaselineInBaselineWeight()
    {
        var before = new CallTreeBuilder();
        before.AddStack(["grew", "main"], 10);
        before.AddStack(["shrank", "main"], 30);
        before.AddStack(["gone", "main"], 5);
        var after = new CallTreeBuilder();
        after.AddStack(["grew", "main"], 25);
        after.AddStack(["shrank", "main"], 10);
        after.AddStack(["new", "main"], 2);

        CallTree diff = CallTree.Diff(before.Build(), after.Build());

        Assert.That(diff.HasBaseline, Is.True);
        Assert.That(diff.TotalWeight, Is.EqualTo(37));
        Assert.That(diff.TotalBaselineWeight, Is.EqualTo(45));
        CallTreeNode main = diff.Root.Children.Single();
        var byName = main.Children.ToDictionary(c => c.Name);
        Assert.That(byName["grew"].Delta, Is.EqualTo(15));
        Assert.That(byName["shrank"].Delta, Is.EqualTo(-20));
        Assert.That(byName["gone"].Weight, Is.EqualTo(0));
        Assert.That(byName["gone"].BaselineWeight, Is.EqualTo(5));
        Assert.That(byName["new"].BaselineWeight, Is.EqualTo(0));
    }

    [Test]
    public void Diff_Throws_WhenUnitsDiffer()
    {
        Assert.Throws<ArgumentException>(() =>
            CallTree.Diff(new CallTreeBuilder(WeightUnit.Bytes).Build(), new CallTreeBuilder().Build())
        );
    }

    [TestCase(1, false)]
    [TestCase(2, true)]
    [TestCase(3, false)]
    public void Build_MatchesPathsSummedByADictionary(int seed, bool withBaseline)
    {
        var stacks = new RandomStacks(seed, 400, withBaseline);
        CallTree tree = stacks.Tree();

        Assert.That(tree.NodeCount, Is.EqualTo(stacks.InclusiveByPath.Count));
        Assert.That(tree.StackCount, Is.EqualTo(stacks.Stacks.Count));
        Assert.That(tree.MaxDepth, Is.EqualTo(stacks.InclusiveByPath.Keys.Max(k => RandomStacks.Path(k).Length)));
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (CallTreeNode n in tree.EnumerateDepthFirst())
        {
            string key = RandomStacks.Key(n.GetPath());
            Assert.That(seen.Add(key), Is.True, key);
            Assert.That((n.Weight, n.BaselineWeight), Is.EqualTo(stacks.InclusiveByPath[key]), key);
            Assert.That(
                (n.SelfWeight, n.SelfBaselineWeight),
                Is.EqualTo(stacks.SelfByPath.GetValueOrDefault(key)),
                key
            );
            Assert.That(n.Depth, Is.EqualTo(n.GetPath().Count));
            string[] children = [.. n.Children.Select(c => c.Name)];
            Assert.That(children, Is.EqualTo(children.Order(StringComparer.Ordinal)).And.Unique);
            Assert.That(n.Children.Select(c => c.Parent!.Index), Has.All.EqualTo(n.Index));
            // Depth-first order: the subtree is the range after the node, up to its subtree end.
            int end = tree.SubtreeEndOf(n.Index);
            for (int i = n.Index + 1; i < end; i++)
            {
                Assert.That(tree.PathOf(i).Take(n.Depth), Is.EqualTo(n.GetPath()));
            }

            Assert.That(end == tree.NodeCount || tree.DepthOf(end) <= n.Depth, Is.True);
        }
    }

    [Test]
    public void NodesByName_OrdersByNameThenIndex()
    {
        CallTree tree = new RandomStacks(4, 300, withBaseline: false).Tree();
        Func<int, bool> leaf = i => tree.SelfWeightOf(i) > 0;
        int[] expected =
        [
            .. Enumerable
                .Range(1, tree.NodeCount - 1)
                .Where(leaf)
                .OrderBy(tree.NameOf, StringComparer.Ordinal)
                .ThenBy(i => i),
        ];
        Assert.That(expected, Has.Length.GreaterThan(50));
        Assert.That(tree.NodesByName(tree.NameOf, leaf), Is.EqualTo(expected));
    }
}

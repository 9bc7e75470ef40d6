using XeAnalyzer.Output;
using static System.FormattableString;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

public class FoldedStackWriterTests
{
    [Test]
    public void Write_WritesRootFirstLines_SortedOrdinally()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["c", "b", "a"], 3);
        b.AddStack(["d", "a"], 1);
        b.AddStack(["c", "b", "a"], 2);
        b.AddStack(["b", "a"], 4);
        b.AddStack(["x;y", "a"], 1);
        b.AddStack(["B", "a"], 6);

        string folded = Utf8(Write(new FoldedStackWriter(), b.Build()));

        Assert.That(folded, Is.EqualTo("a;B 6\na;b 4\na;b;c 5\na;d 1\na;x:y 1\n"));
    }

    [Test]
    public void Write_WritesBaselineThenCurrent_ForDifferentialTree()
    {
        var b = new CallTreeBuilder();
        b.AddStack(["grew", "main"], 25, 10);
        b.AddStack(["gone", "main"], 0, 5);
        b.AddStack(["new", "main"], 2, 0);
        Assert.That(
            Utf8(Write(new FoldedStackWriter(), b.Build())),
            Is.EqualTo("main;gone 5 0\nmain;grew 10 25\nmain;new 0 2\n")
        );
        Assert.That(
            Utf8(Write(new FoldedStackWriter(includeBaseline: false), b.Build())),
            Is.EqualTo("main;grew 25\nmain;new 2\n")
        );
    }

    [Test]
    public void Write_WritesRootWeight_AsRootMarker_AndSkipsZeroLines()
    {
        var b = new CallTreeBuilder();
        b.AddStack([], 2);
        b.AddStack(["a"], 0);
        Assert.That(Utf8(Write(new FoldedStackWriter(), b.Build())), Is.EqualTo("[root] 2\n"));
    }

    [Test]
    public void EscapeFrame_ReplacesSeparatorAndLineBreaks()
    {
        var b = new CallTreeBuilder();
        foreach (string n in HostileNames)
        {
            b.AddStack([n, "outer"], 1);
        }

        string[] lines = Utf8(Write(new FoldedStackWriter(), b.Build())).Split('\n');
        Assert.That(lines, Has.Length.EqualTo(HostileNames.Length + 1));
        Assert.That(lines[^1], Is.Empty);
        foreach (string line in lines[..^1])
        {
            Assert.That(line, Does.Match(@"^outer;[^;]+ 1$"));
        }

        Assert.That(lines, Does.Contain("outer;semi:colon:frame 1"));
        Assert.That(lines, Does.Contain("outer;new line  and tab 1"));
    }

    [Test]
    public void GetLines_MatchesSeedStackShape_ForLatchStack()
    {
        // Stack C of the seed material (leaf first, 3 frames shown) with its bucket count.
        var b = new CallTreeBuilder();
        b.AddStack(
            [
                "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
                "sqlmin.dll!LatchBase::RecordAcquire+0x191",
                "sqlmin.dll!FnProducerThread+0x80b",
            ],
            115_187
        );
        Assert.That(
            FoldedStackWriter.GetLines(b.Build()),
            Is.EqualTo(
                new[]
                {
                    "sqlmin.dll!FnProducerThread+0x80b;sqlmin.dll!LatchBase::RecordAcquire+0x191;sqlmin.dll!XeSqlPkg:"
                        + ":latch_acquired::Publish+0x1a9 115187",
                }
            )
        );
    }

    [TestCase(11, false)]
    [TestCase(12, true)]
    [TestCase(13, true)]
    public void GetLines_MatchesPathsSummedByADictionary_SortedAsText(int seed, bool withBaseline)
    {
        var stacks = new RandomStacks(seed, 500, withBaseline);
        List<string> expected = [];
        foreach ((string key, (long weight, long baseline)) in stacks.SelfByPath)
        {
            if (weight != 0 || (withBaseline && baseline != 0))
            {
                string[] path = RandomStacks.Path(key);
                string text =
                    path.Length == 0 ? "[root]" : string.Join(';', path.Select(FoldedStackWriter.EscapeFrame));
                string counts = withBaseline ? Invariant($"{baseline} {weight}") : Invariant($"{weight}");
                expected.Add(text + " " + counts);
            }
        }

        expected.Sort(StringComparer.Ordinal);
        CallTree tree = stacks.Tree();
        Assert.That(FoldedStackWriter.GetLines(tree, withBaseline), Is.EqualTo(expected));
        Assert.That(
            Utf8(Write(new FoldedStackWriter(withBaseline), tree)),
            Is.EqualTo(string.Concat(expected.Select(l => l + "\n")))
        );
    }
}

using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Analysis.Stacks;
using XeAnalyzer.Tests.Output;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Cli;

/// <summary><c>xeanalyze diff</c> run in-process: two synthetic captures of different process lifetimes (each with its
/// sidecar), gates and flame files.</summary>
public sealed class DiffCliTests
{
    private static readonly string[] Symbols =
    [
        "--symbols",
        TestPaths.SymbolsCache,
        "--binaries",
        TestPaths.SymbolsCache,
    ];
    private TempFolder _tmp = null!;
    private string _base = null!;
    private string _new = null!;

    /// <summary>Base: A×10, B×5 (process A); new: A×12, B×5, C×3 (process B, other bases). Each capture in its own
    /// folder with its sidecar.</summary>
    [SetUp]
    public void SetUp()
    {
        _tmp = new TempFolder();
        var c = new StackCaptures();
        _base = Write(c, "base", BasesA, [("A", 10), ("B", 5)]);
        _new = Write(c, "new", BasesB, [("A", 12), ("B", 5), ("C", 3)]);
    }

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    private string Write(
        StackCaptures c,
        string name,
        IReadOnlyDictionary<string, ulong> bases,
        (string Id, int N)[] stacks
    )
    {
        string dir = Path.Combine(_tmp.Path, name);
        Directory.CreateDirectory(dir);
        var events = new List<XEvent>();
        ulong seq = 0;
        foreach ((string id, int n) in stacks)
        {
            for (int i = 0; i < n; i++)
            {
                events.Add(c.Latch(At((int)seq), Addresses(Seed(id), bases), ++seq));
            }
        }

        string path = Path.Combine(dir, name + "_0_133601526724170000.xel");
        c.WriteXel(path, events);
        File.WriteAllText(Path.Combine(dir, name + ".modules.txt"), ModuleList(bases));
        return path;
    }

    private static string Engine(string id) => string.Join("\n", Seed(id).Select(f => f.Engine));

    /// <summary>
    /// Where a stack among A, B and C is told apart and its name there: after the longest run of leaf frames it
    /// shares with another of them, the frame before and that frame (computed here from the seed stacks, apart from
    /// StackDiff).
    /// </summary>
    private static (int At, string Name) Distinguishing(string id)
    {
        string[] frames = [.. Seed(id).Select(f => f.Engine)];
        int shared = new[] { "A", "B", "C" }
            .Where(o => o != id)
            .Max(o => frames.Zip(Seed(o).Select(f => f.Engine)).TakeWhile(p => p.First == p.Second).Count());
        return (shared, frames[shared - 1] + " <- " + frames[shared]);
    }

    private static string ToldApart(string id) =>
        string.Create(CultureInfo.InvariantCulture, $"  told apart by frame {Distinguishing(id).At + 1}")
        + ", where it leaves every other stack: "
        + Distinguishing(id).Name;

    [Test]
    public void Diff_TwoCaptures_MatchesStacksAcrossModuleBases_AndListsTheNewOne()
    {
        (int exit, string output, string err) = CliRunner.Run(["diff", _base, _new, .. Symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("weight: event count; total 15 -> 20 (+33.33 %)"));
        Assert.That(output, Does.Contain("stacks: 2 in both, 1 new, 0 vanished"));
        Assert.That(
            output,
            Does.Contain(
                "#1 new: base 0 (0.00 %), new 3 (15.00 %), delta +3 (+15.00 points) "
                    + "sqlserver.latch_acquired\n"
                    + ToldApart("C")
                    + "\n"
                    + Engine("C")
                    + "\n"
            )
        );
        Assert.That(
            output,
            Does.Contain(
                "common: base 10 (66.67 %), new 12 (60.00 %), delta +2 (-6.67 points) "
                    + "sqlserver.latch_acquired\n"
                    + ToldApart("A")
                    + "\n"
                    + Engine("A")
                    + "\n"
            )
        );
        Assert.That(err, Does.Contain("base: " + _base));
        Assert.That(err, Does.Contain("base.modules.txt (sidecar beside the capture)"));
    }

    [Test]
    public void Diff_FailIfGrows_Exits5_AndSaysWhatTripped()
    {
        (int exit, _, string err) = CliRunner.Run(["diff", _base, _new, "--fail-if-grows", "20", .. Symbols]);
        Assert.That(exit, Is.EqualTo(5));
        Assert.That(
            err,
            Does.Contain("gate: total event count 15 -> 20 (+33.33 %): grew by more than 20 % (--fail-if-grows)")
        );

        Assert.That(CliRunner.Run(["diff", _base, _new, "--fail-if-grows", "40", .. Symbols]).Exit, Is.EqualTo(0));

        (int bexit, string output, string berr) = CliRunner.Run([
            "diff",
            _base,
            _new,
            "--fail-if-bucket-grows",
            "10",
            .. Symbols,
        ]);
        Assert.That(bexit, Is.EqualTo(5));
        // Named where it leaves the other stacks (A, B and C share their leaf frames).
        Assert.That(
            berr,
            Does.Contain("largest share growth: new stack sqlserver.latch_acquired " + Distinguishing("C").Name)
        );
        Assert.That(output, Does.Contain("result: FAILED"));
        Assert.That(
            CliRunner.Run(["diff", _base, _new, "--fail-if-bucket-grows", "16", .. Symbols]).Exit,
            Is.EqualTo(0)
        );
        Assert.That(CliRunner.Run(["diff", _base, _new, "--fail-if-grows", "-1", .. Symbols]).Exit, Is.EqualTo(2));
    }

    [Test]
    public void Diff_FoldedAndSvg_AreDifferential()
    {
        string folded = _tmp.File("d.folded");
        string svg = _tmp.File("d.svg");
        (int exit, _, string err) = CliRunner.Run(["diff", _base, _new, "--folded", folded, "--svg", svg, .. Symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = File.ReadAllLines(folded);
        string Path(string id) => string.Join(";", Seed(id).Select(f => f.Engine).Reverse());
        Assert.That(lines, Is.EquivalentTo(new[] { Path("A") + " 10 12", Path("B") + " 5 5", Path("C") + " 0 3" }));
        string svgText = File.ReadAllText(svg);
        Assert.That(svgText, Does.Contain("Differential"));
        Assert.That(svgText, Does.Contain("baseline"));
    }

    [Test]
    public void Diff_JsonAndCsv_CarryEveryStack()
    {
        (int exit, string json, string err) = CliRunner.Run([
            "diff",
            _base,
            _new,
            "--format",
            "json",
            "--fail-if-grows",
            "50",
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        JsonElement doc = DocumentJson.Parse(json);
        Assert.That(DocumentJson.Value(doc, "base total").GetInt64(), Is.EqualTo(15));
        Assert.That(DocumentJson.Value(doc, "new total").GetInt64(), Is.EqualTo(20));
        Assert.That(
            DocumentJson.Table(doc, "Stack diff").Select(c => c["change"].GetString()),
            Is.EqualTo(new[] { "new", "common", "common" })
        );
        Assert.That(DocumentJson.Value(doc, "tripped").GetString(), Is.EqualTo("no"));

        (_, string csv, _) = CliRunner.Run(["diff", _base, _new, "--format", "csv", .. Symbols]);
        Assert.That(
            csv,
            Does.StartWith(
                "change,event,base_count,new_count,base_weight,new_weight,base_share,new_share,"
                    + "delta,share_delta,leaf,distinguishing_frames,frames\n"
            )
        );
        Assert.That(
            csv,
            Does.Contain(
                "\nnew,sqlserver.latch_acquired,0,3,0,3,0,0.15,3,0.15,"
                    + Seed("C")[0].Engine
                    + ","
                    + Distinguishing("C").Name
                    + ","
            )
        );
    }

    [Test]
    public void Diff_SideWithoutCallstacks_Exits4_NamingTheSide()
    {
        var c = new StackCaptures();
        string path = _tmp.File("bare_0_133601526724170000.xel");
        c.WriteXel(path, [c.Latch(At(0), null, 1)]);
        (int exit, _, string err) = CliRunner.Run(["diff", _base, path, .. Symbols]);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(err, Does.Contain("xeanalyze: new " + path + ": "));
        Assert.That(err, Does.Contain("package0.callstack"));
    }

    [Test]
    public void Diff_SameInputTwice_SameBytes_InTurkishCulture()
    {
        (_, string first, _) = CliRunner.Run(["diff", _base, _new, .. Symbols]);
        CultureInfo saved = CultureInfo.CurrentCulture;
        try
        {
            CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo("tr-TR");
            (_, string again, _) = CliRunner.Run(["diff", _base, _new, .. Symbols]);
            Assert.That(again, Is.EqualTo(first));
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
        }
    }
}

using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// <c>--no-reasons</c> and <c>--flame-root</c> on <c>stacks</c> and <c>report</c>: one option each, the same meaning as
/// <c>resolve</c>'s <c>--no-reasons</c>.
/// </summary>
public sealed class StackPresentationCliTests
{
    private const string Reason = " -- unresolved: ";

    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    private static string Latch => Path.Combine(TestPaths.Samples, SampleData.Latch);

    [Test]
    public void Stacks_NoReasons_ListsTheOutOfModuleFrameWithoutItsReason()
    {
        (int exit, string with, string err) = CliRunner.Run(["stacks", Latch, .. ReportTestSupport.SymbolArgs]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] unresolved = [.. with.Split('\n').Where(l => l.Contains(Reason, StringComparison.Ordinal))];
        Assert.That(unresolved, Is.Not.Empty, "the sample has an out-of-module frame");

        (exit, string without, err) = CliRunner.Run(["stacks", Latch, "--no-reasons", .. ReportTestSupport.SymbolArgs]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(without, Does.Not.Contain(Reason));
        foreach (string line in unresolved)
        {
            Assert.That(
                without,
                Does.Contain("\n" + line[..line.IndexOf(Reason, StringComparison.Ordinal)] + "\n"),
                "the frame itself stays"
            );
        }
    }

    [Test]
    public void Report_NoReasons_LeavesReasonsOutOfTheFrames_ButKeepsTheReasonColumn()
    {
        string with = _temp.File("with");
        string without = _temp.File("without");
        Assert.That(CliRunner.Run(["report", Latch, "-o", with, .. ReportTestSupport.SymbolArgs]).Exit, Is.EqualTo(0));
        Assert.That(
            CliRunner.Run(["report", Latch, "-o", without, "--no-reasons", .. ReportTestSupport.SymbolArgs]).Exit,
            Is.EqualTo(0)
        );

        Assert.That(File.ReadAllText(Path.Combine(with, "index.html")), Does.Contain(Reason));
        Assert.That(File.ReadAllText(Path.Combine(without, "index.html")), Does.Not.Contain(Reason));
        string frames = File.ReadAllText(Path.Combine(without, "stacks.stack-bucket-frames.csv"));
        Assert.That(frames, Does.Contain(",unresolved,"), "the frames table keeps each frame's status and reason");
    }

    [Test]
    public void FlameRoot_ChoosesTheEnd_AndRejectsAnUnknownValue()
    {
        // The sample's stacks all end in the same latch leaf and start in different callers: auto draws from the leaf.
        (int exit, string auto, string err) = CliRunner.Run([
            "stacks",
            Latch,
            "--format",
            "svg",
            .. ReportTestSupport.SymbolArgs,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(auto, Does.Contain("icicle from the leaf frame"));

        (exit, string caller, err) = CliRunner.Run([
            "stacks",
            Latch,
            "--format",
            "svg",
            "--flame-root",
            "caller",
            .. ReportTestSupport.SymbolArgs,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(caller, Does.Not.Contain("icicle"));

        string dir = _temp.File("report");
        Assert.That(
            CliRunner.Run(["report", Latch, "-o", dir, "--flame-root", "caller", .. ReportTestSupport.SymbolArgs]).Exit,
            Is.EqualTo(0)
        );
        Assert.That(File.ReadAllText(Path.Combine(dir, "index.html")), Does.Not.Contain("icicle"));

        (exit, _, err) = CliRunner.Run(["stacks", Latch, "--flame-root", "root"]);
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.Contain("'root' not recognized"));
    }
}

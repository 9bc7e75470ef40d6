using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// <c>--lines</c> and <c>--inlines</c> of <c>resolve</c>, <c>stacks</c>, <c>diff</c> and <c>report</c> on the
/// private-PDB fixture
/// <c>TestData/lines/xelines.*</c> (whose lines and inline chains are checked against llvm-symbolizer in
/// PdbLinesFixtureTests), the exact rendering in each frame style, and frames of public PDBs unchanged by the options.
/// </summary>
public sealed class SourceLinesCliTests
{
    private static readonly string Lines = Path.Combine(TestPaths.TestData, "lines");
    private static readonly string[] Symbols = ["--symbols", Lines, "--binaries", Lines, "--offline"];

    // Return addresses: 0x1042 after Top's call to Sink inside the inlined Mid (xelines.cpp:21); 0x1020 inside Leaf
    // inlined into Mid inlined into Top; 0x10cf after Count's call to Sink; 0x10e0 in Split's lines from
    // xelines.body.inc, inlined into Count.
    private const string Input =
        "00 xelines.dll+0x1042\n01 xelines.dll+0x1020\n02 xelines.dll+0x10cf\n03 xelines.dll+0x10e0\n";

    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    [Test]
    public void Resolve_WithLinesAndInlines_EngineStyle_WritesFileAtLineAndNumberedInlineFrames()
    {
        Assert.That(
            ResolveLines("engine", "--lines", "--inlines"),
            Is.EqualTo(
                new[]
                {
                    @"00 (Inline Function) xelines.dll!Mid+0x23 [C:\src\xelines.cpp @ 21]",
                    @"01 xelines.dll!Top+0x32 [C:\src\xelines.cpp @ 28]",
                    @"02 (Inline Function) xelines.dll!xe::Leaf+0x1 [C:\src\xelines.h @ 21]",
                    @"03 (Inline Function) xelines.dll!Mid+0x1 [C:\src\xelines.cpp @ 19]",
                    @"04 xelines.dll!Top+0x10 [C:\src\xelines.cpp @ 28]",
                    @"05 xelines.dll!Count+0x2f [C:\src\xelines.cpp @ 37]",
                    @"06 (Inline Function) xelines.dll!xe::Split+0x6 [C:\src\xelines.body.inc @ 2]",
                    @"07 xelines.dll!Count+0x40 [C:\src\xelines.cpp @ 41]",
                }
            )
        );
    }

    [Test]
    public void Resolve_WithLinesAndInlines_ResolverStyle_WritesTabParenthesesAndDecimalOffsets()
    {
        Assert.That(
            ResolveLines("resolver", "--lines", "--inlines"),
            Is.EqualTo(
                new[]
                {
                    "00 (Inline Function) xelines!Mid+35\t(C:\\src\\xelines.cpp:21)",
                    "01 xelines!Top+50\t(C:\\src\\xelines.cpp:28)",
                    "02 (Inline Function) xelines!xe::Leaf+1\t(C:\\src\\xelines.h:21)",
                    "03 (Inline Function) xelines!Mid+1\t(C:\\src\\xelines.cpp:19)",
                    "04 xelines!Top+16\t(C:\\src\\xelines.cpp:28)",
                    "05 xelines!Count+47\t(C:\\src\\xelines.cpp:37)",
                    "06 (Inline Function) xelines!xe::Split+6\t(C:\\src\\xelines.body.inc:2)",
                    "07 xelines!Count+64\t(C:\\src\\xelines.cpp:41)",
                }
            )
        );
    }

    [Test]
    public void Resolve_WithLinesAndInlines_WinDbgStyle_WritesModuleWithoutExtension()
    {
        Assert.That(
            ResolveLines("windbg", "--lines", "--inlines"),
            Is.EqualTo(
                new[]
                {
                    @"00 (Inline Function) xelines!Mid+0x23 [C:\src\xelines.cpp @ 21]",
                    @"01 xelines!Top+0x32 [C:\src\xelines.cpp @ 28]",
                    @"02 (Inline Function) xelines!xe::Leaf+0x1 [C:\src\xelines.h @ 21]",
                    @"03 (Inline Function) xelines!Mid+0x1 [C:\src\xelines.cpp @ 19]",
                    @"04 xelines!Top+0x10 [C:\src\xelines.cpp @ 28]",
                    @"05 xelines!Count+0x2f [C:\src\xelines.cpp @ 37]",
                    @"06 (Inline Function) xelines!xe::Split+0x6 [C:\src\xelines.body.inc @ 2]",
                    @"07 xelines!Count+0x40 [C:\src\xelines.cpp @ 41]",
                }
            )
        );
    }

    [Test]
    public void Resolve_LinesAndInlinesSeparately_AndNeither()
    {
        Assert.That(
            ResolveLines("engine"),
            Is.EqualTo(
                new[]
                {
                    "00 xelines.dll!Top+0x32",
                    "01 xelines.dll!Top+0x10",
                    "02 xelines.dll!Count+0x2f",
                    "03 xelines.dll!Count+0x40",
                }
            )
        );
        Assert.That(
            ResolveLines("engine", "--lines"),
            Is.EqualTo(
                new[]
                {
                    @"00 xelines.dll!Top+0x32 [C:\src\xelines.cpp @ 28]",
                    @"01 xelines.dll!Top+0x10 [C:\src\xelines.cpp @ 28]",
                    @"02 xelines.dll!Count+0x2f [C:\src\xelines.cpp @ 37]",
                    @"03 xelines.dll!Count+0x40 [C:\src\xelines.cpp @ 41]",
                }
            )
        );
        Assert.That(
            ResolveLines("engine", "--inlines", "--no-offsets"),
            Is.EqualTo(
                new[]
                {
                    "00 (Inline Function) xelines.dll!Mid",
                    "01 xelines.dll!Top",
                    "02 (Inline Function) xelines.dll!xe::Leaf",
                    "03 (Inline Function) xelines.dll!Mid",
                    "04 xelines.dll!Top",
                    "05 xelines.dll!Count",
                    "06 (Inline Function) xelines.dll!xe::Split",
                    "07 xelines.dll!Count",
                }
            )
        );
    }

    [Test]
    public void Resolve_PublicPdbFrames_AreUnchangedByLinesAndInlines()
    {
        string input = _tmp.File("a.txt");
        File.WriteAllText(input, ResolutionFixtures.StackAModuleOffsetText() + "\n");
        string[] common =
        [
            "resolve",
            input,
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
            "--offline",
        ];
        (int exit, string plain, _) = CliRunner.Run(common);
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(ResolutionFixtures.Lines(plain), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        foreach (string style in new[] { "engine", "resolver", "windbg" })
        {
            (_, string without, _) = CliRunner.Run([.. common, "--frame-style", style]);
            (int e, string with, string err) = CliRunner.Run([
                .. common,
                "--frame-style",
                style,
                "--lines",
                "--inlines",
            ]);
            Assert.That(e, Is.EqualTo(0), err);
            Assert.That(with, Is.EqualTo(without), style);
        }
    }

    [Test]
    public void Stacks_WithInlines_PutsInlineFramesIntoTheBuckets_InEveryFormat()
    {
        string histogram = Histogram(("xelines.dll+0x1020\nxelines.dll+0x10cf", 7), ("xelines.dll+0x1042", 3));
        (int exit, string json, string err) = CliRunner.Run([
            "stacks",
            histogram,
            "--format",
            "json",
            "--lines",
            "--inlines",
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        {
            JsonElement doc = DocumentJson.Parse(json);
            Assert.That(DocumentJson.Table(doc, "Stack buckets")[0]["count"].GetInt64(), Is.EqualTo(7));
            Assert.That(
                DocumentJson.FrameTexts(DocumentJson.Stacks(doc)[0]),
                Is.EqualTo(
                    new[]
                    {
                        @"(Inline Function) xelines.dll!xe::Leaf+0x1 [C:\src\xelines.h @ 21]",
                        @"(Inline Function) xelines.dll!Mid+0x1 [C:\src\xelines.cpp @ 19]",
                        @"xelines.dll!Top+0x10 [C:\src\xelines.cpp @ 28]",
                        @"xelines.dll!Count+0x2f [C:\src\xelines.cpp @ 37]",
                    }
                )
            );
        }

        (_, string folded, _) = CliRunner.Run(["stacks", histogram, "--format", "folded", "--inlines", .. Symbols]);
        Assert.That(
            folded.Split('\n', StringSplitOptions.RemoveEmptyEntries),
            Has.Member(
                "xelines.dll!Count+0x2f;xelines.dll!Top+0x10;(Inline Function) xelines.dll!Mid+0x1;(Inline Function) "
                    + "xelines.dll!xe::Leaf+0x1 7"
            )
        );

        // Without the options the buckets are exactly as before: one frame per address.
        (_, string plain, _) = CliRunner.Run(["stacks", histogram, "--format", "folded", .. Symbols]);
        Assert.That(
            plain.Split('\n', StringSplitOptions.RemoveEmptyEntries),
            Has.Member("xelines.dll!Count+0x2f;xelines.dll!Top+0x10 7")
        );
    }

    [Test]
    public void Diff_And_Report_TakeLinesAndInlines()
    {
        string a = Histogram(("xelines.dll+0x1020", 4));
        string b = Histogram(("xelines.dll+0x1020", 9));
        (int exit, string diff, string err) = CliRunner.Run([
            "diff",
            a,
            b,
            "--format",
            "json",
            "--lines",
            "--inlines",
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        {
            Assert.That(
                DocumentJson.Lines(DocumentJson.Table(DocumentJson.Parse(diff), "Stack diff")[0]["frames"]),
                Is.EqualTo(
                    new[]
                    {
                        @"(Inline Function) xelines.dll!xe::Leaf+0x1 [C:\src\xelines.h @ 21]",
                        @"(Inline Function) xelines.dll!Mid+0x1 [C:\src\xelines.cpp @ 19]",
                        @"xelines.dll!Top+0x10 [C:\src\xelines.cpp @ 28]",
                    }
                )
            );
        }

        string report = Path.Combine(_tmp.Path, "report");
        (exit, _, err) = CliRunner.Run(["report", b, "-o", report, "--lines", "--inlines", .. Symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string reportJson = File.ReadAllText(Path.Combine(report, "report.json"));
        using (JsonDocument doc = JsonDocument.Parse(reportJson))
        {
            Assert.That(
                JsonStrings(doc.RootElement),
                Has.Some.Contains("(Inline Function) xelines.dll!Mid+0x1 [C:\\src\\xelines.cpp @ 19]")
            );
        }

        Assert.That(
            File.ReadAllText(Path.Combine(report, "index.html")),
            Does.Contain("(Inline Function) xelines.dll!Mid+0x1 [C:\\src\\xelines.cpp @ 19]")
        );
    }

    /// <summary>Every string value of a JSON document.</summary>
    internal static IEnumerable<string> JsonStrings(JsonElement e) =>
        e.ValueKind switch
        {
            JsonValueKind.String => [e.GetString()!],
            JsonValueKind.Array => e.EnumerateArray().SelectMany(JsonStrings),
            JsonValueKind.Object => e.EnumerateObject().SelectMany(p => JsonStrings(p.Value)),
            _ => [],
        };

    [Test]
    public void Export_Resolve_TakesLinesAndInlines_AndPublicPdbFramesResolveAsBefore()
    {
        string capture = Path.Combine(TestPaths.Samples, "latch_nesting_full");
        string[] common =
        [
            "export",
            capture,
            "--format",
            "parquet",
            "--resolve",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
            "--offline",
        ];
        (int exit, _, string plain) = CliRunner.Run([.. common, "-o", _tmp.File("plain")]);
        Assert.That(exit, Is.EqualTo(0), plain);
        (exit, _, string with) = CliRunner.Run([.. common, "-o", _tmp.File("lines"), "--lines", "--inlines"]);
        Assert.That(exit, Is.EqualTo(0), with);
        string Summary(string err) =>
            err.Split('\n').Single(l => l.StartsWith("xeanalyze: --resolve:", StringComparison.Ordinal));
        Assert.That(Summary(with), Is.EqualTo(Summary(plain)));
        Assert.That(
            Directory.GetFiles(_tmp.File("lines")).Select(Path.GetFileName),
            Is.EquivalentTo(Directory.GetFiles(_tmp.File("plain")).Select(Path.GetFileName))
        );
        foreach (string file in Directory.GetFiles(_tmp.File("plain")))
        {
            // Public PDBs: the frames columns, and so the files, are byte for byte the same.
            Assert.That(
                File.ReadAllBytes(Path.Combine(_tmp.File("lines"), Path.GetFileName(file))),
                Is.EqualTo(File.ReadAllBytes(file)),
                file
            );
        }
    }

    private string[] ResolveLines(string style, params string[] options)
    {
        string input = _tmp.File("in-" + Guid.NewGuid().ToString("N") + ".txt");
        File.WriteAllText(input, Input);
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--frame-style",
            style,
            .. options,
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(err, Does.Contain("0 unverified"));
        return ResolutionFixtures.Lines(output).ToArray();
    }

    private string Histogram(params (string Frames, int Count)[] slots)
    {
        string path = _tmp.File("h-" + Guid.NewGuid().ToString("N") + ".xml");
        File.WriteAllText(
            path,
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n"
                + string.Concat(
                    slots.Select(s =>
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"  <Slot count=\"{s.Count}\">\n    <value>{s.Frames}</value>\n  </Slot>\n"
                        )
                    )
                )
                + "</HistogramTarget>\n"
        );
        return path;
    }
}

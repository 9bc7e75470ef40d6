using System.Text.Json;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Output;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// A PDB matched by name only (nothing gives the module's GUID/age) is used only from a folder named on the command
/// line, and then every frame it resolves carries <c> -- unverified: PDB matched by name only</c> in every output
/// format; a PDB of that name in the default cache or a <c>srv*</c>/<c>cache*</c> store is never used.
/// </summary>
[NonParallelizable] // one test sets XDG_CACHE_HOME
public sealed class UnverifiedMatchCliTests
{
    private const string Mark = " -- unverified: PDB matched by name only";
    private static readonly string Histogram = Path.Combine(
        TestPaths.Samples,
        "latch_nesting_full_histogram",
        "latch_nesting_full.histogram.xml"
    );
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    [Test]
    public void Stacks_NameOnlyMatchFromANamedFolder_MarksEveryFrame_InEveryFormat()
    {
        // module+offset frames, no --binaries, no --sql-build: only the names identify the PDBs, found in the folder
        // named with --symbols.
        string[] symbols = ["--symbols", TestPaths.SymbolsCache, "--offline"];
        (int exit, string text, string err) = CliRunner.Run(["stacks", Histogram, .. symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] frames = [.. text.Split('\n').Where(l => l.Contains(".dll!", StringComparison.Ordinal))];
        Assert.That(frames, Is.Not.Empty);
        Assert.That(
            frames.Where(f => !f.EndsWith(Mark, StringComparison.Ordinal)),
            Is.Empty,
            "text: every resolved frame"
        );
        Assert.That(text, Does.Contain("unverified: give --sql-build or --binaries"), "the per-bucket note stays");

        (_, string csv, _) = CliRunner.Run(["stacks", Histogram, "--format", "csv", .. symbols]);
        Assert.That(csv, Does.Contain("sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9" + Mark));

        (_, string json, _) = CliRunner.Run(["stacks", Histogram, "--format", "json", .. symbols]);
        {
            var all = DocumentJson
                .Stacks(DocumentJson.Parse(json))
                .SelectMany(b => b.GetProperty("frames").EnumerateArray())
                .ToList();
            var resolved = all.Where(f => f.GetProperty("status").GetString() == "resolvedOffline").ToList();
            Assert.That(resolved, Is.Not.Empty);
            Assert.That(
                resolved.Select(f => f.GetProperty("text").GetString()),
                Has.All.EndsWith(Mark),
                "json: frame text"
            );
            Assert.That(
                resolved.Select(f => f.GetProperty("verified").GetBoolean()),
                Has.All.False,
                "json: verified flag"
            );
        }

        (_, string folded, _) = CliRunner.Run(["stacks", Histogram, "--format", "folded", .. symbols]);
        Assert.That(
            folded.Split('\n', StringSplitOptions.RemoveEmptyEntries),
            Has.All.Contains("Publish+0x1a9" + Mark),
            "folded"
        );

        string svg = _tmp.File("f.svg");
        Assert.That(CliRunner.Run(["stacks", Histogram, "--format", "svg", "-o", svg, .. symbols]).Exit, Is.EqualTo(0));
        Assert.That(
            File.ReadAllText(svg),
            Does.Contain("<title>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9" + Mark),
            "flame graph titles"
        );

        string html = _tmp.File("s.html");
        Assert.That(
            CliRunner.Run(["stacks", Histogram, "--format", "html", "-o", html, .. symbols]).Exit,
            Is.EqualTo(0)
        );
        Assert.That(File.ReadAllText(html), Does.Contain("Publish+0x1a9" + Mark), "html");

        string speedscope = _tmp.File("s.json");
        Assert.That(
            CliRunner.Run(["stacks", Histogram, "--format", "speedscope", "-o", speedscope, .. symbols]).Exit,
            Is.EqualTo(0)
        );
        using (JsonDocument doc = JsonDocument.Parse(File.ReadAllText(speedscope)))
        {
            Assert.That(
                SourceLinesCliTests.JsonStrings(doc.RootElement),
                Has.Some.EndsWith("Publish+0x1a9" + Mark),
                "speedscope frame names"
            );
        }
    }

    [Test]
    public void Report_And_Diff_NameOnlyMatchFromANamedFolder_MarkEveryFrame()
    {
        string[] symbols = ["--symbols", TestPaths.SymbolsCache, "--offline"];
        string report = Path.Combine(_tmp.Path, "report");
        (int exit, _, string err) = CliRunner.Run(["report", Histogram, "-o", report, .. symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] files = Directory.GetFiles(report);
        Assert.That(
            File.ReadAllText(Path.Combine(report, "index.html")),
            Does.Contain("Publish+0x1a9" + Mark),
            "report page"
        );
        using (JsonDocument doc = JsonDocument.Parse(File.ReadAllText(Path.Combine(report, "report.json"))))
        {
            Assert.That(
                SourceLinesCliTests.JsonStrings(doc.RootElement),
                Has.Some.EndsWith("Publish+0x1a9" + Mark),
                "report.json"
            );
        }

        string[] folded = files.Where(f => f.EndsWith(".folded", StringComparison.Ordinal)).ToArray();
        Assert.That(folded, Is.Not.Empty);
        Assert.That(File.ReadAllText(folded[0]), Does.Contain("Publish+0x1a9" + Mark), "report folded file");
        Assert.That(
            files
                .Where(f => f.EndsWith(".svg", StringComparison.Ordinal))
                .Any(f =>
                    File.ReadAllText(f)
                        .Contains(
                            "<title>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9" + Mark,
                            StringComparison.Ordinal
                        )
                ),
            Is.True,
            "report flame graph titles"
        );
        Assert.That(
            files
                .Where(f => f.EndsWith(".csv", StringComparison.Ordinal))
                .Any(f => File.ReadAllText(f).Contains("Publish+0x1a9" + Mark, StringComparison.Ordinal)),
            Is.True,
            "report CSV tables"
        );

        string d = _tmp.File("d.folded");
        (exit, string diff, err) = CliRunner.Run(["diff", Histogram, Histogram, "--folded", d, .. symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(diff, Does.Contain("Publish+0x1a9" + Mark), "diff text");
        Assert.That(File.ReadAllText(d), Does.Contain("Publish+0x1a9" + Mark), "diff folded");
    }

    [TestCase("srv*{0}")]
    [TestCase("cache*{0}")]
    public void Stacks_NeverUsesANameOnlyMatch_FromAStoreOrCacheElement(string element)
    {
        (int exit, string text, string err) = CliRunner.Run([
            "stacks",
            Histogram,
            "--symbols",
            string.Format(System.Globalization.CultureInfo.InvariantCulture, element, TestPaths.SymbolsCache),
            "--offline",
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(text, Does.Not.Contain(Mark));
        Assert.That(text, Does.Not.Contain(".dll!"), "no frame resolved");
        Assert.That(text, Does.Contain("no PDB for sqlmin.pdb (GUID/age unknown)"));
    }

    [Test]
    public void Stacks_WithNoSymbolOptions_NeverUsesAPdbOfTheDefaultCache_ByNameOnly()
    {
        // A new user's default cache holding sqlmin.pdb of some build: frames of a capture whose build nothing
        // identifies stay unresolved.
        string xdg = Path.Combine(_tmp.Path, "xdg");
        CopyTree(TestPaths.SymbolsCache, Path.Combine(xdg, "xeanalyzer", "symbols"));
        string? oldXdg = Environment.GetEnvironmentVariable("XDG_CACHE_HOME");
        string? oldPath = Environment.GetEnvironmentVariable("_NT_SYMBOL_PATH");
        string? oldAlt = Environment.GetEnvironmentVariable("_NT_ALT_SYMBOL_PATH");
        try
        {
            Environment.SetEnvironmentVariable("XDG_CACHE_HOME", xdg);
            Environment.SetEnvironmentVariable("_NT_SYMBOL_PATH", null);
            Environment.SetEnvironmentVariable("_NT_ALT_SYMBOL_PATH", null);
            (int exit, string text, string err) = CliRunner.Run(["stacks", Histogram]);
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(text, Does.Not.Contain(Mark));
            Assert.That(text, Does.Not.Contain(".dll!"), "no frame resolved through the default cache's PDB");
            Assert.That(text, Does.Contain("no PDB for sqlmin.pdb (GUID/age unknown)"));
            Assert.That(
                text,
                Does.Contain("has that name but is not used"),
                "the summary says why the cached PDB was not used"
            );

            // With the build identified, the same cache resolves every frame, verified.
            (exit, text, err) = CliRunner.Run(["stacks", Histogram, "--binaries", TestPaths.SymbolsCache]);
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(text, Does.Contain("sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9\n"));
            Assert.That(text, Does.Not.Contain(Mark));
        }
        finally
        {
            Environment.SetEnvironmentVariable("XDG_CACHE_HOME", oldXdg);
            Environment.SetEnvironmentVariable("_NT_SYMBOL_PATH", oldPath);
            Environment.SetEnvironmentVariable("_NT_ALT_SYMBOL_PATH", oldAlt);
        }
    }

    private static void CopyTree(string from, string to)
    {
        foreach (string file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories))
        {
            string target = Path.Combine(to, Path.GetRelativePath(from, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }
}

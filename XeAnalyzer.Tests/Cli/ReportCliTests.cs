using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Cli;

/// <summary><c>xeanalyze report</c> run in-process: exit codes, files, determinism and culture.</summary>
public sealed class ReportCliTests
{
    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    private static string[] Report(string input, string output, params string[] more) =>
        ["report", input, "-o", output, .. ReportTestSupport.SymbolArgs, .. more];

    [TestCase(SampleData.Latch, "latches")]
    [TestCase(SampleData.Memory, "memory")]
    [TestCase(SampleData.Waits, "waits")]
    public void Report_Sample_Exit0_WritesPageJsonCsvAndSvg(string set, string analysis)
    {
        string dir = _temp.File("out");
        (int exit, string stdout, string err) = CliRunner.Run(Report(Path.Combine(TestPaths.Samples, set), dir));

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(stdout, Does.Contain("  " + analysis + ": done"));
        Assert.That(File.Exists(Path.Combine(dir, "index.html")), Is.True);
        using JsonDocument json = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        Assert.That(json.RootElement.GetProperty("title").GetString(), Does.EndWith(set));
        Assert.That(Directory.GetFiles(dir, analysis + ".*.csv"), Is.Not.Empty);
        Assert.That(Directory.GetFiles(dir, "*.svg"), Is.Not.Empty);
        foreach (string csv in Directory.GetFiles(dir, "*.csv"))
        {
            List<string[]> rows = ReportTestSupport.ParseCsv(File.ReadAllText(csv));
            Assert.That(rows, Is.Not.Empty, csv);
            Assert.That(
                rows.Select(r => r.Length).Distinct().Count(),
                Is.EqualTo(1),
                csv + ": the same number of fields in every record"
            );
        }
    }

    [Test]
    public void Report_OfABuiltInSession_NamesIt_AndListsWhatOtherAnalysesNeedOnce_WithoutSessionChanges()
    {
        string dir = _temp.File("out");
        (int exit, _, string err) = CliRunner.Run(
            Report(Path.Combine(TestPaths.Samples, SampleData.SystemHealth), dir)
        );
        Assert.That(exit, Is.EqualTo(0), err);
        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Contain("system_health (built in; recognised by file name system_health_stacks_0_"));
        Assert.That(page, Does.Contain("Other analyses").And.Contain("What other analyses would need"));
        Assert.That(page, Does.Not.Contain("ALTER EVENT SESSION"), "a session SQL Server manages is not one to alter");
        Assert.That(page, Does.Not.Contain(": not possible</"), "no section per analysis that is not possible");

        // A capture of a session of one's own still gets the session change that would enable each analysis.
        string own = _temp.File("own");
        CliRunner.Run(Report(Path.Combine(TestPaths.Samples, SampleData.Latch), own));
        Assert.That(File.ReadAllText(Path.Combine(own, "index.html")), Does.Not.Contain("built in"));
    }

    [Test]
    public void Report_NoAnalysableEvents_Exit4_AndStillWritesThePage()
    {
        var c = new AnalysisCaptures();
        string capture = _temp.File("batches.xel");
        c.WriteXel(capture, Enumerable.Range(0, 10).Select(i => c.Batch(AnalysisCaptures.At(i))));
        string dir = _temp.File("out");

        (int exit, string stdout, string err) = CliRunner.Run("report", capture, "-o", dir);

        Assert.That(exit, Is.EqualTo(4));
        Assert.That(err, Does.Contain("no analysis was possible"));
        Assert.That(stdout, Does.Contain("latches: not possible"));
        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Contain("This page is not a result").And.Contain("ADD EVENT sqlserver.latch_acquired"));
    }

    [Test]
    public void Report_UnreadableInputs_Exit1_Partial_Exit3_Usage_Exit2()
    {
        string dir = _temp.File("out");
        Assert.That(CliRunner.Run(Report(_temp.File("missing.xel"), dir)).Exit, Is.EqualTo(1));

        string fake = _temp.File("fake.xel");
        File.WriteAllText(fake, "plain text, not an Extended Events capture");
        (int exit, _, string err) = CliRunner.Run(Report(fake, dir));
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err, Does.Contain("fake.xel").And.Contain("magic"));

        string config = _temp.File("app.config");
        File.WriteAllText(config, "<configuration><a/></configuration>");
        (exit, _, err) = CliRunner.Run(Report(config, dir));
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err, Does.Contain("expected Extended Events target data"));

        byte[] sample = File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch));
        string cut = _temp.File("cut_0_133601526724170000.xel");
        File.WriteAllBytes(cut, sample.AsSpan(0, sample.Length - 3000).ToArray());
        (exit, _, err) = CliRunner.Run(Report(cut, dir));
        Assert.That(exit, Is.EqualTo(3), err);
        Assert.That(err, Does.Contain("partial result"));

        string file = _temp.File("a-file");
        File.WriteAllText(file, "x");
        Assert.That(CliRunner.Run(Report(SampleData.CapturePath(SampleData.Latch), file)).Exit, Is.EqualTo(2));
        Assert.That(
            CliRunner.Run("report", SampleData.CapturePath(SampleData.Latch)).Exit,
            Is.EqualTo(2),
            "-o is required"
        );
    }

    [Test]
    public void Report_TwiceAndUnderAnotherCulture_SameBytes()
    {
        string input = Path.Combine(TestPaths.Samples, SampleData.Memory);
        string a = _temp.File("a"),
            b = _temp.File("b");
        Assert.That(CliRunner.Run(Report(input, a)).Exit, Is.EqualTo(0));
        CultureInfo saved = CultureInfo.CurrentCulture;
        try
        {
            CultureInfo.CurrentCulture = new CultureInfo("tr-TR");
            CultureInfo.CurrentUICulture = new CultureInfo("de-DE");
            Assert.That(CliRunner.Run(Report(input, b)).Exit, Is.EqualTo(0));
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
            CultureInfo.CurrentUICulture = saved;
        }

        ReportTestSupport.AssertSame(ReportTestSupport.Snapshot(a), ReportTestSupport.Snapshot(b));
    }

    [Test]
    public void Report_WhereAndFrameStyle_EveryAnalysisSeesOnlyTheFilteredEvents_AndThePageSaysSo()
    {
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Latch);
        long on27 = SampleData.Figure(figures, "scheduler.27");
        string dir = _temp.File("out");
        (int exit, string stdout, string err) = CliRunner.Run(
            Report(
                Path.Combine(TestPaths.Samples, SampleData.Latch),
                dir,
                "--where",
                "sqlos.scheduler_id=27",
                "--frame-style",
                "resolver",
                "--no-offsets"
            )
        );

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(
            stdout,
            Does.Contain(string.Create(CultureInfo.InvariantCulture, $"latches: done ({on27:N0} events)"))
        );
        Assert.That(
            stdout,
            Does.Contain(string.Create(CultureInfo.InvariantCulture, $"stacks: done ({on27:N0} events)"))
        );
        List<string[]> schedulers = ReportTestSupport.ParseCsv(
            File.ReadAllText(Path.Combine(dir, "latches.latch-acquired-by-sqlos-scheduler-id.csv"))
        );
        Assert.That(
            schedulers.Skip(1).Select(r => (r[0], r[1])),
            Is.EqualTo(new[] { ("27", on27.ToString(CultureInfo.InvariantCulture)) })
        );
        List<string[]> buckets = ReportTestSupport.ParseCsv(File.ReadAllText(Path.Combine(dir, "stacks.buckets.csv")));
        Assert.That(buckets.Skip(1).Sum(r => long.Parse(r[1], CultureInfo.InvariantCulture)), Is.EqualTo(on27));
        string[] resolved =
        [
            .. buckets.Skip(1).Select(r => r[^1]).Where(f => f.Contains('!', StringComparison.Ordinal)),
        ];
        Assert.That(resolved, Is.Not.Empty);
        Assert.That(
            resolved,
            Has.All.Not.Contain("+").And.All.Not.Contain(".dll!"),
            "resolver style (module without .dll), no offsets"
        );
        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Contain("sqlos.scheduler_id"), "the page shows the filter");

        Assert.That(
            CliRunner
                .Run(
                    Report(
                        Path.Combine(TestPaths.Samples, SampleData.Latch),
                        _temp.File("bad"),
                        "--where",
                        "no-equals-sign"
                    )
                )
                .Exit,
            Is.EqualTo(2),
            "a malformed --where is a usage error"
        );
    }

    [Test]
    public void Report_CaptureCutInsideItsMetadata_Exit3_PartialNothingAnalysed_NotPlainSessionAdvice()
    {
        string cut = _temp.File("cut_0_133601526724170000.xel");
        File.WriteAllBytes(cut, File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch)).AsSpan(0, 600).ToArray());
        string dir = _temp.File("out");

        (int exit, _, string err) = CliRunner.Run(Report(cut, dir));

        Assert.That(exit, Is.EqualTo(3), err);
        Assert.That(
            err,
            Does.Contain("may be in the part that could not be read").And.Contain("1 incomplete final buffer(s)")
        );
        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Contain("Partial, nothing analysed").And.Contain("the events may be in that part"));

        string batchOut = _temp.File("batch");
        (exit, _, err) = CliRunner.Run("batch", Path.GetDirectoryName(cut)!, "-o", batchOut, "--quiet");
        Assert.That(exit, Is.EqualTo(3), err);
        JsonElement summary = DocumentJson.ParseFile(Path.Combine(batchOut, "summary.json"));
        Dictionary<string, JsonElement> capture = DocumentJson
            .Table(summary, "Captures")
            .Single(c => c["capture"].GetString() == "cut_0_133601526724170000.xel");
        Assert.That(capture["status"].GetString(), Is.EqualTo("partial"));
    }

    [Test]
    public void Report_SeveralInputs_OneReport_EachCaptureWithItsOwnModuleList()
    {
        string dir = _temp.File("out");
        (int exit, string stdout, string err) = CliRunner.Run([
            "report",
            SampleData.CapturePath(SampleData.Latch),
            SampleData.CapturePath(SampleData.Memory),
            "-o",
            dir,
            .. ReportTestSupport.SymbolArgs,
        ]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(stdout, Does.Contain("latches: done").And.Contain("memory: done"));
        List<string[]> files = ReportTestSupport.ParseCsv(File.ReadAllText(Path.Combine(dir, "capture.files.csv")));
        Assert.That(
            files.Skip(1).Select(r => Path.GetFileName(r[^1])),
            Is.EqualTo(new[] { "latch_nesting_full.modules.txt", "cci_insert_memory.modules.txt" })
        );
        long events =
            SampleData.Figure(SampleData.Figures(SampleData.Latch), "events")
            + SampleData.Figure(SampleData.Figures(SampleData.Memory), "events");
        Assert.That(files.Skip(1).Sum(r => long.Parse(r[2], CultureInfo.InvariantCulture)), Is.EqualTo(events));
    }
}

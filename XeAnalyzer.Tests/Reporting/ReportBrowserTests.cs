using System.Buffers.Binary;
using System.Text.Json;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Browser;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Reporting;

/// <summary>
/// The pages of <c>xeanalyze report</c> and <c>xeanalyze batch</c> loaded in real headless Chromium: no console errors or
/// exceptions, the expected sections, charts and table rows, working links. Also keeps the screenshots of the sample reports
/// (<c>docs/report-latch-sample.png</c>, <c>docs/report-waits-sample.png</c>; rewritten when XEANALYZER_UPDATE_DOCS=1).
/// Fails on CI and is ignored elsewhere when Chromium is missing.
/// </summary>
[NonParallelizable]
[CancelAfter(300_000)]
public sealed class ReportBrowserTests
{
    private const string PageScript = """
        ({
          title: document.title,
          scripts: document.getElementsByTagName('script').length,
          sections: [...document.querySelectorAll('section.section > h2')].map(h => h.textContent),
          svgs: document.querySelectorAll('svg').length,
          bars: document.querySelectorAll('rect.bar').length,
          polylines: document.querySelectorAll('polyline.series').length,
          frames: document.querySelectorAll('g.frame').length,
          tables: document.querySelectorAll('table').length,
          rows: document.querySelectorAll('tbody tr').length,
          emptyRows: document.querySelectorAll('td.empty-table').length,
          captions: [...document.querySelectorAll('figcaption')].map(c => c.textContent),
          rowsOf: Object.fromEntries([...document.querySelectorAll('figure.table')].map(f => [f.querySelector('figcaption')?.textContent ?? '', f.querySelectorAll('tbody tr').length])),
          paragraphs: [...document.querySelectorAll('p.paragraph')].map(p => p.textContent),
          minSvgWidth: Math.min(...[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width)),
        })
        """;

    /// <summary>The height of the docs screenshots: the top of the page (overview, capture, stack buckets and flame graph).</summary>
    private const int ShotHeight = 3600;

    private HeadlessChromium? _browser;
    private TempFolder _temp = null!;

    [OneTimeSetUp]
    public async Task StartBrowser()
    {
        string exe = BrowserRequirement.RequireChromium();
        _temp = new TempFolder();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        _browser = await HeadlessChromium.LaunchAsync(exe, cts.Token);
    }

    [OneTimeTearDown]
    public async Task StopBrowser()
    {
        if (_browser is not null)
        {
            await _browser.DisposeAsync();
        }

        _temp?.Dispose();
    }

    private string Report(string set)
    {
        string dir = _temp.File("report-" + set);
        (int exit, _, string err) = CliRunner.Run(["report", Path.Combine(TestPaths.Samples, set), "-o", dir, .. ReportTestSupport.SymbolArgs]);
        Assert.That(exit, Is.EqualTo(0), err);
        return dir;
    }

    private async Task<JsonElement> LoadAsync(string page, CancellationToken cancellationToken)
    {
        ChromiumPage p = await _browser!.OpenPageAsync(cancellationToken);
        await p.NavigateAsync(page, cancellationToken);
        Assert.That(p.Problems(), Is.Empty, "console errors, exceptions or log errors in " + page);
        return await p.EvaluateAsync(PageScript, cancellationToken);
    }

    /// <summary>A PNG of the top <paramref name="height"/> CSS pixels of the page (the docs keep the look, not megabytes of page).</summary>
    private static Task<byte[]> CaptureTopAsync(ChromiumPage page, int width, int height, CancellationToken cancellationToken) =>
        page.CaptureViewportAsync(width, height, cancellationToken);

    private static string[] Strings(JsonElement array) => [.. array.EnumerateArray().Select(e => e.GetString()!)];

    /// <summary>Counts in report.json (the same document the page renders).</summary>
    private static (int Sections, int Charts, int Tables, int Rows) JsonCounts(string dir)
    {
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        JsonElement[] sections = [.. doc.RootElement.GetProperty("sections").EnumerateArray()];
        JsonElement[] blocks = [.. sections.SelectMany(s => s.GetProperty("blocks").EnumerateArray())];
        JsonElement[] tables = [.. blocks.Where(b => b.GetProperty("type").GetString() == "table")];
        return (sections.Length, blocks.Count(b => b.GetProperty("type").GetString() is "barChart" or "lineChart" or "flameGraph"), tables.Length,
            tables.Sum(t => Math.Max(1, t.GetProperty("rows").GetArrayLength())));
    }

    [Test]
    public async Task LatchSampleReport_Renders_WithSchedulersChartAndSymbolization(CancellationToken cancellationToken)
    {
        string dir = Report(SampleData.Latch);
        JsonElement c = await LoadAsync(Path.Combine(dir, "index.html"), cancellationToken);
        (int sections, int charts, int tables, int rows) = JsonCounts(dir);
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Latch);
        int schedulers = figures.Keys.Count(k => k.StartsWith("scheduler.", StringComparison.Ordinal));

        Assert.Multiple(() =>
        {
            Assert.That(c.GetProperty("scripts").GetInt32(), Is.Zero);
            Assert.That(Strings(c.GetProperty("sections")), Is.SupersetOf(new[]
            {
                "Overview", "Capture", "Stacks: Buckets", "Stacks: Largest buckets, frames leaf first", "Stacks: Bucket frames", "Symbolization: Callstacks", "Latches: Summary", "Latches: Acquires by scheduler", "Memory: not possible", "Waits: not possible", "Files",
            }));
            Assert.That(Strings(c.GetProperty("sections")), Has.Length.EqualTo(sections));
            Assert.That(c.GetProperty("svgs").GetInt32(), Is.EqualTo(charts).And.EqualTo(2), "the schedulers' bar chart and the flame graph");
            Assert.That(c.GetProperty("frames").GetInt32(), Is.GreaterThan(24), "flame graph frames");
            Assert.That(c.GetProperty("rowsOf").GetProperty("Buckets").GetInt32(), Is.EqualTo(SampleData.Figure(figures, "distinct_stacks")));
            Assert.That(c.GetProperty("bars").GetInt32(), Is.EqualTo(schedulers), "one bar per scheduler of the sample");
            Assert.That(c.GetProperty("tables").GetInt32(), Is.EqualTo(tables));
            Assert.That(c.GetProperty("rows").GetInt32(), Is.EqualTo(rows));
            Assert.That(c.GetProperty("rowsOf").GetProperty("latch_acquired by sqlos.scheduler_id").GetInt32(), Is.EqualTo(schedulers));
            Assert.That(c.GetProperty("rowsOf").GetProperty("Unresolved frames by reason").GetInt32(), Is.EqualTo(1), "only the out-of-module frame");
            Assert.That(c.GetProperty("minSvgWidth").GetDouble(), Is.GreaterThan(600));
        });
    }

    [Test]
    public async Task WaitAndMemorySampleReports_Render_WithTheirCharts(CancellationToken cancellationToken)
    {
        string waits = Report(SampleData.Waits);
        JsonElement w = await LoadAsync(Path.Combine(waits, "index.html"), cancellationToken);
        Assert.That(Strings(w.GetProperty("sections")), Is.SupersetOf(new[] { "Waits: By wait type", "Waits: Preceded by", "Symbolization: Callstacks" }));
        Assert.That(w.GetProperty("svgs").GetInt32(), Is.EqualTo(JsonCounts(waits).Charts).And.GreaterThan(0));
        Assert.That(w.GetProperty("rowsOf").GetProperty("Waits by wait type").GetInt32(), Is.EqualTo(4), "LATCH_EX, PAGEIOLATCH_SH, CXPACKET, PREEMPTIVE_HTTP_REQUEST");

        string memory = Report(SampleData.Memory);
        JsonElement m = await LoadAsync(Path.Combine(memory, "index.html"), cancellationToken);
        Assert.That(Strings(m.GetProperty("sections")), Does.Contain("Memory: Running total"));
        Assert.That(m.GetProperty("polylines").GetInt32(), Is.GreaterThanOrEqualTo(1));
        Assert.That(m.GetProperty("svgs").GetInt32(), Is.EqualTo(JsonCounts(memory).Charts));
        foreach (string svg in Directory.GetFiles(memory, "*.svg"))
        {
            ChromiumPage page = await _browser!.OpenPageAsync(cancellationToken);
            await page.NavigateAsync(svg, cancellationToken);
            Assert.That(page.Problems(), Is.Empty, svg);
            JsonElement r = await page.EvaluateAsync("({ root: document.documentElement.localName, errors: document.getElementsByTagName('parsererror').length })", cancellationToken);
            Assert.That(r.GetProperty("root").GetString(), Is.EqualTo("svg"), svg);
            Assert.That(r.GetProperty("errors").GetInt32(), Is.Zero, svg);
        }
    }

    [Test]
    public async Task NothingToAnalyseReport_Renders_AndSaysItIsNotAResult(CancellationToken cancellationToken)
    {
        var captures = new AnalysisCaptures();
        string capture = _temp.File("batches.xel");
        captures.WriteXel(capture, Enumerable.Range(0, 20).Select(i => captures.Batch(AnalysisCaptures.At(i * 10))));
        string dir = _temp.File("nothing");
        (int exit, _, string err) = CliRunner.Run("report", capture, "-o", dir);
        Assert.That(exit, Is.EqualTo(4), err);

        JsonElement c = await LoadAsync(Path.Combine(dir, "index.html"), cancellationToken);
        Assert.That(c.GetProperty("svgs").GetInt32(), Is.Zero);
        Assert.That(Strings(c.GetProperty("paragraphs")), Has.Some.Contains("This page is not a result"));
        Assert.That(Strings(c.GetProperty("sections")).Count(s => s.EndsWith(": not possible", StringComparison.Ordinal)), Is.EqualTo(5));
    }

    [Test]
    public async Task BatchIndex_Renders_AndEveryLinkOpensAReportWithoutErrors(CancellationToken cancellationToken)
    {
        string input = _temp.File("batch-in");
        ReportTestSupport.MakeBatchInput(input);
        File.WriteAllText(Path.Combine(input, "broken.xel"), "not a capture");
        string output = _temp.File("batch-out");
        (int exit, _, string err) = CliRunner.Run(["batch", input, "-o", output, "--keep-going", .. ReportTestSupport.SymbolArgs]);
        Assert.That(exit, Is.EqualTo(1), err);

        ChromiumPage page = await _browser!.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(Path.Combine(output, "index.html"), cancellationToken);
        Assert.That(page.Problems(), Is.Empty);
        JsonElement r = await page.EvaluateAsync(
            "({ rows: document.querySelectorAll('tr.capture').length, failed: document.querySelectorAll('tr.capture[data-status=failed]').length, scripts: document.getElementsByTagName('script').length, links: [...document.querySelectorAll('tr.capture a')].map(a => a.getAttribute('href')) })",
            cancellationToken);
        Assert.That(r.GetProperty("rows").GetInt32(), Is.EqualTo(8));
        Assert.That(r.GetProperty("failed").GetInt32(), Is.EqualTo(1));
        Assert.That(r.GetProperty("scripts").GetInt32(), Is.Zero);
        string[] links = Strings(r.GetProperty("links"));
        Assert.That(links, Has.Length.EqualTo(7), "a link per written report, none for the failed capture");
        foreach (string link in links)
        {
            string target = Path.GetFullPath(Path.Combine(output, link));
            Assert.That(target, Does.StartWith(Path.GetFullPath(output) + Path.DirectorySeparatorChar));
            Assert.That(File.Exists(target), Is.True, link);
            JsonElement linked = await LoadAsync(target, cancellationToken);
            Assert.That(Strings(linked.GetProperty("sections"))[0], Is.EqualTo("Overview"), link);
        }
    }

    /// <summary>
    /// Screenshots (the top 3,600 px) of the latch and wait sample reports. Set XEANALYZER_UPDATE_DOCS=1 to rewrite
    /// docs/report-latch-sample.png and docs/report-waits-sample.png (the pictures the README shows); otherwise they go to the test's
    /// work directory only.
    /// </summary>
    [Test]
    public async Task SampleReports_Screenshots_AreFullPagePngs(CancellationToken cancellationToken)
    {
        foreach ((string set, string name) in new[] { (SampleData.Latch, "report-latch-sample.png"), (SampleData.Waits, "report-waits-sample.png") })
        {
            // Run from the repository root with relative paths, as the README shows the command.
            string dir = _temp.File("shot-" + set);
            string saved = Environment.CurrentDirectory;
            int exit;
            string err;
            try
            {
                Environment.CurrentDirectory = TestPaths.RepoRoot;
                (exit, _, err) = CliRunner.Run("report", "sample-xel/" + set, "-o", dir, "--symbols", "symbols-cache", "--binaries", "symbols-cache", "--offline");
            }
            finally
            {
                Environment.CurrentDirectory = saved;
            }

            Assert.That(exit, Is.EqualTo(0), err);
            ChromiumPage page = await _browser!.OpenPageAsync(cancellationToken);
            await page.NavigateAsync(Path.Combine(dir, "index.html"), cancellationToken);
            Assert.That(page.Problems(), Is.Empty);
            byte[] png = await CaptureTopAsync(page, 1280, ShotHeight, cancellationToken);

            Assert.That(png.AsSpan(0, 8).ToArray(), Is.EqualTo(new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A }));
            Assert.That(BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(16)), Is.EqualTo(1280));
            Assert.That(BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(20)), Is.EqualTo(ShotHeight), "the top of a page longer than that");
            Assert.That(png.Length, Is.GreaterThan(100_000), "a rendered page, not a blank image");

            string output = Path.Combine(TestContext.CurrentContext.WorkDirectory, name);
            await File.WriteAllBytesAsync(output, png, cancellationToken);
            TestContext.AddTestAttachment(output);
            if (Environment.GetEnvironmentVariable("XEANALYZER_UPDATE_DOCS") == "1")
            {
                string docs = Path.Combine(TestPaths.RepoRoot, "docs");
                Directory.CreateDirectory(docs);
                await File.WriteAllBytesAsync(Path.Combine(docs, name), png, cancellationToken);
            }
        }
    }
}

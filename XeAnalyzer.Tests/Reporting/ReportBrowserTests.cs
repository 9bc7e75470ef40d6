using System.Buffers.Binary;
using System.Text.Json;
using XeAnalyzer.Output;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Browser;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Reporting;

/// <summary>
/// The pages of <c>xeanalyze report</c> and <c>xeanalyze batch</c> loaded in real headless Chromium: no console errors
/// or exceptions, the expected sections, charts and table rows, working links. Also keeps the screenshots of the sample
/// reports (<c>docs/report-latch-sample.png</c>, <c>docs/report-waits-sample.png</c>; rewritten when
/// XEANALYZER_UPDATE_DOCS=1). Fails on CI and is ignored elsewhere when Chromium is missing.
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

    /// <summary>The height of the docs screenshots: the top of the page (overview, capture, stack buckets and flame
    /// graph).</summary>
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
        (int exit, _, string err) = CliRunner.Run([
            "report",
            Path.Combine(TestPaths.Samples, set),
            "-o",
            dir,
            .. ReportTestSupport.SymbolArgs,
        ]);
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

    /// <summary>A PNG of the top <paramref name="height"/> CSS pixels of the page (the docs keep the look, not
    /// megabytes of page).</summary>
    private static Task<byte[]> CaptureTopAsync(
        ChromiumPage page,
        int width,
        int height,
        CancellationToken cancellationToken
    ) => page.CaptureViewportAsync(width, height, cancellationToken);

    private static string[] Strings(JsonElement array) => [.. array.EnumerateArray().Select(e => e.GetString()!)];

    /// <summary>Counts in report.json (the same document the page renders).</summary>
    private static (int Sections, int Charts, int Tables, int Rows) JsonCounts(string dir)
    {
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        JsonElement[] sections = [.. doc.RootElement.GetProperty("sections").EnumerateArray()];
        JsonElement[] blocks = [.. sections.SelectMany(s => s.GetProperty("blocks").EnumerateArray())];
        JsonElement[] tables = [.. blocks.Where(b => b.GetProperty("type").GetString() == "table")];
        return (
            sections.Length,
            blocks.Count(b => b.GetProperty("type").GetString() is "barChart" or "lineChart" or "flameGraph"),
            tables.Length,
            tables.Sum(t => Math.Max(1, t.GetProperty("rows").GetArrayLength()))
        );
    }

    /// <summary>The tables of report.json long enough to fold on the page (their folded rows are a second
    /// table).</summary>
    private static int FoldedTables(string latch)
    {
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(latch, "report.json")));
        return doc
            .RootElement.GetProperty("sections")
            .EnumerateArray()
            .SelectMany(s => s.GetProperty("blocks").EnumerateArray())
            .Count(b =>
                b.GetProperty("type").GetString() == "table"
                && b.GetProperty("rows").GetArrayLength() > HtmlReportWriter.PreviewRows + HtmlReportWriter.FoldSlack
            );
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
            Assert.That(
                Strings(c.GetProperty("sections")),
                Is.SupersetOf(
                    new[]
                    {
                        "Overview",
                        "Capture",
                        "Stacks: Buckets",
                        "Stacks: Largest buckets, frames leaf first",
                        "Stacks: Bucket frames",
                        "Symbolization: Callstacks",
                        "Latches: Summary",
                        "Latches: Acquires by scheduler",
                        "Memory: not possible",
                        "Waits: not possible",
                        "Files",
                    }
                )
            );
            Assert.That(Strings(c.GetProperty("sections")), Has.Length.EqualTo(sections));
            Assert.That(
                c.GetProperty("svgs").GetInt32(),
                Is.EqualTo(charts).And.EqualTo(2),
                "the schedulers' bar chart and the flame graph"
            );
            Assert.That(c.GetProperty("frames").GetInt32(), Is.GreaterThan(24), "flame graph frames");
            Assert.That(
                c.GetProperty("rowsOf").GetProperty("Buckets").GetInt32(),
                Is.EqualTo(SampleData.Figure(figures, "distinct_stacks"))
            );
            Assert.That(
                c.GetProperty("bars").GetInt32(),
                Is.EqualTo(schedulers),
                "one bar per scheduler of the sample"
            );
            Assert.That(
                c.GetProperty("tables").GetInt32(),
                Is.EqualTo(tables + FoldedTables(latch: dir)),
                "a long table folds into a second one"
            );
            Assert.That(c.GetProperty("rows").GetInt32(), Is.EqualTo(rows));
            Assert.That(
                c.GetProperty("rowsOf").GetProperty("latch_acquired by sqlos.scheduler_id").GetInt32(),
                Is.EqualTo(schedulers)
            );
            Assert.That(
                c.GetProperty("rowsOf").GetProperty("Unresolved frames by reason").GetInt32(),
                Is.EqualTo(1),
                "only the out-of-module frame"
            );
            Assert.That(c.GetProperty("minSvgWidth").GetDouble(), Is.GreaterThan(600));
        });
    }

    [Test]
    public async Task WaitAndMemorySampleReports_Render_WithTheirCharts(CancellationToken cancellationToken)
    {
        string waits = Report(SampleData.Waits);
        JsonElement w = await LoadAsync(Path.Combine(waits, "index.html"), cancellationToken);
        Assert.That(
            Strings(w.GetProperty("sections")),
            Is.SupersetOf(new[] { "Waits: By wait type", "Waits: Preceded by", "Symbolization: Callstacks" })
        );
        Assert.That(w.GetProperty("svgs").GetInt32(), Is.EqualTo(JsonCounts(waits).Charts).And.GreaterThan(0));
        Assert.That(
            w.GetProperty("rowsOf").GetProperty("Waits by wait type").GetInt32(),
            Is.EqualTo(4),
            "LATCH_EX, PAGEIOLATCH_SH, CXPACKET, PREEMPTIVE_HTTP_REQUEST"
        );

        string memory = Report(SampleData.Memory);
        JsonElement m = await LoadAsync(Path.Combine(memory, "index.html"), cancellationToken);
        Assert.That(
            Strings(m.GetProperty("sections")),
            Does.Contain("Memory: Running total of page_allocated − page_freed")
        );
        Assert.That(m.GetProperty("polylines").GetInt32(), Is.GreaterThanOrEqualTo(1));
        Assert.That(m.GetProperty("svgs").GetInt32(), Is.EqualTo(JsonCounts(memory).Charts));
        foreach (string svg in Directory.GetFiles(memory, "*.svg"))
        {
            ChromiumPage page = await _browser!.OpenPageAsync(cancellationToken);
            await page.NavigateAsync(svg, cancellationToken);
            Assert.That(page.Problems(), Is.Empty, svg);
            JsonElement r = await page.EvaluateAsync(
                "({ root: document.documentElement.localName, errors: "
                    + "document.getElementsByTagName('parsererror').length })",
                cancellationToken
            );
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
        Assert.That(
            Strings(c.GetProperty("sections")).Count(s => s.EndsWith(": not possible", StringComparison.Ordinal)),
            Is.EqualTo(5)
        );
    }

    [Test]
    public async Task BatchIndex_Renders_AndEveryLinkOpensAReportWithoutErrors(CancellationToken cancellationToken)
    {
        string input = _temp.File("batch-in");
        ReportTestSupport.MakeBatchInput(input);
        File.WriteAllText(Path.Combine(input, "broken.xel"), "not a capture");
        string output = _temp.File("batch-out");
        (int exit, _, string err) = CliRunner.Run([
            "batch",
            input,
            "-o",
            output,
            "--keep-going",
            .. ReportTestSupport.SymbolArgs,
        ]);
        Assert.That(exit, Is.EqualTo(1), err);

        ChromiumPage page = await _browser!.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(Path.Combine(output, "index.html"), cancellationToken);
        Assert.That(page.Problems(), Is.Empty);
        JsonElement r = await page.EvaluateAsync(
            // The Captures table is the second section of the batch index document (after the totals).
            "({ rows: document.querySelectorAll('#section-2 tbody tr').length, failed: "
                + "[...document.querySelectorAll('#section-2 tbody tr')].filter(r => [...r.cells].some(c => "
                + "c.textContent "
                + "=== 'failed')).length, scripts: document.getElementsByTagName('script').length, links: "
                + "[...document.querySelectorAll('#section-2 tbody tr a')].map(a => a.getAttribute('href')) })",
            cancellationToken
        );
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
    /// Layout facts of a page as laid out at its viewport width, over what is visible (not inside a closed
    /// <c>details</c>): the body's horizontal overflow; headers, numbers, captions and summaries whose text is wider
    /// than their box (clipped) or that wrapped onto a second line; <c>pre</c> blocks wider than their box that neither
    /// scroll nor wrap; the tallest table row; inline rows left unfolded.
    /// </summary>
    private const string LayoutScript = """
        (() => {
          const visible = e => e.getClientRects().length > 0 && !e.closest('details:not([open]) > :not(summary)');
          const lines = e => { const r = document.createRange(); r.selectNodeContents(e);
            return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.bottom))).size; };
          const shown = s => [...document.querySelectorAll(s)].filter(visible);
          const label = e => e.tagName.toLowerCase() + ': ' + e.textContent.trim().slice(0, 60);
          const clipped = shown('th, td, figcaption, summary, dt, dd, h1, h2')
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(label);
          const wrapped = shown('th, td.num').filter(e => lines(e) > 1).map(label);
          const preClipped = shown('pre').filter(p => { const cs = getComputedStyle(p);
            return p.scrollWidth > p.clientWidth && !['auto', 'scroll'].includes(cs.overflowX) && !cs.whiteSpace.startsWith('pre-wrap'); }).length;
          const rows = shown('tbody tr');
          return {
            bodyOverflow: document.documentElement.scrollWidth - window.innerWidth,
            clipped, wrapped, preClipped,
            tallestRow: Math.max(0, ...rows.map(r => r.getBoundingClientRect().height)),
            tallestRowText: rows.sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0]?.textContent.slice(0, 80) ?? '',
            visibleRows: rows.length,
          };
        })()
        """;

    /// <summary>The folder the layout screenshots are written to (kept with the test results: each is also an
    /// attachment).</summary>
    private static string ScreenshotFolder =>
        Path.Combine(TestContext.CurrentContext.WorkDirectory, "layout-screenshots");

    private async Task<JsonElement> LayoutAsync(
        string page,
        string shot,
        bool fullPage,
        CancellationToken cancellationToken
    )
    {
        ChromiumPage p = await _browser!.OpenPageAsync(cancellationToken);
        await p.SetViewportAsync(1400, 1000, cancellationToken);
        await p.NavigateAsync(page, cancellationToken);
        Assert.That(p.Problems(), Is.Empty, page);
        JsonElement layout = await p.EvaluateAsync(LayoutScript, cancellationToken);
        byte[] png = fullPage
            ? await p.CaptureFullPageAsync(1400, cancellationToken)
            : await CaptureTopAsync(p, 1400, 3000, cancellationToken);
        Directory.CreateDirectory(ScreenshotFolder);
        string path = Path.Combine(ScreenshotFolder, shot);
        await File.WriteAllBytesAsync(path, png, cancellationToken);
        TestContext.AddTestAttachment(path);
        return layout;
    }

    private static void AssertReadable(JsonElement layout, string page, double maxRowHeight)
    {
        Assert.Multiple(() =>
        {
            Assert.That(
                layout.GetProperty("bodyOverflow").GetDouble(),
                Is.LessThanOrEqualTo(0),
                page + ": the body scrolls sideways"
            );
            Assert.That(Strings(layout.GetProperty("clipped")), Is.Empty, page + ": text wider than its box");
            Assert.That(
                Strings(layout.GetProperty("wrapped")),
                Is.Empty,
                page + ": a header or a number broke onto two lines"
            );
            Assert.That(layout.GetProperty("preClipped").GetInt32(), Is.Zero, page + ": a pre block clips");
            Assert.That(
                layout.GetProperty("tallestRow").GetDouble(),
                Is.LessThanOrEqualTo(maxRowHeight),
                page + ": tallest row: " + layout.GetProperty("tallestRowText").GetString()
            );
        });
    }

    [Test]
    public async Task ReportAndBatchPages_At1400px_DoNotOverflowClipOrBreakNumbers(CancellationToken cancellationToken)
    {
        // A report row may list a few values (an event's actions) on several lines; 160 px is eight lines, far from the
        // rows of a column crushed to a few characters or of an unfolded note.
        string latch = Report(SampleData.Latch);
        JsonElement l = await LayoutAsync(
            Path.Combine(latch, "index.html"),
            "report-latch-1400.png",
            fullPage: false,
            cancellationToken
        );
        AssertReadable(l, "latch report", 160);
        (_, _, _, int rows) = JsonCounts(latch);
        Assert.That(
            l.GetProperty("visibleRows").GetInt32(),
            Is.LessThan(rows / 2),
            "long tables (the bucket frames) fold"
        );

        string waits = Report(SampleData.Waits);
        AssertReadable(
            await LayoutAsync(
                Path.Combine(waits, "index.html"),
                "report-waits-1400.png",
                fullPage: false,
                cancellationToken
            ),
            "waits report",
            160
        );

        string? health = TestPaths.Vectors is string vectors ? Path.Combine(vectors, "xel", "sqlhealth.xel") : null;
        if (health is not null && File.Exists(health))
        {
            string dir = _temp.File("report-health");
            (int exit, _, string err) = CliRunner.Run("report", health, "-o", dir);
            Assert.That(exit, Is.EqualTo(0), err);
            AssertReadable(
                await LayoutAsync(
                    Path.Combine(dir, "index.html"),
                    "report-system-health-1400.png",
                    fullPage: false,
                    cancellationToken
                ),
                "system_health report",
                160
            );
        }

        string input = _temp.File("layout-batch-in");
        ReportTestSupport.MakeBatchInput(input);
        File.WriteAllText(Path.Combine(input, "broken.xel"), "not a capture");
        string output = _temp.File("layout-batch-out");
        Assert.That(
            CliRunner.Run(["batch", input, "-o", output, "--keep-going", .. ReportTestSupport.SymbolArgs]).Exit,
            Is.EqualTo(1)
        );
        // The batch index's rows stay short: a long note or reason opens from its first words (before: 217 px, and the
        // table scrolled sideways; now at most six lines of the folded lead in the notes column).
        AssertReadable(
            await LayoutAsync(
                Path.Combine(output, "index.html"),
                "batch-index-1400.png",
                fullPage: true,
                cancellationToken
            ),
            "batch index",
            120
        );
    }

    /// <summary>
    /// Screenshots (the top 3,600 px) of the latch and wait sample reports. Set XEANALYZER_UPDATE_DOCS=1 to rewrite
    /// docs/report-latch-sample.png and docs/report-waits-sample.png (the pictures the README shows); otherwise they go
    /// to the test's work directory only.
    /// </summary>
    [Test]
    public async Task SampleReports_Screenshots_AreFullPagePngs(CancellationToken cancellationToken)
    {
        foreach (
            (string set, string name) in new[]
            {
                (SampleData.Latch, "report-latch-sample.png"),
                (SampleData.Waits, "report-waits-sample.png"),
            }
        )
        {
            // Run from the repository root with relative paths, as the README shows the command.
            string dir = _temp.File("shot-" + set);
            string saved = Environment.CurrentDirectory;
            int exit;
            string err;
            try
            {
                Environment.CurrentDirectory = TestPaths.RepoRoot;
                (exit, _, err) = CliRunner.Run(
                    "report",
                    "sample-xel/" + set,
                    "-o",
                    dir,
                    "--symbols",
                    "symbols-cache",
                    "--binaries",
                    "symbols-cache",
                    "--offline"
                );
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

            Assert.That(
                png.AsSpan(0, 8).ToArray(),
                Is.EqualTo(new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A })
            );
            Assert.That(BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(16)), Is.EqualTo(1280));
            Assert.That(
                BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(20)),
                Is.EqualTo(ShotHeight),
                "the top of a page longer than that"
            );
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

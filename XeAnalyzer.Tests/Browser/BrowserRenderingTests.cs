using System.Buffers.Binary;
using System.Text.Json;
using XeAnalyzer.Output;
using XeAnalyzer.Tests.Output;

namespace XeAnalyzer.Tests.Browser;

/// <summary>
/// Loads generated HTML and SVG in headless Chromium and checks they render with no console errors, uncaught exceptions
/// or log errors, and with the expected elements. Fails on CI and is ignored elsewhere when Chromium is missing.
/// </summary>
[NonParallelizable]
[CancelAfter(180_000)]
public class BrowserRenderingTests : ChromiumFixture
{
    private const string CountsScript = """
        ({
          title: document.title,
          root: document.documentElement.localName,
          parserErrors: document.getElementsByTagName('parsererror').length,
          svgs: document.querySelectorAll('svg').length,
          tables: document.querySelectorAll('table').length,
          rows: document.querySelectorAll('tbody tr').length,
          frames: document.querySelectorAll('g.frame').length,
          bars: document.querySelectorAll('rect.bar').length,
          polylines: document.querySelectorAll('polyline.series').length,
          scripts: document.getElementsByTagName('script').length,
          minSvgWidth: Math.min(...[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width)),
        })
        """;

    [Test]
    public async Task HtmlReport_LoadsWithoutErrors_AndRendersEveryBlock(CancellationToken cancellationToken)
    {
        ReportDocument report = SampleReport.Build();
        string path = await WriteReportAsync(report, "sample.html");
        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(path, cancellationToken);

        Assert.That(page.Problems(), Is.Empty, "console errors, exceptions or log errors");
        JsonElement c = await page.EvaluateAsync(CountsScript, cancellationToken);
        ReportBlock[] blocks = [.. report.Sections.SelectMany(s => s.Blocks)];
        int expectedFrames = blocks
            .OfType<FlameGraph>()
            .Sum(f => FlameGraphSvg.Render(f.Tree, f.Options, cancellationToken).Stats.DrawnFrames);
        Assert.Multiple(() =>
        {
            Assert.That(c.GetProperty("title").GetString(), Is.EqualTo(report.Title));
            Assert.That(c.GetProperty("parserErrors").GetInt32(), Is.Zero);
            Assert.That(c.GetProperty("scripts").GetInt32(), Is.Zero);
            Assert.That(
                c.GetProperty("svgs").GetInt32(),
                Is.EqualTo(blocks.Count(b => b is BarChart or LineChart or FlameGraph))
            );
            Assert.That(
                c.GetProperty("tables").GetInt32(),
                Is.EqualTo(
                    blocks
                        .OfType<ReportTable>()
                        .Sum(t => t.Rows.Count > HtmlReportWriter.PreviewRows + HtmlReportWriter.FoldSlack ? 2 : 1)
                ),
                "a long table folds into a second one"
            );
            Assert.That(
                c.GetProperty("rows").GetInt32(),
                Is.EqualTo(blocks.OfType<ReportTable>().Sum(t => t.Rows.Count))
            );
            Assert.That(c.GetProperty("frames").GetInt32(), Is.EqualTo(expectedFrames));
            Assert.That(
                c.GetProperty("bars").GetInt32(),
                Is.EqualTo(blocks.OfType<BarChart>().Sum(b => b.Values.Count))
            );
            Assert.That(
                c.GetProperty("polylines").GetInt32(),
                Is.EqualTo(blocks.OfType<LineChart>().Sum(l => l.Series.Count))
            );
            Assert.That(
                c.GetProperty("minSvgWidth").GetDouble(),
                Is.GreaterThan(600),
                "every chart is laid out at a readable width"
            );
        });
    }

    [Test]
    public async Task Harness_ReportsScriptAndConsoleErrors_OfABrokenPage(CancellationToken cancellationToken)
    {
        string broken = Path.Combine(WorkFolder, "broken.html");
        await File.WriteAllTextAsync(
            broken,
            """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title></head><body>
            <script>console.log('fine'); console.error('deliberate console error');</script>
            <script>window.thisFunctionDoesNotExist();</script>
            </body></html>
            """,
            cancellationToken
        );
        string clean = Path.Combine(WorkFolder, "clean.html");
        await File.WriteAllTextAsync(
            clean,
            "<!DOCTYPE html><html><head><meta "
                + "charset=\"utf-8\"><title>clean</title></head><body><script>console.log('ok');</script></body></html"
                + ">",
            cancellationToken
        );

        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(broken, cancellationToken);
        IReadOnlyList<BrowserMessage> problems = page.Problems();
        Assert.That(
            problems,
            Has.Some.Matches<BrowserMessage>(m =>
                m.Source == "exception" && m.Text.Contains("thisFunctionDoesNotExist", StringComparison.Ordinal)
            )
        );
        Assert.That(
            problems,
            Has.Some.Matches<BrowserMessage>(m =>
                m.Source == "console" && m.Level == "error" && m.Text == "deliberate console error"
            )
        );

        ChromiumPage control = await Browser.OpenPageAsync(cancellationToken);
        await control.NavigateAsync(clean, cancellationToken);
        Assert.That(control.Problems(), Is.Empty, "console.log alone is not a problem");
    }

    [Test]
    public async Task SvgFiles_OpenInBrowser_WithoutErrors(CancellationToken cancellationToken)
    {
        var files = new List<(string Path, string Kind, int Expected)>();
        FlameGraphRendering flame = FlameGraphSvg.Render(
            SampleReport.LatchTree(),
            cancellationToken: cancellationToken
        );
        FlameGraphRendering diff = FlameGraphSvg.Render(
            SampleReport.WaitDiffTree(),
            cancellationToken: cancellationToken
        );
        files.Add((await WriteTextAsync("flame.svg", flame.Svg), "g.frame", flame.Stats.DrawnFrames));
        files.Add((await WriteTextAsync("diff.svg", diff.Svg), "g.frame", diff.Stats.DrawnFrames));
        files.Add((await WriteTextAsync("bars.svg", ChartSvg.ToSvg(SampleReport.SchedulerChart())), "rect.bar", 24));
        files.Add(
            (
                await WriteTextAsync(
                    "line.svg",
                    ChartSvg.ToSvg(SampleReport.MemoryChart(), cancellationToken: cancellationToken)
                ),
                "polyline.series",
                2
            )
        );

        foreach ((string path, string selector, int expected) in files)
        {
            ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
            await page.NavigateAsync(path, cancellationToken);
            Assert.That(page.Problems(), Is.Empty, path);
            JsonElement r = await page.EvaluateAsync(
                $"({{ root: document.documentElement.localName, errors: "
                    + $"document.getElementsByTagName('parsererror').length, n: "
                    + $"document.querySelectorAll('{selector}').length, w: "
                    + $"document.documentElement.getBoundingClientRect().width }})",
                cancellationToken
            );
            Assert.That(r.GetProperty("root").GetString(), Is.EqualTo("svg"), path);
            Assert.That(r.GetProperty("errors").GetInt32(), Is.Zero, path);
            Assert.That(r.GetProperty("n").GetInt32(), Is.EqualTo(expected), path);
            Assert.That(r.GetProperty("w").GetDouble(), Is.GreaterThan(100), path);
        }
    }

    [Test]
    public async Task Harness_DetectsMalformedSvg(CancellationToken cancellationToken)
    {
        string path = await WriteTextAsync(
            "malformed.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>a & b</text></svg>"
        );
        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(path, cancellationToken);
        JsonElement r = await page.EvaluateAsync(
            "({ root: document.documentElement.localName, errors: "
                + "document.getElementsByTagName('parsererror').length })",
            cancellationToken
        );
        Assert.That(
            r.GetProperty("root").GetString() != "svg" || r.GetProperty("errors").GetInt32() > 0,
            Is.True,
            "an unescaped & must show up as an XML parse error, or the SVG checks above could not fail"
        );
    }

    [Test]
    public async Task HostileNames_RenderAsInertText(CancellationToken cancellationToken)
    {
        TableBuilder t = new TableBuilder("hostile").AddColumn(TableColumn.Text("name"));
        var tree = new CallTreeBuilder();
        foreach (string n in OutputTestSupport.HostileNames)
        {
            t.AddRow(n);
            tree.AddStack([n, "main"], 1);
        }

        var report = new ReportDocument(
            OutputTestSupport.HostileNames[0],
            [
                new ReportSection(
                    OutputTestSupport.HostileNames[1],
                    t.Build(),
                    new FlameGraph(tree.Build()),
                    new Paragraph(OutputTestSupport.HostileNames[1])
                ),
            ]
        );
        string path = await WriteReportAsync(report, "hostile.html");
        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(path, cancellationToken);

        Assert.That(page.Problems(), Is.Empty);
        JsonElement r = await page.EvaluateAsync(
            "({ scripts: document.getElementsByTagName('script').length, imgs: "
                + "document.getElementsByTagName('img').length, title: document.title, cell: "
                + "document.querySelector('td').textContent, frames: document.querySelectorAll('g.frame').length })",
            cancellationToken
        );
        Assert.That(r.GetProperty("scripts").GetInt32(), Is.Zero);
        Assert.That(r.GetProperty("imgs").GetInt32(), Is.Zero);
        Assert.That(r.GetProperty("title").GetString(), Is.EqualTo(OutputTestSupport.HostileNames[0]));
        Assert.That(r.GetProperty("cell").GetString(), Is.EqualTo(OutputTestSupport.HostileNames[0]));
        Assert.That(r.GetProperty("frames").GetInt32(), Is.EqualTo(2 + OutputTestSupport.HostileNames.Length));
    }

    /// <summary>
    /// Screenshots the sample report. Set XEANALYZER_UPDATE_DOCS=1 to also write docs/report-example.png (the committed
    /// picture of the look); otherwise the PNG goes to the test's work directory only.
    /// </summary>
    [Test]
    public async Task SampleReport_Screenshot_IsFullPagePng(CancellationToken cancellationToken)
    {
        string path = await WriteReportAsync(SampleReport.Build(), "screenshot.html");
        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        await page.NavigateAsync(path, cancellationToken);
        byte[] png = await page.CaptureFullPageAsync(1280, cancellationToken);

        Assert.That(
            png.AsSpan(0, 8).ToArray(),
            Is.EqualTo(new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A })
        );
        int width = BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(16));
        int height = BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(20));
        Assert.That(width, Is.EqualTo(1280));
        Assert.That(height, Is.GreaterThan(2000), "the whole page, not just the first screen");
        Assert.That(png.Length, Is.GreaterThan(100_000), "a rendered page, not a blank image");

        string output = Path.Combine(TestContext.CurrentContext.WorkDirectory, "report-example.png");
        await File.WriteAllBytesAsync(output, png, cancellationToken);
        TestContext.AddTestAttachment(output);
        if (Environment.GetEnvironmentVariable("XEANALYZER_UPDATE_DOCS") == "1")
        {
            string docs = Path.Combine(TestPaths.RepoRoot, "docs");
            Directory.CreateDirectory(docs);
            await File.WriteAllBytesAsync(Path.Combine(docs, "report-example.png"), png, cancellationToken);
        }
    }

    private async Task<string> WriteReportAsync(ReportDocument report, string name)
    {
        string path = Path.Combine(WorkFolder, name);
        await using FileStream fs = File.Create(path);
        new HtmlReportWriter().Write(report, fs);
        return path;
    }

    private async Task<string> WriteTextAsync(string name, string text)
    {
        string path = Path.Combine(WorkFolder, name);
        await File.WriteAllTextAsync(path, text);
        return path;
    }
}

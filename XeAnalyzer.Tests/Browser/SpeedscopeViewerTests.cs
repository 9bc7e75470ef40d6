using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Cli;

namespace XeAnalyzer.Tests.Browser;

/// <summary>
/// <c>stacks --format speedscope</c> against speedscope itself (npm <c>speedscope</c>, pinned in tools/speedscope): the
/// files validate against the file-format schema the package ships (with Ajv), and the built viewer, served on
/// 127.0.0.1 in headless Chromium, loads the latch sample's file and shows, frame by frame, the total and self weights
/// that the folded output of the same command gives. Fails on CI and is ignored elsewhere when Chromium, Node.js or the
/// npm packages are missing.
/// </summary>
[NonParallelizable]
[CancelAfter(180_000)]
public sealed class SpeedscopeViewerTests : ChromiumFixture
{
    private const string RowsScript = """
        [...document.querySelectorAll('tr')]
          .filter(r => r.cells.length === 3 && r.cells[0].tagName === 'TD')
          .map(r => [r.cells[0].textContent, r.cells[1].textContent, r.cells[2].textContent])
        """;

    private string _node = string.Empty;

    [OneTimeSetUp]
    public void RequireNode() => _node = SpeedscopePackage.RequireNode();

    [Test]
    public void Exports_ValidateAgainstSpeedscopesSchema()
    {
        string[] files =
        [
            Stacks("latch.speedscope.json", "latch_nesting_full", "--format", "speedscope"),
            Stacks("waits.speedscope.json", "blob_storage_waits", "--format", "speedscope", "--weight", "duration"),
            Stacks("health.speedscope.json", "system_health_stacks", "--format", "speedscope"),
        ];
        (int exit, string output) = SpeedscopePackage.Validate(_node, files);
        Assert.That(exit, Is.Zero, output);
        Assert.That(output.Split('\n', StringSplitOptions.RemoveEmptyEntries), Has.Length.EqualTo(files.Length));
        Assert.That(File.ReadAllText(files[1]), Does.Contain("\"unit\":\"milliseconds\""), "a weighted profile too");

        // The validator rejects what the schema forbids: a sample weight that is not a number, a frame without name.
        string broken = Path.Combine(WorkFolder, "broken.speedscope.json");
        string text = File.ReadAllText(files[0]);
        int weights = text.IndexOf("\"weights\":[", StringComparison.Ordinal) + "\"weights\":[".Length;
        text = text.Insert(weights, "\"1\",").Replace("{\"name\":", "{\"label\":", StringComparison.Ordinal);
        File.WriteAllText(broken, text);
        (exit, output) = SpeedscopePackage.Validate(_node, broken);
        Assert.That(exit, Is.EqualTo(1), output);
        Assert.That(output, Does.Contain("must be number").And.Contain("must have required property 'name'"));
    }

    [Test]
    public async Task Viewer_LoadsTheExport_AndShowsTheFoldedWeights(CancellationToken cancellationToken)
    {
        string profile = Stacks("latch.speedscope.json", "latch_nesting_full", "--format", "speedscope");
        string folded = Stacks("latch.folded", "latch_nesting_full", "--format", "folded");

        // The expected figures, from the folded lines ("root;…;leaf count"): a frame's self weight is the count of
        // the lines it ends, its total weight the count of the lines it is in.
        var self = new Dictionary<string, long>(StringComparer.Ordinal);
        var total = new Dictionary<string, long>(StringComparer.Ordinal);
        long weight = 0;
        foreach (string line in File.ReadAllLines(folded).Where(l => l.Length > 0))
        {
            int space = line.LastIndexOf(' ');
            long count = long.Parse(line[(space + 1)..], CultureInfo.InvariantCulture);
            string[] frames = line[..space].Split(';');
            weight += count;
            self[frames[^1]] = self.GetValueOrDefault(frames[^1]) + count;
            foreach (string f in frames.Distinct(StringComparer.Ordinal))
            {
                total[f] = total.GetValueOrDefault(f) + count;
            }
        }

        foreach (string f in total.Keys)
        {
            self.TryAdd(f, 0);
        }

        Assert.That(total, Has.Count.GreaterThan(20), "test setup: a profile with many frames");
        using var server = new LoopbackFileServer(SpeedscopePackage.Viewer);
        Uri file = server.Add("/latch.speedscope.json", profile);
        string hash = "#profileURL=" + Uri.EscapeDataString(file.AbsoluteUri) + "&view=sandwich";
        var viewer = new Uri(server.BaseAddress, "index.html" + hash);

        ChromiumPage page = await Browser.OpenPageAsync(cancellationToken);
        int height = (total.Count * 20) + 400; // the sandwich table draws only the rows in view: make room for all
        await page.SetViewportAsync(1280, height, cancellationToken);
        await page.NavigateToAsync(viewer, cancellationToken);
        JsonElement rows = await WaitForRowsAsync(page, cancellationToken);

        var shownSelf = new Dictionary<string, long>(StringComparer.Ordinal);
        var shownTotal = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (JsonElement row in rows.EnumerateArray())
        {
            string name = row[2].GetString()!;
            shownTotal.Add(name, Weight(row[0].GetString()!));
            shownSelf.Add(name, Weight(row[1].GetString()!));
        }

        byte[] png = await page.CaptureViewportAsync(1280, height, cancellationToken);
        string screenshot = Path.Combine(TestContext.CurrentContext.WorkDirectory, "speedscope-latch-sandwich.png");
        await File.WriteAllBytesAsync(screenshot, png, cancellationToken);
        TestContext.AddTestAttachment(screenshot);

        JsonElement title = await page.EvaluateAsync("document.title", cancellationToken);
        Assert.Multiple(() =>
        {
            // Warnings are left out: software WebGL in headless Chromium warns of GPU stalls on its own.
            Assert.That(page.Problems().Where(p => p.Level != "warning"), Is.Empty, "errors or exceptions");
            Assert.That(shownTotal.Keys, Is.EquivalentTo(total.Keys), "one row per distinct frame");
            Assert.That(shownTotal, Is.EquivalentTo(total), "total weight per frame");
            Assert.That(shownSelf, Is.EquivalentTo(self), "self weight per frame");
            Assert.That(shownSelf.Values.Sum(), Is.EqualTo(weight), "the profile's weight");
            Assert.That(title.GetString(), Is.EqualTo("xeanalyze stacks - speedscope"), "the profile's name");
            Assert.That(BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(16)), Is.EqualTo(1280), "a PNG screenshot");
        });
    }

    /// <summary>The weight of a sandwich-table cell, "6,043 (100%)" (digits grouped by the browser's locale).</summary>
    private static long Weight(string cell)
    {
        string number = cell[..cell.IndexOf(" (", StringComparison.Ordinal)];
        return long.Parse(new string([.. number.Where(char.IsAsciiDigit)]), CultureInfo.InvariantCulture);
    }

    /// <summary>Polls until the sandwich table has rows (the profile is fetched after the load event).</summary>
    private static async Task<JsonElement> WaitForRowsAsync(ChromiumPage page, CancellationToken cancellationToken)
    {
        DateTime deadline = DateTime.UtcNow + HeadlessChromium.DefaultTimeout;
        while (true)
        {
            JsonElement rows = await page.EvaluateAsync(RowsScript, cancellationToken);
            if (rows.GetArrayLength() > 0)
            {
                return rows;
            }

            if (DateTime.UtcNow > deadline)
            {
                string problems = string.Join("; ", page.Problems());
                Assert.Fail("the speedscope viewer showed no table rows within 30 s; problems: " + problems);
            }

            await Task.Delay(100, cancellationToken);
        }
    }

    /// <summary>Runs <c>xeanalyze stacks</c> on a sample (resolved offline) and returns the output file.</summary>
    private string Stacks(string output, string sample, params string[] options)
    {
        string path = Path.Combine(WorkFolder, output);
        string[] args =
        [
            "stacks",
            Path.Combine(TestPaths.Samples, sample),
            "-o",
            path,
            "--offline",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
            .. options,
        ];
        (int exit, _, string err) = CliRunner.Run(args);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        return path;
    }
}

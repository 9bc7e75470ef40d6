using System.Diagnostics;
using System.Text.Json;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// <c>xeanalyze batch</c> end to end: byte-identical output across runs and job counts, bad inputs among good ones, the JSON
/// lines log, progress only on a terminal, and one symbol cache for the whole batch.
/// </summary>
[CancelAfter(600_000)]
public sealed class BatchCliTests
{
    private TempFolder _temp = null!;
    private string _in = null!;

    [SetUp]
    public void SetUp()
    {
        _temp = new TempFolder();
        _in = _temp.File("in");
        ReportTestSupport.MakeBatchInput(_in);
    }

    [TearDown]
    public void TearDown() => _temp.Dispose();

    private static string[] Batch(string input, string output, params string[] more) => ["batch", input, "-o", output, .. ReportTestSupport.SymbolArgs, .. more];

    private static JsonElement Summary(string dir)
    {
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "summary.json")));
        return doc.RootElement.Clone();
    }

    private static Dictionary<string, JsonElement> ByName(JsonElement summary) =>
        summary.GetProperty("captures").EnumerateArray().ToDictionary(c => c.GetProperty("name").GetString()!, c => c, StringComparer.Ordinal);

    [Test]
    public void Batch_TwiceAndWithOneOrTwoJobs_WritesByteIdenticalFiles()
    {
        string a = _temp.File("out-a"), b = _temp.File("out-b"), c = _temp.File("out-c");
        (int exitA, _, string errA) = CliRunner.Run(Batch(_in, a, "--jobs", "1"));
        (int exitB, _, string errB) = CliRunner.Run(Batch(_in, b, "--jobs", "2"));
        (int exitC, _, _) = CliRunner.Run(Batch(_in, c, "--jobs", "2", "--quiet"));

        Assert.That(exitA, Is.EqualTo(0), errA);
        Assert.That(exitB, Is.EqualTo(0), errB);
        Assert.That(exitC, Is.EqualTo(0));
        SortedDictionary<string, byte[]> first = ReportTestSupport.Snapshot(a);
        ReportTestSupport.AssertSame(first, ReportTestSupport.Snapshot(b));
        ReportTestSupport.AssertSame(first, ReportTestSupport.Snapshot(c));

        JsonElement summary = Summary(a);
        Dictionary<string, JsonElement> captures = ByName(summary);
        Assert.That(captures.Keys, Is.EquivalentTo(new[]
        {
            "latch/latch_nesting_full_0_133601526724170000.xel", "memory/cci_insert_memory_0_133601545612080000.xel", "waits/blob_storage_waits_0_133601608255530000.xel",
            "variants/latch_every_other_0_133601526724170000.xel", "variants/waits_copy_0_133601526724170000.xel",
            "xml/latch_nesting_full.histogram.xml", "xml/latch_nesting_full.tf3656.histogram.xml",
        }));
        Assert.That(summary.GetProperty("totals").GetProperty("ok").GetInt32(), Is.EqualTo(7));
        Assert.That(summary.GetProperty("totals").GetProperty("nothing-to-analyse").GetInt32(), Is.Zero);
        Assert.That(captures["xml/latch_nesting_full.histogram.xml"].GetProperty("analyses").EnumerateArray().Where(a => a.GetProperty("status").GetString() == "done").Select(a => a.GetProperty("key").GetString()),
            Is.EqualTo(new[] { "targets", "stacks", "symbols" }), "a callstack histogram: its target table, its stack buckets and their symbolization (no event analysis)");
        Assert.That(captures["latch/latch_nesting_full_0_133601526724170000.xel"].GetProperty("events").GetInt64(), Is.EqualTo(SampleData.Figure(SampleData.Figures(SampleData.Latch), "events")));
        Assert.That(captures["variants/latch_every_other_0_133601526724170000.xel"].GetProperty("events").GetInt64(), Is.EqualTo(6043 / 2), "every other event of 6,043");
        Assert.That(captures["variants/waits_copy_0_133601526724170000.xel"].GetProperty("eventsByName").ToString(),
            Is.EqualTo(captures["waits/blob_storage_waits_0_133601608255530000.xel"].GetProperty("eventsByName").ToString()));
        foreach (JsonElement capture in captures.Values)
        {
            string folder = capture.GetProperty("folder").GetString()!;
            Assert.That(File.Exists(Path.Combine(a, folder, "index.html")), Is.True, folder);
            Assert.That(File.Exists(Path.Combine(a, folder, "report.json")), Is.True, folder);
        }

        // Paths in the reports are the batch's names: nothing of where the input or output lies (summary.json and the index
        // list the inputs as given on the command line).
        foreach ((string name, byte[] bytes) in first)
        {
            string text = System.Text.Encoding.UTF8.GetString(bytes);
            Assert.That(text, Does.Not.Contain(a), name);
            if (name.Contains('/', StringComparison.Ordinal))
            {
                Assert.That(text, Does.Not.Contain(_in), name);
            }
        }
    }

    [Test]
    public void Batch_BadInputsWithKeepGoing_ProcessesTheRest_ListsEachFailureWithItsReason_Exit1()
    {
        string bad = Path.Combine(_in, "bad");
        Directory.CreateDirectory(bad);
        byte[] sample = File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch));
        File.WriteAllBytes(Path.Combine(bad, "cut_header.xel"), sample.AsSpan(0, 4).ToArray());
        File.WriteAllBytes(Path.Combine(bad, "cut_in_header.xel"), sample.AsSpan(0, 300).ToArray());
        File.WriteAllBytes(Path.Combine(bad, "header_8_bytes.xel"), sample.AsSpan(0, 8).ToArray());
        byte[] flipped = (byte[])sample.Clone();
        flipped.AsSpan(200_000, 400).Fill(0xAB);
        File.WriteAllBytes(Path.Combine(bad, "damaged.xel"), flipped);
        File.WriteAllText(Path.Combine(bad, "notes.xel"), "not an Extended Events file at all");
        File.WriteAllText(Path.Combine(bad, "app.config.xml"), "<?xml version=\"1.0\"?>\n<configuration><appSettings><add key=\"a\" value=\"b\"/></appSettings></configuration>\n");
        File.WriteAllBytes(Path.Combine(bad, "cut_tail_0_133601526724170000.xel"), sample.AsSpan(0, sample.Length - 5000).ToArray());

        string output = _temp.File("out");
        (int exit, string stdout, string err) = CliRunner.Run(Batch(_in, output, "--keep-going", "--jobs", "2"));

        Assert.That(exit, Is.EqualTo(1), err);
        Assert.That(stdout, Does.Contain("index.html"));
        Dictionary<string, JsonElement> captures = ByName(Summary(output));
        var expectedReasons = new Dictionary<string, string>
        {
            ["bad/cut_header.xel"] = "expected an 8-byte .xel file header",
            ["bad/cut_in_header.xel"] = "byte offset 300 (0x12C): expected a 512-byte .xel file header",
            ["bad/header_8_bytes.xel"] = "byte offset 8 (0x8): expected a 512-byte .xel file header",
            ["bad/damaged.xel"] = "byte offset",
            ["bad/notes.xel"] = "expected the .xel magic",
            ["bad/app.config.xml"] = "expected Extended Events target data",
        };
        foreach ((string name, string reason) in expectedReasons)
        {
            JsonElement c = captures[name];
            Assert.That(c.GetProperty("status").GetString(), Is.EqualTo("failed"), name);
            Assert.That(c.GetProperty("reason").GetString(), Does.Contain(reason), name);
            Assert.That(c.GetProperty("folder").ValueKind, Is.EqualTo(JsonValueKind.Null), name + ": no report folder");
            Assert.That(err, Does.Contain(name + ": "), "stderr lists " + name);
            Assert.That(c.GetProperty("reason").GetString(), Does.Not.StartWith(name + ":"), name + ": the reason does not repeat the capture's name");
            Assert.That(err, Does.Not.Contain(name + ": " + name), name + ": stderr does not repeat the name");
        }

        Assert.That(captures["bad/cut_tail_0_133601526724170000.xel"].GetProperty("status").GetString(), Is.EqualTo("partial"), "a capture cut inside its last buffer is reported, partially");
        Assert.That(captures.Values.Count(c => c.GetProperty("status").GetString() == "ok"), Is.EqualTo(7), "every good capture is still reported");
        string index = File.ReadAllText(Path.Combine(output, "index.html"));
        Assert.That(index, Does.Contain("data-status=\"failed\"").And.Contain("expected Extended Events target data"));
    }

    [Test]
    public void Batch_FailureWithoutKeepGoing_StopsStartingCaptures_Exit1()
    {
        string first = Path.Combine(_in, "aaa");
        Directory.CreateDirectory(first);
        File.WriteAllText(Path.Combine(first, "broken.xel"), "not a capture");

        string output = _temp.File("out");
        (int exit, _, string err) = CliRunner.Run(Batch(_in, output, "--jobs", "1"));

        Assert.That(exit, Is.EqualTo(1));
        JsonElement[] captures = [.. Summary(output).GetProperty("captures").EnumerateArray()];
        Assert.That(captures[0].GetProperty("name").GetString(), Is.EqualTo("aaa/broken.xel"));
        Assert.That(captures[0].GetProperty("status").GetString(), Is.EqualTo("failed"));
        Assert.That(captures.Skip(1).Select(c => c.GetProperty("status").GetString()), Has.All.EqualTo("not-run"));
        Assert.That(captures[1].GetProperty("reason").GetString(), Does.Contain("aaa/broken.xel failed").And.Contain("--keep-going"));
        Assert.That(Directory.GetDirectories(output), Is.Empty, "no report was started after the failure");
        Assert.That(err, Does.Contain("not run: latch/"));
    }

    [Test]
    public void Batch_Log_IsJsonLines_WithStartAndFinishPerCapture()
    {
        string output = _temp.File("out");
        string log = _temp.File("batch.log");
        File.WriteAllText(Path.Combine(_in, "broken.xel"), "not a capture");
        (int exit, _, _) = CliRunner.Run(Batch(_in, output, "--keep-going", "--log", log));
        Assert.That(exit, Is.EqualTo(1));

        string[] lines = File.ReadAllLines(log);
        var events = new List<JsonElement>();
        foreach (string line in lines)
        {
            using JsonDocument doc = JsonDocument.Parse(line);
            Assert.That(doc.RootElement.ValueKind, Is.EqualTo(JsonValueKind.Object), line);
            events.Add(doc.RootElement.Clone());
        }

        Assert.That(events[0].GetProperty("event").GetString(), Is.EqualTo("batch-start"));
        Assert.That(events[^1].GetProperty("event").GetString(), Is.EqualTo("batch-finish"));
        Assert.That(events[0].GetProperty("captures").GetInt32(), Is.EqualTo(8));
        string[] names = [.. events.Where(e => e.GetProperty("event").GetString() == "start").Select(e => e.GetProperty("capture").GetString()!)];
        Assert.That(names, Has.Length.EqualTo(8).And.Unique);
        foreach (string name in names)
        {
            JsonElement end = events.Single(e => e.GetProperty("event").GetString() is "finish" or "fail" && e.GetProperty("capture").GetString() == name);
            Assert.That(end.GetProperty("elapsedMs").GetDouble(), Is.GreaterThanOrEqualTo(0), name);
            Assert.That(DateTime.TryParse(end.GetProperty("utc").GetString(), System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.RoundtripKind, out _), Is.True);
        }

        JsonElement fail = events.Single(e => e.GetProperty("event").GetString() == "fail");
        Assert.That(fail.GetProperty("capture").GetString(), Is.EqualTo("broken.xel"));
        Assert.That(fail.GetProperty("reason").GetString(), Does.Contain("magic"));
    }

    [Test]
    public void Batch_Usage_BadJobsOrOutputFile_Exit2_MissingInput_Exit1()
    {
        string file = _temp.File("a-file");
        File.WriteAllText(file, "x");
        Assert.That(CliRunner.Run(Batch(_in, _temp.File("o1"), "--jobs", "0")).Exit, Is.EqualTo(2));
        Assert.That(CliRunner.Run(Batch(_in, file)).Exit, Is.EqualTo(2));
        Assert.That(CliRunner.Run(Batch(_temp.File("missing"), _temp.File("o2"))).Exit, Is.EqualTo(1));
        Directory.CreateDirectory(_temp.File("empty"));
        (int exit, _, string err) = CliRunner.Run(Batch(_temp.File("empty"), _temp.File("o3")));
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err, Does.Contain("no capture"));
    }

    [Test]
    public async Task BatchRunner_SharesOneResolver_EachPdbOpenedOnce_ReportsListOnlyTheirOwnPdbs()
    {
        string input = _temp.File("copies");
        for (int i = 0; i < 4; i++)
        {
            ReportTestSupport.WriteVariant(SampleData.Latch, input, "latch_copy" + i, 0);
        }

        ReportTestSupport.CopySample(SampleData.Memory, Path.Combine(input, "memory"));
        using var resolver = new CallstackResolver(new CallstackResolverOptions
        {
            SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
            Offline = true,
            Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
        });
        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover([input]);
        BatchResult result = await BatchRunner.RunAsync([input], captures, _temp.File("out"), new BatchOptions { Jobs = 2, Report = new ReportOptions { Resolver = resolver } });

        Assert.That(result.Items.Select(i => i.Status), Has.All.EqualTo(BatchStatus.Ok));
        PdbBinding[] loaded = [.. resolver.GetPdbBindings().Where(b => b.IsLoaded)];
        Assert.That(loaded.Select(b => b.PdbName).Order(StringComparer.OrdinalIgnoreCase), Is.EqualTo(new[] { "sqldk.pdb", "sqlmin.pdb", "sqlTsEs.pdb" }),
            "five captures, one binding (one open) per PDB build");
        foreach (BatchItemResult item in result.Items)
        {
            using JsonDocument json = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(_temp.File("out"), item.Capture.Folder, "report.json")));
            string[] pdbs = [.. json.RootElement.GetProperty("sections").EnumerateArray()
                .SelectMany(s => s.GetProperty("blocks").EnumerateArray())
                .Where(b => b.GetProperty("type").GetString() == "table" && b.GetProperty("title").GetString() == "PDBs looked up")
                .SelectMany(b => b.GetProperty("rows").EnumerateArray().Select(r => r[0].GetString()!))];
            string[] expected = item.Capture.Name.StartsWith("memory/", StringComparison.Ordinal) ? ["sqldk.pdb"] : ["sqlmin.pdb", "sqlTsEs.pdb"];
            Assert.That(pdbs, Is.EqualTo(expected), item.Capture.Name);
        }
    }

    [Test]
    public void Batch_StderrRedirected_NoProgress_ButPerCaptureLines()
    {
        string output = _temp.File("out");
        (int exit, string stdout, string stderr) = CliRunner.RunProcess(Batch(_in, output));
        Assert.That(exit, Is.EqualTo(0), stderr);
        Assert.That(stdout, Does.Contain("index.html"));
        Assert.That(stderr, Does.Contain("xeanalyze: [1/7] "), "per-capture lines are not progress");
        Assert.That(stderr, Does.Not.Contain("batch progress"));
        Assert.That(stderr, Does.Not.Contain("\r"));

        (exit, _, stderr) = CliRunner.RunProcess(Batch(_in, _temp.File("out-quiet"), "--quiet"));
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(stderr.Trim(), Does.StartWith("xeanalyze: batch: 7 capture(s)"), "--quiet leaves only the final line");
    }

    [Test]
    public void Batch_StderrIsATerminal_ShowsProgress_UnlessQuiet()
    {
        string? script = new[] { "/usr/bin/script", "/bin/script" }.FirstOrDefault(File.Exists);
        if (script is null)
        {
            if (string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase))
            {
                Assert.Fail("util-linux 'script' (a pseudo-terminal) is needed for this test on CI");
            }

            Assert.Ignore("util-linux 'script' is not installed: no pseudo-terminal to run the batch in");
        }

        string terminal = CliRunner.RunInTerminal(script!, Batch(_in, _temp.File("out")));
        Assert.That(terminal, Does.Contain("batch progress: "), terminal);
        Assert.That(terminal, Does.Contain("xeanalyze: batch: 7 capture(s): 7 ok"));

        string quiet = CliRunner.RunInTerminal(script!, Batch(_in, _temp.File("out-q"), "--quiet"));
        Assert.That(quiet, Does.Not.Contain("batch progress"));
        Assert.That(quiet, Does.Not.Contain("[1/7]"));
    }
}

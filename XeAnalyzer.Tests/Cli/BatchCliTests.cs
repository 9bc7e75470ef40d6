using System.Diagnostics;
using System.Text.Json;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// <c>xeanalyze batch</c> end to end: byte-identical output across runs and job counts, bad inputs among good ones, the
/// JSON lines log, progress only on a terminal, and one symbol cache for the whole batch.
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

    private static string[] Batch(string input, string output, params string[] more) =>
        ["batch", input, "-o", output, .. ReportTestSupport.SymbolArgs, .. more];

    /// <summary>summary.json: the batch index document (totals, the Captures table, the detail tables).</summary>
    private static JsonElement Summary(string dir) => DocumentJson.ParseFile(Path.Combine(dir, "summary.json"));

    private static Dictionary<string, Dictionary<string, JsonElement>> ByName(JsonElement summary) =>
        DocumentJson
            .Table(summary, "Captures")
            .ToDictionary(c => c["capture"].GetString()!, c => c, StringComparer.Ordinal);

    private static string EventsByName(JsonElement summary, string capture) =>
        string.Join(
            ", ",
            DocumentJson
                .Table(summary, "Events by name")
                .Where(r => r["capture"].GetString() == capture)
                .Select(r =>
                    r["event"].GetString()
                    + "="
                    + r["events"].GetInt64().ToString(System.Globalization.CultureInfo.InvariantCulture)
                )
        );

    [Test]
    public void Batch_TwiceAndWithOneOrTwoJobs_WritesByteIdenticalFiles()
    {
        string a = _temp.File("out-a"),
            b = _temp.File("out-b"),
            c = _temp.File("out-c");
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
        Dictionary<string, Dictionary<string, JsonElement>> captures = ByName(summary);
        Assert.That(
            captures.Keys,
            Is.EquivalentTo(
                new[]
                {
                    "latch/latch_nesting_full_0_133601526724170000.xel",
                    "memory/cci_insert_memory_0_133601545612080000.xel",
                    "waits/blob_storage_waits_0_133601608255530000.xel",
                    "variants/latch_every_other_0_133601526724170000.xel",
                    "variants/waits_copy_0_133601526724170000.xel",
                    "xml/latch_nesting_full.histogram.xml",
                    "xml/latch_nesting_full.tf3656.histogram.xml",
                }
            )
        );
        Assert.That(DocumentJson.Value(summary, "ok").GetInt32(), Is.EqualTo(7));
        Assert.That(DocumentJson.Value(summary, "nothing-to-analyse").GetInt32(), Is.Zero);
        Assert.That(
            DocumentJson
                .Table(summary, "Analyses")
                .Where(a =>
                    a["capture"].GetString() == "xml/latch_nesting_full.histogram.xml"
                    && a["status"].GetString() == "done"
                )
                .Select(a => a["analysis"].GetString()),
            Is.EqualTo(new[] { "targets", "stacks", "symbols" }),
            "a callstack histogram: its target table, its stack buckets and their symbolization (no event analysis)"
        );
        Assert.That(
            captures["latch/latch_nesting_full_0_133601526724170000.xel"]["events"].GetInt64(),
            Is.EqualTo(SampleData.Figure(SampleData.Figures(SampleData.Latch), "events"))
        );
        Assert.That(
            captures["variants/latch_every_other_0_133601526724170000.xel"]["events"].GetInt64(),
            Is.EqualTo(6043 / 2),
            "every other event of 6,043"
        );
        Assert.That(EventsByName(summary, "variants/waits_copy_0_133601526724170000.xel"), Is.Not.Empty);
        Assert.That(
            EventsByName(summary, "variants/waits_copy_0_133601526724170000.xel"),
            Is.EqualTo(EventsByName(summary, "waits/blob_storage_waits_0_133601608255530000.xel"))
        );
        foreach (Dictionary<string, JsonElement> capture in captures.Values)
        {
            string report = capture["report"].GetString()!;
            Assert.That(report, Does.EndWith("/index.html"));
            Assert.That(File.Exists(Path.Combine(a, report)), Is.True, report);
            Assert.That(File.Exists(Path.Combine(a, Path.GetDirectoryName(report)!, "report.json")), Is.True, report);
        }

        // Paths in the reports are the batch's names: nothing of where the input or output lies (summary.json and the
        // index list the inputs as given on the command line).
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
        File.WriteAllText(
            Path.Combine(bad, "app.config.xml"),
            "<?xml version=\"1.0\"?>\n<configuration><appSettings><add key=\"a\" "
                + "value=\"b\"/></appSettings></configuration>\n"
        );
        File.WriteAllBytes(
            Path.Combine(bad, "cut_tail_0_133601526724170000.xel"),
            sample.AsSpan(0, sample.Length - 5000).ToArray()
        );

        string output = _temp.File("out");
        (int exit, string stdout, string err) = CliRunner.Run(Batch(_in, output, "--keep-going", "--jobs", "2"));

        Assert.That(exit, Is.EqualTo(1), err);
        Assert.That(stdout, Does.Contain("index.html"));
        Dictionary<string, Dictionary<string, JsonElement>> captures = ByName(Summary(output));
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
            Dictionary<string, JsonElement> c = captures[name];
            Assert.That(c["status"].GetString(), Is.EqualTo("failed"), name);
            Assert.That(c["reason"].GetString(), Does.Contain(reason), name);
            Assert.That(
                c["report"].ValueKind == JsonValueKind.Null || c["report"].GetString() == string.Empty,
                Is.True,
                name + ": no report folder"
            );
            Assert.That(err, Does.Contain(name + ": "), "stderr lists " + name);
            Assert.That(
                c["reason"].GetString(),
                Does.Not.StartWith(name + ":"),
                name + ": the reason does not repeat the capture's name"
            );
            Assert.That(err, Does.Not.Contain(name + ": " + name), name + ": stderr does not repeat the name");
        }

        Assert.That(
            captures["bad/cut_tail_0_133601526724170000.xel"]["status"].GetString(),
            Is.EqualTo("partial"),
            "a capture cut inside its last buffer is reported, partially"
        );
        Assert.That(
            captures.Values.Count(c => c["status"].GetString() == "ok"),
            Is.EqualTo(7),
            "every good capture is still reported"
        );
        string index = File.ReadAllText(Path.Combine(output, "index.html"));
        Assert.That(index, Does.Contain(">failed</td>").And.Contain("expected Extended Events target data"));
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
        List<Dictionary<string, JsonElement>> captures = DocumentJson.Table(Summary(output), "Captures");
        Assert.That(captures[0]["capture"].GetString(), Is.EqualTo("aaa/broken.xel"));
        Assert.That(captures[0]["status"].GetString(), Is.EqualTo("failed"));
        Assert.That(captures.Skip(1).Select(c => c["status"].GetString()), Has.All.EqualTo("not-run"));
        Assert.That(
            captures[1]["reason"].GetString(),
            Does.Contain("aaa/broken.xel failed").And.Contain("--keep-going")
        );
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
        string[] names =
        [
            .. events
                .Where(e => e.GetProperty("event").GetString() == "start")
                .Select(e => e.GetProperty("capture").GetString()!),
        ];
        Assert.That(names, Has.Length.EqualTo(8).And.Unique);
        foreach (string name in names)
        {
            JsonElement end = events.Single(e =>
                e.GetProperty("event").GetString() is "finish" or "fail" && e.GetProperty("capture").GetString() == name
            );
            Assert.That(end.GetProperty("elapsedMs").GetDouble(), Is.GreaterThanOrEqualTo(0), name);
            Assert.That(
                DateTime.TryParse(
                    end.GetProperty("utc").GetString(),
                    System.Globalization.CultureInfo.InvariantCulture,
                    System.Globalization.DateTimeStyles.RoundtripKind,
                    out _
                ),
                Is.True
            );
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
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
            }
        );
        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover([input]);
        BatchResult result = BatchRunner.Run(
            [input],
            captures,
            _temp.File("out"),
            new BatchOptions
            {
                Jobs = 2,
                Report = new ReportOptions { Resolver = resolver },
            }
        );

        Assert.That(result.Items.Select(i => i.Status), Has.All.EqualTo(BatchStatus.Ok));
        PdbBinding[] loaded = [.. resolver.GetPdbBindings().Where(b => b.IsLoaded)];
        Assert.That(
            loaded.Select(b => b.PdbName).Order(StringComparer.OrdinalIgnoreCase),
            Is.EqualTo(new[] { "sqldk.pdb", "sqlmin.pdb", "sqlTsEs.pdb" }),
            "five captures, one binding (one open) per PDB build"
        );
        foreach (BatchItemResult item in result.Items)
        {
            using JsonDocument json = JsonDocument.Parse(
                File.ReadAllBytes(Path.Combine(_temp.File("out"), item.Capture.Folder, "report.json"))
            );
            string[] pdbs =
            [
                .. json
                    .RootElement.GetProperty("sections")
                    .EnumerateArray()
                    .SelectMany(s => s.GetProperty("blocks").EnumerateArray())
                    .Where(b =>
                        b.GetProperty("type").GetString() == "table"
                        && b.GetProperty("title").GetString() == "PDBs looked up"
                    )
                    .SelectMany(b => b.GetProperty("rows").EnumerateArray().Select(r => r[0].GetString()!)),
            ];
            string[] expected = item.Capture.Name.StartsWith("memory/", StringComparison.Ordinal)
                ? ["sqldk.pdb"]
                : ["sqlmin.pdb", "sqlTsEs.pdb"];
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
        Assert.That(stderr, Does.Not.Contain("of 7 captures"), "no progress display");
        Assert.That(stderr, Does.Not.Contain("\r"));

        (exit, _, stderr) = CliRunner.RunProcess(Batch(_in, _temp.File("out-quiet"), "--quiet"));
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(
            stderr.Trim(),
            Does.StartWith("xeanalyze: batch: 7 capture(s)"),
            "--quiet leaves only the final line"
        );
    }

    [Test]
    public void Batch_StderrIsATerminal_ShowsProgress_UnlessQuiet()
    {
        string script = Pty.Script();
        string terminal = Pty.Run(script, Pty.Cli(Batch(_in, _temp.File("out"))), delayMs: 0, out int exit);
        Assert.That(exit, Is.EqualTo(0), terminal);
        Assert.That(terminal, Does.Match(@"batch +.*\d of 7 captures, \d running"), terminal);
        Assert.That(terminal, Does.Contain("xeanalyze: batch: 7 capture(s): 7 ok"));

        string quiet = Pty.Run(script, Pty.Cli(Batch(_in, _temp.File("out-q"), "--quiet")), delayMs: 0, out exit);
        Assert.That(exit, Is.EqualTo(0), quiet);
        Assert.That(quiet, Does.Not.Contain("captures,"));
        Assert.That(quiet, Does.Not.Contain("[1/7]"));
        Assert.That(quiet, Does.Not.Contain("\u001b[?25l"), "no progress display");
    }

    [Test]
    public void Batch_NameNoCaptureHas_IsAUsageError_NamingTheNearestName()
    {
        (int exit, _, string err) = CliRunner.Run(Batch(_in, _temp.File("out-event"), "--event", "wait_inf"));
        Assert.That(exit, Is.EqualTo(2), err);
        Assert.That(err, Does.Contain("--event wait_inf: the capture has no event of that name; nearest: wait_info"));

        (exit, _, err) = CliRunner.Run(Batch(_in, _temp.File("out-where"), "--where", "duraton>5"));
        Assert.That(exit, Is.EqualTo(2), err);
        Assert.That(err, Does.Contain("--where duraton>5:").And.Contain("nearest: duration"));
    }

    [Test]
    public void Batch_NameSomeCapturesHave_RunsAndSaysWhichCapturesHadNoMatch()
    {
        string output = _temp.File("out"),
            log = _temp.File("batch.jsonl");
        (int exit, _, string err) = CliRunner.Run(Batch(_in, output, "--event", "wait_info", "--log", log));
        Assert.That(exit, Is.EqualTo(0), err);
        Dictionary<string, Dictionary<string, JsonElement>> captures = ByName(Summary(output));
        string latch = "latch/latch_nesting_full_0_133601526724170000.xel";
        string waits = "waits/blob_storage_waits_0_133601608255530000.xel";
        Assert.That(
            captures[latch]["notes"].GetString(),
            Does.Contain("no match for the filter: --event wait_info: the capture has no event of that name")
        );
        Assert.That(captures[waits]["notes"].GetString(), Does.Not.Contain("no match"));

        JsonElement finish = File.ReadAllLines(log)
            .Select(l => JsonDocument.Parse(l).RootElement)
            .Single(e => e.GetProperty("event").GetString() == "batch-finish");
        string[] noMatch =
        [
            .. finish.GetProperty("noMatch").EnumerateArray().Select(m => m.GetProperty("capture").GetString()!),
        ];
        Assert.That(noMatch, Does.Contain(latch).And.Not.Contain(waits));
    }
}

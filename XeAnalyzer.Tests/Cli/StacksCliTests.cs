using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Analysis.Stacks;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Tests.Symbols.Resolution;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Cli;

/// <summary><c>xeanalyze stacks</c> run in-process through <see cref="Program.Run"/>: outputs, formats, exit codes,
/// determinism.</summary>
public sealed class StacksCliTests
{
    private static readonly string Sample1 = Path.Combine(TestPaths.Samples, "latch_nesting_full");
    private static readonly string[] Symbols =
    [
        "--symbols",
        TestPaths.SymbolsCache,
        "--binaries",
        TestPaths.SymbolsCache,
    ];
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    /// <summary>The expected buckets of sample 1 (count, frames) from the generator's TSV, in slot order.</summary>
    private static List<(long Count, string[] Frames)> Expected() =>
        [
            .. SampleData
                .Tsv(Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv"))
                .GroupBy(r => int.Parse(r["slot"], CultureInfo.InvariantCulture))
                .OrderBy(g => g.Key)
                .Select(g =>
                    (
                        long.Parse(g.First()["count"], CultureInfo.InvariantCulture),
                        g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture))
                            .Select(r => r["symbolized"])
                            .ToArray()
                    )
                ),
        ];

    [Test]
    public void Stacks_Sample1_PrintsTheSeedBucketsWithCountsAndFrames_ThenTheResolutionSummary()
    {
        (int exit, string output, string err) = CliRunner.Run(["stacks", Sample1, .. Symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = output.Split('\n');
        List<(long Count, string[] Frames)> expected = Expected();
        for (int k = 0; k < 3; k++)
        {
            string header = string.Create(
                CultureInfo.InvariantCulture,
                $"Bucket {k + 1} of 14: {expected[k].Count:N0} events ("
            );
            int at = Array.FindIndex(lines, l => l.StartsWith(header, StringComparison.Ordinal));
            Assert.That(at, Is.GreaterThanOrEqualTo(0), "missing " + header);
            string[] frames =
            [
                .. lines
                    .Skip(at + 1)
                    .SkipWhile(l => l.StartsWith("  ", StringComparison.Ordinal))
                    .TakeWhile(l => l.Length > 0),
            ];
            Assert.That(
                frames,
                Is.EqualTo(expected[k].Frames),
                "bucket " + (k + 1).ToString(CultureInfo.InvariantCulture)
            );
        }

        Assert.That(output, Does.Contain("Bucket 1 of 14: 2,005 events (33.18 %) sqlserver.latch_acquired\n"));
        Assert.That(output, Does.Contain("0x000002A61C3D8F10 -- unresolved: no module for 0x000002A61C3D8F10"));
        int resolution = output.IndexOf("\nResolution\n", StringComparison.Ordinal);
        Assert.That(resolution, Is.GreaterThan(output.IndexOf("Bucket 14 of 14", StringComparison.Ordinal)));
        Assert.That(output[resolution..], Does.Contain("latch_nesting_full.modules.txt (sidecar beside the capture)"));
        Assert.That(
            output[resolution..],
            Does.Contain("336 frame(s): 0 symbolized in-engine, 335 resolved offline (0 unverified), 1 unresolved")
        );
    }

    [Test]
    public void Stacks_Histograms_GiveTheSameBucketsAsTheCapture()
    {
        string Buckets(string input)
        {
            (int exit, string output, string err) = CliRunner.Run(["stacks", input, "--format", "json", .. Symbols]);
            Assert.That(exit, Is.EqualTo(0), err);
            JsonElement doc = DocumentJson.Parse(output);
            return string.Join(
                "\n\n",
                DocumentJson
                    .Table(doc, "Stack buckets")
                    .Zip(DocumentJson.Stacks(doc))
                    .Select(b =>
                        b.First["count"].GetInt64().ToString(CultureInfo.InvariantCulture)
                        + "\n"
                        + string.Join("\n", DocumentJson.FrameTexts(b.Second))
                    )
            );
        }

        string fromCapture = Buckets(Sample1);
        string folder = Path.Combine(TestPaths.Samples, "latch_nesting_full_histogram");
        Assert.That(Buckets(Path.Combine(folder, "latch_nesting_full.tf3656.histogram.xml")), Is.EqualTo(fromCapture));
        Assert.That(Buckets(Path.Combine(folder, "latch_nesting_full.histogram.xml")), Is.EqualTo(fromCapture));
        Assert.That(fromCapture, Does.StartWith("2005\n" + ResolutionFixtures.PublishedStackA[0]));
    }

    [Test]
    public void Stacks_CsvAndFramesCsv_OneRowPerBucketAndPerFrame()
    {
        string frames = Path.Combine(_tmp.Path, "frames.csv");
        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            Sample1,
            "--format",
            "csv",
            "--frames-csv",
            frames,
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(
            output,
            Does.StartWith(
                "rank,count,share,event,raw_stacks,first_seen,last_seen,duration_events,total_duration,max_duration,t"
                    + "otal_signal_duration,max_signal_duration,duration_unit,frame_count,unresolved_frames,leaf,frames"
                    + "\n"
            )
        );
        Assert.That(output, Does.Contain("\n1,2005,"));
        Assert.That(output, Does.Contain("\"" + string.Join("\n", ResolutionFixtures.PublishedStackA) + "\""));
        string[] frameRows = File.ReadAllLines(frames);
        Assert.That(
            frameRows[0],
            Is.EqualTo("rank,count,event,frame,text,status,verified,module,function,unresolved_reason")
        );
        Assert.That(frameRows, Has.Length.EqualTo(1 + Expected().Sum(b => b.Frames.Length)));
        Assert.That(
            frameRows[1],
            Is.EqualTo(
                "1,2005,sqlserver.latch_acquired,0,sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9,resolvedOffline"
                    + ",true,sqlmin.dll,XeSqlPkg::latch_acquired::Publish,"
            )
        );
    }

    [Test]
    public void Stacks_FlameFormats_FoldedSpeedscopeSvg_CarryEveryEvent()
    {
        long total = Expected().Sum(b => b.Count);
        (int exit, string folded, string err) = CliRunner.Run(["stacks", Sample1, "--format", "folded", .. Symbols]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = folded.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines, Has.Length.EqualTo(14));
        Assert.That(
            lines.Sum(l => long.Parse(l[(l.LastIndexOf(' ') + 1)..], CultureInfo.InvariantCulture)),
            Is.EqualTo(total)
        );
        string stackA = string.Join(";", ResolutionFixtures.PublishedStackA.Reverse()) + " 2005";
        Assert.That(lines, Does.Contain(stackA), "root first, leaf last");

        string speedscope = Path.Combine(_tmp.Path, "s.json");
        Assert.That(
            CliRunner.Run(["stacks", Sample1, "--format", "speedscope", "-o", speedscope, .. Symbols]).Exit,
            Is.EqualTo(0)
        );
        using (JsonDocument doc = JsonDocument.Parse(File.ReadAllText(speedscope)))
        {
            Assert.That(
                doc.RootElement.GetProperty("$schema").GetString(),
                Is.EqualTo("https://www.speedscope.app/file-format-schema.json")
            );
            JsonElement profile = doc.RootElement.GetProperty("profiles")[0];
            Assert.That(profile.GetProperty("weights").EnumerateArray().Sum(w => w.GetInt64()), Is.EqualTo(total));
        }

        string svg = Path.Combine(_tmp.Path, "f.svg");
        Assert.That(CliRunner.Run(["stacks", Sample1, "--format", "svg", "-o", svg, .. Symbols]).Exit, Is.EqualTo(0));
        string svgText = File.ReadAllText(svg);
        Assert.That(svgText, Does.StartWith("<?xml"));
        Assert.That(svgText, Does.Contain("XeSqlPkg::latch_acquired::Publish+0x1a9"));

        string html = Path.Combine(_tmp.Path, "r.html");
        Assert.That(CliRunner.Run(["stacks", Sample1, "--format", "html", "-o", html, .. Symbols]).Exit, Is.EqualTo(0));
        string htmlText = File.ReadAllText(html);
        Assert.That(htmlText, Does.Contain("<svg"));
        Assert.That(htmlText, Does.Contain("ParNestedXdes::GenerateLogRec+0x98"));
    }

    [Test]
    public void Stacks_TopAndMinCount_ShowFewerBuckets_AndSaySo()
    {
        (int exit, string output, _) = CliRunner.Run(["stacks", Sample1, "--top", "3", .. Symbols]);
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Does.Contain("Bucket 3 of 14"));
        Assert.That(output, Does.Not.Contain("Bucket 4 of 14"));
        long rest = Expected().Skip(3).Sum(b => b.Count);
        Assert.That(
            output,
            Does.Contain(string.Create(CultureInfo.InvariantCulture, $"11 more bucket(s) with {rest} events not shown"))
        );

        (_, string min, _) = CliRunner.Run(["stacks", Sample1, "--min-count", "5", "--format", "json", .. Symbols]);
        JsonElement doc = DocumentJson.Parse(min);
        Assert.That(DocumentJson.Table(doc, "Stack buckets"), Has.Count.EqualTo(Expected().Count(b => b.Count >= 5)));
        Assert.That(DocumentJson.Stacks(doc), Has.Length.EqualTo(Expected().Count(b => b.Count >= 5)));
    }

    [Test]
    public void Stacks_NoOffsets_AndResolverStyle_ChangeTheFrames()
    {
        (_, string noOffsets, _) = CliRunner.Run(["stacks", Sample1, "--no-offsets", "--top", "1", .. Symbols]);
        Assert.That(noOffsets, Does.Contain("\nsqlmin.dll!XeSqlPkg::latch_acquired::Publish\n"));
        (_, string resolver, _) = CliRunner.Run([
            "stacks",
            Sample1,
            "--frame-style",
            "resolver",
            "--top",
            "1",
            .. Symbols,
        ]);
        Assert.That(resolver, Does.Contain("\nsqlmin!XeSqlPkg::latch_acquired::Publish+425\n"));
    }

    [Test]
    public void Stacks_CaptureWithoutCallstack_Exits4_WithTheSessionChangeAndTheHistogramHint()
    {
        var c = new StackCaptures();
        string path = _tmp.File("nostack_0_133601526724170000.xel");
        c.WriteXel(path, [c.Latch(At(0), null, 1), c.Latch(At(1), null, 2)]);
        (int exit, string output, string err) = CliRunner.Run(["stacks", path]);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.Contain("none carries a callstack"));
        Assert.That(err, Does.Contain("ADD EVENT sqlserver.latch_acquired"));
        Assert.That(err, Does.Contain("ACTION (package0.callstack)"));
        Assert.That(err, Does.Contain("ADD TARGET package0.histogram"));
    }

    [TestCase(600, "ends inside a metadata buffer")]
    [TestCase(0, "the final buffer is incomplete")]
    public void Stacks_NothingToBucketInACaptureCutShort_Exits3_SayingTheMissingPartMayHoldIt(int keep, string warning)
    {
        // Cut inside the metadata buffer (no event can be read), or inside the first event buffer of a capture without
        // callstacks.
        string path = _tmp.File("cut_0_133601526724170000.xel");
        if (keep > 0)
        {
            File.WriteAllBytes(
                path,
                File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch)).AsSpan(0, keep).ToArray()
            );
        }
        else
        {
            var c = new StackCaptures();
            string whole = _tmp.File("whole_0_133601526724170000.xel");
            c.WriteXel(whole, Enumerable.Range(0, 200).Select(i => c.Latch(At(i), null, 1)));
            byte[] bytes = File.ReadAllBytes(whole);
            File.WriteAllBytes(path, bytes.AsSpan(0, bytes.Length - 100).ToArray());
        }

        (int exit, string output, string err) = CliRunner.Run(["stacks", path]);

        Assert.That(exit, Is.EqualTo(3), err);
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.Contain(warning));
        Assert.That(err, Does.Contain("1 incomplete final buffer(s)"));
        Assert.That(err, Does.Contain("may be in the part that could not be read"));

        (exit, _, err) = CliRunner.Run(["latches", path]);
        Assert.That(exit, Is.EqualTo(3), "latches: the same precedence (partial over missing data): " + err);
    }

    [Test]
    public void Stacks_NoMatchingEvents_Exits4_NamingTheEventsFound()
    {
        (int exit, _, string err) = CliRunner.Run(["stacks", Sample1, "--from", "2030-01-01", .. Symbols]);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(
            err,
            Does.Contain("none of the 6,043 events read matched the filter (from 2030-01-01T00:00:00.0000000Z)")
        );
        Assert.That(err, Does.Not.Contain("your_event"), "the filter, not the session, left them out");
    }

    [Test]
    public void Stacks_AnEventNameTheCaptureDoesNotHave_IsAUsageError_NamingTheNearest()
    {
        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            Sample1,
            "--event",
            "latch_acquird",
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(output, Is.Empty);
        Assert.That(
            err,
            Does.Contain("--event latch_acquird: the capture has no event of that name; nearest: latch_acquired")
        );
    }

    [Test]
    public void Stacks_UnreadableOrMissingInput_Exits1_AndBadOptionsExit2()
    {
        string junk = _tmp.File("junk.xel");
        File.WriteAllBytes(junk, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        (int exit, _, string err) = CliRunner.Run(["stacks", junk]);
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err, Does.StartWith("xeanalyze: "));
        Assert.That(err, Does.Not.Contain("   at "), "no stack trace");
        Assert.That(CliRunner.Run(["stacks", _tmp.File("absent.xel")]).Exit, Is.EqualTo(1));
        Assert.That(CliRunner.Run(["stacks", Sample1, "--modules", _tmp.File("absent.txt")]).Exit, Is.EqualTo(1));
        Assert.That(CliRunner.Run(["stacks", Sample1, "--format", "pdf"]).Exit, Is.EqualTo(2));
        Assert.That(CliRunner.Run(["stacks", Sample1, "--top", "-1"]).Exit, Is.EqualTo(2));
        Assert.That(CliRunner.Run(["stacks", Sample1, "--where", "nonsense"]).Exit, Is.EqualTo(2));
    }

    [Test]
    public void Stacks_WeightDuration_WithoutDurations_Exits4()
    {
        (int exit, _, string err) = CliRunner.Run([
            "stacks",
            Sample1,
            "--format",
            "folded",
            "--weight",
            "duration",
            .. Symbols,
        ]);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(err, Does.Contain("duration field"));
    }

    [Test]
    public void Stacks_WaitCapture_WhereOpcodeEnd_SumsDurations()
    {
        var c = new StackCaptures();
        string path = _tmp.File("waits_0_133601526724170000.xel");
        ulong[] d = Addresses(Seed("D"), BasesA);
        c.WriteXel(
            path,
            [
                c.Wait(At(0), d, "Begin", 0, 0, 1),
                c.Wait(At(5), d, "End", 40, 2, 2),
                c.Wait(At(6), d, "Begin", 0, 0, 3),
                c.Wait(At(9), d, "End", 25, 4, 4),
            ]
        );
        File.WriteAllText(_tmp.File("waits.modules.txt"), ModuleList(BasesA));
        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            path,
            "--where",
            "opcode=End",
            "--format",
            "json",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        JsonElement doc = DocumentJson.Parse(output);
        Dictionary<string, JsonElement> bucket = DocumentJson.Table(doc, "Stack buckets")[0];
        Assert.That(bucket["count"].GetInt64(), Is.EqualTo(2));
        Assert.That(
            (
                bucket["total_duration"].GetInt64(),
                bucket["max_duration"].GetInt64(),
                bucket["total_signal_duration"].GetInt64()
            ),
            Is.EqualTo((65L, 40L, 6L))
        );
        Assert.That(DocumentJson.FrameTexts(DocumentJson.Stacks(doc)[0])[0], Is.EqualTo(Seed("D")[0].Engine));

        (int fexit, string folded, _) = CliRunner.Run([
            "stacks",
            path,
            "--where",
            "opcode=End",
            "--format",
            "folded",
            "--weight",
            "duration",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
        ]);
        Assert.That(fexit, Is.EqualTo(0));
        Assert.That(folded.TrimEnd('\n'), Does.EndWith(" 65"));
    }

    [Test]
    public void Stacks_GroupByEventFalse_MergesEventsSharingAStack()
    {
        var c = new StackCaptures();
        string path = _tmp.File("mixed_0_133601526724170000.xel");
        ulong[] d = Addresses(Seed("D"), BasesA);
        c.WriteXel(path, [c.Wait(At(0), d, "End", 4, 0, 1), c.External(At(1), d, 2, 2), c.External(At(2), d, 3, 3)]);
        File.WriteAllText(_tmp.File("mixed.modules.txt"), ModuleList(BasesA));
        string[] args =
        [
            "stacks",
            path,
            "--format",
            "json",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
        ];

        (int exit, string byEvent, string err) = CliRunner.Run(args);
        Assert.That(exit, Is.EqualTo(0), err);
        {
            Assert.That(
                DocumentJson
                    .Table(DocumentJson.Parse(byEvent), "Stack buckets")
                    .Select(b => (b["event"].GetString(), b["count"].GetInt64())),
                Is.EqualTo(new[] { ((string?)"sqlos.wait_info_external", 2L), ("sqlos.wait_info", 1L) })
            );
        }

        (int mexit, string merged, _) = CliRunner.Run([.. args, "--group-by-event", "false"]);
        Assert.That(mexit, Is.EqualTo(0));
        Dictionary<string, JsonElement> only = DocumentJson.Table(DocumentJson.Parse(merged), "Stack buckets").Single();
        Assert.That(only["count"].GetInt64(), Is.EqualTo(3));
        Assert.That(
            only["event"].GetString()!.Split(';'),
            Is.EqualTo(new[] { "sqlos.wait_info", "sqlos.wait_info_external" }),
            "both events, in one bucket"
        );
    }

    [TestCase("text")]
    [TestCase("csv")]
    [TestCase("json")]
    [TestCase("folded")]
    [TestCase("speedscope")]
    [TestCase("svg")]
    [TestCase("html")]
    public void Stacks_SameInput_SameBytes_InAnyCulture(string format)
    {
        (int exit, string first, _) = CliRunner.Run(["stacks", Sample1, "--format", format, .. Symbols]);
        Assert.That(exit, Is.EqualTo(0));
        CultureInfo saved = CultureInfo.CurrentCulture;
        CultureInfo savedUi = CultureInfo.CurrentUICulture;
        try
        {
            CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo("tr-TR");
            CultureInfo.CurrentUICulture = CultureInfo.GetCultureInfo("tr-TR");
            (_, string turkish, _) = CliRunner.Run(["stacks", Sample1, "--format", format, .. Symbols]);
            Assert.That(turkish, Is.EqualTo(first));
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
            CultureInfo.CurrentUICulture = savedUi;
        }

        if (format is "text" or "json" or "csv")
        {
            Assert.That(first, Does.Not.Contain("2.005"), "no culture-specific digit grouping");
        }
    }
}

using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>The latches, memory and waits commands run in-process: outputs, exit codes and messages.</summary>
public sealed class AnalysisCliTests
{
    private const ulong LatchA = 0x000001D96C3F2A58;
    private TempFolder _tmp = null!;
    private AnalysisCaptures _c = null!;

    [SetUp]
    public void SetUp()
    {
        _tmp = new TempFolder();
        _c = new AnalysisCaptures();
    }

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    /// <summary>Schedulers 24, 26, 27, 31 with 20, 20, 17, 20 acquires, written in a shuffled file order.</summary>
    private string LatchCapture(bool withScheduler = true)
    {
        var events = new List<XEvent>();
        ulong seq = 0;
        int us = 0;
        foreach ((int sched, int n) in new[] { (24, 20), (26, 20), (27, 17), (31, 20) })
        {
            for (int i = 0; i < n; i++)
            {
                events.Add(
                    _c.Acquire(
                        At(us++),
                        "NESTING_TRANSACTION_FULL",
                        LatchA,
                        scheduler: withScheduler ? sched : null,
                        worker: 0x100UL + (ulong)sched,
                        seq: ++seq
                    )
                );
            }
        }

        events.Add(_c.Batch(At(us)));
        var rng = new Random(7);
        string path = _tmp.File(withScheduler ? "latch_0_133601526724170000.xel" : "nosched_0_133601526724170000.xel");
        _c.WriteXel(path, events.OrderBy(_ => rng.Next()));
        return path;
    }

    private string MemoryCapture(AnalysisCaptures c, string name = "mem.xel")
    {
        string path = _tmp.File(name);
        c.WriteXel(
            path,
            [
                c.Alloc(At(2), 17, session: 52, seq: 4),
                c.Free(At(1), 9, session: 51, seq: 3),
                c.Alloc(At(0), 9, session: 51, seq: 1),
                c.Free(At(4), 17, session: 52, seq: 6),
                c.Alloc(At(1), 5, session: 51, seq: 2),
                c.Free(At(3), 5, session: 51, seq: 5),
            ]
        );
        return path;
    }

    private string WaitCapture()
    {
        string path = _tmp.File("waits.xel");
        const ulong w = 0x000001D94E0A0160;
        _c.WriteXel(
            path,
            [
                _c.Wait(At(11_200), "PAGEIOLATCH_SH", "Begin", 0, w, 6, 3),
                _c.Wait(At(10_000), "PREEMPTIVE_HTTP_REQUEST", "End", 2, w, 6, 2, external: true),
                _c.Wait(At(8_000), "PREEMPTIVE_HTTP_REQUEST", "Begin", 0, w, 6, 1, external: true),
                _c.Wait(At(50_000), "PAGEIOLATCH_SH", "End", 39, w, 6, 4, signal: 1),
            ]
        );
        return path;
    }

    [Test]
    public void Latches_WritesSchedulerTallyWithOutlier_AndExitsZero()
    {
        string path = LatchCapture();
        (int exit, string output, string err) = CliRunner.Run("latches", path);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("latch_acquired events:"));
        Assert.That(output, Does.Match(@"\n27 +17 .* yes\n"));
        Assert.That(output, Does.Match(@"\n24 +20 [^\n]*\n"));
        Assert.That(output, Does.Not.Match(@"\n24 +20 [^\n]*yes"));
        Assert.That(
            output,
            Does.Contain("scheduler 27 (17 acquires, -15.0 % vs the median, -15.0 % vs the mean of its peers)")
        );
        Assert.That(output, Does.Contain("NESTING_TRANSACTION_FULL"));
    }

    [Test]
    public void Latches_ExitsFourNamingSchedulerIdWithTsql_WhenActionMissing()
    {
        string path = LatchCapture(withScheduler: false);
        (int exit, string output, string err) = CliRunner.Run("latches", path);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(output, Is.Empty, "no report that could look like success");
        Assert.That(err, Does.StartWith("xeanalyze: The capture lacks what the latch analysis needs"));
        Assert.That(err, Does.Contain("sqlos.scheduler_id"));
        Assert.That(
            err,
            Does.Contain("ALTER EVENT SESSION [your_session] ON SERVER DROP EVENT sqlserver.latch_acquired;")
        );
        Assert.That(err, Does.Contain("ADD EVENT sqlserver.latch_acquired"));
    }

    [Test]
    public void Latches_ExitsFourNamingTheEventsFound_WhenNoLatchEvents()
    {
        (int exit, string output, string err) = CliRunner.Run("latches", WaitCapture());
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.Contain("No latch_acquired events were found"));
        Assert.That(err, Does.Contain("Events found instead: sqlos.wait_info (2), sqlos.wait_info_external (2)"));
    }

    [Test]
    public void Latches_ExitsFour_WhenTheFilterExcludesEverything()
    {
        (int exit, _, string err) = CliRunner.Run("latches", LatchCapture(), "--where", "class=BUFFER");
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(err, Does.Contain("none of the 77"));
        Assert.That(err, Does.Contain("matched the filter (class=BUFFER)"));
    }

    [Test]
    public void Latches_FiltersByWhereOnMapKeyAndAction()
    {
        (int exit, string output, string err) = CliRunner.Run(
            "latches",
            LatchCapture(),
            "--where",
            "class=17",
            "--where",
            "scheduler_id=27",
            "--where",
            "scheduler_id=24"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Match(@"latch_acquired events: +37\n"));
    }

    [Test]
    public void Latches_WritesJsonCsvHtmlAndChart()
    {
        string path = LatchCapture();
        string chart = _tmp.File("latch.svg");
        string json = _tmp.File("latch.json");
        (int exit, string output, string err) = CliRunner.Run(
            "latches",
            path,
            "--format",
            "json",
            "-o",
            json,
            "--chart",
            chart
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Is.Empty);
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllBytes(json));
        JsonElement table = doc.RootElement.GetProperty("sections")[1].GetProperty("blocks")[0];
        Assert.That(table.GetProperty("type").GetString(), Is.EqualTo("table"));
        JsonElement row27 = table.GetProperty("rows").EnumerateArray().Single(r => r[0].GetString() == "27");
        Assert.That(row27[1].GetInt64(), Is.EqualTo(17));
        Assert.That(File.ReadAllText(chart), Does.StartWith("<?xml"));
        Assert.That(File.ReadAllText(chart), Does.Contain("<svg"));

        (int csvExit, string csv, _) = CliRunner.Run("latches", path, "--format", "csv");
        Assert.That(csvExit, Is.EqualTo(0));
        Assert.That(
            csv.Split('\n')[0],
            Is.EqualTo("scheduler_id,acquires,share,vs mean of all,vs mean of peers,vs median,outlier")
        );
        Assert.That(csv, Does.Contain("\n27,17,"));

        (int htmlExit, string html, _) = CliRunner.Run("latches", path, "--format", "html");
        Assert.That(htmlExit, Is.EqualTo(0));
        Assert.That(html, Does.Contain("<svg"));
    }

    [Test]
    public void Latches_GivesTheSameBytes_UnderAnyCulture()
    {
        string path = LatchCapture();
        string Once(string culture)
        {
            CultureInfo saved = CultureInfo.CurrentCulture;
            try
            {
                CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo(culture);
                (int exit, string output, _) = CliRunner.Run("latches", path, "--format", "json");
                Assert.That(exit, Is.EqualTo(0));
                return output;
            }
            finally
            {
                CultureInfo.CurrentCulture = saved;
            }
        }

        string invariant = Once("en-US");
        Assert.That(Once("de-DE"), Is.EqualTo(invariant));
        Assert.That(Once("tr-TR"), Is.EqualTo(invariant));
    }

    [Test]
    public void Memory_WritesPeaksAndFullSeries_InTrueOrder()
    {
        string series = _tmp.File("series.csv");
        (int exit, string output, string err) = CliRunner.Run("memory", MemoryCapture(_c), "--series", series);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Match(@"peak pages allocated \(running total\): +22 pages"));
        string[] lines = File.ReadAllLines(series);
        Assert.That(
            lines[0],
            Is.EqualTo(
                "timestamp,event_sequence,event,session_id,memory_clerk_name,pages,session_running_total,running_total"
            )
        );
        Assert.That(lines.Skip(1).Select(l => l.Split(',')[^1]), Is.EqualTo(new[] { "9", "14", "5", "22", "17", "0" }));
        Assert.That(lines[1], Is.EqualTo("2024-05-14T09:00:00.0000000Z,1,page_allocated,51,,9,9,9"));
    }

    [Test]
    public void Memory_ExitsFourListingTheRealFields_WhenPagesFieldAbsent()
    {
        var c = new AnalysisCaptures(pagesField: "page_count");
        string path = MemoryCapture(c, "pc.xel");
        (int exit, string output, string err) = CliRunner.Run("memory", path);
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.Contain("has no numeric field 'number_pages'"));
        Assert.That(err, Does.Contain("page_count (uint64), memory_clerk_name (unicode_string), page_location (ptr)"));

        (int ok, string okOut, string okErr) = CliRunner.Run(
            "memory",
            path,
            "--pages-field",
            "page_count",
            "--by-clerk"
        );
        Assert.That(ok, Is.EqualTo(0), okErr);
        Assert.That(okOut, Does.Contain("MEMORYCLERK_SQLQERESERVATIONS"));
    }

    [Test]
    public void Waits_ReportsPrecededByAndDurations_AsJson()
    {
        (int exit, string output, string err) = CliRunner.Run("waits", WaitCapture(), "--format", "json");
        Assert.That(exit, Is.EqualTo(0), err);
        using JsonDocument doc = JsonDocument.Parse(output);
        JsonElement[] tables =
        [
            .. doc
                .RootElement.GetProperty("sections")
                .EnumerateArray()
                .SelectMany(s => s.GetProperty("blocks").EnumerateArray())
                .Where(b => b.GetProperty("type").GetString() == "table"),
        ];
        JsonElement byType = tables.Single(t => t.GetProperty("title").GetString() == "Waits by wait type");
        JsonElement page = byType
            .GetProperty("rows")
            .EnumerateArray()
            .Single(r => r[0].GetString() == "PAGEIOLATCH_SH");
        Assert.That((page[1].GetInt64(), page[2].GetInt64()), Is.EqualTo((1L, 39L)));
        JsonElement preceded = tables.Single(t =>
            t.GetProperty("title")
                .GetString()!
                .StartsWith("Wait type that ended immediately before", StringComparison.Ordinal)
        );
        JsonElement row = preceded
            .GetProperty("rows")
            .EnumerateArray()
            .Single(r => r[0].GetString() == "PAGEIOLATCH_SH");
        Assert.That(row[1].GetString(), Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
        Assert.That(row[3].GetDouble(), Is.EqualTo(1.0));
    }

    [Test]
    public void Waits_ExitsFour_WhenNoWaitEvents()
    {
        (int exit, _, string err) = CliRunner.Run("waits", MemoryCapture(_c));
        Assert.That(exit, Is.EqualTo(4));
        Assert.That(err, Does.Contain("Events found instead: sqlos.page_allocated (3), sqlos.page_freed (3)"));
        Assert.That(err, Does.Contain("ADD EVENT sqlos.wait_info"));
    }

    [TestCase("latches")]
    [TestCase("memory")]
    [TestCase("waits")]
    public void Commands_ExitOne_ForUnreadableInput(string command)
    {
        (int exit, _, string err) = CliRunner.Run(command, _tmp.File("missing.xel"));
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err.Trim().Split('\n'), Has.Length.EqualTo(1));
        Assert.That(err, Does.StartWith("xeanalyze: "));

        string junk = _tmp.File("junk.xel");
        File.WriteAllBytes(junk, [1, 2, 3, 4, 5, 6, 7, 8]);
        (int exit2, _, string err2) = CliRunner.Run(command, junk);
        Assert.That(exit2, Is.EqualTo(1));
        Assert.That(err2, Does.Contain(junk));
    }

    [TestCase("--where", "nonsense")]
    [TestCase("--from", "yesterday")]
    [TestCase("--to", "03/01/2024")]
    [TestCase("--format", "pdf")]
    [TestCase("--reorder-window", "-1")]
    public void Commands_ExitTwo_ForBadOptions(string option, string value)
    {
        (int exit, _, string err) = CliRunner.Run("waits", WaitCapture(), option, value);
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.StartWith("xeanalyze: "));
    }

    [Test]
    public void Waits_FiltersByTime()
    {
        string path = WaitCapture();
        (int exit, string output, string err) = CliRunner.Run(
            "waits",
            path,
            "--from",
            "2024-05-14T09:00:00.020",
            "--to",
            "2024-05-14 09:00:01Z"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Match(@"wait_info events: +1\n"));
        Assert.That(output, Does.Match(@"wait_info_external events: +0\n"));
    }

    [Test]
    public void Latches_ExitsThreeWithAReport_WhenTheFinalBufferIsCutShort()
    {
        var events = new List<XEvent>();
        for (int i = 0; i < 2000; i++)
        {
            events.Add(
                _c.Acquire(At(i), "BUFFER", LatchA + (ulong)(i % 7), scheduler: i % 4, worker: 0x10, seq: (ulong)i + 1)
            );
        }

        string path = _tmp.File("cut.xel");
        _c.WriteXel(path, events);
        long full = new FileInfo(path).Length;
        using (var fs = new FileStream(path, FileMode.Open))
        {
            fs.SetLength(full - 1000);
        }

        (int exit, string output, string err) = CliRunner.Run("latches", path);
        Assert.That(exit, Is.EqualTo(3), err);
        Assert.That(output, Does.Contain("Acquires by scheduler"));
        Assert.That(err, Does.Contain("partial result"));
    }

    [Test]
    public void Analyses_StopWhenCancelled()
    {
        XEvent[] events =
        [
            .. Enumerable.Range(0, 10_000).Select(i => _c.Wait(At(i), "LATCH_EX", "End", 1, 0x10, 1, (ulong)i + 1)),
        ];
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        Assert.Throws<OperationCanceledException>(() =>
            new XeAnalyzer.Analysis.WaitAnalysis().Analyze(events, cts.Token)
        );
        Assert.Throws<OperationCanceledException>(() =>
            new XeAnalyzer.Analysis.LatchAnalysis().Analyze(events, cts.Token)
        );
        Assert.Throws<OperationCanceledException>(() =>
            new XeAnalyzer.Analysis.MemoryAnalysis().Analyze(events, cts.Token)
        );
    }
}

using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// Acceptance: the analyses and commands on the committed seed samples of <c>sample-xel/</c> (captures and target-data
/// XML) give the figures the sample generator documents in <c>sample-xel/expected/*.tsv</c> (computed from its input
/// model, not by our analyses).
/// </summary>
public sealed class SampleAcceptanceTests
{
    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    private static long F(Dictionary<string, string> figures, string name) => SampleData.Figure(figures, name);

    private static DateTime Time(Dictionary<string, string> figures, string name) =>
        DateTime.ParseExact(
            figures[name],
            "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'",
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal
        );

    private static IEnumerable<Events.XEvent> Read(string set, IReadOnlyList<string> names) =>
        CaptureSource.Open([Path.Combine(TestPaths.Samples, set)]).ReadEvents(new EventFilter(names));

    [Test]
    public void Latches_OnLatchSample_CountsEverySchedulerAndFlagsOnlyScheduler27()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Latch);
        LatchAnalysisResult r = new LatchAnalysis().Analyze(Read(SampleData.Latch, LatchAnalysis.EventNames));

        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.AcquiredEvents, Is.EqualTo(F(f, "events")));
        string[] schedulers =
        [
            .. f
                .Keys.Where(k => k.StartsWith("scheduler.", StringComparison.Ordinal))
                .Select(k => k["scheduler.".Length..]),
        ];
        Assert.That(r.Schedulers.Select(s => s.Key), Is.EquivalentTo(schedulers));
        foreach (GroupTally s in r.Schedulers)
        {
            Assert.That(s.Count, Is.EqualTo(F(f, "scheduler." + s.Key)), "scheduler " + s.Key);
        }

        Assert.That(r.Outliers.Select(o => o.Key), Is.EqualTo(new[] { "27" }));
        GroupTally s27 = r.Schedulers.Single(s => s.Key == "27");
        double peerMean = double.Parse(f["peer_mean"], CultureInfo.InvariantCulture);
        Assert.That(s27.DeviationFromPeerMean, Is.EqualTo((F(f, "scheduler.27") - peerMean) / peerMean).Within(1e-9));
        Assert.That(
            1 + s27.DeviationFromPeerMean,
            Is.EqualTo(double.Parse(f["scheduler27_ratio"], CultureInfo.InvariantCulture)).Within(0.0005)
        );
        Assert.That(r.Classes.Single(), Is.EqualTo(new CategoryTally(f["latch_class"], F(f, "events"), 1.0)));

        LatchAnalysisResult bySession = new LatchAnalysis(
            new LatchAnalysisOptions { GroupBy = LatchGrouping.Session }
        ).Analyze(Read(SampleData.Latch, LatchAnalysis.EventNames));
        Assert.That(bySession.Groups.Single().Key, Is.EqualTo(f["session_id"]));
    }

    [Test]
    public void LatchesCommand_OnLatchSample_ExitsZero_WithChartHighlightingScheduler27()
    {
        string chart = Path.Combine(Path.GetTempPath(), "xeanalyzer-accept-" + Guid.NewGuid().ToString("N") + ".svg");
        try
        {
            (int exit, string output, string err) = CliRunner.Run(
                "latches",
                Path.Combine(TestPaths.Samples, SampleData.Latch),
                "--chart",
                chart
            );
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(output, Does.Contain("scheduler 27 (688 acquires"));
            Assert.That(File.ReadAllText(chart), Does.Contain("<svg"));
        }
        finally
        {
            File.Delete(chart);
        }
    }

    [Test]
    public void Memory_OnMemorySample_GivesDocumentedTotalsPeaksAndThreeRises()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Memory);
        var points = new List<MemoryPoint>();
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(
            Read(SampleData.Memory, MemoryAnalysis.EventNames),
            points.Add
        );

        Assert.That(r.AllocationEvents + r.FreeEvents, Is.EqualTo(F(f, "events")));
        Assert.That(r.FirstEvent, Is.EqualTo(Time(f, "first_event")));
        Assert.That(r.LastEvent, Is.EqualTo(Time(f, "last_event")));
        foreach (string session in new[] { "64", "53" })
        {
            string p = "session" + session + ".";
            GroupMemory g = r.Sessions.Single(s => s.Key == session);
            Assert.That(g.AllocationEvents, Is.EqualTo(F(f, p + "page_allocated")));
            Assert.That(g.FreeEvents, Is.EqualTo(F(f, p + "page_freed")));
            Assert.That(g.PagesAllocated, Is.EqualTo(F(f, p + "pages_allocated")));
            Assert.That(g.PagesFreed, Is.EqualTo(F(f, p + "pages_freed")));
            Assert.That((double)g.PagesAllocated * 8192, Is.EqualTo((double)F(f, p + "bytes_allocated")));
            Assert.That(g.PeakPages, Is.EqualTo(F(f, p + "peak_pages")), p + "peak_pages");
            Assert.That(g.PeakTime, Is.EqualTo(Time(f, p + "peak_time")), p + "peak_time");
            Assert.That(g.FinalPages, Is.EqualTo(F(f, p + "final_pages")));
        }

        Assert.That(
            r.OnePlusPowerOfTwoShare,
            Is.EqualTo((double)F(f, "events_one_plus_power_of_two") / F(f, "events")).Within(1e-12)
        );
        Assert.That(r.ExactlyOneShare, Is.EqualTo((double)F(f, "events_one_page") / F(f, "events")).Within(1e-12));

        // The three rowgroups: session 64's reduced series keeps each rise's peak exactly, and falls back to 0 between
        // them.
        RunningTotalSeries s64 = r.SessionSeries.Single(s => s.Name == "session 64");
        for (int i = 1; i <= 3; i++)
        {
            var peak = new SeriesPoint(Time(f, "rowgroup" + i + ".peak_time"), F(f, "rowgroup" + i + ".peak_pages"));
            Assert.That(s64.Points, Does.Contain(peak), "rowgroup " + i + " peak");
            DateTime freedBy = Time(f, "rowgroup" + i + ".freed_by");
            Assert.That(
                points.Last(p => p.SessionId == 64 && p.Time <= freedBy).SessionTotal,
                Is.Zero,
                "rowgroup " + i + " freed"
            );
            Assert.That(s64.Points.Where(p => p.Time > peak.Time && p.Time <= freedBy).Min(p => p.Value), Is.Zero);
        }

        Assert.That(
            points.Select(p => p.Time),
            Is.Ordered,
            "the running total is computed in time order although the file is not"
        );
        Assert.That(r.Ordering.ArrivedOutOfOrder, Is.GreaterThan(0));
        Assert.That(r.Ordering.LateEvents, Is.Zero);
    }

    [Test]
    public void MemoryCommand_OnMemorySample_WritesOneSeriesRowPerEvent()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Memory);
        string series = Path.Combine(Path.GetTempPath(), "xeanalyzer-accept-" + Guid.NewGuid().ToString("N") + ".csv");
        try
        {
            (int exit, string output, string err) = CliRunner.Run(
                "memory",
                Path.Combine(TestPaths.Samples, SampleData.Memory),
                "--series",
                series,
                "--by-clerk"
            );
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(File.ReadAllLines(series), Has.Length.EqualTo(F(f, "events") + 1));
            Assert.That(output, Does.Contain("MEMORYCLERK_SQLQERESERVATIONS"));
            Assert.That(
                output,
                Does.Contain(F(f, "session64.peak_pages").ToString("N0", CultureInfo.InvariantCulture) + " pages")
            );
        }
        finally
        {
            File.Delete(series);
        }
    }

    [Test]
    public void Waits_OnWaitSample_GivesDocumentedSummaryAndPreemptiveBeforeEveryPageIoLatch()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Waits);
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "blob_storage_waits.waits.tsv")
        );
        WaitAnalysisResult r = new WaitAnalysis().Analyze(Read(SampleData.Waits, WaitAnalysis.EventNames));

        Assert.That(r.WaitInfoEvents, Is.EqualTo(F(f, "count.wait_info")));
        Assert.That(r.WaitInfoExternalEvents, Is.EqualTo(F(f, "count.wait_info_external")));
        Assert.That(r.ByWaitType.Select(w => w.WaitType), Is.EquivalentTo(expected.Select(e => e["wait_type"])));
        foreach (Dictionary<string, string> e in expected)
        {
            WaitTypeStats w = r.ByWaitType.Single(x => x.WaitType == e["wait_type"]);
            string t = e["wait_type"];
            Assert.That(w.Waits, Is.EqualTo(long.Parse(e["waits"], CultureInfo.InvariantCulture)), t);
            Assert.That(
                w.TotalDurationMs,
                Is.EqualTo(long.Parse(e["total_duration_ms"], CultureInfo.InvariantCulture)),
                t
            );
            Assert.That(w.MaxDurationMs, Is.EqualTo(long.Parse(e["max_duration_ms"], CultureInfo.InvariantCulture)), t);
            Assert.That(
                w.MeanDurationMs,
                Is.EqualTo(double.Parse(e["avg_duration_ms"], CultureInfo.InvariantCulture)).Within(0.005),
                t
            );
            // n/a in the generator's table: the wait type's events have no signal_duration field (wait_info_external).
            Assert.That(
                w.TotalSignalDurationMs?.ToString(CultureInfo.InvariantCulture) ?? "n/a",
                Is.EqualTo(e["total_signal_duration_ms"]),
                t
            );
            Assert.That(w.Begins, Is.EqualTo(w.Waits), t + ": every wait has its Begin");
            WaitPairing p = r.Pairs.Single(x => x.WaitType == t);
            Assert.That((p.Pairs, p.BeginsWithoutEnd, p.EndsWithoutBegin), Is.EqualTo((w.Waits, 0L, 0L)), t);
        }

        PrecedingWait pageio = r.PrecededByFor("PAGEIOLATCH_SH").Single();
        Assert.That(
            (pageio.PrecededBy, pageio.Count, pageio.Share),
            Is.EqualTo(("PREEMPTIVE_HTTP_REQUEST", F(f, "wait.PAGEIOLATCH_SH.waits"), 1.0))
        );
    }

    [Test]
    public void WaitsCommand_FiltersOnMapKey_OfTheWaitSample()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "blob_storage_waits.waits.tsv")
        );
        Dictionary<string, string> row = expected.Single(e => e["wait_type"] == "PAGEIOLATCH_SH");
        (int exit, string output, string err) = CliRunner.Run(
            "waits",
            Path.Combine(TestPaths.Samples, SampleData.Waits),
            "--where",
            "wait_type=" + row["map_key"],
            "--format",
            "csv"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = output.Split('\n');
        Assert.That(lines[0], Does.StartWith("wait_type,waits,total ms,"));
        Assert.That(lines[1], Does.StartWith("PAGEIOLATCH_SH," + row["waits"] + "," + row["total_duration_ms"] + ","));
        Assert.That(lines[2], Is.Empty, "one wait type only");
    }

    [Test]
    public void Latches_OnWaitSample_PairsEveryLatchReleased()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Waits);
        LatchAnalysisResult r = new LatchAnalysis().Analyze(Read(SampleData.Waits, LatchAnalysis.EventNames));
        Assert.That(r.ReleasedEvents, Is.EqualTo(F(f, "count.latch_released")));
        Assert.That(r.PairedReleases, Is.EqualTo(F(f, "latch_pairs")));
        Assert.That(r.UnpairedAcquires + r.UnpairedReleases, Is.Zero);
        Assert.That(
            r.HoldTimes.Single(h => h.LatchClass == "ACCESS_METHODS_DATASET_PARENT").Elapsed.Count,
            Is.EqualTo(F(f, "latch_pairs_across_io"))
        );
        Assert.That(
            r.HoldTimes.Single(h => h.LatchClass == "BUFFER").Elapsed.Count,
            Is.EqualTo(F(f, "latch_pairs_quick"))
        );
    }

    // ------------------------------------------------------------------ SEED-STACKS §1: event_counter beside the
    // callstack histogram

    [Test]
    public void ReportCommand_EventCounterBesideCallstackHistogram_ShowsTheCounterAndTheThreeDominantBuckets()
    {
        string dir = _temp.File("report");
        (int exit, string output, string err) = CliRunner.Run([
            "report",
            SampleData.EventCounterPath,
            SampleData.CallstackHistogramPath,
            "-o",
            dir,
            .. ReportTestSupport.SymbolArgs,
        ]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("  targets: done").And.Contain("  stacks: done"));
        using JsonDocument report = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        JsonElement counters = Table(report, t => t == "Event counts (event_counter)", "Target data");
        Assert.That(
            Rows(counters).Select(r => (r[0].GetString(), r[1].GetInt64())),
            Is.EqualTo(
                new[] { ("sqlserver.latch_acquired", F(SampleData.Figures(SampleData.Latch), "event_counter.count")) }
            )
        );

        // The three dominant buckets: the generator's slots 0-2 (stacks A, B, C), their counts and their frames.
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("latch_nesting_full.stacks.tsv")
        );
        JsonElement buckets = Table(report, t => t == "Buckets", "Stacks");
        JsonElement frames = Table(report, t => t == "Stack bucket frames", "Stacks");
        for (int slot = 0; slot < 3; slot++)
        {
            List<Dictionary<string, string>> mine =
            [
                .. expected.Where(r => r["slot"] == slot.ToString(CultureInfo.InvariantCulture)),
            ];
            long count = long.Parse(mine[0]["count"], CultureInfo.InvariantCulture);
            JsonElement[] row = Rows(buckets)[slot];
            Assert.That(
                (row[0].GetInt32(), row[1].GetInt64()),
                Is.EqualTo((slot + 1, count)),
                "bucket " + mine[0]["bucket"]
            );
            Assert.That(count, Is.EqualTo(F(SampleData.Figures(SampleData.Latch), "count." + mine[0]["bucket"])));
            Assert.That(
                Rows(frames).Where(r => r[0].GetInt32() == slot + 1).Select(r => r[4].GetString()),
                Is.EqualTo(mine.Select(r => r["symbolized"])),
                "bucket " + mine[0]["bucket"]
            );
        }

        Assert.That(
            File.ReadAllText(Path.Combine(dir, "index.html")),
            Does.Contain("Event counts (event_counter)").And.Contain("347,435")
        );
    }

    [Test]
    public void InfoCommand_EventCounter_PrintsTheCountOfLatchAcquired()
    {
        (int exit, string output, string err) = CliRunner.Run("info", SampleData.EventCounterPath);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("event_counter"));
        Match line = Regex.Match(output, @"^\s*sqlserver\.latch_acquired\s+(?<n>[0-9,]+)\s*$", RegexOptions.Multiline);
        Assert.That(line.Success, Is.True, output);
        Assert.That(
            long.Parse(line.Groups["n"].Value, NumberStyles.AllowThousands, CultureInfo.InvariantCulture),
            Is.EqualTo(F(SampleData.Figures(SampleData.Latch), "event_counter.count"))
        );
    }

    // ------------------------------------------------------------------ SEED-STACKS §3: histogram on memory_clerk_name

    [Test]
    public void HistogramAnalysis_ClerkHistogram_OneRowPerClerk_WithTheGeneratorsCountsAndShares()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("cci_insert_memory.page_freed_clerks.tsv")
        );
        AnalysisOutcome<HistogramAnalysisResult> outcome = new HistogramAnalysis().Analyze(
            CaptureSource.Open([SampleData.ClerkHistogramPath])
        );
        HistogramTable h = outcome.Result!.Histograms.Single();

        Assert.That(
            h.Rows.Select(r => (r.Value, (long)r.Count)),
            Is.EqualTo(
                expected.Select(e => (e["memory_clerk_name"], long.Parse(e["count"], CultureInfo.InvariantCulture)))
            ),
            "largest first"
        );
        Assert.That(
            h.Rows.Select(r => Math.Round(r.Share * 100, 2)),
            Is.EqualTo(expected.Select(e => double.Parse(e["share_percent"], CultureInfo.InvariantCulture)))
        );
        Assert.That((long)h.Total, Is.EqualTo(F(SampleData.Figures(SampleData.Memory), "clerk_histogram.events")));
        Assert.That(h.Rows.Select(r => r.Text), Has.All.Null, "plain text values, no map");
        Assert.That(h.Target.SlotsReachedBuckets, Is.False);
        Assert.That(outcome.Result.MissingData, Is.Null);
    }

    [Test]
    public void HistogramCommand_ClerkHistogram_TextCsvAndJsonShowThePerClerkTable()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("cci_insert_memory.page_freed_clerks.tsv")
        );

        (int exit, string text, string err) = CliRunner.Run("histogram", SampleData.ClerkHistogramPath);
        Assert.That(exit, Is.EqualTo(0), err);
        int at = 0;
        foreach (Dictionary<string, string> e in expected)
        {
            // value, count (grouped), share (two decimals): one line per clerk, in the generator's order (largest
            // first).
            string count = long.Parse(e["count"], CultureInfo.InvariantCulture)
                .ToString("N0", CultureInfo.InvariantCulture);
            Match m = new Regex(
                "^"
                    + Regex.Escape(e["memory_clerk_name"])
                    + @"\s+"
                    + Regex.Escape(count)
                    + @"\s+"
                    + Regex.Escape(e["share_percent"])
                    + @"\s?%\s*$",
                RegexOptions.Multiline
            ).Match(text, at);
            Assert.That(m.Success, Is.True, e["memory_clerk_name"] + " in order in:\n" + text);
            at = m.Index + m.Length;
        }

        (exit, string csv, err) = CliRunner.Run("histogram", SampleData.ClerkHistogramPath, "--format", "csv");
        Assert.That(exit, Is.EqualTo(0), err);
        List<string[]> rows = ReportTestSupport.ParseCsv(csv);
        Assert.That(rows[0], Is.EqualTo(new[] { "value", "count", "share" }));
        Assert.That(
            rows.Skip(1).Select(r => (r[0], r[1])),
            Is.EqualTo(expected.Select(e => (e["memory_clerk_name"], e["count"])))
        );
        Assert.That(
            rows.Skip(1).Select(r => Math.Round(double.Parse(r[2], CultureInfo.InvariantCulture) * 100, 2)),
            Is.EqualTo(expected.Select(e => double.Parse(e["share_percent"], CultureInfo.InvariantCulture)))
        );

        (exit, string json, err) = CliRunner.Run("histogram", SampleData.ClerkHistogramPath, "--format", "json");
        Assert.That(exit, Is.EqualTo(0), err);
        using JsonDocument doc = JsonDocument.Parse(json);
        JsonElement table = Table(doc, t => t.StartsWith("Histogram ", StringComparison.Ordinal), "Histogram ");
        Assert.That(
            Rows(table).Select(r => (r[0].GetString(), r[1].GetInt64())),
            Is.EqualTo(
                expected.Select(e => (e["memory_clerk_name"], long.Parse(e["count"], CultureInfo.InvariantCulture)))
            )
        );
    }

    [Test]
    public void HistogramCommand_ClerkHistogram_SvgAndChartHaveOneBarPerClerk()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("cci_insert_memory.page_freed_clerks.tsv")
        );
        string chart = _temp.File("clerks.svg");
        (int exit, string svg, string err) = CliRunner.Run(
            "histogram",
            SampleData.ClerkHistogramPath,
            "--format",
            "svg"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        (exit, _, err) = CliRunner.Run("histogram", SampleData.ClerkHistogramPath, "--chart", chart);
        Assert.That(exit, Is.EqualTo(0), err);

        foreach (string doc in new[] { svg, File.ReadAllText(chart) })
        {
            var bars = System
                .Xml.Linq.XDocument.Parse(doc)
                .Descendants()
                .Where(e => e.Name.LocalName == "rect" && (string?)e.Attribute("class") == "bar")
                .ToList();
            Assert.That(bars, Has.Count.EqualTo(expected.Count));
            string[] titles = [.. bars.Select(b => b.Elements().Single(e => e.Name.LocalName == "title").Value)];
            Assert.That(
                titles,
                Is.EqualTo(
                    expected.Select(e =>
                        e["memory_clerk_name"]
                        + ": "
                        + long.Parse(e["count"], CultureInfo.InvariantCulture)
                            .ToString("N0", CultureInfo.InvariantCulture)
                    )
                )
            );
        }
    }

    [Test]
    public void ReportCommand_ClerkHistogram_ShowsThePerClerkTable()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("cci_insert_memory.page_freed_clerks.tsv")
        );
        string dir = _temp.File("report");
        (int exit, string output, string err) = CliRunner.Run([
            "report",
            SampleData.ClerkHistogramPath,
            "-o",
            dir,
            .. ReportTestSupport.SymbolArgs,
        ]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("  targets: done"));
        using JsonDocument report = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        JsonElement table = Table(report, t => t.StartsWith("Histogram ", StringComparison.Ordinal), "Target data");
        Assert.That(
            Rows(table).Select(r => (r[0].GetString(), r[1].GetInt64(), Math.Round(r[2].GetDouble() * 100, 2))),
            Is.EqualTo(
                expected.Select(e =>
                    (
                        e["memory_clerk_name"],
                        long.Parse(e["count"], CultureInfo.InvariantCulture),
                        double.Parse(e["share_percent"], CultureInfo.InvariantCulture)
                    )
                )
            )
        );
        Assert.That(Directory.GetFiles(dir, "*.svg"), Is.Not.Empty, "the histogram's chart");
    }

    [Test]
    public void StacksCommand_ClerkHistogram_Exits4_AndPointsToHistogram()
    {
        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            SampleData.ClerkHistogramPath,
            .. ReportTestSupport.SymbolArgs,
        ]);
        Assert.That(exit, Is.EqualTo(4), output + err);
        Assert.That(err, Does.Contain("xeanalyze histogram"));
        Assert.That(output, Does.Not.Contain("(no frames)"), "never one frameless bucket");
        Assert.That(output + err, Does.Not.Contain("Bucket 1"));
    }

    [Test]
    public void HistogramCommand_MapKeyHistogram_NotesHowToGetTheText_AndShowsTheNamesWithMapValues()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("blob_storage_waits.wait_type_histogram.tsv")
        );

        (int exit, string keys, string err) = CliRunner.Run(
            "histogram",
            SampleData.WaitTypeHistogramPath,
            "--format",
            "csv"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(
            ReportTestSupport.ParseCsv(keys).Skip(1).Select(r => (r[0], r[1])),
            Is.EqualTo(expected.Select(e => (e["map_key"], e["count"])))
        );
        (exit, string text, err) = CliRunner.Run("histogram", SampleData.WaitTypeHistogramPath);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(
            text,
            Does.Contain("--map-values").And.Contain("sys.dm_xe_map_values"),
            "a note says how to get the text"
        );
        Assert.That(text, Does.Not.Contain("PREEMPTIVE_HTTP_REQUEST"));

        // The file holds two maps (wait_types, event_opcode): --map chooses.
        (exit, _, err) = CliRunner.Run(
            "histogram",
            SampleData.WaitTypeHistogramPath,
            "--map-values",
            SampleData.MapValuesPath
        );
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.Contain("--map"));

        (exit, string csv, err) = CliRunner.Run(
            "histogram",
            SampleData.WaitTypeHistogramPath,
            "--map-values",
            SampleData.MapValuesPath,
            "--map",
            "wait_types",
            "--format",
            "csv"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        List<string[]> rows = ReportTestSupport.ParseCsv(csv);
        Assert.That(rows[0], Is.EqualTo(new[] { "value", "wait_types", "count", "share" }));
        Assert.That(
            rows.Skip(1).Select(r => (r[0], r[1], r[2])),
            Is.EqualTo(expected.Select(e => (e["map_key"], e["wait_type"], e["count"])))
        );
        (exit, text, err) = CliRunner.Run(
            "histogram",
            SampleData.WaitTypeHistogramPath,
            "--map-values",
            SampleData.MapValuesPath,
            "--map",
            "wait_types"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(text, Does.Contain("PREEMPTIVE_HTTP_REQUEST").And.Contain("PAGEIOLATCH_SH"));
        Assert.That(text, Does.Not.Contain("The values are numbers"));
    }

    // ------------------------------------------------------------------ a ring_buffer XML holding the same events as a
    // .xel

    [Test]
    public void EventsCommand_RingBufferXmlAndXel_GiveTheSameRows()
    {
        (int exit, string xelCsv, string err) = CliRunner.Run(
            "events",
            SampleData.CapturePath(SampleData.RingBuffer),
            "--format",
            "csv"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        (exit, string xmlCsv, err) = CliRunner.Run("events", SampleData.RingBufferXmlPath, "--format", "csv");
        Assert.That(exit, Is.EqualTo(0), err);

        List<Dictionary<string, string>> fromXel = CsvRows(xelCsv);
        List<Dictionary<string, string>> fromXml = CsvRows(xmlCsv);
        Assert.That(fromXel, Has.Count.EqualTo(F(SampleData.Figures(SampleData.RingBuffer), "events")));
        Assert.That(fromXml, Has.Count.EqualTo(fromXel.Count));
        Assert.That(fromXml.Select(r => r["offset"]), Has.All.Empty, "the XML has no file offsets");
        Assert.That(fromXel.Select(r => r["offset"]), Has.None.Empty);

        // The file and offset columns differ by nature; every other column must hold the same value for the same event.
        static Dictionary<string, string> Comparable(Dictionary<string, string> r) =>
            r.Where(kv => kv.Key is not ("file" or "offset"))
                .ToDictionary(kv => kv.Key, kv => kv.Value, StringComparer.Ordinal);
        var xelBySequence = fromXel.ToDictionary(r => r["event_sequence"], Comparable, StringComparer.Ordinal);
        foreach (Dictionary<string, string> row in fromXml)
        {
            Assert.That(
                Comparable(row),
                Is.EquivalentTo(xelBySequence[row["event_sequence"]]),
                "event_sequence " + row["event_sequence"]
            );
        }

        // Fields an event's schema lacks are empty, never invented: wait_info_external has no signal_duration or
        // wait_resource.
        Assert.That(
            fromXml
                .Where(r => r["event"] == "sqlos.wait_info_external")
                .Select(r => r["signal_duration (ms)"] + r["wait_resource"]),
            Has.All.Empty
        );
        Assert.That(fromXml.Where(r => r["event"] == "sqlos.wait_completed").Select(r => r["opcode"]), Has.All.Empty);
    }

    [Test]
    public void WaitsAndLatchesCommands_RingBufferXmlAndXel_GiveTheSameFigures()
    {
        string xel = SampleData.CapturePath(SampleData.RingBuffer);
        foreach (string command in new[] { "waits", "latches" })
        {
            (int exit, string xelCsv, string err) = CliRunner.Run(command, xel, "--format", "csv");
            Assert.That(exit, Is.EqualTo(0), command + ": " + err);
            (exit, string xmlCsv, err) = CliRunner.Run(command, SampleData.RingBufferXmlPath, "--format", "csv");
            Assert.That(exit, Is.EqualTo(0), command + ": " + err);
            Assert.That(xmlCsv, Is.EqualTo(xelCsv), command + " --format csv");

            (exit, string xelJson, err) = CliRunner.Run(command, xel, "--format", "json");
            Assert.That(exit, Is.EqualTo(0), command + ": " + err);
            (exit, string xmlJson, err) = CliRunner.Run(command, SampleData.RingBufferXmlPath, "--format", "json");
            Assert.That(exit, Is.EqualTo(0), command + ": " + err);
            Assert.That(
                WithoutInputAndOrdering(xmlJson),
                Is.EqualTo(WithoutInputAndOrdering(xelJson)),
                command + " --format json"
            );
        }
    }

    [Test]
    public void Waits_RingBufferXmlAndXel_GiveTheGeneratorsFigures_SignalNaResourcesAndResults()
    {
        List<Dictionary<string, string>> waits = SampleData.Tsv(SampleData.Expected("ring_buffer_waits.waits.tsv"));
        // An empty wait_resource (wait_completed's text field) is listed as "(empty)", so the row is not a blank cell.
        var resources = SampleData
            .Tsv(SampleData.Expected("ring_buffer_waits.resources.tsv"))
            .Select(r =>
                (
                    r["wait_type"],
                    (string?)(r["wait_resource"].Length == 0 ? "(empty)" : r["wait_resource"]),
                    long.Parse(r["waits"], CultureInfo.InvariantCulture)
                )
            )
            .ToList();
        var results = SampleData
            .Tsv(SampleData.Expected("ring_buffer_waits.results.tsv"))
            .Select(r => (r["wait_type"], r["wait_result"], long.Parse(r["events"], CultureInfo.InvariantCulture)))
            .ToList();
        Dictionary<string, string> f = SampleData.Figures(SampleData.RingBuffer);

        foreach (string input in new[] { SampleData.CapturePath(SampleData.RingBuffer), SampleData.RingBufferXmlPath })
        {
            WaitAnalysisResult r = new WaitAnalysis().Analyze(CaptureSource.Open([input])).Result!;
            string name = Path.GetFileName(input);
            Assert.That(r.WaitInfoEvents, Is.EqualTo(F(f, "count.wait_info")), name);
            Assert.That(r.WaitInfoExternalEvents, Is.EqualTo(F(f, "count.wait_info_external")), name);
            Assert.That(r.WaitCompletedEvents, Is.EqualTo(F(f, "count.wait_completed")), name);
            Assert.That(r.ByWaitType.Select(w => w.WaitType), Is.EquivalentTo(waits.Select(w => w["wait_type"])), name);
            foreach (Dictionary<string, string> e in waits)
            {
                WaitTypeStats w = r.ByWaitType.Single(x => x.WaitType == e["wait_type"]);
                string t = name + " " + e["wait_type"];
                Assert.That(w.Waits, Is.EqualTo(long.Parse(e["waits"], CultureInfo.InvariantCulture)), t);
                Assert.That(w.Begins, Is.EqualTo(long.Parse(e["begins"], CultureInfo.InvariantCulture)), t);
                Assert.That(
                    w.TotalDurationMs,
                    Is.EqualTo(long.Parse(e["total_duration_ms"], CultureInfo.InvariantCulture)),
                    t
                );
                Assert.That(
                    w.MaxDurationMs,
                    Is.EqualTo(long.Parse(e["max_duration_ms"], CultureInfo.InvariantCulture)),
                    t
                );
                Assert.That(
                    w.TotalSignalDurationMs?.ToString(CultureInfo.InvariantCulture) ?? "n/a",
                    Is.EqualTo(e["total_signal_duration_ms"]),
                    t + ": n/a where the events have no signal_duration"
                );
            }

            Assert.That(r.HasWaitResource, Is.True, name);
            Assert.That(
                r.TopResources.Select(x => (x.WaitType, x.Resource, x.Waits)),
                Is.EquivalentTo(resources),
                name + ": every wait type has at most five resources, so the top rows are all of them"
            );
            foreach (IGrouping<string, WaitResourceCount> g in r.TopResources.GroupBy(x => x.WaitType))
            {
                Assert.That(
                    g.Select(x => x.Waits),
                    Is.Ordered.Descending,
                    name + " " + g.Key + ": top resources largest first"
                );
            }

            Assert.That(
                r.TopResources.Select(x => x.WaitType),
                Has.No.EqualTo("PREEMPTIVE_HTTP_REQUEST"),
                "wait_info_external has no wait_resource"
            );
            Assert.That(r.Results.Select(x => (x.WaitType, x.Result, x.Waits)), Is.EquivalentTo(results), name);
        }

        // The text table shows n/a, not 0, in the signal column of the wait_info_external wait type.
        (int exit, string text, string err) = CliRunner.Run("waits", SampleData.RingBufferXmlPath);
        Assert.That(exit, Is.EqualTo(0), err);
        Dictionary<string, string> preemptive = waits.Single(w => w["event"] == "wait_info_external");
        string byType = text[text.IndexOf("Waits by wait type", StringComparison.Ordinal)..];
        byType = byType[..byType.IndexOf("Note:", StringComparison.Ordinal)];
        string[] cells = Regex.Split(
            byType
                .Split('\n')
                .Single(l => l.StartsWith(preemptive["wait_type"] + " ", StringComparison.Ordinal))
                .Trim(),
            @"\s+"
        );
        Assert.That(
            Regex.Split(byType.Split('\n')[1].Trim(), @"\s{2,}")[5],
            Is.EqualTo("signal ms"),
            "the sixth column is the signal"
        );
        Assert.That(cells[5], Is.EqualTo("n/a"), "signal ms column: " + string.Join(" | ", cells));
        Assert.That(text, Does.Contain("Wait resources").And.Contain("2:1:1").And.Contain("Wait results"));
    }

    [Test]
    public void Latches_RingBufferXml_CountsEveryScheduler()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.RingBuffer);
        LatchAnalysisResult r = new LatchAnalysis().Analyze(CaptureSource.Open([SampleData.RingBufferXmlPath])).Result!;
        Assert.That(r.AcquiredEvents, Is.EqualTo(F(f, "count.latch_acquired")));
        foreach (GroupTally s in r.Schedulers)
        {
            Assert.That(s.Count, Is.EqualTo(F(f, "latches.scheduler." + s.Key)), "scheduler " + s.Key);
        }

        Assert.That(
            r.Classes.Single(c => c.Name == "NESTING_TRANSACTION_FULL").Count,
            Is.EqualTo(F(f, "latches.nesting_transaction_full"))
        );
    }

    // ------------------------------------------------------------------ stacks in a call_stack field (system_health)

    [Test]
    public void StacksCommand_SystemHealthCallStackField_BucketsThemByDefault()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("system_health_stacks.stacks.tsv")
        );
        var stacks = expected
            .GroupBy(r => r["stack"])
            .Select(g =>
                (
                    Id: g.Key,
                    Event: "sqlos." + g.First()["event"],
                    Count: long.Parse(g.First()["count"], CultureInfo.InvariantCulture),
                    Frames: g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture))
                        .Select(r => r["symbolized"])
                        .ToArray()
                )
            )
            .OrderByDescending(x => x.Count)
            .ToList();

        (int exit, string csv, string err) = CliRunner.Run([
            "stacks",
            Path.Combine(TestPaths.Samples, SampleData.SystemHealth),
            "--format",
            "csv",
            .. ReportTestSupport.SymbolArgs,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        List<string[]> rows = ReportTestSupport.ParseCsv(csv);
        string[] header = rows[0];
        int Col(string name) => Array.IndexOf(header, name);
        List<string[]> buckets = [.. rows.Skip(1)];
        Assert.That(buckets, Has.Count.EqualTo(stacks.Count), csv);
        for (int i = 0; i < stacks.Count; i++)
        {
            string[] b = buckets[i];
            Assert.That(
                long.Parse(b[Col("count")], CultureInfo.InvariantCulture),
                Is.EqualTo(stacks[i].Count),
                stacks[i].Id
            );
            Assert.That(
                long.Parse(b[Col("count")], CultureInfo.InvariantCulture),
                Is.EqualTo(F(SampleData.Figures(SampleData.SystemHealth), "count." + stacks[i].Id)),
                stacks[i].Id
            );
            Assert.That(b[Col("event")], Is.EqualTo(stacks[i].Event), stacks[i].Id);
            Assert.That(b[Col("frames")].Split('\n').Select(l => l.Trim()), Is.EqualTo(stacks[i].Frames), stacks[i].Id);
        }

        Assert.That(
            buckets.Sum(b => long.Parse(b[Col("count")], CultureInfo.InvariantCulture)),
            Is.EqualTo(F(SampleData.Figures(SampleData.SystemHealth), "events"))
        );
    }

    /// <summary>The table block titled <paramref name="title"/> in a section whose title starts with
    /// <paramref name="section"/>.</summary>
    private static JsonElement Table(JsonDocument report, Func<string, bool> title, string section)
    {
        JsonElement[] found =
        [
            .. report
                .RootElement.GetProperty("sections")
                .EnumerateArray()
                .Where(s => s.GetProperty("title").GetString()!.StartsWith(section, StringComparison.Ordinal))
                .SelectMany(s => s.GetProperty("blocks").EnumerateArray())
                .Where(b =>
                    b.GetProperty("type").GetString() == "table"
                    && b.GetProperty("title").GetString() is string t
                    && title(t)
                ),
        ];
        Assert.That(found, Has.Length.EqualTo(1), "one such table in a section '" + section + "…'");
        return found[0];
    }

    private static List<JsonElement[]> Rows(JsonElement table) =>
        [.. table.GetProperty("rows").EnumerateArray().Select(r => r.EnumerateArray().ToArray())];

    /// <summary>CSV text (header + records) as column → value maps.</summary>
    private static List<Dictionary<string, string>> CsvRows(string csv)
    {
        List<string[]> rows = ReportTestSupport.ParseCsv(csv);
        string[] header = rows[0];
        Assert.That(
            header.Distinct(StringComparer.Ordinal).Count(),
            Is.EqualTo(header.Length),
            "column names are unique: " + string.Join(",", header)
        );
        return
        [
            .. rows.Skip(1)
                .Select(r =>
                    header.Select((h, i) => (h, r[i])).ToDictionary(x => x.h, x => x.Item2, StringComparer.Ordinal)
                ),
        ];
    }

    /// <summary>A report's JSON without what differs by nature between a .xel and its XML: the input's name and the
    /// ordering statistics (file order).</summary>
    private static string WithoutInputAndOrdering(string json)
    {
        JsonNode root = JsonNode.Parse(json)!;
        root.AsObject().Remove("description");
        int removed = 0;
        void Walk(JsonNode? n)
        {
            if (n is JsonObject o)
            {
                if (o["key"]?.GetValue<string>() == "ordering")
                {
                    o.Remove("value");
                    removed++;
                }

                foreach (KeyValuePair<string, JsonNode?> kv in o.ToList())
                {
                    Walk(kv.Value);
                }
            }
            else if (n is JsonArray a)
            {
                foreach (JsonNode? x in a)
                {
                    Walk(x);
                }
            }
        }

        Walk(root);
        Assert.That(removed, Is.EqualTo(1), "one ordering line");
        return root.ToJsonString();
    }
}

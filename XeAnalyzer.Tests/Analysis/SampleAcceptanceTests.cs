using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// Acceptance: the latches, memory and waits analyses on the committed seed samples of <c>sample-xel/</c> give the figures the
/// sample generator documents in <c>sample-xel/expected/*.tsv</c> (computed from its input model, not by our analyses).
/// </summary>
public sealed class SampleAcceptanceTests
{
    private static long F(Dictionary<string, string> figures, string name) => SampleData.Figure(figures, name);

    private static DateTime Time(Dictionary<string, string> figures, string name) =>
        DateTime.ParseExact(figures[name], "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);

    private static IEnumerable<Events.XEvent> Read(string set, IReadOnlyList<string> names) =>
        CaptureSource.Open([Path.Combine(TestPaths.Samples, set)]).ReadEvents(new EventFilter(names));

    private static (int Exit, string Out, string Err) Run(params string[] args)
    {
        using var o = new StringWriter();
        using var e = new StringWriter();
        int exit = Program.Run(args, o, e);
        return (exit, o.ToString(), e.ToString());
    }

    [Test]
    public void Latches_OnLatchSample_CountsEverySchedulerAndFlagsOnlyScheduler27()
    {
        Dictionary<string, string> f = SampleData.Figures(SampleData.Latch);
        LatchAnalysisResult r = new LatchAnalysis().Analyze(Read(SampleData.Latch, LatchAnalysis.EventNames));

        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.AcquiredEvents, Is.EqualTo(F(f, "events")));
        string[] schedulers = [.. f.Keys.Where(k => k.StartsWith("scheduler.", StringComparison.Ordinal)).Select(k => k["scheduler.".Length..])];
        Assert.That(r.Schedulers.Select(s => s.Key), Is.EquivalentTo(schedulers));
        foreach (GroupTally s in r.Schedulers)
        {
            Assert.That(s.Count, Is.EqualTo(F(f, "scheduler." + s.Key)), "scheduler " + s.Key);
        }

        Assert.That(r.Outliers.Select(o => o.Key), Is.EqualTo(new[] { "27" }));
        GroupTally s27 = r.Schedulers.Single(s => s.Key == "27");
        double peerMean = double.Parse(f["peer_mean"], CultureInfo.InvariantCulture);
        Assert.That(s27.DeviationFromPeerMean, Is.EqualTo((F(f, "scheduler.27") - peerMean) / peerMean).Within(1e-9));
        Assert.That(1 + s27.DeviationFromPeerMean, Is.EqualTo(double.Parse(f["scheduler27_ratio"], CultureInfo.InvariantCulture)).Within(0.0005));
        Assert.That(r.Classes.Single(), Is.EqualTo(new CategoryTally(f["latch_class"], F(f, "events"), 1.0)));

        LatchAnalysisResult bySession = new LatchAnalysis(new LatchAnalysisOptions { GroupBy = LatchGrouping.Session }).Analyze(Read(SampleData.Latch, LatchAnalysis.EventNames));
        Assert.That(bySession.Groups.Single().Key, Is.EqualTo(f["session_id"]));
    }

    [Test]
    public void LatchesCommand_OnLatchSample_ExitsZero_WithChartHighlightingScheduler27()
    {
        string chart = Path.Combine(Path.GetTempPath(), "xeanalyzer-accept-" + Guid.NewGuid().ToString("N") + ".svg");
        try
        {
            (int exit, string output, string err) = Run("latches", Path.Combine(TestPaths.Samples, SampleData.Latch), "--chart", chart);
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
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(Read(SampleData.Memory, MemoryAnalysis.EventNames), points.Add);

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

        Assert.That(r.OnePlusPowerOfTwoShare, Is.EqualTo((double)F(f, "events_one_plus_power_of_two") / F(f, "events")).Within(1e-12));
        Assert.That(r.ExactlyOneShare, Is.EqualTo((double)F(f, "events_one_page") / F(f, "events")).Within(1e-12));

        // The three rowgroups: session 64's reduced series keeps each rise's peak exactly, and falls back to 0 between them.
        RunningTotalSeries s64 = r.SessionSeries.Single(s => s.Name == "session 64");
        for (int i = 1; i <= 3; i++)
        {
            var peak = new SeriesPoint(Time(f, "rowgroup" + i + ".peak_time"), F(f, "rowgroup" + i + ".peak_pages"));
            Assert.That(s64.Points, Does.Contain(peak), "rowgroup " + i + " peak");
            DateTime freedBy = Time(f, "rowgroup" + i + ".freed_by");
            Assert.That(points.Last(p => p.SessionId == 64 && p.Time <= freedBy).SessionTotal, Is.Zero, "rowgroup " + i + " freed");
            Assert.That(s64.Points.Where(p => p.Time > peak.Time && p.Time <= freedBy).Min(p => p.Value), Is.Zero);
        }

        Assert.That(points.Select(p => p.Time), Is.Ordered, "the running total is computed in time order although the file is not");
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
            (int exit, string output, string err) = Run("memory", Path.Combine(TestPaths.Samples, SampleData.Memory), "--series", series, "--by-clerk");
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(File.ReadAllLines(series), Has.Length.EqualTo(F(f, "events") + 1));
            Assert.That(output, Does.Contain("MEMORYCLERK_SQLQERESERVATIONS"));
            Assert.That(output, Does.Contain(F(f, "session64.peak_pages").ToString("N0", CultureInfo.InvariantCulture) + " pages"));
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
        List<Dictionary<string, string>> expected = SampleData.Tsv(Path.Combine(TestPaths.Samples, "expected", "blob_storage_waits.waits.tsv"));
        WaitAnalysisResult r = new WaitAnalysis().Analyze(Read(SampleData.Waits, WaitAnalysis.EventNames));

        Assert.That(r.WaitInfoEvents, Is.EqualTo(F(f, "count.wait_info")));
        Assert.That(r.WaitInfoExternalEvents, Is.EqualTo(F(f, "count.wait_info_external")));
        Assert.That(r.ByWaitType.Select(w => w.WaitType), Is.EquivalentTo(expected.Select(e => e["wait_type"])));
        foreach (Dictionary<string, string> e in expected)
        {
            WaitTypeStats w = r.ByWaitType.Single(x => x.WaitType == e["wait_type"]);
            string t = e["wait_type"];
            Assert.That(w.Waits, Is.EqualTo(long.Parse(e["waits"], CultureInfo.InvariantCulture)), t);
            Assert.That(w.TotalDurationMs, Is.EqualTo(long.Parse(e["total_duration_ms"], CultureInfo.InvariantCulture)), t);
            Assert.That(w.MaxDurationMs, Is.EqualTo(long.Parse(e["max_duration_ms"], CultureInfo.InvariantCulture)), t);
            Assert.That(w.MeanDurationMs, Is.EqualTo(double.Parse(e["avg_duration_ms"], CultureInfo.InvariantCulture)).Within(0.005), t);
            Assert.That(w.TotalSignalDurationMs, Is.EqualTo(long.Parse(e["total_signal_duration_ms"], CultureInfo.InvariantCulture)), t);
            Assert.That(w.Begins, Is.EqualTo(w.Waits), t + ": every wait has its Begin");
            WaitPairing p = r.Pairs.Single(x => x.WaitType == t);
            Assert.That((p.Pairs, p.BeginsWithoutEnd, p.EndsWithoutBegin), Is.EqualTo((w.Waits, 0L, 0L)), t);
        }

        PrecedingWait pageio = r.PrecededByFor("PAGEIOLATCH_SH").Single();
        Assert.That((pageio.PrecededBy, pageio.Count, pageio.Share), Is.EqualTo(("PREEMPTIVE_HTTP_REQUEST", F(f, "wait.PAGEIOLATCH_SH.waits"), 1.0)));
    }

    [Test]
    public void WaitsCommand_FiltersOnMapKey_OfTheWaitSample()
    {
        List<Dictionary<string, string>> expected = SampleData.Tsv(Path.Combine(TestPaths.Samples, "expected", "blob_storage_waits.waits.tsv"));
        Dictionary<string, string> row = expected.Single(e => e["wait_type"] == "PAGEIOLATCH_SH");
        (int exit, string output, string err) = Run("waits", Path.Combine(TestPaths.Samples, SampleData.Waits), "--where", "wait_type=" + row["map_key"], "--format", "csv");
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
        Assert.That(r.HoldTimes.Single(h => h.LatchClass == "ACCESS_METHODS_DATASET_PARENT").Elapsed.Count, Is.EqualTo(F(f, "latch_pairs_across_io")));
        Assert.That(r.HoldTimes.Single(h => h.LatchClass == "BUFFER").Elapsed.Count, Is.EqualTo(F(f, "latch_pairs_quick")));
    }
}

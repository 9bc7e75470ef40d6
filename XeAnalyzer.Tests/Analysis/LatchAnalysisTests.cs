using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>LatchAnalysis: tallies, deviations, outliers, missing data, and acquire/release pairing.</summary>
public sealed class LatchAnalysisTests
{
    private const ulong LatchA = 0x000001D96C3F2A58;
    private const ulong LatchB = 0x000001D96C3F2B00;
    private const ulong W1 = 0x000001D94E0A0160;
    private const ulong W2 = 0x000001D94E0C2160;

    private readonly AnalysisCaptures _c = new();

    [Test]
    public void Analyze_CountsAcquiresPerSchedulerClassAndMode_WithDeviationsFromMeanAndPeers()
    {
        var events = new List<XEvent>();
        int us = 0;
        for (int i = 0; i < 10; i++)
        {
            events.Add(
                _c.Acquire(At(us++), "NESTING_TRANSACTION_FULL", LatchA, scheduler: 24, mode: i < 4 ? "SH" : "EX")
            );
            events.Add(_c.Acquire(At(us++), "NESTING_TRANSACTION_FULL", LatchA, scheduler: 26));
        }

        for (int i = 0; i < 8; i++)
        {
            events.Add(_c.Acquire(At(us++), i < 2 ? "BUFFER" : "NESTING_TRANSACTION_FULL", LatchA, scheduler: 27));
        }

        events.Add(_c.Batch(At(us++)));
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);

        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.AcquiredEvents, Is.EqualTo(28));
        Assert.That(
            r.Schedulers.Select(s => (s.Key, s.Count)),
            Is.EqualTo(new[] { ("24", 10L), ("26", 10L), ("27", 8L) })
        );
        double mean = 28 / 3.0;
        Assert.That(r.MeanPerScheduler, Is.EqualTo(mean).Within(1e-12));
        GroupTally s27 = r.Schedulers[2];
        Assert.That(s27.Share, Is.EqualTo(8 / 28.0).Within(1e-12));
        Assert.That(s27.DeviationFromMean, Is.EqualTo((8 - mean) / mean).Within(1e-12));
        Assert.That(s27.DeviationFromPeerMean, Is.EqualTo((8 - 10.0) / 10.0).Within(1e-12));
        Assert.That(s27.DeviationFromMedian, Is.EqualTo((8 - 10.0) / 10.0).Within(1e-12));
        Assert.That(s27.IsOutlier, Is.True);
        Assert.That(r.Schedulers[0].DeviationFromPeerMean, Is.EqualTo((10 - 9.0) / 9.0).Within(1e-12));
        Assert.That(r.Schedulers[0].DeviationFromMedian, Is.Zero);
        Assert.That(
            r.Outliers.Select(o => o.Key),
            Is.EqualTo(new[] { "27" }),
            "the median is the reference, so 27's peers are not flagged for being above 27"
        );

        Assert.That(
            r.Classes.Select(c => (c.Name, c.Count)),
            Is.EqualTo(new[] { ("NESTING_TRANSACTION_FULL", 26L), ("BUFFER", 2L) })
        );
        Assert.That(r.Classes[1].Share, Is.EqualTo(2 / 28.0).Within(1e-12));
        Assert.That(r.Modes.Select(c => (c.Name, c.Count)), Is.EqualTo(new[] { ("EX", 24L), ("SH", 4L) }));
    }

    [Test]
    public void Analyze_FlagsOnlyTheLowScheduler_WhenPeersAreEven()
    {
        var events = new List<XEvent>();
        int us = 0;
        int[] counts = [100, 101, 99, 100, 90];
        int[] ids = [24, 26, 27, 31, 35];
        for (int s = 0; s < ids.Length; s++)
        {
            for (int i = 0; i < counts[s]; i++)
            {
                events.Add(_c.Acquire(At(us++), "NESTING_TRANSACTION_FULL", LatchA, scheduler: ids[s]));
            }
        }

        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);
        Assert.That(r.Outliers.Select(o => o.Key), Is.EqualTo(new[] { "35" }));
        Assert.That(r.Outliers[0].DeviationFromPeerMean, Is.EqualTo((90 - 100.0) / 100.0).Within(1e-12));
        Assert.That(
            new LatchAnalysis(new LatchAnalysisOptions { OutlierThreshold = 0.15 }).Analyze(events).Outliers,
            Is.Empty
        );
    }

    [Test]
    public void Analyze_ReturnsMissingDataNamingSchedulerIdAction_WhenActionAbsent()
    {
        XEvent[] events =
        [
            _c.Acquire(At(1), "BUFFER", LatchA, worker: W1, seq: 1),
            _c.Acquire(At(2), "BUFFER", LatchA, worker: W1, seq: 2),
        ];
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);

        Assert.That(r.IsComplete, Is.False);
        MissingData m = r.MissingData!;
        Assert.That(m.Kind, Is.EqualTo(MissingDataKind.Action));
        Assert.That(m.Missing, Is.EqualTo(new[] { "sqlos.scheduler_id" }));
        Assert.That(m.Message, Does.Contain("sqlos.scheduler_id"));
        Assert.That(m.SessionChange, Does.Contain("DROP EVENT sqlserver.latch_acquired"));
        Assert.That(m.SessionChange, Does.Contain("ADD EVENT sqlserver.latch_acquired"));
        Assert.That(m.SessionChange, Does.Match(@"ACTION \([^)]*sqlos\.scheduler_id"));
        Assert.That(m.SessionChange, Does.Contain("sqlos.worker_address"), "keeps the actions the capture already has");
        Assert.That(r.ToReport().Sections.Single().Title, Is.EqualTo("Missing data"));
    }

    [Test]
    public void Analyze_ReturnsMissingEventsWithEventsSeen_WhenNoLatchAcquired()
    {
        XEvent[] events = [_c.Batch(At(1)), _c.Batch(At(2)), _c.Wait(At(3), "LATCH_EX", "End", 4)];
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);

        MissingData m = r.MissingData!;
        Assert.That(m.Kind, Is.EqualTo(MissingDataKind.Events));
        Assert.That(m.Missing, Does.Contain("sqlserver.latch_acquired"));
        Assert.That(
            m.EventsSeen,
            Is.EqualTo(
                new[]
                {
                    new EventNameCount("sqlserver.sql_batch_completed", 2),
                    new EventNameCount("sqlos.wait_info", 1),
                }
            )
        );
        Assert.That(
            m.Describe(),
            Does.Contain("Events found instead: sqlserver.sql_batch_completed (2), sqlos.wait_info (1)")
        );
        Assert.That(m.SessionChange, Does.Contain("ADD EVENT sqlserver.latch_acquired"));
    }

    [Test]
    public void Analyze_PairsReleaseDeliveredBeforeItsAcquire_AndReportsHoldTimes()
    {
        // File order puts each release before its acquire (per-CPU buffers); true order is by timestamp.
        XEvent[] events =
        [
            _c.Release(At(110), "BUFFER", LatchA, worker: W1, seq: 2, duration: 9),
            _c.Acquire(At(100), "BUFFER", LatchA, scheduler: 1, worker: W1, seq: 1),
            _c.Release(At(250), "BUFFER", LatchA, worker: W1, seq: 4, duration: 49),
            _c.Acquire(At(200), "BUFFER", LatchA, scheduler: 1, worker: W1, seq: 3),
            // never released
            _c.Acquire(At(300), "ACCESS_METHODS_DATASET_PARENT", LatchB, scheduler: 2, worker: W2, seq: 5),
            // other worker: no acquire
            _c.Release(At(400), "ACCESS_METHODS_DATASET_PARENT", LatchB, worker: W1, seq: 6, duration: 1),
        ];
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);

        Assert.That(r.HasHoldTimes, Is.True);
        Assert.That(r.PairedReleases, Is.EqualTo(2));
        Assert.That(r.UnpairedAcquires, Is.EqualTo(1));
        Assert.That(r.UnpairedReleases, Is.EqualTo(1));
        Assert.That(r.Ordering.ArrivedOutOfOrder, Is.EqualTo(2));
        LatchHoldTimes buffer = r.HoldTimes.Single(h => h.LatchClass == "BUFFER");
        Assert.That(buffer.Elapsed.Count, Is.EqualTo(2));
        Assert.That(buffer.Elapsed.Mean, Is.EqualTo(30).Within(1e-9), "(10 + 50) / 2 µs");
        Assert.That(buffer.Elapsed.Min, Is.EqualTo(10).Within(1e-9));
        Assert.That(buffer.Elapsed.Max, Is.EqualTo(50).Within(1e-9));
        Assert.That(buffer.Elapsed.P50, Is.EqualTo(10).Within(1e-9));
        Assert.That(buffer.Elapsed.P99, Is.EqualTo(50).Within(50 * LogLinearHistogram.RelativeError));
        Assert.That(buffer.DurationField!.Mean, Is.EqualTo(29).Within(1e-9));
        Assert.That(buffer.DurationField.Max, Is.EqualTo(49).Within(1e-9));
        LatchHoldTimes parent = r.HoldTimes.Single(h => h.LatchClass == "ACCESS_METHODS_DATASET_PARENT");
        Assert.That((parent.Elapsed.Count, parent.UnpairedAcquires, parent.UnpairedReleases), Is.EqualTo((0L, 1L, 1L)));
    }

    [Test]
    public void Analyze_ResolvesTimestampTiesByEventSequence_WhenPairing()
    {
        // Same timestamp; the release comes first in the file but has the higher event_sequence.
        XEvent[] events =
        [
            _c.Release(At(100), "BUFFER", LatchA, worker: W1, seq: 8),
            _c.Acquire(At(100), "BUFFER", LatchA, scheduler: 1, worker: W1, seq: 7),
        ];
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);
        Assert.That((r.PairedReleases, r.UnpairedReleases, r.UnpairedAcquires), Is.EqualTo((1L, 0L, 0L)));
        Assert.That(r.HoldTimes.Single().Elapsed.Max, Is.Zero);

        // Without event_sequence the tie falls back to file order: the release is then unpaired.
        XEvent[] noSeq =
        [
            _c.Release(At(100), "BUFFER", LatchA, worker: W1),
            _c.Acquire(At(100), "BUFFER", LatchA, scheduler: 1, worker: W1),
        ];
        LatchAnalysisResult r2 = new LatchAnalysis().Analyze(noSeq);
        Assert.That((r2.PairedReleases, r2.UnpairedReleases, r2.UnpairedAcquires), Is.EqualTo((0L, 1L, 1L)));
        Assert.That(r2.Ordering.EventsWithoutSequence, Is.EqualTo(2));
    }

    [Test]
    public void Analyze_PairsNestedAcquiresInnermostFirst_AndFallsBackToSystemThreadId()
    {
        XEvent[] events =
        [
            _c.Acquire(At(0), "BUFFER", LatchA, scheduler: 1, worker: W1, seq: 1),
            _c.Acquire(At(5), "BUFFER", LatchA, scheduler: 1, worker: W1, seq: 2),
            _c.Release(At(6), "BUFFER", LatchA, worker: W1, seq: 3), // inner: 1 µs
            _c.Release(At(20), "BUFFER", LatchA, worker: W1, seq: 4), // outer: 20 µs
            _c.Acquire(At(30), "BUFFER", LatchB, scheduler: 1, thread: 7412, seq: 5),
            _c.Release(At(33), "BUFFER", LatchB, thread: 7412, seq: 6), // 3 µs, paired by thread id
        ];
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);
        DistributionSummary d = r.HoldTimes.Single().Elapsed;
        Assert.That(d.Count, Is.EqualTo(3));
        Assert.That(d.Min, Is.EqualTo(1).Within(1e-9));
        Assert.That(d.Max, Is.EqualTo(20).Within(1e-9));
        Assert.That(d.Total, Is.EqualTo(24).Within(1e-9));
        Assert.That(r.UnpairedAcquires + r.UnpairedReleases, Is.Zero);
    }

    [Test]
    public void Analyze_ReportsNoHoldTimes_WhenNoReleases()
    {
        LatchAnalysisResult r = new LatchAnalysis().Analyze([
            _c.Acquire(At(0), "BUFFER", LatchA, scheduler: 1, worker: W1),
        ]);
        Assert.That(r.HasHoldTimes, Is.False);
        Assert.That(r.HoldTimeNote, Does.Contain("latch_released"));
        Assert.That(r.UnpairedAcquires, Is.Zero);
    }

    [Test]
    public void Analyze_EvictsOldestPendingAcquire_WhenOverCap()
    {
        XEvent[] events =
        [
            _c.Acquire(At(0), "BUFFER", 1, scheduler: 1, worker: W1, seq: 1),
            _c.Acquire(At(1), "BUFFER", 2, scheduler: 1, worker: W1, seq: 2),
            _c.Acquire(At(2), "BUFFER", 3, scheduler: 1, worker: W1, seq: 3),
            _c.Release(At(3), "BUFFER", 1, worker: W1, seq: 4), // its acquire was evicted
            _c.Release(At(4), "BUFFER", 3, worker: W1, seq: 5),
        ];
        LatchAnalysisResult r = new LatchAnalysis(new LatchAnalysisOptions { MaxPendingAcquires = 2 }).Analyze(events);
        Assert.That(r.EvictedAcquires, Is.EqualTo(1));
        Assert.That(r.PairedReleases, Is.EqualTo(1));
        Assert.That(r.UnpairedReleases, Is.EqualTo(1));
        Assert.That(r.UnpairedAcquires, Is.EqualTo(2), "the evicted acquire and latch 2, never released");
    }

    [Test]
    public void Analyze_GroupsBySession_AndNeedsTheSessionAction()
    {
        XEvent[] events =
        [
            _c.Acquire(At(0), "BUFFER", LatchA, scheduler: 1, session: 58),
            _c.Acquire(At(1), "BUFFER", LatchA, scheduler: 1, session: 58),
            _c.Acquire(At(2), "BUFFER", LatchA, scheduler: 2, session: 61),
            _c.Acquire(At(3), "BUFFER", LatchA, scheduler: 2),
        ];
        LatchAnalysisResult r = new LatchAnalysis(new LatchAnalysisOptions { GroupBy = LatchGrouping.Session }).Analyze(
            events
        );
        Assert.That(r.Groups.Select(g => (g.Key, g.Count)), Is.EqualTo(new[] { ("58", 2L), ("61", 1L) }));
        Assert.That(r.AcquiresWithoutGroup, Is.EqualTo(1));

        LatchAnalysisResult byWorker = new LatchAnalysis(
            new LatchAnalysisOptions { GroupBy = LatchGrouping.Worker }
        ).Analyze(events);
        Assert.That(byWorker.MissingData!.Missing, Is.EqualTo(new[] { "sqlos.worker_address" }));
    }

    [Test]
    public void ToReport_HasSchedulerTableAndChart_WithOutlierHighlighted()
    {
        var events = new List<XEvent>();
        for (int i = 0; i < 10; i++)
        {
            events.Add(_c.Acquire(At(i), "BUFFER", LatchA, scheduler: 1));
            events.Add(_c.Acquire(At(i), "BUFFER", LatchA, scheduler: 2));
            events.Add(_c.Acquire(At(i), "BUFFER", LatchA, scheduler: 3));
        }

        events.Add(_c.Acquire(At(50), "BUFFER", LatchA, scheduler: 4));
        LatchAnalysisResult r = new LatchAnalysis().Analyze(events);
        XeAnalyzer.Output.BarChart chart = r.ToBarChart();
        Assert.That(chart.Categories, Is.EqualTo(new[] { "1", "2", "3", "4" }));
        Assert.That(chart.Values, Is.EqualTo(new[] { 10.0, 10, 10, 1 }));
        Assert.That(chart.IsHighlighted, Is.EqualTo(new[] { false, false, false, true }));
        Assert.That(chart.ReferenceLine!.Value, Is.EqualTo(31 / 4.0).Within(1e-12));
        XeAnalyzer.Output.ReportDocument doc = r.ToReport();
        Assert.That(
            doc.Sections.Select(s => s.Title),
            Is.EqualTo(
                new[]
                {
                    "Summary",
                    "Acquires by scheduler",
                    "Acquires by latch class",
                    "Acquires by latch mode",
                    "Latch hold times",
                }
            )
        );
    }
}

using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>WaitAnalysis: End-only durations, per scheduler, Begin/End pairs, and the preceded-by table.</summary>
public sealed class WaitAnalysisTests
{
    private const ulong W1 = 0x000001D94E0A0160;
    private const ulong W2 = 0x000001D94E0C2160;

    private readonly AnalysisCaptures _c = new();

    private static DateTime Ms(double ms) => At(ms * 1000);

    [Test]
    public void Analyze_CountsOnlyEndEventsWithDurations_AndEveryWaitCompleted()
    {
        XEvent[] events =
        [
            _c.Wait(Ms(0), "PAGEIOLATCH_SH", "Begin", 0, W1, scheduler: 3, seq: 1),
            _c.Wait(Ms(30), "PAGEIOLATCH_SH", "End", 30, W1, scheduler: 3, seq: 2, signal: 2),
            _c.Wait(Ms(40), "LATCH_EX", "End", 100, W2, scheduler: 4, seq: 3, signal: 5),
            _c.Wait(Ms(50), "LATCH_EX", "End", 60, W2, scheduler: 4, seq: 4),
            _c.Completed(Ms(60), "CXPACKET", 40, W1, scheduler: 3, seq: 5, signal: 1),
            _c.Completed(Ms(70), "CXPACKET", 0, W1, scheduler: 3, seq: 6),
            _c.Wait(Ms(80), "PREEMPTIVE_HTTP_REQUEST", "End", 1, W1, scheduler: 3, seq: 7, external: true),
            _c.Batch(Ms(90)),
        ];
        WaitAnalysisResult r = new WaitAnalysis().Analyze(events);

        Assert.That(r.IsComplete, Is.True);
        Assert.That((r.WaitInfoEvents, r.WaitInfoExternalEvents, r.WaitCompletedEvents), Is.EqualTo((4L, 1L, 2L)));
        Assert.That((r.Waits, r.Begins), Is.EqualTo((6L, 1L)));
        Assert.That(
            r.ByWaitType.Select(w => w.WaitType),
            Is.EqualTo(new[] { "LATCH_EX", "CXPACKET", "PAGEIOLATCH_SH", "PREEMPTIVE_HTTP_REQUEST" })
        );
        WaitTypeStats latch = r.ByWaitType[0];
        Assert.That(
            (latch.Waits, latch.TotalDurationMs, latch.MaxDurationMs, latch.TotalSignalDurationMs),
            Is.EqualTo((2L, 160L, 100L, 5L))
        );
        Assert.That(latch.MeanDurationMs, Is.EqualTo(80).Within(1e-12));
        Assert.That(latch.ShareOfDuration, Is.EqualTo(160 / 231.0).Within(1e-12));
        WaitTypeStats page = r.ByWaitType[2];
        Assert.That(
            (page.Waits, page.Begins, page.TotalDurationMs, page.TotalSignalDurationMs),
            Is.EqualTo((1L, 1L, 30L, 2L))
        );
        WaitTypeStats cx = r.ByWaitType[1];
        Assert.That((cx.Waits, cx.TotalDurationMs, cx.MeanDurationMs), Is.EqualTo((2L, 40L, 20.0)));

        Assert.That(
            r.BySchedulers.Select(s => (s.Scheduler, s.Waits, s.TotalDurationMs, s.TopWaitType)),
            Is.EqualTo(new[] { ("3", 4L, 71L, "CXPACKET"), ("4", 2L, 160L, "LATCH_EX") })
        );
    }

    [Test]
    public void Analyze_PairsBeginAndEndOnTheSameWorker_WhenEndArrivesFirstInTheFile()
    {
        XEvent[] events =
        [
            _c.Wait(Ms(12), "PAGEIOLATCH_SH", "End", 10, W1, seq: 2),
            _c.Wait(Ms(2), "PAGEIOLATCH_SH", "Begin", 0, W1, seq: 1),
            _c.Wait(Ms(20), "LATCH_EX", "Begin", 0, W2, seq: 3), // never ends
            _c.Wait(Ms(25), "LATCH_EX", "End", 4, W1, seq: 4), // no Begin on W1
        ];
        WaitAnalysisResult r = new WaitAnalysis().Analyze(events);
        Assert.That(r.HasPairs, Is.True);
        Assert.That(
            r.Pairs.Select(p => (p.WaitType, p.Pairs, p.BeginsWithoutEnd, p.EndsWithoutBegin)),
            Is.EqualTo(new[] { ("PAGEIOLATCH_SH", 1L, 0L, 0L), ("LATCH_EX", 0L, 1L, 1L) })
        );
    }

    [Test]
    public void Analyze_BuildsPrecededByTable_FromBeginEndPairs()
    {
        var events = new List<XEvent>();
        ulong seq = 0;
        double t = 0;
        for (int i = 0; i < 3; i++)
        {
            events.Add(_c.Wait(Ms(t), "PREEMPTIVE_HTTP_REQUEST", "Begin", 0, W1, seq: ++seq, external: true));
            events.Add(_c.Wait(Ms(t + 1), "PREEMPTIVE_HTTP_REQUEST", "End", 1, W1, seq: ++seq, external: true));
            events.Add(_c.Wait(Ms(t + 1.2), "PAGEIOLATCH_SH", "Begin", 0, W1, seq: ++seq));
            events.Add(_c.Wait(Ms(t + 9), "PAGEIOLATCH_SH", "End", 8, W1, seq: ++seq));
            t += 20;
        }

        events.Add(_c.Wait(Ms(100), "LATCH_EX", "Begin", 0, W2, seq: ++seq));
        events.Add(_c.Wait(Ms(130), "LATCH_EX", "End", 30, W2, seq: ++seq));
        events.Add(_c.Wait(Ms(131), "PAGEIOLATCH_SH", "Begin", 0, W2, seq: ++seq));
        events.Add(_c.Wait(Ms(140), "PAGEIOLATCH_SH", "End", 9, W2, seq: ++seq));

        // Reverse the file order: every event is out of order; the window restores it.
        events.Reverse();
        WaitAnalysisResult r = new WaitAnalysis().Analyze(events);

        Assert.That(r.HasPrecedence, Is.True);
        Assert.That(
            r.PrecededByFor("PAGEIOLATCH_SH").Select(p => (p.PrecededBy, p.Count)),
            Is.EqualTo(new[] { ("PREEMPTIVE_HTTP_REQUEST", 3L), ("LATCH_EX", 1L) })
        );
        Assert.That(r.PrecededByFor("PAGEIOLATCH_SH")[0].Share, Is.EqualTo(0.75).Within(1e-12));
        Assert.That(
            r.PrecededByFor("PREEMPTIVE_HTTP_REQUEST").Select(p => (p.PrecededBy, p.Count)),
            Is.EqualTo(new[] { ("PAGEIOLATCH_SH", 2L), ((string?)null, 1L) })
        );
        Assert.That(r.PrecededByFor("LATCH_EX").Single().PrecededBy, Is.Null);
        Assert.That(r.WorkerAction, Is.EqualTo("sqlos.worker_address"));
    }

    [Test]
    public void Analyze_UsesEndMinusDuration_WhenThereAreNoBeginEvents()
    {
        XEvent[] events =
        [
            _c.Wait(Ms(10), "PREEMPTIVE_HTTP_REQUEST", "End", 2, W1, seq: 1, external: true),
            // began at 11 ms, after the preemptive wait ended at 10 ms
            _c.Wait(Ms(50), "PAGEIOLATCH_SH", "End", 39, W1, seq: 2),
            // began at 50.5 ms: preceded by the PAGEIOLATCH_SH above
            _c.Wait(Ms(60.5), "PAGEIOLATCH_SH", "End", 10, W1, seq: 3),
            // began at 5 ms, before the others ended: none earlier
            _c.Wait(Ms(200), "LATCH_EX", "End", 195, W1, seq: 4),
            _c.Wait(Ms(12), "CXPACKET", "End", 1, W2, seq: 5), // began at 11 ms on W2: nothing before
        ];
        WaitAnalysisResult r = new WaitAnalysis().Analyze(events);
        Assert.That(r.HasPairs, Is.False);
        Assert.That(r.PairNote, Does.Contain("no Begin events"));
        Assert.That(
            r.PrecededByFor("PAGEIOLATCH_SH").Select(p => (p.PrecededBy, p.Count)),
            Is.EqualTo(new[] { ("PAGEIOLATCH_SH", 1L), ("PREEMPTIVE_HTTP_REQUEST", 1L) })
        );
        Assert.That(r.PrecededByFor("LATCH_EX").Single().PrecededBy, Is.Null);
        Assert.That(r.PrecededByFor("CXPACKET").Single().PrecededBy, Is.Null);
    }

    [Test]
    public void Analyze_ExplainsMissingWorkerAndScheduler_WhenActionsAbsent()
    {
        WaitAnalysisResult r = new WaitAnalysis().Analyze([_c.Wait(Ms(1), "LATCH_EX", "End", 4)]);
        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.HasPrecedence, Is.False);
        Assert.That(r.PrecedenceNote, Does.Contain("sqlos.worker_address"));
        Assert.That(r.BySchedulers, Is.Empty);
        Assert.That(r.SchedulerNote, Does.Contain("sqlos.scheduler_id"));
        Assert.That(r.WaitsWithoutWorker, Is.EqualTo(1));
    }

    [Test]
    public void Analyze_ReturnsMissingEvents_WhenNoWaitEvents()
    {
        WaitAnalysisResult r = new WaitAnalysis().Analyze([_c.Batch(Ms(1)), _c.Alloc(Ms(2), 3)]);
        Assert.That(r.MissingData!.Kind, Is.EqualTo(MissingDataKind.Events));
        Assert.That(r.MissingData.Missing, Does.Contain("sqlos.wait_info"));
        Assert.That(
            r.MissingData.SessionChange,
            Does.Contain("ADD EVENT sqlos.wait_info (ACTION (sqlos.scheduler_id, sqlos.worker_address")
        );
        Assert.That(
            r.MissingData.EventsSeen.Select(e => e.Name),
            Is.EquivalentTo(new[] { "sqlserver.sql_batch_completed", "sqlos.page_allocated" })
        );
    }

    [Test]
    public void ToReport_HasEverySection()
    {
        WaitAnalysisResult r = new WaitAnalysis().Analyze([
            _c.Wait(Ms(1), "LATCH_EX", "End", 4, W1, scheduler: 1, seq: 1),
        ]);
        Assert.That(
            r.ToReport().Sections.Select(s => s.Title),
            Is.EqualTo(
                new[] { "Summary", "By wait type", "Wait resources", "By scheduler", "Begin/End pairs", "Preceded by" }
            )
        );
        Assert.That(r.ToBarChart().Categories, Is.EqualTo(new[] { "LATCH_EX" }));
    }

    [Test]
    public void Analyze_FieldsTheSchemaLacks_AreNotApplicable_NeverZero()
    {
        // wait_info_external has no signal_duration and no wait_resource on real builds (the fixture's schema follows
        // them).
        WaitAnalysisResult r = new WaitAnalysis().Analyze([
            _c.Wait(Ms(1), "PREEMPTIVE_HTTP_REQUEST", "End", 3, W1, scheduler: 1, seq: 1, external: true),
            _c.Wait(Ms(2), "LATCH_EX", "End", 4, W1, scheduler: 1, seq: 2, signal: 1),
            _c.Completed(Ms(3), "PAGEIOLATCH_SH", 9, W1, scheduler: 1, seq: 3, signal: 2),
        ]);
        Assert.That(r.ByWaitType.Single(w => w.WaitType == "PREEMPTIVE_HTTP_REQUEST").TotalSignalDurationMs, Is.Null);
        Assert.That(r.ByWaitType.Single(w => w.WaitType == "LATCH_EX").TotalSignalDurationMs, Is.EqualTo(1));
        Assert.That(r.ByWaitType.Single(w => w.WaitType == "PAGEIOLATCH_SH").TotalSignalDurationMs, Is.EqualTo(2));
        Assert.That(r.HasWaitResource, Is.True);
        Assert.That(
            r.TopResources.Select(x => (x.WaitType, x.Resource, x.Waits)),
            Is.EqualTo(new[] { ("LATCH_EX", (string?)"0x0000000000000000", 1L) }),
            "only wait_info's schema has wait_resource here; wait_info_external and this wait_completed do not"
        );
        Assert.That(
            r.Results.Select(x => (x.WaitType, x.Result, x.Waits)),
            Is.EqualTo(new[] { ("PAGEIOLATCH_SH", "0", 1L) })
        );

        ReportTable byType = r.ToReport()
            .Sections.Single(s => s.Title == "By wait type")
            .Blocks.OfType<ReportTable>()
            .Single();
        int signal = byType.Columns.ToList().FindIndex(c => c.Name == "signal ms");
        TableCell cell = byType.Rows.Single(row => row[0].Text == "PREEMPTIVE_HTTP_REQUEST")[signal];
        Assert.That(cell.IsNotApplicable, Is.True);
        Assert.That(cell.ToString(), Is.EqualTo("n/a"));
    }
}

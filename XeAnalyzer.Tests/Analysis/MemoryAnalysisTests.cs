using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>MemoryAnalysis: running totals in (timestamp, event_sequence) order, peaks, per session/clerk, page counts,
/// missing fields.</summary>
public sealed class MemoryAnalysisTests
{
    private readonly AnalysisCaptures _c = new();

    /// <summary>Six events in true order (timestamps in µs; #2 and #3 share a timestamp, event_sequence orders
    /// them).</summary>
    private XEvent[] TrueOrder() =>
        [
            _c.Alloc(At(0), 9, session: 51, seq: 1),
            _c.Alloc(At(1), 5, session: 51, seq: 2),
            _c.Free(At(1), 9, session: 51, seq: 3),
            _c.Alloc(At(2), 17, session: 52, seq: 4),
            _c.Free(At(3), 5, session: 51, seq: 5),
            _c.Free(At(4), 17, session: 52, seq: 6),
        ];

    [Test]
    public void Analyze_KeepsRunningTotalInTimestampThenSequenceOrder_WhenFileOrderIsShuffled()
    {
        XEvent[] t = TrueOrder();
        XEvent[] fileOrder = [t[3], t[2], t[0], t[5], t[1], t[4]];
        var points = new List<MemoryPoint>();
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(fileOrder, points.Add);

        // By hand: +9, +5, -9, +17, -5, -17.
        Assert.That(points.Select(p => p.Total), Is.EqualTo(new long[] { 9, 14, 5, 22, 17, 0 }));
        Assert.That(points.Select(p => p.EventSequence), Is.EqualTo(new ulong?[] { 1, 2, 3, 4, 5, 6 }));
        Assert.That(points.Select(p => p.SessionTotal), Is.EqualTo(new long[] { 9, 14, 5, 17, 0, 0 }));
        Assert.That(points.Select(p => p.IsAllocation), Is.EqualTo(new[] { true, true, false, true, false, false }));
        Assert.That(r.PeakPages, Is.EqualTo(22));
        Assert.That(r.PeakTime, Is.EqualTo(At(2)));
        Assert.That(r.FinalPages, Is.Zero);
        Assert.That(r.MinimumPages, Is.Zero);
        Assert.That(r.Ordering.ArrivedOutOfOrder, Is.EqualTo(3));
        Assert.That(r.Ordering.LateEvents, Is.Zero);

        GroupMemory s51 = r.Sessions.Single(s => s.Key == "51");
        Assert.That(
            (s51.PeakPages, s51.PeakTime),
            Is.EqualTo((14L, (DateTime?)At(1))),
            "the tie at t=1 µs is ordered by event_sequence: +5 before -9"
        );
        Assert.That(
            (s51.AllocationEvents, s51.FreeEvents, s51.PagesAllocated, s51.PagesFreed, s51.FinalPages),
            Is.EqualTo((2L, 2L, 14L, 14L, 0L))
        );
        GroupMemory s52 = r.Sessions.Single(s => s.Key == "52");
        Assert.That((s52.PeakPages, s52.PeakTime), Is.EqualTo((17L, (DateTime?)At(2))));
        Assert.That(r.Sessions[0].Key, Is.EqualTo("52"), "highest peak first");
    }

    [Test]
    public void Analyze_KeepsAllocationOrFree_ForZeroPageEvents_AndLargeSessionIds()
    {
        // A free of 0 pages is still a free (the reorder record folds the kind into the page count), and a session id
        // above the ones kept in the dense array is tracked like any other.
        XEvent[] events =
        [
            _c.Alloc(At(0), 0, session: 60_000, seq: 1),
            _c.Free(At(1), 0, session: 60_000, seq: 2),
            _c.Alloc(At(2), 3, session: 5, seq: 3),
            _c.Free(At(3), 0, session: 5, seq: 4),
        ];
        var points = new List<MemoryPoint>();
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(events, points.Add);

        Assert.That(
            points.Select(p => (p.IsAllocation, p.Pages, p.Total)),
            Is.EqualTo(new[] { (true, 0L, 0L), (false, 0L, 0L), (true, 3L, 3L), (false, 0L, 3L) })
        );
        Assert.That((r.AllocationEvents, r.FreeEvents, r.PagesAllocated, r.PagesFreed), Is.EqualTo((2L, 2L, 3L, 0L)));
        GroupMemory big = r.Sessions.Single(s => s.Key == "60000");
        Assert.That(
            (big.AllocationEvents, big.FreeEvents, big.PagesAllocated, big.PagesFreed),
            Is.EqualTo((1L, 1L, 0L, 0L))
        );
        GroupMemory small = r.Sessions.Single(s => s.Key == "5");
        Assert.That(
            (small.AllocationEvents, small.FreeEvents, small.FinalPages, small.PeakPages),
            Is.EqualTo((1L, 1L, 3L, 3L))
        );
    }

    [Test]
    public void Analyze_TotalsEventsPagesAndBytes_AndPageCountShares()
    {
        XEvent[] events =
        [
            _c.Alloc(At(0), 1, seq: 1),
            _c.Alloc(At(1), 2, seq: 2),
            _c.Alloc(At(2), 3, seq: 3),
            _c.Alloc(At(3), 3, seq: 4),
            _c.Free(At(4), 4, seq: 5),
            _c.Free(At(5), 6, seq: 6),
            _c.Free(At(6), 129, seq: 7),
            _c.Batch(At(7)),
        ];
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(events);
        Assert.That((r.AllocationEvents, r.FreeEvents), Is.EqualTo((4L, 3L)));
        Assert.That((r.PagesAllocated, r.PagesFreed), Is.EqualTo((9L, 139L)));
        Assert.That(r.BytesFreed, Is.EqualTo(139.0 * 8192));
        Assert.That(r.FinalPages, Is.EqualTo(9 - 139));
        Assert.That(r.MinimumPages, Is.EqualTo(9 - 139));
        // 1+2^k: 2, 3, 3, 129 (4 of 7); exactly one page: 1 of 7.
        Assert.That(r.OnePlusPowerOfTwoShare, Is.EqualTo(4 / 7.0).Within(1e-12));
        Assert.That(r.ExactlyOneShare, Is.EqualTo(1 / 7.0).Within(1e-12));
        Assert.That(r.TopPageCounts[0], Is.EqualTo(new PageCountFrequency(3, 2, 2 / 7.0, true)));
        Assert.That(r.TopPageCounts.Select(p => p.Pages), Is.EqualTo(new long[] { 3, 1, 2, 4, 6, 129 }));
        Assert.That(
            r.TopPageCounts.Where(p => p.IsOnePlusPowerOfTwo).Select(p => p.Pages),
            Is.EqualTo(new long[] { 3, 2, 129 })
        );
        Assert.That(r.Sessions, Is.Empty);
        Assert.That(r.EventsWithoutSession, Is.EqualTo(7));
    }

    [TestCase(2, true)]
    [TestCase(3, true)]
    [TestCase(5, true)]
    [TestCase(65, true)]
    [TestCase(1L + (1L << 40), true)]
    [TestCase(1, false)]
    [TestCase(4, false)]
    [TestCase(6, false)]
    [TestCase(0, false)]
    public void IsOnePlusPowerOfTwo_RecognisesOnePlusPowersOfTwo(long pages, bool expected) =>
        Assert.That(MemoryAnalysis.IsOnePlusPowerOfTwo(pages), Is.EqualTo(expected));

    [Test]
    public void DescribePages_UsesTheSeedWording()
    {
        // 71,300,000 pages × 8,192 bytes = 584,089,600,000 bytes = 584.1 GB (10^9).
        Assert.That(
            MemoryAnalysisResult.DescribePages(71_300_000),
            Is.EqualTo("71,300,000 pages (about 71.3 million pages, about 584.1 GB at 8 KB a page)")
        );
        Assert.That(MemoryAnalysisResult.DescribePages(3), Is.EqualTo("3 pages (about 24.6 KB at 8 KB a page)"));
    }

    [Test]
    public void Analyze_ReturnsMissingFieldListingRealFields_WhenPagesFieldAbsent()
    {
        var c = new AnalysisCaptures(pagesField: "page_count");
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze([c.Alloc(At(0), 3), c.Free(At(1), 3)]);
        MissingData m = r.MissingData!;
        Assert.That(m.Kind, Is.EqualTo(MissingDataKind.Field));
        Assert.That(m.Missing, Is.EqualTo(new[] { "number_pages" }));
        Assert.That(m.AvailableFields, Is.EqualTo(new[] { "page_count", "memory_clerk_name", "page_location" }));
        Assert.That(
            m.Message,
            Does.Contain("page_count (uint64), memory_clerk_name (unicode_string), page_location (ptr)")
        );
        Assert.That(m.Message, Does.Contain("--pages-field"));
        Assert.That(m.SessionChange, Does.Contain("sys.dm_xe_object_columns"));

        MemoryAnalysisResult ok = new MemoryAnalysis(new MemoryAnalysisOptions { PagesField = "page_count" }).Analyze([
            c.Alloc(At(0), 3),
            c.Free(At(1), 2),
        ]);
        Assert.That(ok.IsComplete, Is.True);
        Assert.That((ok.PagesAllocated, ok.PagesFreed, ok.PeakPages), Is.EqualTo((3L, 2L, 3L)));
    }

    [Test]
    public void Analyze_ReturnsMissingEvents_WhenNoPageEvents()
    {
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze([_c.Batch(At(0))]);
        Assert.That(r.MissingData!.Kind, Is.EqualTo(MissingDataKind.Events));
        Assert.That(r.MissingData.Missing, Is.EqualTo(new[] { "sqlos.page_allocated", "sqlos.page_freed" }));
        Assert.That(r.MissingData.SessionChange, Does.Contain("ADD EVENT sqlos.page_allocated"));
        Assert.That(r.MissingData.EventsSeen.Single().Name, Is.EqualTo("sqlserver.sql_batch_completed"));
    }

    [Test]
    public void Analyze_KeepsPerClerkTotals_WhenAsked()
    {
        XEvent[] events =
        [
            _c.Alloc(At(0), 10, seq: 1, clerk: "MEMORYCLERK_SQLQERESERVATIONS"),
            _c.Alloc(At(1), 4, seq: 2, clerk: "MEMORYCLERK_SOSNODE"),
            _c.Free(At(2), 10, seq: 3, clerk: "MEMORYCLERK_SQLQERESERVATIONS"),
            _c.Alloc(At(3), 5, seq: 4, clerk: "MEMORYCLERK_SOSNODE"),
        ];
        MemoryAnalysisResult r = new MemoryAnalysis(new MemoryAnalysisOptions { ByClerk = true }).Analyze(events);
        Assert.That(
            r.Clerks.Select(g => (g.Key, g.PeakPages, g.FinalPages)),
            Is.EqualTo(new[] { ("MEMORYCLERK_SQLQERESERVATIONS", 10L, 0L), ("MEMORYCLERK_SOSNODE", 9L, 9L) })
        );
        Assert.That(r.Clerks[1].PeakTime, Is.EqualTo(At(3)));
        Assert.That(
            r.ClerkSeries.Select(s => s.Name),
            Is.EqualTo(new[] { "MEMORYCLERK_SQLQERESERVATIONS", "MEMORYCLERK_SOSNODE" })
        );
        Assert.That(r.PeakPages, Is.EqualTo(14));
        Assert.That(new MemoryAnalysis().Analyze(events).Clerks, Is.Empty);
    }

    [Test]
    public void Analyze_ReducedSeriesKeepsGlobalPeakExactly_ForManyEvents()
    {
        var events = new List<XEvent>();
        var rng = new Random(1234);
        long total = 0,
            peak = long.MinValue;
        DateTime peakTime = default;
        int n = 60_000;
        int spikeAt = 41_337;
        for (int i = 0; i < n; i++)
        {
            bool alloc = i == spikeAt || (total <= 0 ? true : rng.Next(2) == 0);
            long pages = i == spikeAt ? 5000 : 1 + rng.Next(16);
            DateTime t = At(i * 3.0);
            events.Add(alloc ? _c.Alloc(t, pages, seq: (ulong)i + 1) : _c.Free(t, pages, seq: (ulong)i + 1));
            total += alloc ? pages : -pages;
            if (total > peak)
            {
                peak = total;
                peakTime = t;
            }
        }

        MemoryAnalysisResult r = new MemoryAnalysis(new MemoryAnalysisOptions { SeriesBuckets = 256 }).Analyze(events);
        Assert.That(r.PeakPages, Is.EqualTo(peak));
        Assert.That(r.PeakTime, Is.EqualTo(peakTime));
        Assert.That(r.Total.PointsBeforeReduction, Is.EqualTo(n));
        Assert.That(r.Total.Points, Has.Count.LessThanOrEqualTo(4 * 256));
        Assert.That(r.Total.Points.Max(p => p.Value), Is.EqualTo(peak));
        Assert.That(r.Total.Points, Does.Contain(new SeriesPoint(peakTime, peak)));
        Assert.That(r.Total.Points.Select(p => p.Time), Is.Ordered);
        XeAnalyzer.Output.LineChart chart = r.ToLineChart();
        Assert.That(chart.Series[0].Y.ToArray().Max(), Is.EqualTo((double)peak));
    }
}

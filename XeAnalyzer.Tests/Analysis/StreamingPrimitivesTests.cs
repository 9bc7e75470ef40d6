using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>The bounded streaming pieces: reorder window, log-linear histogram, peak-preserving series.</summary>
public sealed class StreamingPrimitivesTests
{
    private static readonly DateTime T0 = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static List<int> Drain(ReorderBuffer<int> b)
    {
        var list = new List<int>();
        while (b.TryTake(out int item, out _))
        {
            list.Add(item);
        }

        return list;
    }

    [Test]
    public void ReorderBuffer_ReleasesInTimestampOrder_AndCountsInversions()
    {
        var b = new ReorderBuffer<int>();
        foreach (int t in new[] { 5, 3, 4, 1, 2 })
        {
            b.Add(T0.AddTicks(t), null, t);
        }

        Assert.That(Drain(b), Is.Empty, "all inside the 30 s window");
        b.Complete();
        Assert.That(Drain(b), Is.EqualTo(new[] { 1, 2, 3, 4, 5 }));
        OrderingStatistics s = b.GetStatistics();
        Assert.That(
            (s.Events, s.ArrivedOutOfOrder, s.LateEvents, s.MaxPending, s.EventsWithoutSequence),
            Is.EqualTo((5L, 2L, 0L, 5, 5L))
        );
    }

    [Test]
    public void ReorderBuffer_BreaksTimestampTiesBySequenceThenArrival()
    {
        var b = new ReorderBuffer<int>();
        b.Add(T0, 30, 3);
        b.Add(T0, 10, 1);
        b.Add(T0, null, 5);
        b.Add(T0, 20, 2);
        b.Add(T0, null, 6);
        b.Complete();
        Assert.That(Drain(b), Is.EqualTo(new[] { 1, 2, 3, 5, 6 }));
    }

    [Test]
    public void ReorderBuffer_ReleasesEventsOlderThanTheWindow()
    {
        var b = new ReorderBuffer<int>(new ReorderOptions { Window = TimeSpan.FromTicks(10) });
        b.Add(T0.AddTicks(0), null, 0);
        b.Add(T0.AddTicks(5), null, 5);
        Assert.That(Drain(b), Is.Empty);
        b.Add(T0.AddTicks(20), null, 20);
        Assert.That(Drain(b), Is.EqualTo(new[] { 0, 5 }), "both are older than 20 - 10");
        Assert.That(b.Count, Is.EqualTo(1));
    }

    [Test]
    public void ReorderBuffer_CountsLateEvents_AndReleasesThemAtOnce()
    {
        var b = new ReorderBuffer<int>(new ReorderOptions { Window = TimeSpan.Zero });
        b.Add(T0.AddTicks(10), null, 10);
        b.Add(T0.AddTicks(20), null, 20);
        Assert.That(Drain(b), Is.EqualTo(new[] { 10 }));
        b.Add(T0.AddTicks(5), null, 5);
        Assert.That(Drain(b), Is.EqualTo(new[] { 5 }));
        Assert.That(b.GetStatistics().LateEvents, Is.EqualTo(1));
    }

    [Test]
    public void ReorderBuffer_HoldsAtMostMaxPending()
    {
        var b = new ReorderBuffer<int>(new ReorderOptions { MaxPending = 3 });
        var released = new List<int>();
        for (int i = 100; i > 0; i--)
        {
            b.Add(T0.AddTicks(i), null, i);
            released.AddRange(Drain(b));
            Assert.That(b.Count, Is.LessThanOrEqualTo(3));
        }

        b.Complete();
        released.AddRange(Drain(b));
        Assert.That(released, Has.Count.EqualTo(100));
        Assert.That(b.GetStatistics().MaxPending, Is.EqualTo(4), "one over the cap before the oldest is released");
        Assert.That(
            b.GetStatistics().LateEvents,
            Is.EqualTo(96),
            "a strictly decreasing input overflows a window of 3"
        );
    }

    [Test]
    public void ReorderBuffer_MergesManyOverlappingSortedRuns_IntoExactOrder()
    {
        // 40 per-CPU streams, each in order, interleaved in arrival: thousands of records make dozens of sorted chunks
        // whose heads overlap, so the merge switches runs on almost every record.
        const int Streams = 40,
            PerStream = 2_000;
        var rng = new Random(12345);
        var next = new long[Streams];
        var arrivals = new List<(long Ticks, ulong? Seq, int Id)>();
        int id = 0;
        while (arrivals.Count < Streams * PerStream)
        {
            int s = rng.Next(Streams);
            if (next[s] >= PerStream)
            {
                continue;
            }

            // Ticks collide across streams (ties broken by sequence, then arrival); a few records have no sequence.
            long ticks = (next[s]++ * 3) + rng.Next(3);
            ulong? seq = rng.Next(10) == 0 ? null : (ulong)rng.Next(4);
            arrivals.Add((ticks, seq, id++));
        }

        var b = new ReorderBuffer<int>();
        foreach ((long ticks, ulong? seq, int item) in arrivals)
        {
            b.Add(T0.AddTicks(ticks), seq, item);
        }

        Assert.That(Drain(b), Is.Empty, "all inside the 30 s window and under the cap");
        b.Complete();
        int[] expected =
        [
            .. arrivals.OrderBy(a => a.Ticks).ThenBy(a => a.Seq ?? ulong.MaxValue).ThenBy(a => a.Id).Select(a => a.Id),
        ];
        Assert.That(Drain(b), Is.EqualTo(expected));
        Assert.That(b.GetStatistics().LateEvents, Is.Zero);
    }

    [Test]
    public void ReorderBuffer_UnderTheCap_ReleasesEveryRecordOnce_InOrderApartFromLateOnes()
    {
        var rng = new Random(54321);
        var b = new ReorderBuffer<int>(new ReorderOptions { MaxPending = 3_000 });
        var released = new List<(long Ticks, int Id)>();
        var ticksOf = new Dictionary<int, long>();
        for (int i = 0; i < 60_000; i++)
        {
            long ticks = (i * 2L) + rng.Next(8_000);
            ticksOf[i] = T0.AddTicks(ticks).Ticks;
            b.Add(T0.AddTicks(ticks), (ulong)i, i);
            while (b.TryTake(out int item, out DateTime t))
            {
                Assert.That(t.Ticks, Is.EqualTo(ticksOf[item]));
                released.Add((t.Ticks, item));
            }

            Assert.That(b.Count, Is.LessThanOrEqualTo(3_000));
        }

        b.Complete();
        while (b.TryTake(out int item, out DateTime t))
        {
            released.Add((t.Ticks, item));
        }

        Assert.That(released.Select(r => r.Id).Order(), Is.EqualTo(Enumerable.Range(0, 60_000)));
        int descents = released
            .Zip(released.Skip(1))
            .Count(p =>
                p.Second.Ticks < p.First.Ticks || (p.Second.Ticks == p.First.Ticks && p.Second.Id < p.First.Id)
            );
        Assert.That(descents, Is.LessThanOrEqualTo(b.GetStatistics().LateEvents), "only late records break the order");
    }

    [Test]
    public void LogLinearHistogram_IsExactBelow256()
    {
        var h = new LogLinearHistogram();
        for (int v = 1; v <= 200; v++)
        {
            h.Add(v);
        }

        Assert.That(h.Percentile(0.5), Is.EqualTo(100));
        Assert.That(h.Percentile(0.99), Is.EqualTo(198));
        Assert.That(h.Percentile(0), Is.EqualTo(1));
        Assert.That(h.Percentile(1), Is.EqualTo(200));
        DistributionSummary s = h.Summarize();
        Assert.That((s.Count, s.Mean, s.Min, s.Max, s.Total), Is.EqualTo((200L, 100.5, 1.0, 200.0, 20100.0)));
    }

    [Test]
    public void LogLinearHistogram_StaysWithinRelativeErrorOfExactPercentiles()
    {
        var rng = new Random(42);
        var h = new LogLinearHistogram();
        long[] values = new long[100_000];
        for (int i = 0; i < values.Length; i++)
        {
            // Log-uniform over 1 .. 2^40.
            values[i] = (long)Math.Pow(2, rng.NextDouble() * 40);
            h.Add(values[i]);
        }

        Array.Sort(values);
        foreach (double q in new[] { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999 })
        {
            long exact = values[(int)Math.Ceiling(q * values.Length) - 1];
            Assert.That(
                h.Percentile(q),
                Is.EqualTo((double)exact).Within(exact * LogLinearHistogram.RelativeError),
                "q=" + q
            );
        }

        Assert.That(h.Max, Is.EqualTo(values[^1]));
        Assert.That(h.Min, Is.EqualTo(values[0]));
        Assert.That(h.Sum, Is.EqualTo(values.Sum(v => (double)v)).Within(1e-9 * values.Sum(v => (double)v)));
    }

    [Test]
    public void LogLinearHistogram_BucketMidpointsAreWithinRelativeError_ForEveryMagnitude()
    {
        for (int e = 0; e < 63; e++)
        {
            foreach (
                long v in new[] { 1L << e, (1L << e) + ((1L << e) / 3), e == 62 ? long.MaxValue : (1L << (e + 1)) - 1 }
            )
            {
                double mid = LogLinearHistogram.Midpoint(LogLinearHistogram.IndexOf(v));
                Assert.That(Math.Abs(mid - v), Is.LessThanOrEqualTo(v * LogLinearHistogram.RelativeError), "v=" + v);
            }
        }
    }

    [Test]
    public void PeakPreservingSeries_KeepsSpikeAndTroughExactly_InBoundedPoints()
    {
        var s = new PeakPreservingSeries(512);
        int n = 2_000_000;
        int spike = 1_234_567,
            trough = 876_543;
        for (int i = 0; i < n; i++)
        {
            long v =
                i == spike ? 1_000_000
                : i == trough ? -1_000
                : (i % 1000);
            s.Add(T0.AddTicks(i * 7L), v);
        }

        IReadOnlyList<SeriesPoint> p = s.ToPoints();
        Assert.That(s.Count, Is.EqualTo(n));
        Assert.That(p, Has.Count.LessThanOrEqualTo(4 * 512));
        Assert.That(p, Does.Contain(new SeriesPoint(T0.AddTicks(spike * 7L), 1_000_000)));
        Assert.That(p, Does.Contain(new SeriesPoint(T0.AddTicks(trough * 7L), -1_000)));
        Assert.That(p[0], Is.EqualTo(new SeriesPoint(T0, 0)));
        Assert.That(p[^1], Is.EqualTo(new SeriesPoint(T0.AddTicks((n - 1) * 7L), (n - 1) % 1000)));
        Assert.That(p.Select(x => x.Time), Is.Ordered);
    }

    [Test]
    public void PeakPreservingSeries_KeepsEveryPoint_WhenFewerThanBuckets()
    {
        var s = new PeakPreservingSeries(2048);
        var expected = new List<SeriesPoint>();
        for (int i = 0; i < 10; i++)
        {
            var p = new SeriesPoint(T0.AddMilliseconds(i), i * i - 20);
            expected.Add(p);
            s.Add(p.Time, p.Value);
        }

        Assert.That(s.ToPoints(), Is.EqualTo(expected));
    }
}

using System.Globalization;
using System.Numerics;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 2 (sample-xel/cci_insert_memory): page_allocated / page_freed of a columnstore insert compressing three
/// rowgroups, written on several per-CPU buffers. The running totals are recomputed here from the raw events.
/// </summary>
public sealed class MemorySampleTests
{
    private const ulong InsertSession = 64;
    private const ulong BackgroundSession = 53;

    private List<XEvent> _events = null!;
    private List<XEvent> _trueOrder = null!;
    private Dictionary<string, string> _figures = null!;

    [OneTimeSetUp]
    public void ReadSample()
    {
        _events = SampleData.ReadAll(SampleData.Memory);
        _trueOrder = SampleData.TrueOrder(_events);
        _figures = SampleData.Figures(SampleData.Memory);
    }

    [Test]
    public void ReadEvents_CountsEachEventPerSession_AsDocumented()
    {
        Assert.That(
            _events.Select(e => e.FullName).Distinct().Order(StringComparer.Ordinal),
            Is.EqualTo(new[] { "sqlos.page_allocated", "sqlos.page_freed" })
        );
        Assert.That(_events.Select(Session).Distinct().Order(), Is.EqualTo(new[] { BackgroundSession, InsertSession }));
        foreach (ulong session in new[] { InsertSession, BackgroundSession })
        {
            string p = "session" + session.ToString(CultureInfo.InvariantCulture) + ".";
            Assert.That(
                _events.Count(e => Session(e) == session && e.Name == "page_allocated"),
                Is.EqualTo(SampleData.Figure(_figures, p + "page_allocated"))
            );
            Assert.That(
                _events.Count(e => Session(e) == session && e.Name == "page_freed"),
                Is.EqualTo(SampleData.Figure(_figures, p + "page_freed"))
            );
            Assert.That(
                _events.Where(e => Session(e) == session && e.Name == "page_allocated").Sum(e => (long)Pages(e)),
                Is.EqualTo(SampleData.Figure(_figures, p + "pages_allocated"))
            );
            Assert.That(
                _events.Where(e => Session(e) == session && e.Name == "page_freed").Sum(e => (long)Pages(e)),
                Is.EqualTo(SampleData.Figure(_figures, p + "pages_freed"))
            );
        }

        Assert.That(_events, Has.Count.EqualTo(SampleData.Figure(_figures, "events")));
        Assert.That(new FileInfo(SampleData.CapturePath(SampleData.Memory)).Length, Is.LessThan(3L * 1024 * 1024));
    }

    [Test]
    public void FileOrder_IsNotTimeOrder_AndSomeEventsShareATimestamp()
    {
        Assert.That(
            _events.Zip(_events.Skip(1)).Count(p => p.Second.Timestamp < p.First.Timestamp),
            Is.GreaterThan(0),
            "records from several per-CPU buffers"
        );
        Assert.That(
            _events.Select(e => e.GetAction("scheduler_id").AsUInt64()).Distinct().Count(),
            Is.GreaterThanOrEqualTo(4)
        );

        List<IGrouping<DateTime, XEvent>> ties = [.. _events.GroupBy(e => e.Timestamp).Where(g => g.Count() > 1)];
        Assert.That(ties, Is.Not.Empty);
        Assert.That(ties, Has.Count.EqualTo(SampleData.Figure(_figures, "tie_groups")));

        // event_sequence is the true order: numbering 1..N, never against time.
        List<XEvent> bySequence = [.. _events.OrderBy(e => e.GetAction("event_sequence").AsUInt64())];
        Assert.That(
            bySequence.Select(e => e.GetAction("event_sequence").AsUInt64()),
            Is.EqualTo(Enumerable.Range(1, _events.Count).Select(i => (ulong)i))
        );
        Assert.That(bySequence, Is.EqualTo(_trueOrder));

        // Within some tie, the file holds the later event_sequence first: ordering needs timestamp, then
        // event_sequence. (A group keeps file order.)
        bool reversed = ties.Any(g =>
            g.Zip(g.Skip(1))
                .Any(p =>
                    p.First.GetAction("event_sequence").AsUInt64() > p.Second.GetAction("event_sequence").AsUInt64()
                )
        );
        Assert.That(reversed, Is.True);
    }

    [Test]
    public void RunningTotalOfTheInsert_RisesAndFallsThreeTimes_InTrueOrder()
    {
        List<(DateTime Time, long Total)> totals = RunningTotal(_trueOrder.Where(e => Session(e) == InsertSession));
        long peak = totals.Max(t => t.Total);
        Assert.That(peak, Is.EqualTo(SampleData.Figure(_figures, "session64.peak_pages")));
        Assert.That(totals.First(t => t.Total == peak).Time, Is.EqualTo(Time(_figures["session64.peak_time"])));
        Assert.That(
            totals.Min(t => t.Total),
            Is.GreaterThanOrEqualTo(0),
            "in true order nothing is freed before it is allocated"
        );
        Assert.That(totals[^1].Total, Is.Zero);

        // Cycles with hysteresis: up above half the peak, then down below 5% of it.
        var cycles = new List<long>();
        bool high = false;
        long cycleMax = 0;
        foreach ((DateTime _, long total) in totals)
        {
            cycleMax = Math.Max(cycleMax, total);
            if (!high && total >= peak / 2)
            {
                high = true;
            }
            else if (high && total <= peak / 20)
            {
                high = false;
                cycles.Add(cycleMax);
                cycleMax = 0;
            }
        }

        Assert.That(cycles, Has.Count.EqualTo(3), "one rise and fall per rowgroup");
        Assert.That(high, Is.False);
        for (int r = 0; r < 3; r++)
        {
            Assert.That(
                cycles[r],
                Is.EqualTo(
                    SampleData.Figure(
                        _figures,
                        "rowgroup" + (r + 1).ToString(CultureInfo.InvariantCulture) + ".peak_pages"
                    )
                )
            );
        }
    }

    [Test]
    public void RunningTotalInFileOrder_DiffersFromTrueOrder()
    {
        List<long> naive = [.. RunningTotal(_events.Where(e => Session(e) == InsertSession)).Select(t => t.Total)];
        List<long> correct = [.. RunningTotal(_trueOrder.Where(e => Session(e) == InsertSession)).Select(t => t.Total)];
        Assert.That(naive, Is.Not.EqualTo(correct), "reading in file order gives a different curve");
    }

    [Test]
    public void BackgroundSession_StaysSmall()
    {
        List<(DateTime Time, long Total)> totals = RunningTotal(_trueOrder.Where(e => Session(e) == BackgroundSession));
        Assert.That(totals.Max(t => t.Total), Is.EqualTo(SampleData.Figure(_figures, "session53.peak_pages")));
        Assert.That(totals.Max(t => t.Total), Is.LessThan(SampleData.Figure(_figures, "session64.peak_pages") / 100));
        Assert.That(totals[^1].Total, Is.Zero);
    }

    [Test]
    public void PagesPerEvent_AreMostlyOnePlusAPowerOfTwo_WithSomePlainOnes()
    {
        int powerPlusOne = _events.Count(e => Pages(e) > 1 && BitOperations.IsPow2(Pages(e) - 1));
        int ones = _events.Count(e => Pages(e) == 1);
        Assert.That(powerPlusOne + ones, Is.EqualTo(_events.Count), "every count is 1 or 1 + 2^k");
        Assert.That((double)powerPlusOne / _events.Count, Is.GreaterThan(0.7));
        Assert.That(ones, Is.GreaterThan(0));
        Assert.That(powerPlusOne, Is.EqualTo(SampleData.Figure(_figures, "events_one_plus_power_of_two")));
        Assert.That(ones, Is.EqualTo(SampleData.Figure(_figures, "events_one_page")));
    }

    [Test]
    public void FreesOfTheInsert_AreNearlyAllQueryReservations()
    {
        List<XEvent> frees = [.. _events.Where(e => Session(e) == InsertSession && e.Name == "page_freed")];
        int reservations = frees.Count(e =>
            e.GetField("memory_clerk_name").AsString() == "MEMORYCLERK_SQLQERESERVATIONS"
        );
        Assert.That((double)reservations / frees.Count, Is.GreaterThan(0.9));
        Assert.That(reservations, Is.EqualTo(SampleData.Figure(_figures, "session64.frees_reservations")));
        Assert.That(
            _events.Select(e => e.GetField("memory_clerk_name").AsString()).Distinct().Count(),
            Is.GreaterThan(2),
            "some other clerks too"
        );
    }

    [Test]
    public void EveryFree_ReleasesAnEarlierAllocation_WithTheSameLocationPagesAndClerk()
    {
        var live = new Dictionary<ulong, (ulong Pages, string Clerk)>();
        foreach (XEvent e in _trueOrder)
        {
            ulong at = e.GetField("page_location").AsUInt64();
            if (e.Name == "page_allocated")
            {
                Assert.That(live.TryAdd(at, (Pages(e), e.GetField("memory_clerk_name").AsString())), Is.True);
            }
            else
            {
                Assert.That(
                    live.Remove(at, out var a),
                    Is.True,
                    "freed before allocated: 0x" + at.ToString("X", CultureInfo.InvariantCulture)
                );
                Assert.That(a, Is.EqualTo((Pages(e), e.GetField("memory_clerk_name").AsString())));
            }
        }

        Assert.That(live, Is.Empty);
    }

    [Test]
    public void Callstacks_AreTheFixturePublishStacks_RebasedWithTheSidecar()
    {
        var modules = new SampleData.Modules(SampleData.SidecarPath(SampleData.Memory));
        Dictionary<string, List<SampleData.FixtureFrame>> fixtures = SampleData.FixtureStacks();
        foreach ((string name, string id) in new[] { ("page_allocated", "M1"), ("page_freed", "M2") })
        {
            ulong[] expected = [.. fixtures[id].Select(f => modules.BaseOf(f.ModuleFile) + f.Rva)];
            Assert.That(
                _events.Where(e => e.Name == name).Select(e => e.GetAction("callstack").AsCallstack()),
                Has.All.EqualTo(expected),
                name
            );
        }

        Assert.That(fixtures["M1"][0].Function, Is.EqualTo("XeSosPkg::page_allocated::Publish"));
        Assert.That(fixtures["M2"][0].Function, Is.EqualTo("XeSosPkg::page_freed::Publish"));
    }

    private static ulong Session(XEvent e) => e.GetAction("session_id").AsUInt64();

    private static ulong Pages(XEvent e) => e.GetField("number_pages").AsUInt64();

    private static DateTime Time(string iso) =>
        DateTime.Parse(
            iso,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal
        );

    private static List<(DateTime Time, long Total)> RunningTotal(IEnumerable<XEvent> events)
    {
        var result = new List<(DateTime, long)>();
        long total = 0;
        foreach (XEvent e in events)
        {
            total += e.Name == "page_allocated" ? (long)Pages(e) : -(long)Pages(e);
            result.Add((e.Timestamp, total));
        }

        return result;
    }
}

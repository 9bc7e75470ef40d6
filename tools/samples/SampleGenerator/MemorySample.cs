using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Sample 2: <c>sqlos.page_allocated</c> / <c>sqlos.page_freed</c> while an INSERT into a clustered columnstore index
/// compresses three rowgroups (SEED-STACKS §3), plus a small background session. Written on several per-CPU buffers so
/// the file is not in time order; <c>event_sequence</c> gives the true order and a few events share a timestamp.
/// </summary>
internal static class MemorySample
{
    public const string SetName = "cci_insert_memory";
    public const string HistogramFolder = "cci_insert_memory_histogram";
    public const ushort InsertSession = 64;
    public const ushort BackgroundSession = 53;
    public const int Rowgroups = 3;
    public const long PageBytes = 8192;
    public const string Reservations = "MEMORYCLERK_SQLQERESERVATIONS";

    public static readonly DateTime SessionStart = new(2024, 5, 14, 10, 2, 41, 208, DateTimeKind.Utc);
    public static readonly Guid Signature = new("0d4b7e2a-51c3-4f88-a9d6-3e2c1b0a9f12");
    private const ulong Seed = 0xCC1_0002;
    private const long FirstEventDelayTicks = 310_000; // 31 ms
    private const long BuildTicks = 24_000_000; // 2.4 s filling a rowgroup
    private const long FinishTicks = 1_200_000; // 120 ms: the segment is built and its memory freed
    private const long GapTicks = 3_500_000; // 350 ms before the next rowgroup
    private const int StepsPerWorker = 250; // per rowgroup, about 7% of them frees (dips)
    private const int TiesPerRowgroup = 4;
    private const ulong InsertRegion = 0x000001E48A000000;
    private const ulong BackgroundRegion = 0x000001E4C0000000;

    /// <summary>The DOP 4 workers of the insert: scheduler and worker address.</summary>
    private static readonly (uint Scheduler, ulong Worker)[] InsertWorkers =
    [
        (2, 0x000001E3F10A2160),
        (5, 0x000001E3F10C4160),
        (9, 0x000001E3F10E6160),
        (12, 0x000001E3F1108160),
    ];

    private const uint BackgroundScheduler = 7;

    /// <summary>Pages per event: mostly one plus a power of two, with some plain 1s.</summary>
    private static readonly int[] PageCounts = [1, 2, 3, 5, 9, 17, 33, 65, 129];
    private static readonly int[] PageWeights = [12, 20, 18, 15, 15, 10, 6, 3, 1];
    private static readonly int[] BackgroundPageCounts = [1, 2, 3, 5];
    private static readonly int[] BackgroundPageWeights = [40, 30, 20, 10];
    private static readonly string[] InsertClerks = [Reservations, "MEMORYCLERK_SQLSTORENG", "MEMORYCLERK_SOSNODE"];
    private static readonly int[] InsertClerkWeights = [94, 4, 2];
    private static readonly string[] BackgroundClerks =
    [
        "MEMORYCLERK_SQLGENERAL",
        "MEMORYCLERK_SQLCONNECTIONPOOL",
        "MEMORYCLERK_SOSNODE",
    ];
    private static readonly int[] BackgroundClerkWeights = [60, 25, 15];

    public static ModuleList Modules { get; } =
        ModuleList.Create(
            sqlservr: 0x00007FF64B1D0000,
            sqlmin: 0x00007FFC2E450000,
            sqllang: 0x00007FFC30EA0000,
            sqlTsEs: 0x00007FFC36350000,
            sqldk: 0x00007FFC37360000,
            kernelBase: 0x00007FFC5B9A0000,
            kernel32: 0x00007FFC5CF10000,
            ntdll: 0x00007FFC5E2D0000
        );

    /// <summary>One page event of the model.</summary>
    private sealed record PageEvent(
        long Tick,
        uint Scheduler,
        ushort Session,
        bool Freed,
        int Pages,
        string Clerk,
        ulong Location,
        int Rowgroup
    )
    {
        public long Tick { get; set; } = Tick;
    }

    private sealed record Allocation(int Pages, string Clerk, ulong Location);

    public static Figures Generate(FixtureStacks fx, string outDir)
    {
        var rng = new Rng(Seed);
        var model = new List<PageEvent>();
        ulong nextInsert = InsertRegion;
        ulong nextBackground = BackgroundRegion;
        int tieGroups = 0;
        long rowgroupSpan = BuildTicks + FinishTicks + GapTicks;

        for (int r = 0; r < Rowgroups; r++)
        {
            long rgStart = FirstEventDelayTicks + (r * rowgroupSpan);
            var perWorker = new List<List<PageEvent>>();
            var finishes = new List<List<PageEvent>>();
            foreach ((uint sched, ulong _) in InsertWorkers)
            {
                var list = new List<PageEvent>();
                var live = new List<Allocation>();
                int steps = StepsPerWorker + (int)rng.Next(-15, 16);
                long interval = BuildTicks / steps;
                long offset = rng.Next(0, 30_000);
                for (int i = 0; i < steps; i++)
                {
                    long t = rgStart + offset + (i * interval) + rng.Next(0, interval / 2);
                    if (live.Count > 4 && rng.Chance(70))
                    {
                        int k = rng.NextIndex(live.Count);
                        Allocation a = live[k];
                        live.RemoveAt(k);
                        list.Add(new PageEvent(t, sched, InsertSession, true, a.Pages, a.Clerk, a.Location, r + 1));
                    }
                    else
                    {
                        int pages = PageCounts[rng.Pick(PageWeights)];
                        string clerk = InsertClerks[rng.Pick(InsertClerkWeights)];
                        var a = new Allocation(pages, clerk, nextInsert);
                        nextInsert += (ulong)pages * PageBytes;
                        live.Add(a);
                        list.Add(new PageEvent(t, sched, InsertSession, false, a.Pages, a.Clerk, a.Location, r + 1));
                    }
                }

                // The segment is finished: everything still allocated is freed within FinishTicks, in random order.
                for (int i = live.Count - 1; i > 0; i--)
                {
                    int j = rng.NextIndex(i + 1);
                    (live[i], live[j]) = (live[j], live[i]);
                }

                var finish = new List<PageEvent>();
                long fStart = rgStart + BuildTicks + rng.Next(0, 50_000);
                long fInterval = FinishTicks / Math.Max(1, live.Count);
                for (int i = 0; i < live.Count; i++)
                {
                    long t = fStart + (i * fInterval) + rng.Next(0, fInterval / 2);
                    finish.Add(
                        new PageEvent(
                            t,
                            sched,
                            InsertSession,
                            true,
                            live[i].Pages,
                            live[i].Clerk,
                            live[i].Location,
                            r + 1
                        )
                    );
                }

                perWorker.Add(list);
                finishes.Add(finish);
            }

            // A few frees on different CPUs at exactly the same time.
            for (int n = 0; n < TiesPerRowgroup; n++)
            {
                List<PageEvent> first = finishes[0];
                PageEvent anchor = first[rng.NextIndex(first.Count)];
                List<PageEvent> other = finishes[1 + rng.NextIndex(finishes.Count - 1)];
                int nearest = 0;
                for (int i = 1; i < other.Count; i++)
                {
                    if (Math.Abs(other[i].Tick - anchor.Tick) < Math.Abs(other[nearest].Tick - anchor.Tick))
                    {
                        nearest = i;
                    }
                }

                long before = nearest > 0 ? other[nearest - 1].Tick : long.MinValue;
                long after = nearest < other.Count - 1 ? other[nearest + 1].Tick : long.MaxValue;
                if (anchor.Tick > before && anchor.Tick < after && other[nearest].Tick != anchor.Tick)
                {
                    other[nearest].Tick = anchor.Tick;
                }
            }

            foreach (List<PageEvent> l in perWorker.Concat(finishes))
            {
                model.AddRange(l);
            }
        }

        // The background session: a few pages now and then, freed shortly after.
        long end = FirstEventDelayTicks + (Rowgroups * rowgroupSpan);
        for (long t = FirstEventDelayTicks + rng.Next(0, 500_000); t < end; t += rng.Next(1_000_000, 2_000_000))
        {
            int pages = BackgroundPageCounts[rng.Pick(BackgroundPageWeights)];
            string clerk = BackgroundClerks[rng.Pick(BackgroundClerkWeights)];
            ulong at = nextBackground;
            nextBackground += (ulong)pages * PageBytes;
            model.Add(new PageEvent(t, BackgroundScheduler, BackgroundSession, false, pages, clerk, at, 0));
            model.Add(
                new PageEvent(
                    t + rng.Next(200_000, 900_000),
                    BackgroundScheduler,
                    BackgroundSession,
                    true,
                    pages,
                    clerk,
                    at,
                    0
                )
            );
        }

        tieGroups = model.GroupBy(e => e.Tick).Count(g => g.Count() > 1);

        // Events.
        var s = new Schemas();
        XeEventType allocated = s.Page(freed: false);
        XeEventType freed = s.Page(freed: true);
        XeValue allocStack = XeValue.Create(s.Callstack, Modules.AddressesOf(fx.Stack("M1")));
        XeValue freeStack = XeValue.Create(s.Callstack, Modules.AddressesOf(fx.Stack("M2")));
        var events = model
            .Select(m =>
            {
                XeEventType type = m.Freed ? freed : allocated;
                return new PendingEvent
                {
                    Tick = m.Tick,
                    Slot = (int)m.Scheduler,
                    TieBreak = (long)(rng.NextUInt64() >> 1),
                    Type = type,
                    Fields =
                    [
                        XeValue.Create(type.Fields[0], (ulong)m.Pages),
                        XeValue.Create(type.Fields[1], m.Clerk),
                        XeValue.Create(type.Fields[2], m.Location),
                    ],
                    Actions =
                    [
                        XeValue.Create(s.SessionId, (ulong)m.Session),
                        default,
                        XeValue.Create(s.SchedulerId, (ulong)m.Scheduler),
                        m.Freed ? freeStack : allocStack,
                    ],
                    SequenceColumn = s.EventSequence,
                    SessionId = m.Session,
                    Tag = m,
                };
            })
            .ToList();

        List<PendingEvent> ordered = PendingEvent.Order(events);
        string file = Output.RolloverName(SetName, SessionStart);
        Output.WriteXel(Path.Combine(outDir, SetName, file), s.Schema, SessionStart, Signature, ordered);
        Output.WriteText(Path.Combine(outDir, SetName, SetName + ".modules.txt"), Modules.ToText());

        // Figures from the model, in true order.
        var fig = new Figures("memory");
        fig.Add("file", SetName + "/" + file, "the capture");
        fig.Add("modules_file", SetName + "/" + SetName + ".modules.txt", "the sys.dm_os_loaded_modules sidecar");
        fig.Add("session_start", Output.Iso(SessionStart), "FILETIME in the file name, as UTC");
        fig.Add("first_event", Output.Iso(SessionStart.AddTicks(ordered[0].Tick)), "first event (true order)");
        fig.Add("last_event", Output.Iso(SessionStart.AddTicks(ordered[^1].Tick)), "last event (true order)");
        fig.Add("events", ordered.Count, "events in the file");
        fig.Add("tie_groups", tieGroups, "timestamps shared by two or more events");
        fig.Add(
            "tie_events",
            model.GroupBy(e => e.Tick).Where(g => g.Count() > 1).Sum(g => g.Count()),
            "events whose timestamp another event shares"
        );
        List<PageEvent> trueOrder = [.. ordered.Select(e => (PageEvent)e.Tag!)];
        foreach (ushort session in new[] { InsertSession, BackgroundSession })
        {
            string p = "session" + session.ToString(CultureInfo.InvariantCulture) + ".";
            List<PageEvent> mine = [.. trueOrder.Where(e => e.Session == session)];
            fig.Add(
                p + "page_allocated",
                mine.Count(e => !e.Freed),
                "page_allocated events of session " + session.ToString(CultureInfo.InvariantCulture)
            );
            fig.Add(
                p + "page_freed",
                mine.Count(e => e.Freed),
                "page_freed events of session " + session.ToString(CultureInfo.InvariantCulture)
            );
            long allocatedPages = mine.Where(e => !e.Freed).Sum(e => (long)e.Pages);
            long freedPages = mine.Where(e => e.Freed).Sum(e => (long)e.Pages);
            fig.Add(p + "pages_allocated", allocatedPages, "sum of number_pages over page_allocated");
            fig.Add(p + "pages_freed", freedPages, "sum of number_pages over page_freed");
            fig.Add(p + "bytes_allocated", allocatedPages * PageBytes, "pages_allocated x 8 KB");
            fig.Add(p + "bytes_freed", freedPages * PageBytes, "pages_freed x 8 KB");
            (long peak, long peakTick) = Peak(mine);
            fig.Add(
                p + "peak_pages",
                peak,
                "highest running total of pages (allocations add, frees subtract; true order)"
            );
            fig.Add(p + "peak_bytes", peak * PageBytes, "that peak x 8 KB");
            fig.Add(
                p + "peak_time",
                Output.Iso(SessionStart.AddTicks(peakTick)),
                "time of the event that first reaches the peak"
            );
            fig.Add(p + "final_pages", allocatedPages - freedPages, "running total after the last event");
        }

        List<PageEvent> insert = [.. trueOrder.Where(e => e.Session == InsertSession)];
        for (int r = 1; r <= Rowgroups; r++)
        {
            long total = 0;
            long peak = 0;
            long peakTick = 0;
            foreach (PageEvent e in insert)
            {
                total += e.Freed ? -e.Pages : e.Pages;
                if (e.Rowgroup == r && total > peak)
                {
                    peak = total;
                    peakTick = e.Tick;
                }
            }

            string p = "rowgroup" + r.ToString(CultureInfo.InvariantCulture) + ".";
            fig.Add(
                p + "peak_pages",
                peak,
                "session "
                    + InsertSession.ToString(CultureInfo.InvariantCulture)
                    + "'s running total at its peak while rowgroup "
                    + r.ToString(CultureInfo.InvariantCulture)
                    + " fills"
            );
            fig.Add(p + "peak_time", Output.Iso(SessionStart.AddTicks(peakTick)), "time of that peak");
            fig.Add(
                p + "freed_by",
                Output.Iso(SessionStart.AddTicks(insert.Where(e => e.Rowgroup == r).Max(e => e.Tick))),
                "time of the rowgroup's last free: the running total is back to 0"
            );
        }

        List<PageEvent> insertFrees = [.. insert.Where(e => e.Freed)];
        fig.Add(
            "session64.frees_reservations",
            insertFrees.Count(e => e.Clerk == Reservations),
            "page_freed events of session 64 with memory_clerk_name " + Reservations
        );

        // SEED-STACKS §3's histogram target: page_freed of session 64 by memory_clerk_name (source_type 0), from the
        // same model.
        List<(string Clerk, long Count)> clerks =
        [
            .. insertFrees
                .GroupBy(e => e.Clerk)
                .Select(g => (Clerk: g.Key, Count: (long)g.Count()))
                .OrderByDescending(x => x.Count)
                .ThenBy(x => x.Clerk, StringComparer.Ordinal),
        ];
        Output.WriteText(
            Path.Combine(outDir, HistogramFolder, SetName + ".page_freed.memory_clerk_name.histogram.xml"),
            TargetXml.Histogram(clerks)
        );
        var clerkTsv = new System.Text.StringBuilder("memory_clerk_name\tcount\tshare_percent\n");
        foreach ((string clerk, long count) in clerks)
        {
            clerkTsv
                .Append(clerk)
                .Append('\t')
                .Append(Output.N(count))
                .Append('\t')
                .Append(Output.Percent(count, insertFrees.Count))
                .Append('\n');
        }

        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".page_freed_clerks.tsv"), clerkTsv.ToString());
        fig.Blocks.Add("clerks_table", Output.Markdown(clerkTsv.ToString()));
        fig.Add(
            "clerk_histogram.slots",
            clerks.Count,
            "slots of the memory_clerk_name histogram (clerks of session 64's frees)"
        );
        fig.Add("clerk_histogram.events", insertFrees.Count, "page_freed events of session 64 it counts");
        fig.Add("clerk_histogram.top", clerks[0].Clerk, "the largest slot");
        fig.Add("clerk_histogram.top_percent", Output.Percent(clerks[0].Count, insertFrees.Count), "its share (%)");
        fig.Add(
            "events_one_plus_power_of_two",
            trueOrder.Count(e => e.Pages > 1 && ((e.Pages - 1) & (e.Pages - 2)) == 0),
            "events whose number_pages is 1 + 2^k (2, 3, 5, 9, 17, ...)"
        );
        fig.Add("events_one_page", trueOrder.Count(e => e.Pages == 1), "events whose number_pages is 1");
        fig.Add(
            "insert_schedulers",
            string.Join(",", InsertWorkers.Select(w => w.Scheduler.ToString(CultureInfo.InvariantCulture))),
            "schedulers (and buffer slots) of the insert's workers"
        );
        fig.Add("background_scheduler", BackgroundScheduler, "scheduler (and buffer slot) of the background session");
        return fig;
    }

    private static (long Peak, long Tick) Peak(IEnumerable<PageEvent> trueOrder)
    {
        long total = 0;
        long peak = 0;
        long tick = 0;
        foreach (PageEvent e in trueOrder)
        {
            total += e.Freed ? -e.Pages : e.Pages;
            if (total > peak)
            {
                peak = total;
                tick = e.Tick;
            }
        }

        return (peak, tick);
    }
}

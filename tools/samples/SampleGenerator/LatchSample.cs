using System.Globalization;
using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>A distinct callstack of a sample and how many events carry it.</summary>
internal sealed record Bucket(string Id, string Description, IReadOnlyList<Frame> Frames, int Count);

/// <summary>
/// Samples 1 and 4: <c>sqlserver.latch_acquired</c> on NESTING_TRANSACTION_FULL during a MAXDOP 8 parallel
/// SELECT INTO a tempdb heap (SEED-STACKS §1), as a raw <c>.xel</c> with a loaded-modules sidecar, and as the histogram
/// target XML SQL Server renders for the same buckets with and without trace flags 3656 + 2592.
/// </summary>
internal static class LatchSample
{
    public const string SetName = "latch_nesting_full";
    public const string HistogramFolder = "latch_nesting_full_histogram";

    /// <summary>
    /// The event_counter target's folder. Not <see cref="HistogramFolder"/>: tests copy every XML file of that folder
    /// and expect only the two histograms there.
    /// </summary>
    public const string CounterFolder = "latch_nesting_full_counter";

    /// <summary>latch_acquired events of the seed's MAXDOP 2 run (SEED-STACKS §1): the event_counter sample's
    /// count.</summary>
    public const long SeedEventCount = 347_435;
    public const ushort SessionId = 58;
    public const ulong LatchAddress = 0x000001D96C3F2A58;
    public const ushort DatabaseId = 2;

    /// <summary>An address in dynamically allocated executable memory: below every module base, so in no
    /// module.</summary>
    public const ulong OutsideAddress = 0x000002A61C3D8F10;

    public static readonly DateTime SessionStart = new(2024, 5, 14, 9, 31, 12, 417, DateTimeKind.Utc);
    public static readonly Guid Signature = new("0d4b7e2a-51c3-4f88-a9d6-3e2c1b0a9f11");
    private const long FirstEventDelayTicks = 270_000; // 27 ms after the file name's FILETIME
    private const long WindowTicks = 40_000_000; // 4 s of capture
    private const ulong Seed = 0x1A7C4_0001;

    /// <summary>
    /// The eight parallel workers: scheduler, full extents (one PFS + GAM + IAM acquire each), what the capture caught
    /// of a last extent (0 nothing, 1 PFS only, 2 PFS + GAM), worker address, OS thread id. Scheduler 27 is busy: its
    /// worker allocates ~10% fewer extents than the mean of its peers.
    /// </summary>
    private static readonly (uint Scheduler, int Extents, int Partial, ulong Worker, uint Thread)[] Workers =
    [
        (24, 252, 1, 0x000001D94E0A0160, 7412),
        (26, 255, 0, 0x000001D94E0C2160, 11236),
        (27, 227, 2, 0x000001D94E0E4160, 9840),
        (31, 251, 1, 0x000001D94E106160, 13508),
        (35, 256, 0, 0x000001D94E128160, 6128),
        (38, 254, 2, 0x000001D94E14A160, 10964),
        (43, 253, 1, 0x000001D94E16C160, 12700),
        (46, 252, 0, 0x000001D94E18E160, 8352),
    ];

    /// <summary>The process of this capture (sample 1's sidecar).</summary>
    public static ModuleList Modules { get; } =
        ModuleList.Create(
            sqlservr: 0x00007FF7A3E40000,
            sqlmin: 0x00007FFDE8B70000,
            sqllang: 0x00007FFDEB5C0000,
            sqlTsEs: 0x00007FFDF0A10000,
            sqldk: 0x00007FFDF1A20000,
            kernelBase: 0x00007FFE1BF70000,
            kernel32: 0x00007FFE1D4F0000,
            ntdll: 0x00007FFE1E8B0000
        );

    /// <summary>The distinct stacks and their counts: A, B, C from the seed, then the tail (all 24 frames, leaf
    /// first).</summary>
    public static IReadOnlyList<Bucket> Buckets(FixtureStacks fx)
    {
        IReadOnlyList<Frame> a = fx.Stack("A"),
            b = fx.Stack("B"),
            c = fx.Stack("C");
        Frame afterWait = fx.Get("sqlmin", "LatchBase::AcquireInternal", "0x2e7");
        Frame acquireFast = fx.Get("sqlmin", "LatchBase::AcquireInternal", "0x499");
        Frame pagesPfsGam = fx.Get("sqlmin", "AllocationReq::AllocatePages", "0x123b");
        Frame pagesIam = fx.Get("sqlmin", "AllocationReq::AllocatePages", "0x17e5");
        Frame extentPfs = fx.Get("sqlmin", "AllocationReq::AllocateExtent", "0x33e");
        Frame extentGam = fx.Get("sqlmin", "AllocationReq::AllocateExtent", "0x1bb");
        Frame producerOpen = fx.Get("sqlmin", "FnProducerOpen", "0x5b");
        Frame producerThread = fx.Get("sqlmin", "FnProducerThread", "0x80b");
        int extents = Workers.Sum(w => w.Extents);
        int pfsOnly = Workers.Count(w => w.Partial >= 1);
        int gamToo = Workers.Count(w => w.Partial >= 2);
        List<Bucket> buckets =
        [
            new("A", "seed stack A (PFS page change)", a, extents + pfsOnly),
            new("B", "seed stack B (GAM page change)", b, extents + gamToo),
            new("C", "seed stack C (IAM page change)", c, extents),
            new(
                "T1",
                "A, latch acquired after a suspend (AcquireInternal+0x2e7)",
                Replace(a, acquireFast, afterWait),
                8
            ),
            new("T2", "B, latch acquired after a suspend", Replace(b, acquireFast, afterWait), 6),
            new("T3", "C, latch acquired after a suspend", Replace(c, acquireFast, afterWait), 5),
            new(
                "T4",
                "A without the sqlTsEs collation frame (one frame deeper: FnProducerThread)",
                [.. a.Where(f => f.Module != "sqlTsEs"), producerThread],
                4
            ),
            new(
                "T5",
                "B without the sqlTsEs collation frame (one frame deeper: FnProducerOpen)",
                [.. b.Where(f => f.Module != "sqlTsEs"), producerOpen],
                3
            ),
            new(
                "T6",
                "C with the sqlTsEs frame replaced by an address in no module (dynamically generated code)",
                [.. c.Select(f => f.Module == "sqlTsEs" ? Frame.OutsideModules(OutsideAddress) : f)],
                3
            ),
            new("T7", "C through AllocatePages+0x123b instead of +0x17e5", Replace(c, pagesIam, pagesPfsGam), 2),
            new("T8", "A through AllocateExtent+0x1bb instead of +0x33e", Replace(a, extentPfs, extentGam), 2),
            new("T9", "B through AllocatePages+0x17e5 instead of +0x123b", Replace(b, pagesPfsGam, pagesIam), 1),
            new("T10", "A through AllocatePages+0x17e5 instead of +0x123b", Replace(a, pagesPfsGam, pagesIam), 1),
            new(
                "T11",
                "T1 without the sqlTsEs collation frame (one frame deeper: FnProducerThread)",
                [.. Replace(a, acquireFast, afterWait).Where(f => f.Module != "sqlTsEs"), producerThread],
                1
            ),
        ];

        foreach (Bucket bucket in buckets)
        {
            if (bucket.Frames.Count != 24)
            {
                throw new InvalidOperationException(
                    "Stack "
                        + bucket.Id
                        + " has "
                        + bucket.Frames.Count.ToString(CultureInfo.InvariantCulture)
                        + " frames, not 24."
                );
            }
        }

        for (int i = 0; i < buckets.Count; i++)
        {
            for (int j = i + 1; j < buckets.Count; j++)
            {
                if (buckets[i].Frames.SequenceEqual(buckets[j].Frames))
                {
                    throw new InvalidOperationException(
                        "Stacks " + buckets[i].Id + " and " + buckets[j].Id + " are equal."
                    );
                }
            }
        }

        return buckets;
    }

    /// <summary>Writes sample 1 (capture + sidecar) and sample 4 (two histograms), the expected stacks and the
    /// figures.</summary>
    public static Figures Generate(FixtureStacks fx, string outDir)
    {
        IReadOnlyList<Bucket> buckets = Buckets(fx);
        var s = new Schemas();
        XeEventType latch = s.LatchAcquired();
        XeColumn[] actionColumns =
        [
            s.SchedulerId,
            s.SessionId,
            s.WorkerAddress,
            s.SystemThreadId,
            s.EventSequence,
            s.Callstack,
        ];
        Dictionary<string, XeValue> stackValues = buckets.ToDictionary(
            bk => bk.Id,
            bk => XeValue.Create(s.Callstack, Modules.AddressesOf(bk.Frames)),
            StringComparer.Ordinal
        );
        XeValue[] fields =
        [
            XeValue.Create(latch.Fields[0], (ulong)Schemas.LatchClassNestingFull),
            XeValue.Create(latch.Fields[1], (ulong)Schemas.ModeEx),
            XeValue.Create(latch.Fields[2], LatchAddress),
            XeValue.Create(latch.Fields[3], (ulong)DatabaseId),
            XeValue.Create(latch.Fields[4], 0UL),
            XeValue.Create(latch.Fields[5], 0UL),
        ];

        var rng = new Rng(Seed);

        // Which worker and which extent gap each tail event falls into (workers weighted by their extent counts).
        var tailAt = new List<(int Worker, int Extent, string Bucket)>();
        int[] weights = [.. Workers.Select(w => w.Extents)];
        foreach (Bucket bk in buckets.Where(bk => bk.Id.StartsWith('T')))
        {
            for (int i = 0; i < bk.Count; i++)
            {
                int w = rng.Pick(weights);
                tailAt.Add((w, rng.NextIndex(Workers[w].Extents), bk.Id));
            }
        }

        var events = new List<PendingEvent>();
        for (int wi = 0; wi < Workers.Length; wi++)
        {
            (uint sched, int extents, int partial, ulong worker, uint thread) = Workers[wi];
            int slots = extents + (partial > 0 ? 1 : 0);
            long interval = WindowTicks / slots;
            long t0 = FirstEventDelayTicks + rng.Next(0, 20_000);
            for (int k = 0; k < slots; k++)
            {
                long t = t0 + (k * interval) + rng.Next(0, interval / 4);
                string[] ids =
                    k < extents ? ["A", "B", "C"]
                    : partial == 1 ? ["A"]
                    : ["A", "B"];
                foreach (string id in ids)
                {
                    events.Add(Make(id, t));
                    t += rng.Next(25, 90);
                }

                long tail = t0 + (k * interval) + (interval / 2) + rng.Next(0, interval / 8);
                foreach ((int _, int _, string id) in tailAt.Where(x => x.Worker == wi && x.Extent == k))
                {
                    events.Add(Make(id, tail));
                    tail += rng.Next(40, 400);
                }
            }

            PendingEvent Make(string id, long tick) =>
                new()
                {
                    Tick = tick,
                    Slot = (int)sched,
                    TieBreak = (long)(rng.NextUInt64() >> 1),
                    Type = latch,
                    Fields = fields,
                    Actions =
                    [
                        XeValue.Create(actionColumns[0], (ulong)sched),
                        XeValue.Create(actionColumns[1], (ulong)SessionId),
                        XeValue.Create(actionColumns[2], worker),
                        XeValue.Create(actionColumns[3], (ulong)thread),
                        default,
                        stackValues[id],
                    ],
                    SequenceColumn = s.EventSequence,
                    SessionId = SessionId,
                    Tag = (Scheduler: sched, Bucket: id),
                };
        }

        List<PendingEvent> ordered = PendingEvent.Order(events);
        string file = Output.RolloverName(SetName, SessionStart);
        Output.WriteXel(Path.Combine(outDir, SetName, file), s.Schema, SessionStart, Signature, ordered);
        Output.WriteText(Path.Combine(outDir, SetName, SetName + ".modules.txt"), Modules.ToText());

        // Sample 4: the same buckets as histogram target XML, symbolized in-engine and as module+offset.
        List<Bucket> bySlot =
        [
            .. buckets.Select((bk, i) => (bk, i)).OrderByDescending(x => x.bk.Count).ThenBy(x => x.i).Select(x => x.bk),
        ];
        Output.WriteText(
            Path.Combine(outDir, HistogramFolder, SetName + ".tf3656.histogram.xml"),
            Histogram(bySlot, f => f.SymbolizedText)
        );
        Output.WriteText(
            Path.Combine(outDir, HistogramFolder, SetName + ".histogram.xml"),
            Histogram(bySlot, f => f.ModuleOffsetText)
        );
        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".stacks.tsv"), ExpectedStacks(bySlot));

        // SEED-STACKS §1's other target: an event_counter beside the histogram, with the seed's count (not this
        // sample's).
        Output.WriteText(
            Path.Combine(outDir, CounterFolder, SetName + ".event_counter.xml"),
            TargetXml.EventCounter("sqlserver", "latch_acquired", SeedEventCount)
        );

        // Figures, from the model above.
        var fig = new Figures("latch");
        fig.Add(
            "file",
            SetName + "/" + file,
            "the capture (rollover name: set name, _0_, FILETIME of the session start)"
        );
        fig.Add("modules_file", SetName + "/" + SetName + ".modules.txt", "the sys.dm_os_loaded_modules sidecar");
        fig.Add("session_start", Output.Iso(SessionStart), "FILETIME in the file name, as UTC");
        fig.Add("first_event", Output.Iso(SessionStart.AddTicks(ordered[0].Tick)), "first event (true order)");
        fig.Add("last_event", Output.Iso(SessionStart.AddTicks(ordered[^1].Tick)), "last event (true order)");
        fig.Add("events", ordered.Count, "latch_acquired events");
        fig.Add("session_id", SessionId, "sqlserver.session_id of every event");
        fig.Add("latch_class", "NESTING_TRANSACTION_FULL", "class of every event");
        fig.Add("latch_class_key", Schemas.LatchClassNestingFull, "its map key (invented)");
        fig.Add("latch_address", Output.Hex16(LatchAddress), "address of every event");
        fig.Add("distinct_stacks", buckets.Count, "distinct callstacks");
        foreach (Bucket bk in buckets)
        {
            fig.Add("count." + bk.Id, bk.Count, "events with stack " + bk.Id + ": " + bk.Description);
        }

        int tailTotal = buckets.Where(bk => bk.Id.StartsWith('T')).Sum(bk => bk.Count);
        fig.Add("tail_events", tailTotal, "events on the tail stacks T1-T11");
        fig.Add(
            "next_bucket_percent",
            (100m * bySlot[3].Count / bySlot[0].Count).ToString("0.00", CultureInfo.InvariantCulture),
            "4th bucket as a percentage of the top bucket (seed: 472 / 115,192 = 0.41)"
        );
        fig.Add(
            "outside_events",
            buckets.Where(bk => bk.Frames.Any(f => f.IsOutside)).Sum(bk => bk.Count),
            "events whose callstack has a frame in no module"
        );
        fig.Add(
            "outside_frames_per_event",
            buckets.Single(bk => bk.Id == "T6").Frames.Count(f => f.IsOutside),
            "frames in no module per such event"
        );
        fig.Add("outside_address", Output.Hex16(OutsideAddress), "that frame's raw address");
        fig.Add("extents", Workers.Sum(w => w.Extents), "full extents (one A + one B + one C acquire each)");
        var perScheduler = ordered
            .GroupBy(e => ((ValueTuple<uint, string>)e.Tag!).Item1)
            .ToDictionary(g => g.Key, g => g.Count());
        foreach ((uint sched, _, _, ulong worker, uint thread) in Workers)
        {
            fig.Add(
                "scheduler." + sched.ToString(CultureInfo.InvariantCulture),
                perScheduler[sched],
                "events on scheduler "
                    + sched.ToString(CultureInfo.InvariantCulture)
                    + " (worker "
                    + Output.Hex16(worker)
                    + ", thread "
                    + thread.ToString(CultureInfo.InvariantCulture)
                    + ")"
            );
        }

        decimal peers = perScheduler.Where(kv => kv.Key != 27).Average(kv => (decimal)kv.Value);
        fig.Add(
            "peer_mean",
            peers.ToString("0.00", CultureInfo.InvariantCulture),
            "mean events per scheduler of the 7 workers other than scheduler 27"
        );
        fig.Add(
            "scheduler27_ratio",
            (perScheduler[27] / peers).ToString("0.000", CultureInfo.InvariantCulture),
            "scheduler 27's events / that mean (seed: about 10% fewer)"
        );
        fig.Add("histogram_slots", bySlot.Count, "slots of both histogram files");
        fig.Add(
            "event_counter.count",
            SeedEventCount,
            "sqlserver.latch_acquired count of the event_counter target (the seed's figure, not this sample's event "
                + "count)"
        );
        fig.Add("event_counter.file", CounterFolder + "/" + SetName + ".event_counter.xml", "the event_counter target");
        var table = new StringBuilder(
            "| scheduler | worker_address | system_thread_id | full extents | last extent caught | events "
                + "|\n|---|---|---|---|---|---|\n"
        );
        foreach ((uint sched, int ext, int partial, ulong worker, uint thread) in Workers)
        {
            table
                .Append("| ")
                .Append(sched.ToString(CultureInfo.InvariantCulture))
                .Append(" | ")
                .Append(Output.Hex16(worker))
                .Append(" | ")
                .Append(thread.ToString(CultureInfo.InvariantCulture))
                .Append(" | ")
                .Append(ext.ToString(CultureInfo.InvariantCulture))
                .Append(" | ")
                .Append(
                    partial switch
                    {
                        0 => "-",
                        1 => "A",
                        _ => "A, B",
                    }
                )
                .Append(" | ")
                .Append(perScheduler[sched].ToString(CultureInfo.InvariantCulture))
                .Append(" |\n");
        }

        fig.Blocks.Add("workers_table", table.ToString().TrimEnd('\n'));
        return fig;
    }

    private static List<Frame> Replace(IReadOnlyList<Frame> stack, Frame old, Frame replacement)
    {
        if (!stack.Contains(old))
        {
            throw new InvalidOperationException(old.SymbolizedText + " is not in the stack.");
        }

        return [.. stack.Select(f => f == old ? replacement : f)];
    }

    /// <summary>Histogram target XML as SQL Server renders it (indentation and layout of a saved
    /// target_data).</summary>
    private static string Histogram(IEnumerable<Bucket> slots, Func<Frame, string> render) =>
        TargetXml.Histogram(slots.Select(bk => (string.Join("\n", bk.Frames.Select(render)), (long)bk.Count)));

    /// <summary>One row per frame of each bucket, in histogram slot order.</summary>
    private static string ExpectedStacks(List<Bucket> bySlot)
    {
        var sb = new StringBuilder(
            "slot\tbucket\tcount\tframe\tmodule\tfunction\toffset\trva\taddress\tsymbolized\tmodule_offset\n"
        );
        for (int i = 0; i < bySlot.Count; i++)
        {
            Bucket bk = bySlot[i];
            for (int f = 0; f < bk.Frames.Count; f++)
            {
                Frame fr = bk.Frames[f];
                sb.Append(i.ToString(CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(bk.Id)
                    .Append('\t')
                    .Append(bk.Count.ToString(CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(f.ToString(CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(fr.IsOutside ? "-" : fr.ModuleFile)
                    .Append('\t')
                    .Append(fr.Function ?? "-")
                    .Append('\t')
                    .Append(fr.IsOutside ? "-" : fr.Offset)
                    .Append('\t')
                    .Append(fr.IsOutside ? "-" : "0x" + fr.Rva.ToString("x", CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(Output.Hex16(Modules.AddressOf(fr)))
                    .Append('\t')
                    .Append(fr.SymbolizedText)
                    .Append('\t')
                    .Append(fr.ModuleOffsetText)
                    .Append('\n');
            }
        }

        return sb.ToString();
    }
}

using System.Globalization;
using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Sample 3: a MAXDOP 8 query reading LOB data whose data files are on blob storage (SEED-STACKS §2):
/// <c>sqlos.wait_info</c> (PAGEIOLATCH_SH, LATCH_EX, CXPACKET) and <c>sqlos.wait_info_external</c>
/// (PREEMPTIVE_HTTP_REQUEST) Begin/End pairs, with <c>sqlserver.latch_acquired</c> / <c>latch_released</c> and
/// <c>sqlserver.file_read</c> / <c>file_read_completed</c>. On each worker every PAGEIOLATCH_SH pair is immediately
/// preceded by a PREEMPTIVE_HTTP_REQUEST pair; some ACCESS_METHODS_DATASET_PARENT latches are held across a read.
/// </summary>
internal static class WaitSample
{
    public const string SetName = "blob_storage_waits";
    public const string HistogramFolder = "blob_storage_waits_histogram";
    public const ushort QuerySession = 61;
    public const ushort LogWriterSession = 3;
    public const ushort LeaseSession = 23;
    public const ushort DatabaseId = 7;
    public const ulong DatasetParentLatch = 0x0000020B7E41C0D8;

    public static readonly DateTime SessionStart = new(2024, 5, 14, 11, 47, 5, 553, DateTimeKind.Utc);
    public static readonly Guid Signature = new("0d4b7e2a-51c3-4f88-a9d6-3e2c1b0a9f13");
    private const ulong Seed = 0xB10B_0003;
    private const long FirstEventDelayTicks = 190_000; // 19 ms
    private const long WindowTicks = 200_000_000; // 20 s: no activity starts after this
    private const long Ms = 10_000;

    /// <summary>The eight workers of the parallel scan (session 61): scheduler, worker address, exchange port
    /// address.</summary>
    private static readonly (uint Scheduler, ulong Worker, ulong Port)[] QueryWorkers =
    [
        (1, 0x0000020B5C0A4160, 0x0000020B8A3F6040),
        (2, 0x0000020B5C0C6160, 0x0000020B8A3F6440),
        (4, 0x0000020B5C0E8160, 0x0000020B8A3F6840),
        (5, 0x0000020B5C10A160, 0x0000020B8A3F6C40),
        (8, 0x0000020B5C12C160, 0x0000020B8A3F7040),
        (10, 0x0000020B5C14E160, 0x0000020B8A3F7440),
        (13, 0x0000020B5C170160, 0x0000020B8A3F7840),
        (14, 0x0000020B5C192160, 0x0000020B8A3F7C40),
    ];

    private const uint CoordinatorScheduler = 6;
    private const ulong CoordinatorWorker = 0x0000020B5C082160;
    private const uint LogWriterScheduler = 0;
    private const ulong LogWriterWorker = 0x0000020B4A010160;
    private const uint LeaseScheduler = 3;
    private const ulong LeaseWorker = 0x0000020B4A032160;
    private static readonly ushort[] DataFiles = [1, 3, 4, 5];
    private static readonly string[] PreemptiveStacks = ["D", "E", "F", "G"];

    // Durations as (from, to, weight) ranges in ticks.
    private static readonly (long Lo, long Hi, int W)[] LatchExWait =
    [
        (700 * Ms, 1_500 * Ms, 25),
        (1_500 * Ms, 3_200 * Ms, 40),
        (3_200 * Ms, 5_200 * Ms, 35),
    ];
    private static readonly (long Lo, long Hi, int W)[] CxPacketWait =
    [
        (300 * Ms, 900 * Ms, 35),
        (900 * Ms, 1_600 * Ms, 40),
        (1_600 * Ms, 2_400 * Ms, 25),
    ];
    private static readonly (long Lo, long Hi, int W)[] PreemptiveRead =
    [
        (500, 5_000, 30),
        (5_000, 10_000, 35),
        (10_000, 20_000, 25),
        (20_000, 40_000, 10),
    ];
    private static readonly (long Lo, long Hi, int W)[] PageIoRead =
    [
        (3 * Ms, 15 * Ms, 30),
        (15 * Ms, 40 * Ms, 40),
        (40 * Ms, 90 * Ms, 25),
        (90 * Ms, 200 * Ms, 5),
    ];
    private static readonly (long Lo, long Hi, int W)[] PreemptiveLob = [(1_000, 15_000, 100)];
    private static readonly (long Lo, long Hi, int W)[] PreemptiveLog = [(5_000, 40_000, 100)];
    private static readonly (long Lo, long Hi, int W)[] PreemptiveLease = [(2 * Ms, 12 * Ms, 100)];

    public static ModuleList Modules { get; } =
        ModuleList.Create(
            sqlservr: 0x00007FF6D9A10000,
            sqlmin: 0x00007FFB7C2E0000,
            sqllang: 0x00007FFB7ED30000,
            sqlTsEs: 0x00007FFB841E0000,
            sqldk: 0x00007FFB851F0000,
            kernelBase: 0x00007FFBA8C10000,
            kernel32: 0x00007FFBAA180000,
            ntdll: 0x00007FFBAB540000
        );

    /// <summary>What a model event is, for figures.</summary>
    private sealed record Info(
        string Name,
        uint WaitType,
        bool End,
        long DurationMs,
        long SignalMs,
        string? Stack,
        bool Span
    );

    /// <summary>The callstacks: seed stacks D–H and two composed from fixture frames (X1 for LATCH_EX, X2 for
    /// CXPACKET).</summary>
    public static Dictionary<string, IReadOnlyList<Frame>> Stacks(FixtureStacks fx)
    {
        IReadOnlyList<Frame> h = fx.Stack("H"),
            g = fx.Stack("G");
        return new(StringComparer.Ordinal)
        {
            ["D"] = fx.Stack("D"),
            ["E"] = fx.Stack("E"),
            ["F"] = fx.Stack("F"),
            ["G"] = g,
            ["H"] = h,
            ["X1"] = [.. h.Take(5)],
            ["X2"] =
            [
                .. h.Take(3),
                fx.Get("sqlmin", "CQScanXProducerNew::GetRowHelper", "0x386"),
                fx.Get("sqlmin", "CQScanXProducerNew::GetRow", "0x15"),
                fx.Get("sqlmin", "FnProducerOpen", "0x5b"),
                fx.Get("sqlmin", "FnProducerThread", "0x80b"),
                .. g.Skip(7),
            ],
        };
    }

    public static (Figures Figures, string WaitsTsv) Generate(FixtureStacks fx, string outDir)
    {
        var rng = new Rng(Seed);
        var s = new Schemas();
        XeEventType waitInfo = s.Wait(external: false);
        XeEventType waitExternal = s.Wait(external: true);
        XeEventType acquired = s.LatchAcquired();
        XeEventType released = s.LatchReleased();
        XeEventType fileRead = s.FileRead();
        XeEventType fileReadCompleted = s.FileReadCompleted();
        Dictionary<string, IReadOnlyList<Frame>> stacks = Stacks(fx);
        Dictionary<string, XeValue> stackValues = stacks.ToDictionary(
            kv => kv.Key,
            kv => XeValue.Create(s.Callstack, Modules.AddressesOf(kv.Value)),
            StringComparer.Ordinal
        );
        var events = new List<PendingEvent>();

        void Add(
            long tick,
            uint sched,
            ulong worker,
            ushort session,
            XeEventType type,
            XeValue[] fields,
            string? stack,
            Info info
        )
        {
            XeValue[] actions = stack is null
                ?
                [
                    XeValue.Create(s.SchedulerId, (ulong)sched),
                    XeValue.Create(s.WorkerAddress, worker),
                    XeValue.Create(s.SessionId, (ulong)session),
                    default,
                ]
                :
                [
                    XeValue.Create(s.SchedulerId, (ulong)sched),
                    XeValue.Create(s.WorkerAddress, worker),
                    XeValue.Create(s.SessionId, (ulong)session),
                    default,
                    stackValues[stack],
                ];
            events.Add(
                new PendingEvent
                {
                    Tick = tick,
                    Slot = (int)sched,
                    TieBreak = (long)(rng.NextUInt64() >> 1),
                    Type = type,
                    Fields = fields,
                    Actions = actions,
                    SequenceColumn = s.EventSequence,
                    SessionId = session,
                    Tag = (Worker: worker, Info: info),
                }
            );
        }

        // A Begin/End pair; returns the End time.
        long WaitPair(
            long t,
            long duration,
            uint sched,
            ulong worker,
            ushort session,
            bool external,
            uint waitType,
            ulong resource,
            string stack,
            long signalMs
        )
        {
            XeEventType type = external ? waitExternal : waitInfo;
            long ms = duration / Ms;
            Add(
                t,
                sched,
                worker,
                session,
                type,
                WaitFields(type, waitType, Schemas.OpcodeBegin, 0, 0, resource),
                stack,
                new Info(type.Name, waitType, false, 0, 0, stack, false)
            );
            Add(
                t + duration,
                sched,
                worker,
                session,
                type,
                WaitFields(type, waitType, Schemas.OpcodeEnd, ms, signalMs, resource),
                stack,
                new Info(type.Name, waitType, true, ms, signalMs, stack, false)
            );
            return t + duration;
        }

        void LatchPair(
            long t,
            long hold,
            uint sched,
            ulong worker,
            uint latchClass,
            uint mode,
            ulong address,
            ushort db,
            ushort fileId,
            uint page,
            bool span
        )
        {
            Add(
                t,
                sched,
                worker,
                QuerySession,
                acquired,
                LatchFields(acquired, latchClass, mode, address, db, fileId, page, null),
                null,
                new Info("latch_acquired", 0, false, 0, 0, null, span)
            );
            Add(
                t + hold,
                sched,
                worker,
                QuerySession,
                released,
                LatchFields(released, latchClass, mode, address, db, fileId, page, (ulong)(hold / 10)),
                null,
                new Info("latch_released", 0, true, hold / 10, 0, null, span)
            );
        }

        // The eight workers of the scan.
        foreach ((uint sched, ulong worker, ulong port) in QueryWorkers)
        {
            long t = FirstEventDelayTicks + rng.Next(0, 20_000);
            while (t < WindowTicks)
            {
                long r = rng.Next(0, 1000);
                if (r < 55)
                {
                    t =
                        WaitPair(
                            t,
                            Range(rng, LatchExWait),
                            sched,
                            worker,
                            QuerySession,
                            false,
                            Schemas.WaitLatchEx,
                            DatasetParentLatch,
                            "X1",
                            rng.Next(0, 3)
                        ) + rng.Next(200, 2_000);
                    continue;
                }

                if (r < 77)
                {
                    t =
                        WaitPair(
                            t,
                            Range(rng, CxPacketWait),
                            sched,
                            worker,
                            QuerySession,
                            false,
                            Schemas.WaitCxPacket,
                            port,
                            "X2",
                            rng.Next(0, 2)
                        ) + rng.Next(200, 2_000);
                    continue;
                }

                if (rng.Chance(300))
                {
                    // A quick buffer latch (a page already in memory): held for microseconds, no I/O.
                    uint hotPage = (uint)rng.Next(8, 400_000);
                    long hold = rng.Next(20, 300);
                    LatchPair(
                        t,
                        hold,
                        sched,
                        worker,
                        Schemas.LatchClassBuffer,
                        Schemas.ModeSh,
                        BufAddress(hotPage),
                        DatabaseId,
                        DataFiles[rng.NextIndex(DataFiles.Length)],
                        hotPage,
                        false
                    );
                    t += hold + rng.Next(50, 500);
                }

                // A read: file_read, the HTTP request (preemptive), then the wait for the page latch until the read
                // completes.
                bool span = rng.Chance(200);
                long latchAt = t;
                if (span)
                {
                    t += rng.Next(20, 60);
                }

                ushort fileId = DataFiles[rng.NextIndex(DataFiles.Length)];
                uint page = (uint)rng.Next(8, 4_000_000);
                uint size = rng.Chance(600) ? 65536u : 8192u;
                ulong offset = (ulong)page * 8192;
                Add(
                    t,
                    sched,
                    worker,
                    QuerySession,
                    fileRead,
                    ReadFields(fileRead, fileId, offset, size, null),
                    null,
                    new Info("file_read", 0, false, 0, 0, null, span)
                );
                t += rng.Next(20, 80);
                t =
                    WaitPair(
                        t,
                        Range(rng, PreemptiveRead),
                        sched,
                        worker,
                        QuerySession,
                        true,
                        Schemas.WaitPreemptiveHttpRequest,
                        0,
                        "D",
                        0
                    ) + rng.Next(10, 40);
                long io = Range(rng, PageIoRead);
                long completedAt = t + io - rng.Next(30, 120);
                Add(
                    completedAt,
                    sched,
                    worker,
                    QuerySession,
                    fileReadCompleted,
                    ReadFields(fileReadCompleted, fileId, offset, size, (ulong)((completedAt - t) / Ms)),
                    null,
                    new Info("file_read_completed", 0, true, (completedAt - t) / Ms, 0, null, span)
                );
                t =
                    WaitPair(
                        t,
                        io,
                        sched,
                        worker,
                        QuerySession,
                        false,
                        Schemas.WaitPageIoLatchSh,
                        BufAddress(page),
                        "H",
                        rng.Next(0, 2)
                    ) + rng.Next(10, 40);
                if (span)
                {
                    // Latch held across the read: acquired before file_read, released after the read completed.
                    LatchPair(
                        latchAt,
                        t - latchAt,
                        sched,
                        worker,
                        Schemas.LatchClassDatasetParent,
                        Schemas.ModeEx,
                        DatasetParentLatch,
                        DatabaseId,
                        0,
                        0,
                        true
                    );
                    t += rng.Next(10, 40);
                }

                t += rng.Next(3_000, 30_000);
            }
        }

        // The coordinator sends LOB data to the client (stack E); the log writer flushes the log (stack F); lease
        // renewal (stack G).
        for (long t = FirstEventDelayTicks + rng.Next(0, 50_000); t < WindowTicks; t += rng.Next(15 * Ms, 60 * Ms))
        {
            t = WaitPair(
                t,
                Range(rng, PreemptiveLob),
                CoordinatorScheduler,
                CoordinatorWorker,
                QuerySession,
                true,
                Schemas.WaitPreemptiveHttpRequest,
                0,
                "E",
                0
            );
        }

        for (long t = FirstEventDelayTicks + rng.Next(0, 400_000); t < WindowTicks; t += rng.Next(40 * Ms, 160 * Ms))
        {
            t = WaitPair(
                t,
                Range(rng, PreemptiveLog),
                LogWriterScheduler,
                LogWriterWorker,
                LogWriterSession,
                true,
                Schemas.WaitPreemptiveHttpRequest,
                0,
                "F",
                0
            );
        }

        for (long t = 1_200 * Ms; t < WindowTicks; t += rng.Next(4_700 * Ms, 5_300 * Ms))
        {
            t = WaitPair(
                t,
                Range(rng, PreemptiveLease),
                LeaseScheduler,
                LeaseWorker,
                LeaseSession,
                true,
                Schemas.WaitPreemptiveHttpRequest,
                0,
                "G",
                0
            );
        }

        List<PendingEvent> ordered = PendingEvent.Order(events);
        string file = Output.RolloverName(SetName, SessionStart);
        Output.WriteXel(Path.Combine(outDir, SetName, file), s.Schema, SessionStart, Signature, ordered);
        Output.WriteText(Path.Combine(outDir, SetName, SetName + ".modules.txt"), Modules.ToText());

        // Figures from the model.
        List<(ulong Worker, Info Info)> infos = [.. ordered.Select(e => ((ulong, Info))e.Tag!)];
        var fig = new Figures("waits");
        fig.Add("file", SetName + "/" + file, "the capture");
        fig.Add("modules_file", SetName + "/" + SetName + ".modules.txt", "the sys.dm_os_loaded_modules sidecar");
        fig.Add("session_start", Output.Iso(SessionStart), "FILETIME in the file name, as UTC");
        fig.Add("first_event", Output.Iso(SessionStart.AddTicks(ordered[0].Tick)), "first event (true order)");
        fig.Add("last_event", Output.Iso(SessionStart.AddTicks(ordered[^1].Tick)), "last event (true order)");
        fig.Add("events", ordered.Count, "events in the file");
        foreach (
            string name in new[]
            {
                "wait_info",
                "wait_info_external",
                "latch_acquired",
                "latch_released",
                "file_read",
                "file_read_completed",
            }
        )
        {
            fig.Add("count." + name, infos.Count(i => i.Info.Name == name), name + " events");
        }

        var waits = new StringBuilder(
            "wait_type\tmap_key\tevent\twaits\ttotal_duration_ms\tmax_duration_ms\tavg_duration_ms\ttotal_signal_dura"
                + "tion_ms\tstacks\n"
        );
        foreach (
            (uint key, string text) in new[]
            {
                (Schemas.WaitLatchEx, "LATCH_EX"),
                (Schemas.WaitPageIoLatchSh, "PAGEIOLATCH_SH"),
                (Schemas.WaitCxPacket, "CXPACKET"),
                (Schemas.WaitPreemptiveHttpRequest, "PREEMPTIVE_HTTP_REQUEST"),
            }
        )
        {
            List<Info> ends = [.. infos.Select(i => i.Info).Where(i => i.WaitType == key && i.End)];
            long total = ends.Sum(i => i.DurationMs);
            string p = "wait." + text + ".";
            fig.Add(p + "waits", ends.Count, "End events (completed waits) of " + text);
            fig.Add(p + "total_ms", total, "sum of End duration (ms)");
            fig.Add(p + "max_ms", ends.Max(i => i.DurationMs), "largest End duration (ms)");

            // wait_info_external has no signal_duration field: its wait types have no signal figure (n/a, not 0).
            bool external = ends.All(i => i.Name == "wait_info_external");
            if (!external && ends.Any(i => i.Name == "wait_info_external"))
            {
                throw new InvalidOperationException(text + " is both a wait_info and a wait_info_external wait type.");
            }

            string signal = external ? "n/a" : Output.N(ends.Sum(i => i.SignalMs));
            fig.Add(
                p + "signal_ms",
                signal,
                external
                    ? "sum of End signal_duration (ms): n/a, wait_info_external has no signal_duration field"
                    : "sum of End signal_duration (ms)"
            );
            string stackIds = string.Join(",", ends.Select(i => i.Stack!).Distinct().Order(StringComparer.Ordinal));
            waits
                .Append(text)
                .Append('\t')
                .Append(key.ToString(CultureInfo.InvariantCulture))
                .Append('\t')
                .Append(key == Schemas.WaitPreemptiveHttpRequest ? "wait_info_external" : "wait_info")
                .Append('\t')
                .Append(ends.Count.ToString(CultureInfo.InvariantCulture))
                .Append('\t')
                .Append(total.ToString(CultureInfo.InvariantCulture))
                .Append('\t')
                .Append(ends.Max(i => i.DurationMs).ToString(CultureInfo.InvariantCulture))
                .Append('\t')
                .Append(((decimal)total / ends.Count).ToString("0.00", CultureInfo.InvariantCulture))
                .Append('\t')
                .Append(signal)
                .Append('\t')
                .Append(stackIds)
                .Append('\n');
        }

        // The wait_type histogram of the same model: End events of wait_info and wait_info_external per map key, as a
        // histogram target on the wait_type field (source_type 0) with an opcode = End predicate writes it, and the map
        // values that go with it.
        List<(uint Key, string Text, long Count)> histogram =
        [
            .. infos
                .Where(i => i.Info.End && i.Info.Name is "wait_info" or "wait_info_external")
                .GroupBy(i => i.Info.WaitType)
                .Select(g =>
                    (Key: g.Key, Text: Schemas.WaitTypes.Single(w => w.Key == g.Key).Name, Count: (long)g.Count())
                )
                .OrderByDescending(x => x.Count)
                .ThenBy(x => x.Key),
        ];
        Output.WriteText(
            Path.Combine(outDir, HistogramFolder, SetName + ".wait_type.histogram.xml"),
            TargetXml.Histogram(histogram.Select(h => (Output.N(h.Key), h.Count)))
        );
        Output.WriteText(
            Path.Combine(outDir, HistogramFolder, SetName + ".map_values.tsv"),
            TargetXml.MapValues([s.WaitTypesMap, s.EventOpcode])
        );
        long histogramTotal = histogram.Sum(h => h.Count);
        var histogramTsv = new StringBuilder("map_key\twait_type\tcount\tshare_percent\n");
        foreach ((uint key, string text, long count) in histogram)
        {
            histogramTsv
                .Append(Output.N(key))
                .Append('\t')
                .Append(text)
                .Append('\t')
                .Append(Output.N(count))
                .Append('\t')
                .Append(Output.Percent(count, histogramTotal))
                .Append('\n');
        }

        Output.WriteText(
            Path.Combine(outDir, "expected", SetName + ".wait_type_histogram.tsv"),
            histogramTsv.ToString()
        );
        fig.Blocks.Add("histogram_table", Output.Markdown(histogramTsv.ToString()));
        fig.Add("histogram.slots", histogram.Count, "slots of the wait_type histogram (one per wait type)");
        fig.Add(
            "histogram.events",
            histogramTotal,
            "events the wait_type histogram counts (End events of wait_info and wait_info_external)"
        );
        fig.Add("histogram.map_keys", s.WaitTypesMap.Entries.Count, "wait_types keys in the map-values file");
        fig.Add("histogram.opcode_keys", s.EventOpcode.Entries.Count, "event_opcode keys in the map-values file");

        int pre = infos.Count(i => i.Info.WaitType == Schemas.WaitPreemptiveHttpRequest && i.Info.End);
        fig.Add(
            "preemptive_by_stack",
            string.Join(
                ",",
                PreemptiveStacks.Select(id =>
                    id
                    + "="
                    + infos
                        .Count(i =>
                            i.Info.WaitType == Schemas.WaitPreemptiveHttpRequest && i.Info.End && i.Info.Stack == id
                        )
                        .ToString(CultureInfo.InvariantCulture)
                )
            ),
            "PREEMPTIVE_HTTP_REQUEST waits per stack (D scan reads, E LOB send, F log writer, G lease renewal)"
        );
        fig.Add("preemptive_waits", pre, "PREEMPTIVE_HTTP_REQUEST waits in all");
        fig.Add(
            "latch_pairs",
            infos.Count(i => i.Info.Name == "latch_released"),
            "latch_acquired/latch_released pairs (same address and worker)"
        );
        fig.Add(
            "latch_pairs_across_io",
            infos.Count(i => i.Info.Name == "latch_released" && i.Info.Span),
            "of which ACCESS_METHODS_DATASET_PARENT EX held across a file_read/file_read_completed pair"
        );
        fig.Add(
            "latch_pairs_quick",
            infos.Count(i => i.Info.Name == "latch_released" && !i.Info.Span),
            "of which BUFFER SH held for microseconds, no I/O inside"
        );
        fig.Add(
            "query_schedulers",
            string.Join(",", QueryWorkers.Select(w => w.Scheduler.ToString(CultureInfo.InvariantCulture))),
            "schedulers of the scan's eight workers (session 61)"
        );
        fig.Add(
            "coordinator_scheduler",
            CoordinatorScheduler,
            "scheduler of the query's coordinator (session 61, stack E)"
        );
        fig.Add(
            "log_writer",
            LogWriterScheduler.ToString(CultureInfo.InvariantCulture)
                + "/"
                + LogWriterSession.ToString(CultureInfo.InvariantCulture),
            "scheduler/session of the log writer (stack F)"
        );
        fig.Add(
            "lease_renewal",
            LeaseScheduler.ToString(CultureInfo.InvariantCulture)
                + "/"
                + LeaseSession.ToString(CultureInfo.InvariantCulture),
            "scheduler/session of the lease renewal task (stack G)"
        );
        return (fig, waits.ToString());
    }

    private static long Range(Rng rng, (long Lo, long Hi, int W)[] table)
    {
        (long lo, long hi, int _) = table[rng.Pick([.. table.Select(x => x.W)])];
        return rng.Next(lo, hi);
    }

    private static ulong BufAddress(uint page) => 0x0000020A00000000UL + ((ulong)(page % 1_000_003) * 0x40);

    /// <summary>
    /// The fields of a wait_info (wait_type, opcode, duration, signal_duration, wait_resource) or wait_info_external
    /// (wait_type, opcode, duration: that event has no signal_duration and no wait_resource, so they must be 0 in the
    /// model) event.
    /// </summary>
    private static XeValue[] WaitFields(
        XeEventType t,
        uint waitType,
        uint opcode,
        long durationMs,
        long signalMs,
        ulong resource
    )
    {
        if (t.Fields.Count == 3)
        {
            if (signalMs != 0 || resource != 0)
            {
                throw new InvalidOperationException(t.Name + " has no signal_duration or wait_resource field.");
            }

            return
            [
                XeValue.Create(t.Fields[0], (ulong)waitType),
                XeValue.Create(t.Fields[1], (ulong)opcode),
                XeValue.Create(t.Fields[2], (ulong)durationMs),
            ];
        }

        return
        [
            XeValue.Create(t.Fields[0], (ulong)waitType),
            XeValue.Create(t.Fields[1], (ulong)opcode),
            XeValue.Create(t.Fields[2], (ulong)durationMs),
            XeValue.Create(t.Fields[3], (ulong)signalMs),
            XeValue.Create(t.Fields[4], resource),
        ];
    }

    private static XeValue[] LatchFields(
        XeEventType t,
        uint latchClass,
        uint mode,
        ulong address,
        ushort db,
        ushort fileId,
        uint page,
        ulong? durationUs
    )
    {
        var v = new List<XeValue>
        {
            XeValue.Create(t.Fields[0], (ulong)latchClass),
            XeValue.Create(t.Fields[1], (ulong)mode),
            XeValue.Create(t.Fields[2], address),
            XeValue.Create(t.Fields[3], (ulong)db),
            XeValue.Create(t.Fields[4], (ulong)fileId),
            XeValue.Create(t.Fields[5], (ulong)page),
        };
        if (durationUs is ulong d)
        {
            v.Add(XeValue.Create(t.Fields[6], d));
        }

        return [.. v];
    }

    private static XeValue[] ReadFields(XeEventType t, ushort fileId, ulong offset, uint size, ulong? durationMs)
    {
        var v = new List<XeValue>
        {
            XeValue.Create(t.Fields[0], (ulong)DatabaseId),
            XeValue.Create(t.Fields[1], (ulong)fileId),
            XeValue.Create(t.Fields[2], offset),
            XeValue.Create(t.Fields[3], (ulong)size),
        };
        if (durationMs is ulong d)
        {
            v.Add(XeValue.Create(t.Fields[4], d));
        }

        return [.. v];
    }
}

using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Sample 5: one list of wait and latch events written twice, as a <c>.xel</c> capture and as the ring_buffer target
/// XML SQL Server renders for the same events, so every command must give the same rows and figures for both. The wait
/// events follow the real metadata (XE-TEXT-SHAPES §12): <c>wait_info</c> of SQL Server 2017 RTM (with
/// <c>wait_resource</c> as a pointer),
/// <c>wait_info_external</c> with only wait_type, opcode and duration, <c>wait_completed</c> with wait_result and a
/// text
/// <c>wait_resource</c> and no opcode.
/// </summary>
internal static class RingBufferSample
{
    public const string SetName = "ring_buffer_waits";
    public const string XmlName = SetName + ".ring_buffer.xml";

    public static readonly DateTime SessionStart = new(2024, 5, 14, 12, 15, 3, 604, DateTimeKind.Utc);
    public static readonly Guid Signature = new("0d4b7e2a-51c3-4f88-a9d6-3e2c1b0a9f15");
    private const ulong Seed = 0x21B6_0005;
    private const long FirstEventDelayTicks = 230_000; // 23 ms
    private const long WindowTicks = 8_000_000; // 0.8 s: no step starts after this
    private const long Ms = 10_000;

    /// <summary>The four workers: scheduler and worker address.</summary>
    private static readonly (uint Scheduler, ulong Worker)[] Workers =
    [
        (0, 0x000001F2C8A10160),
        (1, 0x000001F2C8A32160),
        (2, 0x000001F2C8A54160),
        (3, 0x000001F2C8A76160),
    ];

    /// <summary>The five buffers (BUF addresses) the PAGEIOLATCH_SH waits are on, with weights.</summary>
    private static readonly (ulong Buffer, int Weight)[] PageIoBuffers =
    [
        (0x000001F2D4C06A40, 34),
        (0x000001F2D4C1B2C0, 24),
        (0x000001F2D4C2F780, 18),
        (0x000001F2D4C44100, 14),
        (0x000001F2D4C58E40, 10),
    ];

    /// <summary>The two latches (addresses) the LATCH_EX waits are on.</summary>
    private static readonly (ulong Latch, int Weight)[] LatchExLatches =
    [
        (0x000001F2E01A38D8, 70),
        (0x000001F2E01B7058, 30),
    ];

    /// <summary>The tempdb allocation pages the PAGELATCH_EX waits (wait_completed) are on: PFS, GAM, SGAM of file
    /// 1.</summary>
    private static readonly (string Page, int Weight)[] PageLatchPages = [("2:1:1", 55), ("2:1:2", 30), ("2:1:3", 15)];

    /// <summary>wait_result values of wait_completed (their meaning is not documented; 258 is WAIT_TIMEOUT in
    /// Win32).</summary>
    private const uint ResultOk = 0;
    private const uint ResultTimeout = 258;

    /// <summary>What a model event is, for figures.</summary>
    internal sealed record Info(
        string Name,
        uint WaitType,
        bool End,
        long DurationMs,
        long SignalMs,
        string? Resource,
        uint? Result,
        uint Scheduler
    );

    public static Figures Generate(string outDir)
    {
        var rng = new Rng(Seed);
        var s = new Schemas();
        XeEventType waitInfo = s.Wait(external: false);
        XeEventType waitExternal = s.Wait(external: true);
        XeEventType waitCompleted = s.WaitCompleted();
        XeEventType latch = s.LatchAcquired();
        var events = new List<PendingEvent>();

        void Add(long tick, uint sched, ulong worker, XeEventType type, XeValue[] fields, Info info) =>
            events.Add(
                new PendingEvent
                {
                    Tick = tick,
                    Slot = (int)sched,
                    TieBreak = (long)(rng.NextUInt64() >> 1),
                    Type = type,
                    Fields = fields,
                    Actions =
                    [
                        XeValue.Create(s.SchedulerId, (ulong)sched),
                        XeValue.Create(s.WorkerAddress, worker),
                        default,
                    ],
                    SequenceColumn = s.EventSequence,
                    Tag = info,
                }
            );

        // A wait_info or wait_info_external Begin/End pair; returns the End time.
        long Pair(
            long t,
            long duration,
            long signalMs,
            uint sched,
            ulong worker,
            bool external,
            uint waitType,
            ulong resource
        )
        {
            XeEventType type = external ? waitExternal : waitInfo;
            long ms = duration / Ms;
            string? res = external ? null : Output.Hex16(resource);
            XeValue[] Fields(uint opcode, long d, long sig) =>
                external
                    ?
                    [
                        XeValue.Create(type.Fields[0], (ulong)waitType),
                        XeValue.Create(type.Fields[1], (ulong)opcode),
                        XeValue.Create(type.Fields[2], (ulong)d),
                    ]
                    :
                    [
                        XeValue.Create(type.Fields[0], (ulong)waitType),
                        XeValue.Create(type.Fields[1], (ulong)opcode),
                        XeValue.Create(type.Fields[2], (ulong)d),
                        XeValue.Create(type.Fields[3], (ulong)sig),
                        XeValue.Create(type.Fields[4], resource),
                    ];
            Add(
                t,
                sched,
                worker,
                type,
                Fields(Schemas.OpcodeBegin, 0, 0),
                new Info(type.Name, waitType, false, 0, 0, res, null, sched)
            );
            Add(
                t + duration,
                sched,
                worker,
                type,
                Fields(Schemas.OpcodeEnd, ms, external ? 0 : signalMs),
                new Info(type.Name, waitType, true, ms, external ? 0 : signalMs, res, null, sched)
            );
            return t + duration;
        }

        // A wait_completed event at the end of a wait; returns its time.
        long Completed(
            long t,
            long duration,
            long signalMs,
            uint sched,
            ulong worker,
            uint waitType,
            uint result,
            string resource
        )
        {
            long ms = duration / Ms;
            Add(
                t + duration,
                sched,
                worker,
                waitCompleted,
                [
                    XeValue.Create(waitCompleted.Fields[0], (ulong)waitType),
                    XeValue.Create(waitCompleted.Fields[1], (ulong)result),
                    XeValue.Create(waitCompleted.Fields[2], (ulong)ms),
                    XeValue.Create(waitCompleted.Fields[3], (ulong)signalMs),
                    XeValue.Create(waitCompleted.Fields[4], resource),
                ],
                new Info(waitCompleted.Name, waitType, true, ms, signalMs, resource, result, sched)
            );
            return t + duration;
        }

        foreach ((uint sched, ulong worker) in Workers)
        {
            long t = FirstEventDelayTicks + rng.Next(0, 30_000);
            while (t < WindowTicks)
            {
                long r = rng.Next(0, 100);
                if (r < 30)
                {
                    // A read: sometimes a preemptive call first (wait_info_external), then the PAGEIOLATCH_SH wait on
                    // its buffer.
                    if (rng.Chance(500))
                    {
                        t =
                            Pair(
                                t,
                                rng.Next(2_000, 30_000),
                                0,
                                sched,
                                worker,
                                true,
                                Schemas.WaitPreemptiveHttpRequest,
                                0
                            ) + rng.Next(10, 60);
                    }

                    ulong buffer = PageIoBuffers[rng.Pick([.. PageIoBuffers.Select(b => b.Weight)])].Buffer;
                    t = Pair(
                        t,
                        rng.Next(2 * Ms, 40 * Ms),
                        rng.Next(0, 2),
                        sched,
                        worker,
                        false,
                        Schemas.WaitPageIoLatchSh,
                        buffer
                    );
                }
                else if (r < 40)
                {
                    ulong latchAddress = LatchExLatches[rng.Pick([.. LatchExLatches.Select(l => l.Weight)])].Latch;
                    t = Pair(
                        t,
                        rng.Next(5 * Ms, 80 * Ms),
                        rng.Next(0, 3),
                        sched,
                        worker,
                        false,
                        Schemas.WaitLatchEx,
                        latchAddress
                    );
                }
                else if (r < 50)
                {
                    // A yield: no resource (a null pointer); the whole wait is signal time.
                    long d = rng.Next(1_000, 4 * Ms);
                    t = Pair(t, d, d / Ms, sched, worker, false, Schemas.WaitSosSchedulerYield, 0);
                }
                else if (r < 65)
                {
                    string page = PageLatchPages[rng.Pick([.. PageLatchPages.Select(p => p.Weight)])].Page;
                    t = Completed(
                        t,
                        rng.Next(1_000, 6 * Ms),
                        rng.Next(0, 2),
                        sched,
                        worker,
                        Schemas.WaitPageLatchEx,
                        rng.Chance(250) ? ResultTimeout : ResultOk,
                        page
                    );
                }
                else if (r < 75)
                {
                    // The log flush: wait_completed with an empty wait_resource.
                    t = Completed(
                        t,
                        rng.Next(1 * Ms, 12 * Ms),
                        0,
                        sched,
                        worker,
                        Schemas.WaitWriteLog,
                        ResultOk,
                        string.Empty
                    );
                }
                else
                {
                    bool buffer = rng.Chance(600);
                    uint page = (uint)rng.Next(8, 90_000);
                    Add(
                        t,
                        sched,
                        worker,
                        latch,
                        [
                            XeValue.Create(
                                latch.Fields[0],
                                (ulong)(buffer ? Schemas.LatchClassBuffer : Schemas.LatchClassNestingFull)
                            ),
                            XeValue.Create(latch.Fields[1], (ulong)(buffer ? Schemas.ModeSh : Schemas.ModeEx)),
                            XeValue.Create(
                                latch.Fields[2],
                                buffer ? 0x000001F2D4C00000UL + ((ulong)(page % 4096) * 0x40) : 0x000001F2E01C5A58UL
                            ),
                            XeValue.Create(latch.Fields[3], 2UL),
                            XeValue.Create(latch.Fields[4], buffer ? 1UL : 0UL),
                            XeValue.Create(latch.Fields[5], buffer ? (ulong)page : 0UL),
                        ],
                        new Info(latch.Name, 0, false, 0, 0, null, null, sched)
                    );
                }

                t += rng.Next(200 * 10, 25 * Ms);
            }
        }

        List<PendingEvent> ordered = PendingEvent.Order(events);
        string file = Output.RolloverName(SetName, SessionStart);
        Output.WriteXel(Path.Combine(outDir, SetName, file), s.Schema, SessionStart, Signature, ordered);
        Output.WriteText(Path.Combine(outDir, SetName, XmlName), TargetXml.RingBuffer(SessionStart, ordered));

        // Figures from the model.
        List<Info> infos = [.. ordered.Select(e => (Info)e.Tag!)];
        var fig = new Figures("ring");
        fig.Add("file", SetName + "/" + file, "the capture");
        fig.Add("xml_file", SetName + "/" + XmlName, "the same events as ring_buffer target XML");
        fig.Add("session_start", Output.Iso(SessionStart), "FILETIME in the file name, as UTC");
        fig.Add("first_event", Output.Iso(SessionStart.AddTicks(ordered[0].Tick)), "first event (true order)");
        fig.Add("last_event", Output.Iso(SessionStart.AddTicks(ordered[^1].Tick)), "last event (true order)");
        fig.Add("events", ordered.Count, "events in each file");
        foreach (string name in new[] { "wait_info", "wait_info_external", "wait_completed", "latch_acquired" })
        {
            fig.Add("count." + name, infos.Count(i => i.Name == name), name + " events");
        }

        foreach ((uint sched, ulong worker) in Workers)
        {
            fig.Add(
                "latches.scheduler." + Output.N(sched),
                infos.Count(i => i.Name == "latch_acquired" && i.Scheduler == sched),
                "latch_acquired events on scheduler " + Output.N(sched) + " (worker " + Output.Hex16(worker) + ")"
            );
        }

        fig.Add(
            "latches.nesting_transaction_full",
            ordered.Count(e => e.Type == latch && e.Fields[0].AsUInt64() == Schemas.LatchClassNestingFull),
            "latch_acquired events of class NESTING_TRANSACTION_FULL (the rest are BUFFER SH)"
        );

        // Per wait type: completed waits (End events, and every wait_completed event), durations, signal (n/a when no
        // event of the type has the field), the event it comes from.
        var waits = new StringBuilder(
            "wait_type\tmap_key\tevent\twaits\ttotal_duration_ms\tmax_duration_ms\ttotal_signal_duration_ms\tbegins\n"
        );
        var resources = new StringBuilder("wait_type\twait_resource\twaits\n");
        var results = new StringBuilder("wait_type\twait_result\tevents\n");
        foreach (
            IGrouping<uint, Info> g in infos
                .Where(i => i.Name != "latch_acquired")
                .GroupBy(i => i.WaitType)
                .OrderBy(g => g.Key)
        )
        {
            string text = Schemas.WaitTypes.Single(w => w.Key == g.Key).Name;
            List<Info> done = [.. g.Where(i => i.End)];
            string[] names = [.. g.Select(i => i.Name).Distinct()];
            if (names.Length != 1)
            {
                throw new InvalidOperationException(text + " comes from more than one event.");
            }

            string signal = names[0] == "wait_info_external" ? "n/a" : Output.N(done.Sum(i => i.SignalMs));
            waits
                .Append(text)
                .Append('\t')
                .Append(Output.N(g.Key))
                .Append('\t')
                .Append(names[0])
                .Append('\t')
                .Append(Output.N(done.Count))
                .Append('\t')
                .Append(Output.N(done.Sum(i => i.DurationMs)))
                .Append('\t')
                .Append(Output.N(done.Max(i => i.DurationMs)))
                .Append('\t')
                .Append(signal)
                .Append('\t')
                .Append(Output.N(g.Count(i => !i.End)))
                .Append('\n');
            if (names[0] != "wait_info_external")
            {
                foreach (
                    IGrouping<string, Info> rg in done.GroupBy(i => i.Resource!)
                        .OrderByDescending(x => x.Count())
                        .ThenBy(x => x.Key, StringComparer.Ordinal)
                )
                {
                    resources
                        .Append(text)
                        .Append('\t')
                        .Append(rg.Key)
                        .Append('\t')
                        .Append(Output.N(rg.Count()))
                        .Append('\n');
                }
            }

            if (names[0] == "wait_completed")
            {
                foreach (
                    IGrouping<uint, Info> rg in done.GroupBy(i => i.Result!.Value)
                        .OrderByDescending(x => x.Count())
                        .ThenBy(x => x.Key)
                )
                {
                    results
                        .Append(text)
                        .Append('\t')
                        .Append(Output.N(rg.Key))
                        .Append('\t')
                        .Append(Output.N(rg.Count()))
                        .Append('\n');
                }
            }
        }

        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".waits.tsv"), waits.ToString());
        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".resources.tsv"), resources.ToString());
        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".results.tsv"), results.ToString());
        fig.Blocks.Add("waits_table", Output.Markdown(waits.ToString()));
        fig.Blocks.Add("resources_table", Output.Markdown(resources.ToString()));
        fig.Blocks.Add("results_table", Output.Markdown(results.ToString()));
        fig.Add(
            "schedulers",
            string.Join(",", Workers.Select(w => Output.N(w.Scheduler))),
            "schedulers (and buffer slots) of the four workers"
        );
        return fig;
    }
}

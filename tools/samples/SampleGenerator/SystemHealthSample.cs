using System.Globalization;
using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Sample 6: system_health-style ring-buffer events whose stack is in a callstack-typed <b>field</b> <c>call_stack</c>
/// (not the
/// <c>package0.callstack</c> action): <c>sqlos.memory_broker_ring_buffer_recorded</c> and
/// <c>sqlos.scheduler_monitor_system_health_ring_buffer_recorded</c> with the field lists of the public 2012
/// sqlhealth.xel. The stacks are composed from fixture frames (their call chains are plausible, not published) and
/// resolve against symbols-cache/ through the module-list sidecar.
/// </summary>
internal static class SystemHealthSample
{
    public const string SetName = "system_health_stacks";

    public static readonly DateTime SessionStart = new(2024, 5, 14, 13, 5, 47, 881, DateTimeKind.Utc);
    public static readonly Guid Signature = new("0d4b7e2a-51c3-4f88-a9d6-3e2c1b0a9f16");
    private const ulong Seed = 0x5E17_0006;
    private const long Ms = 10_000;

    public static ModuleList Modules { get; } =
        ModuleList.Create(
            sqlservr: 0x00007FF72C5A0000,
            sqlmin: 0x00007FFD0B330000,
            sqllang: 0x00007FFD0DD80000,
            sqlTsEs: 0x00007FFD13230000,
            sqldk: 0x00007FFD14240000,
            kernelBase: 0x00007FFD37C60000,
            kernel32: 0x00007FFD391D0000,
            ntdll: 0x00007FFD3A590000
        );

    /// <summary>A composed stack: id, the event that carries it, what it stands for, its frames (leaf first), how many
    /// events carry it.</summary>
    internal sealed record Stack(string Id, string Event, string Description, IReadOnlyList<Frame> Frames, int Count);

    /// <summary>The stacks: two for the memory broker, two for the scheduler monitor, all different.</summary>
    public static IReadOnlyList<Stack> Stacks(FixtureStacks fx)
    {
        IReadOnlyList<Frame> g = fx.Stack("G"),
            f = fx.Stack("F"),
            m3 = fx.Stack("M3"),
            s2 = fx.Stack("S2");
        const string Broker = "memory_broker_ring_buffer_recorded";
        const string Monitor = "scheduler_monitor_system_health_ring_buffer_recorded";
        List<Stack> stacks =
        [
            new(
                "B1",
                Broker,
                "memory returned while a task runs: M3's frames (DeCommitBlock, FreePage, FreePages) on G's "
                    + "scheduler frames",
                [.. m3, .. g.Skip(7)],
                41
            ),
            new(
                "B2",
                Broker,
                "a clerk allocating: S2's MemoryNode/MemoryClerkInternal frames on G's scheduler frames",
                [.. s2.Skip(2), .. g.Skip(7)],
                23
            ),
            new(
                "M1",
                Monitor,
                "the scheduler monitor's task: G's scheduler frames from SOS_Scheduler::RunTask down",
                [.. g.Skip(8)],
                14
            ),
            new(
                "M2",
                Monitor,
                "the scheduler monitor's worker thread: F's frames from SOS_Task::Param::Execute down, KERNEL32 and "
                    + "ntdll included",
                [.. f.Skip(11)],
                6
            ),
        ];
        for (int i = 0; i < stacks.Count; i++)
        {
            for (int j = i + 1; j < stacks.Count; j++)
            {
                if (stacks[i].Frames.SequenceEqual(stacks[j].Frames))
                {
                    throw new InvalidOperationException(
                        "Stacks " + stacks[i].Id + " and " + stacks[j].Id + " are equal."
                    );
                }
            }
        }

        return stacks;
    }

    public static Figures Generate(FixtureStacks fx, string outDir)
    {
        var rng = new Rng(Seed);
        var s = new Schemas();
        XeEventType broker = s.MemoryBrokerRingBufferRecorded();
        XeEventType monitor = s.SchedulerMonitorSystemHealth();
        IReadOnlyList<Stack> stacks = Stacks(fx);

        // Which stack each event carries, shuffled, then spread over 10 minutes in order.
        List<Stack> brokerOrder =
        [
            .. stacks.Where(x => x.Event == broker.Name).SelectMany(x => Enumerable.Repeat(x, x.Count)),
        ];
        List<Stack> monitorOrder =
        [
            .. stacks.Where(x => x.Event == monitor.Name).SelectMany(x => Enumerable.Repeat(x, x.Count)),
        ];
        Shuffle(rng, brokerOrder);
        Shuffle(rng, monitorOrder);
        string[] brokers = ["MEMORYBROKER_FOR_CACHE", "MEMORYBROKER_FOR_STEAL", "MEMORYBROKER_FOR_RESERVE"];
        string[] notifications = ["STABLE", "GROW", "SHRINK"];
        var events = new List<PendingEvent>();
        uint id = 0;
        long t = 410_000 + rng.Next(0, 50_000);
        foreach (Stack st in brokerOrder)
        {
            t += rng.Next(2_000 * Ms, 12_000 * Ms);
            long target = rng.Next(300, 1_500);
            long allocated = rng.Next(200, 1_500);
            events.Add(
                Event(
                    broker,
                    t,
                    [
                        XeValue.Create(broker.Fields[0], (ulong)id++),
                        XeValue.Create(broker.Fields[1], (ulong)(t / Ms)),
                        XeValue.Create(broker.Fields[2], (ulong)rng.Next(50, 120)),
                        XeValue.Create(broker.Fields[3], rng.Next(30, 100)),
                        XeValue.Create(broker.Fields[4], target),
                        XeValue.Create(broker.Fields[5], rng.Next(10_000, 12_000)),
                        XeValue.Create(broker.Fields[6], rng.Next(-5_000, 5_000)),
                        XeValue.Create(broker.Fields[7], allocated),
                        XeValue.Create(broker.Fields[8], allocated),
                        XeValue.Create(broker.Fields[9], allocated + rng.Next(-400, 400)),
                        XeValue.Create(broker.Fields[10], brokers[rng.NextIndex(brokers.Length)]),
                        XeValue.Create(broker.Fields[11], notifications[rng.NextIndex(notifications.Length)]),
                        XeValue.Create(broker.Fields[12], Modules.AddressesOf(st.Frames)),
                    ],
                    st
                )
            );
        }

        long end = t;
        t = 600_000 + rng.Next(0, 50_000);
        long step = end / (monitorOrder.Count + 1);
        foreach (Stack st in monitorOrder)
        {
            t += step;
            events.Add(
                Event(
                    monitor,
                    t,
                    [
                        XeValue.Create(monitor.Fields[0], (ulong)id++),
                        XeValue.Create(monitor.Fields[1], (ulong)(t / Ms)),
                        XeValue.Create(monitor.Fields[2], (ulong)rng.Next(0, 40)),
                        XeValue.Create(monitor.Fields[3], (ulong)rng.Next(50, 99)),
                        XeValue.Create(monitor.Fields[4], (ulong)rng.Next(10_000_000, 20_000_000)),
                        XeValue.Create(monitor.Fields[5], (ulong)rng.Next(2_000_000, 8_000_000)),
                        XeValue.Create(monitor.Fields[6], (ulong)rng.Next(30_000, 50_000)),
                        XeValue.Create(monitor.Fields[7], (ulong)rng.Next(0, 20_000_000)),
                        XeValue.Create(monitor.Fields[8], (ulong)rng.Next(20, 60)),
                        XeValue.Create(monitor.Fields[9], Modules.AddressesOf(st.Frames)),
                    ],
                    st
                )
            );
        }

        PendingEvent Event(XeEventType type, long tick, XeValue[] fields, Stack st) =>
            new()
            {
                Tick = tick,
                Slot = 0,
                TieBreak = (long)(rng.NextUInt64() >> 1),
                Type = type,
                Fields = fields,
                Actions = [],
                SequenceColumn = null,
                Tag = st,
            };

        List<PendingEvent> ordered = PendingEvent.Order(events);
        string file = Output.RolloverName(SetName, SessionStart);
        Output.WriteXel(Path.Combine(outDir, SetName, file), s.Schema, SessionStart, Signature, ordered);
        Output.WriteText(Path.Combine(outDir, SetName, SetName + ".modules.txt"), Modules.ToText());
        Output.WriteText(Path.Combine(outDir, "expected", SetName + ".stacks.tsv"), ExpectedStacks(stacks));

        var fig = new Figures("health");
        fig.Add("file", SetName + "/" + file, "the capture");
        fig.Add("modules_file", SetName + "/" + SetName + ".modules.txt", "the sys.dm_os_loaded_modules sidecar");
        fig.Add("first_event", Output.Iso(SessionStart.AddTicks(ordered[0].Tick)), "first event");
        fig.Add("last_event", Output.Iso(SessionStart.AddTicks(ordered[^1].Tick)), "last event");
        fig.Add("events", ordered.Count, "events in the file");
        fig.Add("count." + broker.Name, brokerOrder.Count, broker.Name + " events");
        fig.Add("count." + monitor.Name, monitorOrder.Count, monitor.Name + " events");
        fig.Add("distinct_stacks", stacks.Count, "distinct call_stack values");
        foreach (Stack st in stacks)
        {
            fig.Add("count." + st.Id, st.Count, "events with stack " + st.Id + " (" + st.Event + ")");
        }

        fig.Add(
            "unresolved_frames",
            stacks.Sum(x => x.Frames.Count(fr => fr.Function is null)),
            "frames in KERNEL32/ntdll (no PDB in symbols-cache), over the distinct stacks"
        );
        var table = new StringBuilder(
            "| stack | event | events | frames | leaf | what it stands for |\n|---|---|---|---|---|---|\n"
        );
        foreach (Stack st in stacks.OrderByDescending(x => x.Count))
        {
            table
                .Append("| ")
                .Append(st.Id)
                .Append(" | ")
                .Append(st.Event)
                .Append(" | ")
                .Append(Output.N(st.Count))
                .Append(" | ")
                .Append(Output.N(st.Frames.Count))
                .Append(" | `")
                .Append(st.Frames[0].SymbolizedText)
                .Append("` | ")
                .Append(st.Description)
                .Append(" |\n");
        }

        fig.Blocks.Add("stacks_table", table.ToString().TrimEnd('\n'));
        return fig;
    }

    private static void Shuffle<T>(Rng rng, List<T> list)
    {
        for (int i = list.Count - 1; i > 0; i--)
        {
            int j = rng.NextIndex(i + 1);
            (list[i], list[j]) = (list[j], list[i]);
        }
    }

    /// <summary>One row per frame of each stack, largest first.</summary>
    private static string ExpectedStacks(IReadOnlyList<Stack> stacks)
    {
        var sb = new StringBuilder("stack\tevent\tcount\tframe\tmodule\tfunction\toffset\trva\taddress\tsymbolized\n");
        foreach (Stack st in stacks.OrderByDescending(x => x.Count))
        {
            for (int i = 0; i < st.Frames.Count; i++)
            {
                Frame fr = st.Frames[i];
                sb.Append(st.Id)
                    .Append('\t')
                    .Append(st.Event)
                    .Append('\t')
                    .Append(Output.N(st.Count))
                    .Append('\t')
                    .Append(Output.N(i))
                    .Append('\t')
                    .Append(fr.ModuleFile)
                    .Append('\t')
                    .Append(fr.Function ?? "-")
                    .Append('\t')
                    .Append(fr.Offset)
                    .Append('\t')
                    .Append("0x" + fr.Rva.ToString("x", CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(Output.Hex16(Modules.AddressOf(fr)))
                    .Append('\t')
                    .Append(fr.SymbolizedText)
                    .Append('\n');
            }
        }

        return sb.ToString();
    }
}

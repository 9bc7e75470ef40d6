using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// Synthetic captures for the stack-bucket tests: events with a <c>package0.callstack</c> action whose raw addresses
/// are the seed stacks' frame RVAs (tools/fixtures/expected/stacks.tsv, checked with llvm-objdump when the fixture DLLs
/// were built) plus module bases chosen here, so the committed symbols-cache resolves them. The expected frame text
/// comes from the same TSV (module, function and published offset), never from XeAnalyzer's resolver.
/// </summary>
internal sealed class StackCaptures
{
    public static readonly DateTime T0 = new(2024, 5, 14, 9, 0, 0, DateTimeKind.Utc);

    /// <summary>One process lifetime: module bases of the four fixture modules (and an ntdll entry).</summary>
    public static readonly IReadOnlyDictionary<string, ulong> BasesA = new Dictionary<string, ulong>(
        StringComparer.Ordinal
    )
    {
        ["sqlmin"] = 0x00007FFDE8B70000,
        ["sqllang"] = 0x00007FFDEB5C0000,
        ["sqlTsEs"] = 0x00007FFDF0A10000,
        ["sqldk"] = 0x00007FFDF1A20000,
        ["ntdll"] = 0x00007FFE1E8B0000,
    };

    /// <summary>Another process lifetime: every module elsewhere.</summary>
    public static readonly IReadOnlyDictionary<string, ulong> BasesB = new Dictionary<string, ulong>(
        StringComparer.Ordinal
    )
    {
        ["sqlmin"] = 0x00007FF6A0000000,
        ["sqllang"] = 0x00007FF6A4000000,
        ["sqlTsEs"] = 0x00007FF6A8000000,
        ["sqldk"] = 0x00007FF6AC000000,
        ["ntdll"] = 0x00007FF8B0000000,
    };

    public StackCaptures()
    {
        var builder = new XeSchemaBuilder();
        XePackage p0 = builder.Package0;
        Sqlos = builder.AddPackage("sqlos", 1);
        Sqlserver = builder.AddPackage("sqlserver", 3);
        LatchClass = builder.AddMap(Sqlserver, "latch_class", [new(17, "NESTING_TRANSACTION_FULL")]);
        WaitTypes = builder.AddMap(
            Sqlos,
            "wait_types",
            [new(120, "PREEMPTIVE_HTTP_REQUEST"), new(66, "PAGEIOLATCH_SH")]
        );
        Opcode = builder.AddMap(Sqlos, "event_opcode", [new(0, "Begin"), new(1, "End")]);
        LatchAcquired = builder.AddEvent(
            Sqlserver,
            "latch_acquired",
            new Guid("22222222-0000-4000-8000-000000000001"),
            [XeFieldDefinition.Of("class", LatchClass), XeFieldDefinition.Of("address", XeBaseType.Pointer)]
        );
        WaitInfo = builder.AddEvent(
            Sqlos,
            "wait_info",
            new Guid("992caa1d-ef90-4278-9821-ebdd0180db0c"),
            [
                XeFieldDefinition.Of("wait_type", WaitTypes),
                XeFieldDefinition.Of("opcode", Opcode),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                XeFieldDefinition.Of("signal_duration", XeBaseType.UInt64),
            ]
        );
        WaitInfoExternal = builder.AddEvent(
            Sqlos,
            "wait_info_external",
            new Guid("22222222-0000-4000-8000-000000000003"),
            [
                XeFieldDefinition.Of("wait_type", WaitTypes),
                XeFieldDefinition.Of("opcode", Opcode),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ]
        );
        HealthEvent = builder.AddEvent(
            Sqlserver,
            "health_report",
            new Guid("22222222-0000-4000-8000-000000000004"),
            [
                XeFieldDefinition.Of("call_stack", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("severity", XeBaseType.Int32),
            ]
        );
        Callstack = builder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0);
        Sequence = builder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        Session = builder.AddAction(Sqlserver, "session_id", XeBaseType.UInt16);
        Schema = builder.Build();
    }

    public XeSchema Schema { get; }

    public XePackage Sqlos { get; }

    public XePackage Sqlserver { get; }

    public XeMap LatchClass { get; }

    public XeMap WaitTypes { get; }

    public XeMap Opcode { get; }

    public XeEventType LatchAcquired { get; }

    public XeEventType WaitInfo { get; }

    public XeEventType WaitInfoExternal { get; }

    public XeEventType HealthEvent { get; }

    public XeColumn Callstack { get; }

    public XeColumn Sequence { get; }

    public XeColumn Session { get; }

    /// <summary>A fixture frame of stacks.tsv.</summary>
    public sealed record Frame(string Module, string Function, ulong FunctionRva, ulong Offset)
    {
        public ulong Rva => FunctionRva + Offset;

        /// <summary>The frame as SQL Server writes it symbolized (engine style).</summary>
        public string Engine =>
            Module + ".dll!" + Function + "+0x" + Offset.ToString("x", CultureInfo.InvariantCulture);

        /// <summary>The frame without displacement.</summary>
        public string EngineNoOffset => Module + ".dll!" + Function;

        /// <summary>The module+offset form of an unsymbolized capture.</summary>
        public string ModuleOffset => Module + ".dll+0x" + Rva.ToString("X16", CultureInfo.InvariantCulture);

        public Frame WithOffset(ulong offset) => this with { Offset = offset };
    }

    /// <summary>A seed stack of stacks.tsv, leaf first.</summary>
    public static IReadOnlyList<Frame> Seed(string id) =>
        [
            .. ResolutionFixtures
                .SeedFrames(id)
                .Select(r => new Frame(r["module"], r["function"], Hex(r["function_rva"]), Hex(r["offset"]))),
        ];

    public static ulong Hex(string s) =>
        ulong.Parse(s.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);

    /// <summary>The raw return addresses of a stack in a process with these bases.</summary>
    public static ulong[] Addresses(IReadOnlyList<Frame> stack, IReadOnlyDictionary<string, ulong> bases) =>
        [.. stack.Select(f => bases[f.Module] + f.Rva)];

    /// <summary>The sys.dm_os_loaded_modules text of a process with these bases.</summary>
    public static string ModuleList(IReadOnlyDictionary<string, ulong> bases) =>
        "name\tbase_address\n"
        + string.Concat(
            bases
                .OrderBy(b => b.Value)
                .Select(b =>
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"C:\\Program Files\\Microsoft SQL "
                            + $"Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\{b.Key}.dll\t0x{b.Value:X16}\n"
                    )
                )
        );

    public static ModuleMap Map(IReadOnlyDictionary<string, ulong> bases) =>
        ModuleMap.Parse(new StringReader(ModuleList(bases)));

    public static DateTime At(int ms) => T0.AddMilliseconds(ms);

    public XEvent Latch(DateTime t, ulong[]? stack, ulong seq = 0)
    {
        XeValue[] fields =
        [
            XeValue.Create(LatchAcquired.Fields[0], 17UL),
            XeValue.Create(LatchAcquired.Fields[1], 0x1D96C3F2A58UL),
        ];
        return XEvent.Create(LatchAcquired, t, fields, Actions(stack, seq));
    }

    public XEvent Wait(DateTime t, ulong[]? stack, string opcode, ulong duration, ulong signal, ulong seq = 0)
    {
        XeValue[] fields =
        [
            XeValue.Create(WaitInfo.Fields[0], 66UL),
            XeValue.Create(WaitInfo.Fields[1], opcode == "End" ? 1UL : 0UL),
            XeValue.Create(WaitInfo.Fields[2], duration),
            XeValue.Create(WaitInfo.Fields[3], signal),
        ];
        return XEvent.Create(WaitInfo, t, fields, Actions(stack, seq));
    }

    public XEvent External(DateTime t, ulong[]? stack, ulong duration, ulong seq = 0)
    {
        XeValue[] fields =
        [
            XeValue.Create(WaitInfoExternal.Fields[0], 120UL),
            XeValue.Create(WaitInfoExternal.Fields[1], 1UL),
            XeValue.Create(WaitInfoExternal.Fields[2], duration),
        ];
        return XEvent.Create(WaitInfoExternal, t, fields, Actions(stack, seq));
    }

    public XEvent Health(DateTime t, string callStackText, int severity) =>
        XEvent.Create(
            HealthEvent,
            t,
            [
                XeValue.Create(HealthEvent.Fields[0], callStackText),
                XeValue.Create(HealthEvent.Fields[1], (long)severity),
            ]
        );

    /// <summary>Writes events to a .xel file in the given order.</summary>
    public void WriteXel(string path, IEnumerable<XEvent> events)
    {
        using XelWriter w = XelWriter.Create(
            path,
            Schema,
            new XelWriterOptions
            {
                StartTimeUtc = T0.AddMinutes(-1),
                BufferSize = 16384,
                Partitions = 1,
            }
        );
        foreach (XEvent e in events)
        {
            w.Write(e);
        }
    }

    private XeValue[] Actions(ulong[]? stack, ulong seq)
    {
        var list = new List<XeValue>();
        if (stack is not null)
        {
            list.Add(XeValue.Create(Callstack, stack));
        }

        if (seq > 0)
        {
            list.Add(XeValue.Create(Sequence, seq));
        }

        return [.. list];
    }
}

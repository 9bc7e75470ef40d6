using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// A synthetic capture schema for the analysis tests: latch, page and wait events shaped as XE-TEXT-SHAPES.md §12
/// describes them, with map keys that are deliberately not the ones of any real build, and the actions the analyses
/// use. Events are built with <see cref="XEvent.Create"/> (or written with <see cref="XelWriter"/> in a chosen file
/// order).
/// </summary>
internal sealed class AnalysisCaptures
{
    public static readonly DateTime T0 = new(2024, 5, 14, 9, 0, 0, DateTimeKind.Utc);

    public AnalysisCaptures(string pagesField = "number_pages", bool releaseDuration = true)
    {
        var builder = new XeSchemaBuilder();
        XePackage p0 = builder.Package0;
        Sqlos = builder.AddPackage("sqlos", 1);
        Sqlserver = builder.AddPackage("sqlserver", 3);
        LatchClass = builder.AddMap(
            Sqlserver,
            "latch_class",
            [new(3, "BUFFER"), new(17, "NESTING_TRANSACTION_FULL"), new(88, "ACCESS_METHODS_DATASET_PARENT")]
        );
        LatchMode = builder.AddMap(
            Sqlserver,
            "latch_mode",
            [new(0, "NL"), new(1, "KP"), new(2, "SH"), new(3, "UP"), new(4, "EX"), new(5, "DT")]
        );
        WaitTypes = builder.AddMap(
            Sqlos,
            "wait_types",
            [
                new(36, "LATCH_EX"),
                new(66, "PAGEIOLATCH_SH"),
                new(120, "PREEMPTIVE_HTTP_REQUEST"),
                new(191, "CXPACKET"),
                new(124, "SOS_SCHEDULER_YIELD"),
                new(181, "WRITELOG"),
                new(99, "ASYNC_NETWORK_IO"),
            ]
        );
        Opcode = builder.AddMap(Sqlos, "event_opcode", [new(0, "Begin"), new(1, "End")]);
        LatchAcquired = builder.AddEvent(
            Sqlserver,
            "latch_acquired",
            new Guid("11111111-0000-4000-8000-000000000001"),
            [
                XeFieldDefinition.Of("class", LatchClass),
                XeFieldDefinition.Of("mode", LatchMode),
                XeFieldDefinition.Of("address", XeBaseType.Pointer),
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
            ]
        );
        LatchReleased = builder.AddEvent(
            Sqlserver,
            "latch_released",
            new Guid("11111111-0000-4000-8000-000000000002"),
            releaseDuration
                ?
                [
                    XeFieldDefinition.Of("class", LatchClass),
                    XeFieldDefinition.Of("mode", LatchMode),
                    XeFieldDefinition.Of("address", XeBaseType.Pointer),
                    XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                ]
                :
                [
                    XeFieldDefinition.Of("class", LatchClass),
                    XeFieldDefinition.Of("mode", LatchMode),
                    XeFieldDefinition.Of("address", XeBaseType.Pointer),
                ]
        );
        PageAllocated = builder.AddEvent(
            Sqlos,
            "page_allocated",
            new Guid("11111111-0000-4000-8000-000000000003"),
            [
                XeFieldDefinition.Of(pagesField, XeBaseType.UInt64),
                XeFieldDefinition.Of("memory_clerk_name", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("page_location", XeBaseType.Pointer),
            ]
        );
        PageFreed = builder.AddEvent(
            Sqlos,
            "page_freed",
            new Guid("11111111-0000-4000-8000-000000000004"),
            [
                XeFieldDefinition.Of(pagesField, XeBaseType.UInt64),
                XeFieldDefinition.Of("memory_clerk_name", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("page_location", XeBaseType.Pointer),
            ]
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
                XeFieldDefinition.Of("wait_resource", XeBaseType.Pointer),
            ]
        );
        WaitInfoExternal = builder.AddEvent(
            Sqlos,
            "wait_info_external",
            new Guid("11111111-0000-4000-8000-000000000005"),
            [
                XeFieldDefinition.Of("wait_type", WaitTypes),
                XeFieldDefinition.Of("opcode", Opcode),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ]
        );
        WaitCompleted = builder.AddEvent(
            Sqlos,
            "wait_completed",
            new Guid("992caa1d-ef90-4278-9821-ebdd0180db0d"),
            [
                XeFieldDefinition.Of("wait_type", WaitTypes),
                XeFieldDefinition.Of("wait_result", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                XeFieldDefinition.Of("signal_duration", XeBaseType.UInt64),
            ]
        );
        Other = builder.AddEvent(
            Sqlserver,
            "sql_batch_completed",
            new Guid("11111111-0000-4000-8000-000000000006"),
            [XeFieldDefinition.Of("batch_text", XeBaseType.UnicodeString)]
        );
        Scheduler = builder.AddAction(Sqlos, "scheduler_id", XeBaseType.UInt32);
        Worker = builder.AddAction(Sqlos, "worker_address", XeBaseType.Pointer);
        Thread = builder.AddAction(Sqlos, "system_thread_id", XeBaseType.UInt32);
        Session = builder.AddAction(Sqlserver, "session_id", XeBaseType.UInt16);
        Sequence = builder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        Schema = builder.Build();
    }

    public XeSchema Schema { get; }

    public XePackage Sqlos { get; }

    public XePackage Sqlserver { get; }

    public XeMap LatchClass { get; }

    public XeMap LatchMode { get; }

    public XeMap WaitTypes { get; }

    public XeMap Opcode { get; }

    public XeEventType LatchAcquired { get; }

    public XeEventType LatchReleased { get; }

    public XeEventType PageAllocated { get; }

    public XeEventType PageFreed { get; }

    public XeEventType WaitInfo { get; }

    public XeEventType WaitInfoExternal { get; }

    public XeEventType WaitCompleted { get; }

    public XeEventType Other { get; }

    public XeColumn Scheduler { get; }

    public XeColumn Worker { get; }

    public XeColumn Thread { get; }

    public XeColumn Session { get; }

    public XeColumn Sequence { get; }

    /// <summary>A time <paramref name="microseconds"/> after <see cref="T0"/>.</summary>
    public static DateTime At(double microseconds) => T0.AddTicks((long)Math.Round(microseconds * 10));

    /// <summary>Builds an event: field values in field order (map fields by text), actions as (column, value)
    /// pairs.</summary>
    public static XEvent Event(
        XeEventType type,
        DateTime time,
        object[] fields,
        params (XeColumn Column, object Value)[] actions
    )
    {
        Assert.That(fields, Has.Length.EqualTo(type.Fields.Count), "test bug: field count of " + type.FullName);
        XeValue[] values = [.. fields.Select((v, i) => Value(type.Fields[i], v))];
        XeValue[] acts = [.. actions.Select(a => Value(a.Column, a.Value))];
        return XEvent.Create(type, time, values, acts);
    }

    public static XeValue Value(XeColumn c, object v) =>
        v switch
        {
            string s when c.Map is XeMap m => XeValue.Create(c, (ulong)m.Entries.Single(e => e.Name == s).Key),
            string s => XeValue.Create(c, s),
            int i => XeValue.Create(c, checked((ulong)i)),
            long l => XeValue.Create(c, checked((ulong)l)),
            ulong u => XeValue.Create(c, u),
            _ => throw new ArgumentException("test bug: unsupported value " + v),
        };

    public XEvent Acquire(
        DateTime t,
        string cls,
        ulong address,
        int? scheduler = null,
        ulong? worker = null,
        ulong? seq = null,
        string mode = "EX",
        int? session = null,
        uint? thread = null
    ) => Event(LatchAcquired, t, [cls, mode, address, 2], Actions(scheduler, worker, seq, session, thread));

    public XEvent Release(
        DateTime t,
        string cls,
        ulong address,
        ulong? worker = null,
        ulong? seq = null,
        ulong? duration = null,
        uint? thread = null
    )
    {
        object[] fields =
            LatchReleased.Fields.Count == 4 ? [cls, "EX", address, duration ?? 0UL] : [cls, "EX", address];
        return Event(LatchReleased, t, fields, Actions(null, worker, seq, null, thread));
    }

    public XEvent Alloc(
        DateTime t,
        long pages,
        int? session = null,
        ulong? seq = null,
        string clerk = "MEMORYCLERK_SQLQERESERVATIONS"
    ) => Event(PageAllocated, t, [pages, clerk, 0x1000UL], Actions(null, null, seq, session, null));

    public XEvent Free(
        DateTime t,
        long pages,
        int? session = null,
        ulong? seq = null,
        string clerk = "MEMORYCLERK_SQLQERESERVATIONS"
    ) => Event(PageFreed, t, [pages, clerk, 0x1000UL], Actions(null, null, seq, session, null));

    public XEvent Wait(
        DateTime t,
        string waitType,
        string opcode,
        long duration,
        ulong? worker = null,
        int? scheduler = null,
        ulong? seq = null,
        long signal = 0,
        bool external = false
    )
    {
        if (external)
        {
            return Event(
                WaitInfoExternal,
                t,
                [waitType, opcode, duration],
                Actions(scheduler, worker, seq, null, null)
            );
        }

        return Event(
            WaitInfo,
            t,
            [waitType, opcode, duration, signal, 0UL],
            Actions(scheduler, worker, seq, null, null)
        );
    }

    public XEvent Completed(
        DateTime t,
        string waitType,
        long duration,
        ulong? worker = null,
        int? scheduler = null,
        ulong? seq = null,
        long signal = 0
    ) => Event(WaitCompleted, t, [waitType, 0, duration, signal], Actions(scheduler, worker, seq, null, null));

    public XEvent Batch(DateTime t) => Event(Other, t, ["select 1"]);

    /// <summary>Writes events to a .xel file in the given order (one buffer slot, so file order = this
    /// order).</summary>
    public void WriteXel(string path, IEnumerable<XEvent> events)
    {
        using XelWriter w = XelWriter.Create(
            path,
            Schema,
            new XelWriterOptions
            {
                StartTimeUtc = T0.AddMinutes(-1),
                BufferSize = 8192,
                Partitions = 1,
            }
        );
        foreach (XEvent e in events)
        {
            w.Write(e);
        }
    }

    private (XeColumn, object)[] Actions(int? scheduler, ulong? worker, ulong? seq, int? session, uint? thread)
    {
        var list = new List<(XeColumn, object)>();
        if (scheduler is int s)
        {
            list.Add((Scheduler, s));
        }

        if (worker is ulong w)
        {
            list.Add((Worker, w));
        }

        if (thread is uint th)
        {
            list.Add((Thread, (ulong)th));
        }

        if (session is int ss)
        {
            list.Add((Session, ss));
        }

        if (seq is ulong q)
        {
            list.Add((Sequence, q));
        }

        return [.. list];
    }
}

/// <summary>A temporary folder deleted on dispose.</summary>
internal sealed class TempFolder : IDisposable
{
    public TempFolder()
    {
        Path = System.IO.Path.Combine(
            System.IO.Path.GetTempPath(),
            "xeanalyzer-analysis-" + Guid.NewGuid().ToString("N")
        );
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException) { }
    }
}

using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Builds the metadata of a sample: packages <c>package0</c> (0), <c>sqlos</c> (1) and <c>sqlserver</c> (3) as in SQL
/// Server captures, and the actions, maps and events a sample uses. Object indices and GUIDs that are not known from a
/// real capture are invented (the README says which).
/// </summary>
internal sealed class Schemas
{
    // Real: the UUID of sqlos.wait_info_external, from the metadata of a public SQL Server 2012 capture (microsoft/Tx
    // Traces/sqlhealth.xel), where it is event 46 of sqlos; SQL Server 2017 RTM has the same UUID (version 2).
    public static readonly Guid WaitInfoExternalUuid = new("749f148a-3bab-4ede-91b1-fcf69523f372");

    // Real: the UUID of sqlos.wait_info on SQL Server 2017 RTM (version 3, the version with wait_resource),
    // XE-TEXT-SHAPES §12.
    public static readonly Guid WaitInfoUuid = new("2306bd6b-4db7-4c11-b9a4-e07ef19c1451");

    // Partly real: the published UUID of sqlos.wait_completed ends in -ebdd0180db0d (XE-TEXT-SHAPES §12); its first
    // groups are not published and are taken from the 2012 wait_info UUID (992caa1d-ef90-4278-9821-ebdd0180db0c):
    // unverified.
    public static readonly Guid WaitCompletedUuid = new("992caa1d-ef90-4278-9821-ebdd0180db0d");

    // Real: the UUIDs of two system_health ring-buffer events of the public SQL Server 2012 sqlhealth.xel (their object
    // indices are not known and are invented here).
    public static readonly Guid MemoryBrokerRingBufferRecordedUuid = new("faa6dd00-3d81-4c94-bef6-8141d021166b");
    public static readonly Guid SchedulerMonitorSystemHealthUuid = new("5a280226-c02b-4522-baf7-4976eb7b09ae");

    // Invented UUIDs (not known from a real capture).
    public static readonly Guid LatchAcquiredUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e01");
    public static readonly Guid LatchReleasedUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e02");
    public static readonly Guid FileReadUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e03");
    public static readonly Guid FileReadCompletedUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e04");
    public static readonly Guid PageAllocatedUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e05");
    public static readonly Guid PageFreedUuid = new("5f0c2d6e-3b71-4c8a-9e12-7a4b6c1d0e06");

    /// <summary>Latch classes (keys invented except BUFFER = 28, seen in a public demo; keys differ between
    /// builds).</summary>
    public static readonly XeMapEntry[] LatchClasses =
    [
        new(28, "BUFFER"),
        new(31, "ACCESS_METHODS_DATASET_PARENT"),
        new(32, "ACCESS_METHODS_HOBT_FACTORY"),
        new(48, "NESTING_TRANSACTION_READONLY"),
        new(49, "NESTING_TRANSACTION_FULL"),
        new(57, "LOG_MANAGER"),
        new(77, "FGCB_ADD_REMOVE"),
    ];

    /// <summary>Latch modes (keys as documented: 0 NL, 1 KP, 2 SH, 3 UP, 4 EX, 5 DT).</summary>
    public static readonly XeMapEntry[] LatchModes =
    [
        new(0, "NL"),
        new(1, "KP"),
        new(2, "SH"),
        new(3, "UP"),
        new(4, "EX"),
        new(5, "DT"),
    ];

    /// <summary>
    /// Wait types: keys of LATCH_*, PAGELATCH_*, PAGEIOLATCH_*, SOS_SCHEDULER_YIELD, WRITELOG and CXPACKET are those of
    /// a SQL Server 2012 build (public sqlhealth.xel metadata); PREEMPTIVE_HTTP_REQUEST is not in that build and its
    /// key here is invented. Keys differ between builds.
    /// </summary>
    public static readonly XeMapEntry[] WaitTypes =
    [
        new(32, "LATCH_NL"),
        new(33, "LATCH_KP"),
        new(34, "LATCH_SH"),
        new(35, "LATCH_UP"),
        new(36, "LATCH_EX"),
        new(37, "LATCH_DT"),
        new(48, "PAGELATCH_NL"),
        new(49, "PAGELATCH_KP"),
        new(50, "PAGELATCH_SH"),
        new(51, "PAGELATCH_UP"),
        new(52, "PAGELATCH_EX"),
        new(53, "PAGELATCH_DT"),
        new(64, "PAGEIOLATCH_NL"),
        new(65, "PAGEIOLATCH_KP"),
        new(66, "PAGEIOLATCH_SH"),
        new(67, "PAGEIOLATCH_UP"),
        new(68, "PAGEIOLATCH_EX"),
        new(69, "PAGEIOLATCH_DT"),
        new(124, "SOS_SCHEDULER_YIELD"),
        new(182, "WRITELOG"),
        new(191, "CXPACKET"),
        new(1086, "PREEMPTIVE_HTTP_REQUEST"),
    ];

    public const uint LatchClassBuffer = 28;
    public const uint LatchClassDatasetParent = 31;
    public const uint LatchClassNestingFull = 49;
    public const uint ModeSh = 2;
    public const uint ModeEx = 4;
    public const uint WaitLatchEx = 36;
    public const uint WaitPageIoLatchSh = 66;
    public const uint WaitCxPacket = 191;
    public const uint WaitPreemptiveHttpRequest = 1086;
    public const uint WaitPageLatchEx = 52;
    public const uint WaitSosSchedulerYield = 124;
    public const uint WaitWriteLog = 182;
    public const uint OpcodeBegin = 0;
    public const uint OpcodeEnd = 1;

    public Schemas()
    {
        Builder = new XeSchemaBuilder();
        Package0 = Builder.Package0;
        Sqlos = Builder.AddPackage("sqlos", 1, description: "Extended events for SQL Operating System");
        Sqlserver = Builder.AddPackage("sqlserver", 3, description: "Extended events for Microsoft SQL Server");
    }

    public XeSchemaBuilder Builder { get; }

    /// <summary>The finished schema (no event types or actions can be added afterwards).</summary>
    public XeSchema Schema => Builder.Build();

    public XePackage Package0 { get; }

    public XePackage Sqlos { get; }

    public XePackage Sqlserver { get; }

    // ------------------------------------------------------------------ actions (created on first use, fixed indices)

    public XeColumn Callstack =>
        _callstack ??= Builder.AddAction(
            Package0,
            "callstack",
            XeBaseType.Callstack,
            objectIndex: 0,
            description: "Collect the current call stack"
        );

    public XeColumn EventSequence =>
        _eventSequence ??= Builder.AddAction(
            Package0,
            "event_sequence",
            XeBaseType.UInt64,
            objectIndex: 9,
            description: "Collect event sequence number"
        );

    public XeColumn SchedulerId =>
        _schedulerId ??= Builder.AddAction(
            Sqlos,
            "scheduler_id",
            XeBaseType.UInt32,
            objectIndex: 6,
            description: "Collect current scheduler ID"
        );

    public XeColumn WorkerAddress =>
        _workerAddress ??= Builder.AddAction(
            Sqlos,
            "worker_address",
            XeBaseType.Pointer,
            objectIndex: 8,
            description: "Collect current worker address"
        );

    public XeColumn SystemThreadId =>
        _systemThreadId ??= Builder.AddAction(
            Sqlos,
            "system_thread_id",
            XeBaseType.UInt32,
            objectIndex: 9,
            description: "Collect current system thread ID"
        );

    public XeColumn SessionId =>
        _sessionId ??= Builder.AddAction(
            Sqlserver,
            "session_id",
            XeBaseType.UInt16,
            objectIndex: 2,
            description: "Collect session ID"
        );

    // ------------------------------------------------------------------ maps

    public XeMap LatchClass =>
        _latchClass ??= Builder.AddMap(Sqlserver, "latch_class", LatchClasses, keySize: 4, objectIndex: 20);

    public XeMap LatchMode =>
        _latchMode ??= Builder.AddMap(Sqlserver, "latch_mode", LatchModes, keySize: 4, objectIndex: 21);

    public XeMap WaitTypesMap =>
        _waitTypes ??= Builder.AddMap(Sqlos, "wait_types", WaitTypes, keySize: 8, objectIndex: 16);

    public XeMap EventOpcode =>
        _eventOpcode ??= Builder.AddMap(
            Sqlos,
            "event_opcode",
            [new(0, "Begin"), new(1, "End")],
            keySize: 4,
            objectIndex: 1
        );

    // ------------------------------------------------------------------ events

    /// <summary><c>sqlserver.latch_acquired</c>: class, mode, address, database_id, file_id, page_id.</summary>
    public XeEventType LatchAcquired() =>
        Builder.AddEvent(
            Sqlserver,
            "latch_acquired",
            LatchAcquiredUuid,
            [
                XeFieldDefinition.Of("class", LatchClass),
                XeFieldDefinition.Of("mode", LatchMode),
                XeFieldDefinition.Of("address", XeBaseType.Pointer),
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
            ],
            objectIndex: 140,
            description: "Occurs when a latch is acquired"
        );

    /// <summary><c>sqlserver.latch_released</c>: the latch_acquired fields plus duration (hold time, microseconds;
    /// unverified).</summary>
    public XeEventType LatchReleased() =>
        Builder.AddEvent(
            Sqlserver,
            "latch_released",
            LatchReleasedUuid,
            [
                XeFieldDefinition.Of("class", LatchClass),
                XeFieldDefinition.Of("mode", LatchMode),
                XeFieldDefinition.Of("address", XeBaseType.Pointer),
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ],
            objectIndex: 141,
            description: "Occurs when a latch is released"
        );

    /// <summary><c>sqlserver.file_read</c>: database_id, file_id, offset, size.</summary>
    public XeEventType FileRead() =>
        Builder.AddEvent(
            Sqlserver,
            "file_read",
            FileReadUuid,
            [
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("offset", XeBaseType.UInt64),
                XeFieldDefinition.Of("size", XeBaseType.UInt32),
            ],
            objectIndex: 150,
            description: "Occurs when a read is issued"
        );

    /// <summary><c>sqlserver.file_read_completed</c>: database_id, file_id, offset, size, duration (ms).</summary>
    public XeEventType FileReadCompleted() =>
        Builder.AddEvent(
            Sqlserver,
            "file_read_completed",
            FileReadCompletedUuid,
            [
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("offset", XeBaseType.UInt64),
                XeFieldDefinition.Of("size", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ],
            objectIndex: 151,
            description: "Occurs when a read completes"
        );

    /// <summary>
    /// <c>sqlos.wait_info</c> as SQL Server 2017 RTM defines it: wait_type, opcode, duration, signal_duration,
    /// wait_resource (ptr);
    /// <c>sqlos.wait_info_external</c> as the 2012 and 2017 RTM builds define it: wait_type, opcode, duration only (no
    /// signal_duration, no wait_resource). XE-TEXT-SHAPES §12.
    /// </summary>
    public XeEventType Wait(bool external) =>
        external
            ? Builder.AddEvent(
                Sqlos,
                "wait_info_external",
                WaitInfoExternalUuid,
                [
                    XeFieldDefinition.Of("wait_type", WaitTypesMap),
                    XeFieldDefinition.Of("opcode", EventOpcode),
                    XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                ],
                objectIndex: 46,
                description: "Occurs when a SQL Server thread waits on an external resource"
            )
            : Builder.AddEvent(
                Sqlos,
                "wait_info",
                WaitInfoUuid,
                [
                    XeFieldDefinition.Of("wait_type", WaitTypesMap),
                    XeFieldDefinition.Of("opcode", EventOpcode),
                    XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                    XeFieldDefinition.Of("signal_duration", XeBaseType.UInt64),
                    XeFieldDefinition.Of("wait_resource", XeBaseType.Pointer),
                ],
                objectIndex: 45,
                description: "Occurs when there is a wait on a SQLOS controlled resource"
            );

    /// <summary>
    /// <c>sqlos.wait_completed</c> as a SQL Server 2017 build after RTM defines it: wait_type, wait_result (uint32),
    /// duration, signal_duration, wait_resource (unicode_string); no opcode. XE-TEXT-SHAPES §12 (object index
    /// invented).
    /// </summary>
    public XeEventType WaitCompleted() =>
        Builder.AddEvent(
            Sqlos,
            "wait_completed",
            WaitCompletedUuid,
            [
                XeFieldDefinition.Of("wait_type", WaitTypesMap),
                XeFieldDefinition.Of("wait_result", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
                XeFieldDefinition.Of("signal_duration", XeBaseType.UInt64),
                XeFieldDefinition.Of("wait_resource", XeBaseType.UnicodeString),
            ],
            objectIndex: 47,
            description: "Occurs when a wait completes"
        );

    /// <summary>
    /// <c>sqlos.memory_broker_ring_buffer_recorded</c> with the fields of the public 2012 sqlhealth.xel metadata,
    /// ending in the callstack-typed field <c>call_stack</c> (object index invented).
    /// </summary>
    public XeEventType MemoryBrokerRingBufferRecorded() =>
        Builder.AddEvent(
            Sqlos,
            "memory_broker_ring_buffer_recorded",
            MemoryBrokerRingBufferRecordedUuid,
            [
                XeFieldDefinition.Of("id", XeBaseType.UInt32),
                XeFieldDefinition.Of("timestamp", XeBaseType.UInt64),
                XeFieldDefinition.Of("delta_time", XeBaseType.UInt32),
                XeFieldDefinition.Of("memory_ratio", XeBaseType.Int64),
                XeFieldDefinition.Of("new_target", XeBaseType.Int64),
                XeFieldDefinition.Of("overall", XeBaseType.Int64),
                XeFieldDefinition.Of("rate", XeBaseType.Int64),
                XeFieldDefinition.Of("currently_predicated", XeBaseType.Int64),
                XeFieldDefinition.Of("currently_allocated", XeBaseType.Int64),
                XeFieldDefinition.Of("previously_allocated", XeBaseType.Int64),
                XeFieldDefinition.Of("broker", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("notification", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("call_stack", XeBaseType.Callstack),
            ],
            objectIndex: 70,
            description: "Memory broker ring buffer recorded"
        );

    /// <summary>
    /// <c>sqlos.scheduler_monitor_system_health_ring_buffer_recorded</c> with the fields of the public 2012
    /// sqlhealth.xel metadata, ending in the callstack-typed field <c>call_stack</c> (object index invented).
    /// </summary>
    public XeEventType SchedulerMonitorSystemHealth() =>
        Builder.AddEvent(
            Sqlos,
            "scheduler_monitor_system_health_ring_buffer_recorded",
            SchedulerMonitorSystemHealthUuid,
            [
                XeFieldDefinition.Of("id", XeBaseType.UInt32),
                XeFieldDefinition.Of("timestamp", XeBaseType.UInt64),
                XeFieldDefinition.Of("process_utilization", XeBaseType.UInt32),
                XeFieldDefinition.Of("system_idle", XeBaseType.UInt32),
                XeFieldDefinition.Of("user_mode_time", XeBaseType.UInt64),
                XeFieldDefinition.Of("kernel_mode_time", XeBaseType.UInt64),
                XeFieldDefinition.Of("page_faults", XeBaseType.UInt32),
                XeFieldDefinition.Of("working_set_delta", XeBaseType.UInt64),
                XeFieldDefinition.Of("memory_utilization", XeBaseType.UInt32),
                XeFieldDefinition.Of("call_stack", XeBaseType.Callstack),
            ],
            objectIndex: 71,
            description: "Scheduler monitor system health ring buffer recorded"
        );

    /// <summary><c>sqlos.page_allocated</c> / <c>page_freed</c>: number_pages (name unverified), memory_clerk_name,
    /// page_location.</summary>
    public XeEventType Page(bool freed) =>
        Builder.AddEvent(
            Sqlos,
            freed ? "page_freed" : "page_allocated",
            freed ? PageFreedUuid : PageAllocatedUuid,
            [
                XeFieldDefinition.Of("number_pages", XeBaseType.UInt64),
                XeFieldDefinition.Of("memory_clerk_name", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("page_location", XeBaseType.Pointer),
            ],
            objectIndex: freed ? 61 : 60,
            description: freed ? "Occurs when a page is freed" : "Occurs when a page is allocated"
        );

    private XeColumn? _callstack;
    private XeColumn? _eventSequence;
    private XeColumn? _schedulerId;
    private XeColumn? _workerAddress;
    private XeColumn? _systemThreadId;
    private XeColumn? _sessionId;
    private XeMap? _latchClass;
    private XeMap? _latchMode;
    private XeMap? _waitTypes;
    private XeMap? _eventOpcode;
}

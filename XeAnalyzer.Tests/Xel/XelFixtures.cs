using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>
/// Deterministic generators of the committed <c>.xel</c> fixtures under TestData/xel (written by our
/// <see cref="XelWriter"/>). Regenerate with <c>XEANALYZER_REGEN_FIXTURES=1 dotnet test --filter
/// FullyQualifiedName~XelFixtureTests</c>. The values here are the expected values of the decoding tests: they are
/// inputs, not reader output.
/// </summary>
internal static class XelFixtures
{
    public static readonly DateTime Start = new(2024, 3, 1, 12, 0, 0, DateTimeKind.Utc);
    public static readonly Guid AllTypesUuid = new("0b6f2d1e-8f4a-4c51-9d7e-3a2b1c0d9e8f");
    public static readonly Guid DupUuid = new("1c7a3e2f-9a5b-4d62-8e8f-4b3c2d1e0fa0");
    public static readonly Guid LatchUuid = new("2d8b4f30-ab6c-4e73-9f90-5c4d3e2f1ab1");
    public static readonly ulong[] Stack = [0x00007FFAF2BD6C7C, 0x00007FFAF2BD1000, 0x00007FFA00000010];

    /// <summary>The fixture files and their generators.</summary>
    public static IReadOnlyList<(string Name, Func<byte[]> Generate)> All { get; } =
    [
        ("all-types.xel", AllTypes),
        ("latch.xel", Latch),
        ("rollover/xetest_0_133540704000000000.xel", () => Rollover(0)),
        ("rollover/xetest_0_133540704600000000.xel", () => Rollover(1)),
        ("rollover/xetest_0_133540705200000000.xel", () => Rollover(2)),
    ];

    public static string PathOf(string name) => Path.Combine(TestPaths.TestData, "xel", name);

    /// <summary>The schema of all-types.xel: one field per base type, a plain and a bitmask map, two packages named
    /// xetest.</summary>
    public static XeSchema AllTypesSchema(out XeEventType allTypes, out XeEventType dup, out XeColumn[] actions)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage test = sBuilder.AddPackage("xetest", 3, description: "test package");
        XePackage test2 = sBuilder.AddPackage("xetest", 7, description: "second package with the same name");
        XeMap color = sBuilder.AddMap(test, "color", [new(0, "RED"), new(1, "GREEN"), new(7, "BLUE")], keySize: 4);
        XeMap flags = sBuilder.AddMap(
            test,
            "flags",
            [new(0, "NONE"), new(1, "READ"), new(2, "WRITE"), new(4, "EXEC")],
            isBitmask: true,
            keySize: 2
        );
        XeMap wide = sBuilder.AddMap(test, "wide_keys", [new(1, "ONE"), new(uint.MaxValue, "MAX")], keySize: 8);
        allTypes = sBuilder.AddEvent(
            test,
            "all_types",
            AllTypesUuid,
            [
                XeFieldDefinition.Of("f_int8", XeBaseType.Int8),
                XeFieldDefinition.Of("f_int16", XeBaseType.Int16),
                XeFieldDefinition.Of("f_int32", XeBaseType.Int32),
                XeFieldDefinition.Of("f_int64", XeBaseType.Int64),
                XeFieldDefinition.Of("f_uint8", XeBaseType.UInt8),
                XeFieldDefinition.Of("f_uint16", XeBaseType.UInt16),
                XeFieldDefinition.Of("f_uint32", XeBaseType.UInt32),
                XeFieldDefinition.Of("f_uint64", XeBaseType.UInt64),
                XeFieldDefinition.Of("f_float32", XeBaseType.Float32),
                XeFieldDefinition.Of("f_float64", XeBaseType.Float64),
                XeFieldDefinition.Of("f_cpu_cycle", XeBaseType.CpuCycle),
                XeFieldDefinition.Of("f_filetime", XeBaseType.FileTime),
                XeFieldDefinition.Of("f_ptr", XeBaseType.Pointer),
                XeFieldDefinition.Of("f_guid_ptr", XeBaseType.GuidPointer),
                XeFieldDefinition.Of("f_ansi", XeBaseType.AnsiString),
                XeFieldDefinition.Of("f_unicode", XeBaseType.UnicodeString),
                XeFieldDefinition.Of("f_guid", XeBaseType.Guid),
                XeFieldDefinition.Of("f_binary", XeBaseType.BinaryData),
                XeFieldDefinition.Of("f_callstack", XeBaseType.Callstack),
                XeFieldDefinition.Of("f_activity", XeBaseType.ActivityId),
                XeFieldDefinition.Of("f_activity_xfer", XeBaseType.ActivityIdTransfer),
                XeFieldDefinition.Of("f_bool", XeBaseType.Boolean),
                XeFieldDefinition.Of("f_xml", XeBaseType.Xml),
                XeFieldDefinition.Of("f_color", color),
                XeFieldDefinition.Of("f_flags", flags),
                XeFieldDefinition.Of("f_wide", wide),
                XeFieldDefinition.Of("session_id", XeBaseType.UInt16),
            ]
        );
        dup = sBuilder.AddEvent(test2, "dup_event", DupUuid, [XeFieldDefinition.Of("value", XeBaseType.Int32)]);
        actions =
        [
            sBuilder.AddAction(test, "session_id", XeBaseType.UInt16),
            sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9),
            sBuilder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0),
            sBuilder.AddAction(p0, "attach_activity_id", XeBaseType.ActivityId, objectIndex: 1),
        ];
        XeSchema s = sBuilder.Build();
        return s;
    }

    /// <summary>The field values of the i-th all_types event (the expected values of the tests).</summary>
    public static XeValue[] AllTypesValues(XeEventType t, int i)
    {
        XeColumn[] c = [.. t.Fields];
        int k = 0;
        return
        [
            XeValue.Create(c[k++], (long)(sbyte)(-100 + i)),
            XeValue.Create(c[k++], (long)(-30000 + i)),
            XeValue.Create(c[k++], (long)(int.MinValue + i)),
            XeValue.Create(c[k++], long.MinValue + i),
            XeValue.Create(c[k++], (ulong)(200 + i)),
            XeValue.Create(c[k++], (ulong)(60000 + i)),
            XeValue.Create(c[k++], (ulong)(uint.MaxValue - (uint)i)),
            XeValue.Create(c[k++], ulong.MaxValue - (ulong)i),
            XeValue.Create(c[k++], 1.5 + i),
            XeValue.Create(c[k++], Math.PI * (i + 1)),
            XeValue.Create(c[k++], 123456789UL + (ulong)i),
            XeValue.Create(c[k++], Start.AddSeconds(i)),
            XeValue.Create(c[k++], 0x00007FF612345678UL + (ulong)i),
            XeValue.Create(c[k++], 0x000001A2B3C4D5E6UL),
            XeValue.Create(c[k++], "ansi text " + i.ToString(System.Globalization.CultureInfo.InvariantCulture)),
            XeValue.Create(
                c[k++],
                "unicode \u00e9\u4e2d " + i.ToString(System.Globalization.CultureInfo.InvariantCulture)
            ),
            XeValue.Create(c[k++], new Guid(i, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
            XeValue.CreateRaw(c[k++], [1, 2, 3, (byte)i]),
            XeValue.Create(c[k++], i % 2 == 0 ? Stack : [.. Stack.Take(1)]),
            XeValue.Create(c[k++], new Guid("76269b32-0b06-6047-8698-46a43e0b1603"), (uint)(i + 1)),
            XeValue.Create(c[k++], new Guid("a20f0972-a343-a641-8c1a-44f953293ba7"), 0u),
            XeValue.Create(c[k++], i % 2 == 1),
            XeValue.Create(
                c[k++],
                "<root n=\"" + i.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\"/>"
            ),
            XeValue.Create(c[k++], i % 3 == 0 ? 0UL : (i % 3 == 1 ? 1UL : 7UL)),
            XeValue.Create(c[k++], (ulong)(i % 8)),
            XeValue.Create(c[k++], i % 2 == 0 ? 1UL : uint.MaxValue),
            XeValue.Create(c[k++], (ulong)(50 + i)),
        ];
    }

    public const int AllTypesCount = 12;

    /// <summary>Timestamps deliberately out of order (as per-CPU buffers make them).</summary>
    public static DateTime AllTypesTime(int i) =>
        Start.AddMilliseconds(i % 3 == 2 ? (i * 10) - 25 : i * 10).AddTicks(i);

    private static byte[] AllTypes()
    {
        XeSchema s = AllTypesSchema(out XeEventType t, out XeEventType dup, out XeColumn[] a);
        using var ms = new MemoryStream();
        using (
            var w = new XelWriter(
                ms,
                s,
                new XelWriterOptions
                {
                    StartTimeUtc = Start.AddMinutes(-1),
                    BufferSize = 1024,
                    Partitions = 3,
                    SplitMetadata = true,
                },
                leaveOpen: true
            )
        )
        {
            for (int i = 0; i < AllTypesCount; i++)
            {
                XeValue[] actions =
                [
                    XeValue.Create(a[0], (ulong)(50 + i)),
                    XeValue.Create(a[1], (ulong)(1000 + i)),
                    XeValue.Create(a[2], Stack),
                    XeValue.Create(a[3], new Guid("0badf00d-0000-4000-8000-000000000001"), (uint)i),
                ];
                w.Write(t, AllTypesTime(i), AllTypesValues(t, i), i % 4 == 3 ? actions.AsSpan(0, 2) : actions);
                if (i % 4 == 0)
                {
                    w.Write(dup, AllTypesTime(i).AddTicks(1), [XeValue.Create(dup.Fields[0], (long)-i)]);
                }
            }
        }

        return ms.ToArray();
    }

    /// <summary>A latch_acquired-like schema (the benchmark's and the analyses' shape).</summary>
    public static XeSchema LatchSchema(out XeEventType latch, out XeColumn[] actions)
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage sqlos = sBuilder.AddPackage("sqlos", 1);
        XePackage sqlserver = sBuilder.AddPackage("sqlserver", 3);
        XeMap latchClass = sBuilder.AddMap(
            sqlserver,
            "latch_class",
            [
                new(0, "BUFFER"),
                new(28, "ACCESS_METHODS_HOBT_VIRTUAL_ROOT"),
                new(41, "FGCB_ADD_REMOVE"),
                new(57, "LOG_MANAGER"),
            ]
        );
        XeMap latchMode = sBuilder.AddMap(
            sqlserver,
            "latch_mode",
            [new(0, "NL"), new(1, "KP"), new(2, "SH"), new(3, "UP"), new(4, "EX"), new(5, "DT")]
        );
        latch = sBuilder.AddEvent(
            sqlserver,
            "latch_acquired",
            LatchUuid,
            [
                XeFieldDefinition.Of("class", latchClass),
                XeFieldDefinition.Of("mode", latchMode),
                XeFieldDefinition.Of("address", XeBaseType.Pointer),
                XeFieldDefinition.Of("database_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("file_id", XeBaseType.UInt16),
                XeFieldDefinition.Of("page_id", XeBaseType.UInt32),
                XeFieldDefinition.Of("duration", XeBaseType.UInt64),
            ]
        );
        actions =
        [
            sBuilder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32),
            sBuilder.AddAction(sqlserver, "session_id", XeBaseType.UInt16),
            sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9),
            sBuilder.AddAction(p0, "callstack", XeBaseType.Callstack, objectIndex: 0),
        ];
        XeSchema s = sBuilder.Build();
        return s;
    }

    private static byte[] Latch()
    {
        XeSchema s = LatchSchema(out XeEventType t, out XeColumn[] a);
        using var ms = new MemoryStream();
        using (
            var w = new XelWriter(
                ms,
                s,
                new XelWriterOptions
                {
                    StartTimeUtc = Start,
                    BufferSize = 4096,
                    Partitions = 2,
                },
                leaveOpen: true
            )
        )
        {
            ulong[] classes = [0, 28, 41, 57];
            for (int i = 0; i < 40; i++)
            {
                ulong[] stack =
                [
                    0x00007FFAF2BD0000UL + (ulong)(i % 5),
                    0x00007FFAF2BE0000UL,
                    0x00007FFAF2BF0000UL + (ulong)(i % 2),
                ];
                w.Write(
                    t,
                    Start.AddMilliseconds(i),
                    [
                        XeValue.Create(t.Fields[0], classes[i % 4]),
                        XeValue.Create(t.Fields[1], (ulong)(i % 6)),
                        XeValue.Create(t.Fields[2], 0x000001A2B3C4D000UL + (ulong)(i * 64)),
                        XeValue.Create(t.Fields[3], (ulong)(5 + (i % 3))),
                        XeValue.Create(t.Fields[4], 1UL),
                        XeValue.Create(t.Fields[5], (ulong)(100 + i)),
                        XeValue.Create(t.Fields[6], (ulong)(i * 3)),
                    ],
                    [
                        XeValue.Create(a[0], (ulong)(i % 4)),
                        XeValue.Create(a[1], (ulong)(51 + (i % 7))),
                        XeValue.Create(a[2], (ulong)(i + 1)),
                        XeValue.Create(a[3], stack),
                    ]
                );
            }
        }

        return ms.ToArray();
    }

    private static byte[] Rollover(int part)
    {
        XeSchema s = LatchSchema(out XeEventType t, out XeColumn[] a);
        DateTime start = Start.AddMinutes(part);
        using var ms = new MemoryStream();
        using (var w = new XelWriter(ms, s, new XelWriterOptions { StartTimeUtc = start }, leaveOpen: true))
        {
            for (int i = 0; i < 5; i++)
            {
                w.Write(
                    t,
                    start.AddSeconds(i),
                    [
                        XeValue.Create(t.Fields[0], 28UL),
                        XeValue.Create(t.Fields[1], 4UL),
                        XeValue.Create(t.Fields[2], 0x10UL),
                        XeValue.Create(t.Fields[3], 2UL),
                        XeValue.Create(t.Fields[4], 1UL),
                        XeValue.Create(t.Fields[5], (ulong)i),
                        XeValue.Create(t.Fields[6], 0UL),
                    ],
                    [
                        XeValue.Create(a[0], 0UL),
                        XeValue.Create(a[1], 60UL),
                        XeValue.Create(a[2], (ulong)((part * 5) + i + 1)),
                        XeValue.Create(a[3], Stack),
                    ]
                );
            }
        }

        return ms.ToArray();
    }
}

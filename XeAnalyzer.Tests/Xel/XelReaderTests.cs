using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.IO;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

public sealed class XelReaderTests
{
    private static List<XEvent> ReadAllTypes(XelReadOptions? options = null) =>
        [.. XelReader.ReadEvents(XelFixtures.PathOf("all-types.xel"), options)];

    [Test]
    public void ReadEvents_DecodesEveryBaseType_AsWritten()
    {
        List<XEvent> events =
        [
            .. ReadAllTypes().Where(e => e.Name == "all_types").OrderBy(e => e.GetAction("event_sequence").AsUInt64()),
        ];
        Assert.That(events, Has.Count.EqualTo(XelFixtures.AllTypesCount));
        XelFixtures.AllTypesSchema(out XeEventType t, out _, out _);
        for (int i = 0; i < events.Count; i++)
        {
            XEvent e = events[i];
            XeValue[] expected = XelFixtures.AllTypesValues(t, i);
            Assert.That(e.FieldCount, Is.EqualTo(expected.Length));
            for (int f = 0; f < expected.Length; f++)
            {
                Assert.That(e.GetField(f).ToString(), Is.EqualTo(expected[f].ToString()), e.Fields[f].Name);
                Assert.That(
                    e.GetField(f).AsSpan().ToArray(),
                    Is.EqualTo(expected[f].AsSpan().ToArray()),
                    e.Fields[f].Name
                );
            }

            Assert.That(e.Timestamp, Is.EqualTo(XelFixtures.AllTypesTime(i)));
            Assert.That(e.Timestamp.Kind, Is.EqualTo(DateTimeKind.Utc));
            Assert.That(e.Uuid, Is.EqualTo(XelFixtures.AllTypesUuid));
            Assert.That(e.EventSequence, Is.EqualTo((ulong)(1000 + i)));
            Assert.That(e.ActionCount, Is.EqualTo(i % 4 == 3 ? 2 : 4));
        }
    }

    [Test]
    public void XeValue_RendersLikeXelite_ForEachKind()
    {
        XEvent e = ReadAllTypes().Where(x => x.Name == "all_types").OrderBy(x => x.EventSequence).First();
        Assert.That(e.GetField("f_int8").ToObject(), Is.EqualTo((sbyte)-100));
        Assert.That(e.GetField("f_int16").ToObject(), Is.EqualTo((short)-30000));
        Assert.That(e.GetField("f_int32").ToObject(), Is.EqualTo(int.MinValue));
        Assert.That(e.GetField("f_int64").ToObject(), Is.EqualTo(long.MinValue));
        Assert.That(e.GetField("f_uint8").ToObject(), Is.EqualTo((byte)200));
        Assert.That(e.GetField("f_uint16").ToObject(), Is.EqualTo((ushort)60000));
        Assert.That(e.GetField("f_uint32").ToObject(), Is.EqualTo(uint.MaxValue));
        Assert.That(e.GetField("f_uint64").ToObject(), Is.EqualTo(ulong.MaxValue));
        Assert.That(e.GetField("f_float32").ToObject(), Is.EqualTo(1.5f));
        Assert.That(e.GetField("f_float64").AsDouble(), Is.EqualTo(Math.PI));
        Assert.That(e.GetField("f_filetime").ToObject(), Is.EqualTo(new DateTimeOffset(XelFixtures.Start)));
        Assert.That(e.GetField("f_ptr").ToString(), Is.EqualTo("0x00007FF612345678"));
        Assert.That(e.GetField("f_guid_ptr").ToString(), Is.EqualTo("0x000001A2B3C4D5E6"));
        Assert.That(e.GetField("f_cpu_cycle").ToObject(), Is.EqualTo(123456789UL));
        Assert.That(e.GetField("f_ansi").AsString(), Is.EqualTo("ansi text 0"));
        Assert.That(e.GetField("f_unicode").AsString(), Is.EqualTo("unicode \u00e9\u4e2d 0"));
        Assert.That(e.GetField("f_guid").AsGuid(), Is.EqualTo(new Guid(0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)));
        Assert.That(e.GetField("f_binary").ToString(), Is.EqualTo("01020300"));
        Assert.That(
            e.GetField("f_callstack").ToString(),
            Is.EqualTo("0x00007FFAF2BD6C7C\n0x00007FFAF2BD1000\n0x00007FFA00000010")
        );
        Assert.That(e.GetField("f_callstack").AsCallstack(), Is.EqualTo(XelFixtures.Stack));
        Assert.That(e.GetField("f_activity").ToString(), Is.EqualTo("76269b32-0b06-6047-8698-46a43e0b1603:1"));
        Assert.That(e.GetField("f_bool").ToObject(), Is.EqualTo(false));
        Assert.That(e.GetField("f_xml").AsString(), Is.EqualTo("<root n=\"0\"/>"));
        Assert.That(e.GetField("f_color").ToObject(), Is.EqualTo("RED"));
        Assert.That(e.GetField("f_color").MapKey, Is.EqualTo(0UL));
        Assert.That(e.GetField("f_flags").MapText, Is.EqualTo("NONE"));
        Assert.That(e.GetField("f_wide").MapText, Is.EqualTo("ONE"));
        Assert.That(e.GetAction("callstack").CallstackFrameCount, Is.EqualTo(3));
        Span<ulong> frames = stackalloc ulong[8];
        Assert.That(e.GetAction("callstack").CopyCallstackTo(frames), Is.EqualTo(3));
        Assert.That(frames[0], Is.EqualTo(0x00007FFAF2BD6C7CUL));
        Assert.That(e.GetAction("attach_activity_id").ToString(), Is.EqualTo("0badf00d-0000-4000-8000-000000000001:0"));
        // a field and an action share the name session_id
        Assert.That(e.GetField("session_id").AsUInt64(), Is.EqualTo(50UL));
        Assert.That(e.GetAction("session_id").AsUInt64(), Is.EqualTo(50UL));
        Assert.That(e.GetAction("xetest.session_id").Column!.Kind, Is.EqualTo(XeColumnKind.Action));
    }

    [Test]
    public void ReadEvents_Throws_WhenCancelled()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        Assert.That(
            () => XelReader.ReadEvents(XelFixtures.PathOf("latch.xel"), null, cts.Token).ToList(),
            Throws.InstanceOf<OperationCanceledException>()
        );
    }

    [Test]
    public void XeMap_JoinsBitmaskNames_ForCombinedKeys()
    {
        XEvent e = ReadAllTypes().Where(x => x.Name == "all_types").Single(x => x.EventSequence == 1007);
        Assert.That(e.GetField("f_flags").MapKey, Is.EqualTo(7UL));
        Assert.That(e.GetField("f_flags").MapText, Is.EqualTo("READ, WRITE, EXEC"));
        Assert.That(e.GetField("f_wide").MapText, Is.EqualTo("MAX"));
        Assert.That(e.GetField("f_color").MapText, Is.EqualTo("GREEN"));
    }

    [Test]
    public void ReadEvents_ResolvesPackagesByIndex_WhenNamesRepeat()
    {
        List<XEvent> events = ReadAllTypes();
        XEvent dup = events.First(e => e.Name == "dup_event");
        Assert.That(dup.PackageName, Is.EqualTo("xetest"));
        Assert.That(dup.EventType.Package.Index, Is.EqualTo(7));
        Assert.That(events.First(e => e.Name == "all_types").EventType.Package.Index, Is.EqualTo(3));
        Assert.That(events.Count(e => e.Name == "dup_event"), Is.EqualTo(3));
    }

    [Test]
    public void ReadEvents_KeepsFileOrder_WhenTimestampsAreOutOfOrder()
    {
        List<XEvent> events = ReadAllTypes();
        int inversions = 0;
        for (int i = 1; i < events.Count; i++)
        {
            if (events[i].Timestamp < events[i - 1].Timestamp)
            {
                inversions++;
            }
        }

        Assert.That(inversions, Is.GreaterThan(0));
        Assert.That(events.Select(e => e.Source.Offset), Is.Ordered);
        Assert.That(events.Select(e => e.Source.Offset).Distinct().Count(), Is.EqualTo(events.Count));
    }

    [Test]
    public void ReadEvents_SkipsOtherEvents_WhenFilteredByName()
    {
        Assert.That(
            ReadAllTypes(new XelReadOptions { EventNames = ["dup_event"] }).Select(e => e.Name).Distinct(),
            Is.EqualTo(new[] { "dup_event" })
        );
        Assert.That(
            ReadAllTypes(new XelReadOptions { EventNames = ["xetest.all_types"] }),
            Has.Count.EqualTo(XelFixtures.AllTypesCount)
        );
        Assert.That(ReadAllTypes(new XelReadOptions { EventNames = ["other.all_types"] }), Is.Empty);
    }

    [Test]
    public void ReadEvents_ReadsRolloverSetInFileTimeOrder_FromFolder()
    {
        IReadOnlyList<CaptureSet> sets = CaptureSet.Expand([Path.Combine(TestPaths.TestData, "xel", "rollover")]);
        Assert.That(sets, Has.Count.EqualTo(1));
        Assert.That(sets[0].IsRollover, Is.True);
        Assert.That(sets[0].Files, Has.Count.EqualTo(3));
        List<XEvent> events = [.. XelReader.ReadEvents(sets[0])];
        Assert.That(
            events.Select(e => e.EventSequence!.Value),
            Is.EqualTo(Enumerable.Range(1, 15).Select(i => (ulong)i))
        );
        Assert.That(events.Select(e => e.Timestamp), Is.Ordered);
    }

    [Test]
    public void CaptureSet_GroupsRolloverFiles_AndOrdersByFileTime()
    {
        string[] files = ["/x/a_0_300.xel", "/x/other.xel", "/x/a_0_20.xel", "/y/a_0_10.xel", "/x/a_0_100.xel"];
        IReadOnlyList<CaptureSet> sets = CaptureSet.Group(files);
        Assert.That(sets, Has.Count.EqualTo(3));
        Assert.That(sets[0].Files, Is.EqualTo(new[] { "/x/a_0_20.xel", "/x/a_0_100.xel", "/x/a_0_300.xel" }));
        Assert.That(sets[1].Files, Is.EqualTo(new[] { "/x/other.xel" }));
        Assert.That(sets[2].Files, Is.EqualTo(new[] { "/y/a_0_10.xel" }));
        Assert.That(
            CaptureSet.TryParseRolloverName("xe_wait_completed_0_132353446563350000.xel", out string b, out ulong ft),
            Is.True
        );
        Assert.That(b, Is.EqualTo("xe_wait_completed_0"));
        Assert.That(
            DateTime.FromFileTimeUtc((long)ft),
            Is.EqualTo(new DateTime(2020, 5, 30, 20, 37, 36, 335, DateTimeKind.Utc))
        );
    }

    [Test]
    public void CaptureSet_ExpandsGlobs_AndRejectsMissingInputs()
    {
        string glob = Path.Combine(TestPaths.TestData, "xel", "**", "*.xel");
        IReadOnlyList<CaptureSet> sets = CaptureSet.Expand([glob]);
        Assert.That(sets.Sum(s => s.Files.Count), Is.EqualTo(5));
        Assert.That(sets.Count(s => s.IsRollover), Is.EqualTo(1));
        Assert.That(
            () => CaptureSet.Expand([Path.Combine(TestPaths.TestData, "xel", "nope*.xel")]),
            Throws.TypeOf<FileNotFoundException>()
        );
        Assert.That(() => CaptureSet.Expand(["/definitely/not/here.xel"]), Throws.TypeOf<FileNotFoundException>());
    }

    [Test]
    public void Identify_SaysWhatTheFileIs_WithoutReadingEvents()
    {
        XelFileIdentity id = XelFile.Identify(XelFixtures.PathOf("latch.xel"));
        Assert.That(id.IsXel, Is.True);
        Assert.That(id.Header!.Value.HeaderSize, Is.EqualTo(512));
        string notXel = Path.Combine(Path.GetTempPath(), "xeanalyzer-notxel-" + Guid.NewGuid().ToString("N") + ".xel");
        File.WriteAllText(notXel, "hello, not a capture");
        try
        {
            XelFileIdentity bad = XelFile.Identify(notXel);
            Assert.That(bad.IsXel, Is.False);
            Assert.That(bad.Reason, Does.Contain("magic"));
        }
        finally
        {
            File.Delete(notXel);
        }
    }

    [Test]
    public void ReadEvents_OpensFile_WhileAnotherProcessWritesIt()
    {
        string copy = Path.Combine(Path.GetTempPath(), "xeanalyzer-live-" + Guid.NewGuid().ToString("N") + ".xel");
        File.Copy(XelFixtures.PathOf("latch.xel"), copy);
        try
        {
            using var writer = new FileStream(copy, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
            Assert.That(XelReader.ReadEvents(copy).Count(), Is.EqualTo(40));
        }
        finally
        {
            File.Delete(copy);
        }
    }

    [Test]
    public void XEvent_Create_BuildsEventsWithoutABuffer()
    {
        XeSchema s = XelFixtures.LatchSchema(out XeEventType t, out XeColumn[] a);
        XEvent e = XEvent.Create(
            t,
            XelFixtures.Start,
            [
                XeValue.Create(t.Fields[0], 28UL),
                XeValue.Create(t.Fields[1], 4UL),
                XeValue.Create(t.Fields[2], 0x10UL),
                XeValue.Create(t.Fields[3], 5UL),
                XeValue.Create(t.Fields[4], 1UL),
                XeValue.Create(t.Fields[5], 9UL),
                XeValue.Create(t.Fields[6], 3UL),
            ],
            [XeValue.Create(a[3], XelFixtures.Stack), XeValue.Create(a[2], 77UL)]
        );
        Assert.That(e.GetField("class").MapText, Is.EqualTo("ACCESS_METHODS_HOBT_VIRTUAL_ROOT"));
        Assert.That(e.GetField("mode").ToString(), Is.EqualTo("EX"));
        Assert.That(e.EventSequence, Is.EqualTo(77UL));
        Assert.That(e.GetAction("callstack").GetCallstackFrame(0), Is.EqualTo(XelFixtures.Stack[0]));
        Assert.That(s.FindEventType("sqlserver.latch_acquired"), Is.SameAs(t));
        Assert.That(() => XeValue.Create(t.Fields[3], 70000UL), Throws.TypeOf<ArgumentOutOfRangeException>());
    }

    [Test]
    public void ReadEvents_ReadsFromMemory_ThroughRandomAccessSource()
    {
        byte[] bytes = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        using var src = new MemoryRandomAccessSource(bytes, "mem.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(src)];
        Assert.That(events, Has.Count.EqualTo(40));
        Assert.That(events[0].Source.FilePath, Is.EqualTo("mem.xel"));
        Assert.That(events[0].GetField("page_id").AsUInt64().ToString(CultureInfo.InvariantCulture), Is.EqualTo("100"));
    }
}

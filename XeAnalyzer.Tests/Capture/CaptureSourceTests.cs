using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.TargetData;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Xel;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Capture;

/// <summary>The input layer (.xel and target-data XML), the XML-to-XEvent adapter, name push-down and the read
/// summary.</summary>
public sealed class CaptureSourceTests
{
    /// <summary>A ring_buffer target with wait_info events as SQL Server renders them (types, map value +
    /// text).</summary>
    internal const string RingBuffer = """
        <RingBufferTarget truncated="0" processingTime="0" totalEventsProcessed="5" eventCount="5" droppedCount="0" memoryUsed="3000">
          <event name="wait_info" package="sqlos" timestamp="2024-05-14T10:00:00.010Z">
            <data name="wait_type"><type name="wait_types" package="sqlos" /><value>1086</value><text>PREEMPTIVE_HTTP_REQUEST</text></data>
            <data name="opcode"><type name="event_opcode" package="sqlos" /><value>1</value><text>End</text></data>
            <data name="duration"><type name="uint64" package="package0" /><value>2</value></data>
            <data name="signal_duration"><type name="uint64" package="package0" /><value>0</value></data>
            <action name="worker_address" package="sqlos"><type name="ptr" package="package0" /><value>0x000001d94e0a0160</value></action>
            <action name="scheduler_id" package="sqlos"><type name="uint32" package="package0" /><value>6</value></action>
            <action name="event_sequence" package="package0"><type name="uint64" package="package0" /><value>2</value></action>
          </event>
          <event name="wait_info" package="sqlos" timestamp="2024-05-14T10:00:00.050Z">
            <data name="wait_type"><type name="wait_types" package="sqlos" /><value>66</value><text>PAGEIOLATCH_SH</text></data>
            <data name="opcode"><type name="event_opcode" package="sqlos" /><value>1</value><text>End</text></data>
            <data name="duration"><type name="uint64" package="package0" /><value>39</value></data>
            <data name="signal_duration"><type name="uint64" package="package0" /><value>1</value></data>
            <action name="worker_address" package="sqlos"><type name="ptr" package="package0" /><value>0x000001d94e0a0160</value></action>
            <action name="scheduler_id" package="sqlos"><type name="uint32" package="package0" /><value>6</value></action>
            <action name="event_sequence" package="package0"><type name="uint64" package="package0" /><value>3</value></action>
          </event>
          <event name="wait_info" package="sqlos" timestamp="2024-05-14T10:00:00.005Z">
            <data name="wait_type"><type name="wait_types" package="sqlos" /><value>1086</value><text>PREEMPTIVE_HTTP_REQUEST</text></data>
            <data name="opcode"><type name="event_opcode" package="sqlos" /><value>0</value><text>Begin</text></data>
            <data name="duration"><type name="uint64" package="package0" /><value>0</value></data>
            <data name="signal_duration"><type name="uint64" package="package0" /><value>0</value></data>
            <action name="worker_address" package="sqlos"><type name="ptr" package="package0" /><value>0x000001d94e0a0160</value></action>
            <action name="scheduler_id" package="sqlos"><type name="uint32" package="package0" /><value>6</value></action>
            <action name="event_sequence" package="package0"><type name="uint64" package="package0" /><value>1</value></action>
          </event>
          <event name="error_reported" package="sqlserver" timestamp="2024-05-14T10:00:01.000Z">
            <data name="error_number"><type name="int32" package="package0" /><value>701</value></data>
            <data name="message"><type name="unicode_string" package="package0" /><value>There is insufficient system memory.</value></data>
            <action name="callstack" package="package0"><type name="callstack" package="package0" /><value>0x00007FFAF2BD6C7C
        0x00007FFAF2BD1000</value></action>
          </event>
          <event name="error_reported" package="sqlserver" timestamp="2024-05-14T10:00:02.000Z">
            <data name="error_number"><type name="int32" package="package0" /><value>-5</value></data>
            <data name="message"><type name="unicode_string" package="package0" /><value>x</value></data>
            <action name="callstack" package="package0"><type name="callstack" package="package0" /><value>sqldk.dll+0x00000000000FD919</value></action>
          </event>
        </RingBufferTarget>
        """;

    [Test]
    public void Convert_BuildsTypedFieldsMapValuesAndActions_FromRingBufferXml()
    {
        var converter = new TargetEventAdapter("rb.xml");
        XEvent[] events =
        [
            .. TargetDataReader.Read(new StringReader(RingBuffer)).OfType<TargetEvent>().Select(converter.Convert),
        ];

        Assert.That(events, Has.Length.EqualTo(5));
        XEvent w = events[0];
        Assert.That(w.FullName, Is.EqualTo("sqlos.wait_info"));
        Assert.That(w.Timestamp, Is.EqualTo(new DateTime(2024, 5, 14, 10, 0, 0, 10, DateTimeKind.Utc)));
        Assert.That(w.GetField("wait_type").MapText, Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
        Assert.That(w.GetField("wait_type").MapKey, Is.EqualTo(1086));
        Assert.That(w.GetField("opcode").MapText, Is.EqualTo("End"));
        Assert.That(w.GetField("duration").AsUInt64(), Is.EqualTo(2));
        Assert.That(w.GetField("duration").Column!.TypeName, Is.EqualTo("uint64"));
        Assert.That(w.GetAction("worker_address").AsUInt64(), Is.EqualTo(0x000001D94E0A0160));
        Assert.That(w.GetAction("sqlos.scheduler_id").AsUInt64(), Is.EqualTo(6));
        Assert.That(w.EventSequence, Is.EqualTo(2));
        Assert.That(w.Source.FilePath, Is.EqualTo("rb.xml"));

        // A new map key grows the one map of the field's type; the first event's text is unchanged and both events
        // share one type.
        Assert.That(events[1].GetField("wait_type").MapText, Is.EqualTo("PAGEIOLATCH_SH"));
        Assert.That(events[0].GetField("wait_type").MapText, Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
        Assert.That(events[2].GetField("opcode").MapText, Is.EqualTo("Begin"));
        Assert.That(
            events[1].EventType,
            Is.SameAs(events[0].EventType),
            "map keys met later do not make new event type versions"
        );

        XEvent err = events[3];
        Assert.That(err.GetField("error_number").AsInt64(), Is.EqualTo(701));
        Assert.That(err.GetField("message").AsString(), Is.EqualTo("There is insufficient system memory."));
        Assert.That(
            err.GetAction("callstack").AsCallstack(),
            Is.EqualTo(new[] { 0x00007FFAF2BD6C7CUL, 0x00007FFAF2BD1000UL })
        );
        Assert.That(events[4].GetField("error_number").AsInt64(), Is.EqualTo(-5));
        Assert.That(
            events[4].GetAction("callstack").ToString(),
            Is.EqualTo("sqldk.dll+0x00000000000FD919"),
            "module+offset frames stay text"
        );
        Assert.That(converter.EventsWithoutTimestamp, Is.Zero);
    }

    [Test]
    public void Convert_InfersTypesFromValues_ForEventDataWithoutTypes()
    {
        const string xml = """
            <event name="lock_acquired" package="sqlserver" timestamp="2016-08-07T20:13:35.827Z"><data name="mode"><value>3</value><text>S</text></data><data name="owner"><value>0x000001a2</value></data><data name="ok"><value>true</value></data><data name="delta"><value>-4</value></data><action name="transaction_id" package="sqlserver"><value>39194</value></action><action name="sql_text" package="sqlserver"><value><![CDATA[ select 1 ]]></value></action></event>
            <event name="lock_acquired" package="sqlserver"><data name="mode"><value>5</value><text>X</text></data><data name="owner"><value>not a number</value></data><data name="ok"><value>false</value></data><data name="delta"><value>4</value></data></event>
            """;
        var converter = new TargetEventAdapter();
        XEvent[] events =
        [
            .. TargetDataReader.Read(new StringReader(xml)).OfType<TargetEvent>().Select(converter.Convert),
        ];
        XEvent a = events[0];
        Assert.That(a.GetField("mode").MapText, Is.EqualTo("S"));
        Assert.That(a.GetField("mode").MapKey, Is.EqualTo(3));
        Assert.That(a.GetField("owner").AsUInt64(), Is.EqualTo(0x1A2));
        Assert.That(a.GetField("ok").AsBoolean(), Is.True);
        Assert.That(a.GetField("delta").AsInt64(), Is.EqualTo(-4));
        Assert.That(a.GetAction("transaction_id").AsUInt64(), Is.EqualTo(39194));
        Assert.That(a.GetAction("sql_text").AsString(), Is.EqualTo(" select 1 "));
        XEvent b = events[1];
        Assert.That(b.GetField("mode").MapText, Is.EqualTo("X"));
        Assert.That(b.GetField("owner").AsString(), Is.EqualTo("not a number"));
        Assert.That(b.EventType, Is.Not.SameAs(a.EventType), "other value types: another event type version");
        Assert.That(b.Timestamp, Is.EqualTo(DateTime.MinValue));
        Assert.That(converter.EventsWithoutTimestamp, Is.EqualTo(1));
    }

    [Test]
    public void ReadEvents_ReadsXelAndXmlTogether_PushingNamesDown()
    {
        using var tmp = new TempFolder();
        var c = new AnalysisCaptures();
        string xel = tmp.File("mixed_0_133601526724170000.xel");
        c.WriteXel(
            xel,
            [c.Batch(At(0)), c.Wait(At(1), "LATCH_EX", "End", 5, 0x10, 1, 1), c.Batch(At(2)), c.Alloc(At(3), 2)]
        );
        string xml = tmp.File("ring.xml");
        File.WriteAllText(xml, RingBuffer);

        CaptureSource source = CaptureSource.Open([xel, xml]);
        Assert.That(
            source.Inputs.Select(i => i.Kind),
            Is.EqualTo(new[] { CaptureInputKind.Xel, CaptureInputKind.TargetData })
        );
        Assert.That(source.Inputs[0].Files, Is.EqualTo(new[] { xel }));
        Assert.That(source.Inputs[1].Name, Is.EqualTo(xml));

        var waits = new List<XEvent>();
        CaptureSummary read = source.Read([new Collect(waits, "wait_info")], null, WaitAnalysis.EventNames);
        Assert.That(
            waits.Select(e => e.Name),
            Is.EqualTo(new[] { "wait_info", "wait_info", "wait_info", "wait_info" })
        );
        Assert.That(read.EventsRead, Is.EqualTo(4), "other events were skipped by the reader");
        Assert.That(
            read.EventsByName,
            Is.EqualTo(
                new[]
                {
                    new EventNameCount("sqlos.wait_info", 4),
                    new EventNameCount("sqlserver.error_reported", 2),
                    new EventNameCount("sqlserver.sql_batch_completed", 2),
                    new EventNameCount("sqlos.page_allocated", 1),
                }
            ),
            "events skipped before decoding are still counted by name: nothing reads the inputs again to explain"
        );

        var filtered = new List<XEvent>();
        CaptureSummary f = source.Read(
            [new Collect(filtered, "wait_info")],
            new EventFilter(conditions: [FieldCondition.Parse("wait_type=66")]),
            WaitAnalysis.EventNames
        );
        Assert.That(filtered.Single().GetField("wait_type").MapText, Is.EqualTo("PAGEIOLATCH_SH"));
        Assert.That((f.EventsRead, f.EventsMatched), Is.EqualTo((4L, 1L)));

        AnalysisOutcome<WaitAnalysisResult> outcome = new WaitAnalysis().Analyze(source);
        Assert.That(outcome.Status, Is.EqualTo(AnalysisStatus.Complete));
        WaitAnalysisResult r = outcome.Result;
        Assert.That(r.PrecededByFor("PAGEIOLATCH_SH").Single().PrecededBy, Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
        Assert.That(r.Pairs.Single(p => p.WaitType == "PREEMPTIVE_HTTP_REQUEST").Pairs, Is.EqualTo(1));
    }

    [Test]
    public void Read_SummarizesEachXelFile_EventsActionsBuffersAndStacks()
    {
        string path = XelFixtures.PathOf("all-types.xel");
        CaptureSummary summary = CaptureSource.Open([path]).Read([]);
        FileSummary f = summary.Files.Single();
        Assert.That(f.Events, Is.EqualTo(XelFixtures.AllTypesCount + 3));
        Assert.That(f.Xel!.MetadataBufferCount, Is.EqualTo(2));
        Assert.That(f.Xel.BufferCount, Is.GreaterThan(4));
        Assert.That(f.Length, Is.EqualTo(new FileInfo(path).Length));
        Assert.That(f.HasCallstacks, Is.True);
        EventTypeSummary t = f.EventTypes.Single(x => x.EventType.Name == "all_types");
        Assert.That(
            t.Actions.Select(a => a.FullName),
            Is.EquivalentTo(
                new[]
                {
                    "xetest.session_id",
                    "package0.event_sequence",
                    "package0.callstack",
                    "package0.attach_activity_id",
                }
            )
        );
        Assert.That(
            f.FirstEvent,
            Is.EqualTo(Enumerable.Range(0, XelFixtures.AllTypesCount).Select(XelFixtures.AllTypesTime).Min())
        );
        Assert.That(summary.IsPartial, Is.False);

        // The data fact beside the schema fact, counted from the reader's own events: the callstack action's frames
        // where the event carries it, else the callstack field's (the documented order of StackColumns).
        long withFrames = global::XeAnalyzer
            .Xel.XelReader.ReadEvents(path)
            .Count(e =>
                e.Name == "all_types"
                && (
                    e.ActionSet.IndexOf("callstack") is int a && a >= 0 ? e.GetAction(a) : e.GetField("f_callstack")
                ).CallstackFrameCount > 0
            );
        Assert.That(t.HasCallstack, Is.True);
        Assert.That(t.EventsWithStack, Is.EqualTo(withFrames));
    }

    [Test]
    public void Open_RefusesAFileThatIsNeitherXelNorXml()
    {
        using var tmp = new TempFolder();
        string bin = tmp.File("data.bin");
        File.WriteAllBytes(bin, [0x4D, 0x5A, 0x90, 0x00, 1, 2, 3]);
        InvalidXelDataException ex = Assert.Throws<InvalidXelDataException>(() => CaptureSource.Open([bin]))!;
        Assert.That(ex.FilePath, Is.EqualTo(bin));
        Assert.That(ex.Message, Does.Contain("target-data XML"));
        Assert.Throws<FileNotFoundException>(() => CaptureSource.Open([tmp.File("missing.xel")]));
    }

    [Test]
    public void Slice_RefusesToWriteOverOneOfItsInputs_BeforeTouchingIt()
    {
        using var tmp = new TempFolder();
        string xml = tmp.File("ring.xml");
        File.WriteAllText(xml, RingBuffer);
        CaptureSource source = CaptureSource.Open([xml]);
        ArgumentException ex = Assert.Throws<ArgumentException>(() =>
            CaptureSlicer.Slice(source, EventFilter.None, xml)
        )!;
        Assert.That(ex.ParamName, Is.EqualTo("output"));
        Assert.That(ex.Message, Does.StartWith(CaptureSlicer.OutputIsInput));
        Assert.That(File.ReadAllText(xml), Is.EqualTo(RingBuffer), "the input is left as it was");
    }

    [Test]
    public void ReadEvents_ReportsMalformedXml_WithFileAndLine()
    {
        using var tmp = new TempFolder();
        string xml = tmp.File("bad.xml");
        File.WriteAllText(
            xml,
            "<RingBufferTarget>\n<event name=\"wait_info\" package=\"sqlos\">\n<data "
                + "name=\"x\"><value>1</value></data>\n</RingBufferTarget>"
        );
        CaptureSource source = CaptureSource.Open([xml]);
        InvalidTextInputException ex = Assert.Throws<InvalidTextInputException>(() => source.ReadEvents().ToList())!;
        Assert.That(ex.FilePath, Is.EqualTo(xml));
        Assert.That(ex.Line, Is.Not.Null);
    }

    [Test]
    public void Convert_RefusesUnboundedEventShapes_WithTheLine()
    {
        var sb = new System.Text.StringBuilder("<RingBufferTarget>\n");
        for (int i = 0; i <= TargetEventAdapter.MaxEventTypes; i++)
        {
            sb.Append("<event name=\"e")
                .Append(i)
                .Append(
                    "\" package=\"p\" timestamp=\"2024-01-01T00:00:00Z\"><data "
                        + "name=\"x\"><value>1</value></data></event>\n"
                );
        }

        sb.Append("</RingBufferTarget>");
        var converter = new TargetEventAdapter("many.xml");
        InvalidTextInputException ex = Assert.Throws<InvalidTextInputException>(() =>
        {
            foreach (TargetEvent e in TargetDataReader.Read(new StringReader(sb.ToString())).OfType<TargetEvent>())
            {
                converter.Convert(e);
            }
        })!;
        Assert.That(ex.Line, Is.EqualTo(TargetEventAdapter.MaxEventTypes + 2));
        Assert.That(ex.FilePath, Is.EqualTo("many.xml"));
    }

    [Test]
    public void WaitsCommand_ReadsRingBufferXml()
    {
        using var tmp = new TempFolder();
        string xml = tmp.File("ring_buffer.xml");
        File.WriteAllText(xml, RingBuffer);
        (int exit, string output, string err) = CliRunner.Run("waits", xml, "--format", "csv");
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = output.Split('\n');
        Assert.That(lines[1], Does.StartWith("PAGEIOLATCH_SH,1,39,"));
        Assert.That(lines[2], Does.StartWith("PREEMPTIVE_HTTP_REQUEST,1,2,"));
    }

    /// <summary>Keeps the events of one name.</summary>
    private sealed class Collect(List<XEvent> into, string name) : ICaptureConsumer
    {
        public bool Accepts(XeEventType eventType, XeActionSet actions) => eventType.Name == name;

        public void Add(XEvent e) => into.Add(e.Detach());
    }
}

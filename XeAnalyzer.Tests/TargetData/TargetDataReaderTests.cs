using XeAnalyzer.IO;
using XeAnalyzer.TargetData;
using XeAnalyzer.Tests.Callstacks;

namespace XeAnalyzer.Tests.TargetData;

/// <summary>Target-data XML: every root of XE-TEXT-SHAPES.md §1, §2, §6–§8, errors and hostile inputs.</summary>
public class TargetDataReaderTests
{
    private static List<TargetDataElement> Read(string text, TargetDataReaderOptions? options = null) =>
        TargetDataReader.Read(new StringReader(text), options).ToList();

    [Test]
    public void Read_ReturnsStartSlotsAndEnd_ForHistogram()
    {
        List<TargetDataElement> items = Read(
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n  <Slot count=\"1132435\">\n    "
                + "<value>sqldk.dll+0x00000000000FD919\nsqldk.dll+0x000000000003D45D</value>\n  </Slot>\n  <Slot "
                + "count=\"18446744073709551615\"><value>42</value></Slot>\n</HistogramTarget>"
        );
        var start = (TargetStart)items[0];
        Assert.That(start.Kind, Is.EqualTo(TargetDataKind.Histogram));
        Assert.That(start.Buckets, Is.EqualTo(256));
        Assert.That(start.Truncated, Is.False);

        var slots = items.OfType<HistogramSlot>().ToList();
        Assert.That(slots.Select(s => s.Count), Is.EqualTo(new[] { 1132435UL, ulong.MaxValue }));
        Assert.That(slots[0].Value!.Text, Is.EqualTo("sqldk.dll+0x00000000000FD919\nsqldk.dll+0x000000000003D45D"));
        Assert.That(slots[0].Value!.LineNumber, Is.EqualTo(3));
        Assert.That(slots[0].LineNumber, Is.EqualTo(2));
        Assert.That(slots[1].Value!.Text, Is.EqualTo("42"));
        Assert.That(slots.Select(s => s.SlotIndex), Is.EqualTo(new[] { 0, 1 }));

        var end = (TargetEnd)items[^1];
        Assert.That(end.ItemCount, Is.EqualTo(2));
        Assert.That(end.MayHaveMergedValues, Is.False);
        Assert.That(end.Warnings, Is.Empty);
        Assert.That(end.LineNumber, Is.EqualTo(7));
    }

    [Test]
    public void Read_WarnsOfMergedValues_WhenSlotsFillAllBuckets()
    {
        List<TargetDataElement> items = Read(
            "<HistogramTarget truncated=\"1\" buckets=\"2\"><Slot count=\"7\"><value>a</value></Slot><Slot "
                + "count=\"2\"><value>b</value></Slot></HistogramTarget>"
        );
        var end = (TargetEnd)items[^1];
        Assert.That(end.MayHaveMergedValues, Is.True);
        Assert.That(end.Start.Truncated, Is.True);
        Assert.That(end.Warnings, Has.Count.EqualTo(2));
        Assert.That(end.Warnings, Has.Some.Contains("truncated"));
        Assert.That(end.Warnings, Has.Some.Contains("2 buckets"));
    }

    [Test]
    public void Read_ReadsBucketizerAndSlotsRoots_WithTrunc()
    {
        List<TargetDataElement> items = Read(
            "<BucketizerTarget truncated=\"0\" buckets=\"256\"><Slot count=\"35668\" "
                + "trunc=\"0\"><value>x</value></Slot></BucketizerTarget>\n"
                + "<Slots truncated=\"0\" buckets=\"16\"><Slot count=\"3\" trunc=\"12\"><value>y</value></Slot></Slots>"
        );
        var slots = items.OfType<HistogramSlot>().ToList();
        Assert.That(
            slots.Select(s => (s.Count, s.TruncatedBytes, s.TargetIndex)),
            Is.EqualTo(new[] { (35668UL, (ulong?)0UL, 0), (3UL, (ulong?)12UL, 1) })
        );
        Assert.That(
            items.OfType<TargetStart>().Select(s => s.RootName),
            Is.EqualTo(new[] { "BucketizerTarget", "Slots" })
        );
    }

    [Test]
    public void Read_KeepsValueContentInEveryForm()
    {
        List<HistogramSlot> slots = Read(
                "<HistogramTarget truncated=\"0\" buckets=\"256\">"
                    + "<Slot count=\"1\"><value><![CDATA[<frame id=\"00\" rva=\"0x1\"/>]]></value></Slot>"
                    + "<Slot count=\"2\"><value>&lt;frame id=\"00\" rva=\"0x1\"/&gt;</value></Slot>"
                    + "<Slot count=\"3\"><value><frame id=\"00\" rva=\"0x1\"/><frame id=\"01\" "
                    + "rva=\"0x2\"/></value></Slot>"
                    + "<Slot count=\"4\"><value>MEMORYCLERK_SQLQERESERVATIONS</value></Slot>"
                    + "<Slot count=\"5\"><value /></Slot>"
                    + "<Slot count=\"6\"></Slot>"
                    + "</HistogramTarget>"
            )
            .OfType<HistogramSlot>()
            .ToList();
        Assert.That(slots[0].Value!.Text, Is.EqualTo("<frame id=\"00\" rva=\"0x1\"/>"));
        Assert.That(slots[1].Value!.Text, Is.EqualTo("<frame id=\"00\" rva=\"0x1\"/>"));
        Assert.That(slots[2].Value!.Elements.Select(e => e.GetAttribute("rva")), Is.EqualTo(new[] { "0x1", "0x2" }));
        Assert.That(slots[2].Value!.Elements[1].ToMarkup(), Is.EqualTo("<frame id=\"01\" rva=\"0x2\" />"));
        Assert.That(slots[3].Value!.Text, Is.EqualTo("MEMORYCLERK_SQLQERESERVATIONS"));
        Assert.That(slots[4].Value!.Text, Is.Empty);
        Assert.That(slots[5].Value, Is.Null);
    }

    [Test]
    public void ReadFile_ReadsRingBufferEvents_WithTypesValuesAndMapText()
    {
        List<TargetDataElement> items = TargetDataReader
            .ReadFile(StackTextReaderTests.Fixture("ring_buffer_callstack.xml"))
            .ToList();
        var start = (TargetStart)items[0];
        Assert.That(start.Kind, Is.EqualTo(TargetDataKind.RingBuffer));
        Assert.That(start.GetAttribute("memoryUsed"), Is.EqualTo("2670"));

        var events = items.OfType<TargetEvent>().ToList();
        Assert.That(
            events.Select(e => (e.Name, e.Package)),
            Is.EqualTo(new[] { ("error_reported", (string?)"sqlserver"), ("wait_info", (string?)"sqlos") })
        );
        TargetEvent e0 = events[0];
        Assert.That(e0.Container, Is.EqualTo(TargetDataKind.RingBuffer));
        Assert.That(e0.TimestampText, Is.EqualTo("2018-01-20T03:40:04.503Z"));
        Assert.That(
            e0.Fields.Select(f => f.Name),
            Is.EqualTo(new[] { "error_number", "category", "destination", "message" })
        );
        EventField category = e0.FindField("category")!;
        Assert.That(
            (category.TypeName, category.TypePackage, category.ValueText, category.MapText),
            Is.EqualTo(("error_category", "sqlserver", "2", "SERVER"))
        );
        Assert.That(e0.FindField("destination")!.ValueText, Is.EqualTo("0x0000009c"));
        Assert.That(
            e0.FindField("message")!.ValueText,
            Is.EqualTo("There is insufficient system memory in resource pool 'default' to run this query.")
        );
        EventField callstack = e0.Actions.Single();
        Assert.That(
            (callstack.Name, callstack.Package, callstack.TypeName, callstack.IsAction),
            Is.EqualTo(("callstack", "package0", "callstack", true))
        );
        Assert.That(callstack.ValueText!.Split('\n'), Has.Length.EqualTo(4));

        Assert.That(events[1].FindField("duration")!.ValueText, Is.EqualTo("18446744073709551615"));
        Assert.That(((TargetEnd)items[^1]).ItemCount, Is.EqualTo(2));
    }

    [Test]
    public void Read_ReadsEventCounter()
    {
        List<TargetDataElement> items = Read(
            "<CounterTarget truncated=\"0\"><Packages><Package name=\"sqlserver\"><Event name=\"checkpoint_begin\" "
                + "count=\"4\" /><Event name=\"checkpoint_end\" count=\"3\" /></Package><Package name=\"sqlos\"><Event "
                + "name=\"wait_info\" count=\"18446744073709551615\" /></Package></Packages></CounterTarget>"
        );
        var counters = items.OfType<EventCounterValue>().Select(c => (c.Package, c.EventName, c.Count)).ToList();
        Assert.That(
            counters,
            Is.EqualTo(
                new[]
                {
                    ("sqlserver", "checkpoint_begin", 4UL),
                    ("sqlserver", "checkpoint_end", 3UL),
                    ("sqlos", "wait_info", ulong.MaxValue),
                }
            )
        );
        Assert.That(((TargetStart)items[0]).Kind, Is.EqualTo(TargetDataKind.EventCounter));
        Assert.That(((TargetEnd)items[^1]).ItemCount, Is.EqualTo(3));
    }

    [Test]
    public void Read_ReadsPairMatchingUnpairedEvents_WithoutDependingOnAttributes()
    {
        List<TargetDataElement> items = Read(
            "<unpaired truncated=\"0\" matchedCount=\"12\" memoryPressureDroppedCount=\"0\"><event "
                + "name=\"lock_acquired\" package=\"sqlserver\" id=\"68\" version=\"1\" "
                + "timestamp=\"2024-01-02T03:04:05.678Z\"><data "
                + "name=\"resource_0\"><value>1</value></data></event></unpaired>\n<unpaired/>"
        );
        TargetEvent e = items.OfType<TargetEvent>().Single();
        Assert.That(e.Container, Is.EqualTo(TargetDataKind.PairMatching));
        Assert.That(e.GetAttribute("id"), Is.EqualTo("68"));
        Assert.That(e.FindField("resource_0")!.ValueText, Is.EqualTo("1"));
        Assert.That(items.OfType<TargetStart>().Count(), Is.EqualTo(2));
    }

    [Test]
    public void Read_ReadsEventFileTarget()
    {
        List<TargetDataElement> items = Read(
            "<EventFileTarget truncated=\"0\"><Buffers logged=\"12\" dropped=\"1\"/><File "
                + "name=\"C:\\XE\\latch_0_134343910972710000.xel\"/></EventFileTarget>"
        );
        var buffers = items.OfType<EventFileBuffers>().Single();
        Assert.That((buffers.Logged, buffers.Dropped), Is.EqualTo(((ulong?)12UL, (ulong?)1UL)));
        Assert.That(
            items.OfType<EventFileEntry>().Single().FileName,
            Is.EqualTo("C:\\XE\\latch_0_134343910972710000.xel")
        );
    }

    [Test]
    public void Read_ReadsBareEventData_AndPre2012Events()
    {
        List<TargetDataElement> items = Read(
            "<event name=\"lock_acquired\" package=\"sqlserver\" timestamp=\"2016-08-07T20:13:35.827Z\"><action "
                + "name=\"transaction_id\" package=\"sqlserver\"><value>39194</value></action><action "
                + "name=\"sql_text\" "
                + "package=\"sqlserver\"><value><![CDATA[ select … ]]></value></action></event>\r\n"
                + "<event name=\"wait_info\" package=\"sqlos\" id=\"48\" version=\"1\" "
                + "timestamp=\"2010-12-24T10:00:00.000Z\"><data name=\"wait_type\"><type name=\"wait_types\" "
                + "package=\"sqlos\"/><value>191</value><text><![CDATA[WAITFOR]]></text></data></event>"
        );
        var events = items.OfType<TargetEvent>().ToList();
        Assert.That(events[0].Container, Is.EqualTo(TargetDataKind.Event));
        Assert.That(events[0].FindAction("transaction_id")!.ValueText, Is.EqualTo("39194"));
        Assert.That(events[0].FindAction("transaction_id")!.TypeName, Is.Null);
        Assert.That(events[0].FindAction("sql_text")!.ValueText, Is.EqualTo(" select … "));
        Assert.That(events[0].Timestamp, Is.EqualTo(new DateTimeOffset(2016, 8, 7, 20, 13, 35, 827, TimeSpan.Zero)));
        Assert.That(events[1].FindField("wait_type")!.MapText, Is.EqualTo("WAITFOR"));
        Assert.That(events[1].GetAttribute("version"), Is.EqualTo("1"));
        Assert.That(events[1].LineNumber, Is.EqualTo(2));
    }

    [Test]
    public void Read_ReturnsFreeText_BetweenTargets()
    {
        List<TargetDataElement> items = Read(
            "annotation one\n\n<HistogramTarget truncated=\"0\" buckets=\"256\"></HistogramTarget>\nafter\n"
        );
        Assert.That(
            items.OfType<TargetFreeText>().Select(t => (t.LineNumber, t.Text)),
            Is.EqualTo(new[] { (1L, "annotation one"), (4L, "after") })
        );
    }

    [Test]
    public void Read_DecodesHtmlEscapedInput()
    {
        List<TargetDataElement> items = Read(
            "&lt;CounterTarget truncated=\"0\"&gt;&lt;Packages&gt;&lt;Package name=\"sqlserver\"&gt;&lt;Event "
                + "name=\"checkpoint_begin\" count=\"4\" /&gt;&lt;/Package&gt;&lt;/Packages&gt;&lt;/CounterTarget&gt;"
        );
        Assert.That(items.OfType<EventCounterValue>().Single().Count, Is.EqualTo(4UL));
    }

    [TestCase(
        "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot "
            + "count=\"1\">\n<value>x</valu>\n</Slot>\n</HistogramTarget>",
        3
    )]
    [TestCase(
        "\n\n<RingBufferTarget truncated=\"0\">\n<event name=\"a\"><data "
            + "name=\"b\"><value>1</value></data>\n</RingBufferTarget>",
        5
    )]
    [TestCase(
        "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot "
            + "count=\"12x\"><value>x</value></Slot></HistogramTarget>",
        2
    )]
    [TestCase("<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot><value>x</value></Slot></HistogramTarget>", 2)]
    [TestCase(
        "<CounterTarget truncated=\"0\"><Packages><Package name=\"p\">\n<Event name=\"e\" "
            + "count=\"99999999999999999999\" /></Package></Packages></CounterTarget>",
        2
    )]
    [TestCase(
        "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot "
            + "count=\"1\"><value>\u0001</value></Slot></HistogramTarget>",
        2
    )]
    public void Read_ThrowsWithLineNumber_ForMalformedInput(string text, int line)
    {
        var ex = Assert.Throws<InvalidTextInputException>(() => Read(text));
        Assert.That(ex!.Line, Is.EqualTo(line));
        Assert.That(ex, Is.InstanceOf<XeFormatException>());
    }

    [Test]
    public void ReadFile_NamesTheFile_InErrors()
    {
        string path = Path.Combine(Path.GetTempPath(), "xea-bad-" + Guid.NewGuid().ToString("N") + ".xml");
        File.WriteAllText(
            path,
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot count=\"x\"/></HistogramTarget>"
        );
        try
        {
            var ex = Assert.Throws<InvalidTextInputException>(() => TargetDataReader.ReadFile(path).ToList());
            Assert.That(ex!.FilePath, Is.EqualTo(path));
            Assert.That(ex.Message, Does.StartWith(path + ": line 2: "));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Test]
    public void Read_RefusesDtd()
    {
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            Read(
                "<!DOCTYPE HistogramTarget [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<HistogramTarget "
                    + "truncated=\"0\" buckets=\"256\"><Slot count=\"1\"><value>&x;</value></Slot></HistogramTarget>"
            )
        );
        Assert.That(ex!.Detail, Does.Contain("DTD"));
    }

    [Test]
    public void Read_RefusesDeepNesting()
    {
        string deep =
            string.Concat(Enumerable.Repeat("<x>", 100_000)) + string.Concat(Enumerable.Repeat("</x>", 100_000));
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            Read("<RingBufferTarget truncated=\"0\"><event name=\"e\">" + deep + "</event></RingBufferTarget>")
        );
        Assert.That(ex!.Detail, Does.Contain("MaxXmlDepth"));
    }

    [Test]
    public void Read_RefusesTooManyAttributes()
    {
        string attributes = string.Concat(Enumerable.Range(0, 100).Select(i => $" a{i}=\"1\""));
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            Read("<HistogramTarget" + attributes + "></HistogramTarget>")
        );
        Assert.That(ex!.Detail, Does.Contain("MaxAttributesPerElement"));
    }

    [Test]
    public void Read_RefusesOverLongTextLine_OutsideXml()
    {
        var options = new TargetDataReaderOptions { Limits = new TextInputLimits { MaxLineLength = 10_000 } };
        var ex = Assert.Throws<InvalidTextInputException>(() => Read("ok\n" + new string('z', 1_000_000), options));
        Assert.That(ex!.Line, Is.EqualTo(2));
    }

    [Test]
    public void Read_AcceptsHugeSingleLineXml_WithoutLineLimit()
    {
        // SSMS copies target_data as one line: the XML segment is not bound by MaxLineLength.
        var options = new TargetDataReaderOptions { Limits = new TextInputLimits { MaxLineLength = 1000 } };
        string slots = string.Concat(
            Enumerable.Range(0, 2000).Select(i => $"<Slot count=\"{i + 1}\"><value>sqldk.dll+0x{i:X16}</value></Slot>")
        );
        List<TargetDataElement> items = Read(
            "<HistogramTarget truncated=\"0\" buckets=\"16384\">" + slots + "</HistogramTarget>",
            options
        );
        Assert.That(items.OfType<HistogramSlot>().Count(), Is.EqualTo(2000));
    }

    [Test]
    public void Read_Streams_ReadingOnlyAPrefix()
    {
        using var input = new GeneratedInput(GeneratedInput.Shape.RingBuffer, 1_000_000);
        int events = TargetDataReader.Read(input).OfType<TargetEvent>().Take(50).Count();
        Assert.That(events, Is.EqualTo(50));
        Assert.That(input.CharsRead, Is.LessThan(500_000));
    }

    [Test]
    [SetCulture("tr-TR")]
    public void Read_ParsesTimestampsAndCounts_UnderTurkishCulture()
    {
        Assert.That(System.Globalization.CultureInfo.CurrentCulture.Name, Is.EqualTo("tr-TR"));
        List<TargetDataElement> items = Read(
            "<RingBufferTarget truncated=\"0\"><event name=\"I\" package=\"SQLOS\" "
                + "timestamp=\"2024-03-04T05:06:07.890Z\"></event></RingBufferTarget><HistogramTarget truncated=\"0\" "
                + "buckets=\"256\"><Slot count=\"1234567\"><value>1</value></Slot></HistogramTarget>"
        );
        Assert.That(
            items.OfType<TargetEvent>().Single().Timestamp,
            Is.EqualTo(new DateTimeOffset(2024, 3, 4, 5, 6, 7, 890, TimeSpan.Zero))
        );
        Assert.That(items.OfType<HistogramSlot>().Single().Count, Is.EqualTo(1234567UL));
    }
}

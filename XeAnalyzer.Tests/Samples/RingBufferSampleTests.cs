using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 5 (sample-xel/ring_buffer_waits): one event list written as a <c>.xel</c> capture and as ring_buffer target
/// XML. The XML is parsed here with <see cref="XDocument"/>, the capture with <see cref="Xel.XelReader"/>; every XML
/// event must be the capture's event with the same <c>event_sequence</c>, value for value. The expected wait tables are
/// recomputed from the raw events.
/// </summary>
public sealed class RingBufferSampleTests
{
    private List<XEvent> _events = null!;
    private Dictionary<ulong, XEvent> _bySequence = null!;
    private XElement _xml = null!;
    private Dictionary<string, string> _figures = null!;

    [OneTimeSetUp]
    public void ReadSample()
    {
        _events = SampleData.ReadAll(SampleData.RingBuffer);
        _bySequence = _events.ToDictionary(e => e.GetAction("event_sequence").AsUInt64());
        _xml = XDocument.Load(SampleData.RingBufferXmlPath).Root!;
        _figures = SampleData.Figures(SampleData.RingBuffer);
    }

    [Test]
    public void Files_HoldTheDocumentedNumberOfEvents_AndStaySmall()
    {
        long events = SampleData.Figure(_figures, "events");
        Assert.That(_events, Has.Count.EqualTo(events));
        Assert.That(_xml.Name.LocalName, Is.EqualTo("RingBufferTarget"));
        Assert.That((string?)_xml.Attribute("truncated"), Is.EqualTo("0"));
        Assert.That((string?)_xml.Attribute("eventCount"), Is.EqualTo(events.ToString(CultureInfo.InvariantCulture)));
        Assert.That(
            (string?)_xml.Attribute("totalEventsProcessed"),
            Is.EqualTo(events.ToString(CultureInfo.InvariantCulture))
        );
        Assert.That((string?)_xml.Attribute("droppedCount"), Is.EqualTo("0"));
        Assert.That(_xml.Elements("event").Count(), Is.EqualTo(events));
        foreach (string name in new[] { "wait_info", "wait_info_external", "wait_completed", "latch_acquired" })
        {
            Assert.That(
                _events.Count(e => e.Name == name),
                Is.EqualTo(SampleData.Figure(_figures, "count." + name)),
                name
            );
        }

        Assert.That(new FileInfo(SampleData.RingBufferXmlPath).Length, Is.LessThan(400L * 1024));
        Assert.That(new FileInfo(SampleData.CapturePath(SampleData.RingBuffer)).Length, Is.LessThan(400L * 1024));
        Assert.That(
            _events.Zip(_events.Skip(1)).Any(p => p.Second.Timestamp < p.First.Timestamp),
            Is.True,
            "the .xel is in per-CPU buffer order, not time order"
        );
    }

    [Test]
    public void WaitEvents_HaveTheRealMetadata()
    {
        XeEventType Type(string name) => _events.First(e => e.Name == name).EventType;
        Assert.That(
            Type("wait_info_external").Fields.Select(f => f.Name),
            Is.EqualTo(new[] { "wait_type", "opcode", "duration" })
        );
        Assert.That(
            Type("wait_info").Fields.Select(f => (f.Name, f.TypeName)),
            Is.EqualTo(
                new[]
                {
                    ("wait_type", "wait_types"),
                    ("opcode", "event_opcode"),
                    ("duration", "uint64"),
                    ("signal_duration", "uint64"),
                    ("wait_resource", "ptr"),
                }
            )
        );
        Assert.That(
            Type("wait_completed").Fields.Select(f => (f.Name, f.TypeName)),
            Is.EqualTo(
                new[]
                {
                    ("wait_type", "wait_types"),
                    ("wait_result", "uint32"),
                    ("duration", "uint64"),
                    ("signal_duration", "uint64"),
                    ("wait_resource", "unicode_string"),
                }
            )
        );
        Assert.That(
            _events.Select(e => string.Join(",", e.Actions.Select(a => a.FullName))).Distinct(),
            Is.EqualTo(new[] { "sqlos.scheduler_id,sqlos.worker_address,package0.event_sequence" })
        );
    }

    [Test]
    public void EveryXmlEvent_IsTheCaptureEventWithTheSameEventSequence_ValueForValue()
    {
        var seen = new HashSet<ulong>();
        ulong previous = 0;
        foreach (XElement x in _xml.Elements("event"))
        {
            XElement[] actions = [.. x.Elements("action")];
            ulong sequence = ulong.Parse(
                actions.Single(a => (string?)a.Attribute("name") == "event_sequence").Element("value")!.Value,
                CultureInfo.InvariantCulture
            );
            Assert.That(sequence, Is.GreaterThan(previous), "the XML lists the events in true order");
            previous = sequence;
            Assert.That(seen.Add(sequence), Is.True);
            XEvent e = _bySequence[sequence];
            Assert.That((string?)x.Attribute("name"), Is.EqualTo(e.Name));
            Assert.That((string?)x.Attribute("package"), Is.EqualTo(e.PackageName));
            string stamp = (string)x.Attribute("timestamp")!;
            Assert.That(stamp, Does.Match(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$"));
            Assert.That(
                DateTime.ParseExact(
                    stamp,
                    "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'",
                    CultureInfo.InvariantCulture,
                    DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal
                ),
                Is.EqualTo(e.Timestamp)
            );

            XElement[] data = [.. x.Elements("data")];
            Assert.That(
                data.Select(d => (string?)d.Attribute("name")),
                Is.EqualTo(e.Fields.Select(f => f.Name)),
                "the fields in the event's metadata order"
            );
            for (int i = 0; i < data.Length; i++)
            {
                AssertSameValue(data[i], e.GetField(i), e.Fields[i]);
            }

            Assert.That(
                actions.Select(a => (string?)a.Attribute("package") + "." + (string?)a.Attribute("name")),
                Is.EqualTo(e.Actions.Select(a => a.FullName))
            );
            for (int i = 0; i < actions.Length; i++)
            {
                AssertSameValue(actions[i], e.GetAction(i), e.Actions[i]);
            }
        }

        Assert.That(seen, Has.Count.EqualTo(_events.Count));
    }

    [Test]
    public void ExpectedWaitTables_AreTheRawEventsSummed()
    {
        List<XEvent> waits = [.. _events.Where(e => e.Name.StartsWith("wait_", StringComparison.Ordinal))];
        bool Completed(XEvent e) => !e.TryGetField("opcode", out XeValue op) || op.MapText == "End";
        foreach (Dictionary<string, string> row in SampleData.Tsv(SampleData.Expected("ring_buffer_waits.waits.tsv")))
        {
            string type = row["wait_type"];
            List<XEvent> mine = [.. waits.Where(e => e.GetField("wait_type").MapText == type)];
            Assert.That(mine.Select(e => e.Name).Distinct(), Is.EqualTo(new[] { row["event"] }), type);
            Assert.That(
                mine.Select(e => e.GetField("wait_type").MapKey.ToString(CultureInfo.InvariantCulture)).Distinct(),
                Is.EqualTo(new[] { row["map_key"] }),
                type
            );
            List<XEvent> done = [.. mine.Where(Completed)];
            Assert.That(done, Has.Count.EqualTo(int.Parse(row["waits"], CultureInfo.InvariantCulture)), type);
            Assert.That(
                mine.Count - done.Count,
                Is.EqualTo(int.Parse(row["begins"], CultureInfo.InvariantCulture)),
                type
            );
            Assert.That(
                done.Sum(e => (long)e.GetField("duration").AsUInt64()),
                Is.EqualTo(long.Parse(row["total_duration_ms"], CultureInfo.InvariantCulture)),
                type
            );
            Assert.That(
                done.Max(e => (long)e.GetField("duration").AsUInt64()),
                Is.EqualTo(long.Parse(row["max_duration_ms"], CultureInfo.InvariantCulture)),
                type
            );
            string signal = done[0].TryGetField("signal_duration", out _)
                ? done.Sum(e => (long)e.GetField("signal_duration").AsUInt64()).ToString(CultureInfo.InvariantCulture)
                : "n/a";
            Assert.That(signal, Is.EqualTo(row["total_signal_duration_ms"]), type);
        }

        var resources = waits
            .Where(Completed)
            .Where(e => e.TryGetField("wait_resource", out _))
            .GroupBy(e => (Type: e.GetField("wait_type").MapText, Resource: e.GetField("wait_resource").ToString()))
            .Select(g => (g.Key.Type, g.Key.Resource, (long)g.Count()));
        Assert.That(
            SampleData
                .Tsv(SampleData.Expected("ring_buffer_waits.resources.tsv"))
                .Select(r =>
                    (r["wait_type"], r["wait_resource"], long.Parse(r["waits"], CultureInfo.InvariantCulture))
                ),
            Is.EquivalentTo(resources)
        );

        var results = waits
            .Where(e => e.Name == "wait_completed")
            .GroupBy(e =>
                (
                    Type: e.GetField("wait_type").MapText,
                    Result: e.GetField("wait_result").AsUInt64().ToString(CultureInfo.InvariantCulture)
                )
            )
            .Select(g => (g.Key.Type, g.Key.Result, (long)g.Count()));
        Assert.That(
            SampleData
                .Tsv(SampleData.Expected("ring_buffer_waits.results.tsv"))
                .Select(r => (r["wait_type"], r["wait_result"], long.Parse(r["events"], CultureInfo.InvariantCulture))),
            Is.EquivalentTo(results)
        );
        Assert.That(results.Select(r => r.Item2).Distinct().Count(), Is.GreaterThan(1), "more than one wait_result");

        foreach (
            IGrouping<ulong, XEvent> g in _events
                .Where(e => e.Name == "latch_acquired")
                .GroupBy(e => e.GetAction("scheduler_id").AsUInt64())
        )
        {
            Assert.That(
                g.Count(),
                Is.EqualTo(
                    SampleData.Figure(_figures, "latches.scheduler." + g.Key.ToString(CultureInfo.InvariantCulture))
                )
            );
        }
    }

    /// <summary>An XML value (<c>&lt;data&gt;</c> or <c>&lt;action&gt;</c>) against the capture's: type, value, map
    /// text.</summary>
    private static void AssertSameValue(XElement x, XeValue v, XeColumn column)
    {
        string where = column.Name;
        XElement type = x.Element("type")!;
        string value = x.Element("value")!.Value;
        if (column.Map is XeMap map)
        {
            Assert.That(
                ((string?)type.Attribute("name"), (string?)type.Attribute("package")),
                Is.EqualTo((map.Name, map.Package.Name)),
                where
            );
            Assert.That(value, Is.EqualTo(v.MapKey.ToString(CultureInfo.InvariantCulture)), where);
            Assert.That(x.Element("text")!.Value, Is.EqualTo(v.MapText), where);
            return;
        }

        Assert.That(x.Element("text"), Is.Null, where + ": only map fields carry text");
        Assert.That((string?)type.Attribute("package"), Is.EqualTo("package0"), where);
        Assert.That((string?)type.Attribute("name"), Is.EqualTo(column.TypeName), where);
        switch (column.BaseType)
        {
            case XeBaseType.Pointer:
                Assert.That(value, Does.Match("^0x[0-9a-f]{16}$"), where);
                Assert.That(
                    ulong.Parse(value.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture),
                    Is.EqualTo(v.AsUInt64()),
                    where
                );
                break;
            case XeBaseType.UnicodeString:
                Assert.That(value, Is.EqualTo(v.AsString()), where);
                break;
            default:
                Assert.That(value, Is.EqualTo(v.AsUInt64().ToString(CultureInfo.InvariantCulture)), where);
                break;
        }
    }
}

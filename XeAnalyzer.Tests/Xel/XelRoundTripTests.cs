using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>Files re-written by our writer read back to identical event lists.</summary>
public sealed class XelRoundTripTests
{
    /// <summary>A comparable rendering of an event: identity, time, every field and action (name, type, value, raw
    /// bytes).</summary>
    internal static string Describe(XEvent e)
    {
        var parts = new List<string>
        {
            e.FullName,
            e.Uuid.ToString(),
            e.Timestamp.ToString("o", System.Globalization.CultureInfo.InvariantCulture),
        };
        for (int i = 0; i < e.FieldCount; i++)
        {
            XeValue v = e.GetField(i);
            parts.Add(
                "F:"
                    + e.Fields[i].Name
                    + ":"
                    + e.Fields[i].TypeName
                    + "="
                    + v.ToString()
                    + "|"
                    + Convert.ToHexString(v.AsSpan())
            );
        }

        for (int i = 0; i < e.ActionCount; i++)
        {
            XeValue v = e.GetAction(i);
            parts.Add(
                "A:"
                    + e.Actions[i].FullName
                    + ":"
                    + e.Actions[i].TypeName
                    + "="
                    + v.ToString()
                    + "|"
                    + Convert.ToHexString(v.AsSpan())
            );
        }

        return string.Join("\u001f", parts);
    }

    internal static byte[] Rewrite(string path)
    {
        XeSchema source = XelReader.ReadSchema(path);
        List<XEvent> events = [.. XelReader.ReadEvents(path)];
        var schemaBuilder = new XeSchemaBuilder(source.PointerSize);
        schemaBuilder.ImportAll(source);
        XeSchema schema = schemaBuilder.Build();
        DateTime start =
            events.Count == 0 ? new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc) : events.Min(e => e.Timestamp);
        using var ms = new MemoryStream();
        using (
            var w = new XelWriter(
                ms,
                schema,
                new XelWriterOptions { StartTimeUtc = start, SplitMetadata = true },
                leaveOpen: true
            )
        )
        {
            foreach (XEvent e in events)
            {
                w.Write(e);
            }
        }

        return ms.ToArray();
    }

    private static void AssertSameEvents(string original, byte[] rewritten)
    {
        string copy = Path.Combine(Path.GetTempPath(), "xeanalyzer-rt-" + Guid.NewGuid().ToString("N") + ".xel");
        File.WriteAllBytes(copy, rewritten);
        try
        {
            string[] a = [.. XelReader.ReadEvents(original).Select(Describe)];
            string[] b = [.. XelReader.ReadEvents(copy).Select(Describe)];
            Assert.That(b, Has.Length.EqualTo(a.Length));
            Assert.That(a, Is.Not.Empty);
            Assert.That(b, Is.EqualTo(a));
        }
        finally
        {
            File.Delete(copy);
        }
    }

    private static IEnumerable<string> Fixtures() => XelFixtures.All.Select(f => f.Name);

    private static IEnumerable<string> Vectors() =>
        ["TestXel_0.xel", "sqlhealth.xel", "sqltrace.xel", "gatewaysample.xel"];

    [TestCaseSource(nameof(Fixtures))]
    public void Rewrite_ReadsBackIdentically_ForFixtures(string name)
    {
        string path = XelFixtures.PathOf(name);
        AssertSameEvents(path, Rewrite(path));
    }

    [TestCaseSource(nameof(Vectors))]
    public void Rewrite_ReadsBackIdentically_ForRealVectors(string name)
    {
        string path = TestPaths.RequireVector("xel", name);
        AssertSameEvents(path, Rewrite(path));
    }

    [Test]
    public void Write_ProducesSqlServerLayout_ForBuffersAndRecords()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        Assert.That(b[..8], Is.EqualTo(new byte[] { 0x5A, 0x37, 0xAB, 0xEF, 0x0A, 0x00, 0x00, 0x02 }));
        int pos = 512;
        int eventBuffers = 0;
        while (pos < b.Length)
        {
            int padded = BitConverter.ToInt32(b, pos + 16);
            ushort type = BitConverter.ToUInt16(b, pos + 14);
            Assert.That(padded % 512, Is.Zero);
            Assert.That(BitConverter.ToUInt16(b, pos + 12), Is.EqualTo(10));
            Assert.That(BitConverter.ToUInt16(b, pos + 22), Is.EqualTo(type == 0 ? 77 : 76));
            if (type == 0)
            {
                eventBuffers++;
                int first = pos + 77;
                uint flags = BitConverter.ToUInt32(b, first + 4);
                Assert.That(flags & 0x3F, Is.EqualTo(10u));
                Assert.That(flags >> 31, Is.EqualTo(1u));
                int payload = BitConverter.ToInt32(b, first + 20);
                int p = first + 24 + payload;
                uint rid;
                while (((rid = BitConverter.ToUInt32(b, p)) >> 28) == 1)
                {
                    p += 8 + BitConverter.ToInt32(b, p + 4);
                }

                Assert.That(rid, Is.EqualTo(0x60000000u));
                Assert.That(BitConverter.ToUInt32(b, p + 4), Is.Zero);
            }

            pos += padded;
        }

        Assert.That(pos, Is.EqualTo(b.Length));
        Assert.That(eventBuffers, Is.GreaterThan(1));
    }

    [Test]
    public void Write_MapsEventsAcrossSchemas_WhenImported()
    {
        string path = XelFixtures.PathOf("all-types.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(path, new XelReadOptions { EventNames = ["dup_event"] })];
        var schemaBuilder = new XeSchemaBuilder();
        schemaBuilder.ImportEvent(events[0].EventType);
        XeSchema schema = schemaBuilder.Build();
        using var ms = new MemoryStream();
        using (
            var w = new XelWriter(
                ms,
                schema,
                new XelWriterOptions { StartTimeUtc = XelFixtures.Start.AddHours(-1) },
                leaveOpen: true
            )
        )
        {
            foreach (XEvent e in events)
            {
                w.Write(e);
            }

            XeSchema other = XelFixtures.LatchSchema(out XeEventType latch, out _);
            Assert.That(() => w.Write(latch, XelFixtures.Start, []), Throws.ArgumentException);
            Assert.That(other, Is.Not.Null);
        }

        using var src = new XeAnalyzer.IO.MemoryRandomAccessSource(ms.ToArray(), "slice.xel");
        Assert.That(XelReader.ReadEvents(src).Select(Describe), Is.EqualTo(events.Select(Describe)));
    }
}

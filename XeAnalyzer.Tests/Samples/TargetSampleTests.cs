using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// The target-data XML samples written beside the captures: the event_counter of SEED-STACKS §1, the memory_clerk_name
/// histogram of §3 (sample 2's page_freed of session 64) and the wait_type histogram of sample 3 with its map values.
/// Each is parsed here with
/// <see cref="XDocument"/> and cross-checked against the raw events of its capture (read with
/// <see cref="Xel.XelReader"/>) and the generator's expected TSV files; no XeAnalyzer analysis is involved.
/// </summary>
public sealed class TargetSampleTests
{
    /// <summary>latch_acquired events of the seed's MAXDOP 2 run (SEED-STACKS §1).</summary>
    private const long SeedLatchAcquired = 347_435;

    [Test]
    public void EventCounter_HasTheCounterTargetShape_AndTheSeedsCount()
    {
        XElement root = XDocument.Load(SampleData.EventCounterPath).Root!;
        Assert.That(root.Name.LocalName, Is.EqualTo("CounterTarget"));
        Assert.That((string?)root.Attribute("truncated"), Is.EqualTo("0"));
        XElement[] packages = [.. root.Element("Packages")!.Elements("Package")];
        Assert.That(packages.Select(p => (string?)p.Attribute("name")), Is.EqualTo(new[] { "sqlserver" }));
        XElement[] events = [.. packages[0].Elements("Event")];
        Assert.That(
            events.Select(e => ((string?)e.Attribute("name"), (string?)e.Attribute("count"))),
            Is.EqualTo(new[] { ("latch_acquired", "347435") })
        );
        Assert.That(
            SampleData.Figure(SampleData.Figures(SampleData.Latch), "event_counter.count"),
            Is.EqualTo(SeedLatchAcquired)
        );
    }

    [Test]
    public void CallstackHistogramFolder_HoldsOnlyTheTwoHistograms()
    {
        // Tests copy every XML file of latch_nesting_full_histogram/ as "the two histograms"; the counter lives
        // elsewhere.
        string folder = Path.GetDirectoryName(SampleData.CallstackHistogramPath)!;
        Assert.That(
            Directory.GetFiles(folder).Select(Path.GetFileName).Order(StringComparer.Ordinal),
            Is.EqualTo(new[] { "latch_nesting_full.histogram.xml", "latch_nesting_full.tf3656.histogram.xml" })
        );
    }

    [Test]
    public void ClerkHistogram_SlotsArePlainClerkNames_CountingSession64sPageFreedPerClerkInTheCapture()
    {
        List<(string Value, long Count)> slots = Slots(SampleData.ClerkHistogramPath);
        var fromCapture = SampleData
            .ReadAll(SampleData.Memory)
            .Where(e => e.Name == "page_freed" && e.GetAction("session_id").AsUInt64() == 64)
            .GroupBy(e => e.GetField("memory_clerk_name").AsString())
            .ToDictionary(g => g.Key, g => (long)g.Count(), StringComparer.Ordinal);

        Assert.That(
            slots.ToDictionary(s => s.Value, s => s.Count, StringComparer.Ordinal),
            Is.EquivalentTo(fromCapture)
        );
        Assert.That(
            slots.Select(s => s.Count),
            Is.Ordered.Descending,
            "slots by descending count, as the server writes them"
        );
        Assert.That(slots[0].Value, Is.EqualTo("MEMORYCLERK_SQLQERESERVATIONS"));
        Assert.That(slots.Skip(1).Select(s => s.Value), Has.All.StartWith("MEMORYCLERK_"), "a few other clerks");
        Assert.That(slots, Has.Count.InRange(3, 6));
        Assert.That(
            slots.Sum(s => s.Count),
            Is.EqualTo(SampleData.Figure(SampleData.Figures(SampleData.Memory), "session64.page_freed"))
        );

        // The expected TSV holds the same rows with their shares (two decimals).
        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("cci_insert_memory.page_freed_clerks.tsv")
        );
        long total = slots.Sum(s => s.Count);
        Assert.That(
            expected.Select(r => (r["memory_clerk_name"], long.Parse(r["count"], CultureInfo.InvariantCulture))),
            Is.EqualTo(slots)
        );
        foreach (Dictionary<string, string> r in expected)
        {
            double share = 100.0 * long.Parse(r["count"], CultureInfo.InvariantCulture) / total;
            Assert.That(
                double.Parse(r["share_percent"], CultureInfo.InvariantCulture),
                Is.EqualTo(share).Within(0.005),
                r["memory_clerk_name"]
            );
        }
    }

    [Test]
    public void WaitTypeHistogram_SlotsAreMapKeys_CountingTheEndEventsOfTheWaitSample()
    {
        List<(string Value, long Count)> slots = Slots(SampleData.WaitTypeHistogramPath);
        var fromCapture = SampleData
            .ReadAll(SampleData.Waits)
            .Where(e => e.Name is "wait_info" or "wait_info_external" && e.GetField("opcode").MapText == "End")
            .GroupBy(e => e.GetField("wait_type").MapKey)
            .ToDictionary(
                g => g.Key.ToString(CultureInfo.InvariantCulture),
                g => (long)g.Count(),
                StringComparer.Ordinal
            );

        Assert.That(
            slots.Select(s => s.Value),
            Has.All.Match("^[0-9]+$"),
            "a map field's slot holds the numeric key, no text"
        );
        Assert.That(
            slots.ToDictionary(s => s.Value, s => s.Count, StringComparer.Ordinal),
            Is.EquivalentTo(fromCapture)
        );
        Assert.That(slots.Select(s => s.Count), Is.Ordered.Descending);

        List<Dictionary<string, string>> expected = SampleData.Tsv(
            SampleData.Expected("blob_storage_waits.wait_type_histogram.tsv")
        );
        Assert.That(
            expected.Select(r => (r["map_key"], long.Parse(r["count"], CultureInfo.InvariantCulture))),
            Is.EqualTo(slots)
        );
        foreach (Dictionary<string, string> r in expected)
        {
            Assert.That(
                long.Parse(r["count"], CultureInfo.InvariantCulture),
                Is.EqualTo(
                    SampleData.Figure(SampleData.Figures(SampleData.Waits), "wait." + r["wait_type"] + ".waits")
                ),
                r["wait_type"]
            );
        }
    }

    [Test]
    public void MapValues_AreTheMapsOfTheWaitCapture_AsSysDmXeMapValuesReturnsThem()
    {
        string[] lines = File.ReadAllLines(SampleData.MapValuesPath);
        Assert.That(lines[0], Is.EqualTo("name\tmap_key\tmap_value"));
        var rows = lines.Skip(1).Select(l => l.Split('\t')).ToList();
        Assert.That(rows, Has.All.Length.EqualTo(3));

        XEvent wait = SampleData.ReadAll(SampleData.Waits).First(e => e.Name == "wait_info");
        foreach (string field in new[] { "wait_type", "opcode" })
        {
            XeMap map = wait.GetField(field).Map!;
            var fromFile = rows.Where(r => r[0] == map.Name)
                .Select(r => (uint.Parse(r[1], CultureInfo.InvariantCulture), r[2]));
            Assert.That(fromFile, Is.EquivalentTo(map.Entries.Select(e => (e.Key, e.Name))), map.Name);
        }

        Assert.That(
            rows.Select(r => r[0]).Distinct().Order(StringComparer.Ordinal),
            Is.EqualTo(new[] { "event_opcode", "wait_types" })
        );
        Assert.That(rows.Single(r => r[0] == "wait_types" && r[1] == "1086")[2], Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
    }

    [Test]
    public void FieldHistograms_HaveTheHistogramTargetShape()
    {
        foreach (string path in new[] { SampleData.ClerkHistogramPath, SampleData.WaitTypeHistogramPath })
        {
            XElement root = XDocument.Load(path).Root!;
            Assert.That(root.Name.LocalName, Is.EqualTo("HistogramTarget"), path);
            Assert.That((string?)root.Attribute("truncated"), Is.EqualTo("0"), path);
            Assert.That((string?)root.Attribute("buckets"), Is.EqualTo("256"), path);
            Assert.That(root.Elements().Select(e => e.Name.LocalName), Has.All.EqualTo("Slot"), path);
            Assert.That(root.Elements().Count(), Is.LessThan(256), "fewer slots than buckets: nothing merged");
        }
    }

    private static List<(string Value, long Count)> Slots(string path) =>
        [
            .. XDocument
                .Load(path)
                .Root!.Elements("Slot")
                .Select(s =>
                    (s.Element("value")!.Value, long.Parse((string)s.Attribute("count")!, CultureInfo.InvariantCulture))
                ),
        ];
}

using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 4 (sample-xel/latch_nesting_full_histogram): the histogram target of sample 1's scenario as SQL Server
/// renders it with trace flags 3656 + 2592 (frames symbolized in-engine) and without (module+offset). Cross-checked
/// against the raw capture of sample 1, its sidecar and the fixture RVAs, and against
/// sample-xel/expected/latch_nesting_full.stacks.tsv.
/// </summary>
public sealed class LatchHistogramSampleTests
{
    private static readonly string Folder = Path.Combine(TestPaths.Samples, "latch_nesting_full_histogram");

    private List<(int Count, string[] Frames)> _symbolized = null!;
    private List<(int Count, string[] Frames)> _moduleOffset = null!;
    private List<(ulong[] Frames, int Count)> _captureBuckets = null!;
    private SampleData.Modules _modules = null!;

    [OneTimeSetUp]
    public void ReadSamples()
    {
        _symbolized = Slots(Path.Combine(Folder, "latch_nesting_full.tf3656.histogram.xml"));
        _moduleOffset = Slots(Path.Combine(Folder, "latch_nesting_full.histogram.xml"));
        _captureBuckets = LatchSampleTests.Buckets(SampleData.ReadAll(SampleData.Latch));
        _modules = new SampleData.Modules(SampleData.SidecarPath(SampleData.Latch));
    }

    [Test]
    public void SlotCounts_EqualTheDistinctCallstackCountsOfSample1()
    {
        Assert.That(_symbolized.Select(s => s.Count), Is.EqualTo(_captureBuckets.Select(b => b.Count)));
        Assert.That(_moduleOffset.Select(s => s.Count), Is.EqualTo(_captureBuckets.Select(b => b.Count)));
        Assert.That(_symbolized.Sum(s => s.Count), Is.EqualTo(_captureBuckets.Sum(b => b.Count)));
    }

    [Test]
    public void ModuleOffsetSlots_AreTheRawStacksOfSample1_RebasedWithTheSidecar()
    {
        // Render each raw stack of the capture the way SQL Server renders an unsymbolized slot; the set of (count,
        // frames) must match.
        var fromCapture = _captureBuckets
            .Select(b =>
                b.Count.ToString(CultureInfo.InvariantCulture)
                + "|"
                + string.Join("\n", b.Frames.Select(_modules.ModuleOffset))
            )
            .Order(StringComparer.Ordinal);
        var fromXml = _moduleOffset
            .Select(s => s.Count.ToString(CultureInfo.InvariantCulture) + "|" + string.Join("\n", s.Frames))
            .Order(StringComparer.Ordinal);
        Assert.That(fromXml, Is.EqualTo(fromCapture));
    }

    [Test]
    public void SymbolizedTopSlots_AreExactlyTheSeedStacks()
    {
        Dictionary<string, List<SampleData.FixtureFrame>> fixtures = SampleData.FixtureStacks();
        string[] ids = ["A", "B", "C"];
        for (int i = 0; i < 3; i++)
        {
            string[] expected = [.. fixtures[ids[i]].Select(f => f.ModuleFile + "!" + f.Function + "+" + f.Offset)];
            Assert.That(
                _symbolized[i].Frames,
                Is.EqualTo(expected),
                "slot " + i.ToString(CultureInfo.InvariantCulture) + " is stack " + ids[i]
            );
        }

        // Spot checks against the published text (SEED-STACKS.md §1).
        Assert.That(_symbolized[0].Frames[0], Is.EqualTo("sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9"));
        Assert.That(_symbolized[0].Frames[19], Is.EqualTo("sqlTsEs.dll!CDefaultCollation::IHashW+0x227"));
        Assert.That(_symbolized[1].Frames[6], Is.EqualTo("sqlmin.dll!AllocExtentFromGAMPage+0x8ef"));
        Assert.That(_symbolized[2].Frames[23], Is.EqualTo("sqlmin.dll!FnProducerThread+0x80b"));
    }

    [Test]
    public void SymbolizedFrames_NameTheSameRvasAsTheModuleOffsetFrames()
    {
        // function+offset -> RVA through the fixture table (never through our symbol code).
        var rvaOf = new Dictionary<string, ulong>(StringComparer.Ordinal);
        foreach (
            SampleData.FixtureFrame f in SampleData
                .FixtureStacks()
                .Values.SelectMany(x => x)
                .Where(f => f.Function != "-")
        )
        {
            rvaOf[f.ModuleFile + "!" + f.Function + "+" + f.Offset] = f.Rva;
        }

        Assert.That(_symbolized, Has.Count.EqualTo(_moduleOffset.Count));
        int outside = 0;
        for (int i = 0; i < _symbolized.Count; i++)
        {
            Assert.That(_symbolized[i].Count, Is.EqualTo(_moduleOffset[i].Count));
            Assert.That(_symbolized[i].Frames, Has.Length.EqualTo(_moduleOffset[i].Frames.Length));
            for (int f = 0; f < _symbolized[i].Frames.Length; f++)
            {
                string sym = _symbolized[i].Frames[f];
                string raw = _moduleOffset[i].Frames[f];
                if (sym.StartsWith("0x", StringComparison.Ordinal))
                {
                    // A frame in no module renders as the bare address with and without the trace flag.
                    Assert.That(raw, Is.EqualTo(sym));
                    Assert.That(SampleData.Hex(sym), Is.LessThan(_modules.LowestBase));
                    outside++;
                    continue;
                }

                string module = sym[..sym.IndexOf('!', StringComparison.Ordinal)];
                Assert.That(rvaOf.ContainsKey(sym), Is.True, "a fixture frame: " + sym);
                Assert.That(raw, Is.EqualTo(module + "+0x" + rvaOf[sym].ToString("X16", CultureInfo.InvariantCulture)));
            }
        }

        Assert.That(outside, Is.GreaterThan(0), "the tail includes a frame in no module");
    }

    [Test]
    public void ExpectedStacksTsv_DescribesBothHistograms_FrameByFrame()
    {
        List<Dictionary<string, string>> rows = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")
        );
        var slots = rows.GroupBy(r => int.Parse(r["slot"], CultureInfo.InvariantCulture)).OrderBy(g => g.Key).ToList();
        Assert.That(slots, Has.Count.EqualTo(_symbolized.Count));
        foreach (var slot in slots)
        {
            Assert.That(
                slot.Select(r => int.Parse(r["count"], CultureInfo.InvariantCulture)).Distinct().Single(),
                Is.EqualTo(_symbolized[slot.Key].Count)
            );
            Assert.That(slot.Select(r => r["symbolized"]), Is.EqualTo(_symbolized[slot.Key].Frames));
            Assert.That(slot.Select(r => r["module_offset"]), Is.EqualTo(_moduleOffset[slot.Key].Frames));
            Assert.That(
                slot.Select(r => _modules.ModuleOffset(SampleData.Hex(r["address"]))),
                Is.EqualTo(_moduleOffset[slot.Key].Frames)
            );
        }
    }

    [Test]
    public void HistogramXml_HasTheHistogramTargetShape()
    {
        foreach (string file in new[] { "latch_nesting_full.tf3656.histogram.xml", "latch_nesting_full.histogram.xml" })
        {
            XElement root = XDocument.Load(Path.Combine(Folder, file)).Root!;
            Assert.That(root.Name.LocalName, Is.EqualTo("HistogramTarget"));
            Assert.That((string?)root.Attribute("truncated"), Is.EqualTo("0"));
            Assert.That((string?)root.Attribute("buckets"), Is.EqualTo("256"));
            Assert.That(root.Elements().Select(e => e.Name.LocalName), Has.All.EqualTo("Slot"));
        }
    }

    private static List<(int Count, string[] Frames)> Slots(string path)
    {
        XElement root = XDocument.Load(path).Root!;
        return
        [
            .. root.Elements("Slot")
                .Select(s =>
                    (
                        int.Parse((string)s.Attribute("count")!, CultureInfo.InvariantCulture),
                        s.Element("value")!.Value.Split('\n')
                    )
                ),
        ];
    }
}

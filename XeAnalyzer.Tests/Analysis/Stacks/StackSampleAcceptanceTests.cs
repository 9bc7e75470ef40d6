using System.Globalization;
using System.Xml.Linq;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// Acceptance on the committed samples: sample 1 (raw addresses + sidecar, resolved offline with symbols-cache) and
/// both renderings of sample 4 (histogram symbolized in-engine, histogram module+offset) give the buckets of
/// sample-xel/expected/latch_nesting_full.stacks.tsv, which the sample generator wrote from its input model (never from
/// XeAnalyzer's analysis or symbol code). Then the real histogram and ring-buffer vectors (when ../shared/vectors is
/// present): every slot count is kept.
/// </summary>
public sealed class StackSampleAcceptanceTests
{
    private static readonly string HistogramFolder = Path.Combine(TestPaths.Samples, "latch_nesting_full_histogram");

    /// <summary>The expected buckets: (count, frames leaf first) per slot, from the generator's TSV.</summary>
    private static List<(long Count, string[] Frames)> ExpectedBuckets(Func<Dictionary<string, string>, string> frame)
    {
        List<Dictionary<string, string>> rows = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")
        );
        return
        [
            .. rows.GroupBy(r => int.Parse(r["slot"], CultureInfo.InvariantCulture))
                .OrderBy(g => g.Key)
                .Select(g =>
                    (
                        long.Parse(g.First()["count"], CultureInfo.InvariantCulture),
                        g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture)).Select(frame).ToArray()
                    )
                ),
        ];
    }

    private static CallstackResolver Resolver(bool offsets = true) =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
                IncludeOffsets = offsets,
            }
        );

    /// <summary>A resolver with no symbols at all: the vectors come from SQL Server 13.0.4001, whose PDBs are not
    /// committed (the fixture PDBs share module names, so they must not be on the path).</summary>
    private static CallstackResolver NoSymbols() => new(new CallstackResolverOptions { Offline = true });

    private static string Key(long count, IEnumerable<string> frames) =>
        count.ToString(CultureInfo.InvariantCulture) + "|" + string.Join("\n", frames);

    private static IEnumerable<string> Keys(StackBucketResult r) => r.Buckets.Select(b => Key(b.Count, b.Frames));

    private static IEnumerable<string> Keys(IEnumerable<(long Count, string[] Frames)> buckets) =>
        buckets.Select(b => Key(b.Count, b.Frames));

    public static IEnumerable<TestCaseData> SampleInputs()
    {
        yield return new TestCaseData(Path.Combine(TestPaths.Samples, "latch_nesting_full")).SetArgDisplayNames(
            "sample1-xel"
        );
        yield return new TestCaseData(
            Path.Combine(HistogramFolder, "latch_nesting_full.tf3656.histogram.xml")
        ).SetArgDisplayNames("sample4-tf3656");
        yield return new TestCaseData(
            Path.Combine(HistogramFolder, "latch_nesting_full.histogram.xml")
        ).SetArgDisplayNames("sample4-module-offset");
    }

    [TestCaseSource(nameof(SampleInputs))]
    public void AnalyzeFiles_LatchSample_GivesTheGeneratorsBuckets_WithTheSameCounts(string input)
    {
        using CallstackResolver resolver = Resolver();
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([input]), new AnalysisContext(resolver: resolver))
            .Result;
        List<(long Count, string[] Frames)> expected = ExpectedBuckets(row => row["symbolized"]);

        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.TotalBuckets, Is.EqualTo(expected.Count));
        Assert.That(r.TotalCount, Is.EqualTo(expected.Sum(e => e.Count)));
        Assert.That(Keys(r).Order(StringComparer.Ordinal), Is.EqualTo(Keys(expected).Order(StringComparer.Ordinal)));

        // The three top buckets are the seed's stacks A, B, C with exactly the published text, in count order.
        Assert.That(r.Buckets[0].Frames, Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(r.Buckets.Take(3).Select(b => b.Count), Is.EqualTo(expected.Take(3).Select(e => e.Count)));
        Assert.That(r.Buckets.Take(3).Select(b => b.Frames), Is.EqualTo(expected.Take(3).Select(e => e.Frames)));

        // Only the out-of-module frame of stack T6 stays unresolved, kept as its raw address.
        Assert.That(
            r.Buckets.SelectMany(b => b.FrameDetails)
                .Where(f => f.Status == FrameResolutionStatus.Unresolved)
                .Select(f => f.Text)
                .Distinct(),
            Is.EqualTo(new[] { "0x000002A61C3D8F10" })
        );
    }

    [Test]
    public void ToReport_BucketTable_ShowsEachBucketsDistinguishingFrame()
    {
        using CallstackResolver resolver = Resolver();
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([Path.Combine(TestPaths.Samples, "latch_nesting_full")]),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        XeAnalyzer.Output.ReportTable table = new StackBucketDocument(r).OverviewTable();
        Assert.That(table.Columns[^1].Name, Is.EqualTo("distinguishing frame"));

        // Brute force, independently of the writer: the first frame where a bucket parts from every larger bucket
        // (bucket 1: from bucket 2).
        for (int i = 0; i < r.Buckets.Count; i++)
        {
            IReadOnlyList<string> f = r.Buckets[i].Frames;
            IEnumerable<StackBucket> larger = i == 0 ? r.Buckets.Skip(1).Take(1) : r.Buckets.Take(i);
            int depth = larger.Max(o => f.Zip(o.Frames).TakeWhile(p => p.First == p.Second).Count());
            string expected = depth < f.Count ? f[depth] : "(all its frames begin a larger stack)";
            Assert.That(table.Rows[i][^1].Text, Is.EqualTo(expected), "bucket " + (i + 1));
            if (depth < f.Count)
            {
                Assert.That(
                    table.Rows[i][^2].Integer,
                    Is.EqualTo(depth + 1),
                    "bucket " + (i + 1) + ": frame number, leaf = 1"
                );
            }
        }

        // The seed's stacks A, B and C share their leaf frames and part at the PFS, GAM and IAM code.
        string?[] top = [.. table.Rows.Take(3).Select(row => row[^1].Text)];
        Assert.That(top.Distinct().Count(), Is.EqualTo(3), string.Join(" | ", top));
        Assert.That(top[0], Does.Contain("PFS"), string.Join(" | ", top));
        Assert.That(
            table.Rows.Take(3).Select(row => row[^2].Integer),
            Has.All.GreaterThan(1),
            "the leaf frame is shared, so it does not distinguish"
        );
    }

    [Test]
    public void AnalyzeFiles_AllThreeRenderings_GiveIdenticalBuckets()
    {
        using CallstackResolver resolver = Resolver();
        string[][] keys =
        [
            .. SampleInputs()
                .Select(t =>
                    Keys(
                            new StackBucketAnalysis()
                                .Analyze(
                                    CaptureSource.Open([(string)t.Arguments[0]!]),
                                    new AnalysisContext(resolver: resolver)
                                )
                                .Result
                        )
                        .ToArray()
                ),
        ];
        Assert.That(keys[1], Is.EqualTo(keys[0]));
        Assert.That(keys[2], Is.EqualTo(keys[0]));
    }

    [Test]
    public void AnalyzeFiles_Sample1WithoutOffsets_MergesStacksThatDifferOnlyByOffsets()
    {
        // Expected: the generator's buckets grouped by frames without their "+0x…" displacement.
        var expected = ExpectedBuckets(row =>
                row["function"] == "-" ? row["symbolized"] : row["module"] + "!" + row["function"]
            )
            .GroupBy(b => string.Join("\n", b.Frames))
            .Select(g => (Count: g.Sum(x => x.Count), Frames: g.First().Frames))
            .ToList();
        Assert.That(expected, Has.Count.LessThan(14), "test setup: some sample buckets differ only by offsets");

        using CallstackResolver resolver = Resolver(offsets: false);
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([Path.Combine(TestPaths.Samples, "latch_nesting_full")]),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        Assert.That(Keys(r).Order(StringComparer.Ordinal), Is.EqualTo(Keys(expected).Order(StringComparer.Ordinal)));
        Assert.That(r.MergedRawStacks, Is.EqualTo(14 - expected.Count));
    }

    [Test]
    public void AnalyzeFiles_Sample1_ReportsTheSidecarAndResolvesEachDistinctStackOnce()
    {
        using CallstackResolver resolver = Resolver();
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([Path.Combine(TestPaths.Samples, "latch_nesting_full")]),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        StackInputSummary input = r.Inputs.Single();
        Assert.That(input.ModuleMapSource, Is.EqualTo(ModuleMapSource.Sidecar));
        Assert.That(Path.GetFileName(input.ModuleMapPath), Is.EqualTo("latch_nesting_full.modules.txt"));
        Assert.That(input.DistinctRawStacks, Is.EqualTo(14));
        Assert.That(input.Resolution.Stacks, Is.EqualTo(14));
        Assert.That(input.Resolution.Unresolved, Is.EqualTo(1));
        Assert.That(input.Resolution.Unverified, Is.EqualTo(0));
        Assert.That(input.Resolution.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.NoModuleForAddress));
        Assert.That(r.EventsWithStack, Is.EqualTo(6043));
    }

    public static IEnumerable<TestCaseData> HistogramVectors()
    {
        yield return new TestCaseData("lock_hash_histogram.xml").SetArgDisplayNames("lock_hash");
        yield return new TestCaseData("memobj_histogram.xml").SetArgDisplayNames("memobj");
    }

    [TestCaseSource(nameof(HistogramVectors))]
    public void AnalyzeFiles_RealHistogramVector_KeepsEverySlotCount(string name)
    {
        string path = TestPaths.RequireVector("target-xml", name);

        // The slots as XML sees them (independent of our readers): their counts, and their frame lists (normalised
        // blanks).
        XElement root = XDocument.Load(path).Root!;
        var slots = root.Elements("Slot")
            .Select(s =>
                (
                    Count: long.Parse(s.Attribute("count")!.Value, CultureInfo.InvariantCulture),
                    Frames: string.Join(
                        "\n",
                        s.Element("value")!.Value.Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0)
                    )
                )
            )
            .ToList();
        int buckets = int.Parse(root.Attribute("buckets")!.Value, CultureInfo.InvariantCulture);

        using CallstackResolver resolver = NoSymbols();
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([path]), new AnalysisContext(resolver: resolver))
            .Result;
        Assert.That(r.HistogramSlots, Is.EqualTo(slots.Count));
        Assert.That(r.TotalCount, Is.EqualTo(slots.Sum(s => s.Count)), "sum of bucket counts = sum of slot counts");
        Assert.That(r.Buckets.Sum(b => b.Count), Is.EqualTo(slots.Sum(s => s.Count)));
        Assert.That(r.TotalBuckets, Is.EqualTo(slots.Count - r.MergedRawStacks));

        // No symbols, so every frame stays module+offset: slots merge only if their text is the same.
        Assert.That(r.TotalBuckets, Is.EqualTo(slots.Select(s => s.Frames).Distinct(StringComparer.Ordinal).Count()));
        Assert.That(r.MayHaveMergedHistogramValues, Is.EqualTo(slots.Count >= buckets));
        Assert.That(r.Buckets[0].Count, Is.EqualTo(slots.Max(s => s.Count)));
    }

    [Test]
    public void AnalyzeFiles_RingBufferVector_CountsEveryEventWithACallstack()
    {
        string path = TestPaths.RequireVector("target-xml", "oom_ring_buffer.xml");
        XElement root = XDocument.Load(path).Root!;
        var stacks = root.Elements("event")
            .Select(e =>
                e.Elements("action")
                    .FirstOrDefault(a => (string?)a.Attribute("name") == "callstack")
                    ?.Element("value")
                    ?.Value
            )
            .Where(v => v is not null)
            .Select(v => string.Join("\n", v!.Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0)))
            .ToList();
        Assert.That(stacks, Is.Not.Empty);

        using CallstackResolver resolver = NoSymbols();
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([path]), new AnalysisContext(resolver: resolver))
            .Result;
        Assert.That(r.TotalCount, Is.EqualTo(stacks.Count));
        Assert.That(r.TotalBuckets, Is.EqualTo(stacks.Distinct(StringComparer.Ordinal).Count()));
        Assert.That(r.Buckets.All(b => b.EventName == "sqlserver.error_reported"), Is.True);
        Assert.That(
            r.Buckets[0].Frames,
            Is.EqualTo(stacks.GroupBy(s => s).OrderByDescending(g => g.Count()).First().Key.Split('\n'))
        );
    }
}

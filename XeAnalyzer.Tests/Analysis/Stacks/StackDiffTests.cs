using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Tests.Symbols.Resolution;
using XeAnalyzer.Xel;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary><see cref="StackDiff"/> on two synthetic captures of different process lifetimes, and sample 1 against a
/// slice of itself.</summary>
public sealed class StackDiffTests
{
    private StackCaptures _c = null!;
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp()
    {
        _c = new StackCaptures();
        _tmp = new TempFolder();
    }

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    private static string[] Engine(string id) => [.. Seed(id).Select(f => f.Engine)];

    /// <summary>Base: A×10, B×5 in process A; new: A×12, B×5, C×3 in process B (other module bases).</summary>
    private (StackBucketResult Base, StackBucketResult New) TwoCaptures(CallstackResolver resolver)
    {
        XEvent[] Many(string id, int n, IReadOnlyDictionary<string, ulong> bases) =>
            [.. Enumerable.Range(0, n).Select(i => _c.Latch(At(i), Addresses(Seed(id), bases)))];
        StackBucketResult b = new StackBucketAnalysis().Analyze(
            [.. Many("A", 10, BasesA), .. Many("B", 5, BasesA)],
            resolver.CreateSession(Map(BasesA))
        );
        StackBucketResult n = new StackBucketAnalysis().Analyze(
            [.. Many("A", 12, BasesB), .. Many("B", 5, BasesB), .. Many("C", 3, BasesB)],
            resolver.CreateSession(Map(BasesB))
        );
        return (b, n);
    }

    [Test]
    public void Compare_OtherModuleBasesSameFunctions_MatchesStacks_AndListsTheExtraStackAsNew()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (StackBucketResult b, StackBucketResult n) = TwoCaptures(resolver);
        StackDiff d = StackDiff.Compare(b, n);

        Assert.That(d.MatchedByEvent, Is.True);
        Assert.That(d.BaseTotal, Is.EqualTo(15));
        Assert.That(d.NewTotal, Is.EqualTo(20));
        Assert.That(d.TotalGrowth, Is.EqualTo(5.0 / 15).Within(1e-12));

        // Share deltas: C 0 -> 3/20, A 10/15 -> 12/20, B 5/15 -> 5/20: growth first.
        Assert.That(d.Changes.Select(c => c.Frames), Is.EqualTo(new[] { Engine("C"), Engine("A"), Engine("B") }));
        Assert.That(
            d.Changes.Select(c => c.Kind),
            Is.EqualTo(new[] { StackChangeKind.New, StackChangeKind.Common, StackChangeKind.Common })
        );
        StackBucketChange a = d.Changes[1];
        Assert.That((a.BaseCount, a.NewCount, a.Delta), Is.EqualTo((10L, 12L, 2L)));
        Assert.That(a.BaseShare, Is.EqualTo(10.0 / 15).Within(1e-12));
        Assert.That(a.NewShare, Is.EqualTo(12.0 / 20).Within(1e-12));
        Assert.That(a.ShareDelta, Is.EqualTo((12.0 / 20) - (10.0 / 15)).Within(1e-12));
        Assert.That(d.NewStacks.Single().Frames, Is.EqualTo(Engine("C")));
        Assert.That(d.VanishedStacks, Is.Empty);

        StackDiff reverse = StackDiff.Compare(n, b);
        Assert.That(reverse.VanishedStacks.Single().Frames, Is.EqualTo(Engine("C")));
        Assert.That(reverse.VanishedStacks.Single().NewCount, Is.Zero);
        Assert.That(reverse.NewStacks, Is.Empty);
    }

    [Test]
    public void Check_Gates_TripOnlyAboveTheirLimits_AndSayWhat()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (StackBucketResult b, StackBucketResult n) = TwoCaptures(resolver);
        StackDiff d = StackDiff.Compare(b, n);

        Assert.That(d.Check(30, null).Tripped, Is.True, "total grew 33.3 %");
        Assert.That(d.Check(30, null).Reasons.Single(), Does.Contain("grew by more than 30 %"));
        Assert.That(d.Check(34, null).Tripped, Is.False);
        Assert.That(d.Check(null, 14.9).Tripped, Is.True, "stack C went from 0 % to 15 %");
        Assert.That(
            d.Check(null, 14.9).Reasons.Single(),
            Does.Contain("new stack sqlserver.latch_acquired " + Leaves(Engine("C"), Engine("A"), Engine("B")).Name)
        );
        Assert.That(d.Check(null, 15.1).Tripped, Is.False);
        Assert.That(d.Check(null, null).Tripped, Is.False);
        Assert.That(StackDiff.Compare(b, b).Check(0, 0).Tripped, Is.False, "no change trips nothing");
    }

    /// <summary>
    /// Where <paramref name="stack"/> leaves every one of <paramref name="others"/> (the longest run of leaf frames it
    /// shares with one of them; its last frame if that is all of it), and its name there: the frame before and that
    /// frame, or at the leaf the leaf and its caller. Computed here, apart from StackDiff.
    /// </summary>
    private static (int At, string Name) Leaves(string[] stack, params string[][] others)
    {
        int shared = others.Max(o => stack.Zip(o).TakeWhile(p => p.First == p.Second).Count());
        int at = Math.Min(shared, stack.Length - 1);
        return (at, at > 0 ? stack[at - 1] + " <- " + stack[at] : stack[0] + " <- " + stack[1]);
    }

    private static string Ic(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);

    [Test]
    public void Names_EachStackWhereItLeavesEveryOtherStack_NotByTheSharedLeaf()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (StackBucketResult b, StackBucketResult n) = TwoCaptures(resolver);
        StackDiff d = StackDiff.Compare(b, n);
        Assert.That(Engine("A")[0], Is.EqualTo(Engine("C")[0]), "test setup: the seed stacks share their leaf");

        var table = new StackDiffDocument(d).Table();
        int column = table.Columns.ToList().FindIndex(c => c.Name == "distinguishing_frames");
        var cases = new[]
        {
            ("A", Engine("B"), Engine("C")),
            ("B", Engine("A"), Engine("C")),
            ("C", Engine("A"), Engine("B")),
        };
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach ((string id, string[] others1, string[] others2) in cases)
        {
            string[] frames = Engine(id);
            (int at, string name) = Leaves(frames, others1, others2);
            Assert.That(at, Is.GreaterThan(0), "test setup: " + id + " shares its leaf frames with the others");
            StackBucketChange change = d.Changes.Single(c => c.Frames.SequenceEqual(frames));
            Assert.That(d.DistinguishingFrame(change), Is.EqualTo(at));
            Assert.That(d.NameOf(change), Is.EqualTo(name));
            int row = d.Changes.ToList().IndexOf(change);
            Assert.That(table.Rows[row][column].Text, Is.EqualTo(name));
            names.Add(name);
        }

        Assert.That(names, Has.Count.EqualTo(3), "each stack has a name of its own");
        string listing = OutputFormats.ToText(new StackDiffDocument(d));
        (int c0, string c) = Leaves(Engine("C"), Engine("A"), Engine("B"));
        Assert.That(
            listing,
            Does.Contain(Ic($"told apart by frame {c0 + 1}") + ", where it leaves every other stack: " + c)
        );
        Assert.That(
            d.Check(null, 1).Reasons.Single(),
            Does.Contain(c + Ic($" (frame {c0 + 1} of {Engine("C").Length}, where it leaves every other stack)"))
        );
    }

    [Test]
    public void Names_AStackAllOfWhoseFramesBeginAnother_ByItsOutermostFrame()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        IReadOnlyList<Frame> shortA = [.. Seed("A").Take(10)];
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA)), _c.Latch(At(1), Addresses(shortA, BasesA))],
            resolver.CreateSession(Map(BasesA))
        );
        StackDiff d = StackDiff.Compare(r, r);
        StackBucketChange shortest = d.Changes.Single(c => c.Frames.Count == 10);
        Assert.That(d.DistinguishingFrame(shortest), Is.EqualTo(9));
        Assert.That(d.NameOf(shortest), Is.EqualTo(Engine("A")[8] + " <- " + Engine("A")[9]));
        Assert.That(d.DistinguishingFrame(d.Changes.Single(c => c.Frames.Count > 10)), Is.EqualTo(10));
    }

    [Test]
    public void Names_TheOnlyStack_ByItsLeafAndCaller()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult one = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA))],
            resolver.CreateSession(Map(BasesA))
        );
        StackDiff d = StackDiff.Compare(one, one);
        Assert.That(d.NameOf(d.Changes.Single()), Is.EqualTo(Engine("A")[0] + " <- " + Engine("A")[1]));
    }

    [Test]
    public void RawAddressesOfTwoProcessLifetimes_AreSaidToBeIncomparableWithoutSymbols()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult b = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA)), _c.Latch(At(1), Addresses(Seed("A"), BasesA))],
            resolver.CreateSession()
        );
        StackBucketResult n = new StackBucketAnalysis().Analyze(
            [.. Enumerable.Range(0, 3).Select(i => _c.Latch(At(i), Addresses(Seed("A"), BasesB)))],
            resolver.CreateSession()
        );
        StackDiff d = StackDiff.Compare(b, n);

        Assert.That(
            d.Changes.Select(c => c.Kind),
            Is.EquivalentTo(new[] { StackChangeKind.New, StackChangeKind.Vanished }),
            "the same code, other addresses"
        );
        Assert.That(
            d.Warnings.Single(),
            Does.StartWith(
                "raw addresses are incomparable without symbols: "
                    + "1 new and 1 vanished stack(s) hold raw addresses (frames no module list placed)"
            )
        );
        Assert.That(
            OutputFormats.ToText(new StackDiffDocument(d)),
            Does.Contain("warning: raw addresses are incomparable without symbols")
        );
    }

    [Test]
    public void UnplacedAddresses_AreIncomparableOnlyUnderTwoModuleLists_AndOnlyWhenTheyKeepStacksApart()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult Side(IReadOnlyDictionary<string, ulong> bases, ulong below)
        {
            ulong low = bases.Values.Min() - below;
            return new StackBucketAnalysis().Analyze(
                [_c.Latch(At(0), Addresses(Seed("A"), bases)), _c.Latch(At(1), [low, low + 0x40])],
                resolver.CreateSession(Map(bases))
            );
        }

        Assert.That(
            StackDiff.Compare(Side(BasesA, 0x100000), Side(BasesA, 0x200000)).Warnings,
            Is.Empty,
            "two parses of one module list: one process lifetime, so the unplaced stacks do differ"
        );
        Assert.That(
            StackDiff.Compare(Side(BasesA, 0x100000), Side(BasesB, 0x100000)).Warnings.Single(),
            Does.Contain("1 new and 1 vanished stack(s) hold raw addresses")
        );
        StackDiff matched = StackDiff.Compare(Side(BasesA, 0x100000), Side(BasesA, 0x100000));
        Assert.That(matched.Warnings, Is.Empty, "raw frames of stacks that matched say nothing");
        StackDiff twoLists = StackDiff.Compare(Side(BasesA, 0x100000), Side(BasesB, 0x100000));
        Assert.That(
            twoLists.Changes.Count(c => c.Kind == StackChangeKind.Common),
            Is.EqualTo(1),
            "the placed stack still matches by function"
        );
    }

    [Test]
    public void ToCallTree_WritesDifferentialFoldedLines_BaseThenNew()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (StackBucketResult b, StackBucketResult n) = TwoCaptures(resolver);
        CallTree tree = StackDiff.Compare(b, n).ToCallTree();
        Assert.That(tree.HasBaseline, Is.True);
        IReadOnlyList<string> lines = FoldedStackWriter.GetLines(tree, includeBaseline: true);
        string Path(string id) => string.Join(";", Engine(id).Reverse());
        Assert.That(lines, Is.EquivalentTo(new[] { Path("A") + " 10 12", Path("B") + " 5 5", Path("C") + " 0 3" }));
    }

    [Test]
    public void Compare_ByDuration_WeighsTheSummedDurations()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] d = Addresses(Seed("D"), BasesA),
            e = Addresses(Seed("E"), BasesA);
        StackBucketResult b = new StackBucketAnalysis().Analyze(
            [_c.Wait(At(0), d, "End", 10, 0), _c.Wait(At(1), e, "End", 30, 0)],
            resolver.CreateSession(Map(BasesA))
        );
        StackBucketResult n = new StackBucketAnalysis().Analyze(
            [_c.Wait(At(0), d, "End", 50, 0), _c.Wait(At(1), e, "End", 30, 0), _c.Wait(At(2), e, "End", 20, 0)],
            resolver.CreateSession(Map(BasesA))
        );
        StackDiff diff = StackDiff.Compare(b, n, StackWeight.Duration);
        Assert.That((diff.BaseTotal, diff.NewTotal), Is.EqualTo((40L, 100L)));
        StackBucketChange dc = diff.Changes.Single(c => c.Frames.SequenceEqual(Engine("D")));
        Assert.That((dc.BaseWeight, dc.NewWeight, dc.BaseCount, dc.NewCount), Is.EqualTo((10L, 50L, 1L, 1L)));
        Assert.That(diff.ToCallTree().Unit, Is.EqualTo(WeightUnit.Milliseconds));
        Assert.That(diff.DurationLabel, Is.EqualTo("ms"));
        Assert.That(diff.Check(10, null).Reasons[0], Does.StartWith("total duration (ms) 40 -> 100"));

        StackBucketResult noDurations = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), d)],
            resolver.CreateSession(Map(BasesA))
        );
        Assert.Throws<ArgumentException>(() => StackDiff.Compare(noDurations, noDurations, StackWeight.Duration));
    }

    [Test]
    public void Compare_XelAgainstHistogram_MatchesByFramesAlone()
    {
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
            }
        );
        StackBucketResult xel = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([Path.Combine(TestPaths.Samples, "latch_nesting_full")]),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        StackBucketResult hist = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([
                    Path.Combine(
                        TestPaths.Samples,
                        "latch_nesting_full_histogram",
                        "latch_nesting_full.tf3656.histogram.xml"
                    ),
                ]),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        StackDiff d = StackDiff.Compare(xel, hist);
        Assert.That(d.MatchedByEvent, Is.False);
        Assert.That(d.Changes, Has.Count.EqualTo(14));
        Assert.That(d.Changes.All(c => c.Kind == StackChangeKind.Common && c.BaseCount == c.NewCount), Is.True);
        Assert.That(d.Check(0, 0).Tripped, Is.False);
    }

    [Test]
    public void Compare_Sample1AgainstASliceOfIt_GivesTheSliceCountsPerStack()
    {
        // The slice: events of the first two seconds, written with the library's writer, with the same sidecar (same
        // process).
        string capture = SampleData.CapturePath(SampleData.Latch);
        List<XEvent> all = [.. XelReader.ReadEvents(capture)];
        DateTime cut = all.Min(e => e.Timestamp).AddSeconds(2);
        List<XEvent> slice = [.. all.Where(e => e.Timestamp < cut)];
        Assert.That(slice.Count, Is.InRange(1, all.Count - 1), "test setup: a proper slice");
        var schemaBuilder = new XeSchemaBuilder(8);
        schemaBuilder.ImportEvent(all[0].EventType);
        foreach (XeColumn a in all[0].Actions)
        {
            schemaBuilder.ImportAction(a);
        }

        XeSchema schema = schemaBuilder.Build();

        string slicePath = Path.Combine(_tmp.Path, "slice_0_133601526724170000.xel");
        using (
            XelWriter w = XelWriter.Create(
                slicePath,
                schema,
                new XelWriterOptions { StartTimeUtc = all.Min(e => e.Timestamp).AddMilliseconds(-20) }
            )
        )
        {
            foreach (XEvent e in slice)
            {
                w.Write(e);
            }
        }

        File.Copy(SampleData.SidecarPath(SampleData.Latch), Path.Combine(_tmp.Path, "slice.modules.txt"));

        // Expected per generator bucket: base = its count in the TSV; new = slice events whose raw stack is that
        // bucket's addresses.
        List<Dictionary<string, string>> rows = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")
        );
        var buckets = rows.GroupBy(r => r["slot"])
            .Select(g =>
            {
                var ordered = g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture)).ToList();
                return (
                    Addresses: string.Join(",", ordered.Select(r => r["address"])),
                    Frames: ordered.Select(r => r["symbolized"]).ToArray(),
                    Count: long.Parse(ordered[0]["count"], CultureInfo.InvariantCulture)
                );
            })
            .ToList();
        var sliceCounts = slice
            .GroupBy(e =>
                string.Join(
                    ",",
                    e.GetAction("callstack")
                        .AsCallstack()
                        .Select(a => "0x" + a.ToString("X16", CultureInfo.InvariantCulture))
                )
            )
            .ToDictionary(g => g.Key, g => (long)g.Count(), StringComparer.Ordinal);
        Assert.That(
            sliceCounts.Keys.All(k => buckets.Any(b => b.Addresses == k)),
            Is.True,
            "test setup: every slice stack is a generator bucket"
        );

        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
            }
        );
        StackBucketResult full = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([capture]), new AnalysisContext(resolver: resolver))
            .Result;
        StackBucketResult part = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([slicePath]), new AnalysisContext(resolver: resolver))
            .Result;
        StackDiff d = StackDiff.Compare(full, part);

        Assert.That(d.BaseTotal, Is.EqualTo(all.Count));
        Assert.That(d.NewTotal, Is.EqualTo(slice.Count));
        foreach ((string addresses, string[] frames, long count) in buckets)
        {
            StackBucketChange c = d.Changes.Single(x => x.Frames.SequenceEqual(frames));
            long expectedNew = sliceCounts.GetValueOrDefault(addresses);
            Assert.That((c.BaseCount, c.NewCount), Is.EqualTo((count, expectedNew)), string.Join("\n", frames.Take(3)));
            Assert.That(c.Kind, Is.EqualTo(expectedNew == 0 ? StackChangeKind.Vanished : StackChangeKind.Common));
        }

        Assert.That(d.NewStacks, Is.Empty);
    }
}

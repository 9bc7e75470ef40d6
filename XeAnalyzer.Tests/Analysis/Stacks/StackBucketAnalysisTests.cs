using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// <see cref="StackBucketBuilder"/> and <see cref="StackBucketAnalysis"/> on synthetic captures whose answers are
/// computed here: stacks built from the fixture RVAs of stacks.tsv, expected frames from the same TSV
/// (module!function+published offset).
/// </summary>
public sealed class StackBucketAnalysisTests
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

    [Test]
    public void Build_TwoProcessLifetimesWithOtherModuleBases_SameFunctionsMergeIntoOneBucket()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] aInX = Addresses(Seed("A"), BasesA),
            bInX = Addresses(Seed("B"), BasesA);
        ulong[] aInY = Addresses(Seed("A"), BasesB),
            cInY = Addresses(Seed("C"), BasesB);
        Assert.That(aInX, Is.Not.EqualTo(aInY), "test setup: the raw addresses differ");

        var builder = new StackBucketBuilder();
        builder.AddEvents(
            [
                .. Enumerable.Range(0, 5).Select(i => _c.Latch(At(i), aInX)),
                .. Enumerable.Range(0, 3).Select(i => _c.Latch(At(10 + i), bInX)),
            ],
            resolver.CreateSession(Map(BasesA)),
            new StackInputInfo("x")
        );
        builder.AddEvents(
            [.. Enumerable.Range(0, 4).Select(i => _c.Latch(At(100 + i), aInY)), _c.Latch(At(200), cInY)],
            resolver.CreateSession(Map(BasesB)),
            new StackInputInfo("y")
        );
        StackBucketResult r = builder.Build();

        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.Buckets.Select(b => b.Count), Is.EqualTo(new long[] { 9, 3, 1 }));
        Assert.That(r.Buckets[0].Frames, Is.EqualTo(Engine("A")));
        Assert.That(r.Buckets[1].Frames, Is.EqualTo(Engine("B")));
        Assert.That(r.Buckets[2].Frames, Is.EqualTo(Engine("C")));
        Assert.That(r.Buckets[0].RawStacks, Is.EqualTo(2));
        Assert.That(r.DistinctRawStacks, Is.EqualTo(4));
        Assert.That(r.MergedRawStacks, Is.EqualTo(1));
        Assert.That(r.TotalCount, Is.EqualTo(13));
        Assert.That(r.Buckets[0].Share, Is.EqualTo(9.0 / 13).Within(1e-12));
        Assert.That(r.Buckets[0].FirstSeen, Is.EqualTo(At(0)));
        Assert.That(r.Buckets[0].LastSeen, Is.EqualTo(At(103)));
        Assert.That(r.Buckets.All(b => b.EventName == "sqlserver.latch_acquired"), Is.True);
        Assert.That(
            r.Buckets.SelectMany(b => b.FrameDetails)
                .All(f => f.Status == FrameResolutionStatus.ResolvedOffline && f.IsVerified),
            Is.True
        );
        Assert.That(r.Inputs.Select(i => i.DistinctRawStacks), Is.EqualTo(new[] { 2, 2 }));
    }

    [Test]
    public void Build_StacksDifferingOnlyByAnOffset_MergeOnlyWithoutOffsets()
    {
        IReadOnlyList<Frame> a = Seed("A");
        Frame[] variant = [.. a];
        variant[2] = a[2].WithOffset(0x2e7); // LatchBase::AcquireInternal+0x2e7 instead of +0x499
        ulong[] raw1 = Addresses(a, BasesA),
            raw2 = Addresses(variant, BasesA);
        XEvent[] events =
        [
            .. Enumerable.Range(0, 6).Select(i => _c.Latch(At(i), raw1)),
            .. Enumerable.Range(0, 2).Select(i => _c.Latch(At(10 + i), raw2)),
        ];

        using CallstackResolver withOffsets = ResolutionFixtures.Resolver();
        StackBucketResult r1 = new StackBucketAnalysis().Analyze(events, withOffsets.CreateSession(Map(BasesA)));
        Assert.That(r1.Buckets.Select(b => b.Count), Is.EqualTo(new long[] { 6, 2 }));
        Assert.That(r1.Buckets[1].Frames[2], Is.EqualTo("sqlmin.dll!LatchBase::AcquireInternal+0x2e7"));

        using CallstackResolver noOffsets = ResolutionFixtures.Resolver(offsets: false);
        StackBucketResult r2 = new StackBucketAnalysis().Analyze(events, noOffsets.CreateSession(Map(BasesA)));
        Assert.That(r2.Buckets.Select(b => b.Count), Is.EqualTo(new long[] { 8 }));
        Assert.That(r2.Buckets[0].Frames, Is.EqualTo(a.Select(f => f.EngineNoOffset)));
        Assert.That(r2.Buckets[0].RawStacks, Is.EqualTo(2));
        Assert.That(r2.IncludeOffsets, Is.False);
    }

    [Test]
    public void Build_ResolverFrameStyle_RendersTheBucketsInThatStyle()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(style: FrameStyle.Resolver);
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA))],
            resolver.CreateSession(Map(BasesA))
        );
        Frame leaf = Seed("A")[0];
        Assert.That(
            r.Buckets[0].Frames[0],
            Is.EqualTo(leaf.Module + "!" + leaf.Function + "+" + leaf.Offset.ToString(CultureInfo.InvariantCulture))
        );
        Assert.That(r.Style, Is.EqualTo(FrameStyle.Resolver));
    }

    [Test]
    public void Build_TwoEventsSharingAStack_AreSeparateBucketsUnlessGroupByEventIsOff()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] d = Addresses(Seed("D"), BasesA);
        XEvent[] events = [_c.Wait(At(0), d, "End", 5, 1), _c.Wait(At(1), d, "End", 7, 0), _c.External(At(2), d, 3)];

        StackBucketResult byEvent = new StackBucketAnalysis().Analyze(events, resolver.CreateSession(Map(BasesA)));
        Assert.That(
            byEvent.Buckets.Select(b => (b.EventName, b.Count)),
            Is.EqualTo(new[] { ((string?)"sqlos.wait_info", 2L), ("sqlos.wait_info_external", 1L) })
        );
        Assert.That(byEvent.GroupedByEvent, Is.True);

        StackBucketResult merged = new StackBucketAnalysis(new StackBucketOptions { GroupByEvent = false }).Analyze(
            events,
            resolver.CreateSession(Map(BasesA))
        );
        Assert.That(merged.Buckets, Has.Count.EqualTo(1));
        Assert.That(merged.Buckets[0].Count, Is.EqualTo(3));
        Assert.That(merged.Buckets[0].EventName, Is.Null);
        Assert.That(merged.Buckets[0].EventNames, Is.EqualTo(new[] { "sqlos.wait_info", "sqlos.wait_info_external" }));
        Assert.That(merged.Buckets[0].Frames, Is.EqualTo(Engine("D")));
    }

    [Test]
    public void Build_WaitEvents_SumAndMaxDurationAndSignalDuration_BeginEventsCountZero()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] h = Addresses(Seed("D"), BasesA);
        ulong[] e = Addresses(Seed("E"), BasesA);
        (ulong Duration, ulong Signal)[] ends = [(10, 1), (30, 2), (5, 3)];
        var events = new List<XEvent> { _c.Wait(At(0), h, "Begin", 0, 0) };
        events.AddRange(ends.Select((x, i) => _c.Wait(At(i + 1), h, "End", x.Duration, x.Signal)));
        events.Add(_c.Wait(At(9), e, "End", 100, 40));

        StackBucketResult all = new StackBucketAnalysis().Analyze(events, resolver.CreateSession(Map(BasesA)));
        StackBucket d = all.Buckets.Single(b => b.Frames.SequenceEqual(Engine("D")));
        Assert.That(d.Count, Is.EqualTo(4));
        Assert.That(d.Durations, Is.EqualTo(new StackDurations(4, 45, 30, 6, 3)));

        var filter = new EventFilter(null, [FieldCondition.Parse("opcode=End")]);
        StackBucketResult endsOnly = new StackBucketAnalysis().Analyze(
            events.Where(filter.Matches),
            resolver.CreateSession(Map(BasesA))
        );
        Assert.That(
            endsOnly.Buckets.Single(b => b.Frames.SequenceEqual(Engine("D"))).Durations,
            Is.EqualTo(new StackDurations(3, 45, 30, 6, 3))
        );
        Assert.That(
            endsOnly.Buckets.Single(b => b.Frames.SequenceEqual(Engine("E"))).Durations,
            Is.EqualTo(new StackDurations(1, 100, 100, 40, 40))
        );
        Assert.That(endsOnly.HasDurations, Is.True);
        Assert.That(endsOnly.Buckets[0].WeightOf(StackWeight.Duration), Is.EqualTo(45));
    }

    [Test]
    public void Build_EventsWithoutCallstackAction_ReportMissingActionWithTheSessionChangeAndHistogramHint()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), null), _c.Latch(At(1), null)],
            resolver.CreateSession()
        );
        Assert.That(r.IsComplete, Is.False);
        Assert.That(r.MissingData!.Kind, Is.EqualTo(MissingDataKind.Action));
        Assert.That(r.MissingData.Missing, Is.EqualTo(new[] { "package0.callstack" }));
        Assert.That(r.MissingData.Message, Does.Contain("2 event(s) were read (sqlserver.latch_acquired 2)"));
        Assert.That(r.MissingData.SessionChange, Does.Contain("ADD EVENT sqlserver.latch_acquired"));
        Assert.That(r.MissingData.SessionChange, Does.Contain("ACTION (package0.callstack)"));
        Assert.That(r.MissingData.SessionChange, Does.Contain("package0.histogram"));
        Assert.That(r.MissingData.SessionChange, Does.Contain("source = N'package0.callstack'"));
    }

    [Test]
    public void Build_NoEventsAtAll_ReportsMissingEvents()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult r = new StackBucketAnalysis().Analyze([], resolver.CreateSession());
        Assert.That(r.MissingData!.Kind, Is.EqualTo(MissingDataKind.Events));
    }

    [Test]
    public void Build_SomeEventsWithoutStack_AreCountedAndWarned()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA)), _c.Wait(At(1), null, "End", 3, 0)],
            resolver.CreateSession(Map(BasesA))
        );
        Assert.That(r.IsComplete, Is.True);
        Assert.That(r.EventsWithStack, Is.EqualTo(1));
        Assert.That(r.EventsWithoutStack, Is.EqualTo(1));
        Assert.That(r.Warnings.Select(w => w.Text), Has.Some.Contains("sqlos.wait_info 1"));
    }

    [Test]
    public void Build_StackSourceNamingATextField_ParsesAndResolvesItsFrames()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        string text = string.Join("\n", Seed("G").Select(f => f.ModuleOffset));
        XEvent[] events = [_c.Health(At(0), text, 17), _c.Health(At(1), text, 17), _c.Health(At(2), text, 20)];
        StackBucketResult r = new StackBucketAnalysis(new StackBucketOptions { StackSource = "call_stack" }).Analyze(
            events,
            resolver.CreateSession()
        );
        Assert.That(r.Buckets, Has.Count.EqualTo(1));
        Assert.That(r.Buckets[0].Count, Is.EqualTo(3));
        Assert.That(r.Buckets[0].Frames, Is.EqualTo(Engine("G")));

        StackBucketResult wrong = new StackBucketAnalysis(new StackBucketOptions { StackSource = "severity" }).Analyze(
            events,
            resolver.CreateSession()
        );
        Assert.That(wrong.MissingData!.Kind, Is.EqualTo(MissingDataKind.Field));
        Assert.That(wrong.MissingData.Message, Does.Contain("not a callstack"));

        StackBucketResult absent = new StackBucketAnalysis(
            new StackBucketOptions { StackSource = "no_such_field" }
        ).Analyze(events, resolver.CreateSession());
        Assert.That(absent.MissingData!.Kind, Is.EqualTo(MissingDataKind.Field));
        Assert.That(absent.MissingData.AvailableFields, Does.Contain("call_stack"));
    }

    [Test]
    public void Build_RawAddressesWithoutModuleMap_KeepTheAddressWithTheReasonAndAHint()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] raw = Addresses(Seed("A"), BasesA);
        StackBucketResult r = new StackBucketAnalysis().Analyze([_c.Latch(At(0), raw)], resolver.CreateSession());
        Assert.That(
            r.Buckets[0].Frames,
            Is.EqualTo(raw.Select(a => "0x" + a.ToString("X16", CultureInfo.InvariantCulture)))
        );
        Assert.That(
            r.Buckets[0].FrameDetails.All(f => f.UnresolvedReason == "no module map for raw addresses"),
            Is.True
        );
        string text = XeAnalyzer.Output.OutputFormats.ToText(new StackBucketDocument(r));
        Assert.That(
            text,
            Does.Contain(
                "0x"
                    + raw[0].ToString("X16", CultureInfo.InvariantCulture)
                    + " -- unresolved: no module map for raw addresses"
            )
        );
        Assert.That(text, Does.Contain("--modules"));
        Assert.That(r.Inputs[0].ModuleMapSource, Is.EqualTo(ModuleMapSource.None));
    }

    [Test]
    public void Build_UnresolvedFramesWithAKnownModule_UseTheModuleOffsetForm_SoCapturesOfAnyShapeMatch()
    {
        // No PDB on the symbol path: raw addresses placed by the map and module+offset text must give the same bucket.
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                Offline = true,
                SymbolPath = XeAnalyzer.Symbols.Store.SymbolPath.Parse(_tmp.Path),
            }
        );
        IReadOnlyList<Frame> a = Seed("A");
        var builder = new StackBucketBuilder();
        builder.AddEvents([_c.Latch(At(0), Addresses(a, BasesA))], resolver.CreateSession(Map(BasesA)));
        builder.BeginInput(resolver.CreateSession(), new StackInputInfo("h.xml", "target-xml"));
        builder.AddStack(string.Join("\n", a.Select(f => f.ModuleOffset)), 4);
        StackBucketResult r = builder.Build();
        StackBucket only = r.Buckets.Single(b => b.EventNames.Count == 1);
        Assert.That(only.Frames, Is.EqualTo(a.Select(f => f.ModuleOffset)));
        Assert.That(r.Buckets.Single(b => b.EventNames.Count == 0).Frames, Is.EqualTo(only.Frames));
        Assert.That(r.Buckets.Sum(b => b.Count), Is.EqualTo(5));
    }

    [Test]
    public void Analyze_HistogramUsingAllItsBuckets_KeepsEverySlotCount_MergesSlotsThatResolveAlike_AndWarns()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        IReadOnlyList<Frame> a = Seed("A"),
            b = Seed("B"),
            c = Seed("C");
        string Slot(long count, IEnumerable<string> frames) =>
            "<Slot count=\""
            + count.ToString(CultureInfo.InvariantCulture)
            + "\"><value>"
            + string.Join("\n", frames)
            + "</value></Slot>";

        // Slot 4 is stack A again, written symbolized in-engine: it resolves to the same frames as slot 1.
        string xml =
            "<HistogramTarget truncated=\"0\" buckets=\"4\">"
            + Slot(50, a.Select(f => f.ModuleOffset))
            + Slot(30, b.Select(f => f.ModuleOffset))
            + Slot(20, c.Select(f => f.ModuleOffset))
            + Slot(7, a.Select(f => f.Engine))
            + "</HistogramTarget>";
        StackBucketResult r = FromXml(xml, resolver);

        Assert.That(r.HistogramSlots, Is.EqualTo(4));
        Assert.That(r.TotalCount, Is.EqualTo(50 + 30 + 20 + 7));
        Assert.That(r.Buckets.Select(x => x.Count), Is.EqualTo(new long[] { 57, 30, 20 }));
        Assert.That(r.Buckets[0].Frames, Is.EqualTo(Engine("A")));
        Assert.That(r.MergedRawStacks, Is.EqualTo(1));
        Assert.That(r.MayHaveMergedHistogramValues, Is.True);
        Assert.That(
            _lastRead!.Diagnostics.Warnings,
            Has.Some.Contains("buckets"),
            "the reader's warning about the histogram, given once for the whole run"
        );
        Assert.That(
            XeAnalyzer.Output.OutputFormats.ToText(new StackBucketDocument(r)),
            Does.Contain("slots = buckets")
        );
        Assert.That(r.Buckets.All(x => x.EventName is null && x.FirstSeen is null), Is.True);
    }

    [Test]
    public void Analyze_RingBufferEvents_FilterAppliesToTheirFields()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        string g = string.Join("\n", Seed("G").Select(f => f.ModuleOffset));
        string d = string.Join("\n", Seed("D").Select(f => f.ModuleOffset));
        string Event(int severity, string stack, string time) =>
            "<event name=\"error_reported\" package=\"sqlserver\" timestamp=\""
            + time
            + "\"><data name=\"severity\"><type name=\"int32\" package=\"package0\" /><value>"
            + severity.ToString(CultureInfo.InvariantCulture)
            + "</value></data><action name=\"callstack\" package=\"package0\"><type name=\"callstack\" "
            + "package=\"package0\" /><value>"
            + stack
            + "</value></action></event>";
        string xml =
            "<RingBufferTarget truncated=\"0\" eventCount=\"4\">"
            + Event(17, g, "2024-01-01T00:00:01Z")
            + Event(17, g, "2024-01-01T00:00:02Z")
            + Event(20, d, "2024-01-01T00:00:03Z")
            + Event(17, d, "2024-01-01T00:00:04Z")
            + "</RingBufferTarget>";

        StackBucketResult r = FromXml(xml, resolver, new EventFilter(null, [FieldCondition.Parse("severity=17")]));
        Assert.That(r.EventsRead, Is.EqualTo(3));
        Assert.That(
            r.Buckets.Select(b => (b.Count, b.Frames[0])),
            Is.EqualTo(new[] { (2L, Engine("G")[0]), (1L, Engine("D")[0]) })
        );
        Assert.That(r.Buckets[0].EventName, Is.EqualTo("sqlserver.error_reported"));
        Assert.That(r.Buckets[0].FirstSeen, Is.EqualTo(new DateTime(2024, 1, 1, 0, 0, 1, DateTimeKind.Utc)));
        Assert.That(r.Buckets[0].LastSeen, Is.EqualTo(new DateTime(2024, 1, 1, 0, 0, 2, DateTimeKind.Utc)));
    }

    /// <summary>Target-data XML through the real pipeline: written to a file, opened and read by
    /// <see cref="CaptureSource"/>.</summary>
    private StackBucketResult FromXml(string xml, CallstackResolver resolver, EventFilter? filter = null)
    {
        string path = _tmp.File("target-" + Guid.NewGuid().ToString("N") + ".xml");
        File.WriteAllText(path, xml);
        AnalysisOutcome<StackBucketResult> outcome = new StackBucketAnalysis().Analyze(
            CaptureSource.Open([path]),
            new AnalysisContext(filter, resolver: resolver)
        );
        _lastRead = outcome.Read;
        return outcome.Result;
    }

    private CaptureSummary? _lastRead;

    [Test]
    public void Build_MoreDistinctStacksThanTheCap_CountsTheRestAsUntracked()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] a = Addresses(Seed("A"), BasesA),
            b = Addresses(Seed("B"), BasesA),
            c = Addresses(Seed("C"), BasesA);
        StackBucketResult r = new StackBucketAnalysis(new StackBucketOptions { MaxDistinctStacks = 2 }).Analyze(
            [_c.Latch(At(0), a), _c.Latch(At(1), b), _c.Latch(At(2), c), _c.Latch(At(3), c), _c.Latch(At(4), a)],
            resolver.CreateSession(Map(BasesA))
        );
        Assert.That(r.Buckets.Select(x => x.Count), Is.EqualTo(new long[] { 2, 1 }));
        Assert.That(r.UntrackedEvents, Is.EqualTo(2));
        Assert.That(r.Warnings.Select(w => w.Text), Has.Some.Contains("2 event(s) of further stacks"));
        AnalysisWarning limit = r.Warnings.Single(w => w.Kind == AnalysisWarningKind.LimitReached);
        Assert.That(
            (limit.Limit, limit.LimitValue, limit.EventsLeftOut),
            Is.EqualTo(("StackBucketOptions.MaxDistinctStacks", (long?)2L, 2L)),
            "the limit is a value, not a sentence"
        );
    }

    [Test]
    public void Analyze_MoreDistinctStacksThanTheCap_IsPartial_CountedAndNamed()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        string xml =
            "<HistogramTarget truncated=\"0\" buckets=\"16\">"
            + string.Concat(
                Enumerable
                    .Range(0, 5)
                    .Select(i =>
                        "<Slot count=\""
                        + (10 - i).ToString(CultureInfo.InvariantCulture)
                        + "\"><value>sqldk.dll+0x"
                        + (0x1000 + (i * 16)).ToString("X16", CultureInfo.InvariantCulture)
                        + "</value></Slot>"
                    )
            )
            + "</HistogramTarget>";
        string path = _tmp.File("many.xml");
        File.WriteAllText(path, xml);
        var diagnostics = new CaptureDiagnostics();
        AnalysisOutcome<StackBucketResult> o = new StackBucketAnalysis(
            new StackBucketOptions { MaxDistinctStacks = 3 }
        ).Analyze(CaptureSource.Open([path]), new AnalysisContext(diagnostics: diagnostics, resolver: resolver));
        Assert.That(
            o.Status,
            Is.EqualTo(AnalysisStatus.Partial),
            "events over the cap make the result partial (exit 3), never silently"
        );
        Assert.That(o.Result.UntrackedEvents, Is.EqualTo(7 + 6));
        Assert.That(o.Result.Buckets.Select(b => b.Count), Is.EqualTo(new long[] { 10, 9, 8 }));
        Assert.That(diagnostics.PartialSummary, Does.Contain("13 event(s) counted but left out"));
        Assert.That(diagnostics.Warnings, Has.Some.Contains("MaxDistinctStacks"));
    }

    [Test]
    public void Filter_TopAndMinCount_KeepSharesAndReportWhatIsOmitted()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] a = Addresses(Seed("A"), BasesA),
            b = Addresses(Seed("B"), BasesA),
            c = Addresses(Seed("C"), BasesA);
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [
                .. Enumerable.Repeat(a, 6).Select(s => _c.Latch(At(0), s)),
                .. Enumerable.Repeat(b, 3).Select(s => _c.Latch(At(0), s)),
                _c.Latch(At(0), c),
            ],
            resolver.CreateSession(Map(BasesA))
        );
        StackBucketResult top1 = r.Filter(1, 0);
        Assert.That(top1.Buckets, Has.Count.EqualTo(1));
        Assert.That(top1.OmittedBuckets, Is.EqualTo(2));
        Assert.That(top1.OmittedCount, Is.EqualTo(4));
        Assert.That(top1.Buckets[0].Share, Is.EqualTo(0.6).Within(1e-12));
        StackBucketResult min2 = r.Filter(0, 2);
        Assert.That(min2.Buckets.Select(x => x.Count), Is.EqualTo(new long[] { 6, 3 }));
        Assert.That(r.Filter(0, 0), Is.SameAs(r));
    }

    [Test]
    public void ToCallTree_SeveralEvents_PutsTheEventNameAtTheRoot_AndWeighsByCountOrDuration()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] d = Addresses(Seed("D"), BasesA);
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Wait(At(0), d, "End", 5, 1), _c.Wait(At(1), d, "End", 7, 0), _c.External(At(2), d, 3)],
            resolver.CreateSession(Map(BasesA))
        );
        XeAnalyzer.Output.CallTree counts = r.ToCallTree();
        Assert.That(
            counts.Root.Children.Select(n => (n.Name, n.Weight)),
            Is.EqualTo(new[] { ("sqlos.wait_info", 2L), ("sqlos.wait_info_external", 1L) })
        );
        Assert.That(
            counts.Root.Children[0].Children[0].Name,
            Is.EqualTo(Engine("D")[^1]),
            "root first inside the tree: the outermost frame under the event"
        );
        XeAnalyzer.Output.CallTree durations = r.ToCallTree(StackWeight.Duration);
        Assert.That(durations.TotalWeight, Is.EqualTo(15));
        Assert.That(durations.Unit, Is.EqualTo(XeAnalyzer.Output.WeightUnit.Milliseconds));
    }

    [Test]
    public void DistinguishingFrames_AgreeWithComparingEveryPair()
    {
        // Many buckets over a small alphabet of frames, so that they share leaf runs of every length; the expected
        // depths compare every bucket with every larger one (and the largest with the second), as the definition says.
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                Offline = true,
                SymbolPath = XeAnalyzer.Symbols.Store.SymbolPath.Parse(_tmp.Path),
            }
        );
        var random = new Random(20261128);
        var builder = new StackBucketBuilder();
        builder.BeginInput(resolver.CreateSession(), new StackInputInfo("h.xml", "target-xml"));
        for (int i = 0; i < 400; i++)
        {
            IEnumerable<string> frames = Enumerable
                .Range(0, random.Next(1, 7))
                .Select(_ => "sqlmin.dll!F" + random.Next(0, 3).ToString(CultureInfo.InvariantCulture));
            builder.AddStack(string.Join("\n", frames), random.Next(1, 50));
        }

        IReadOnlyList<StackBucket> buckets = builder.Build().Buckets;
        Assert.That(buckets, Has.Count.GreaterThan(100));
        static int Common(IReadOnlyList<string> a, IReadOnlyList<string> b)
        {
            int n = 0;
            while (n < a.Count && n < b.Count && a[n] == b[n])
            {
                n++;
            }

            return n;
        }

        int[] expected = new int[buckets.Count];
        expected[0] = Common(buckets[0].Frames, buckets[1].Frames);
        for (int i = 1; i < buckets.Count; i++)
        {
            for (int j = 0; j < i; j++)
            {
                expected[i] = Math.Max(expected[i], Common(buckets[i].Frames, buckets[j].Frames));
            }
        }

        Assert.That(StackBucketDocument.DistinguishingFrames(buckets), Is.EqualTo(expected));
    }

    // The units of the reference table (XE-ANALYSES.md §5, XE-TEXT-SHAPES.md §12): waits ms, latch_released and
    // query events µs; events whose units differ, or are unknown, sum to a duration of no one unit.
    [TestCase(new[] { "sqlos.wait_info", "sqlos.wait_completed" }, "Milliseconds")]
    [TestCase(new[] { "sqlserver.latch_released" }, "Microseconds")]
    [TestCase(new[] { "sqlserver.rpc_completed", "sqlserver.sql_batch_completed" }, "Microseconds")]
    [TestCase(new[] { "sqlos.wait_info", "sqlserver.rpc_completed" }, "Duration")]
    [TestCase(new[] { "sqlserver.my_own_event" }, "Duration")]
    public void DurationWeightUnit_FollowsTheOneUnitRule(string[] events, string expected) =>
        Assert.That(
            StackBucketResult.DurationWeightUnit(events.Select(e => DurationUnits.Of(e, "duration", null))).ToString(),
            Is.EqualTo(expected)
        );

    [Test]
    public void AnalyzeFiles_XelWithSidecar_UsesTheSidecar_AndAnExplicitMapOverridesIt()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        string xel = Path.Combine(_tmp.Path, "cap_0_133601526724170000.xel");
        _c.WriteXel(
            xel,
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA), 1), _c.Latch(At(1), Addresses(Seed("A"), BasesA), 2)]
        );
        File.WriteAllText(Path.Combine(_tmp.Path, "cap.modules.txt"), ModuleList(BasesA));
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([xel]), new AnalysisContext(resolver: resolver))
            .Result;
        Assert.That(r.Inputs[0].ModuleMapSource, Is.EqualTo(ModuleMapSource.Sidecar));
        Assert.That(r.Inputs[0].ModuleMapPath, Does.EndWith("cap.modules.txt"));
        Assert.That(r.Buckets.Single().Frames, Is.EqualTo(Engine("A")));

        string wrongMap = Path.Combine(_tmp.Path, "other.txt");
        File.WriteAllText(wrongMap, ModuleList(BasesB));
        StackBucketResult o = new StackBucketAnalysis()
            .Analyze(
                CaptureSource.Open([xel], new CaptureReadOptions { ModuleMapPath = wrongMap }),
                new AnalysisContext(resolver: resolver)
            )
            .Result;
        Assert.That(o.Inputs[0].ModuleMapSource, Is.EqualTo(ModuleMapSource.Explicit));
        Assert.That(
            o.Buckets.Single().Frames,
            Is.Not.EqualTo(Engine("A")),
            "another process's bases cannot place these addresses"
        );
    }
}

using System.Globalization;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// The compact forms that keep memory per distinct stack small read as what they replace: buckets held by column
/// (<see cref="StackBucketList"/>), frames shared between the two sides of a diff, and tables whose rows are made on
/// read.
/// </summary>
public sealed class StackCompactionTests
{
    private StackCaptures _c = null!;

    [SetUp]
    public void SetUp() => _c = new StackCaptures();

    private static string[] Engine(IReadOnlyList<Frame> stack) => [.. stack.Select(f => f.Engine)];

    /// <summary>
    /// Four stacks (one a prefix of another) of three events, with times and durations that differ per event.
    /// </summary>
    private (XEvent[] Events, IReadOnlyList<Frame>[] Stacks) Capture()
    {
        IReadOnlyList<Frame>[] stacks = [Seed("A"), Seed("B"), Seed("C"), [.. Seed("A").Take(10)]];
        var events = new List<XEvent>();
        for (int k = 0; k < 97; k++)
        {
            ulong[] addresses = Addresses(stacks[(k * k) % 4], BasesA);
            events.Add(
                (k % 3) switch
                {
                    0 => _c.Latch(At(k * 7), addresses),
                    1 => _c.Wait(At(k * 5), addresses, "End", (ulong)(k * 3), (ulong)k),
                    _ => _c.External(At(k * 11), addresses, (ulong)(k + 1)),
                }
            );
        }

        return ([.. events], stacks);
    }

    [Test]
    public void Buckets_HeldByColumn_ReadAsAnIndependentGroupingOfTheEvents()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (XEvent[] events, IReadOnlyList<Frame>[] stacks) = Capture();
        StackBucketResult r = new StackBucketAnalysis().Analyze(events, resolver.CreateSession(Map(BasesA)));
        Assert.That(r.Buckets, Is.InstanceOf<StackBucketList>(), "the builder's buckets are the compact list");

        // The same grouping computed here: per (event, stack) the count, times and durations, ranked by count
        // (descending), then frames (ordinal, element by element), then event name.
        var expected = events
            .Select((e, k) => (Event: e, Frames: Engine(stacks[(k * k) % 4]), Kind: k % 3, K: k))
            .GroupBy(x => (x.Event.FullName, string.Join("\n", x.Frames)))
            .Select(g =>
                (
                    Name: g.Key.FullName,
                    g.First().Frames,
                    Count: (long)g.Count(),
                    First: g.Min(x => x.Event.Timestamp),
                    Last: g.Max(x => x.Event.Timestamp),
                    Durations: g.First().Kind switch
                    {
                        1 => new StackDurations(
                            g.Count(),
                            g.Sum(x => x.K * 3L),
                            g.Max(x => x.K * 3L),
                            g.Sum(x => (long)x.K),
                            g.Max(x => (long)x.K)
                        ),
                        2 => new StackDurations(g.Count(), g.Sum(x => x.K + 1L), g.Max(x => x.K + 1L), null, null),
                        _ => null,
                    }
                )
            )
            .OrderByDescending(x => x.Count)
            .ThenBy(x => x.Frames, Comparer<string[]>.Create(CompareOrdinal))
            .ThenBy(x => x.Name, StringComparer.Ordinal)
            .ToArray();

        Assert.That(r.Buckets, Has.Count.EqualTo(expected.Length));
        for (int i = 0; i < expected.Length; i++)
        {
            // Each read makes the bucket again: read it twice.
            foreach (StackBucket b in new[] { r.Buckets[i], r.Buckets.ElementAt(i) })
            {
                var x = expected[i];
                Assert.That(b.Rank, Is.EqualTo(i + 1));
                Assert.That(b.EventName, Is.EqualTo(x.Name));
                Assert.That(b.EventNames, Is.EqualTo(new[] { x.Name }));
                Assert.That(b.Frames, Is.EqualTo(x.Frames));
                Assert.That(b.FrameDetails.Select(f => f.Text), Is.EqualTo(x.Frames));
                Assert.That(b.Count, Is.EqualTo(x.Count));
                Assert.That(b.Share, Is.EqualTo((double)x.Count / events.Length));
                Assert.That((b.FirstSeen, b.LastSeen), Is.EqualTo(((DateTime?)x.First, (DateTime?)x.Last)));
                Assert.That(b.Durations, Is.EqualTo(x.Durations));
                Assert.That(b.RawStacks, Is.EqualTo(1));
            }
        }

        Assert.That(r.HasDurations, Is.True);
        StackBucketResult top = r.Filter(3, 0);
        Assert.That(top.Buckets.Select(b => b.Rank), Is.EqualTo(new[] { 1, 2, 3 }));
        Assert.That(top.OmittedCount, Is.EqualTo(expected.Skip(3).Sum(x => x.Count)));
        Assert.That(r.Filter(0, 0), Is.SameAs(r), "nothing left out");
    }

    [Test]
    public void Buckets_HeldByColumn_FilterAndCountPerEvent_AsTheSameBucketsInAList()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (XEvent[] events, _) = Capture();
        StackBucketResult r = new StackBucketAnalysis().Analyze(events, resolver.CreateSession(Map(BasesA)));
        var list = (StackBucketList)r.Buckets;
        StackBucketResult plain = r with { Buckets = [.. r.Buckets] };
        Assert.That(plain.Buckets, Is.Not.InstanceOf<StackBucketList>());
        for (int i = 0; i < list.Count; i++)
        {
            Assert.That(list.EventNamesAt(i), Is.EqualTo(plain.Buckets[i].EventNames));
        }

        long[] counts = [.. plain.Buckets.Select(b => b.Count)];
        foreach ((int top, long min) in new[] { (3, 0L), (0, counts[2]), (2, counts[^1] + 1), (100, 0L) })
        {
            StackBucketResult a = r.Filter(top, min),
                b = plain.Filter(top, min);
            Assert.That(a.Buckets.Select(x => (x.Rank, x.Count)), Is.EqualTo(b.Buckets.Select(x => (x.Rank, x.Count))));
            Assert.That(a.OmittedCount, Is.EqualTo(b.OmittedCount));
            Assert.That(
                a.OmittedCount,
                Is.EqualTo(counts.Where((c, i) => i >= (top > 0 ? top : counts.Length) || c < min).Sum())
            );
        }

        // Counted per event from the events themselves: every event has a stack, none is empty.
        SymbolizationResult s = SymbolizationResult.From(r);
        Assert.That(
            s.EventsByName,
            Is.EqualTo(events.GroupBy(e => e.FullName).ToDictionary(g => g.Key, g => (long)g.Count()))
        );
        Assert.That(s.EventsByName, Is.EqualTo(SymbolizationResult.From(plain).EventsByName));
        Assert.That(s.EmptyStacks, Is.Zero);
    }

    [Test]
    public void RawTextStacks_FoundByEventAndText_AsAnIndependentGrouping_UpToTheCap()
    {
        // Texts that differ only by case or event id are different stacks; equal texts built apart are the same.
        (int Event, string Text)[] reads =
        [
            .. Enumerable
                .Range(0, 500)
                .Select(i => (i % 3, "sqlmin.dll+0x" + (i % 41).ToString("X", CultureInfo.InvariantCulture))),
            (0, "SQLMIN.DLL+0x1"),
            (0, "sqlmin.dll+0x1"),
            (2, new string("sqlmin.dll+0x1".ToCharArray())),
        ];
        var table = new RawStackTable();
        var limit = new StackLimitCounter(1000);
        foreach ((int e, string text) in reads)
        {
            table.Add(table.FindOrAdd(e, text, limit, line: 7), 1, long.MinValue, -1, -1);
        }

        var expected = reads.GroupBy(r => (r.Event, r.Text)).Select(g => (g.Key.Event, g.Key.Text, (long)g.Count()));
        Assert.That(
            Enumerable.Range(0, table.Count).Select(id => (table.EventIdAt(id), table.TextAt(id)!, table.CountAt(id))),
            Is.EqualTo(expected)
        );
        Assert.That(limit.Taken, Is.EqualTo(table.Count));

        var capped = new RawStackTable();
        var two = new StackLimitCounter(2);
        Assert.That(capped.FindOrAdd(0, "a", two), Is.EqualTo(0));
        Assert.That(capped.FindOrAdd(1, "a", two), Is.EqualTo(1));
        Assert.That(capped.FindOrAdd(0, "b", two), Is.EqualTo(-1), "over the cap");
        Assert.That(capped.FindOrAdd(1, "a", two), Is.EqualTo(1), "a known stack is found at the cap");
    }

    private static int CompareOrdinal(string[]? a, string[]? b)
    {
        for (int i = 0; i < Math.Min(a!.Length, b!.Length); i++)
        {
            int c = string.CompareOrdinal(a[i], b[i]);
            if (c != 0)
            {
                return c;
            }
        }

        return a.Length.CompareTo(b.Length);
    }

    [Test]
    public void DiffSides_SharingTheirFrames_HoldEachFrameOnce_AndCompareAsUnshared()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (XEvent[] events, _) = Capture();
        XEvent[] fewer = [.. events.Where((e, k) => k % 5 != 0)];
        StackBucketResult Analyze(XEvent[] e, BucketFramePool? pool) =>
            new StackBucketAnalysis(new StackBucketOptions { FramePool = pool }).Analyze(
                e,
                resolver.CreateSession(Map(BasesA))
            );

        var pool = new BucketFramePool();
        StackBucketResult b = Analyze(events, pool),
            n = Analyze(fewer, pool);
        StackBucketResult bAlone = Analyze(events, null),
            nAlone = Analyze(fewer, null);

        BucketFrame[] baseFrames = [.. b.Buckets.SelectMany(x => x.FrameDetails)];
        foreach (BucketFrame f in n.Buckets.SelectMany(x => x.FrameDetails))
        {
            Assert.That(
                baseFrames.Any(k => ReferenceEquals(k, f)),
                Is.True,
                "a frame of the new side is the base side's"
            );
        }

        Assert.That(
            b.Buckets.SelectMany(x => x.FrameDetails),
            Is.EqualTo(bAlone.Buckets.SelectMany(x => x.FrameDetails))
        );
        StackDiff shared = StackDiff.Compare(b, n),
            alone = StackDiff.Compare(bAlone, nAlone);
        Assert.That(shared.Changes, Is.EqualTo(alone.Changes));
        Assert.That(
            OutputFormats.ToText(new StackDiffDocument(shared), "csv"),
            Is.EqualTo(OutputFormats.ToText(new StackDiffDocument(alone), "csv"))
        );
    }

    [Test]
    public void TableWithRowsOnRead_WritesTheBytesOfTheTableOfTheSameRows_AndChecksEachRow()
    {
        TableCell[] Row(int i) =>
            [i, "frame " + i + "\nnext", TableCell.FromPercentage(i / 7.0), i % 2 == 0 ? TableCell.Empty : i * 3L];
        TableBuilder Builder() =>
            new TableBuilder("T")
                .AddColumn(TableColumn.Integer("n"))
                .AddColumn(TableColumn.Text("frames"))
                .AddColumn(TableColumn.Percentage("share", 2))
                .AddColumn(TableColumn.Integer("odd"))
                .AddNote("note");
        TableBuilder whole = Builder();
        for (int i = 0; i < 300; i++)
        {
            whole.AddRow(Row(i));
        }

        ReportTable onRead = Builder().BuildWithRowsOnRead(300, Row);
        foreach (string format in new[] { "csv", "json", "text", "html" })
        {
            Assert.That(
                OutputFormats.ToText(ReportDocument.Of("T", onRead), format),
                Is.EqualTo(OutputFormats.ToText(ReportDocument.Of("T", whole.Build()), format)),
                format
            );
        }

        ReportTable bad = Builder().BuildWithRowsOnRead(2, i => i == 1 ? [1, 2, 3, 4] : Row(i));
        Assert.That(
            () => bad.Rows[1],
            Throws.ArgumentException.With.Message.Contains("Row 1, column 'frames' of table 'T'")
        );
        Assert.That(() => Builder().AddRow(Row(0)).BuildWithRowsOnRead(1, Row), Throws.InvalidOperationException);
    }
}

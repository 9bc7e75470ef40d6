using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// The raw-stack table and the merger hold their stacks by column under dense ids: what they tally reads as a plain
/// group-by over the same events.
/// </summary>
public sealed class RawStackColumnTests
{
    /// <summary>One read: a stack (addresses or text) of an event, with its count, time, duration and signal.</summary>
    private sealed record Read(
        int Event,
        ulong[]? Addresses,
        string? Text,
        long Line,
        long Count,
        long Ticks,
        long Dur,
        long Sig
    )
    {
        public string Key =>
            Addresses is null
                ? "t" + Event.ToString(CultureInfo.InvariantCulture) + ":" + Text
                : "a" + string.Join(",", Addresses.Select(a => a.ToString(CultureInfo.InvariantCulture)));
    }

    private static List<Read> Reads(int n, bool times, bool durations)
    {
        var random = new Random(25);
        var reads = new List<Read>();
        for (int i = 0; i < n; i++)
        {
            int e = random.Next(3);
            long ticks = times && random.Next(4) > 0 ? 638_000_000_000_000_000 + random.Next(1_000_000) : long.MinValue;
            long dur = durations && random.Next(3) > 0 ? random.Next(10_000) : -1;
            long sig = durations && random.Next(2) > 0 ? random.Next(500) : -1;
            long count = 1 + random.Next(5);
            if (random.Next(2) == 0)
            {
                // Address keys from a small pool (event id first), some of them prefixes of others.
                int frames = 1 + random.Next(3);
                ulong[] key =
                [
                    (ulong)e,
                    .. Enumerable.Range(0, frames).Select(f => 0x7FF0_0000UL + (ulong)random.Next(4) + (ulong)(f * 16)),
                ];
                reads.Add(new Read(e, key, null, 0, count, ticks, dur, sig));
            }
            else
            {
                string text = "sqlmin.dll+0x" + random.Next(40).ToString("X", CultureInfo.InvariantCulture);
                reads.Add(new Read(e, null, new string(text.ToCharArray()), 100 + i, count, ticks, dur, sig));
            }
        }

        return reads;
    }

    private static RawStackTable Fill(IEnumerable<Read> reads, StackLimitCounter limit, out long untracked)
    {
        var table = new RawStackTable();
        untracked = 0;
        foreach (Read r in reads)
        {
            int id = r.Addresses is not null
                ? table.FindOrAdd(r.Addresses, limit)
                : table.FindOrAdd(r.Event, r.Text!, limit, r.Line);
            if (id < 0)
            {
                untracked += r.Count;
                continue;
            }

            table.Add(id, r.Count, r.Ticks, r.Dur, r.Sig);
        }

        return table;
    }

    [TestCase(false, false)]
    [TestCase(true, false)]
    [TestCase(true, true)]
    public void Table_TalliesEachDistinctStack_AsAGroupByInFirstSeenOrder(bool times, bool durations)
    {
        List<Read> reads = Reads(3000, times, durations);
        RawStackTable table = Fill(reads, new StackLimitCounter(100_000), out long untracked);

        var expected = reads.GroupBy(r => r.Key).ToList();
        Assert.That(untracked, Is.Zero);
        Assert.That(table.Count, Is.EqualTo(expected.Count));
        Assert.That(table.HasAddresses, Is.True);
        for (int id = 0; id < expected.Count; id++)
        {
            Read first = expected[id].First();
            Read[] g = [.. expected[id]];
            long[] at = [.. g.Where(r => r.Ticks > 0).Select(r => r.Ticks)];
            Assert.That(table.EventIdAt(id), Is.EqualTo(first.Event), "event " + id);
            Assert.That(table.AddressesAt(id), Is.EqualTo(first.Addresses), "addresses " + id);
            Assert.That(table.TextAt(id), Is.EqualTo(first.Text), "text " + id);
            Assert.That(table.FirstLineAt(id), Is.EqualTo(first.Line), "the first read's line " + id);
            Assert.That(table.CountAt(id), Is.EqualTo(g.Sum(r => r.Count)), "count " + id);
            Assert.That(table.FirstAt(id), Is.EqualTo(at.Length > 0 ? at.Min() : long.MaxValue), "first " + id);
            Assert.That(table.LastAt(id), Is.EqualTo(at.Length > 0 ? at.Max() : long.MinValue), "last " + id);
            RawDurations? d = table.DurationsAt(id);
            Read[] withDur = [.. g.Where(r => r.Dur >= 0)],
                withSig = [.. g.Where(r => r.Sig >= 0)];
            if (withDur.Length == 0 && withSig.Length == 0)
            {
                Assert.That(d, Is.Null, "durations " + id);
                continue;
            }

            Assert.That(
                (d!.DurationEvents, d.DurationSum, d.DurationMax, d.SignalEvents, d.SignalSum, d.SignalMax),
                Is.EqualTo(
                    (
                        withDur.Sum(r => r.Count),
                        withDur.Sum(r => r.Dur),
                        withDur.Select(r => r.Dur).DefaultIfEmpty(0).Max(),
                        withSig.Sum(r => r.Count),
                        withSig.Sum(r => r.Sig),
                        withSig.Select(r => r.Sig).DefaultIfEmpty(0).Max()
                    )
                ),
                "durations " + id
            );
        }
    }

    [Test]
    public void Table_AtTheCap_FindsKnownStacks_AndCountsTheRestAsUntracked()
    {
        List<Read> reads = Reads(2000, times: false, durations: false);
        var limit = new StackLimitCounter(25);
        RawStackTable table = Fill(reads, limit, out long untracked);

        // Independently: the first 25 distinct keys are kept; reads of any other key are untracked.
        HashSet<string> kept = [.. reads.Select(r => r.Key).Distinct().Take(25)];
        Assert.That(table.Count, Is.EqualTo(25));
        Assert.That(limit.Taken, Is.EqualTo(25));
        Assert.That(untracked, Is.EqualTo(reads.Where(r => !kept.Contains(r.Key)).Sum(r => r.Count)));
        Assert.That(
            Enumerable.Range(0, 25).Sum(table.CountAt),
            Is.EqualTo(reads.Where(r => kept.Contains(r.Key)).Sum(r => r.Count))
        );
    }

    [Test]
    public void Table_ReleasedKeys_ReadAsNone_AndNoStackIsAddedOnceSymbolized()
    {
        RawStackTable table = Fill(Reads(200, false, false), new StackLimitCounter(1000), out _);
        int count = table.Count;
        table.ReleaseLookups();
        for (int id = 0; id < count; id++)
        {
            table.ReleaseKey(id);
            Assert.That((table.AddressesAt(id), table.TextAt(id)), Is.EqualTo(((ulong[]?)null, (string?)null)));
        }

        Assert.That(table.Count, Is.EqualTo(count), "ids stay readable until the table is released");
        Assert.Throws<InvalidOperationException>(() => table.FindOrAdd(0, "x", new StackLimitCounter(10)));
        table.Release();
        Assert.That(table.Count, Is.Zero);
    }

    [TestCase(true)]
    [TestCase(false)]
    public void Merger_SumsRawStacksThatReadTheSame_AsAGroupByOverTheirRenderedFrames(bool groupByEvent)
    {
        // Raw stacks that render to a few frame texts (the render is the stack's count modulo 7 here), so many merge.
        List<Read> reads = Reads(3000, times: true, durations: true);
        RawStackTable table = Fill(reads, new StackLimitCounter(100_000), out _);
        var names = new NameTable();
        foreach (string name in new[] { "wait_info", "latch_suspend_end", "lock_acquired" })
        {
            names.Intern(name);
        }

        var raws = Enumerable
            .Range(0, table.Count)
            .Select(id => new
            {
                Id = id,
                Event = table.EventIdAt(id),
                Texts = Rendered(id),
                Count = table.CountAt(id),
                First = table.FirstAt(id),
                Last = table.LastAt(id),
                Dur = table.DurationsAt(id) is RawDurations d
                    ? (d.DurationEvents, d.DurationSum, d.DurationMax, d.SignalEvents, d.SignalSum, d.SignalMax)
                    : default,
            })
            .ToList();
        var merger = new StackMerger(groupByEvent);
        foreach (var r in raws)
        {
            merger.Add(table, r.Id, Frames(r.Id, r.Texts));
        }

        IReadOnlyList<StackBucket> buckets = merger.Buckets(names, out long total);

        var expected = raws.GroupBy(r => (groupByEvent ? r.Event : -1, string.Join("|", r.Texts)))
            .Select(g => new
            {
                Event = g.Key.Item1,
                g.First().Texts,
                Count = g.Sum(r => r.Count),
                Best = g.First(r => r.Count == g.Max(x => x.Count)).Id,
                Raw = g.Count(),
                First = g.Min(r => r.First),
                Last = g.Max(r => r.Last),
                Events = g.Select(r => r.Event)
                    .Distinct()
                    .Select(e => names[e])
                    .Order(StringComparer.Ordinal)
                    .ToArray(),
                Dur = g.Select(r => r.Dur)
                    .Aggregate(
                        (a, b) =>
                            (
                                a.Item1 + b.Item1,
                                a.Item2 + b.Item2,
                                Math.Max(a.Item3, b.Item3),
                                a.Item4 + b.Item4,
                                a.Item5 + b.Item5,
                                Math.Max(a.Item6, b.Item6)
                            )
                    ),
            })
            .OrderByDescending(b => b.Count)
            .ThenBy(b => string.Join("\n", b.Texts), StringComparer.Ordinal)
            .ThenBy(b => b.Event < 0 ? null : names[b.Event], StringComparer.Ordinal)
            .ToList();
        Assert.That(total, Is.EqualTo(raws.Sum(r => r.Count)));
        Assert.That(buckets.Count, Is.EqualTo(expected.Count));
        for (int i = 0; i < expected.Count; i++)
        {
            var e = expected[i];
            StackBucket b = buckets[i];
            Assert.That(b.Frames, Is.EqualTo(e.Texts), "frames " + i);
            Assert.That(
                b.FrameDetails[0].Module,
                Is.EqualTo("raw" + e.Best.ToString(CultureInfo.InvariantCulture)),
                "the frames of the raw stack with the most events " + i
            );
            Assert.That(b.Count, Is.EqualTo(e.Count), "count " + i);
            Assert.That(b.RawStacks, Is.EqualTo(e.Raw), "raw stacks " + i);
            Assert.That(b.EventName, Is.EqualTo(e.Event < 0 ? null : names[e.Event]), "event " + i);
            Assert.That(b.EventNames, Is.EqualTo(e.Events), "event names " + i);
            Assert.That(b.FirstSeen?.Ticks ?? long.MaxValue, Is.EqualTo(e.First), "first " + i);
            Assert.That(b.LastSeen?.Ticks ?? long.MinValue, Is.EqualTo(e.Last), "last " + i);
            Assert.That(
                b.Durations,
                Is.EqualTo(
                    e.Dur.Item1 > 0
                        ? new StackDurations(
                            e.Dur.Item1,
                            e.Dur.Item2,
                            e.Dur.Item3,
                            e.Dur.Item4 > 0 ? e.Dur.Item5 : null,
                            e.Dur.Item4 > 0 ? e.Dur.Item6 : null
                        )
                        : null
                ),
                "durations " + i
            );
        }

        string[] Rendered(int id) =>
            [
                .. Enumerable
                    .Range(0, 1 + (int)(table.CountAt(id) % 3))
                    .Select(f => "f" + ((table.CountAt(id) + f) % 7).ToString(CultureInfo.InvariantCulture)),
            ];
    }

    // Frames whose module names the raw stack, so which raw stack's frames a bucket kept can be told apart.
    private static BucketFrame[] Frames(int id, string[] texts) =>
        [
            .. texts.Select(t => new BucketFrame(
                new string(t.ToCharArray()),
                FrameResolutionStatus.Unresolved,
                false,
                "raw" + id.ToString(CultureInfo.InvariantCulture),
                null,
                "test"
            )),
        ];
}

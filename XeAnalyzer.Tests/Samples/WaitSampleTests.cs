using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 3 (sample-xel/blob_storage_waits): wait_info / wait_info_external Begin/End pairs of a query on blob-storage
/// data files, with latch and file_read events. The pairing and the preemptive-before-PAGEIOLATCH pattern are
/// recomputed here.
/// </summary>
public sealed class WaitSampleTests
{
    private const string Preemptive = "PREEMPTIVE_HTTP_REQUEST";
    private const string PageIo = "PAGEIOLATCH_SH";

    private List<XEvent> _events = null!;
    private List<XEvent> _trueOrder = null!;
    private Dictionary<string, string> _figures = null!;
    private SampleData.Modules _modules = null!;

    [OneTimeSetUp]
    public void ReadSample()
    {
        _events = SampleData.ReadAll(SampleData.Waits);
        _trueOrder = SampleData.TrueOrder(_events);
        _figures = SampleData.Figures(SampleData.Waits);
        _modules = new SampleData.Modules(SampleData.SidecarPath(SampleData.Waits));
    }

    [Test]
    public void ReadEvents_CountsEachEventName_AsDocumented()
    {
        foreach (
            string name in new[]
            {
                "wait_info",
                "wait_info_external",
                "latch_acquired",
                "latch_released",
                "file_read",
                "file_read_completed",
            }
        )
        {
            Assert.That(
                _events.Count(e => e.Name == name),
                Is.EqualTo(SampleData.Figure(_figures, "count." + name)),
                name
            );
        }

        Assert.That(_events, Has.Count.EqualTo(SampleData.Figure(_figures, "events")));
        Assert.That(
            _events
                .Where(e => e.Name.StartsWith("wait_info", StringComparison.Ordinal))
                .Select(e => e.PackageName)
                .Distinct(),
            Is.EqualTo(new[] { "sqlos" })
        );
        Assert.That(new FileInfo(SampleData.CapturePath(SampleData.Waits)).Length, Is.LessThan(3L * 1024 * 1024));
    }

    [Test]
    public void WaitEvents_OnlyEndEventsCarryDurations()
    {
        foreach (XEvent e in Waits(_events))
        {
            string opcode = e.GetField("opcode").MapText;
            Assert.That(opcode, Is.EqualTo("Begin").Or.EqualTo("End"));
            if (opcode == "Begin")
            {
                Assert.That(e.GetField("duration").AsUInt64(), Is.Zero);
                if (e.TryGetField("signal_duration", out XeValue signal))
                {
                    Assert.That(signal.AsUInt64(), Is.Zero);
                }
            }
        }

        Assert.That(
            Waits(_events)
                .Where(e => e.GetField("opcode").MapText == "End")
                .Any(e => e.GetField("duration").AsUInt64() > 0),
            Is.True
        );
    }

    [Test]
    public void WaitEvents_FollowTheRealMetadata_WaitInfoExternalHasNoSignalOrResource()
    {
        // XE-TEXT-SHAPES §12: wait_info_external has wait_type, opcode, duration only; wait_info (SQL Server 2017 RTM)
        // adds signal_duration and wait_resource as a pointer.
        XeEventType external = _events.First(e => e.Name == "wait_info_external").EventType;
        XeEventType info = _events.First(e => e.Name == "wait_info").EventType;
        Assert.That(external.Fields.Select(f => f.Name), Is.EqualTo(new[] { "wait_type", "opcode", "duration" }));
        Assert.That(
            info.Fields.Select(f => f.Name),
            Is.EqualTo(new[] { "wait_type", "opcode", "duration", "signal_duration", "wait_resource" })
        );
        Assert.That(info.Fields[4].BaseType, Is.EqualTo(XeBaseType.Pointer));
        Assert.That(external.Uuid, Is.EqualTo(new Guid("749f148a-3bab-4ede-91b1-fcf69523f372")));
        Assert.That(info.Uuid, Is.EqualTo(new Guid("2306bd6b-4db7-4c11-b9a4-e07ef19c1451")));
        Assert.That(_figures["wait.PREEMPTIVE_HTTP_REQUEST.signal_ms"], Is.EqualTo("n/a"));
    }

    [Test]
    public void EachWorker_PairsBeginWithEnd_AndPrecedesEveryPageIoLatchWithAPreemptiveHttpRequest()
    {
        int pageIoPairs = 0;
        foreach (
            IGrouping<ulong, XEvent> worker in Waits(_trueOrder).GroupBy(e => e.GetAction("worker_address").AsUInt64())
        )
        {
            List<XEvent> w = [.. worker];
            Assert.That(w.Count % 2, Is.Zero);
            for (int i = 0; i < w.Count; i += 2)
            {
                // Begin then End of the same wait, never nested.
                Assert.That(w[i].GetField("opcode").MapText, Is.EqualTo("Begin"));
                Assert.That(w[i + 1].GetField("opcode").MapText, Is.EqualTo("End"));
                Assert.That(w[i + 1].GetField("wait_type").MapKey, Is.EqualTo(w[i].GetField("wait_type").MapKey));
                Assert.That(w[i + 1].Name, Is.EqualTo(w[i].Name));
                long ms = (long)(w[i + 1].Timestamp - w[i].Timestamp).TotalMilliseconds;
                Assert.That(
                    (long)w[i + 1].GetField("duration").AsUInt64(),
                    Is.InRange(ms - 1, ms),
                    "duration (ms) matches the Begin/End times"
                );
                if (WaitType(w[i]) == PageIo)
                {
                    pageIoPairs++;
                    Assert.That(i, Is.GreaterThanOrEqualTo(2));
                    Assert.That(
                        WaitType(w[i - 2]),
                        Is.EqualTo(Preemptive),
                        "PAGEIOLATCH_SH immediately preceded by PREEMPTIVE_HTTP_REQUEST on the same worker"
                    );
                    Assert.That(w[i - 2].Name, Is.EqualTo("wait_info_external"));
                    Assert.That(w[i].Name, Is.EqualTo("wait_info"));
                }
            }
        }

        Assert.That(pageIoPairs, Is.EqualTo(SampleData.Figure(_figures, "wait.PAGEIOLATCH_SH.waits")));
    }

    [Test]
    public void WaitMix_FollowsTheSeed_LatchExLongPageIoMediumPreemptiveManyShort()
    {
        var byType = Waits(_events)
            .Where(e => e.GetField("opcode").MapText == "End")
            .GroupBy(WaitType)
            .ToDictionary(
                g => g.Key,
                g =>
                    (
                        Count: g.Count(),
                        Total: g.Sum(e => (long)e.GetField("duration").AsUInt64()),
                        Max: g.Max(e => (long)e.GetField("duration").AsUInt64()),
                        Signal: Signal(g)
                    )
            );
        Assert.That(
            byType.Keys.Order(StringComparer.Ordinal),
            Is.EqualTo(new[] { "CXPACKET", "LATCH_EX", PageIo, Preemptive })
        );
        double Avg(string t) => (double)byType[t].Total / byType[t].Count;
        Assert.That(Avg("LATCH_EX"), Is.GreaterThan(Avg(PageIo) * 10));
        Assert.That(Avg(PageIo), Is.GreaterThan(Avg(Preemptive) * 10));
        Assert.That(byType[Preemptive].Count, Is.GreaterThan(byType[PageIo].Count));
        Assert.That(byType[PageIo].Count, Is.GreaterThan(byType["LATCH_EX"].Count));
        Assert.That(byType["LATCH_EX"].Total, Is.GreaterThan(byType[PageIo].Total), "LATCH_EX dominates the wait time");

        foreach (
            Dictionary<string, string> row in SampleData.Tsv(
                Path.Combine(TestPaths.Samples, "expected", "blob_storage_waits.waits.tsv")
            )
        )
        {
            var t = byType[row["wait_type"]];
            Assert.That(t.Count, Is.EqualTo(long.Parse(row["waits"], CultureInfo.InvariantCulture)), row["wait_type"]);
            Assert.That(
                t.Total,
                Is.EqualTo(long.Parse(row["total_duration_ms"], CultureInfo.InvariantCulture)),
                row["wait_type"]
            );
            Assert.That(
                t.Max,
                Is.EqualTo(long.Parse(row["max_duration_ms"], CultureInfo.InvariantCulture)),
                row["wait_type"]
            );
            Assert.That(
                t.Signal?.ToString(CultureInfo.InvariantCulture) ?? "n/a",
                Is.EqualTo(row["total_signal_duration_ms"]),
                row["wait_type"]
            );
        }
    }

    [Test]
    public void LatchPairs_MatchByAddressAndWorker_SomeHeldAcrossAFileRead()
    {
        var open = new Dictionary<(ulong Worker, ulong Address), int>();
        int pairs = 0;
        int acrossIo = 0;
        int quick = 0;
        for (int i = 0; i < _trueOrder.Count; i++)
        {
            XEvent e = _trueOrder[i];
            if (e.Name is not ("latch_acquired" or "latch_released"))
            {
                continue;
            }

            var key = (e.GetAction("worker_address").AsUInt64(), e.GetField("address").AsUInt64());
            if (e.Name == "latch_acquired")
            {
                Assert.That(open.TryAdd(key, i), Is.True, "one open acquire per latch and worker");
                continue;
            }

            Assert.That(open.Remove(key, out int start), Is.True, "latch_released after its latch_acquired");
            XEvent acquire = _trueOrder[start];
            Assert.That(e.GetField("class").MapText, Is.EqualTo(acquire.GetField("class").MapText));
            Assert.That(e.GetField("mode").MapText, Is.EqualTo(acquire.GetField("mode").MapText));
            pairs++;

            // I/O of the same worker between acquire and release: a file_read and its file_read_completed.
            List<XEvent> inside =
            [
                .. _trueOrder
                    .Skip(start + 1)
                    .Take(i - start - 1)
                    .Where(x => x.GetAction("worker_address").AsUInt64() == key.Item1),
            ];
            XEvent? read = inside.FirstOrDefault(x => x.Name == "file_read");
            if (read is not null)
            {
                ulong offset = read.GetField("offset").AsUInt64();
                Assert.That(
                    inside.Any(x =>
                        x.Name == "file_read_completed"
                        && x.GetField("offset").AsUInt64() == offset
                        && x.GetField("file_id").AsUInt64() == read.GetField("file_id").AsUInt64()
                    ),
                    Is.True
                );
                Assert.That(e.GetField("class").MapText, Is.EqualTo("ACCESS_METHODS_DATASET_PARENT"));
                acrossIo++;
            }
            else
            {
                Assert.That(inside.Where(x => x.Name.StartsWith("file_read", StringComparison.Ordinal)), Is.Empty);
                quick++;
            }
        }

        Assert.That(open, Is.Empty);
        Assert.That(pairs, Is.EqualTo(SampleData.Figure(_figures, "latch_pairs")));
        Assert.That(acrossIo, Is.EqualTo(SampleData.Figure(_figures, "latch_pairs_across_io")));
        Assert.That(quick, Is.EqualTo(SampleData.Figure(_figures, "latch_pairs_quick")));
        Assert.That(acrossIo, Is.GreaterThan(0));
        Assert.That(quick, Is.GreaterThan(0));
    }

    [Test]
    public void FileReads_CompleteOnTheSameWorker_WithADuration()
    {
        var pending = new Dictionary<(ulong, ulong, ulong), XEvent>();
        foreach (XEvent e in _trueOrder.Where(x => x.Name.StartsWith("file_read", StringComparison.Ordinal)))
        {
            var key = (
                e.GetAction("worker_address").AsUInt64(),
                e.GetField("file_id").AsUInt64(),
                e.GetField("offset").AsUInt64()
            );
            if (e.Name == "file_read")
            {
                Assert.That(pending.TryAdd(key, e), Is.True);
            }
            else
            {
                Assert.That(pending.Remove(key, out XEvent? read), Is.True);
                Assert.That(e.GetField("size").AsUInt64(), Is.EqualTo(read!.GetField("size").AsUInt64()));
                long ms = (long)(e.Timestamp - read.Timestamp).TotalMilliseconds;
                Assert.That((long)e.GetField("duration").AsUInt64(), Is.LessThanOrEqualTo(ms));
            }
        }

        Assert.That(pending, Is.Empty);
    }

    [Test]
    public void Callstacks_AreTheFixtureStacks_AndStackFKeepsKernel32AndNtdllFrames()
    {
        Dictionary<string, List<SampleData.FixtureFrame>> fixtures = SampleData.FixtureStacks();
        ulong[] Expected(string id) => [.. fixtures[id].Select(f => _modules.BaseOf(f.ModuleFile) + f.Rva)];
        var waitStacks = Waits(_events)
            .Select(e => (Type: WaitType(e), Stack: e.GetAction("callstack").AsCallstack()))
            .ToList();

        Assert.That(waitStacks.Where(w => w.Type == PageIo).Select(w => w.Stack), Has.All.EqualTo(Expected("H")));
        ulong[][] preemptive = [Expected("D"), Expected("E"), Expected("F"), Expected("G")];
        foreach (ulong[] stack in waitStacks.Where(w => w.Type == Preemptive).Select(w => w.Stack))
        {
            Assert.That(
                preemptive.Any(p => p.SequenceEqual(stack)),
                Is.True,
                "a preemptive wait has stack D, E, F or G"
            );
        }

        foreach (ulong[] p in preemptive)
        {
            Assert.That(waitStacks.Any(w => w.Stack.SequenceEqual(p)), Is.True, "every one of D, E, F, G occurs");
        }

        // Stack F's last two frames are in KERNEL32 and ntdll (no PDB in symbols-cache): rebased with the sidecar they
        // give back the published offsets.
        ulong[] f = waitStacks.First(w => w.Stack.SequenceEqual(Expected("F"))).Stack;
        Assert.That(_modules.Find(f[^2]), Is.EqualTo(("KERNEL32.DLL", 0x17974UL)));
        Assert.That(_modules.Find(f[^1]), Is.EqualTo(("ntdll.dll", 0x6A271UL)));

        // Latch and file events carry no callstack action.
        Assert.That(
            _events
                .Where(e => !e.Name.StartsWith("wait_info", StringComparison.Ordinal))
                .Any(e => e.TryGetAction("callstack", out _)),
            Is.False
        );
    }

    /// <summary>The summed signal_duration of End events, or null when none of them has that field.</summary>
    private static long? Signal(IEnumerable<XEvent> ends)
    {
        long? sum = null;
        foreach (XEvent e in ends)
        {
            if (e.TryGetField("signal_duration", out XeValue v))
            {
                sum = (sum ?? 0) + (long)v.AsUInt64();
            }
        }

        return sum;
    }

    private static IEnumerable<XEvent> Waits(IEnumerable<XEvent> events) =>
        events.Where(e => e.Name is "wait_info" or "wait_info_external");

    private static string WaitType(XEvent e) => e.GetField("wait_type").MapText;
}

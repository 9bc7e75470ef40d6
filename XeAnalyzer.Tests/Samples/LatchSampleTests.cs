using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 1 (sample-xel/latch_nesting_full): latch_acquired on NESTING_TRANSACTION_FULL during a MAXDOP 8 insert. The
/// capture is read with XelReader only; the checks recompute the designed shape from the raw events.
/// </summary>
public sealed class LatchSampleTests
{
    // Design inputs (sample-xel/README.md): the seed's three near-equal top buckets, scaled down.
    private const int CountA = 2005;
    private const int CountB = 2002;
    private const int CountC = 2000;

    private List<XEvent> _events = null!;
    private Dictionary<string, string> _figures = null!;
    private SampleData.Modules _modules = null!;

    [OneTimeSetUp]
    public void ReadSample()
    {
        _events = SampleData.ReadAll(SampleData.Latch);
        _figures = SampleData.Figures(SampleData.Latch);
        _modules = new SampleData.Modules(SampleData.SidecarPath(SampleData.Latch));
    }

    [Test]
    public void ReadEvents_ReturnsOnlyLatchAcquired_WithTheDocumentedCount()
    {
        Assert.That(_events.Select(e => e.FullName).Distinct(), Is.EqualTo(new[] { "sqlserver.latch_acquired" }));
        Assert.That(_events, Has.Count.EqualTo(SampleData.Figure(_figures, "events")));
        Assert.That(_events, Has.Count.GreaterThan(CountA + CountB + CountC));
    }

    [Test]
    public void Fields_DescribeTheNestingTransactionLatch_ForEveryEvent()
    {
        ulong address = SampleData.Hex(_figures["latch_address"]);
        foreach (XEvent e in _events)
        {
            Assert.That(e.GetField("class").MapText, Is.EqualTo("NESTING_TRANSACTION_FULL"));
            XeValue mode = e.GetField("mode");
            Assert.That(mode.MapKey, Is.EqualTo(4UL));
            Assert.That(mode.MapText, Is.EqualTo("EX"));
            Assert.That(e.GetField("address").AsUInt64(), Is.EqualTo(address));
            Assert.That(e.GetField("database_id").AsUInt64(), Is.EqualTo(2UL));
            Assert.That(e.GetAction("session_id").AsUInt64(), Is.EqualTo(58UL));
            Assert.That(
                e.Actions.Select(a => a.FullName),
                Is.EqualTo(
                    new[]
                    {
                        "sqlos.scheduler_id",
                        "sqlserver.session_id",
                        "sqlos.worker_address",
                        "sqlos.system_thread_id",
                        "package0.event_sequence",
                        "package0.callstack",
                    }
                )
            );
        }
    }

    [Test]
    public void LatchModeMap_HasTheDocumentedKeys()
    {
        XeMap map = _events[0].GetField("mode").Map!;
        Assert.That(
            map.Entries.Select(x => (x.Key, x.Name)),
            Is.EqualTo(new[] { (0u, "NL"), (1u, "KP"), (2u, "SH"), (3u, "UP"), (4u, "EX"), (5u, "DT") })
        );
    }

    [Test]
    public void SchedulerCounts_PutScheduler27AboutTenPercentBelowItsPeers()
    {
        Dictionary<ulong, int> perScheduler = _events
            .GroupBy(e => e.GetAction("scheduler_id").AsUInt64())
            .ToDictionary(g => g.Key, g => g.Count());
        Assert.That(perScheduler.Keys, Has.Count.EqualTo(8), "MAXDOP 8: eight workers");
        Assert.That(perScheduler.Keys, Has.All.InRange(24UL, 47UL));
        Assert.That(perScheduler.Keys, Does.Contain(27UL));
        double peers = perScheduler.Where(kv => kv.Key != 27).Average(kv => kv.Value);
        double ratio = perScheduler[27] / peers;
        Assert.That(
            ratio,
            Is.InRange(0.87, 0.93),
            "scheduler 27 gets about 10% fewer acquires than the mean of its peers"
        );
        foreach ((ulong scheduler, int count) in perScheduler)
        {
            Assert.That(
                count,
                Is.EqualTo(SampleData.Figure(_figures, "scheduler." + scheduler.ToString(CultureInfo.InvariantCulture)))
            );
        }

        // One worker (and one OS thread) per scheduler.
        Assert.That(
            _events
                .GroupBy(e => e.GetAction("scheduler_id").AsUInt64())
                .Select(g => g.Select(e => e.GetAction("worker_address").AsUInt64()).Distinct().Count()),
            Has.All.EqualTo(1)
        );
        Assert.That(_events.Select(e => e.GetAction("system_thread_id").AsUInt64()).Distinct().Count(), Is.EqualTo(8));
    }

    [Test]
    public void DistinctCallstacks_TopThreeAreSeedStacksABC_WithNearlyEqualCounts()
    {
        List<(ulong[] Frames, int Count)> buckets = Buckets(_events);
        Assert.That(buckets.Take(3).Select(b => b.Count), Is.EqualTo(new[] { CountA, CountB, CountC }));
        double next = (double)buckets[3].Count / buckets[0].Count;
        Assert.That(
            next,
            Is.InRange(0.003, 0.005),
            "the next bucket is ~0.4% of the top, as in the seed (472 / 115,192)"
        );
        Assert.That(buckets, Has.Count.EqualTo(SampleData.Figure(_figures, "distinct_stacks")));

        Dictionary<string, List<SampleData.FixtureFrame>> fixtures = SampleData.FixtureStacks();
        string[] ids = ["A", "B", "C"];
        for (int i = 0; i < 3; i++)
        {
            List<SampleData.FixtureFrame> expected = fixtures[ids[i]];
            ulong[] frames = buckets[i].Frames;
            Assert.That(frames, Has.Length.EqualTo(24), "24 frames, stack " + ids[i]);
            for (int f = 0; f < frames.Length; f++)
            {
                // Raw return address = module base (sidecar) + RVA of function+offset in the committed DLL (fixtures).
                ulong expectedVa = _modules.BaseOf(expected[f].ModuleFile) + expected[f].Rva;
                Assert.That(
                    frames[f],
                    Is.EqualTo(expectedVa),
                    ids[i]
                        + " frame "
                        + f.ToString(CultureInfo.InvariantCulture)
                        + " "
                        + expected[f].Function
                        + "+"
                        + expected[f].Offset
                );
            }
        }
    }

    [Test]
    public void Callstacks_HaveTheDocumentedOutOfModuleFrames_AndEveryOtherFrameInsideAFixtureDll()
    {
        ulong sqlminSize = SampleData.SizeOfImage("sqlmin.dll");
        ulong sqlTsEsSize = SampleData.SizeOfImage("sqlTsEs.dll");
        int eventsOutside = 0;
        int framesOutside = 0;
        foreach (XEvent e in _events)
        {
            ulong[] frames = e.GetAction("callstack").AsCallstack();
            Assert.That(frames, Has.Length.EqualTo(24));
            int outside = 0;
            foreach (ulong va in frames)
            {
                if (_modules.Find(va) is not (string name, ulong rva))
                {
                    outside++;
                    continue;
                }

                Assert.That(name, Is.EqualTo("sqlmin.dll").Or.EqualTo("sqlTsEs.dll"));
                Assert.That(
                    rva,
                    Is.LessThan(name == "sqlmin.dll" ? sqlminSize : sqlTsEsSize),
                    "frame inside the committed DLL image"
                );
            }

            framesOutside += outside;
            eventsOutside += outside > 0 ? 1 : 0;
        }

        Assert.That(eventsOutside, Is.EqualTo(SampleData.Figure(_figures, "outside_events")));
        Assert.That(eventsOutside, Is.GreaterThan(0));
        Assert.That(framesOutside, Is.EqualTo(eventsOutside * SampleData.Figure(_figures, "outside_frames_per_event")));
    }

    [Test]
    public void FileName_IsARolloverName_WhoseFileTimePrecedesAFewSecondsOfEvents()
    {
        string path = SampleData.CapturePath(SampleData.Latch);
        System.Text.RegularExpressions.Match m = SampleData.RolloverName().Match(Path.GetFileName(path));
        Assert.That(m.Success, Is.True, path);
        Assert.That(m.Groups["set"].Value, Is.EqualTo(SampleData.Latch));
        DateTime fileTime = DateTime.FromFileTimeUtc(long.Parse(m.Groups["ft"].Value, CultureInfo.InvariantCulture));
        DateTime first = _events.Min(e => e.Timestamp);
        DateTime last = _events.Max(e => e.Timestamp);
        Assert.That(first, Is.GreaterThanOrEqualTo(fileTime));
        Assert.That(first - fileTime, Is.LessThan(TimeSpan.FromSeconds(1)));
        Assert.That(last - first, Is.InRange(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(10)));
        Assert.That(Path.GetFileName(path), Is.EqualTo(Path.GetFileName(_figures["file"])));
        Assert.That(new FileInfo(path).Length, Is.LessThan(3L * 1024 * 1024), "committed samples stay under ~3 MB");
    }

    [Test]
    public void Sidecar_ListsTheEightModules_WithFullPathsAndDistinctAlignedBases()
    {
        string path = SampleData.SidecarPath(SampleData.Latch);
        Assert.That(File.ReadAllText(path), Does.Not.Contain("\r"));
        Assert.That(
            _modules.Entries.Select(e => e.Name),
            Is.EquivalentTo(
                new[]
                {
                    "sqlservr.exe",
                    "sqlmin.dll",
                    "sqldk.dll",
                    "sqllang.dll",
                    "sqlTsEs.dll",
                    "ntdll.dll",
                    "KERNEL32.DLL",
                    "KERNELBASE.dll",
                }
            )
        );
        Assert.That(_modules.Entries.Select(e => e.Path), Has.All.StartsWith(@"C:\"));
        Assert.That(
            _modules.Entries.Single(e => e.Name == "sqlmin.dll").Path,
            Is.EqualTo(@"C:\Program Files\Microsoft SQL Server\MSSQL16.MSSQLSERVER\MSSQL\Binn\sqlmin.dll")
        );
        Assert.That(_modules.Entries.Select(e => e.Base), Is.Unique);
        Assert.That(_modules.Entries.Select(e => e.Base & 0xFFFF), Has.All.EqualTo(0UL));
        Assert.That(
            _modules.Entries.Select(e => e.Base >> 40),
            Has.All.EqualTo(0x7FUL),
            "0x00007F… user-mode image bases"
        );
    }

    [Test]
    public void Records_AreNotInTimeOrderInTheFile_ButEventSequenceFollowsTime()
    {
        Assert.That(
            _events.Zip(_events.Skip(1)).Any(p => p.Second.Timestamp < p.First.Timestamp),
            Is.True,
            "per-CPU buffers: file order is not time order"
        );
        List<XEvent> bySequence = [.. _events.OrderBy(e => e.GetAction("event_sequence").AsUInt64())];
        Assert.That(
            bySequence.Select(e => e.GetAction("event_sequence").AsUInt64()),
            Is.EqualTo(Enumerable.Range(1, _events.Count).Select(i => (ulong)i))
        );
        Assert.That(bySequence.Zip(bySequence.Skip(1)).All(p => p.First.Timestamp <= p.Second.Timestamp), Is.True);
    }

    /// <summary>Distinct raw callstacks with their counts, largest first.</summary>
    internal static List<(ulong[] Frames, int Count)> Buckets(IEnumerable<XEvent> events) =>
        [
            .. events
                .Select(e => e.GetAction("callstack").AsCallstack())
                .GroupBy(
                    f => string.Join(",", f.Select(x => x.ToString("X", CultureInfo.InvariantCulture))),
                    StringComparer.Ordinal
                )
                .Select(g => (g.First(), g.Count()))
                .OrderByDescending(b => b.Item2),
        ];
}

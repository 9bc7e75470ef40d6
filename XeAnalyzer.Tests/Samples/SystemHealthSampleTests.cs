using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Sample 6 (sample-xel/system_health_stacks): system_health ring-buffer events whose stack is in the callstack-typed
/// field
/// <c>call_stack</c>. The raw stacks are rebased here with the sidecar and compared with the fixture RVAs of the
/// generator's expected stacks; the schema is compared with the public sqlhealth.xel when the shared vectors are
/// present.
/// </summary>
public sealed class SystemHealthSampleTests
{
    private const string Broker = "memory_broker_ring_buffer_recorded";
    private const string Monitor = "scheduler_monitor_system_health_ring_buffer_recorded";

    private List<XEvent> _events = null!;
    private Dictionary<string, string> _figures = null!;
    private SampleData.Modules _modules = null!;

    [OneTimeSetUp]
    public void ReadSample()
    {
        _events = SampleData.ReadAll(SampleData.SystemHealth);
        _figures = SampleData.Figures(SampleData.SystemHealth);
        _modules = new SampleData.Modules(SampleData.SidecarPath(SampleData.SystemHealth));
    }

    [Test]
    public void Events_CarryTheirStackInTheCallStackField_AndNoActions()
    {
        Assert.That(_events, Has.Count.EqualTo(SampleData.Figure(_figures, "events")));
        foreach (string name in new[] { Broker, Monitor })
        {
            List<XEvent> mine = [.. _events.Where(e => e.Name == name)];
            Assert.That(mine, Has.Count.EqualTo(SampleData.Figure(_figures, "count." + name)), name);
            XeColumn stack = mine[0].Fields[^1];
            Assert.That((stack.Name, stack.BaseType), Is.EqualTo(("call_stack", XeBaseType.Callstack)), name);
        }

        Assert.That(_events.Select(e => e.PackageName).Distinct(), Is.EqualTo(new[] { "sqlos" }));
        Assert.That(
            _events.Where(e => e.Actions.Count > 0),
            Is.Empty,
            "no package0.callstack action: the stack is a field"
        );
    }

    [Test]
    public void CallStacks_RebasedWithTheSidecar_AreTheExpectedFixtureFrames_WithTheDocumentedCounts()
    {
        List<Dictionary<string, string>> rows = SampleData.Tsv(SampleData.Expected("system_health_stacks.stacks.tsv"));
        var expected = rows.GroupBy(r => r["stack"])
            .ToDictionary(
                g => g.Key,
                g =>
                    (
                        Event: g.Select(r => r["event"]).Distinct().Single(),
                        Count: long.Parse(g.Select(r => r["count"]).Distinct().Single(), CultureInfo.InvariantCulture),
                        Frames: g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture))
                            .Select(r => (r["module"], SampleData.Hex(r["rva"])))
                            .ToArray()
                    )
            );
        Assert.That(expected, Has.Count.EqualTo(SampleData.Figure(_figures, "distinct_stacks")));

        var seen = _events
            .GroupBy(e =>
                (
                    e.Name,
                    Stack: string.Join(
                        ",",
                        e.GetField("call_stack")
                            .AsCallstack()
                            .Select(a => a.ToString("X", CultureInfo.InvariantCulture))
                    )
                )
            )
            .Select(g => (g.Key.Name, Frames: g.First().GetField("call_stack").AsCallstack(), Count: (long)g.Count()))
            .ToList();
        Assert.That(seen, Has.Count.EqualTo(expected.Count));
        foreach ((string name, ulong[] frames, long count) in seen)
        {
            (string Module, ulong Rva)[] rebased =
            [
                .. frames.Select(a =>
                    _modules.Find(a)
                    ?? throw new AssertionException(
                        "a frame outside every module: 0x" + a.ToString("X16", CultureInfo.InvariantCulture)
                    )
                ),
            ];
            KeyValuePair<string, (string Event, long Count, (string, ulong)[] Frames)> match = expected.Single(x =>
                x.Value.Frames.SequenceEqual(rebased, ModuleComparer.Instance)
            );
            Assert.That(name, Is.EqualTo(match.Value.Event), match.Key);
            Assert.That(count, Is.EqualTo(match.Value.Count), match.Key);
            Assert.That(count, Is.EqualTo(SampleData.Figure(_figures, "count." + match.Key)), match.Key);
        }
    }

    [Test]
    public void Schema_IsThatOfThePublicSqlhealthCapture()
    {
        string vector = TestPaths.RequireVector("xel", "sqlhealth.xel");
        var real = XelReader
            .ReadEvents(vector)
            .Select(e => e.EventType)
            .Distinct()
            .ToDictionary(t => t.Name, StringComparer.Ordinal);
        foreach (string name in new[] { Broker, Monitor })
        {
            XeEventType mine = _events.First(e => e.Name == name).EventType;
            XeEventType theirs = real[name];
            Assert.That(mine.Uuid, Is.EqualTo(theirs.Uuid), name);
            Assert.That(mine.Package.Name, Is.EqualTo(theirs.Package.Name), name);
            Assert.That(
                mine.Fields.Select(f => (f.Name, f.TypeName)),
                Is.EqualTo(theirs.Fields.Select(f => (f.Name, f.TypeName))),
                name
            );
        }
    }

    /// <summary>Module names compare ignoring case (the sidecar has KERNEL32.DLL, stacks.tsv the same; sqldk.dll
    /// both).</summary>
    private sealed class ModuleComparer : IEqualityComparer<(string Module, ulong Rva)>
    {
        public static readonly ModuleComparer Instance = new();

        public bool Equals((string Module, ulong Rva) x, (string Module, ulong Rva) y) =>
            string.Equals(x.Module, y.Module, StringComparison.OrdinalIgnoreCase) && x.Rva == y.Rva;

        public int GetHashCode((string Module, ulong Rva) obj) =>
            HashCode.Combine(StringComparer.OrdinalIgnoreCase.GetHashCode(obj.Module), obj.Rva);
    }
}

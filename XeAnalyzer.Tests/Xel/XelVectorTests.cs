using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>Facts from /work/shared/vectors/SOURCES.md and XEL-FORMAT.md §10, asserted on the real captures.</summary>
public sealed class XelVectorTests
{
    private static Dictionary<string, int> CountByName(IEnumerable<XEvent> events, bool full = false)
    {
        var d = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (XEvent e in events)
        {
            string k = full ? e.FullName : e.Name;
            d[k] = d.GetValueOrDefault(k) + 1;
        }

        return d;
    }

    [Test]
    public void ReadEvents_MatchesSourcesCounts_ForTestXel()
    {
        string path = TestPaths.RequireVector("xel", "TestXel_0.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(path)];
        Assert.That(events, Has.Count.EqualTo(149));
        Dictionary<string, int> counts = CountByName(events);
        Assert.That(counts["existing_connection"], Is.EqualTo(120));
        Assert.That(counts["rpc_completed"], Is.EqualTo(11));
        Assert.That(counts["sql_batch_starting"], Is.EqualTo(5));
        Assert.That(counts["sql_batch_completed"], Is.EqualTo(5));
        Assert.That(counts["login"], Is.EqualTo(4));
        Assert.That(counts["logout"], Is.EqualTo(4));
        Assert.That(counts, Has.Count.EqualTo(6));
        Assert.That(events[0].Name, Is.EqualTo("rpc_completed"));
        Assert.That(events.TrueForAll(e => e.PackageName == "sqlserver"), Is.True);
        Assert.That(events[0].Timestamp.Year, Is.EqualTo(2017));
        Assert.That(events[0].Timestamp.Month, Is.EqualTo(10));
        Assert.That(events[0].Timestamp.Day, Is.EqualTo(17));
        string[] actions = [.. events[0].Actions.Select(a => a.Name)];
        Assert.That(
            actions,
            Is.SupersetOf(
                new[]
                {
                    "session_id",
                    "client_app_name",
                    "client_pid",
                    "nt_username",
                    "server_principal_name",
                    "database_id",
                    "query_hash",
                    "event_sequence",
                    "attach_activity_id",
                    "attach_activity_id_xfer",
                }
            )
        );
        Assert.That(events[0].EventSequence, Is.Not.Null);
    }

    [Test]
    public void ReadEvents_FindsWaitInfoWithCallstack_ForSqlHealth()
    {
        string path = TestPaths.RequireVector("xel", "sqlhealth.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(path)];
        Assert.That(events, Has.Count.EqualTo(178));
        Dictionary<string, int> counts = CountByName(events, full: true);
        Assert.That(counts["sqlos.memory_broker_ring_buffer_recorded"], Is.EqualTo(160));
        Assert.That(counts["sqlos.scheduler_monitor_system_health_ring_buffer_recorded"], Is.EqualTo(16));
        Assert.That(counts["sqlserver.security_error_ring_buffer_recorded"], Is.EqualTo(1));
        Assert.That(counts["sqlos.wait_info"], Is.EqualTo(1));
        XEvent wait = events.Single(e => e.FullName == "sqlos.wait_info");
        Assert.That(wait.Uuid, Is.EqualTo(Guid.Parse("992caa1d-ef90-4278-9821-ebdd0180db0c")));
        Assert.That(wait.TryGetAction("session_id", out XeValue sid), Is.True);
        Assert.That(sid.AsUInt64(), Is.GreaterThan(0UL));
        XeValue cs = wait.GetAction("callstack");
        Assert.That(cs.BaseType, Is.EqualTo(XeBaseType.Callstack));
        Assert.That(cs.CallstackFrameCount, Is.GreaterThan(0));
        ulong[] frames = cs.AsCallstack();
        Assert.That(
            cs.ToString().Split('\n')[0],
            Is.EqualTo("0x" + frames[0].ToString("X16", System.Globalization.CultureInfo.InvariantCulture))
        );
        Assert.That(wait.Timestamp.Year, Is.EqualTo(2013));
        Assert.That(wait.GetField("wait_type").IsMap, Is.True);
        Assert.That(wait.GetField("wait_type").MapText, Is.Not.Empty);

        // package name 'sqlserver' appears twice, with different indices
        XeSchema schema = XelReader.ReadSchema(path);
        Assert.That(schema.Packages.Count(p => p.Name == "sqlserver"), Is.EqualTo(2));
    }

    [Test]
    public void ReadEvents_ReadsGatewayPackage_ForGatewaySample()
    {
        string path = TestPaths.RequireVector("xel", "gatewaysample.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(path)];
        Assert.That(events, Has.Count.EqualTo(29));
        Assert.That(events.TrueForAll(e => e.FullName == "GatewayPackage.login_timing"), Is.True);
        Assert.That(events[0].Timestamp, Is.EqualTo(new DateTime(2012, 5, 8)).Within(TimeSpan.FromDays(1)));
        Assert.That(events[0].GetField("ClientConnectTime").ToObject(), Is.TypeOf<DateTimeOffset>());

        // The package clock has frequency 0 in this 2012 file; ticks are then 100 ns units. Cross-check against an
        // independent clock: each login_timing event is raised shortly after its ClientConnectTime (a FILETIME payload
        // field).
        int checkedEvents = 0;
        foreach (XEvent e in events)
        {
            DateTime connect = e.GetField("ClientConnectTime").AsDateTime();
            if (connect.Year > 1601)
            {
                Assert.That((e.Timestamp - connect).Duration(), Is.LessThan(TimeSpan.FromMinutes(2)));
                checkedEvents++;
            }
        }

        Assert.That(checkedEvents, Is.GreaterThan(0));
    }

    [Test]
    public void ReadEvents_ReadsThreeAndThree_ForSqlTrace()
    {
        string path = TestPaths.RequireVector("xel", "sqltrace.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(path)];
        Dictionary<string, int> counts = CountByName(events);
        Assert.That(counts["sql_statement_starting"], Is.EqualTo(3));
        Assert.That(counts["sql_statement_completed"], Is.EqualTo(3));
        Assert.That(events, Has.Count.EqualTo(6));
        Assert.That(events[0].Timestamp.Date, Is.EqualTo(new DateTime(2012, 5, 26)));
        Assert.That(events[0].GetField("statement").AsString(), Does.StartWith("select * from sysobjects"));
    }
}

using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Cli;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Reporting;

/// <summary>
/// <c>report</c> on captures of the sessions SQL Server and its cluster resource manage (AlwaysOn_health, the SQLDIAG
/// logs of a failover-cluster instance): recognised by the file names SQL Server gives them, or by the events they hold
/// when renamed, and never told to alter the session. The captures are synthetic: event and file names as the product
/// writes them (XE-TEXT-SHAPES.md, XE-ANALYSES.md), values made up.
/// </summary>
public sealed class BuiltInSessionReportTests
{
    private static readonly DateTime T0 = new(2024, 5, 14, 9, 0, 0, DateTimeKind.Utc);
    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    // (file name, events it holds, the session the page must name, how it was recognised)
    private static IEnumerable<TestCaseData> Captures()
    {
        string[] alwaysOn = ["availability_replica_state_change", "alwayson_ddl_executed", "error_reported"];
        string[] sqlDiag = ["component_health_result", "info_message"];
        yield return new TestCaseData(
            "AlwaysOn_health_0_133601526724170000.xel",
            alwaysOn,
            "AlwaysOn_health",
            "file name AlwaysOn_health_0_"
        ).SetName("AlwaysOnHealth_ByFileName");
        yield return new TestCaseData(
            "ag-incident-0.xel",
            alwaysOn,
            "AlwaysOn_health",
            "its events sqlserver.availability_replica_state_change, sqlserver.alwayson_ddl_executed"
        ).SetName("AlwaysOnHealth_Renamed_ByItsEvents");
        yield return new TestCaseData(
            "NODE1_MSSQLSERVER_SQLDIAG_0_133601526724170000.xel",
            sqlDiag,
            "SQLDIAG",
            "file name NODE1_MSSQLSERVER_SQLDIAG_0_"
        ).SetName("SqlDiag_ByFileName");
        yield return new TestCaseData(
            "cluster-log.xel",
            sqlDiag,
            "SQLDIAG",
            "its events sqlserver.component_health_result, sqlserver.info_message"
        ).SetName("SqlDiag_Renamed_ByItsEvents");
    }

    [TestCaseSource(nameof(Captures))]
    public void Report_NamesTheBuiltInSession_AndAdvisesNoSessionChange(
        string fileName,
        string[] events,
        string session,
        string how
    )
    {
        string capture = _temp.File(fileName);
        WriteCapture(capture, events);
        string dir = _temp.File("out");

        (int exit, string stdout, string err) = CliRunner.Run("report", capture, "-o", dir, "--offline");

        Assert.That(exit, Is.EqualTo(4), "none of the analyses applies to these events: " + stdout + err);
        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Contain(session + " (built in; recognised by " + how));
        Assert.That(page, Does.Contain("What other analyses would need"));
        Assert.That(page, Does.Not.Contain("ALTER EVENT SESSION"), "a session SQL Server manages is not one to alter");
        Assert.That(page, Does.Not.Contain("ADD EVENT"));
    }

    [Test]
    public void Report_OwnSessionWithOneAlwaysOnEvent_IsNotTakenForTheBuiltInSession()
    {
        // One event of the AlwaysOn_health set in a session of one's own is no sign of the built-in session.
        string capture = _temp.File("my_ag_watch_0_133601526724170000.xel");
        WriteCapture(capture, ["availability_replica_state_change", "error_reported"]);
        string dir = _temp.File("out");

        CliRunner.Run("report", capture, "-o", dir, "--offline");

        string page = File.ReadAllText(Path.Combine(dir, "index.html"));
        Assert.That(page, Does.Not.Contain("built in"));
        Assert.That(
            page,
            Does.Contain("ADD EVENT"),
            "a session of one's own gets the change that enables each analysis"
        );
    }

    private static void WriteCapture(string path, string[] eventNames)
    {
        var builder = new XeSchemaBuilder();
        XePackage sqlserver = builder.AddPackage("sqlserver", 3);
        var types = new List<XeEventType>();
        for (int i = 0; i < eventNames.Length; i++)
        {
            types.Add(
                builder.AddEvent(
                    sqlserver,
                    eventNames[i],
                    new Guid($"22222222-0000-4000-8000-{i + 1:D12}"),
                    [XeFieldDefinition.Of("data", XeBaseType.UnicodeString)]
                )
            );
        }

        XeSchema schema = builder.Build();
        using XelWriter w = XelWriter.Create(
            path,
            schema,
            new XelWriterOptions
            {
                StartTimeUtc = T0,
                BufferSize = 8192,
                Partitions = 1,
            }
        );
        for (int i = 0; i < 12; i++)
        {
            XeEventType type = types[i % types.Count];
            w.Write(AnalysisCaptures.Event(type, T0.AddSeconds(i + 1), ["value " + i]));
        }
    }
}

using System.Text.Json;
using XeAnalyzer.Cli;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>The info, events and slice commands, run in-process.</summary>
public sealed class XelCliTests
{
    private static string Fixture(string name) => XelFixtures.PathOf(name);

    [Test]
    public void Info_ReportsCountsAndSchema_ForTestXel()
    {
        (int exit, string output, string err) = CliRunner.Run("info", TestPaths.RequireVector("xel", "TestXel_0.xel"));
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("events: 149"));
        Assert.That(output, Does.Match(@"sqlserver\.existing_connection\s+120"));
        Assert.That(output, Does.Match(@"sqlserver\.rpc_completed\s+11"));
        Assert.That(output, Does.Match(@"sqlserver\.sql_batch_starting\s+5"));
        Assert.That(output, Does.Match(@"sqlserver\.sql_batch_completed\s+5"));
        Assert.That(output, Does.Match(@"sqlserver\.login\s+4"));
        Assert.That(output, Does.Match(@"sqlserver\.logout\s+4"));
        Assert.That(output, Does.Contain("callstacks: no (no event type has a callstack field"));
        Assert.That(output, Does.Contain("action sqlserver.session_id : uint16"));
    }

    [Test]
    public void Info_ShowsWaitInfoCallstack_ForSqlHealth()
    {
        (int exit, string output, _) = CliRunner.Run("info", TestPaths.RequireVector("xel", "sqlhealth.xel"));
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Does.Contain("events: 178"));
        Assert.That(output, Does.Match(@"sqlos\.wait_info\s+1\n"));
        Assert.That(
            output,
            Does.Contain(
                "sqlos.wait_info (package index 1, uuid 992caa1d-ef90-4278-9821-ebdd0180db0c)"
                    + " [callstack field: 1 of 1 event(s) carry a stack]"
            )
        );
        Assert.That(output, Does.Contain("field  wait_type : map sqlos.wait_types"));
        Assert.That(output, Does.Contain("callstacks: 2 of 178 event(s) carry a stack"));
    }

    [Test]
    public void Info_TotalsRolloverSet_FromFolder()
    {
        (int exit, string output, _) = CliRunner.Run("info", Path.Combine(TestPaths.TestData, "xel", "rollover"));
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Does.Contain("3 file(s) (rollover set)"));
        Assert.That(output, Does.Contain("set total:"));
        Assert.That(output, Does.Match(@"set total: \d+ bytes, 15 events"));
    }

    [Test]
    public void Events_WritesCsvWithHeader_ForLatchFixture()
    {
        (int exit, string output, string err) = CliRunner.Run(
            "events",
            Fixture("latch.xel"),
            "--format",
            "csv",
            "--limit",
            "3"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = output.Split('\n');
        Assert.That(
            lines[0].TrimEnd('\r'),
            Is.EqualTo(
                "timestamp,event,file,offset,class,mode,address,database_id,file_id,"
                    + "page_id,duration (unit unknown),event_sequence,callstack,scheduler_id,session_id"
            ),
            "a latch_acquired duration is in no reference: its unit is unknown"
        );
        Assert.That(lines[1], Does.StartWith("2024-03-01T12:00:00.0000000Z,sqlserver.latch_acquired,"));
        Assert.That(lines[1], Does.Contain(",BUFFER,NL,0x000001A2B3C4D000,5,1,100,0,1,"));
    }

    [Test]
    public void Events_NamesClashingActionColumns_WithActionSuffix()
    {
        (int exit, string output, _) = CliRunner.Run(
            "events",
            Fixture("all-types.xel"),
            "--event",
            "all_types",
            "--format",
            "csv",
            "--limit",
            "1"
        );
        Assert.That(exit, Is.EqualTo(0));
        string header = output.Split('\n')[0];
        Assert.That(header, Does.Contain(",session_id,"));
        Assert.That(header, Does.Contain("session_id (action)"));
    }

    [Test]
    public void Events_WritesJsonArray_WithTypedValues()
    {
        (int exit, string output, _) = CliRunner.Run(
            "events",
            Fixture("all-types.xel"),
            "--event",
            "xetest.all_types",
            "--format",
            "json"
        );
        Assert.That(exit, Is.EqualTo(0));
        using JsonDocument doc = JsonDocument.Parse(output);
        Assert.That(doc.RootElement.GetArrayLength(), Is.EqualTo(XelFixtures.AllTypesCount));
        JsonElement first = doc
            .RootElement.EnumerateArray()
            .Single(x => x.GetProperty("actions").GetProperty("event_sequence").GetUInt64() == 1000);
        Assert.That(first.GetProperty("fields").GetProperty("f_int64").GetInt64(), Is.EqualTo(long.MinValue));
        Assert.That(first.GetProperty("fields").GetProperty("f_uint64").GetUInt64(), Is.EqualTo(ulong.MaxValue));
        Assert.That(first.GetProperty("fields").GetProperty("f_color").GetString(), Is.EqualTo("RED"));
        Assert.That(
            first.GetProperty("actions").GetProperty("callstack").GetString(),
            Does.StartWith("0x00007FFAF2BD6C7C\n")
        );
    }

    [Test]
    public void Events_WritesOneTextLinePerEvent_WithFilter()
    {
        (int exit, string output, _) = CliRunner.Run("events", Fixture("all-types.xel"), "--event", "dup_event");
        Assert.That(exit, Is.EqualTo(0));
        string[] lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines, Has.Length.EqualTo(3));
        Assert.That(lines.All(l => l.Contains(" xetest.dup_event value=", StringComparison.Ordinal)), Is.True);
    }

    [Test]
    public void Slice_WritesKeptEvents_ThatReadBackWithSameValues()
    {
        string outPath = Path.Combine(Path.GetTempPath(), "xeanalyzer-slice-" + Guid.NewGuid().ToString("N") + ".xel");
        try
        {
            (int exit, string output, string err) = CliRunner.Run(
                "slice",
                Fixture("all-types.xel"),
                "--event",
                "all_types",
                "--from",
                "2024-03-01T12:00:00.05Z",
                "-o",
                outPath
            );
            Assert.That(exit, Is.EqualTo(0), err);
            string[] expected =
            [
                .. XelReader
                    .ReadEvents(Fixture("all-types.xel"), new XelReadOptions { EventNames = ["all_types"] })
                    .Where(e => e.Timestamp >= new DateTime(2024, 3, 1, 12, 0, 0, 50, DateTimeKind.Utc))
                    .Select(XelRoundTripTests.Describe),
            ];
            string[] actual = [.. XelReader.ReadEvents(outPath).Select(XelRoundTripTests.Describe)];
            Assert.That(expected, Is.Not.Empty);
            Assert.That(actual, Is.EqualTo(expected));
            Assert.That(
                output,
                Does.Contain(
                    "wrote " + expected.Length.ToString(System.Globalization.CultureInfo.InvariantCulture) + " events"
                )
            );
        }
        finally
        {
            File.Delete(outPath);
        }
    }

    [Test]
    public void Commands_ReturnInputError_WithOneLineMessage_ForBadInput()
    {
        string bad = Path.Combine(Path.GetTempPath(), "xeanalyzer-bad-" + Guid.NewGuid().ToString("N") + ".xel");
        File.WriteAllText(bad, "not a capture at all");
        try
        {
            foreach (string cmd in new[] { "info", "events" })
            {
                (int exit, _, string err) = CliRunner.Run(cmd, bad);
                Assert.That(exit, Is.EqualTo(1));
                Assert.That(err.Trim().Split('\n'), Has.Length.EqualTo(1));
                Assert.That(err, Does.Contain(bad).And.Contain("magic"));
                Assert.That(err, Does.Not.Contain("   at "));
            }

            (int missing, _, string err2) = CliRunner.Run("events", "/no/such/file.xel");
            Assert.That(missing, Is.EqualTo(1));
            Assert.That(err2, Does.Contain("/no/such/file.xel"));
        }
        finally
        {
            File.Delete(bad);
        }
    }

    [Test]
    public void Commands_ReturnPartial_WhenSkippingCorruptBuffers()
    {
        byte[] b = File.ReadAllBytes(Fixture("latch.xel"));
        string damaged = Path.Combine(Path.GetTempPath(), "xeanalyzer-dmg-" + Guid.NewGuid().ToString("N") + ".xel");
        int pos = 512;
        while (BitConverter.ToUInt16(b, pos + 14) != 0)
        {
            pos += BitConverter.ToInt32(b, pos + 16);
        }

        b[pos + 12] = 0x55;
        File.WriteAllBytes(damaged, b);
        try
        {
            Assert.That(CliRunner.Run("events", damaged).Exit, Is.EqualTo(1));
            (int exit, string output, string err) = CliRunner.Run("events", damaged, "--skip-corrupt");
            Assert.That(exit, Is.EqualTo(3));
            Assert.That(
                output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length,
                Is.GreaterThan(0).And.LessThan(40)
            );
            Assert.That(err, Does.Contain("partial result"));
            Assert.That(CliRunner.Run("info", damaged, "--skip-corrupt").Exit, Is.EqualTo(3));
        }
        finally
        {
            File.Delete(damaged);
        }
    }

    [Test]
    public void Commands_ReturnUsage_ForBadOptions()
    {
        Assert.That(CliRunner.Run("events", Fixture("latch.xel"), "--format", "xml").Exit, Is.EqualTo(2));
        Assert.That(CliRunner.Run("slice", Fixture("latch.xel"), "-o", "/tmp/x.xel").Exit, Is.EqualTo(2));
        Assert.That(
            CliRunner
                .Run("slice", Fixture("latch.xel"), "--event", "x", "--from", "yesterday-ish", "-o", "/tmp/x.xel")
                .Exit,
            Is.EqualTo(2)
        );
    }
}

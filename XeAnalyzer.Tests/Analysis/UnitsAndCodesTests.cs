using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Samples;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// The one unit rule for duration-like fields (<see cref="DurationUnits"/>: the capture's metadata first, then the
/// reference's units) as every output uses it, the Win32 meaning of <c>wait_result</c>, and the labels that name
/// what a figure counts.
/// </summary>
public sealed class UnitsAndCodesTests
{
    private static XeColumn Field(string name, string description)
    {
        var package = new XePackage(0, "sqlos", Guid.Empty, Guid.Empty, string.Empty);
        var type = new XeType(package, "uint64", XeBaseType.UInt64, 8, string.Empty);
        return new XeColumn(XeColumnKind.Field, package, name, 0, type, null, 8, description);
    }

    private static XeEventType TypeIn(string vector, string eventName)
    {
        CaptureSummary read = CaptureSource.Open([TestPaths.RequireVector("xel", vector)]).Read([], EventFilter.None);
        return read
            .Inputs.SelectMany(i => i.Files)
            .Select(f => f.Xel!.Schema.FindEventType(eventName))
            .First(t => t is not null)!;
    }

    [Test]
    public void Metadata_DescribingMicroseconds_BeatsTheTable_ForAWaitEvent()
    {
        // The table says wait durations are ms; a field whose own description says µs is µs.
        FieldUnit described = DurationUnits.Of("sqlos.wait_info", Field("duration", "Wait duration in microseconds"))!;
        Assert.That(
            (described.Unit, described.Verified, described.Label),
            Is.EqualTo((FieldTimeUnit.Microseconds, true, "µs"))
        );
        Assert.That(described.Source, Does.Contain("metadata"));

        FieldUnit plain = DurationUnits.Of("sqlos.wait_info", Field("duration", string.Empty))!;
        Assert.That((plain.Unit, plain.Label), Is.EqualTo((FieldTimeUnit.Milliseconds, "ms")));
        Assert.That(plain.Source, Does.Contain("table"));
        Assert.That(
            DurationUnits.Of("wait_completed", Field("signal_duration", string.Empty))!.Label,
            Is.EqualTo("ms")
        );
    }

    [Test]
    public void LatchDuration_IsMicroseconds_UnitUnverified_AndUnknownFieldsSayUnknown()
    {
        FieldUnit latch = DurationUnits.Of("sqlserver.latch_released", Field("duration", string.Empty))!;
        Assert.That(latch.Label, Is.EqualTo("µs, unit unverified"));
        Assert.That(latch.Verified, Is.False);
        Assert.That(
            DurationUnits.Of("file_read_completed", Field("duration", string.Empty))!.Label,
            Is.EqualTo("unit unknown")
        );
        Assert.That(DurationUnits.Of("wait_info", Field("wait_resource", string.Empty)), Is.Null, "not duration-like");
        Assert.That(
            DurationUnits.Of("x", Field("elapsed", "The elapsed time (in microseconds)."))!.Label,
            Is.EqualTo("µs"),
            "a field described in a time unit is duration-like whatever its name"
        );
    }

    [Test]
    public void RealCaptures_UnitsFromTheirMetadata_AndTheRecordedContradiction()
    {
        // SQL Server 2017 (TestXel_0.xel): rpc_completed's duration is described in microseconds.
        XeEventType rpc = TypeIn("TestXel_0.xel", "rpc_completed");
        XeColumn rpcDuration = rpc.Fields[rpc.GetFieldIndex("duration")];
        Assert.That(rpcDuration.Description, Does.Contain("microseconds"));
        Assert.That(DurationUnits.Of(rpc.Name, rpcDuration)!.Unit, Is.EqualTo(FieldTimeUnit.Microseconds));

        // sql_batch_completed's cpu_time is described as milliseconds, but its values are microseconds.
        XeEventType batch = TypeIn("TestXel_0.xel", "sql_batch_completed");
        XeColumn cpu = batch.Fields[batch.GetFieldIndex("cpu_time")];
        Assert.That(cpu.Description, Does.Contain("milliseconds"));
        Assert.That(DurationUnits.Of(batch.Name, cpu)!.Unit, Is.EqualTo(FieldTimeUnit.Microseconds));

        // The 2012-era system_health file has no unit in its description: the table's ms.
        XeEventType wait = TypeIn("sqlhealth.xel", "wait_info");
        Assert.That(DurationUnits.Of(wait.Name, wait.Fields[wait.GetFieldIndex("duration")])!.Label, Is.EqualTo("ms"));
    }

    [Test]
    public void EventsListing_GivesEachDurationItsUnit_InTextCsvAndJson()
    {
        string xel = TestPaths.RequireVector("xel", "TestXel_0.xel");
        (int exit, string csv, string err) = CliRunner.Run(
            "events",
            xel,
            "--event",
            "sql_batch_completed",
            "--format",
            "csv"
        );
        Assert.That(exit, Is.Zero, err);
        string[] header = csv.Split("\r\n")[0].Split(',');
        Assert.That(header, Does.Contain("duration (µs)").And.Contain("cpu_time (µs)").And.Not.Contain("duration"));

        (exit, string json, err) = CliRunner.Run("events", xel, "--event", "sql_batch_completed", "--format", "json");
        Assert.That(exit, Is.Zero, err);
        JsonElement first = JsonDocument.Parse(json).RootElement[0];
        Assert.That(first.GetProperty("units").GetProperty("cpu_time").GetString(), Is.EqualTo("us"));
        Assert.That(first.GetProperty("units").GetProperty("duration").GetString(), Is.EqualTo("us"));

        string health = TestPaths.RequireVector("xel", "sqlhealth.xel");
        (exit, string text, err) = CliRunner.Run("events", health, "--event", "wait_info", "--limit", "1");
        Assert.That(exit, Is.Zero, err);
        Assert.That(text, Does.Match(@" duration=\d+ ms signal_duration=\d+ ms "));
    }

    [Test]
    public void LatchesDurationColumns_SayTheUnitIsUnverified()
    {
        CaptureSource source = CaptureSource.Open([SampleData.CapturePath(SampleData.Waits)]);
        LatchAnalysisResult r = new LatchAnalysis().Analyze(source).Result!;
        string text = OutputFormats.ToText(r);
        Assert.That(text, Does.Contain("duration field mean (µs, unit unverified)"));
        Assert.That(
            text,
            Does.Not.Match(@"duration field (mean|p50|p99|max)(?! \()"),
            "every duration column has its unit"
        );
    }

    [TestCase(0UL, "0 (signaled)")]
    [TestCase(128UL, "128 (WAIT_ABANDONED)")]
    [TestCase(258UL, "258 (WAIT_TIMEOUT)")]
    [TestCase(4294967295UL, "4294967295 (WAIT_FAILED)")]
    [TestCase(1UL, "1")]
    [TestCase(257UL, "257")]
    public void WaitResult_IsShownWithItsWin32Name_UnknownAsTheNumber(ulong code, string expected) =>
        Assert.That(WaitResults.Label(code.ToString(CultureInfo.InvariantCulture)), Is.EqualTo(expected));

    [Test]
    public void WaitsJson_ShowsTheMeaningAndKeepsTheRawCode()
    {
        (int exit, string json, string err) = CliRunner.Run("waits", SampleData.RingBufferXmlPath, "--format", "json");
        Assert.That(exit, Is.Zero, err);
        var rows = DocumentJson.Table(DocumentJson.Parse(json), "wait_completed events by wait_result");
        // The generator's figures (expected/ring_buffer_waits.results.tsv) as label, code and count.
        var expected = SampleData
            .Tsv(SampleData.Expected("ring_buffer_waits.results.tsv"))
            .Select(r =>
                (
                    r["wait_type"],
                    WaitResults.Label(r["wait_result"]),
                    long.Parse(r["wait_result"], CultureInfo.InvariantCulture),
                    long.Parse(r["events"], CultureInfo.InvariantCulture)
                )
            );
        Assert.That(
            rows.Select(r =>
                (
                    r["wait_type"].GetString()!,
                    r["wait_result"].GetString()!,
                    r["wait_result code"].GetInt64(),
                    r["events"].GetInt64()
                )
            ),
            Is.EquivalentTo(expected)
        );
        Assert.That(
            rows.Select(r => r["wait_result"].GetString()),
            Does.Contain("258 (WAIT_TIMEOUT)").And.Contain("0 (signaled)")
        );
    }

    [Test]
    public void PrecededBy_CountsOneOtherWaitType_InTheSingular()
    {
        // LATCH_EX is preceded by six different wait types on one worker: five rows, then "(1 other wait type)".
        var c = new AnalysisCaptures();
        var events = new List<XEvent>();
        ulong seq = 0;
        string[] before =
        [
            "PAGEIOLATCH_SH",
            "PREEMPTIVE_HTTP_REQUEST",
            "CXPACKET",
            "SOS_SCHEDULER_YIELD",
            "WRITELOG",
            "ASYNC_NETWORK_IO",
        ];
        for (int i = 0; i < before.Length; i++)
        {
            double t = i * 100_000;
            events.Add(c.Wait(At(t + 10_000), before[i], "End", 10, 0x10, seq: ++seq));
            events.Add(c.Wait(At(t + 30_000), "LATCH_EX", "End", 10, 0x10, seq: ++seq));
        }

        string text = OutputFormats.ToText(new WaitAnalysis().Analyze(events));
        Assert.That(text, Does.Contain("(1 other wait type)"));
        Assert.That(text, Does.Not.Contain("(1 other wait types)"));
    }

    [Test]
    public void MemoryTitle_NamesAllocationsAndFrees()
    {
        var c = new AnalysisCaptures();
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze([c.Alloc(At(0), 9, seq: 1), c.Free(At(10), 4, seq: 2)]);
        ReportDocument d = r.ToReport();
        Assert.That(d.Title, Does.Contain("page_allocated").And.Contain("page_freed"));
        Assert.That(d.Sections.Select(s => s.Title), Does.Contain("Running total of page_allocated − page_freed"));
    }
}

using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Analysis.Stacks;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Tests.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// The unit of a histogram's slot values (the source named with <c>--source</c>), <c>wait_result</c> meanings in the
/// events listing, and the unit of stack buckets' summed durations decided from the capture's metadata.
/// </summary>
public sealed class UnitLabelsTests
{
    // The Win32 wait return codes as learn.microsoft.com documents them for WaitForSingleObject, written out here.
    private static readonly Dictionary<long, string> s_win32 = new()
    {
        [0] = "signaled",
        [0x80] = "WAIT_ABANDONED",
        [0x102] = "WAIT_TIMEOUT",
        [0xFFFFFFFF] = "WAIT_FAILED",
    };

    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    private string NumericHistogram()
    {
        string path = _tmp.File("durations.histogram.xml");
        File.WriteAllText(
            path,
            "<HistogramTarget truncated=\"0\" buckets=\"16\">"
                + "<Slot count=\"7\"><value>3</value></Slot>"
                + "<Slot count=\"2\"><value>250</value></Slot>"
                + "</HistogramTarget>"
        );
        return path;
    }

    [TestCase("sqlos.wait_info.duration", "ms")]
    [TestCase("sqlserver.rpc_completed.duration", "µs")]
    [TestCase("sqlserver.latch_released.duration", "µs, unit unverified")]
    [TestCase("sqlserver.file_read_completed.duration", "unit unknown")]
    public void Histogram_OnANamedDurationSource_GivesTheValuesTheirUnit(string source, string unit)
    {
        string xml = NumericHistogram();
        (int exit, string text, string err) = CliRunner.Run("histogram", xml, "--source", source);
        Assert.That(exit, Is.Zero, err);
        Assert.That(text, Does.Contain("value (" + unit + ")"));
        Assert.That(text, Does.Match(@"unit of the values:\s+" + Regex.Escape(unit) + @" \(from "));
        Assert.That(text, Does.Contain("source:").And.Contain(source + " (as given"));
        Assert.That(text, Does.Not.Contain("map keys, which change"), "a duration is no map key");

        (exit, string csv, err) = CliRunner.Run("histogram", xml, "--source", source, "--format", "csv");
        Assert.That(exit, Is.Zero, err);
        Assert.That(csv, Does.Contain("value (" + unit + ")"));

        (exit, string json, err) = CliRunner.Run("histogram", xml, "--source", source, "--format", "json");
        Assert.That(exit, Is.Zero, err);
        var rows = DocumentJson.Table(DocumentJson.Parse(json), "Histogram " + xml + ":1");
        Assert.That(
            rows.Select(r => (r["value (" + unit + ")"].GetString(), r["count"].GetInt64())),
            Is.EqualTo(new[] { ("3", 7L), ("250", 2L) })
        );
    }

    [Test]
    public void Histogram_WithoutASource_OrOnAFieldThatIsNoDuration_ShowsNoUnit()
    {
        string xml = NumericHistogram();
        (int exit, string text, string err) = CliRunner.Run("histogram", xml);
        Assert.That(exit, Is.Zero, err);
        Assert.That(text, Does.Not.Contain("value (").And.Not.Contain("unit of the values"));
        Assert.That(text, Does.Contain("--source EVENT.FIELD"), "the note says how to give the unit");

        (exit, text, err) = CliRunner.Run("histogram", xml, "--source", "sqlos.wait_info.wait_type");
        Assert.That(exit, Is.Zero, err);
        Assert.That(text, Does.Not.Contain("value (").And.Not.Contain("unit of the values"));
        Assert.That(text, Does.Contain("map keys, which change"), "a field that is no duration may be a map");

        var options = new HistogramAnalysisOptions { SourceEvent = "sqlos.wait_completed", SourceField = "duration" };
        HistogramAnalysisResult r = new HistogramAnalysis(options).Analyze(CaptureSource.Open([xml])).Result!;
        Assert.That(
            (r.Histograms[0].Source, r.Histograms[0].ValueUnit),
            Is.EqualTo(("sqlos.wait_completed.duration", "ms"))
        );
    }

    [TestCase("duration")]
    [TestCase("wait_info.")]
    [TestCase(".duration")]
    public void Histogram_SourceNotEventDotField_IsAUsageError(string source)
    {
        (int exit, _, string err) = CliRunner.Run("histogram", NumericHistogram(), "--source", source);
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.Contain("--source: expected EVENT.FIELD").And.Contain(source));
    }

    [Test]
    public void EventsListing_ShowsWaitResultMeanings_TextCsvAndJsonKeepTheNumber()
    {
        string xel = SampleData.CapturePath(SampleData.RingBuffer);
        // The expected figures: wait_completed events by wait_result, as the sample's generator wrote them.
        var codes = SampleData
            .Tsv(SampleData.Expected("ring_buffer_waits.results.tsv"))
            .Select(r => long.Parse(r["wait_result"], CultureInfo.InvariantCulture))
            .ToHashSet();
        Assert.That(codes, Does.Contain(0L).And.Contain(258L), "test setup: the sample has both codes");

        (int exit, string text, string err) = CliRunner.Run("events", xel, "--event", "wait_completed");
        Assert.That(exit, Is.Zero, err);
        string[] lines = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines, Is.Not.Empty);
        Assert.That(lines, Has.All.Match(@" wait_result=(0 \(signaled\)|258 \(WAIT_TIMEOUT\)) "));
        Assert.That(text, Does.Contain("wait_result=258 (WAIT_TIMEOUT)").And.Contain("wait_result=0 (signaled)"));

        (exit, string csv, err) = CliRunner.Run("events", xel, "--event", "wait_completed", "--format", "csv");
        Assert.That(exit, Is.Zero, err);
        string[][] rows = [.. csv.Split("\r\n", StringSplitOptions.RemoveEmptyEntries).Select(l => l.Split(','))];
        int code = Array.IndexOf(rows[0], "wait_result");
        Assert.That(rows[0][code + 1], Is.EqualTo("wait_result_meaning"), "the meaning follows the code");
        Assert.That(
            rows.Skip(1).Select(r => r[code]).Distinct(),
            Is.EquivalentTo(codes.Select(c => c.ToString(CultureInfo.InvariantCulture)))
        );
        Assert.That(
            rows.Skip(1),
            Has.All.Matches<string[]>(r => s_win32[long.Parse(r[code], CultureInfo.InvariantCulture)] == r[code + 1])
        );

        (exit, string json, err) = CliRunner.Run("events", xel, "--event", "wait_completed", "--format", "json");
        Assert.That(exit, Is.Zero, err);
        foreach (JsonElement e in JsonDocument.Parse(json).RootElement.EnumerateArray())
        {
            long value = e.GetProperty("fields").GetProperty("wait_result").GetInt64();
            Assert.That(e.GetProperty("meanings").GetProperty("wait_result").GetString(), Is.EqualTo(s_win32[value]));
        }
    }

    [Test]
    public void EventsCsv_UnknownWaitResult_HasAnEmptyMeaning_AndEventsWithoutTheFieldHaveNoMeaningColumn()
    {
        var c = new AnalysisCaptures();
        XEvent odd = AnalysisCaptures.Event(c.WaitCompleted, AnalysisCaptures.At(0), ["LATCH_EX", 1, 5, 0]);
        int field = odd.EventType.GetFieldIndex("wait_result");
        Assert.That(field, Is.GreaterThanOrEqualTo(0), "test setup: wait_completed has wait_result");
        EventListColumns columns = EventListColumns.From([c.WaitCompleted], []);
        var sw = new StringWriter();
        EventListWriter.Write(sw, EventListFormat.Csv, [odd], columns);
        string[] lines = sw.ToString().Split("\r\n");
        int code = Array.IndexOf(lines[0].Split(','), "wait_result");
        Assert.That(lines[1].Split(',')[code + 1], Is.Empty, "code 1 has no known meaning");

        Assert.That(EventListColumns.From([c.WaitInfo], []).Header, Does.Not.Contain("wait_result_meaning"));
    }

    [Test]
    public void StackDurations_TakeTheirUnitFromTheRealCapturesMetadata()
    {
        // TestXel_0.xel (SQL Server 2017) describes rpc_completed's duration in microseconds; bucketed by its
        // statement text (any text column may be asked for as the stack).
        XEvent[] rpc =
        [
            .. XelReader
                .ReadEvents(TestPaths.RequireVector("xel", "TestXel_0.xel"))
                .Where(e => e.FullName == "sqlserver.rpc_completed"),
        ];
        Assert.That(rpc, Has.Length.EqualTo(11), "test setup: the vector's rpc_completed events (SOURCES.md)");
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var builder = new StackBucketBuilder(new StackBucketOptions { StackSource = "statement" });
        builder.AddEvents(rpc, resolver.CreateSession());
        StackBucketResult r = builder.Build();
        Assert.That(r.EventNames, Is.EqualTo(new[] { "sqlserver.rpc_completed" }));
        Assert.That(r.HasDurations, Is.True);
        FieldUnit unit = r.UnitOf("sqlserver.rpc_completed", "duration");
        Assert.That(unit.Unit, Is.EqualTo(FieldTimeUnit.Microseconds));
        Assert.That(unit.Source, Does.Contain("metadata"), "decided from the schema, not by name");
        Assert.That(r.DurationWeightUnit(), Is.EqualTo(WeightUnit.Microseconds));
    }

    [Test]
    public void StackDurations_MetadataBeatsTheNameTable_OneDecisionPerEventName()
    {
        // A wait_info whose own metadata says microseconds, where the name table says milliseconds.
        var c = new StackCaptures();
        XeColumn durationOf(string description) =>
            new(XeColumnKind.Field, c.Sqlos, "duration", 0, c.WaitInfo.Fields[2].Type, null, 8, description);
        var stackField = new XeColumn(
            XeColumnKind.Field,
            c.Sqlos,
            "call_stack",
            1,
            c.HealthEvent.Fields[0].Type,
            null,
            8,
            string.Empty
        );
        var described = new XeEventType(
            c.Sqlos,
            90,
            "wait_info",
            Guid.NewGuid(),
            [durationOf("Wait duration in microseconds"), stackField],
            string.Empty
        );
        var plain = new XeEventType(c.Sqlos, 91, "wait_info", Guid.NewGuid(), [durationOf(""), stackField], "");
        Assert.That(DurationUnits.Of("wait_info", "duration", null).Unit, Is.EqualTo(FieldTimeUnit.Milliseconds));

        XEvent Event(XeEventType t, ulong duration, string frames) =>
            XEvent.Create(
                t,
                StackCaptures.T0,
                [XeValue.Create(t.Fields[0], duration), XeValue.Create(t.Fields[1], frames)],
                []
            );

        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var builder = new StackBucketBuilder();
        // The first schema of the name decides; a later one of the same name does not split the decision.
        builder.AddEvents(
            [Event(described, 40, "sqlmin.dll!A+0x10\nsqldk.dll!B+0x20"), Event(plain, 2, "sqlmin.dll!C+0x10")],
            resolver.CreateSession()
        );
        StackBucketResult r = builder.Build();

        Assert.That(r.UnitOf("sqlos.wait_info", "duration").Unit, Is.EqualTo(FieldTimeUnit.Microseconds));
        Assert.That(r.FieldUnits.Keys, Is.EqualTo(new[] { ("sqlos.wait_info", "duration") }));
        Assert.That(r.DurationWeightUnit(), Is.EqualTo(WeightUnit.Microseconds));
        Assert.That(r.ToCallTree(StackWeight.Duration).Unit, Is.EqualTo(WeightUnit.Microseconds));
        string text = OutputFormats.ToText(r);
        Assert.That(text, Does.Contain("duration (µs): total 40, max 40"));
        Assert.That(text, Does.Not.Match(@"(?<!signal_)duration \(ms\)"));
    }
}

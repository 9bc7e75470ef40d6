using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Xel;
using XeAnalyzer.Xel;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// One pipeline behind every command: the same arguments give the same exit code everywhere, every input kind reaches
/// every command, and bad target data is one clear error naming the file and line.
/// </summary>
public sealed class CapturePipelineCliTests
{
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    /// <summary>The latch fixture with one event buffer's header damaged: reading it strictly fails, skipping the
    /// buffer gives a partial read.</summary>
    private string Damaged()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        int pos = 512;
        while (BitConverter.ToUInt16(b, pos + 14) != 0)
        {
            pos += BitConverter.ToInt32(b, pos + 16);
        }

        b[pos + 12] = 0x55;
        string path = _tmp.File("damaged.xel");
        File.WriteAllBytes(path, b);
        return path;
    }

    [Test]
    public void AnalysisCommands_GiveOneExitCode_ForTheSameArguments()
    {
        string damaged = Damaged();
        string output = _tmp.File("report");
        string[][] cases =
        [
            ["--skip-corrupt", "--event", "sql_batch_completed"],
            ["--skip-corrupt"],
            [],
            ["--event", "sql_batch_completed"],
        ];
        foreach (string[] extra in cases)
        {
            var exits = new Dictionary<string, int>(StringComparer.Ordinal);
            foreach (string command in new[] { "stacks", "latches", "memory", "waits", "report" })
            {
                string[] args =
                    command == "report"
                        ? [command, damaged, "-o", output, "--offline", .. extra]
                        : [command, damaged, .. extra];
                (int exit, _, string err) = CliRunner.Run(args);
                Assert.That(err, Does.Not.Contain("internal error"), string.Join(" ", args));
                exits[command] = exit;
            }

            Assert.That(
                exits.Values.Distinct(),
                Has.Exactly(1).Items,
                string.Join(" ", extra)
                    + ": "
                    + string.Join(
                        ", ",
                        exits.Select(kv => kv.Key + "=" + kv.Value.ToString(CultureInfo.InvariantCulture))
                    )
            );
            int expected = extra.Contains("--skip-corrupt") ? ExitCodes.Partial : ExitCodes.InputError;
            Assert.That(exits["stacks"], Is.EqualTo(expected), string.Join(" ", extra));
        }
    }

    [Test]
    public void MissingData_ExplainsTheUsersFilter_WithoutSessionAdvice()
    {
        var c = new AnalysisCaptures();
        string xel = _tmp.File("waits.xel");
        c.WriteXel(
            xel,
            [c.Wait(At(0), "LATCH_EX", "End", 5, 0x10, 1, 1), c.Wait(At(10), "PAGEIOLATCH_SH", "End", 7, 0x10, 1, 2)]
        );

        (int exit, string output, string err) = CliRunner.Run("waits", xel, "--where", "wait_type=CXPACKET");
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.Contain("matched the filter (wait_type=CXPACKET)"));
        Assert.That(err, Does.Not.Contain("ALTER EVENT SESSION"), "the filter, not the session, is the reason");

        (exit, _, err) = CliRunner.Run("latches", xel, "--event", "wait_info");
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(err, Does.Contain("the filter --event wait_info leaves out the events this analysis reads"));

        (exit, _, err) = CliRunner.Run("latches", xel);
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(err, Does.Contain("sqlos.wait_info (2)"), "the events found instead, counted in the one read");
        Assert.That(err, Does.Contain("ALTER EVENT SESSION"));
    }

    [Test]
    public void FilterNames_TheCaptureDoesNotHave_AreUsageErrors_InEveryCommand()
    {
        var c = new AnalysisCaptures();
        string xel = _tmp.File("waits.xel");
        c.WriteXel(
            xel,
            [c.Wait(At(0), "LATCH_EX", "End", 5, 0x10, 1, 1), c.Wait(At(10), "PAGEIOLATCH_SH", "End", 7, 0x10, 1, 2)]
        );
        foreach (
            string command in new[] { "events", "slice", "export", "stacks", "latches", "memory", "waits", "report" }
        )
        {
            string[] baseArgs = command switch
            {
                "slice" => [command, xel, "-o", _tmp.File(command + ".xel")],
                "export" or "report" => [command, xel, "-o", _tmp.File(command + "-out"), "--offline"],
                _ => [command, xel],
            };
            if (command == "export")
            {
                baseArgs = [.. baseArgs.SkipLast(1)];
            }

            (int exit, _, string err) = CliRunner.Run([.. baseArgs, "--event", "wait_inf"]);
            Assert.That(exit, Is.EqualTo(ExitCodes.Usage), command + ": " + err);
            Assert.That(
                err,
                Does.Contain("--event wait_inf: the capture has no event of that name; nearest: wait_info"),
                command
            );

            string[] named = command == "slice" ? [.. baseArgs, "--event", "wait_info"] : baseArgs;
            (exit, _, err) = CliRunner.Run([.. named, "--where", "duraton>=5"]);
            Assert.That(exit, Is.EqualTo(ExitCodes.Usage), command + ": " + err);
            Assert.That(err, Does.Contain("a field or action named duraton; nearest: duration"), command);
        }
    }

    [Test]
    public void AFilterThatMatchesNothing_SaysWhichAndWhatItSaw_AndExitsFour()
    {
        var c = new AnalysisCaptures();
        string xel = _tmp.File("waits.xel");
        c.WriteXel(
            xel,
            [c.Wait(At(0), "LATCH_EX", "End", 5, 0x10, 1, 1), c.Wait(At(10), "PAGEIOLATCH_SH", "End", 7, 0x10, 1, 2)]
        );
        (int exit, string output, string err) = CliRunner.Run(
            "events",
            xel,
            "--from",
            "2018-01-01",
            "--to",
            "2019-01-01",
            "--format",
            "json"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData), err);
        Assert.That(output.Trim(), Is.EqualTo("[]"));
        Assert.That(
            err,
            Does.Contain(
                "none of the 2 events read matched the filter (from 2018-01-01T00:00:00.0000000Z; to "
                    + "2019-01-01T00:00:00.0000000Z); "
                    + "they run from 2024-05-14T09:00:00.0000000Z to 2024-05-14T09:00:00.0000100Z, outside --from/--to."
            )
        );

        (exit, _, err) = CliRunner.Run("events", xel, "--where", "duration>=5", "--where", "duration<7");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), "the range keeps the first wait: " + err);

        (exit, _, err) = CliRunner.Run("stacks", xel, "--event", "wait_completed", "--offline");
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(
            err,
            Does.Contain(
                "the filter --event wait_completed selects none of the 2 events the input holds; it holds "
                    + "sqlos.wait_info (2)."
            )
        );
        Assert.That(err, Does.Not.Contain("your_event"), "the filter, not the session, left them out");

        (exit, _, err) = CliRunner.Run("waits", xel, "--where", "wait_type~^CX");
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(err, Does.Contain("matched the filter (wait_type~^CX)"));
    }

    [Test]
    public void ACallstackHistogram_IsPointedToStacks_AndNotCalledEmpty()
    {
        string xml = Path.Combine(
            TestPaths.Samples,
            "latch_nesting_full_histogram",
            "latch_nesting_full.histogram.xml"
        );
        (int exit, _, string err) = CliRunner.Run("histogram", xml);
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(
            err,
            Does.Contain("count callstacks, not the values of a field or action: bucket them with xeanalyze stacks")
        );
        Assert.That(
            err,
            Does.Not.Contain("ALTER EVENT SESSION"),
            "the input holds what stacks needs: no session change"
        );

        (exit, _, err) = CliRunner.Run("latches", xml);
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(
            err,
            Does.Contain(
                "The input holds target data, not events: 1 histogram(s) on callstacks (bucket them with xeanalyze "
                    + "stacks)."
            )
        );
        Assert.That(err, Does.Not.Contain("no events at all"));
    }

    [Test]
    public void TimeOptions_AcceptOneGrammar_InEveryCommand()
    {
        string latch = XelFixtures.PathOf("latch.xel");
        foreach (string command in new[] { "slice", "latches", "events", "stacks" })
        {
            string[] baseArgs =
                command == "slice"
                    ? [command, latch, "--event", "latch_acquired", "-o", _tmp.File(command + ".xel")]
                    : [command, latch];
            Assert.That(
                CliRunner.Run([.. baseArgs, "--from", "Mar 1 2024"]).Exit,
                Is.EqualTo(ExitCodes.Usage),
                command + ": prose date"
            );
            Assert.That(
                CliRunner.Run([.. baseArgs, "--from", "03/01/2024"]).Exit,
                Is.EqualTo(ExitCodes.Usage),
                command + ": ambiguous date"
            );
            Assert.That(
                CliRunner.Run([.. baseArgs, "--from", "2000-01-01T00:00:00Z"]).Exit,
                Is.Not.EqualTo(ExitCodes.Usage),
                command + ": ISO 8601"
            );
        }
    }

    [Test]
    public void BadTargetData_IsOneErrorNamingFileAndLine()
    {
        (string Xml, string Expected)[] cases =
        [
            (
                "<HistogramTarget truncated=\"0\" buckets=\"16\">\n<Slot count=\"3\"></Slot>\n</HistogramTarget>",
                "line 2"
            ),
            (
                "<HistogramTarget truncated=\"0\" buckets=\"16\">\n<Slot "
                    + "count=\"many\"><value>x</value></Slot>\n</HistogramTarget>",
                "line 2"
            ),
            (
                "<HistogramTarget truncated=\"0\" buckets=\"16\"><Slot "
                    + "count=\"1\"><value>x</value></Slot></HistogramTarget>\n<MysteryTarget truncated=\"0\" />",
                "MysteryTarget"
            ),
            ("<root><nothing/></root>", "expected Extended Events target data"),
        ];
        foreach ((string xml, string expected) in cases)
        {
            string path = _tmp.File("bad-" + Guid.NewGuid().ToString("N") + ".xml");
            File.WriteAllText(path, xml);
            foreach (string command in new[] { "info", "events", "histogram", "stacks", "waits" })
            {
                (int exit, string output, string err) = CliRunner.Run(command, path, "--offline");
                if (command is "info" or "events" or "waits" or "histogram")
                {
                    (exit, output, err) = CliRunner.Run(command, path);
                }

                Assert.That(exit, Is.EqualTo(ExitCodes.InputError), command + " " + xml);
                Assert.That(err, Does.Contain(path), command + " names the file");
                Assert.That(err, Does.Contain(expected), command + " says where and what");
                Assert.That(err, Does.Not.Contain("internal error"));
            }
        }
    }

    [Test]
    public void MapValuesFile_WithABadLine_IsAnErrorNamingFileAndLine()
    {
        string hist = _tmp.File("h.xml");
        File.WriteAllText(
            hist,
            "<HistogramTarget truncated=\"0\" buckets=\"16\"><Slot count=\"4\"><value>120</value></Slot><Slot "
                + "count=\"1\"><value>66</value></Slot></HistogramTarget>"
        );
        string map = _tmp.File("maps.tsv");
        File.WriteAllText(
            map,
            "name\tmap_key\tmap_value\nwait_types\t120\tPREEMPTIVE_HTTP_REQUEST\nwait_types\tsixty-six\tPAGEIOLATCH_S"
                + "H\n"
        );
        (int exit, _, string err) = CliRunner.Run("histogram", hist, "--map-values", map);
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError));
        Assert.That(err, Does.Contain(map).And.Contain("line 3").And.Contain("map_key"));

        File.WriteAllText(map, "wait_types\t120\tPREEMPTIVE_HTTP_REQUEST\nwait_types\t66\tPAGEIOLATCH_SH\n");
        (exit, string output, err) = CliRunner.Run("histogram", hist, "--map-values", map, "--format", "csv");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(output, Does.Contain("120,PREEMPTIVE_HTTP_REQUEST,4,0.8"));
        Assert.That(output, Does.Contain("66,PAGEIOLATCH_SH,1,0.2"));

        (exit, output, _) = CliRunner.Run("histogram", hist);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok));
        Assert.That(output, Does.Contain("--map-values"), "numbers without a map: the note says how to get the text");
    }

    [Test]
    public void Stacks_OnAHistogramOfAField_ExitsFour_AndPointsToHistogram()
    {
        string hist = _tmp.File("clerks.xml");
        File.WriteAllText(
            hist,
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
                + "count=\"90\"><value>MEMORYCLERK_SQLQERESERVATIONS</value></Slot><Slot "
                + "count=\"10\"><value>MEMORYCLERK_SQLGENERAL</value></Slot></HistogramTarget>"
        );
        (int exit, string output, string err) = CliRunner.Run("stacks", hist, "--offline");
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(output, Is.Empty, "never one frameless bucket");
        Assert.That(err, Does.Contain("xeanalyze histogram"));

        (exit, output, err) = CliRunner.Run("histogram", hist);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(
            output.IndexOf("MEMORYCLERK_SQLQERESERVATIONS", StringComparison.Ordinal),
            Is.LessThan(output.IndexOf("MEMORYCLERK_SQLGENERAL", StringComparison.Ordinal))
        );
        Assert.That(output, Does.Contain("90.00%"));
    }

    [Test]
    public void Info_DescribesTargetData()
    {
        string path = _tmp.File("targets.xml");
        File.WriteAllText(
            path,
            "<CounterTarget truncated=\"0\"><Packages><Package name=\"sqlserver\"><Event name=\"latch_acquired\" "
                + "count=\"347435\" /></Package></Packages></CounterTarget>\n"
                + "<HistogramTarget truncated=\"0\" buckets=\"2\"><Slot "
                + "count=\"5\"><value>sqldk.dll+0x0000000000040609\nsqldk.dll+0x00000000000FD919</value></Slot><Slot "
                + "count=\"2\"><value>sqlmin.dll+0x0000000000001000</value></Slot></HistogramTarget>\n"
                + "<RingBufferTarget truncated=\"1\" eventCount=\"1\" droppedCount=\"3\"><event name=\"wait_info\" "
                + "package=\"sqlos\" timestamp=\"2024-05-14T10:00:00.010Z\"><data "
                + "name=\"duration\"><value>2</value></data></event></RingBufferTarget>"
        );
        (int exit, string output, string err) = CliRunner.Run("info", path);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(output, Does.Match(@"sqlserver\.latch_acquired\s+347435"));
        Assert.That(
            output,
            Does.Contain(
                "histogram (HistogramTarget): source callstacks; 2 slot(s), 7 event(s) counted; buckets 2 (every "
                    + "slot in use"
            )
        );
        Assert.That(output, Does.Contain("ring_buffer (RingBufferTarget): 1 event(s)").And.Contain("truncated yes"));
        Assert.That(output, Does.Match(@"sqlos\.wait_info\s+1"));
        Assert.That(output, Does.Contain("warnings: "));
    }

    [Test]
    public void Slice_OfTargetData_WritesAXelThatReadsBackIdentically()
    {
        string xml = _tmp.File("ring.xml");
        File.WriteAllText(xml, CaptureSourceTestsData.RingBuffer);
        string output = _tmp.File("slice.xel");
        (int exit, string stdout, string err) = CliRunner.Run("slice", xml, "--event", "wait_info", "-o", output);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(stdout, Does.Contain("wrote 3 events"));

        XEvent[] original = [.. CaptureSource.Open([xml]).ReadEvents(new EventFilter(["wait_info"]))];
        XEvent[] back = [.. XelReader.ReadEvents(output)];
        Assert.That(back, Has.Length.EqualTo(original.Length));
        for (int i = 0; i < back.Length; i++)
        {
            Assert.That(back[i].Timestamp, Is.EqualTo(original[i].Timestamp));
            Assert.That(back[i].FullName, Is.EqualTo(original[i].FullName));
            Assert.That(Render(back[i]), Is.EqualTo(Render(original[i])));
        }

        Assert.That(
            XelReader.ReadSchema(output).EventTypes.Count(t => t.Name == "wait_info"),
            Is.EqualTo(1),
            "map keys met later do not make new event types"
        );
        (exit, string csvXml, _) = CliRunner.Run("events", xml, "--event", "wait_info", "--format", "csv");
        Assert.That(exit, Is.Zero);
        (exit, string csvXel, _) = CliRunner.Run("events", output, "--format", "csv");
        Assert.That(exit, Is.Zero);
        Assert.That(Rows(csvXel), Is.EqualTo(Rows(csvXml)), "same rows, apart from file and offset");
    }

    [Test]
    public void SystemHealthCallStackField_IsBucketedByDefault()
    {
        string path = TestPaths.RequireVector("xel", "sqlhealth.xel");
        (int exit, string output, string err) = CliRunner.Run("stacks", path, "--offline", "--format", "csv");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        long expected = XelReader
            .ReadEvents(path)
            .LongCount(e =>
                StackColumns.Find(e.EventType, e.ActionSet, null, out _) is StackColumn c
                && c.GetValue(e).CallstackFrameCount > 0
            );
        long counted = Reporting
            .ReportTestSupport.ParseCsv(output)
            .Skip(1)
            .Sum(r => long.Parse(r[1], CultureInfo.InvariantCulture));
        Assert.That(counted, Is.EqualTo(expected));
        Assert.That(
            output,
            Does.Contain("sqlserver.security_error_ring_buffer_recorded"),
            "events with the call_stack field are bucketed, not only the callstack action"
        );
        Assert.That(
            err,
            Does.Contain(
                "events whose stack (call_stack) is empty were not bucketed: "
                    + "sqlos.memory_broker_ring_buffer_recorded 160"
            ),
            "empty stacks are counted and reported, not one frameless bucket"
        );
    }

    private static string Render(XEvent e) =>
        string.Join("|", Enumerable.Range(0, e.FieldCount).Select(i => e.Fields[i].Name + "=" + e.GetField(i)))
        + "||"
        + string.Join(
            "|",
            Enumerable.Range(0, e.ActionCount).Select(i => e.Actions[i].FullName + "=" + e.GetAction(i))
        );

    /// <summary>Each row as its columns and values (column order aside: .xel metadata lists actions by package, XML by
    /// appearance), without file and offset.</summary>
    private static List<string> Rows(string csv)
    {
        List<string[]> rows = Reporting.ReportTestSupport.ParseCsv(csv);
        string[] header = rows[0];
        return
        [
            .. rows.Skip(1)
                .Select(r =>
                    string.Join(
                        "\u001f",
                        header
                            .Select((h, i) => (h, v: r[i]))
                            .Where(x => x.h is not ("file" or "offset"))
                            .OrderBy(x => x.h, StringComparer.Ordinal)
                            .Select(x => x.h + "=" + x.v)
                    )
                ),
        ];
    }
}

/// <summary>Shared target-data text for the pipeline tests.</summary>
internal static class CaptureSourceTestsData
{
    public static string RingBuffer => Capture.CaptureSourceTests.RingBuffer;
}

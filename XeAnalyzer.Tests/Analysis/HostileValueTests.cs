using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>
/// Values no capture should hold, built here: a ring_buffer event_sequence that is not a number, histogram slot counts
/// that sum past 2^63 − 1, a <c>.xel</c> wait whose duration is 2^63 or more. Each gives its documented exit code and a
/// message naming the file and the line or byte offset, never an internal error: bad input is refused (1), a value a
/// total cannot hold is left out and counted (3).
/// </summary>
public sealed class HostileValueTests
{
    private const string Max = "9,223,372,036,854,775,807";

    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    private static void AssertRefused((int Exit, string Out, string Err) run, string command, params string[] expected)
    {
        Assert.That(run.Exit, Is.EqualTo(ExitCodes.InputError), command + ": " + run.Err);
        Assert.That(run.Err, Does.Not.Contain("internal error"), command);
        foreach (string e in expected)
        {
            Assert.That(run.Err, Does.Contain(e), command);
        }
    }

    [Test]
    public void RingBufferEventSequence_NotANumber_IsRefusedByEveryCommand_NamingTheLine()
    {
        string xml = _tmp.File("ring.xml");
        File.WriteAllText(
            xml,
            """
            <RingBufferTarget truncated="0" eventCount="1">
              <event name="wait_info" package="sqlos" timestamp="2024-05-14T12:15:03.6281418Z">
                <data name="wait_type"><type name="wait_types" package="sqlos" /><value>66</value><text>PAGEIOLATCH_SH</text></data>
                <data name="opcode"><type name="event_opcode" package="sqlos" /><value>1</value><text>End</text></data>
                <data name="duration"><type name="uint64" package="package0" /><value>5</value></data>
                <action name="worker_address" package="sqlos"><type name="ptr" package="package0" /><value>0x000001f2c8a76160</value></action>
                <action name="event_sequence" package="package0"><type name="uint64" package="package0" /><value>abc</value></action>
              </event>
            </RingBufferTarget>
            """
        );

        // One rule where the XML becomes events: info and events refuse the file as the analyses must (an analysis that
        // reads other events only, such as latches, skips this one by name before it is converted, as the .xel reader
        // skips records).
        foreach (string command in new[] { "info", "events", "waits" })
        {
            AssertRefused(CliRunner.Run(command, xml), command, xml, "line 7", "package0.event_sequence", "'abc'");
        }

        AssertRefused(CliRunner.Run("report", xml, "-o", _tmp.File("report"), "--offline"), "report", xml, "line 7");
        Assert.That(
            () => new WaitAnalysis().Analyze(CaptureSource.Open([xml])),
            Throws.InstanceOf<InvalidTextInputException>()
        );
    }

    /// <summary>A callstack histogram whose two slots each count <paramref name="count"/> events.</summary>
    private static string TwoSlots(string count) =>
        "<HistogramTarget truncated=\"0\" buckets=\"256\">\n"
        + "  <Slot count=\""
        + count
        + "\">\n    <value>a.dll!f+0x1\na.dll!g+0x2</value>\n  </Slot>\n"
        + "  <Slot count=\""
        + count
        + "\">\n    <value>a.dll!h+0x1\na.dll!g+0x2</value>\n  </Slot>\n"
        + "</HistogramTarget>\n";

    [Test]
    public void HistogramSlotCounts_SummingPastTheRange_AreRefused_NamingTheSlotsLine()
    {
        string xml = _tmp.File("hist.xml");
        File.WriteAllText(xml, TwoSlots("9223372036854775000"));
        foreach (
            string[] args in new[]
            {
                new[] { "stacks", xml, "--offline" },
                ["stacks", xml, "--offline", "--format", "json"],
                ["stacks", xml, "--offline", "--format", "svg"],
                ["stacks", xml, "--offline", "--format", "folded"],
                ["report", xml, "--offline", "-o", _tmp.File("report")],
                ["info", xml],
                ["histogram", xml],
            }
        )
        {
            AssertRefused(CliRunner.Run(args), string.Join(' ', args[..2]), xml, "line 6", Max);
        }

        // One count past the range alone is refused the same way (it was shown as the range's end before).
        File.WriteAllText(xml, TwoSlots("18446744073709551615"));
        AssertRefused(CliRunner.Run("stacks", xml, "--offline"), "stacks", xml, "line 2");
    }

    [Test]
    public void HistogramsOfSeveralInputs_SummingPastTheRange_LeaveTheLaterSlotsOut_AndSaySo()
    {
        // Each histogram's own counts fit; together they do not: the stack run keeps the first and counts the slots it
        // left out.
        string first = _tmp.File("first.xml");
        string second = _tmp.File("second.xml");
        const long Each = 3_000_000_000_000_000_000;
        File.WriteAllText(first, TwoSlots(Each.ToString(CultureInfo.InvariantCulture)));
        File.WriteAllText(second, TwoSlots(Each.ToString(CultureInfo.InvariantCulture)));

        (int exit, string output, string err) = CliRunner.Run("stacks", first, second, "--offline", "--format", "json");
        Assert.That(exit, Is.EqualTo(ExitCodes.Partial), err);
        Assert.That(err, Does.Contain("left out").And.Contain(second + ": line 6").And.Contain(Max));
        Assert.That(err, Does.Not.Contain("internal error"));
        using (JsonDocument json = JsonDocument.Parse(output))
        {
            JsonElement total = json
                .RootElement.GetProperty("sections")[0]
                .GetProperty("blocks")[0]
                .GetProperty("items")
                .EnumerateArray()
                .Single(i => i.GetProperty("key").GetString() == "total count");
            Assert.That(total.GetProperty("value").GetInt64(), Is.EqualTo(3 * Each), "the first three slots, exactly");
        }

        (exit, _, err) = CliRunner.Run("report", first, second, "--offline", "-o", _tmp.File("report"));
        Assert.That(exit, Is.EqualTo(ExitCodes.Partial), err);
        Assert.That(err, Does.Not.Contain("internal error"));

        (exit, output, err) = CliRunner.Run(
            "histogram",
            ValueHistogram(_tmp.File("v1.xml"), Each),
            ValueHistogram(_tmp.File("v2.xml"), Each)
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Partial), err);
        Assert.That(err, Does.Contain("histogram slot(s) left out").And.Contain("v2.xml: line 1"));
    }

    private static string ValueHistogram(string path, long each)
    {
        string c = each.ToString(CultureInfo.InvariantCulture);
        File.WriteAllText(
            path,
            "<HistogramTarget truncated=\"0\" buckets=\"16\"><Slot count=\""
                + c
                + "\"><value>120</value></Slot><Slot count=\""
                + c
                + "\"><value>66</value></Slot></HistogramTarget>"
        );
        return path;
    }

    /// <summary>
    /// A copy of the waits sample in which one End wait's duration has its top byte set (2^63 or more): the event, its
    /// original duration and wait type, and where the copy is.
    /// </summary>
    private (string Path, XEvent Wait, ulong Duration, string WaitType) WaitWithHugeDuration()
    {
        string original = SampleData.CapturePath(SampleData.Waits);
        byte[] bytes = File.ReadAllBytes(original);
        foreach (XEvent e in XelReader.ReadEvents(original))
        {
            if (e.Name != "wait_info" || e.GetField("opcode").MapText != "End")
            {
                continue;
            }

            ulong duration = e.GetField("duration").AsUInt64();
            if (duration < 1000 || duration == e.GetField("signal_duration").AsUInt64())
            {
                continue;
            }

            // The duration's eight bytes, little-endian, inside the event's record (which starts at its source offset).
            byte[] pattern = new byte[8];
            BinaryPrimitives.WriteUInt64LittleEndian(pattern, duration);
            int at = bytes.AsSpan((int)e.Source.Offset, 256).IndexOf(pattern);
            if (at < 0)
            {
                continue;
            }

            bytes[(int)e.Source.Offset + at + 7] |= 0x80;
            string copy = _tmp.File(Path.GetFileName(original));
            File.WriteAllBytes(copy, bytes);
            return (copy, e, duration, e.GetField("wait_type").MapText!);
        }

        throw new AssertionException("no End wait with a distinct duration in the sample");
    }

    [Test]
    public void XelWaitDuration_OfTwoToThe63_IsLeftOutAndCounted_TheRestAnalysed()
    {
        (string path, XEvent wait, ulong duration, string waitType) = WaitWithHugeDuration();
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Waits);
        foreach (string[] extra in new[] { Array.Empty<string>(), ["--skip-corrupt"] })
        {
            (int exit, string output, string err) = CliRunner.Run(["waits", path, "--format", "csv", .. extra]);
            Assert.That(exit, Is.EqualTo(ExitCodes.Partial), err);
            Assert.That(err, Does.Not.Contain("internal error"));
            Assert.That(
                err,
                Does.Contain("waits: 1 wait event(s) left out")
                    .And.Contain(path + ": byte offset " + wait.Source.Offset.ToString(CultureInfo.InvariantCulture))
            );
            Assert.That(
                err,
                Does.Contain("duration " + (duration | (1UL << 63)).ToString("N0", CultureInfo.InvariantCulture))
            );
            Assert.That(err, Does.Contain("1 event(s) counted but left out"));

            // The generator's figures less the one wait left out.
            long waits = SampleData.Figure(figures, "wait." + waitType + ".waits") - 1;
            long total = SampleData.Figure(figures, "wait." + waitType + ".total_ms") - (long)duration;
            Assert.That(
                output,
                Does.Contain(
                    waitType
                        + ","
                        + waits.ToString(CultureInfo.InvariantCulture)
                        + ","
                        + total.ToString(CultureInfo.InvariantCulture)
                        + ","
                )
            );
        }

        (int rexit, _, string rerr) = CliRunner.Run("report", path, "-o", _tmp.File("report"), "--offline");
        Assert.That(rexit, Is.EqualTo(ExitCodes.Partial), rerr);
        Assert.That(rerr, Does.Not.Contain("internal error").And.Contain("waits: 1 wait event(s) left out"));

        // In the library: a typed warning that says how many events it left out, and a partial status.
        AnalysisOutcome<WaitAnalysisResult> o = new WaitAnalysis().Analyze(CaptureSource.Open([path]));
        Assert.That(o.Status, Is.EqualTo(AnalysisStatus.Partial));
        AnalysisWarning w = o.Result.Warnings.Single(w => w.Kind == AnalysisWarningKind.ValueOutOfRange);
        Assert.That(w.EventsLeftOut, Is.EqualTo(1));
    }

    [Test]
    public void StackBuckets_KeepAnEventWhoseDurationIsOutOfRange_WithoutThatDuration()
    {
        (string path, _, ulong duration, _) = WaitWithHugeDuration();
        (int exit, string output, string err) = CliRunner.Run(
            "stacks",
            path,
            "--offline",
            "--where",
            "opcode=End",
            "--format",
            "json"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(
            err,
            Does.Contain("1 duration or signal_duration value(s) of bucketed events left out")
                .And.Contain("duration " + (duration | (1UL << 63)).ToString("N0", CultureInfo.InvariantCulture))
        );

        // Every End wait of the sample is still bucketed: the count is the generator's, only the one duration is not
        // summed.
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Waits);
        long ends = figures
            .Where(f =>
                f.Key.StartsWith("wait.", StringComparison.Ordinal)
                && f.Key.EndsWith(".waits", StringComparison.Ordinal)
            )
            .Sum(f => long.Parse(f.Value, CultureInfo.InvariantCulture));
        using JsonDocument json = JsonDocument.Parse(output);
        JsonElement total = json
            .RootElement.GetProperty("sections")[0]
            .GetProperty("blocks")[0]
            .GetProperty("items")
            .EnumerateArray()
            .Single(i => i.GetProperty("key").GetString() == "total count");
        Assert.That(total.GetProperty("value").GetInt64(), Is.EqualTo(ends));
    }

    [Test]
    public void StreamedValues_PastTheRange_AreLeftOutAndCounted_ByEachAnalysis()
    {
        var c = new AnalysisCaptures();
        const long Big = 5_000_000_000_000_000_000;
        DateTime At(int i) => AnalysisCaptures.At(i);

        IAnalysisResult memory = new MemoryAnalysis().Analyze([
            c.Alloc(At(0), Big, session: 53),
            c.Alloc(At(1), Big, session: 53),
            c.Free(At(2), 7, session: 53),
        ]);
        var m = (MemoryAnalysisResult)memory;
        Assert.That(
            (m.AllocationEvents, m.PagesAllocated, m.FinalPages, m.PeakPages),
            Is.EqualTo((1L, Big, Big - 7, Big))
        );
        AssertLeftOut(memory, "page event(s)");

        IAnalysisResult waits = new WaitAnalysis().Analyze([
            c.Wait(At(0), "LATCH_EX", "End", Big, worker: 1, scheduler: 1),
            c.Wait(At(1), "LATCH_EX", "End", Big, worker: 1, scheduler: 1),
        ]);
        WaitTypeStats w = ((WaitAnalysisResult)waits).ByWaitType.Single();
        Assert.That((w.Waits, w.TotalDurationMs), Is.EqualTo((1L, Big)));
        AssertLeftOut(waits, "wait event(s)");

        IAnalysisResult latches = new LatchAnalysis().Analyze([
            c.Acquire(At(0), "BUFFER", 0x10, scheduler: 1, worker: 2),
            c.Release(At(1), "BUFFER", 0x10, worker: 2, duration: ulong.MaxValue),
        ]);
        Assert.That(((LatchAnalysisResult)latches).ReleasedEvents, Is.Zero);
        AssertLeftOut(latches, "latch_released event(s)");
    }

    private static void AssertLeftOut(IAnalysisResult result, string what)
    {
        AnalysisWarning w = result.Warnings.Single(w => w.Kind == AnalysisWarningKind.ValueOutOfRange);
        Assert.That(w.EventsLeftOut, Is.EqualTo(1), result.Key);
        Assert.That(w.Text, Does.StartWith("1 " + what + " left out").And.Contain(Max), result.Key);
        Assert.That(result.Status, Is.EqualTo(AnalysisStatus.Partial), result.Key);
    }
}

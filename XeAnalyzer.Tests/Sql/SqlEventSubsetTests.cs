using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Export;
using XeAnalyzer.Tests.Export;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Sql;

/// <summary>
/// Every shipped query over exports that hold only some of the events it reads (each non-empty subset), through the
/// views its header documents, against the in-process analysis of a capture holding the same events: the captures
/// are slices of the samples written with <see cref="XelWriter"/>.
/// </summary>
[NonParallelizable]
public sealed class SqlEventSubsetTests
{
    private static readonly string[] WaitEvents =
    [
        "sqlos.wait_info",
        "sqlos.wait_info_external",
        "sqlos.wait_completed",
    ];
    private static readonly string[] PageEvents = ["sqlos.page_allocated", "sqlos.page_freed"];
    private string _dir = null!;

    [OneTimeSetUp]
    public void SetUp() => _dir = Directory.CreateTempSubdirectory("xeanalyzer-sql-subsets-").FullName;

    [OneTimeTearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    public static IEnumerable<TestCaseData> WaitSubsets() => Subsets(WaitEvents);

    public static IEnumerable<TestCaseData> PageSubsets() => Subsets(PageEvents);

    [TestCaseSource(nameof(WaitSubsets))]
    public void WaitSummary_RunsOnEveryExportOfItsEvents(string[] events)
    {
        // ring_buffer_waits holds all three wait events: wait_completed has no opcode, and wait_info_external no
        // signal_duration, so an export without wait_info lacks one of the columns the query reads.
        (string root, string capture) = Export(SampleData.RingBuffer, events);
        QueryResult q = SqlFigures.Run(root, "wait_summary");
        IReadOnlyList<WaitFigures> expected = InProcessFigures.Waits(capture);
        Assert.That(expected, Is.Not.Empty, "test setup: the slice has waits");
        SqlFigures.AssertWaits(q, expected);
    }

    [TestCaseSource(nameof(PageSubsets))]
    public void MemoryQueries_RunOnEveryExportOfTheirEvents(string[] events)
    {
        (string root, string capture) = Export(SampleData.Memory, events);
        string name = SqlFigures.CaptureOf(capture);
        IReadOnlyList<MemoryStep> series = InProcessFigures.MemorySeries(capture);
        Assert.That(series, Is.Not.Empty, "test setup: the slice has page events");
        SqlFigures.AssertMemorySeries(SqlFigures.Run(root, "memory_running_total"), name, series);
        SqlFigures.AssertMemoryPeaks(SqlFigures.Run(root, "memory_peaks"), name, InProcessFigures.MemoryPeaks(capture));
    }

    [Test]
    public void LatchesPerScheduler_RunsOnAnExportOfItsEvent()
    {
        (string root, string capture) = Export(SampleData.RingBuffer, ["sqlserver.latch_acquired"]);
        IReadOnlyList<SchedulerFigures> expected = InProcessFigures.Latches(capture);
        Assert.That(expected, Is.Not.Empty, "test setup: the slice has schedulers");
        QueryResult q = SqlFigures.Run(root, "latches_per_scheduler");
        SqlFigures.AssertLatches(q, SqlFigures.CaptureOf(capture), expected);
    }

    private static IEnumerable<TestCaseData> Subsets(string[] events)
    {
        for (int mask = 1; mask < 1 << events.Length; mask++)
        {
            string[] subset = [.. events.Where((_, i) => (mask & (1 << i)) != 0)];
            yield return new TestCaseData([subset]).SetArgDisplayNames(string.Join("+", subset));
        }
    }

    /// <summary>
    /// Writes the sample's events of <paramref name="events"/> (in file order) as a capture of their own and exports it
    /// to <c>root/out/&lt;capture&gt;/</c>; returns the root and the capture.
    /// </summary>
    private (string Root, string Capture) Export(string sample, string[] events)
    {
        string label = sample + "-" + string.Join("+", events.Select(e => e.Split('.')[1]));
        string root = Path.Combine(_dir, label);
        string capture = Path.Combine(root, "in", "slice_0_133601526724170000.xel");
        Directory.CreateDirectory(Path.GetDirectoryName(capture)!);
        string source = SampleData.CapturePath(sample);
        List<XEvent> kept = [.. XelReader.ReadEvents(source).Where(e => events.Contains(e.FullName))];
        var options = new XelWriterOptions { StartTimeUtc = kept.Min(e => e.Timestamp).AddMinutes(-1), Partitions = 1 };
        using (XelWriter w = XelWriter.Create(capture, XelReader.ReadSchema(source), options))
        {
            foreach (XEvent e in kept)
            {
                w.Write(e);
            }
        }

        string output = Path.Combine(root, "out", "slice");
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open([capture]), output);
        Assert.That(result.Tables.Select(t => t.EventName), Is.EquivalentTo(events), "test setup: a table per event");
        return (root, capture);
    }
}

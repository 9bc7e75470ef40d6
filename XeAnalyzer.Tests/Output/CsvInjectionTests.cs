using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Xel;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// The one CSV-injection rule (<c>CsvTableWriter</c>) reaches every CSV the tool writes from text a capture supplies: a
/// memory clerk named like a spreadsheet formula, read from a real <c>.xel</c> file, comes out with a leading <c>'</c>
/// and quoted in the
/// <c>memory --series</c> file, in the <c>events</c> table and in the analysis table, while numbers stay numbers.
/// </summary>
public sealed class CsvInjectionTests
{
    private const string Hyperlink = "=HYPERLINK(\"http://evil.example/\",\"click\")";
    private const string Plus = "+SUM(1,2)";

    // As RFC 4180 quotes them: the escape ' in front, the field quoted, inner quotes doubled.
    private const string HyperlinkCsv = "\"'=HYPERLINK(\"\"http://evil.example/\"\",\"\"click\"\")\"";
    private const string PlusCsv = "\"'+SUM(1,2)\"";

    private string _dir = null!;

    [SetUp]
    public void SetUp()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-csvinj-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    /// <summary>Two page events whose clerk names start like formulas, written as a real .xel file.</summary>
    private CaptureSource HostileCapture()
    {
        var c = new AnalysisCaptures();
        string path = Path.Combine(_dir, "hostile_0_133601526724170000.xel");
        using (
            XelWriter w = XelWriter.Create(path, c.Schema, new XelWriterOptions { StartTimeUtc = T0.AddMinutes(-1) })
        )
        {
            w.Write(c.Alloc(At(0), 8, session: 51, seq: 1, clerk: Hyperlink));
            w.Write(c.Free(At(1), 3, session: 51, seq: 2, clerk: Plus));
        }

        return CaptureSource.Open([path]);
    }

    [Test]
    public void MemorySeries_EscapesClerkNamesFromTheCapture_NumbersUntouched()
    {
        using var ms = new MemoryStream();
        using (var series = new MemorySeriesWriter(ms))
        {
            var analysis = new MemoryAnalysis(new MemoryAnalysisOptions { ByClerk = true }, series.Write);
            AnalysisOutcome<MemoryAnalysisResult> outcome = AnalysisOutcome.Run<MemoryAnalysisResult>(
                HostileCapture(),
                analysis
            );
            Assert.That(outcome.Status, Is.EqualTo(AnalysisStatus.Complete));
        }

        Assert.That(
            Utf8(ms.ToArray()),
            Is.EqualTo(
                "timestamp,event_sequence,event,session_id,memory_clerk_name,pages,session_running_total,running_tota"
                    + "l\n"
                    + "2024-05-14T09:00:00.0000000Z,1,page_allocated,51,"
                    + HyperlinkCsv
                    + ",8,8,8\n"
                    + "2024-05-14T09:00:00.0000010Z,2,page_freed,51,"
                    + PlusCsv
                    + ",3,5,5\n"
            )
        );
    }

    [Test]
    public void EventsTable_EscapesTextFieldsFromTheCapture_NumbersUntouched()
    {
        using var o = new StringWriter();
        long n = EventListing.Write(HostileCapture(), EventFilter.None, EventListFormat.Csv, o);
        Assert.That(n, Is.EqualTo(2));
        string[] rows = o.ToString().Split("\r\n");
        Assert.That(rows[0], Does.StartWith("timestamp,event,file,offset,"));
        string[] header = rows[0].Split(',');
        int clerk = Array.IndexOf(header, "memory_clerk_name");
        int pages = Array.IndexOf(header, "number_pages");
        Assert.That((clerk, pages), Is.Not.EqualTo((-1, -1)));
        Assert.That(rows[1], Does.Contain("," + HyperlinkCsv + ","), "the formula is escaped and quoted");
        Assert.That(rows[2], Does.Contain("," + PlusCsv + ","));
        Assert.That(rows[1], Does.Not.Contain(",=HYPERLINK"), "never written bare");
        Assert.That(
            rows[1],
            Does.Contain(",8," + HyperlinkCsv),
            "number_pages (8) precedes the clerk, written as a plain number"
        );
    }

    [Test]
    public void AnalysisTable_EscapesClerkNamesThroughTheCsvWriter()
    {
        AnalysisOutcome<MemoryAnalysisResult> outcome = AnalysisOutcome.Run<MemoryAnalysisResult>(
            HostileCapture(),
            new MemoryAnalysis(new MemoryAnalysisOptions { ByClerk = true })
        );
        using var ms = new MemoryStream();
        OutputFormats.Write(outcome.Result, "csv", ms);
        string csv = Utf8(ms.ToArray());
        Assert.That(csv, Does.Contain(HyperlinkCsv));
        Assert.That(csv, Does.Contain(PlusCsv));
        Assert.That(csv, Does.Not.Contain("\n=HYPERLINK").And.Not.Contain(",=HYPERLINK"));
    }

    [Test]
    public void EventsJson_KeepsTheTextAsItIs()
    {
        // JSON is not opened by spreadsheets: the same value stays unchanged there (the rule is CSV's alone).
        using var o = new StringWriter();
        EventListing.Write(HostileCapture(), EventFilter.None, EventListFormat.Json, o);
        using var doc = System.Text.Json.JsonDocument.Parse(o.ToString());
        Assert.That(
            doc.RootElement[0].GetProperty("fields").GetProperty("memory_clerk_name").GetString(),
            Is.EqualTo(Hyperlink)
        );
    }

    [Test]
    public void EventListing_HonoursTheLimit()
    {
        using var o = new StringWriter();
        Assert.That(
            EventListing.Write(HostileCapture(), EventFilter.None, EventListFormat.Text, o, limit: 1),
            Is.EqualTo(1)
        );
        Assert.That(o.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries), Has.Length.EqualTo(1));
        Assert.That(
            () =>
                EventListing.Write(
                    HostileCapture(),
                    EventFilter.None,
                    EventListFormat.Text,
                    new StringWriter(),
                    limit: -1
                ),
            Throws.InstanceOf<ArgumentOutOfRangeException>()
        );
    }
}

using System.Text.Json;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Xel;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// One JSON convention for every JSON the tool writes (report documents, the events list, speedscope files): text from
/// a capture is sanitised and encoded by the one encoder (HTML-unsafe characters escaped, other letters kept), times
/// are ISO-8601 UTC with seven fraction digits, absent values are <c>null</c>, lines end in <c>\n</c>, no byte order
/// mark.
/// </summary>
public sealed class JsonConventionTests
{
    // Letters kept, HTML-unsafe characters escaped, a control character replaced.
    private const string Hostile = "é<b>&'\u0001x";

    private static string Encoded(string text) =>
        JsonEncodedText.Encode(TextEscaping.Sanitize(text), JsonOutput.Encoder).ToString();

    private static void AssertConvention(string json, string what)
    {
        Assert.That(json, Does.Contain("\"" + Encoded(Hostile) + "\""), what + ": the text encoded by the one encoder");
        Assert.That(json, Does.Not.Contain("<b>").And.Not.Contain("&'"), what + ": HTML-unsafe characters escaped");
        Assert.That(json, Does.Not.Contain("\r"), what + ": \\n line ends");
        Assert.That(Encoded(Hostile), Does.Contain("é"), "non-ASCII letters stay readable");
        Assert.That(Encoded(Hostile), Does.Not.Contain("\\u0001"), "control characters are replaced before encoding");
    }

    [Test]
    public void ReportDocument_FollowsTheConvention()
    {
        DateTime t = new(2024, 5, 14, 9, 31, 12, DateTimeKind.Utc);
        ReportTable table = new TableBuilder("t")
            .AddColumn(TableColumn.Text("name"))
            .AddColumn(TableColumn.Timestamp("when"))
            .AddColumn(TableColumn.Integer("n"))
            .AddRow(Hostile, TableCell.FromDateTime(t.AddTicks(1)), TableCell.Empty)
            .Build();
        string json = Utf8(Write(new JsonReportWriter(), ReportDocument.Of("d", table)));
        AssertConvention(json, "report");
        using JsonDocument d = JsonDocument.Parse(json);
        JsonElement row = d.RootElement.GetProperty("sections")[0].GetProperty("blocks")[0].GetProperty("rows")[0];
        Assert.That(row[0].GetString(), Is.EqualTo(TextEscaping.Sanitize(Hostile)));
        Assert.That(row[1].GetString(), Is.EqualTo("2024-05-14T09:31:12.0000001Z"));
        Assert.That(row[2].ValueKind, Is.EqualTo(JsonValueKind.Null), "an empty cell is null");
        Assert.That(json, Does.EndWith("}\n"));
    }

    [Test]
    public void Speedscope_FollowsTheConvention()
    {
        var b = new CallTreeBuilder();
        b.AddStack([Hostile, "main"], 3);
        string json = Utf8(Write(new SpeedscopeWriter(), b.Build()));
        AssertConvention(json, "speedscope");
    }

    [Test]
    public void EventList_FollowsTheConvention()
    {
        string dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-json-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            var c = new AnalysisCaptures();
            string path = Path.Combine(dir, "j_0_133601526724170000.xel");
            using (
                XelWriter w = XelWriter.Create(
                    path,
                    c.Schema,
                    new XelWriterOptions { StartTimeUtc = T0.AddMinutes(-1) }
                )
            )
            {
                w.Write(c.Alloc(At(0.1), 8, clerk: Hostile));
            }

            using var o = new StringWriter();
            EventListing.Write(CaptureSource.Open([path]), EventFilter.None, EventListFormat.Json, o);
            string json = o.ToString();
            AssertConvention(json, "events");
            using JsonDocument d = JsonDocument.Parse(json);
            JsonElement e = d.RootElement[0];
            Assert.That(e.GetProperty("timestamp").GetString(), Is.EqualTo("2024-05-14T09:00:00.0000001Z"));
            Assert.That(
                e.GetProperty("fields").GetProperty("memory_clerk_name").GetString(),
                Is.EqualTo(TextEscaping.Sanitize(Hostile))
            );
            Assert.That(
                e.GetProperty("actions").TryGetProperty("session_id", out _),
                Is.False,
                "an action the event lacks is not invented"
            );
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}

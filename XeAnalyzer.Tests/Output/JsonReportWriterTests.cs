using System.Text.Json;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

public class JsonReportWriterTests
{
    private static readonly DateTime Noon = new(2024, 5, 1, 12, 0, 0, DateTimeKind.Utc);

    [Test]
    public void Write_WritesFixedShape_ForParagraphAndTable()
    {
        ReportTable table = new TableBuilder("T")
            .AddColumn(TableColumn.Text("n"))
            .AddColumn(TableColumn.Duration("d"))
            .AddColumn(TableColumn.Timestamp("t"))
            .AddColumn(new TableColumn("p", ColumnKind.Percentage) { Description = "share" })
            .AddRow("x", TimeSpan.FromTicks(15_000), Noon, TableCell.FromPercentage(0.25))
            .AddRow(TableCell.Empty, TableCell.Empty, TableCell.Empty, TableCell.FromPercentage(double.NaN))
            .AddNote("n1")
            .Build();
        var doc = new ReportDocument("R", [new ReportSection("S", new Paragraph("Hi <b> & \u00FC"), table)])
        {
            Generator = "G",
        };

        string json = Utf8(Write(new JsonReportWriter(indented: false), doc));

        string expected =
            "{\"format\":\"xeanalyzer-report\",\"formatVersion\":1,\"title\":\"R\",\"description\":null,\"generator\""
            + ":\"G\","
            + "\"sections\":[{\"title\":\"S\",\"blocks\":["
            + "{\"type\":\"paragraph\",\"text\":\"Hi \\u003Cb\\u003E \\u0026 \u00FC\"},"
            + "{\"type\":\"table\",\"title\":\"T\",\"columns\":["
            + "{\"name\":\"n\",\"kind\":\"text\",\"unit\":null,\"description\":null},"
            + "{\"name\":\"d\",\"kind\":\"duration\",\"unit\":\"ms\",\"description\":null},"
            + "{\"name\":\"t\",\"kind\":\"timestamp\",\"unit\":null,\"description\":null},"
            + "{\"name\":\"p\",\"kind\":\"percentage\",\"unit\":null,\"description\":\"share\"}],"
            + "\"rows\":[[\"x\",1.5,\"2024-05-01T12:00:00.0000000Z\",0.25],[null,null,null,null]],"
            + "\"notes\":[\"n1\"],\"warnings\":[]}]}]}";
        Assert.That(json, Is.EqualTo(expected));
    }

    [Test]
    public void Write_IndentsWithTwoSpaces_AndEndsWithNewline()
    {
        string json = Utf8(Write(new JsonReportWriter(), new ReportDocument("R", []) { Generator = "G" }));
        Assert.That(
            json,
            Is.EqualTo(
                "{\n  \"format\": \"xeanalyzer-report\",\n  \"formatVersion\": 1,\n  \"title\": \"R\",\n  "
                    + "\"description\": null,\n  \"generator\": \"G\",\n  \"sections\": []\n}\n"
            )
        );
    }

    [Test]
    public void Write_WritesChartsKeyValuesAndFlameNodes()
    {
        var b = new CallTreeBuilder(WeightUnit.Bytes);
        b.AddStack(["leaf", "root"], 8192);
        b.AddStack(["root"], 100);
        var line = new LineChart(
            "mem",
            XAxisKind.Time,
            [LineSeries.FromTimestamps("pages", [(Noon, 1), (Noon.AddSeconds(1), 3)])]
        );
        var bar = new BarChart("bars", ["a", "b"], [1.0, 2], ["b"], new ReferenceLine(1.5, "mean"));
        var kv = new KeyValueList([new("events", 3), new("start", Noon), new("missing", TableCell.Empty)], "Summary");
        var pre = new Preformatted("a\r\nb");

        using JsonDocument d = JsonDocument.Parse(
            Write(new JsonReportWriter(), Doc(kv, bar, line, new FlameGraph(b.Build()), pre))
        );
        JsonElement[] blocks = [.. d.RootElement.GetProperty("sections")[0].GetProperty("blocks").EnumerateArray()];

        Assert.That(
            blocks.Select(x => x.GetProperty("type").GetString()),
            Is.EqualTo(new[] { "keyValues", "barChart", "lineChart", "flameGraph", "preformatted" })
        );
        JsonElement items = blocks[0].GetProperty("items");
        Assert.That(items[0].GetProperty("value").GetInt64(), Is.EqualTo(3));
        Assert.That(items[1].GetProperty("kind").GetString(), Is.EqualTo("timestamp"));
        Assert.That(items[1].GetProperty("value").GetString(), Is.EqualTo("2024-05-01T12:00:00.0000000Z"));
        Assert.That(items[2].GetProperty("value").ValueKind, Is.EqualTo(JsonValueKind.Null));

        Assert.That(blocks[1].GetProperty("referenceLine").GetProperty("value").GetDouble(), Is.EqualTo(1.5));
        Assert.That(blocks[1].GetProperty("bars")[1].GetProperty("highlighted").GetBoolean(), Is.True);
        Assert.That(blocks[1].GetProperty("bars")[0].GetProperty("highlighted").GetBoolean(), Is.False);

        JsonElement points = blocks[2].GetProperty("series")[0].GetProperty("points");
        Assert.That(blocks[2].GetProperty("xAxis").GetString(), Is.EqualTo("time"));
        Assert.That(points[1][0].GetString(), Is.EqualTo("2024-05-01T12:00:01.0000000Z"));
        Assert.That(points[1][1].GetDouble(), Is.EqualTo(3));

        JsonElement flame = blocks[3];
        Assert.That(flame.GetProperty("unit").GetString(), Is.EqualTo("bytes"));
        Assert.That(flame.GetProperty("totalWeight").GetInt64(), Is.EqualTo(8292));
        JsonElement[] nodes = [.. flame.GetProperty("nodes").EnumerateArray()];
        Assert.That(nodes.Select(n => n.GetProperty("name").GetString()), Is.EqualTo(new[] { "all", "root", "leaf" }));
        Assert.That(nodes.Select(n => n.GetProperty("parent").GetInt32()), Is.EqualTo(new[] { -1, 0, 1 }));
        Assert.That(nodes[1].GetProperty("selfWeight").GetInt64(), Is.EqualTo(100));
        Assert.That(blocks[4].GetProperty("text").GetString(), Is.EqualTo("a\nb"));
    }

    [Test]
    public void Write_ProducesValidJson_ForHostileNames()
    {
        TableBuilder t = new TableBuilder("t").AddColumn(TableColumn.Text("name"));
        foreach (string n in HostileNames)
        {
            t.AddRow(n);
        }

        using JsonDocument d = JsonDocument.Parse(
            Write(new JsonReportWriter(), Doc(t.Build(), new Paragraph(HostileNames[0])))
        );
        JsonElement rows = d.RootElement.GetProperty("sections")[0].GetProperty("blocks")[0].GetProperty("rows");
        Assert.That(rows[0][0].GetString(), Is.EqualTo(HostileNames[0]));
        Assert.That(rows[4][0].GetString(), Is.EqualTo("new\nline\r\nand\ttab"));
        Assert.That(rows[6][0].GetString(), Is.EqualTo("lone\uFFFDsurrogate"));
    }
}

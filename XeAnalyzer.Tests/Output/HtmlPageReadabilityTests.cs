using System.Xml.Linq;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// What keeps a page readable: long tables fold after their first rows, stacks fold under their headings, a column
/// empty in every row is left out of the page (and only of the page), long notes show their first words, and frames
/// can be listed without their unresolved reasons.
/// </summary>
public class HtmlPageReadabilityTests
{
    private static XDocument Html(ReportDocument doc) => ParseXml(Utf8(Write(new HtmlReportWriter(), doc)));

    private static IEnumerable<XElement> ByName(XContainer d, string name) =>
        d.Descendants().Where(e => e.Name.LocalName == name);

    private static ReportTable Numbers(int rows)
    {
        TableBuilder t = new TableBuilder("frames")
            .AddColumn(TableColumn.Integer("n"))
            .AddColumn(TableColumn.Text("frame"));
        for (int i = 0; i < rows; i++)
        {
            t.AddRow(i, "sqlmin.dll!Frame" + i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        return t.Build();
    }

    [Test]
    public void LongTable_ShowsItsFirstRows_AndFoldsTheRest()
    {
        XDocument d = Html(Doc(Numbers(300)));
        XElement[] tables = [.. ByName(d, "table")];
        XElement details = ByName(d, "details").Single();

        Assert.That(tables, Has.Length.EqualTo(2), "the preview and the folded rest");
        Assert.That(ByName(tables[0], "tbody").Single().Elements().Count(), Is.EqualTo(HtmlReportWriter.PreviewRows));
        Assert.That(ByName(details, "table").Single(), Is.SameAs(tables[1]), "the rest is inside the closed details");
        Assert.That(details.Attribute("open"), Is.Null);
        Assert.That(ByName(details, "summary").Single().Value, Is.EqualTo("Show 280 more rows"));
        Assert.That(
            ByName(tables[1], "tbody").Single().Elements().First().Elements().First().Value,
            Is.EqualTo("20"),
            "the fold starts at the row after the preview"
        );
        Assert.That(
            ByName(d, "tr").Count(r => r.Parent!.Name.LocalName == "tbody"),
            Is.EqualTo(300),
            "every row is on the page once"
        );
    }

    [Test]
    public void ShortTable_IsShownWhole()
    {
        XDocument d = Html(Doc(Numbers(HtmlReportWriter.PreviewRows + 5)));
        Assert.That(ByName(d, "details"), Is.Empty);
        Assert.That(ByName(d, "tbody").Single().Elements().Count(), Is.EqualTo(HtmlReportWriter.PreviewRows + 5));
    }

    [Test]
    public void ColumnEmptyInEveryRow_IsLeftOutOfThePage_ButNotOutOfCsvOrText()
    {
        ReportTable t = new TableBuilder("buckets")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("total duration"))
            .AddColumn(TableColumn.Text("note"))
            .AddColumn(TableColumn.Integer("signal"))
            .AddRow(1, TableCell.Empty, string.Empty, TableCell.NotApplicable)
            .AddRow(2, TableCell.Empty, string.Empty, TableCell.Empty)
            .Build();

        XDocument d = Html(Doc(t));
        Assert.That(
            ByName(d, "th").Select(h => h.Value),
            Is.EqualTo(new[] { "rank", "signal" }),
            "n/a is a value: the field is not in the schema"
        );
        Assert.That(
            ByName(d, "tr").Where(r => r.Parent!.Name.LocalName == "tbody").Select(r => r.Elements().Count()),
            Is.All.EqualTo(2)
        );
        Assert.That(
            ByName(d, "li").Select(l => l.Value),
            Does.Contain("Empty in every row, so not shown: total duration, note.")
        );

        string csv = Utf8(Write(new CsvReportWriter(), Doc(t)));
        Assert.That(
            csv.Split('\n')[0].TrimEnd('\r'),
            Is.EqualTo("rank,total duration,note,signal"),
            "CSV keeps its columns"
        );
        string text = Utf8(Write(new TextReportWriter(), Doc(t)));
        Assert.That(text, Does.Contain("total duration"), "text keeps its columns");
    }

    [Test]
    public void TableWithoutRows_KeepsItsColumns()
    {
        ReportTable t = new TableBuilder("none")
            .AddColumn(TableColumn.Text("a"))
            .AddColumn(TableColumn.Integer("b"))
            .Build();
        XDocument d = Html(Doc(t));
        Assert.That(ByName(d, "th").Select(h => h.Value), Is.EqualTo(new[] { "a", "b" }));
        Assert.That(ByName(d, "td").Single().Attribute("colspan")!.Value, Is.EqualTo("2"));
    }

    [Test]
    public void LongNote_ShowsItsFirstWords_AndOpensToTheWholeText()
    {
        string note = string.Join(" ", Enumerable.Repeat("No wait_info events were found in the capture;", 8));
        ReportTable t = new TableBuilder("notes")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("notes"))
            .AddRow("a", note)
            .AddRow("b", "short")
            .Build();

        XDocument d = Html(Doc(t));
        XElement[] cells = [.. ByName(d, "td")];
        XElement details = ByName(cells[1], "details").Single();
        string lead = ByName(details, "summary").Single().Value;
        Assert.That(note.Length, Is.GreaterThan(HtmlReportWriter.LongText));
        Assert.That(lead, Does.EndWith(" \u2026"));
        Assert.That(lead.Length, Is.LessThanOrEqualTo(82));
        Assert.That(note, Does.StartWith(lead[..^2]), "the lead is the note's first words");
        Assert.That(details.Value, Is.EqualTo(lead + note), "the whole note is in the cell");
        Assert.That(ByName(cells[3], "details"), Is.Empty);
        Assert.That(cells[3].Value, Is.EqualTo("short"));
    }

    [Test]
    public void NumbersAndHeadersNeverWrap_LongIdentifiersMayBreak()
    {
        string css = Utf8(Write(new HtmlReportWriter(), Doc(Numbers(1))));
        Assert.That(css, Does.Match(@"thead th \{[^}]*white-space: nowrap"));
        Assert.That(css, Does.Match(@"th\.num, td\.num \{[^}]*white-space: nowrap"));
        Assert.That(css, Does.Match(@"tbody td \{[^}]*overflow-wrap: break-word"), "ordinary text wraps between words");
        Assert.That(
            css,
            Does.Match(@"td\.id \{ overflow-wrap: anywhere; min-width: 28ch; \}"),
            "but is not crushed to a few characters"
        );
        Assert.That(css, Does.Match(@"pre \{[^}]*overflow-x: auto"), "a long frame line scrolls, never clips");

        XDocument d = Html(Doc(Numbers(1)));
        Assert.That(
            ByName(d, "td").Select(c => c.Attribute("class")!.Value),
            Is.EqualTo(new[] { "num", "text" }),
            "sqlmin.dll!Frame0 is short"
        );
        ReportTable path = new TableBuilder("p")
            .AddColumn(TableColumn.Text("file"))
            .AddRow("sample-xel/latch_nesting_full/latch_nesting_full_0_133601526724170000.xel")
            .AddRow("two words")
            .Build();
        Assert.That(
            ByName(Html(Doc(path)), "td").Select(c => c.Attribute("class")!.Value),
            Is.EqualTo(new[] { "text id", "text" })
        );
    }

    [Test]
    public void Stacks_FoldUnderTheirHeadings_FirstOpen()
    {
        var list = new StackList([
            new StackListItem("Bucket 1: 5 events", [new StackListFrame("a!f+0x1"), new StackListFrame("b!g+0x2")]),
            new StackListItem("Bucket 2: 3 events", [new StackListFrame("a!f+0x1")]),
        ]);
        XDocument d = Html(Doc(list));
        XElement[] details = [.. ByName(d, "details")];
        Assert.That(
            details.Select(x => ByName(x, "summary").Single().Value),
            Is.EqualTo(new[] { "Bucket 1: 5 events", "Bucket 2: 3 events" })
        );
        Assert.That(details.Select(x => x.Attribute("open") is not null), Is.EqualTo(new[] { true, false }));
        Assert.That(ByName(details[0], "pre").Single().Value, Is.EqualTo("a!f+0x1\nb!g+0x2"));
    }

    [Test]
    public void NoReasons_ListsUnresolvedFramesWithoutTheirReason_InTextAndHtml_JsonKeepsIt()
    {
        StackListFrame unresolved = new("0x00007FF6A1B2C3D4")
        {
            Status = StackFrameStatus.Unresolved,
            UnresolvedReason = "no module map for raw addresses",
        };
        var item = new StackListItem("Bucket 1", [new StackListFrame("a!f+0x1"), unresolved]);
        var with = new StackList([item]);
        var without = new StackList([item]) { ShowReasons = false };

        Assert.That(
            Utf8(Write(new TextReportWriter(), Doc(with))),
            Does.Contain("0x00007FF6A1B2C3D4 -- unresolved: no module map for raw addresses\n")
        );
        Assert.That(
            Utf8(Write(new TextReportWriter(), Doc(without))),
            Does.Contain("\n0x00007FF6A1B2C3D4\n").And.Not.Contain("-- unresolved")
        );
        Assert.That(ByName(Html(Doc(without)), "pre").Single().Value, Is.EqualTo("a!f+0x1\n0x00007FF6A1B2C3D4"));
        Assert.That(Utf8(Write(new JsonReportWriter(), Doc(without))), Does.Contain("no module map for raw addresses"));
    }
}

using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

public class CsvReportWriterTests
{
    private static readonly DateTime Noon = new(2024, 5, 1, 12, 0, 0, DateTimeKind.Utc);

    private static ReportTable Table() =>
        new TableBuilder("t")
            .AddColumn(TableColumn.Text("Name"))
            .AddColumn(TableColumn.Integer("Count"))
            .AddColumn(TableColumn.Percentage("Share"))
            .AddColumn(TableColumn.Duration("Wait"))
            .AddColumn(TableColumn.Timestamp("When"))
            .AddRow("plain", 1234, TableCell.FromPercentage(0.5), TimeSpan.FromTicks(15_000), Noon)
            .AddRow("a,b", -5, TableCell.FromPercentage(0.125), TimeSpan.FromTicks(15), Noon.AddTicks(1))
            .AddRow("say \"hi\"", 0, TableCell.Empty, TableCell.Empty, TableCell.Empty)
            .AddRow("line1\nline2", 7, TableCell.FromPercentage(1), TimeSpan.FromSeconds(2.5), TableCell.Empty)
            .AddRow(" padded ", long.MinValue, TableCell.FromPercentage(1.0 / 3), TableCell.Empty, TableCell.Empty)
            .AddNote("notes are not written to CSV")
            .Build();

    [Test]
    public void Write_OneTable_QuotesPerRfc4180_WithLfAndInvariantNumbers()
    {
        string expected =
            "Name,Count,Share,Wait (ms),When\n"
            + "plain,1234,0.5,1.5,2024-05-01T12:00:00.0000000Z\n"
            + "\"a,b\",-5,0.125,0.0015,2024-05-01T12:00:00.0000001Z\n"
            + "\"say \"\"hi\"\"\",0,,,\n"
            + "\"line1\nline2\",7,1,2500,\n"
            + " padded ,-9223372036854775808,0.3333333333333333,,\n";
        Assert.That(Utf8(Write(new CsvReportWriter(), Doc(Table()))), Is.EqualTo(expected));
    }

    [Test]
    public void Write_SeparatesSeveralTables_WithEmptyLine()
    {
        ReportTable a = new TableBuilder("a").AddColumn(TableColumn.Text("x")).AddRow("1").Build();
        ReportTable b = new TableBuilder("b")
            .AddColumn(TableColumn.Text("y"))
            .AddColumn(TableColumn.Text("z"))
            .AddRow(string.Empty, "q")
            .Build();
        var doc = new ReportDocument(
            "d",
            [new ReportSection("s1", a, new Paragraph("ignored")), new ReportSection("s2", b)]
        );
        Assert.That(Utf8(Write(new CsvReportWriter(), doc)), Is.EqualTo("x\n1\n\ny,z\n,q\n"));
    }

    [Test]
    public void Write_EscapesTextThatStartsLikeAFormula_NeverNumbers()
    {
        // The one CSV-injection rule: a text field starting with = + - @ TAB or CR gets a leading ' and is quoted;
        // numbers, times and empty fields are never touched (a negative count stays a number).
        ReportTable t = new TableBuilder("t")
            .AddColumn(TableColumn.Text("x"))
            .AddColumn(TableColumn.Integer("n"))
            .AddColumn(TableColumn.Decimal("d"))
            .AddRow("=HYPERLINK(\"http://x\")", -5, -1.5)
            .AddRow("+1", 0, 0)
            .AddRow("-cmd|' /C calc'!A0", 1, 1)
            .AddRow("@SUM(A1)", 2, 2)
            .AddRow("\tleading tab", 3, 3)
            .AddRow("\rleading CR", 4, 4)
            .AddRow("sqlmin!A", long.MinValue, double.NegativeInfinity)
            .AddRow("a=b", 5, 5)
            .Build();
        Assert.That(
            Utf8(Write(new CsvReportWriter(), Doc(t))),
            Is.EqualTo(
                "x,n,d\n"
                    + "\"'=HYPERLINK(\"\"http://x\"\")\",-5,-1.5\n"
                    + "\"'+1\",0,0\n"
                    + "\"'-cmd|' /C calc'!A0\",1,1\n"
                    + "\"'@SUM(A1)\",2,2\n"
                    + "\"'\tleading tab\",3,3\n"
                    + "\"'\rleading CR\",4,4\n"
                    + "sqlmin!A,-9223372036854775808,\n"
                    + "a=b,5,5\n"
            )
        );
    }

    [Test]
    public void Write_EscapesFormulaHeaders_AndNotes_AreNotWritten()
    {
        ReportTable t = new TableBuilder("t")
            .AddColumn(TableColumn.Text("=x"))
            .AddRow("v")
            .AddNote("=note")
            .AddWarning("-warn")
            .Build();
        Assert.That(Utf8(Write(new CsvReportWriter(), Doc(t))), Is.EqualTo("\"'=x\"\nv\n"));
    }

    [Test]
    public void Write_WritesValidUtf8_ForHostileNames()
    {
        TableBuilder b = new TableBuilder("t").AddColumn(TableColumn.Text("name"));
        foreach (string n in HostileNames)
        {
            b.AddRow(n);
        }

        string csv = Utf8(Write(new CsvReportWriter(), Doc(b.Build())));
        Assert.That(csv, Does.Contain("\nsemi;colon;frame\n"));
        Assert.That(csv, Does.Contain("lone\uFFFDsurrogate"));
        Assert.That(csv, Does.Contain("\"\"\"double\"\" and 'single' quotes\""));
        Assert.That(csv.Contains('\0', StringComparison.Ordinal), Is.False, "NUL is replaced");
        Assert.That(
            XeAnalyzer.Tests.Reporting.ReportTestSupport.ParseCsv(csv).Skip(1).Select(r => r.Single()),
            Is.EqualTo(HostileNames.Select(n => Expected(n))),
            "every name reads back, sanitised"
        );
    }

    private static string Expected(string name)
    {
        string s = name.Replace("\0", "\uFFFD", StringComparison.Ordinal)
            .Replace("\u0007", "\uFFFD", StringComparison.Ordinal)
            .Replace("\u001b", "\uFFFD", StringComparison.Ordinal)
            .Replace("\uD800", "\uFFFD", StringComparison.Ordinal);
        return s;
    }
}

using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

public class ReportModelTests
{
    [Test]
    public void ReportTable_Throws_WhenRowHasWrongCellCount()
    {
        var ex = Assert.Throws<ArgumentException>(() =>
            new TableBuilder("t")
                .AddColumn(TableColumn.Text("a"))
                .AddColumn(TableColumn.Integer("b"))
                .AddRow("x")
                .Build()
        );
        Assert.That(ex!.Message, Does.Contain("Row 0").And.Contain("1 cells").And.Contain("2 columns"));
    }

    [Test]
    public void ReportTable_Throws_WhenCellKindDoesNotFitColumn()
    {
        var ex = Assert.Throws<ArgumentException>(() =>
            new TableBuilder("t").AddColumn(TableColumn.Integer("count")).AddRow("not a number").Build()
        );
        Assert.That(ex!.Message, Does.Contain("column 'count'").And.Contain("Text").And.Contain("Integer"));
    }

    [Test]
    public void ReportTable_CoercesIntegerToDecimal_AndDecimalToPercentage()
    {
        ReportTable t = new TableBuilder("t")
            .AddColumn(TableColumn.Decimal("d"))
            .AddColumn(TableColumn.Percentage("p"))
            .AddRow(3, 0.25)
            .AddRow(TableCell.Empty, TableCell.Empty)
            .Build();
        Assert.That(t.Rows[0][0].Kind, Is.EqualTo(ColumnKind.Decimal));
        Assert.That(t.Rows[0][0].Number, Is.EqualTo(3.0));
        Assert.That(t.Rows[0][1].Kind, Is.EqualTo(ColumnKind.Percentage));
        Assert.That(t.Rows[1][0].IsEmpty, Is.True);
    }

    [Test]
    public void ReportTable_IsImmutable_WhenSourceArraysChangeAfterwards()
    {
        TableCell[] row = ["a"];
        var rows = new List<IReadOnlyList<TableCell>> { row };
        var t = new ReportTable("t", [TableColumn.Text("c")], rows);
        row[0] = "changed";
        rows.Add(new TableCell[] { "added" });
        Assert.That(t.Rows, Has.Count.EqualTo(1));
        Assert.That(t.Rows[0][0].Text, Is.EqualTo("a"));
    }

    [Test]
    public void TableCell_FromDateTime_TreatsUnspecifiedAsUtc()
    {
        TableCell c = new DateTime(2024, 5, 1, 12, 0, 0, DateTimeKind.Unspecified);
        Assert.That(c.Timestamp, Is.EqualTo(new DateTime(2024, 5, 1, 12, 0, 0, DateTimeKind.Utc)));
        Assert.That(c.Timestamp.Kind, Is.EqualTo(DateTimeKind.Utc));
    }

    [Test]
    public void TableColumn_Throws_WhenDecimalPlacesOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            _ = new TableColumn("x", ColumnKind.Decimal) { DecimalPlaces = 10 }
        );
    }

    [Test]
    public void BarChart_Throws_WhenCountsDiffer()
    {
        Assert.Throws<ArgumentException>(() => _ = new BarChart("b", ["a", "b"], [1.0]));
    }

    [Test]
    public void BarChart_Throws_WhenValueIsNaN()
    {
        Assert.Throws<ArgumentException>(() => _ = new BarChart("b", ["a"], [double.NaN]));
    }

    [Test]
    public void BarChart_MarksEveryBarWithHighlightedLabel()
    {
        var chart = new BarChart("b", ["24", "27", "30", "27"], [1.0, 2, 3, 4], highlightedCategories: ["27"]);
        Assert.That(chart.IsHighlighted, Is.EqualTo(new[] { false, true, false, true }));
    }

    [Test]
    public void ReferenceLineMean_IsArithmeticMean()
    {
        Assert.That(ReferenceLine.Mean([1.0, 2, 6]).Value, Is.EqualTo(3.0));
        Assert.That(ReferenceLine.Mean([1.0]).Label, Is.EqualTo("mean"));
    }

    [Test]
    public void Histogram_CountsEverySampleOnce_WithMaxInLastBin()
    {
        BarChart h = BarChart.Histogram("h", [0.0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, double.NaN], 5);
        Assert.That(h.Values, Is.EqualTo(new[] { 2.0, 2, 2, 2, 3 }));
        Assert.That(h.Categories, Is.EqualTo(new[] { "0", "2", "4", "6", "8" }));
    }

    [Test]
    public void LineSeries_SortsByXStably_WhenInputIsUnordered()
    {
        var s = new LineSeries("s", [3.0, 1, 2, 1], [30.0, 10, 20, 11]);
        Assert.That(s.X.ToArray(), Is.EqualTo(new[] { 1.0, 1, 2, 3 }));
        Assert.That(s.Y.ToArray(), Is.EqualTo(new[] { 10.0, 11, 20, 30 }));
    }

    [Test]
    public void LineSeries_Throws_WhenPointIsNotFinite()
    {
        Assert.Throws<ArgumentException>(() => _ = new LineSeries("s", [1.0, double.PositiveInfinity], [1.0, 2]));
    }

    [Test]
    public void LineSeries_UnixSecondsRoundTrip_KeepsMicroseconds()
    {
        var t = new DateTime(2024, 5, 1, 10, 0, 0, DateTimeKind.Utc).AddTicks(1234560);
        Assert.That(LineSeries.FromUnixSeconds(LineSeries.ToUnixSeconds(t)), Is.EqualTo(t));
    }
}

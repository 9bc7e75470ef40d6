using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// The one registry of output formats: <c>--format NAME</c> picks one writer, which asks the result for the document of
/// its view and writes that document, nothing else.
/// </summary>
public sealed class OutputFormatsTests
{
    /// <summary>A result that gives a different document per view and records which views were asked for.</summary>
    private sealed class ViewRecorder : IDocumentSource
    {
        public List<DocumentView> Asked { get; } = [];

        public ReportDocument ToDocument(DocumentView view)
        {
            Asked.Add(view);
            var tree = new CallTreeBuilder();
            tree.AddStack(["leaf-" + view, "root"], 2);
            ReportTable table = new TableBuilder("table-" + view)
                .AddColumn(TableColumn.Text("view"))
                .AddRow("row-" + view)
                .Build();
            return new ReportDocument(
                "title-" + view,
                [new ReportSection("section-" + view, table, new FlameGraph(tree.Build()))]
            );
        }
    }

    [TestCaseSource(typeof(OutputFormats), nameof(OutputFormats.Names))]
    public void Write_ByName_AsksForTheWritersViewOnly_AndWritesThatDocument(string format)
    {
        var source = new ViewRecorder();
        using var ms = new MemoryStream();
        OutputFormats.Write(source, format, ms);
        IReportWriter writer = OutputFormats.Get(format);
        Assert.That(source.Asked, Is.EqualTo(new[] { writer.View }), "one document, of the writer's view");
        string text = Utf8(ms.ToArray());
        string marker = writer.View == DocumentView.Figure ? "leaf-" + writer.View : "row-" + writer.View;
        Assert.That(text, Does.Contain(marker), "the document of that view was written");
        foreach (DocumentView other in Enum.GetValues<DocumentView>().Where(v => v != writer.View))
        {
            Assert.That(
                text,
                Does.Not.Contain("-" + other + "\"").And.Not.Contain("row-" + other).And.Not.Contain("leaf-" + other),
                format + " wrote nothing of " + other
            );
        }
    }

    [Test]
    public void Get_IsCaseInsensitive_AndNamesTheFormatsOnAnUnknownName()
    {
        Assert.That(OutputFormats.Get("JSON"), Is.SameAs(OutputFormats.Get("json")));
        Assert.That(OutputFormats.Find("xlsx"), Is.Null);
        ArgumentException ex = Assert.Throws<ArgumentException>(() => OutputFormats.Get("xlsx"))!;
        Assert.That(ex.Message, Does.Contain("'xlsx'").And.Contain(string.Join(", ", OutputFormats.Names)));
    }

    [Test]
    public void FigureWriters_RefuseADocumentWithoutAFigure_NamingIt()
    {
        ReportDocument tableOnly = ReportDocument.Of(
            "only a table",
            new TableBuilder("t").AddColumn(TableColumn.Text("x")).AddRow("1").Build()
        );
        foreach (IReportWriter w in OutputFormats.Writers.Where(w => w.View == DocumentView.Figure))
        {
            Assert.That(() => w.Write(tableOnly, new MemoryStream()), Throws.ArgumentException, w.Format);
        }
    }
}

namespace XeAnalyzer.Output;

/// <summary>
/// Writes the figure of a document as one self-contained SVG file (format <c>svg</c>, the
/// <see cref="DocumentView.Figure"/> view): its first chart (<see cref="ChartSvg"/>, at the given size) or flame graph
/// (<see cref="FlameGraphSvg"/>, with the block's own options), with an XML declaration. Deterministic bytes; no
/// scripts or external references.
/// </summary>
internal sealed class SvgReportWriter : IReportWriter
{
    /// <summary>Creates the writer.</summary>
    /// <param name="chartOptions">The size of charts; <see langword="null"/> for 900 × 380 px.</param>
    public SvgReportWriter(ChartSvgOptions? chartOptions = null)
    {
        ChartOptions = chartOptions ?? new ChartSvgOptions();
    }

    /// <summary>The size of charts.</summary>
    public ChartSvgOptions ChartOptions { get; }

    /// <inheritdoc/>
    public string Format => "svg";

    /// <inheritdoc/>
    public string FileExtension => ".svg";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Figure;

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The document has no chart or flame graph.</exception>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        string svg = document.FindFigure() switch
        {
            BarChart bar => ChartSvg.RenderBar(bar, ChartOptions, standalone: true),
            LineChart line => ChartSvg.RenderLine(line, ChartOptions, standalone: true, cancellationToken),
            FlameGraph flame => FlameGraphSvg
                .Render(flame.Tree, flame.Options, standalone: true, cancellationToken)
                .Svg,
            _ => throw new ArgumentException(
                "'" + document.Title + "' has no chart or flame graph to draw as SVG",
                nameof(document)
            ),
        };
        OutputText.WriteUtf8(svg, output);
    }
}

namespace XeAnalyzer.Output;

/// <summary>
/// Writes a whole <see cref="ReportDocument"/> in one format (text, CSV, JSON, HTML). Implementations are immutable and
/// thread-safe, write UTF-8 without a byte order mark and <c>\n</c> line endings, use the invariant culture whatever
/// <see cref="System.Globalization.CultureInfo.CurrentCulture"/> is, and give the same bytes for the same report.
/// They format synchronously into the stream and flush it asynchronously; the stream is left open.
/// </summary>
public interface IReportWriter
{
    /// <summary>The format name the command line selects it by (for example <c>html</c>).</summary>
    string Format { get; }

    /// <summary>The usual file extension, with the dot (for example <c>.html</c>).</summary>
    string FileExtension { get; }

    /// <summary>Writes the report.</summary>
    /// <param name="report">The report.</param>
    /// <param name="output">The destination; written from its current position and left open.</param>
    /// <param name="cancellationToken">Cancels the write between blocks and rows.</param>
    /// <returns>A task that completes when the output has been flushed.</returns>
    ValueTask WriteAsync(ReportDocument report, Stream output, CancellationToken cancellationToken = default);
}

/// <summary>
/// Writes a <see cref="CallTree"/> in one flame format (folded stacks, speedscope JSON, SVG flame graph). Same
/// guarantees as <see cref="IReportWriter"/>.
/// </summary>
public interface ICallTreeWriter
{
    /// <summary>The format name the command line selects it by (for example <c>folded</c>).</summary>
    string Format { get; }

    /// <summary>The usual file extension, with the dot.</summary>
    string FileExtension { get; }

    /// <summary>Writes the tree.</summary>
    /// <param name="tree">The call tree.</param>
    /// <param name="output">The destination; written from its current position and left open.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <returns>A task that completes when the output has been flushed.</returns>
    ValueTask WriteAsync(CallTree tree, Stream output, CancellationToken cancellationToken = default);
}

/// <summary>The writers with default settings, by format name, for the command line to choose from.</summary>
public static class OutputFormats
{
    /// <summary>The report writers: <c>text</c>, <c>csv</c>, <c>json</c>, <c>html</c>.</summary>
    public static IReadOnlyList<IReportWriter> ReportWriters { get; } =
        [new TextReportWriter(), new CsvReportWriter(), new JsonReportWriter(), new HtmlReportWriter()];

    /// <summary>The call tree writers: <c>folded</c>, <c>speedscope</c>, <c>svg</c>.</summary>
    public static IReadOnlyList<ICallTreeWriter> CallTreeWriters { get; } =
        [new FoldedStackWriter(), new SpeedscopeWriter(), new FlameGraphSvgWriter()];

    /// <summary>Finds a report writer by format name (ordinal, case-insensitive).</summary>
    /// <param name="format">The format name.</param>
    /// <returns>The writer, or <see langword="null"/> if there is none.</returns>
    public static IReportWriter? FindReportWriter(string format) =>
        ReportWriters.FirstOrDefault(w => string.Equals(w.Format, format, StringComparison.OrdinalIgnoreCase));

    /// <summary>Finds a call tree writer by format name (ordinal, case-insensitive).</summary>
    /// <param name="format">The format name.</param>
    /// <returns>The writer, or <see langword="null"/> if there is none.</returns>
    public static ICallTreeWriter? FindCallTreeWriter(string format) =>
        CallTreeWriters.FirstOrDefault(w => string.Equals(w.Format, format, StringComparison.OrdinalIgnoreCase));
}

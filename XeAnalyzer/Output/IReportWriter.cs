namespace XeAnalyzer.Output;

/// <summary>
/// Which view of a result a format shows. A result gives one <see cref="ReportDocument"/> per view
/// (<see cref="IDocumentSource"/>); most results give the same document for every view, a few (stack buckets, a stack
/// diff) show less in some formats, as a terminal listing is shorter than a page.
/// </summary>
public enum DocumentView
{
    /// <summary>What a page shows: tables, charts, flame graphs, notes (HTML).</summary>
    Page,

    /// <summary>What a person reads in a terminal, top to bottom (text).</summary>
    Listing,

    /// <summary>Everything the result holds, as data (JSON).</summary>
    Data,

    /// <summary>The tables a spreadsheet opens (CSV): for most results the tables of the data; a stack result gives its
    /// one bucket table.</summary>
    Table,

    /// <summary>The figure: a chart or a flame graph (SVG, folded stacks, speedscope).</summary>
    Figure,
}

/// <summary>Something every format can write: a result, or a document. It gives the document of each
/// <see cref="DocumentView"/>.</summary>
public interface IDocumentSource
{
    /// <summary>The document of a view.</summary>
    /// <param name="view">The view the format shows.</param>
    /// <returns>The document.</returns>
    ReportDocument ToDocument(DocumentView view);
}

/// <summary>
/// Writes a <see cref="ReportDocument"/> in one format (text, CSV, JSON, HTML, SVG, folded stacks, speedscope).
/// Implementations are immutable and thread-safe, write synchronously UTF-8 without a byte order mark, use the
/// invariant culture whatever
/// <see cref="System.Globalization.CultureInfo.CurrentCulture"/> is, and give the same bytes for the same document. The
/// stream is flushed and left open.
/// </summary>
public interface IReportWriter
{
    /// <summary>The format name the command line selects it by (for example <c>html</c>).</summary>
    string Format { get; }

    /// <summary>The usual file extension, with the dot (for example <c>.html</c>).</summary>
    string FileExtension { get; }

    /// <summary>The view of a result the format shows.</summary>
    DocumentView View { get; }

    /// <summary>Writes the document.</summary>
    /// <param name="document">The document.</param>
    /// <param name="output">The destination; written from its current position, flushed and left open.</param>
    /// <param name="cancellationToken">Cancels the write between blocks and rows.</param>
    /// <exception cref="ArgumentException">The document has nothing this format writes (a figure format and no chart or
    /// flame graph).</exception>
    void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default);
}

/// <summary>The one registry of output formats: every writer with default settings, by the name <c>--format</c>
/// selects.</summary>
public static class OutputFormats
{
    /// <summary>
    /// The writers: <c>text</c>, <c>csv</c>, <c>json</c>, <c>html</c>, <c>svg</c> (the document's chart or flame
    /// graph),
    /// <c>folded</c> and <c>speedscope</c> (its flame graph).
    /// </summary>
    public static IReadOnlyList<IReportWriter> Writers { get; } =
    [
        new TextReportWriter(),
        new CsvReportWriter(),
        new JsonReportWriter(),
        new HtmlReportWriter(),
        new SvgReportWriter(),
        new FoldedStackWriter(),
        new SpeedscopeWriter(),
    ];

    /// <summary>The format names, in registry order.</summary>
    public static IReadOnlyList<string> Names { get; } = [.. Writers.Select(w => w.Format)];

    /// <summary>Finds a writer by format name (ordinal, case-insensitive).</summary>
    /// <param name="format">The format name.</param>
    /// <returns>The writer, or <see langword="null"/> if there is none.</returns>
    public static IReportWriter? Find(string format) =>
        Writers.FirstOrDefault(w => string.Equals(w.Format, format, StringComparison.OrdinalIgnoreCase));

    /// <summary>The writer of a format name (ordinal, case-insensitive).</summary>
    /// <param name="format">The format name.</param>
    /// <returns>The writer.</returns>
    /// <exception cref="ArgumentException">No writer has that name.</exception>
    public static IReportWriter Get(string format)
    {
        ArgumentNullException.ThrowIfNull(format);
        return Find(format)
            ?? throw new ArgumentException(
                "unknown output format '" + format + "' (expected " + string.Join(", ", Names) + ")",
                nameof(format)
            );
    }

    /// <summary>Writes the view of <paramref name="source"/> the format shows.</summary>
    /// <param name="source">The result or document.</param>
    /// <param name="format">The format name.</param>
    /// <param name="output">The destination; flushed and left open.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <exception cref="ArgumentException">The format is unknown, or the document has nothing it writes.</exception>
    public static void Write(
        IDocumentSource source,
        string format,
        Stream output,
        CancellationToken cancellationToken = default
    ) => Write(source, Get(format), output, cancellationToken);

    /// <summary>Writes the view of <paramref name="source"/> the writer shows.</summary>
    /// <param name="source">The result or document.</param>
    /// <param name="writer">The writer.</param>
    /// <param name="output">The destination; flushed and left open.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <exception cref="ArgumentException">The document has nothing the writer writes.</exception>
    public static void Write(
        IDocumentSource source,
        IReportWriter writer,
        Stream output,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(writer);
        writer.Write(source.ToDocument(writer.View), output, cancellationToken);
    }

    /// <summary>The view of <paramref name="source"/> in a format, as a string (UTF-8 decoded): for text sent to a
    /// console.</summary>
    /// <param name="source">The result or document.</param>
    /// <param name="format">The format name.</param>
    /// <returns>The text.</returns>
    public static string ToText(IDocumentSource source, string format = "text")
    {
        using var ms = new MemoryStream();
        Write(source, format, ms);
        return OutputText.Utf8NoBom.GetString(ms.GetBuffer(), 0, (int)ms.Length);
    }
}

/// <summary>Helpers over <see cref="IDocumentSource"/>.</summary>
internal static class DocumentSources
{
    /// <summary>The documents of <paramref name="source"/> with another description (for example what the command
    /// read).</summary>
    /// <param name="source">The source.</param>
    /// <param name="description">The description, or <see langword="null"/> for none.</param>
    /// <returns>A source giving the same documents with that description.</returns>
    public static IDocumentSource WithDescription(this IDocumentSource source, string? description)
    {
        ArgumentNullException.ThrowIfNull(source);
        return new Described(source, description);
    }

    private sealed class Described(IDocumentSource inner, string? description) : IDocumentSource
    {
        public ReportDocument ToDocument(DocumentView view) => inner.ToDocument(view).WithDescription(description);
    }
}

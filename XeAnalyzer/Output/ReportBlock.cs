namespace XeAnalyzer.Output;

/// <summary>
/// One item of a <see cref="ReportSection"/>: a <see cref="Paragraph"/>, <see cref="ReportTable"/>, <see cref="BarChart"/>,
/// <see cref="LineChart"/>, <see cref="FlameGraph"/>, <see cref="Preformatted"/> text or a <see cref="KeyValueList"/>.
/// The set of block types is closed; every writer handles each of them. Blocks are immutable.
/// </summary>
public abstract class ReportBlock
{
    private protected ReportBlock()
    {
    }
}

/// <summary>A paragraph of plain text (no markup: writers escape it).</summary>
public sealed class Paragraph : ReportBlock
{
    /// <summary>Creates a paragraph.</summary>
    /// <param name="text">The text.</param>
    /// <exception cref="ArgumentNullException"><paramref name="text"/> is <see langword="null"/>.</exception>
    public Paragraph(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        Text = text;
    }

    /// <summary>The text.</summary>
    public string Text { get; }
}

/// <summary>Preformatted text (for example a resolved callstack), shown in a monospaced font with line breaks kept.</summary>
public sealed class Preformatted : ReportBlock
{
    /// <summary>Creates the block.</summary>
    /// <param name="text">The text; <c>\r\n</c> is normalised to <c>\n</c>.</param>
    /// <param name="caption">An optional caption shown above the text.</param>
    /// <exception cref="ArgumentNullException"><paramref name="text"/> is <see langword="null"/>.</exception>
    public Preformatted(string text, string? caption = null)
    {
        ArgumentNullException.ThrowIfNull(text);
        Text = text.Replace("\r\n", "\n", StringComparison.Ordinal);
        Caption = caption;
    }

    /// <summary>The text, with <c>\n</c> line breaks.</summary>
    public string Text { get; }

    /// <summary>The caption, or <see langword="null"/>.</summary>
    public string? Caption { get; }
}

/// <summary>A key/value summary (for example "Events: 347,435"), shown as a two-column list.</summary>
public sealed class KeyValueList : ReportBlock
{
    /// <summary>Creates the list.</summary>
    /// <param name="items">The entries, in display order. Values are formatted with the default format of their kind.</param>
    /// <param name="title">An optional title.</param>
    /// <exception cref="ArgumentNullException"><paramref name="items"/> or a key is <see langword="null"/>.</exception>
    public KeyValueList(IEnumerable<KeyValuePair<string, TableCell>> items, string? title = null)
    {
        ArgumentNullException.ThrowIfNull(items);
        KeyValuePair<string, TableCell>[] copy = [.. items];
        foreach (KeyValuePair<string, TableCell> item in copy)
        {
            if (item.Key is null)
            {
                throw new ArgumentNullException(nameof(items), "A key/value entry has a null key.");
            }
        }

        Items = Array.AsReadOnly(copy);
        Title = title;
    }

    /// <summary>The entries in display order.</summary>
    public IReadOnlyList<KeyValuePair<string, TableCell>> Items { get; }

    /// <summary>The title, or <see langword="null"/>.</summary>
    public string? Title { get; }
}

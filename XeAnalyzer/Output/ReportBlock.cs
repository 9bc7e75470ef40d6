namespace XeAnalyzer.Output;

/// <summary>
/// One item of a <see cref="ReportSection"/>: a <see cref="Paragraph"/>, <see cref="ReportTable"/>,
/// <see cref="BarChart"/>,
/// <see cref="LineChart"/>, <see cref="FlameGraph"/>, <see cref="Preformatted"/> text, a <see cref="KeyValueList"/>, an
/// <see cref="Outline"/> or a <see cref="StackList"/>. The set of block types is closed; every writer handles each of
/// them. Blocks are immutable.
/// </summary>
public abstract class ReportBlock
{
    private protected ReportBlock() { }
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

/// <summary>Preformatted text (for example a resolved callstack), shown in a monospaced font with line breaks
/// kept.</summary>
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
    /// <param name="items">The entries, in display order. Values are formatted with the default format of their
    /// kind.</param>
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

/// <summary>One line of an <see cref="Outline"/>: its text and how deep it is indented.</summary>
/// <param name="Depth">The indentation level, 0 to 16 (text writes two spaces per level).</param>
/// <param name="Text">The text (plain: writers escape it; one line).</param>
internal sealed record OutlineItem(int Depth, string Text);

/// <summary>
/// Lines indented by level, as a terminal shows a nested summary (for example what resolving an input did, then per
/// unresolved reason what was searched). Text shows the optional title underlined, then each item indented by two
/// spaces per level; HTML shows the same text in a preformatted block; JSON writes the items.
/// </summary>
internal sealed class Outline : ReportBlock
{
    /// <summary>The deepest indentation level.</summary>
    public const int MaxDepth = 16;

    /// <summary>Creates an outline.</summary>
    /// <param name="items">The lines in display order.</param>
    /// <param name="title">An optional title.</param>
    /// <exception cref="ArgumentNullException"><paramref name="items"/>, an item or its text is
    /// <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An item's depth is outside 0..<see cref="MaxDepth"/>.</exception>
    public Outline(IEnumerable<OutlineItem> items, string? title = null)
    {
        ArgumentNullException.ThrowIfNull(items);
        OutlineItem[] copy = [.. items];
        foreach (OutlineItem item in copy)
        {
            ArgumentNullException.ThrowIfNull(item, nameof(items));
            ArgumentNullException.ThrowIfNull(item.Text, nameof(items));
            if (item.Depth is < 0 or > MaxDepth)
            {
                throw new ArgumentOutOfRangeException(
                    nameof(items),
                    item.Depth,
                    "An outline item's depth must be 0 to 16."
                );
            }
        }

        Items = Array.AsReadOnly(copy);
        Title = title;
    }

    /// <summary>The lines in display order.</summary>
    public IReadOnlyList<OutlineItem> Items { get; }

    /// <summary>The title, or <see langword="null"/>.</summary>
    public string? Title { get; }
}

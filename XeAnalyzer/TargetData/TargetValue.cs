namespace XeAnalyzer.TargetData;

/// <summary>
/// The content of a <c>&lt;value&gt;</c> (or <c>&lt;text&gt;</c>) element: its text (CDATA, text and entity-escaped
/// text, decoded once as XML defines) and any child elements it holds, such as raw SQL Server 2022 <c>&lt;frame&gt;</c>
/// elements.
/// </summary>
public sealed class TargetValue
{
    /// <summary>Creates a value.</summary>
    /// <param name="text">The concatenated text content, with line breaks normalised to LF as XML defines.</param>
    /// <param name="elements">The child elements, in document order.</param>
    /// <param name="lineNumber">1-based input line where the content starts.</param>
    internal TargetValue(string text, IReadOnlyList<XmlChildElement> elements, long lineNumber)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(elements);
        Text = text;
        Elements = elements;
        LineNumber = lineNumber;
    }

    /// <summary>The concatenated text content (CDATA sections and text nodes), with line breaks normalised to
    /// LF.</summary>
    public string Text { get; }

    /// <summary>Child elements in document order (for example raw <c>&lt;frame … /&gt;</c> elements); empty for plain
    /// values.</summary>
    internal IReadOnlyList<XmlChildElement> Elements { get; }

    /// <summary>1-based input line where the content starts.</summary>
    public long LineNumber { get; }

    /// <summary>
    /// The value as written: <see cref="Text"/> with each child element's markup put back at its place (a
    /// <c>callstack_rva</c> value's
    /// <c>&lt;frame …/&gt;</c> elements, one per line), so frame parsers see every frame; <see cref="Text"/> itself
    /// when there are no child elements.
    /// </summary>
    /// <returns>The text.</returns>
    public string TextWithElements()
    {
        if (Elements.Count == 0)
        {
            return Text;
        }

        var sb = new System.Text.StringBuilder(Text.Length + (Elements.Count * 96));
        int pos = 0;
        foreach (XmlChildElement e in Elements)
        {
            int upTo = Math.Clamp(e.TextOffset, pos, Text.Length);
            sb.Append(Text, pos, upTo - pos);
            if (sb.Length > 0 && sb[^1] != '\n')
            {
                sb.Append('\n');
            }

            sb.Append(e.ToMarkup());
            pos = upTo;
        }

        if (pos < Text.Length && Text[pos] != '\n')
        {
            sb.Append('\n');
        }

        return sb.Append(Text, pos, Text.Length - pos).ToString();
    }

    /// <summary>Returns <see cref="Text"/>.</summary>
    public override string ToString() => Text;
}

/// <summary>A child element found inside a value (attributes only; nested content is not kept).</summary>
internal sealed class XmlChildElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="name">The element name.</param>
    /// <param name="attributes">The attributes in document order, values decoded.</param>
    /// <param name="lineNumber">1-based input line of the start tag.</param>
    /// <param name="textOffset">The length of the parent's <see cref="TargetValue.Text"/> before this element, to
    /// restore document order.</param>
    public XmlChildElement(
        string name,
        IReadOnlyList<KeyValuePair<string, string>> attributes,
        long lineNumber,
        int textOffset
    )
    {
        Name = name;
        Attributes = attributes;
        LineNumber = lineNumber;
        TextOffset = textOffset;
    }

    /// <summary>The element name (<c>frame</c>).</summary>
    public string Name { get; }

    /// <summary>The attributes in document order, values decoded.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Attributes { get; }

    /// <summary>1-based input line of the start tag.</summary>
    public long LineNumber { get; }

    /// <summary>How many characters of the parent's text came before this element.</summary>
    public int TextOffset { get; }

    /// <summary>Returns the value of the attribute with this exact name, or <see langword="null"/>.</summary>
    /// <param name="name">The attribute name (case-sensitive).</param>
    public string? GetAttribute(string name) => XmlAttributes.Find(Attributes, name);

    /// <summary>The element re-written as markup (<c>&lt;frame id="00" … /&gt;</c>), attribute values
    /// escaped.</summary>
    public string ToMarkup()
    {
        var sb = new System.Text.StringBuilder();
        sb.Append('<').Append(Name);
        foreach (KeyValuePair<string, string> a in Attributes)
        {
            sb.Append(' ')
                .Append(a.Key)
                .Append("=\"")
                .Append(System.Security.SecurityElement.Escape(a.Value))
                .Append('"');
        }

        return sb.Append(" />").ToString();
    }

    /// <summary>Returns <see cref="ToMarkup"/>.</summary>
    public override string ToString() => ToMarkup();
}

internal static class XmlAttributes
{
    public static string? Find(IReadOnlyList<KeyValuePair<string, string>> attributes, string name)
    {
        for (int i = 0; i < attributes.Count; i++)
        {
            if (string.Equals(attributes[i].Key, name, StringComparison.Ordinal))
            {
                return attributes[i].Value;
            }
        }

        return null;
    }
}

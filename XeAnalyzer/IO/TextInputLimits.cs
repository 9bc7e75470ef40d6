namespace XeAnalyzer.IO;

/// <summary>
/// Caps on sizes and counts taken from a text input (target-data XML, frame text, module lists, build catalogs),
/// so a hostile or damaged input cannot cause unbounded allocation. Exceeding a cap throws
/// <see cref="InvalidTextInputException"/> naming the line and the cap.
/// </summary>
internal sealed class TextInputLimits
{
    private readonly int _maxLineLength = 4 * 1024 * 1024;
    private readonly int _maxValueLength = 64 * 1024 * 1024;
    private readonly int _maxXmlDepth = 32;
    private readonly int _maxAttributesPerElement = 64;
    private readonly int _maxChildElementsPerValue = 65_536;
    private readonly int _maxFieldsPerEvent = 4096;
    private readonly int _maxLinesPerStack = 2_000;
    private readonly int _maxFramesPerLine = 4096;

    /// <summary>
    /// The defaults: 4 Mi characters per text line, 64 Mi characters per XML element's text, XML depth 32,
    /// 64 attributes per element, 65,536 child elements in one value, 4,096 fields per event,
    /// 2,000 lines per plain-text stack chunk (small enough that a chunk's arrays stay off the large-object heap) and
    /// 4,096 frames per line.
    /// </summary>
    public static TextInputLimits Default { get; } = new();

    /// <summary>Maximum length of one line of plain text (outside XML), in characters. XML content is capped by
    /// <see cref="MaxValueLength"/> instead.</summary>
    public int MaxLineLength
    {
        get => _maxLineLength;
        init => _maxLineLength = Positive(value);
    }

    /// <summary>Maximum length of the text of one XML element (a histogram <c>&lt;value&gt;</c>, an event field), in
    /// characters.</summary>
    public int MaxValueLength
    {
        get => _maxValueLength;
        init => _maxValueLength = Positive(value);
    }

    /// <summary>Maximum element nesting depth inside one target-data root (the root is depth 0).</summary>
    public int MaxXmlDepth
    {
        get => _maxXmlDepth;
        init => _maxXmlDepth = Positive(value);
    }

    /// <summary>Maximum number of attributes kept per element.</summary>
    public int MaxAttributesPerElement
    {
        get => _maxAttributesPerElement;
        init => _maxAttributesPerElement = Positive(value);
    }

    /// <summary>Maximum number of child elements (raw <c>&lt;frame&gt;</c> elements) inside one value.</summary>
    public int MaxChildElementsPerValue
    {
        get => _maxChildElementsPerValue;
        init => _maxChildElementsPerValue = Positive(value);
    }

    /// <summary>Maximum number of <c>data</c> plus <c>action</c> elements in one event.</summary>
    public int MaxFieldsPerEvent
    {
        get => _maxFieldsPerEvent;
        init => _maxFieldsPerEvent = Positive(value);
    }

    /// <summary>
    /// Maximum number of lines in one stack read from plain text. A longer plain-text stack is not rejected:
    /// it continues in the next stack, marked <c>IsContinuation</c>, so memory stays bounded on huge inputs.
    /// </summary>
    public int MaxLinesPerStack
    {
        get => _maxLinesPerStack;
        init => _maxLinesPerStack = Positive(value);
    }

    /// <summary>Maximum number of frames parsed from one line; the rest of a longer line is kept as unparsed
    /// text.</summary>
    public int MaxFramesPerLine
    {
        get => _maxFramesPerLine;
        init => _maxFramesPerLine = Positive(value);
    }

    private static int Positive(int value) =>
        value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "must be positive");
}

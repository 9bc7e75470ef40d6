namespace XeAnalyzer.TargetData;

/// <summary>
/// One item of a streamed target-data input: a target's start or end, a histogram slot, an event, a counter,
/// an event-file entry, or a line of free text found outside any target.
/// </summary>
public abstract class TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the input where the element starts.</param>
    private protected TargetDataElement(long lineNumber) => LineNumber = lineNumber;

    /// <summary>1-based line of the input where the element starts.</summary>
    public long LineNumber { get; }
}

/// <summary>The start of one target-data root (<c>&lt;HistogramTarget …&gt;</c>, <c>&lt;RingBufferTarget …&gt;</c>, a
/// bare <c>&lt;event&gt;</c>, …).</summary>
internal sealed class TargetStart : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the root's start tag.</param>
    /// <param name="kind">The kind of target.</param>
    /// <param name="rootName">The root element's name as written.</param>
    /// <param name="targetIndex">0-based index of this root among the roots of the input.</param>
    /// <param name="attributes">The root's attributes in document order.</param>
    public TargetStart(
        long lineNumber,
        TargetDataKind kind,
        string rootName,
        int targetIndex,
        IReadOnlyList<KeyValuePair<string, string>> attributes
    )
        : base(lineNumber)
    {
        Kind = kind;
        RootName = rootName;
        TargetIndex = targetIndex;
        Attributes = attributes;
    }

    /// <summary>The kind of target.</summary>
    public TargetDataKind Kind { get; }

    /// <summary>The root element's name as written (<c>HistogramTarget</c>, <c>BucketizerTarget</c>, <c>Slots</c>,
    /// …).</summary>
    public string RootName { get; }

    /// <summary>0-based index of this root among the roots of the input.</summary>
    public int TargetIndex { get; }

    /// <summary>The root's attributes in document order.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Attributes { get; }

    /// <summary><see langword="true"/> when the root says <c>truncated="1"</c> (the server omitted data: XML conversion
    /// is capped at 4 MB).</summary>
    public bool Truncated => string.Equals(GetAttribute("truncated"), "1", StringComparison.Ordinal);

    /// <summary>The histogram's effective slot count (<c>buckets</c>), when present and a valid number.</summary>
    public int? Buckets =>
        int.TryParse(
            GetAttribute("buckets"),
            System.Globalization.NumberStyles.None,
            System.Globalization.CultureInfo.InvariantCulture,
            out int b
        )
            ? b
            : null;

    /// <summary>Returns the value of the attribute with this exact name, or <see langword="null"/>.</summary>
    /// <param name="name">The attribute name (case-sensitive, as XML is).</param>
    public string? GetAttribute(string name) => XmlAttributes.Find(Attributes, name);
}

/// <summary>The end of one target-data root, with totals and warnings about the data.</summary>
internal sealed class TargetEnd : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the root's end tag.</param>
    /// <param name="start">The matching start.</param>
    /// <param name="itemCount">Slots, events, counters or files read from the root.</param>
    /// <param name="warnings">Warnings about the data (possible merged histogram values, truncation).</param>
    public TargetEnd(long lineNumber, TargetStart start, long itemCount, IReadOnlyList<string> warnings)
        : base(lineNumber)
    {
        ArgumentNullException.ThrowIfNull(start);
        Start = start;
        ItemCount = itemCount;
        Warnings = warnings;
    }

    /// <summary>The matching start element.</summary>
    public TargetStart Start { get; }

    /// <summary>The number of slots (histogram), events (ring buffer, pair matching, event lists), counters or files
    /// read.</summary>
    public long ItemCount { get; }

    /// <summary>
    /// <see langword="true"/> for a histogram whose slot count equals <c>buckets</c>: every slot is in use, so hash
    /// collisions may have merged different values into one slot (SQL Server counts them silently, without setting
    /// <c>truncated</c>).
    /// </summary>
    public bool MayHaveMergedValues =>
        Start.Kind == TargetDataKind.Histogram && Start.Buckets is int b && b > 0 && ItemCount >= b;

    /// <summary>Warnings about the data, in English, each naming the target and line.</summary>
    public IReadOnlyList<string> Warnings { get; }
}

/// <summary>A line (or the part of a line) of text found outside any target-data root, such as an annotation between
/// histograms.</summary>
internal sealed class TargetFreeText : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the text.</param>
    /// <param name="text">The text, without its line terminator.</param>
    public TargetFreeText(long lineNumber, string text)
        : base(lineNumber) => Text = text;

    /// <summary>The text, without its line terminator.</summary>
    public string Text { get; }
}

/// <summary>One histogram (bucketizer) slot: a count of events and the value they were grouped by.</summary>
public sealed class HistogramSlot : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the <c>&lt;Slot&gt;</c> start tag.</param>
    /// <param name="targetIndex">0-based index of the histogram among the roots of the input.</param>
    /// <param name="slotIndex">0-based index of the slot within its histogram.</param>
    /// <param name="count">The number of events counted in the slot.</param>
    /// <param name="truncatedBytes">The optional <c>trunc</c> attribute (bytes cut from the value), when
    /// present.</param>
    /// <param name="value">The slot's value, or <see langword="null"/> when the slot has no
    /// <c>&lt;value&gt;</c>.</param>
    internal HistogramSlot(
        long lineNumber,
        int targetIndex,
        int slotIndex,
        ulong count,
        ulong? truncatedBytes,
        TargetValue? value
    )
        : base(lineNumber)
    {
        TargetIndex = targetIndex;
        SlotIndex = slotIndex;
        Count = count;
        TruncatedBytes = truncatedBytes;
        Value = value;
    }

    /// <summary>0-based index of the histogram among the roots of the input.</summary>
    public int TargetIndex { get; }

    /// <summary>0-based index of the slot within its histogram.</summary>
    public int SlotIndex { get; }

    /// <summary>The number of events counted in the slot (events, not pages or bytes).</summary>
    public ulong Count { get; }

    /// <summary>The optional <c>trunc</c> attribute of 2008/2014-era slots, when present.</summary>
    public ulong? TruncatedBytes { get; }

    /// <summary>The slot's value, or <see langword="null"/> when the slot has no <c>&lt;value&gt;</c>
    /// element.</summary>
    public TargetValue? Value { get; }
}

/// <summary>One counter of an event_counter target.</summary>
internal sealed class EventCounterValue : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the <c>&lt;Event&gt;</c> element.</param>
    /// <param name="package">The package name.</param>
    /// <param name="eventName">The event name.</param>
    /// <param name="count">The count.</param>
    public EventCounterValue(long lineNumber, string package, string eventName, ulong count)
        : base(lineNumber)
    {
        Package = package;
        EventName = eventName;
        Count = count;
    }

    /// <summary>The package name (<c>sqlserver</c>, <c>sqlos</c>, …).</summary>
    public string Package { get; }

    /// <summary>The event name.</summary>
    public string EventName { get; }

    /// <summary>The number of times the event fired.</summary>
    public ulong Count { get; }
}

/// <summary>One <c>&lt;File name="…"/&gt;</c> entry of an event_file target.</summary>
internal sealed class EventFileEntry : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the element.</param>
    /// <param name="fileName">The file name as the server wrote it.</param>
    public EventFileEntry(long lineNumber, string fileName)
        : base(lineNumber) => FileName = fileName;

    /// <summary>The file name as the server wrote it (a server-side path; never opened by XeAnalyzer).</summary>
    public string FileName { get; }
}

/// <summary>The <c>&lt;Buffers logged="…" dropped="…"/&gt;</c> counts of an event_file target.</summary>
internal sealed class EventFileBuffers : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the element.</param>
    /// <param name="logged">Buffers written, when present.</param>
    /// <param name="dropped">Buffers dropped, when present.</param>
    public EventFileBuffers(long lineNumber, ulong? logged, ulong? dropped)
        : base(lineNumber)
    {
        Logged = logged;
        Dropped = dropped;
    }

    /// <summary>Buffers written to the file, when present.</summary>
    public ulong? Logged { get; }

    /// <summary>Buffers dropped, when present.</summary>
    public ulong? Dropped { get; }
}

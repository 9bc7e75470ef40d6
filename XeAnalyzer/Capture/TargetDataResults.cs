using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Capture;

/// <summary>What a histogram target's slots hold, as read from their values (the target XML does not name its
/// source).</summary>
public enum HistogramSourceKind
{
    /// <summary>No slot with a value was read.</summary>
    Unknown,

    /// <summary>Callstacks (<c>source = N'package0.callstack'</c>): frames, one per line, or <c>callstack_rva</c> frame
    /// elements.</summary>
    Callstack,

    /// <summary>The value of an event field or action: text, numbers, or map keys (a map-typed source gives its numeric
    /// key only).</summary>
    Value,
}

/// <summary>
/// One histogram (bucketizer) target of a target-data input: its size, what its slots hold and how many there are. The
/// counts are final once the read that found it has ended. Slots themselves go to the analyses
/// (<see cref="ICaptureConsumer.AddHistogramSlot"/>).
/// </summary>
public sealed partial class HistogramTarget
{
    private long _total;

    internal HistogramTarget(CaptureInput input, TargetStart start)
    {
        Input = input;
        TargetIndex = start.TargetIndex;
        LineNumber = start.LineNumber;
        RootName = start.RootName;
        Buckets = start.Buckets;
        Truncated = start.Truncated;
    }

    /// <summary>The input the histogram was read from.</summary>
    public CaptureInput Input { get; }

    /// <summary>0-based index of the target among the roots of its input.</summary>
    public int TargetIndex { get; }

    /// <summary>1-based line of the target's start tag.</summary>
    public long LineNumber { get; }

    /// <summary>The root element as written (<c>HistogramTarget</c>, <c>BucketizerTarget</c>, <c>Slots</c>).</summary>
    public string RootName { get; }

    /// <summary>The effective slot count (<c>buckets</c>), when given.</summary>
    public int? Buckets { get; }

    /// <summary>Whether the target says <c>truncated="1"</c>.</summary>
    public bool Truncated { get; }

    /// <summary>What the slots hold, decided by the first slot with a value (see
    /// <see cref="ClassifyValue"/>).</summary>
    public HistogramSourceKind SourceKind { get; internal set; }

    /// <summary>For a <see cref="HistogramSourceKind.Value"/> histogram: whether every slot value is an integer
    /// (numbers or map keys).</summary>
    public bool ValuesAreIntegers { get; internal set; } = true;

    /// <summary>Slots read.</summary>
    public long SlotCount { get; internal set; }

    /// <summary>Slots with no <c>&lt;value&gt;</c>.</summary>
    public long SlotsWithoutValue { get; internal set; }

    /// <summary>Slots whose value did not look like <see cref="SourceKind"/> (a callstack among values or the
    /// reverse).</summary>
    public long SlotsOfOtherKind { get; internal set; }

    /// <summary>The sum of the slots' counts (events): at most <see cref="long.MaxValue"/> (the read refuses a
    /// histogram whose counts sum past it).</summary>
    public long TotalCount => _total;

    /// <summary>
    /// Whether the number of slots reached <see cref="Buckets"/>: every slot is in use, so hash collisions may have
    /// merged different values into one slot (SQL Server counts them silently, without setting <c>truncated</c>).
    /// </summary>
    public bool SlotsReachedBuckets => Buckets is int b && b > 0 && SlotCount >= b;

    /// <summary>A short name: the input and the target's line.</summary>
    public string Name => Input.Name + ":" + LineNumber.ToString(CultureInfo.InvariantCulture);

    /// <summary>
    /// What a slot value holds: <see cref="HistogramSourceKind.Callstack"/> for <c>&lt;frame&gt;</c> elements, two or
    /// more non-blank lines, or one line shaped like a frame (<c>module+offset</c>, <c>module!function</c>, a qualified
    /// <c>A::B</c> name, a
    /// <c>0x</c> + 16-hex-digit return address, frame markup); <see cref="HistogramSourceKind.Value"/> for any other
    /// text or number;
    /// <see cref="HistogramSourceKind.Unknown"/> for no value or a blank one.
    /// </summary>
    /// <param name="value">The slot's value.</param>
    /// <returns>The kind.</returns>
    internal static HistogramSourceKind ClassifyValue(TargetValue? value)
    {
        if (value is null)
        {
            return HistogramSourceKind.Unknown;
        }

        if (value.Elements.Count > 0)
        {
            return HistogramSourceKind.Callstack;
        }

        ReadOnlySpan<char> text = value.Text.AsSpan().Trim();
        if (text.IsEmpty)
        {
            return HistogramSourceKind.Unknown;
        }

        if (text.IndexOf('\n') >= 0)
        {
            return HistogramSourceKind.Callstack;
        }

        return FrameShaped().IsMatch(text) ? HistogramSourceKind.Callstack : HistogramSourceKind.Value;
    }

    internal void AddSlot(HistogramSlot slot)
    {
        SlotCount++;
        _total = checked(_total + (long)slot.Count);
        HistogramSourceKind kind = ClassifyValue(slot.Value);
        if (kind == HistogramSourceKind.Unknown)
        {
            SlotsWithoutValue++;
            return;
        }

        if (SourceKind == HistogramSourceKind.Unknown)
        {
            SourceKind = kind;
        }
        else if (kind != SourceKind)
        {
            SlotsOfOtherKind++;
        }

        if (kind == HistogramSourceKind.Value && ValuesAreIntegers && !IsInteger(slot.Value!.Text.AsSpan().Trim()))
        {
            ValuesAreIntegers = false;
        }
    }

    internal static bool IsInteger(ReadOnlySpan<char> s) =>
        ulong.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out _)
        || (
            s.Length > 2
            && s[0] == '0'
            && (s[1] | 0x20) == 'x'
            && ulong.TryParse(s[2..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out _)
        )
        || (
            s.Length > 1
            && s[0] == '-'
            && long.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out _)
        );

    [GeneratedRegex(
        @"^(?:0[xX][0-9A-Fa-f]{16}|.*[!].*|[\w.\-]+\s*\+\s*(?:0[xX])?[0-9A-Fa-f]+|.*::.*|.*<frame\b.*|.*&lt;frame\b.*"
            + @"|.*\bModule\(.*)$",
        RegexOptions.CultureInvariant
    )]
    private static partial Regex FrameShaped();
}

/// <summary>One counter of an event_counter target: how many times an event fired.</summary>
/// <param name="Input">The input it was read from.</param>
/// <param name="TargetIndex">0-based index of the target among the roots of its input.</param>
/// <param name="Package">The package name.</param>
/// <param name="EventName">The event name.</param>
/// <param name="Count">The count (at most <see cref="long.MaxValue"/>: the read refuses a larger one).</param>
public sealed record EventCounterValueRead(
    CaptureInput Input,
    int TargetIndex,
    string Package,
    string EventName,
    long Count
)
{
    /// <summary><c>package.event</c>.</summary>
    public string FullName => Package + "." + EventName;
}

/// <summary>One target-data root element read (a histogram, ring buffer, event_counter, pair_matching, event_file
/// target, or event list). Immutable.</summary>
public sealed class TargetSummary
{
    internal TargetSummary(
        CaptureInput input,
        TargetStart start,
        long itemCount,
        IReadOnlyList<string> warnings,
        IReadOnlyList<string> files,
        ulong? buffersLogged,
        ulong? buffersDropped
    )
    {
        Input = input;
        Kind = start.Kind;
        RootName = start.RootName;
        TargetIndex = start.TargetIndex;
        LineNumber = start.LineNumber;
        Truncated = start.Truncated;
        Attributes = start.Attributes;
        ItemCount = itemCount;
        Warnings = warnings;
        EventFiles = files;
        BuffersLogged = buffersLogged;
        BuffersDropped = buffersDropped;
    }

    /// <summary>The input it was read from.</summary>
    public CaptureInput Input { get; }

    /// <summary>The kind of target.</summary>
    public TargetDataKind Kind { get; }

    /// <summary>The root element's name as written.</summary>
    public string RootName { get; }

    /// <summary>0-based index of the root among the roots of its input.</summary>
    public int TargetIndex { get; }

    /// <summary>1-based line of the root's start tag.</summary>
    public long LineNumber { get; }

    /// <summary>Whether the root says <c>truncated="1"</c> (the server left data out).</summary>
    public bool Truncated { get; }

    /// <summary>The root's attributes as written (for example a ring buffer's <c>eventCount</c> and
    /// <c>droppedCount</c>).</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Attributes { get; }

    /// <summary>Slots, events, counters or files read from the root.</summary>
    public long ItemCount { get; }

    /// <summary>Warnings about the root's data.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>For an event_file target: the file names the server reported.</summary>
    public IReadOnlyList<string> EventFiles { get; }

    /// <summary>For an event_file target: buffers written, when given.</summary>
    public ulong? BuffersLogged { get; }

    /// <summary>For an event_file target: buffers dropped, when given.</summary>
    public ulong? BuffersDropped { get; }

    /// <summary>The kind as the server names the target: <c>histogram</c>, <c>ring_buffer</c>, <c>event_counter</c>,
    /// <c>pair_matching</c>, <c>event_file</c>, <c>event list</c>.</summary>
    public string KindName =>
        Kind switch
        {
            TargetDataKind.Histogram => "histogram",
            TargetDataKind.RingBuffer => "ring_buffer",
            TargetDataKind.EventCounter => "event_counter",
            TargetDataKind.PairMatching => "pair_matching",
            TargetDataKind.EventFile => "event_file",
            TargetDataKind.Event => "event_data",
            _ => "event list",
        };

    /// <summary>The value of a root attribute, or <see langword="null"/>.</summary>
    /// <param name="name">The attribute name (case-sensitive).</param>
    /// <returns>The value.</returns>
    public string? GetAttribute(string name)
    {
        foreach (KeyValuePair<string, string> a in Attributes)
        {
            if (string.Equals(a.Key, name, StringComparison.Ordinal))
            {
                return a.Value;
            }
        }

        return null;
    }
}

using System.Collections.Immutable;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Callstacks;

/// <summary>Where a stack came from.</summary>
internal enum StackOrigin
{
    /// <summary>Plain text (frames one per line, a pasted list, free text between targets).</summary>
    PlainText,

    /// <summary>A histogram (bucketizer) slot.</summary>
    HistogramSlot,

    /// <summary>A callstack action or field of an event (ring buffer, event list, bare <c>&lt;event&gt;</c>, pair
    /// matching).</summary>
    Event,

    /// <summary>A SQLDumper / dump text block, started by a <c>BEGIN STACK DUMP</c> or <c>Short Stack Dump</c>
    /// line.</summary>
    SqlDumperBlock,

    /// <summary>A target that held no stacks (an empty histogram): a stack with no lines, so the target and its
    /// annotation are not lost.</summary>
    EmptyTarget,
}

/// <summary>
/// One stack of an input: an optional header (histogram slot, event, dump block) and its lines in input order.
/// Immutable.
/// </summary>
public sealed class Callstack
{
    internal Callstack(
        int index,
        StackHeader? header,
        ImmutableArray<StackLine> lines,
        ImmutableArray<StackFrame> frames,
        bool isContinuation
    )
    {
        Index = index;
        Header = header;
        Lines = lines;
        Frames = frames;
        IsContinuation = isContinuation;
    }

    /// <summary>
    /// Makes a stack from frames that did not come from text (for example decoded from a binary <c>.xel</c> callstack):
    /// one line per frame, whose text is the frame's <see cref="StackFrame.Raw"/> and whose line number is its 1-based
    /// position.
    /// </summary>
    /// <param name="frames">The frames, leaf first.</param>
    /// <param name="index">The stack's position among the stacks of its input.</param>
    /// <returns>The stack, without header.</returns>
    public static Callstack FromFrames(IEnumerable<StackFrame> frames, int index = 0)
    {
        ArgumentNullException.ThrowIfNull(frames);
        StackFrame[] array = [.. frames];
        var lines = new StackLine[array.Length];
        for (int i = 0; i < array.Length; i++)
        {
            ArgumentNullException.ThrowIfNull(array[i], nameof(frames));
            lines[i] = new StackLine(array[i].Raw, i + 1, array, i, 1, null);
        }

        return new Callstack(
            index,
            null,
            System.Runtime.InteropServices.ImmutableCollectionsMarshal.AsImmutableArray(lines),
            System.Runtime.InteropServices.ImmutableCollectionsMarshal.AsImmutableArray(array),
            false
        );
    }

    /// <summary>0-based position of the stack among the stacks of the input.</summary>
    public int Index { get; }

    /// <summary>The header (slot count, event, annotation), or <see langword="null"/> for plain text.</summary>
    internal StackHeader? Header { get; }

    /// <summary>The lines in input order: frames and verbatim text.</summary>
    internal ImmutableArray<StackLine> Lines { get; }

    /// <summary>All frames of all lines, in order (leaf first, as captured).</summary>
    public ImmutableArray<StackFrame> Frames { get; }

    /// <summary>
    /// <see langword="true"/> when this stack continues the previous one: plain text longer than
    /// <see cref="TextInputLimits.MaxLinesPerStack"/> lines is handed out in pieces so memory stays bounded.
    /// </summary>
    public bool IsContinuation { get; }

    /// <summary>The input line of the first line (or of the header when there are no lines), or 0 when
    /// unknown.</summary>
    public long FirstLineNumber => Lines.Length > 0 ? Lines[0].LineNumber : Header?.LineNumber ?? 0;
}

/// <summary>What came with a stack: its histogram slot, event, target annotation or dump-block title.</summary>
internal sealed class StackHeader
{
    internal StackHeader(
        StackOrigin origin,
        long lineNumber,
        StackTargetInfo? target,
        int? slotNumber,
        HistogramSlot? slot,
        TargetEvent? targetEvent,
        EventField? field,
        string? title
    )
    {
        Origin = origin;
        LineNumber = lineNumber;
        Target = target;
        SlotNumber = slotNumber;
        Slot = slot;
        Event = targetEvent;
        Field = field;
        Title = title;
    }

    /// <summary>Where the stack came from.</summary>
    public StackOrigin Origin { get; }

    /// <summary>1-based input line of the slot, event or block title.</summary>
    public long LineNumber { get; }

    /// <summary>The target (histogram, ring buffer, …) the stack belongs to, with the free text before it;
    /// <see langword="null"/> for plain text.</summary>
    public StackTargetInfo? Target { get; }

    /// <summary>
    /// The slot number as resolvers print it (<c>Slot_{n}</c>): 0-based, counting on across all histograms of the
    /// input;
    /// <see langword="null"/> when the stack is not a slot.
    /// </summary>
    public int? SlotNumber { get; }

    /// <summary>The histogram slot (count, <c>trunc</c>, value), or <see langword="null"/>.</summary>
    public HistogramSlot? Slot { get; }

    /// <summary>The slot's event count, or <see langword="null"/> when the stack is not a slot.</summary>
    public ulong? SlotCount => Slot?.Count;

    /// <summary>The event (name, package, timestamp, fields, other attributes such as a <c>key</c>), or
    /// <see langword="null"/>.</summary>
    public TargetEvent? Event { get; }

    /// <summary>The action or field of <see cref="Event"/> that held the stack (<c>callstack</c>, <c>callstack_rva</c>,
    /// <c>tsql_callstack_rva</c>), or <see langword="null"/>.</summary>
    public EventField? Field { get; }

    /// <summary>The line that opened a dump block (<c>BEGIN STACK DUMP</c>), or <see langword="null"/>.</summary>
    public string? Title { get; }
}

/// <summary>The target a stack belongs to, shared by all stacks of that target.</summary>
internal sealed class StackTargetInfo
{
    internal StackTargetInfo(TargetStart start, string? annotation, long annotationLineNumber)
    {
        Start = start;
        Annotation = annotation;
        AnnotationLineNumber = annotationLineNumber;
    }

    /// <summary>The target's start element (kind, root name, <c>truncated</c>, <c>buckets</c>, attributes).</summary>
    public TargetStart Start { get; }

    /// <summary>
    /// Free text found right before the target (lines joined with LF, blank lines at both ends removed), when that text
    /// held no frames; otherwise <see langword="null"/> and the text was handed out as its own plain-text stack.
    /// </summary>
    public string? Annotation { get; }

    /// <summary>The input line of the annotation's first line, or 0 without annotation.</summary>
    public long AnnotationLineNumber { get; }
}

/// <summary>A non-fatal observation about the input (for example a histogram whose slots may hold merged
/// values).</summary>
/// <param name="LineNumber">1-based input line it refers to.</param>
/// <param name="Message">The warning, in English.</param>
internal readonly record struct InputWarning(long LineNumber, string Message);

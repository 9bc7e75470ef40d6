using System.Collections;
using XeAnalyzer.Callstacks.Scanning;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// One line of a stack as it appeared in the input: either one or more frames, or verbatim text (a label, a header
/// line, symbol metadata, a malformed frame). Lines keep the input order and nothing is dropped.
/// </summary>
internal readonly struct StackLine
{
    private readonly StackFrame[]? _frames;
    private readonly int _start;
    private readonly int _count;
    private readonly LineDetails? _details;

    internal StackLine(
        string text,
        long lineNumber,
        StackFrame[]? frames,
        int start,
        int count,
        LineDetails? details,
        int textId = -1
    )
    {
        Text = text;
        LineNumber = lineNumber;
        _frames = frames;
        _start = start;
        _count = count;
        _details = details;
        TextId = textId;
    }

    /// <summary>The line as written, without its line break (a <c>callstack_rva</c> frame split over several lines
    /// keeps its inner line breaks).</summary>
    public string Text { get; }

    /// <summary>1-based line number in the input where this line starts.</summary>
    public long LineNumber { get; }

    /// <summary>The frames parsed from the line, in order; empty for a text line.</summary>
    public FrameList Frames => new(_frames, _start, _count);

    /// <summary><see langword="true"/> when the line holds at least one frame.</summary>
    public bool HasFrames => _count > 0;

    /// <summary>How many frames the line holds (<see cref="Frames"/>.Count).</summary>
    internal int FrameCount => _count;

    /// <summary>
    /// For a line of one frame read from its text alone: the id its text has in the reader's <c>LineInterner</c>, the
    /// same for every such line of the input with that text, whose frame instance they share; otherwise -1. What the
    /// resolve path keys a repeated line by.
    /// </summary>
    internal int TextId { get; }

    /// <summary>The line's frame when it holds exactly one; otherwise <see langword="null"/>.</summary>
    internal StackFrame? SoleFrame => _count == 1 ? _frames![_start] : null;

    /// <summary>Whether <see cref="Unparsed"/> holds any piece.</summary>
    internal bool HasUnparsed => _details?.Unparsed is { Count: > 0 };

    /// <summary>Pieces of a frame line that are not frames (a leading label such as <c>callstack</c>, a malformed
    /// <c>&lt;frame&gt;</c>), with the reason.</summary>
    public IReadOnlyList<UnparsedToken> Unparsed => _details?.Unparsed ?? [];

    /// <summary>For a text line that looked like a frame but could not be parsed (bad GUID, truncated frame, offset
    /// overflow): why; otherwise <see langword="null"/>.</summary>
    public string? Diagnostic => _details?.Diagnostic;

    /// <summary>The typed form of <see cref="Diagnostic"/>: the reason and where in the line it is.</summary>
    internal FrameFailure? Failure => _details?.Failure;

    /// <summary>The module → PDB identity this line supplied when it is a CSV symbol-metadata line; otherwise
    /// <see langword="null"/>.</summary>
    public ModulePdbInfo? SymbolMetadata => _details?.Metadata;

    /// <summary>Returns <see cref="Text"/>.</summary>
    public override string ToString() => Text;
}

/// <summary>A piece of a frame line that is not a frame.</summary>
/// <param name="Text">The piece as written.</param>
/// <param name="Index">Its 0-based position among the pieces of the line (frames included), to restore order.</param>
/// <param name="Reason">Why it is not a frame.</param>
internal readonly record struct UnparsedToken(string Text, int Index, string Reason);

/// <summary>A read-only view of the frames of one <see cref="StackLine"/>.</summary>
internal readonly struct FrameList : IReadOnlyList<StackFrame>
{
    private readonly StackFrame[]? _array;
    private readonly int _start;

    internal FrameList(StackFrame[]? array, int start, int count)
    {
        _array = array;
        _start = start;
        Count = count;
    }

    /// <summary>The number of frames.</summary>
    public int Count { get; }

    /// <summary>The frame at <paramref name="index"/>.</summary>
    /// <param name="index">0-based index.</param>
    public StackFrame this[int index] =>
        unchecked((uint)index < (uint)Count)
            ? _array![_start + index]
            : throw new ArgumentOutOfRangeException(nameof(index));

    /// <summary>Returns a struct enumerator.</summary>
    public Enumerator GetEnumerator() => new(_array, _start, Count);

    IEnumerator<StackFrame> IEnumerable<StackFrame>.GetEnumerator() => GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    /// <summary>Enumerates a <see cref="FrameList"/>.</summary>
    internal struct Enumerator : IEnumerator<StackFrame>
    {
        private readonly StackFrame[]? _array;
        private readonly int _start;
        private readonly int _count;
        private int _i;

        internal Enumerator(StackFrame[]? array, int start, int count)
        {
            _array = array;
            _start = start;
            _count = count;
            _i = -1;
        }

        /// <inheritdoc/>
        public readonly StackFrame Current => _array![_start + _i];

        readonly object IEnumerator.Current => Current;

        /// <inheritdoc/>
        public bool MoveNext() => ++_i < _count;

        /// <inheritdoc/>
        public void Reset() => _i = -1;

        /// <inheritdoc/>
        public readonly void Dispose() { }
    }
}

/// <summary>Rarely used per-line data, kept out of <see cref="StackLine"/> so the common line stays small.</summary>
internal sealed class LineDetails(
    IReadOnlyList<UnparsedToken>? unparsed,
    FrameFailure? failure,
    ModulePdbInfo? metadata
)
{
    public IReadOnlyList<UnparsedToken>? Unparsed { get; } = unparsed;

    public FrameFailure? Failure { get; } = failure;

    public string? Diagnostic { get; } = failure?.Message;

    public ModulePdbInfo? Metadata { get; } = metadata;
}

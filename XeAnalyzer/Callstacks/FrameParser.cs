using System.Diagnostics.CodeAnalysis;
using XeAnalyzer.Callstacks.Scanning;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// Parses single frame tokens or lines outside a <see cref="StackTextReader"/> (for example a callstack string taken
/// from an
/// <c>.xel</c> field). It caches module names and remembers <c>callstack_rva</c> bases, so use one instance per input;
/// not thread-safe.
/// </summary>
internal sealed class FrameParser
{
    private readonly FrameLineScanner _scanner;

    /// <summary>Creates a parser.</summary>
    /// <param name="options">Options (<see cref="StackTextReaderOptions.SymbolizedOffsetRadix"/>,
    /// <see cref="StackTextReaderOptions.FramesOnSingleLine"/>, limits), or <see langword="null"/> for the
    /// defaults.</param>
    public FrameParser(StackTextReaderOptions? options = null)
    {
        options ??= StackTextReaderOptions.Default;
        _scanner = new FrameLineScanner(
            options.SymbolizedOffsetRadix,
            options.FramesOnSingleLine,
            options.Limits.MaxFramesPerLine
        );
    }

    /// <summary>Parses one frame token (<c>sqldk.dll+0x40609</c>, <c>0x00007FFEABD0D919</c>, <c>sqlmin!Foo+0x1a9</c>,
    /// <c>ntdll!Ordinal298+4A5</c>).</summary>
    /// <param name="token">The token (surrounding blanks ignored; no leading frame number).</param>
    /// <param name="frame">The frame, when the token is one.</param>
    /// <returns><see langword="true"/> when the token is a frame.</returns>
    public bool TryParseFrame(string token, [NotNullWhen(true)] out StackFrame? frame)
    {
        ArgumentNullException.ThrowIfNull(token);
        frame = _scanner.ScanToken(token).Frame;
        return frame is not null;
    }

    /// <summary>Parses one line: frames (with a leading frame number, several per line, <c>callstack_rva</c> elements,
    /// SQLDumper <c>Module(…)</c>) or nothing.</summary>
    /// <param name="line">The line.</param>
    /// <returns>The frames, in order; empty when the line is not a frame line.</returns>
    public IReadOnlyList<StackFrame> ParseLine(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        var frames = new List<StackFrame>(1);
        _scanner.ScanLine(line, frames);
        return frames;
    }
}

using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks.Scanning;
using XeAnalyzer.IO;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// Parses the text of one stack value as a capture holds it (frames one per line in any shape SQL Server writes,
/// <c>callstack_rva</c> frame markup, SQLDumper and WinDbg lines): the one parse used by stack bucketing and <c>export
/// --resolve</c> for stacks that are text (target-data XML, text callstack columns). Not thread-safe: one parser per
/// caller, reused across stacks.
/// </summary>
internal sealed class StackTextParser
{
    private readonly StackBuilder _builder = new(
        new FrameLineScanner(OffsetRadix.Hex, framesOnSingleLine: false, TextInputLimits.Default.MaxFramesPerLine),
        new SymbolMetadataTable(),
        null,
        OffsetRadix.Hex
    );

    /// <summary>Parses a stack, keeping at most <paramref name="maxFrames"/> frames (the outermost are
    /// dropped).</summary>
    /// <param name="text">The stack's text.</param>
    /// <param name="maxFrames">The most frames kept.</param>
    /// <param name="cut">Whether frames were dropped.</param>
    /// <param name="firstLine">
    /// The input file's line where the text starts (a target-data value's
    /// <see cref="TargetData.TargetValue.LineNumber"/>, as <c>resolve</c> numbers it), or 0 when the text has no
    /// place in a text file (a <c>.xel</c> field): its lines are then 0, which messages leave out, never positions
    /// inside the value that would read as file lines.
    /// </param>
    /// <returns>The stack.</returns>
    public Callstack Parse(string text, int maxFrames, out bool cut, long firstLine = 0)
    {
        _builder.AddTextBlock(text, firstLine);
        Callstack stack = _builder.Build(0, null, false);
        cut = stack.Frames.Length > maxFrames;
        return cut ? Cut(stack, maxFrames) : stack;
    }

    /// <summary>The first <paramref name="maxFrames"/> frames of a stack, each keeping its line.</summary>
    private static Callstack Cut(Callstack stack, int maxFrames)
    {
        StackFrame[] frames = [.. stack.Frames.Take(maxFrames)];
        var lines = new StackLine[frames.Length];
        int i = 0;
        foreach (StackLine line in stack.Lines)
        {
            for (int k = 0; k < line.Frames.Count && i < frames.Length; k++, i++)
            {
                lines[i] = new StackLine(frames[i].Raw, line.LineNumber, frames, i, 1, null);
            }
        }

        return new Callstack(
            0,
            null,
            ImmutableCollectionsMarshal.AsImmutableArray(lines),
            ImmutableCollectionsMarshal.AsImmutableArray(frames),
            false
        );
    }
}

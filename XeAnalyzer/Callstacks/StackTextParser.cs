using XeAnalyzer.Callstacks.Scanning;
using XeAnalyzer.IO;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// Parses the text of one stack value as a capture holds it (frames one per line in any shape SQL Server writes, <c>callstack_rva</c>
/// frame markup, SQLDumper and WinDbg lines): the one parse used by stack bucketing and <c>export --resolve</c> for stacks that are
/// text (target-data XML, text callstack columns). Not thread-safe: one parser per caller, reused across stacks.
/// </summary>
internal sealed class StackTextParser
{
    private readonly StackBuilder _builder = new(
        new FrameLineScanner(OffsetRadix.Hex, framesOnSingleLine: false, TextInputLimits.Default.MaxFramesPerLine), new SymbolMetadataTable(), null, OffsetRadix.Hex);

    /// <summary>Parses a stack, keeping at most <paramref name="maxFrames"/> frames (the outermost are dropped).</summary>
    /// <param name="text">The stack's text.</param>
    /// <param name="maxFrames">The most frames kept.</param>
    /// <param name="cut">Whether frames were dropped.</param>
    /// <returns>The stack.</returns>
    public Callstack Parse(string text, int maxFrames, out bool cut)
    {
        _builder.AddTextBlock(text, 1);
        Callstack stack = _builder.Build(0, null, false);
        cut = stack.Frames.Length > maxFrames;
        return cut ? Callstack.FromFrames(stack.Frames.Take(maxFrames)) : stack;
    }
}

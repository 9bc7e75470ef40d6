namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The SQLDumper / dump text grammar (XE-TEXT-SHAPES §9.3): every <c>Module(mod+hex)</c> of a line is a frame
/// (<c>Return Addr: 00007FF830D4CDA4 Module(KERNELBASE+000000000009CDA4)</c>); the rest of the line is ignored.
/// </summary>
internal sealed class SqlDumperScanner(ModuleNameCache modules, int maxFramesPerLine)
{
    private const string Open = "Module(";

    /// <summary>True when the line may be a SQLDumper frame line.</summary>
    public static bool Applies(ReadOnlySpan<char> trimmedLine) => trimmedLine.Contains(Open, StringComparison.Ordinal);

    /// <summary>
    /// Scans <c>Module(…)</c> frames between <paramref name="lead"/> and <paramref name="end"/>. No frame and no
    /// diagnostic means the line is not this grammar's.
    /// </summary>
    public LineScan ScanLine(string line, int lead, int end, List<StackFrame> output)
    {
        int frames = 0;
        FrameFailure? failure = null;
        int i = lead;
        while (i < end)
        {
            int k = line.AsSpan(i, end - i).IndexOf(Open, StringComparison.Ordinal);
            if (k < 0)
            {
                break;
            }

            int open = i + k + Open.Length;
            int close = line.AsSpan(open, end - open).IndexOf(')');
            if (close < 0)
            {
                failure ??= new FrameFailure(FrameFailureReason.DumperTruncated, i + k);
                break;
            }

            close += open;
            ReadOnlySpan<char> inner = line.AsSpan(open, close - open);
            int plus = inner.LastIndexOf('+');
            bool overflow = false;
            ulong offset = 0;
            if (
                plus > 0
                && ScanText.IsModuleName(inner[..plus].Trim())
                && ScanText.TryParseHexNumber(inner[(plus + 1)..].Trim(), out offset, out overflow)
                && frames < maxFramesPerLine
            )
            {
                string raw = line.Substring(i + k, close + 1 - (i + k));
                output.Add(
                    new ModuleOffsetFrame(modules.Get(inner[..plus].Trim()), offset, raw, FrameProvenance.SqlDumper)
                );
                frames++;
            }
            else
            {
                failure ??= new FrameFailure(
                    overflow ? FrameFailureReason.DumperOffsetOverflow : FrameFailureReason.DumperNotModuleOffset,
                    i + k
                );
            }

            i = close + 1;
        }

        return new LineScan(frames, null, frames == 0 ? failure : null);
    }
}

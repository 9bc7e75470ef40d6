using System.Buffers;
using System.Globalization;

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// Turns one logical line into frames by picking the grammar that fits it: a single compact <c>module+hex</c> token
/// (<see cref="ModuleOffsetScanner"/>, the fast path) or any other single token (<see cref="GeneralFrameScanner"/>);
/// <c>callstack_rva</c> elements (<see cref="RvaFrameScanner"/>); SQLDumper <c>Module(…)</c> frames
/// (<see cref="SqlDumperScanner"/>); otherwise pieces split at blanks (<see cref="FramePieceSplitter"/>), with an
/// optional leading frame number, read as a WinDbg <c>k</c> line (<see cref="WinDbgLineScanner"/>) or as
/// general-grammar tokens. Span-based, no regular expressions. Not thread-safe: it caches module names and remembers
/// <c>callstack_rva</c> module bases for abbreviated frames, so use one per input.
/// </summary>
internal sealed class FrameLineScanner
{
    // Lines without any of these characters are a single token: the fast path.
    private static readonly SearchValues<char> s_slowChars = SearchValues.Create(" \t<&(");

    private readonly bool _lenient;
    private readonly int _maxFrames;
    private readonly ModuleOffsetScanner _moduleOffsets;
    private readonly GeneralFrameScanner _general;
    private readonly RvaFrameScanner _rva;
    private readonly SqlDumperScanner _dumper;
    private readonly WinDbgLineScanner _winDbg;
    private readonly FramePieceSplitter _splitter = new();

    /// <summary>Creates the scanners of one input.</summary>
    /// <param name="symbolizedRadix">The radix of symbolized displacements written without <c>0x</c>.</param>
    /// <param name="framesOnSingleLine">Keep the frames of a line whose other pieces are not frames (see
    /// <see cref="StackTextReaderOptions.FramesOnSingleLine"/>).</param>
    /// <param name="maxFramesPerLine">The most frames taken from one line.</param>
    public FrameLineScanner(OffsetRadix symbolizedRadix, bool framesOnSingleLine, int maxFramesPerLine)
    {
        _lenient = framesOnSingleLine;
        _maxFrames = maxFramesPerLine;
        var modules = new ModuleNameCache();
        _moduleOffsets = new ModuleOffsetScanner(modules);
        _general = new GeneralFrameScanner(symbolizedRadix, modules, _moduleOffsets);
        _rva = new RvaFrameScanner(modules, maxFramesPerLine);
        _dumper = new SqlDumperScanner(modules, maxFramesPerLine);
        _winDbg = new WinDbgLineScanner(_general);
    }

    /// <summary>The <c>callstack_rva</c> scanner of this input (for raw XML child elements).</summary>
    public RvaFrameScanner Rva => _rva;

    /// <summary>Scans one logical line, appending its frames to <paramref name="output"/>.</summary>
    public LineScan ScanLine(string line, List<StackFrame> output)
    {
        ReadOnlySpan<char> all = line.AsSpan();
        int lead = 0;
        while (lead < all.Length && ScanText.IsSpace(all[lead]))
        {
            lead++;
        }

        int end = all.Length;
        while (end > lead && ScanText.IsSpace(all[end - 1]))
        {
            end--;
        }

        if (end == lead)
        {
            return default;
        }

        ReadOnlySpan<char> s = all[lead..end];
        if (s.IndexOfAny(s_slowChars) < 0)
        {
            TokenScan token = _moduleOffsets.TryScanCompact(line, lead, end - lead) is { } compact
                ? compact
                : _general.Scan(line, lead, end - lead, null, null);
            if (token.Frame is not null)
            {
                output.Add(token.Frame);
                return new LineScan(1, null, null) { TextOnly = true };
            }

            return new LineScan(0, null, token.Failure.IsMalformedFrame ? token.Failure : null);
        }

        if (RvaFrameScanner.HasRvaFrame(line))
        {
            return _rva.ScanLine(line, output);
        }

        if (SqlDumperScanner.Applies(s))
        {
            LineScan dumper = _dumper.ScanLine(line, lead, end, output);
            if (dumper.FrameCount > 0 || dumper.Diagnostic is not null)
            {
                return dumper;
            }
        }

        return ScanPieces(line, lead, end, output);
    }

    /// <summary>Scans one token (surrounding blanks ignored, no frame number).</summary>
    public TokenScan ScanToken(string token)
    {
        ReadOnlySpan<char> t = token.AsSpan();
        int lead = t.Length - t.TrimStart().Length;
        int len = t.Trim().Length;
        return len == 0 ? new FrameFailure(FrameFailureReason.Empty, 0) : _general.Scan(token, lead, len, null, null);
    }

    private LineScan ScanPieces(string line, int lead, int end, List<StackFrame> output)
    {
        List<Range> pieces = _splitter.Split(line, lead, end);
        if (pieces.Count == 0)
        {
            return default;
        }

        int first = 0;
        int? number = null;
        if (pieces.Count >= 2 && IsFrameNumber(line.AsSpan()[pieces[0]], out int n))
        {
            number = n;
            first = 1;
        }

        if (_winDbg.TryScan(line, pieces, first, number) is { Frame: { } callSite })
        {
            output.Add(callSite);
            return new LineScan(1, null, null);
        }

        int before = output.Count;
        List<UnparsedToken>? unparsed = null;
        FrameFailure? firstFailure = null;
        int failures = 0;
        int failedIndex = -1;
        for (int p = first; p < pieces.Count; p++)
        {
            (int off, int len) = pieces[p].GetOffsetAndLength(line.Length);
            TokenScan scan =
                output.Count - before < _maxFrames
                    ? _general.Scan(line, off, len, p == first ? number : null, null)
                    : new FrameFailure(FrameFailureReason.TooManyFrames, off);
            if (scan.Frame is not null)
            {
                output.Add(scan.Frame);
                continue;
            }

            failures++;
            if (failedIndex < 0)
            {
                failedIndex = p;
            }

            firstFailure ??= scan.Failure;
            (unparsed ??= []).Add(new UnparsedToken(line.Substring(off, len), p, scan.Failure.Message));
        }

        int frames = output.Count - before;
        if (failures == 0 && frames > 0)
        {
            return new LineScan(frames, null, null);
        }

        // One leading label before a TAB ("callstack\t 0x… 0x…") does not make a frame line text.
        bool labelled =
            failures == 1 && failedIndex == first && frames > 0 && first == 0 && FollowedByTab(line, pieces[0]);
        if (frames > 0 && (labelled || _lenient))
        {
            return new LineScan(frames, unparsed, null);
        }

        // Not a frame line: undo. Its first failed piece is the diagnostic when it was a malformed frame.
        output.RemoveRange(before, frames);
        return new LineScan(0, null, frames == 0 && firstFailure is { IsMalformedFrame: true } f ? f : null);
    }

    private static bool FollowedByTab(string line, Range piece)
    {
        int i = piece.End.Value;
        while (i < line.Length && ScanText.IsSpace(line[i]))
        {
            if (line[i] == '\t')
            {
                return true;
            }

            i++;
        }

        return false;
    }

    private static bool IsFrameNumber(ReadOnlySpan<char> t, out int n)
    {
        n = 0;
        return t.Length is >= 2 and <= 4
            && ScanText.IsAllHex(t)
            && int.TryParse(t, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out n);
    }
}

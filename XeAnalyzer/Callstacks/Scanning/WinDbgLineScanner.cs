namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The WinDbg <c>k</c> line grammar: <c>[nn] &lt;child-sp&gt; &lt;retaddr&gt; [: args :] &lt;call site&gt;</c>,
/// addresses as 8 or 16 hex digits or <c>00000000`0014f4b8</c>. The call site is a frame of the general grammar whose
/// displacement is always hex.
/// </summary>
internal sealed class WinDbgLineScanner(GeneralFrameScanner general)
{
    /// <summary>
    /// Scans the call site of a <c>k</c> line split into <paramref name="pieces"/> (the frame number, if any, before
    /// <paramref name="first"/>); <see langword="null"/> when the pieces are not a <c>k</c> line.
    /// </summary>
    public TokenScan? TryScan(string line, List<Range> pieces, int first, int? number)
    {
        ReadOnlySpan<char> s = line.AsSpan();
        if (pieces.Count - first < 3 || !IsAddress(s[pieces[first]]) || !IsAddress(s[pieces[first + 1]]))
        {
            return null;
        }

        int site = first + 2;
        if (s[pieces[site]].SequenceEqual(":"))
        {
            site++;
            while (site < pieces.Count && !s[pieces[site]].SequenceEqual(":"))
            {
                site++;
            }

            site++;
        }

        if (site >= pieces.Count)
        {
            return null;
        }

        int start = pieces[site].Start.Value;
        int stop = pieces[^1].End.Value;
        return general.Scan(line, start, stop - start, number, FrameProvenance.WinDbg);
    }

    private static bool IsAddress(ReadOnlySpan<char> t)
    {
        if (t.Length == 17 && t[8] == '`')
        {
            return ScanText.IsAllHex(t[..8]) && ScanText.IsAllHex(t[9..]);
        }

        return t.Length is 8 or 16 && ScanText.IsAllHex(t);
    }
}

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// Splits a line of the general grammar into pieces: at blanks outside template brackets, parentheses and backtick
/// quotes (TAB always splits); drops the 2008 R2 trace-flag 3656 junk <c>[ @ 0+0x0</c>; re-joins <c>mod + off</c> and
/// <c>operator new</c>. The pieces are reused from line to line. Not thread-safe.
/// </summary>
internal sealed class FramePieceSplitter
{
    private readonly List<Range> _pieces = [];
    private readonly List<Range> _merged = [];

    /// <summary>Splits <paramref name="line"/> between <paramref name="lead"/> and <paramref name="end"/>; the list is
    /// valid until the next call.</summary>
    public List<Range> Split(string line, int lead, int end)
    {
        _pieces.Clear();
        _merged.Clear();
        ReadOnlySpan<char> s = line.AsSpan();
        int angle = 0,
            paren = 0;
        bool quote = false;
        int start = -1;
        for (int i = lead; i < end; i++)
        {
            char c = s[i];
            if (ScanText.IsSpace(c))
            {
                if (start >= 0 && (c == '\t' || (angle == 0 && paren == 0 && !quote)))
                {
                    _pieces.Add(new Range(start, i));
                    start = -1;
                    angle = paren = 0;
                    quote = false;
                }

                continue;
            }

            if (start < 0)
            {
                start = i;
            }

            if (c == '`' && (i == start || s[i - 1] is ':' or '<' or ',' or ' '))
            {
                quote = true;
            }
            else if (c == '\'' && quote)
            {
                quote = false;
            }
            else if (!quote)
            {
                if (c == '<')
                {
                    if (!GeneralFrameScanner.IsOperatorSymbol(s[start..], i - start))
                    {
                        angle++;
                    }
                }
                else if (c == '>')
                {
                    if (angle > 0 && !GeneralFrameScanner.IsOperatorSymbol(s[start..], i - start))
                    {
                        angle--;
                    }
                }
                else if (c == '(')
                {
                    paren++;
                }
                else if (c == ')' && paren > 0)
                {
                    paren--;
                }
            }
        }

        if (start >= 0)
        {
            _pieces.Add(new Range(start, end));
        }

        for (int p = 0; p < _pieces.Count; p++)
        {
            ReadOnlySpan<char> t = s[_pieces[p]];

            // 2008 R2 TF 3656 junk: "[ @ 0+0x0"
            if (
                t.SequenceEqual("[")
                && p + 2 < _pieces.Count
                && s[_pieces[p + 1]].SequenceEqual("@")
                && IsJunkAddress(s[_pieces[p + 2]])
            )
            {
                p += 2;
                continue;
            }

            if (_merged.Count > 0)
            {
                Range prev = _merged[^1];
                ReadOnlySpan<char> pt = s[prev];
                if (t[0] == '+' || pt[^1] == '+' || EndsWithOperatorKeyword(pt))
                {
                    _merged[^1] = new Range(prev.Start, _pieces[p].End);
                    continue;
                }
            }

            _merged.Add(_pieces[p]);
        }

        return _merged;
    }

    private static bool EndsWithOperatorKeyword(ReadOnlySpan<char> t) =>
        t.EndsWith("operator", StringComparison.Ordinal) && (t.Length == 8 || t[^9] == ':');

    private static bool IsJunkAddress(ReadOnlySpan<char> t)
    {
        int plus = t.IndexOf('+');
        return plus > 0
            && ScanText.IsAllHex(t[..plus])
            && t[(plus + 1)..].StartsWith("0x", StringComparison.OrdinalIgnoreCase)
            && ScanText.IsAllHex(t[(plus + 3)..]);
    }
}

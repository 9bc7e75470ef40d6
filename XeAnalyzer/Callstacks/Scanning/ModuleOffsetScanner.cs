namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The module+offset grammar (XE-TEXT-SHAPES §3, §4): <c>sqldk.dll+0x00000000000FD919</c>, <c>Wdf01000+17f27</c>,
/// <c>sqldk +0x40609</c>. The offset is always hex, with or without <c>0x</c>.
/// </summary>
internal sealed class ModuleOffsetScanner(ModuleNameCache modules)
{
    /// <summary>
    /// The common compact shape <c>module+hex</c> (no blanks, no '!') in one pass, for lines that are a single token;
    /// <see langword="null"/> when the token is anything else (the general grammar then decides).
    /// </summary>
    public ModuleOffsetFrame? TryScanCompact(string line, int off, int len)
    {
        ReadOnlySpan<char> t = line.AsSpan(off, len);
        int plus = t.LastIndexOf('+');
        if (plus <= 0 || plus == t.Length - 1)
        {
            return null;
        }

        ReadOnlySpan<char> mod = t[..plus];
        if (mod[0] == '.' || mod[^1] == '.' || (mod.Length > 1 && mod[0] == '0' && (mod[1] | 0x20) == 'x'))
        {
            return null;
        }

        foreach (char c in mod)
        {
            if (!ScanText.IsModuleNameChar(c))
            {
                return null;
            }
        }

        ReadOnlySpan<char> d = t[(plus + 1)..];
        if (d.Length > 2 && d[0] == '0' && (d[1] | 0x20) == 'x')
        {
            d = d[2..];
        }

        int i = 0;
        while (i < d.Length - 1 && d[i] == '0')
        {
            i++;
        }

        if (d.Length - i > 16)
        {
            return null;
        }

        ulong v = 0;
        for (; i < d.Length; i++)
        {
            int c = d[i];
            int digit = c - '0';
            if (unchecked((uint)digit) > 9)
            {
                digit = (c | 0x20) - 'a';
                if (unchecked((uint)digit) > 5)
                {
                    return null;
                }

                digit += 10;
            }

            v = unchecked((v << 4) | (uint)digit);
        }

        return new ModuleOffsetFrame(modules.Get(mod), v, ScanText.Raw(line, off, len));
    }

    /// <summary>
    /// Scans a token already split at its displacement (<paramref name="split"/>): the grammar claims it (returns
    /// <see langword="true"/>, with a frame or an <see cref="FrameFailureReason.OffsetOverflow"/>) when a module file
    /// name precedes the '+'; otherwise it is not this grammar's.
    /// </summary>
    public bool TryScan(
        string line,
        int off,
        int len,
        NameAndDisplacement split,
        int? number,
        FrameProvenance? provenance,
        out TokenScan result
    )
    {
        if (split.Digits.IsEmpty || !ScanText.IsModuleName(split.Name))
        {
            result = default;
            return false;
        }

        if (ScanText.TryParseHexDigits(split.Digits, out ulong offset, out bool overflow))
        {
            result = new ModuleOffsetFrame(
                modules.Get(split.Name),
                offset,
                ScanText.Raw(line, off, len),
                provenance ?? FrameProvenance.ModuleOffsetText,
                number
            );
        }
        else
        {
            result = new FrameFailure(overflow ? FrameFailureReason.OffsetOverflow : FrameFailureReason.NotAFrame, off);
        }

        return true;
    }
}

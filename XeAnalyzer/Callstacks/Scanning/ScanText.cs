using System.Buffers;
using System.Runtime.CompilerServices;

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>Character classes and number parsing shared by the frame scanners.</summary>
internal static class ScanText
{
    private static readonly SearchValues<char> s_hexChars = SearchValues.Create("0123456789abcdefABCDEF");

    /// <summary>A blank between pieces of a line: space, TAB, VT, FF or no-break space.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsSpace(char c) => c <= ' ' ? c is ' ' or '\t' or '\v' or '\f' : c == '\u00A0';

    public static bool IsAllHex(ReadOnlySpan<char> s) => !s.IsEmpty && !s.ContainsAnyExcept(s_hexChars);

    public static bool IsAllDecimal(ReadOnlySpan<char> s) => !s.IsEmpty && !s.ContainsAnyExceptInRange('0', '9');

    /// <summary>True when the text starts with <c>0x</c> or <c>0X</c> and has at least one more character.</summary>
    public static bool HasHexPrefix(ReadOnlySpan<char> t) => t.Length > 2 && t[0] == '0' && (t[1] | 0x20) == 'x';

    /// <summary>Parses hex digits (no prefix); <paramref name="overflow"/> when they are hex but more than 16
    /// significant digits.</summary>
    public static bool TryParseHexDigits(ReadOnlySpan<char> digits, out ulong value, out bool overflow)
    {
        value = 0;
        overflow = false;
        if (digits.IsEmpty || !IsAllHex(digits))
        {
            return false;
        }

        int i = 0;
        while (i < digits.Length - 1 && digits[i] == '0')
        {
            i++;
        }

        if (digits.Length - i > 16)
        {
            overflow = true;
            return false;
        }

        ulong v = 0;
        for (; i < digits.Length; i++)
        {
            char c = digits[i];
            int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
            v = unchecked((v << 4) | (uint)d);
        }

        value = v;
        return true;
    }

    /// <summary>Parses hex digits with an optional <c>0x</c> prefix.</summary>
    public static bool TryParseHexNumber(ReadOnlySpan<char> t, out ulong value, out bool overflow) =>
        TryParseHexDigits(HasHexPrefix(t) ? t[2..] : t, out value, out overflow);

    /// <summary>
    /// A module file name as frames write it: ASCII letters, digits, <c>_ . - $</c>, not starting or ending with '.',
    /// at most 255 characters.
    /// </summary>
    public static bool IsModuleName(ReadOnlySpan<char> s)
    {
        if (s.IsEmpty || s.Length > 255 || s[0] == '.' || s[^1] == '.')
        {
            return false;
        }

        foreach (char c in s)
        {
            if (!IsModuleNameChar(c))
            {
                return false;
            }
        }

        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsModuleNameChar(char c) => char.IsAsciiLetterOrDigit(c) || c is '_' or '.' or '-' or '$';

    /// <summary>Returns the part of the line a frame came from (the line itself when the frame is the whole
    /// line).</summary>
    public static string Raw(string line, int off, int len) =>
        off == 0 && len == line.Length ? line : line.Substring(off, len);
}

/// <summary>A token split at its last '+' when a hex or decimal number (optionally <c>0x</c>) follows:
/// <c>name+off</c>.</summary>
internal readonly ref struct NameAndDisplacement
{
    private NameAndDisplacement(ReadOnlySpan<char> name, ReadOnlySpan<char> digits, bool hasHexPrefix)
    {
        Name = name;
        Digits = digits;
        HasHexPrefix = hasHexPrefix;
    }

    /// <summary>The text before the '+' (trimmed at its end), or the whole token when no number follows a
    /// '+'.</summary>
    public ReadOnlySpan<char> Name { get; }

    /// <summary>The digits after the '+' and the optional <c>0x</c>; empty when there are none.</summary>
    public ReadOnlySpan<char> Digits { get; }

    /// <summary>True when the digits were written with <c>0x</c>.</summary>
    public bool HasHexPrefix { get; }

    public static NameAndDisplacement Split(ReadOnlySpan<char> t)
    {
        int plus = t.LastIndexOf('+');
        if (plus > 0)
        {
            ReadOnlySpan<char> after = t[(plus + 1)..].Trim();
            bool x = ScanText.HasHexPrefix(after);
            ReadOnlySpan<char> d = x ? after[2..] : after;
            if (!d.IsEmpty && ScanText.IsAllHex(d))
            {
                return new NameAndDisplacement(t[..plus].TrimEnd(), d, x);
            }
        }

        return new NameAndDisplacement(t, default, false);
    }
}

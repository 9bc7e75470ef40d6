using System.Text;

namespace XeAnalyzer.Output;

/// <summary>
/// Makes untrusted text (frame names, field values from captures) safe for each output format. Every writer passes
/// every string it did not write itself through one of these.
/// </summary>
internal static class TextEscaping
{
    /// <summary>The character that replaces anything a format cannot carry.</summary>
    public const char Replacement = '\uFFFD';

    /// <summary>
    /// Replaces lone surrogates and characters XML 1.0 forbids (C0 controls other than tab, LF and CR; U+FFFE; U+FFFF)
    /// with U+FFFD, so the text encodes to valid UTF-8 and is legal in XML, HTML and JSON.
    /// </summary>
    public static string Sanitize(string text)
    {
        int i = 0;
        while (i < text.Length && IsSafe(text, i, out int len))
        {
            i += len;
        }

        if (i == text.Length)
        {
            return text;
        }

        var sb = new StringBuilder(text.Length);
        sb.Append(text, 0, i);
        while (i < text.Length)
        {
            if (IsSafe(text, i, out int len))
            {
                sb.Append(text, i, len);
                i += len;
            }
            else
            {
                sb.Append(Replacement);
                i++;
            }
        }

        return sb.ToString();
    }

    /// <summary>Escapes text for XML/HTML content and attribute values: sanitised, with &amp; &lt; &gt; &quot; &#39;
    /// escaped.</summary>
    public static string Xml(string text)
    {
        string s = Sanitize(text);
        if (s.AsSpan().IndexOfAny("&<>\"'") < 0)
        {
            return s;
        }

        var sb = new StringBuilder(s.Length + 16);
        foreach (char c in s)
        {
            _ = c switch
            {
                '&' => sb.Append("&amp;"),
                '<' => sb.Append("&lt;"),
                '>' => sb.Append("&gt;"),
                '"' => sb.Append("&quot;"),
                '\'' => sb.Append("&#39;"),
                _ => sb.Append(c),
            };
        }

        return sb.ToString();
    }

    /// <summary>
    /// Makes text safe to print on one line of a terminal: tab, CR and LF become spaces; every other control character
    /// (C0, DEL, C1 — which could carry escape sequences), the bidirectional override and isolate characters, and lone
    /// surrogates become U+FFFD.
    /// </summary>
    public static string Terminal(string text)
    {
        string s = Sanitize(text);
        int first = 0;
        while (first < s.Length && !IsTerminalUnsafe(s[first]))
        {
            first++;
        }

        // Most text (every frame of a flame graph is passed here) needs no change: no copy then.
        if (first == s.Length)
        {
            return s;
        }

        var sb = new StringBuilder(s.Length);
        sb.Append(s, 0, first);
        for (int i = first; i < s.Length; i++)
        {
            char c = s[i];
            if (c is '\t' or '\r' or '\n')
            {
                sb.Append(' ');
            }
            else if (IsTerminalUnsafe(c))
            {
                sb.Append(Replacement);
            }
            else
            {
                sb.Append(c);
            }
        }

        return sb.ToString();
    }

    /// <summary>Whether <see cref="Terminal"/> replaces <paramref name="c"/>: a control character, or a bidirectional
    /// override or isolate.</summary>
    private static bool IsTerminalUnsafe(char c) =>
        char.IsControl(c) || c is (>= '\u202A' and <= '\u202E') or (>= '\u2066' and <= '\u2069');

    /// <summary>Like <see cref="Terminal"/> but keeps line breaks (as <c>\n</c>) for preformatted blocks.</summary>
    public static string TerminalMultiline(string text)
    {
        string[] lines = text.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        return string.Join('\n', lines.Select(Terminal));
    }

    /// <summary>Shortens text to at most <paramref name="max"/> characters, ending with an ellipsis when cut.</summary>
    public static string Ellipsize(string text, int max)
    {
        if (max <= 0)
        {
            return string.Empty;
        }

        if (text.Length <= max)
        {
            return text;
        }

        int cut = max - 1;
        if (cut > 0 && char.IsHighSurrogate(text[cut - 1]))
        {
            cut--;
        }

        return string.Concat(text.AsSpan(0, cut), "\u2026");
    }

    private static bool IsSafe(string s, int i, out int length)
    {
        char c = s[i];
        length = 1;
        if (char.IsHighSurrogate(c))
        {
            if (i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
            {
                length = 2;
                return true;
            }

            return false;
        }

        if (char.IsLowSurrogate(c))
        {
            return false;
        }

        if (c < '\u0020')
        {
            return c is '\t' or '\n' or '\r';
        }

        return c is not ('\uFFFE' or '\uFFFF');
    }
}

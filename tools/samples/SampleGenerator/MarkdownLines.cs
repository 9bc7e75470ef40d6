using System.Text;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Keeps the generated README within the repository's 120-character line limit (tools/format/check-line-length.py):
/// the figures filled into the template, and the tables built from them, make lines the template cannot foresee.
/// Fenced code blocks and headings are left as they are.
/// </summary>
internal static class MarkdownLines
{
    public const int Limit = 120;

    /// <summary>
    /// A table with a line over the limit becomes a list, one item per row (<c>- first cell — header: cell; …</c>); a
    /// longer line of prose is broken at a space outside code spans, the rest joining the next line when that continues
    /// the paragraph, which Markdown renders the same.
    /// </summary>
    public static string Fit(string markdown)
    {
        List<string> lines = [.. markdown.Split('\n')];
        var output = new List<string>(lines.Count);
        bool inFence = false;
        for (int i = 0; i < lines.Count; i++)
        {
            string line = lines[i];
            if (line.StartsWith("```", StringComparison.Ordinal))
            {
                inFence = !inFence;
                output.Add(line);
            }
            else if (inFence || line.StartsWith('#'))
            {
                output.Add(line);
            }
            else if (
                line.StartsWith('|')
                && i + 1 < lines.Count
                && lines[i + 1].StartsWith("|---", StringComparison.Ordinal)
            )
            {
                int end = i;
                while (end < lines.Count && lines[end].StartsWith('|'))
                {
                    end++;
                }

                List<string> table = lines.GetRange(i, end - i);
                if (table.Any(l => l.Length > Limit))
                {
                    // The items take the table's place and are wrapped as prose.
                    lines.RemoveRange(i, table.Count);
                    lines.InsertRange(i, TableAsList(table));
                    i--;
                }
                else
                {
                    output.AddRange(table);
                    i = end - 1;
                }
            }
            else
            {
                int indent = ContinuationIndent(line);
                bool carried = false;
                while (!carried && line.Length > Limit)
                {
                    int cut = BreakPoint(line, indent);
                    if (cut < 0)
                    {
                        break;
                    }

                    output.Add(line[..cut]);
                    line = new string(' ', indent) + line[(cut + 1)..];
                    if (i + 1 < lines.Count && ContinuesParagraph(lines[i + 1], indent))
                    {
                        lines[i + 1] = line + " " + lines[i + 1].TrimStart(' ');
                        carried = true;
                    }
                }

                if (!carried)
                {
                    output.Add(line);
                }
            }
        }

        return string.Join('\n', output);
    }

    /// <summary>Whether the line goes on with the paragraph (or list item) whose text starts at the indent.</summary>
    private static bool ContinuesParagraph(string line, int indent) =>
        line.Length > indent
        && line.Length - line.TrimStart(' ').Length == indent
        && ContinuationIndent(line) == indent
        && StartsProse(line, indent);

    private static IEnumerable<string> TableAsList(List<string> table)
    {
        string[] header = Cells(table[0]);
        foreach (string row in table.Skip(2))
        {
            string[] cells = Cells(row);
            var item = new StringBuilder("- ").Append(cells[0]);
            for (int c = 1; c < cells.Length; c++)
            {
                item.Append(c == 1 ? " — " : "; ")
                    .Append(c < header.Length ? header[c] : "")
                    .Append(": ")
                    .Append(cells[c]);
            }

            yield return item.ToString();
        }
    }

    /// <summary>The cells of a table row: <c>| a | b |</c> → a, b (an escaped <c>\|</c> stays inside its
    /// cell).</summary>
    private static string[] Cells(string row) => row.Trim()[1..^1].Split(" | ").Select(c => c.Trim()).ToArray();

    /// <summary>Where the text of a line's paragraph starts: after a list marker, else after the indentation.</summary>
    private static int ContinuationIndent(string line)
    {
        int spaces = line.Length - line.TrimStart(' ').Length;
        string rest = line[spaces..];
        if (rest.StartsWith("- ", StringComparison.Ordinal))
        {
            return spaces + 2;
        }

        int digits = rest.TakeWhile(char.IsAsciiDigit).Count();
        return digits > 0 && rest[digits..].StartsWith(". ", StringComparison.Ordinal) ? spaces + digits + 2 : spaces;
    }

    /// <summary>Where to break the line: the last space at or before the limit that is after the indent, not followed
    /// by text Markdown would read as the start of a block (a list item, heading, quote, table or HTML), and outside a
    /// code span; else such a space inside a code span (Markdown reads the line break there as a space); else the first
    /// such space after the limit outside code spans; -1 if none.</summary>
    private static int BreakPoint(string line, int indent)
    {
        int best = -1;
        int insideSpan = -1;
        int span = 0;
        for (int i = 0; i < line.Length; i++)
        {
            if (line[i] == '`')
            {
                int run = 1;
                while (i + run < line.Length && line[i + run] == '`')
                {
                    run++;
                }

                span =
                    span == 0 ? run
                    : span == run ? 0
                    : span;
                i += run - 1;
            }
            else if (line[i] == ' ' && i > indent && StartsProse(line, i + 1))
            {
                if (span != 0)
                {
                    insideSpan = i <= Limit ? i : insideSpan;
                }
                else if (i <= Limit || (best < 0 && insideSpan < 0))
                {
                    best = i;
                }

                if (i > Limit && (best >= 0 || insideSpan >= 0))
                {
                    break;
                }
            }
        }

        return best >= 0 && best <= Limit ? best
            : insideSpan >= 0 ? insideSpan
            : best;
    }

    private static bool StartsProse(string line, int at)
    {
        if (at >= line.Length || line[at] is ' ' or '-' or '+' or '*' or '#' or '>' or '|' or '=' or '<')
        {
            return false;
        }

        int digits = line[at..].TakeWhile(char.IsAsciiDigit).Count();
        return digits == 0 || at + digits >= line.Length || line[at + digits] is not ('.' or ')');
    }
}

using System.Globalization;
using System.Text;

namespace XeAnalyzer.IO;

/// <summary>Reads lines from a <see cref="TextReader"/> without ever holding a line longer than a cap (LF, CR LF and CR
/// end a line; a leading BOM is dropped).</summary>
internal static class BoundedLines
{
    public static IEnumerable<(string Line, long Number)> Read(
        TextReader reader,
        string? filePath,
        int maxLineLength,
        CancellationToken cancellationToken
    )
    {
        var sb = new StringBuilder();
        char[] buf = new char[16 * 1024];
        long line = 1;
        bool lastCr = false;
        bool first = true;
        bool any = false;
        int n;
        while ((n = reader.Read(buf, 0, buf.Length)) > 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            int start = 0;
            if (first)
            {
                first = false;
                if (buf[0] == '\uFEFF')
                {
                    start = 1;
                }
            }

            for (int i = start; i < n; i++)
            {
                char c = buf[i];
                if (c == '\n' && lastCr)
                {
                    lastCr = false;
                    continue;
                }

                lastCr = c == '\r';
                if (c is '\n' or '\r')
                {
                    yield return (sb.ToString(), line);
                    sb.Clear();
                    line++;
                    any = false;
                    continue;
                }

                if (sb.Length >= maxLineLength)
                {
                    throw new InvalidTextInputException(
                        filePath,
                        (int)Math.Min(line, int.MaxValue),
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a line of at most {maxLineLength} characters; the line is longer"
                        )
                    );
                }

                sb.Append(c);
                any = true;
            }
        }

        if (any)
        {
            yield return (sb.ToString(), line);
        }
    }
}

using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// Every accepted and rejected frame shape stays as it was: the lines of <c>TestData/text/frame-lines.txt</c> and of
/// every committed text fixture, plus seeded mutations of each, are parsed under four option sets (the default; decimal
/// resolver offsets; frames on a single line; two frames per line at most), through
/// <see cref="FrameParser.ParseLine"/>,
/// <see cref="FrameParser.TryParseFrame"/> and <see cref="StackTextReader.Parse"/> (lines, frames, unparsed pieces with
/// their reason, diagnostics). The dump is compared with <c>frame-lines.expected.txt</c>, recorded from the single
/// tokenizer before it was split into one scanner per grammar (issue 10, commit 380d976). Never record it again to make
/// a failing run pass: a difference is a changed accepted or rejected shape.
/// </summary>
public sealed class FrameScannerGoldenTests
{
    private const int MutationsPerLine = 3;
    private static readonly string[] s_inserts =
    [
        "<",
        ">",
        "&",
        "&lt;",
        "\"",
        "'",
        "\n",
        "+",
        "!",
        "0x",
        "`",
        "::",
        "<frame ",
        "/>",
        " ",
        "\t",
        "Module(",
        ")",
        "[ @ ",
        "00 ",
        "=",
        "1FFFFFFFFFFFFFFFFF",
    ];

    private static readonly (string Name, StackTextReaderOptions Options)[] s_optionSets =
    [
        ("default", StackTextReaderOptions.Default),
        ("decimal", new StackTextReaderOptions { SymbolizedOffsetRadix = OffsetRadix.Decimal }),
        ("single-line", new StackTextReaderOptions { FramesOnSingleLine = true }),
        (
            "two-per-line",
            new StackTextReaderOptions
            {
                FramesOnSingleLine = true,
                Limits = new TextInputLimits { MaxFramesPerLine = 2 },
            }
        ),
    ];

    [Test]
    public void FrameShapes_ParseAsRecordedBeforeTheScannerSplit()
    {
        string expectedPath = Path.Combine(TestPaths.TestData, "text", "frame-lines.expected.txt");
        string actual = Dump(Corpus(MutationsPerLine));
        string actualPath = Path.Combine(TestContext.CurrentContext.WorkDirectory, "frame-lines.actual.txt");
        File.WriteAllText(actualPath, actual, new UTF8Encoding(false));
        Assert.That(
            File.Exists(expectedPath),
            Is.True,
            $"{expectedPath} is missing (the dump of this run is {actualPath})"
        );
        string expected = File.ReadAllText(expectedPath, Encoding.UTF8);
        if (expected == actual)
        {
            return;
        }

        string[] e = expected.Split('\n');
        string[] a = actual.Split('\n');
        int i = 0;
        while (i < e.Length && i < a.Length && e[i] == a[i])
        {
            i++;
        }

        Assert.Fail(
            $"frame dump differs from line {i + 1} (this run's dump: {actualPath}):\n"
                + $"expected: {(i < e.Length ? e[i] : "<end>")}\nactual:   {(i < a.Length ? a[i] : "<end>")}"
        );
    }

    /// <summary>The corpus: hand-written lines, the lines of the committed text fixtures, and seeded mutations of
    /// each.</summary>
    internal static List<string> Corpus(int mutationsPerLine)
    {
        var lines = new List<string>();
        foreach (
            string raw in File.ReadAllLines(Path.Combine(TestPaths.TestData, "text", "frame-lines.txt"), Encoding.UTF8)
        )
        {
            if (!raw.StartsWith('#'))
            {
                lines.Add(Unescape(raw));
            }
        }

        foreach (
            string file in Directory.GetFiles(Path.Combine(TestPaths.TestData, "text")).Order(StringComparer.Ordinal)
        )
        {
            string name = Path.GetFileName(file);
            if (
                name.StartsWith("frame-lines", StringComparison.Ordinal)
                || name.EndsWith(".md", StringComparison.Ordinal)
                || name.StartsWith('.')
            )
            {
                continue;
            }

            lines.AddRange(File.ReadAllText(file, Encoding.UTF8).Split('\n').Where(l => l.Length > 0));
        }

        var rng = new SplitMix64(0x5EED_F4A3E);
        int count = lines.Count;
        for (int i = 0; i < count; i++)
        {
            for (int m = 0; m < mutationsPerLine; m++)
            {
                lines.Add(Mutate(lines[i], rng));
            }
        }

        return lines;
    }

    internal static string Dump(List<string> corpus)
    {
        var sb = new StringBuilder();
        var parsers = s_optionSets.Select(o => new FrameParser(o.Options)).ToArray();
        for (int i = 0; i < corpus.Count; i++)
        {
            string line = corpus[i];
            sb.Append('#')
                .Append(i.ToString(CultureInfo.InvariantCulture))
                .Append(' ')
                .Append(Quote(line))
                .Append('\n');
            string? first = null;
            for (int o = 0; o < s_optionSets.Length; o++)
            {
                string d = DumpLine(line, parsers[o], s_optionSets[o].Options);
                if (first is null)
                {
                    first = d;
                    sb.Append(d);
                }
                else if (d != first)
                {
                    sb.Append("  [").Append(s_optionSets[o].Name).Append("]\n").Append(d);
                }
            }
        }

        return sb.ToString();
    }

    private static string DumpLine(string line, FrameParser parser, StackTextReaderOptions options)
    {
        var sb = new StringBuilder();
        sb.Append("  line:");
        IReadOnlyList<StackFrame> lineFrames = parser.ParseLine(line);
        foreach (StackFrame f in lineFrames)
        {
            sb.Append(' ').Append(Frame(f));
        }

        string token = parser.TryParseFrame(line, out StackFrame? t) ? Frame(t) : "-";
        sb.Append("\n  token: ")
            .Append(lineFrames.Count == 1 && token == Frame(lineFrames[0]) ? "as line" : token)
            .Append('\n');
        try
        {
            foreach (Callstack s in StackTextReader.Parse(line, options))
            {
                sb.Append("  stack ")
                    .Append(s.Header?.Origin.ToString() ?? "plain")
                    .Append(s.IsContinuation ? " continued" : string.Empty)
                    .Append('\n');
                foreach (StackLine l in s.Lines)
                {
                    sb.Append("    ")
                        .Append(l.LineNumber.ToString(CultureInfo.InvariantCulture))
                        .Append(' ')
                        .Append(Quote(l.Text))
                        .Append(':');
                    foreach (StackFrame f in l.Frames)
                    {
                        sb.Append(' ').Append(Frame(f));
                    }

                    foreach (UnparsedToken u in l.Unparsed)
                    {
                        sb.Append(" unparsed[")
                            .Append(u.Index.ToString(CultureInfo.InvariantCulture))
                            .Append("]=")
                            .Append(Quote(u.Text))
                            .Append(" (")
                            .Append(u.Reason)
                            .Append(')');
                    }

                    if (l.Diagnostic is not null)
                    {
                        sb.Append(" diagnostic=").Append(Quote(l.Diagnostic));
                    }

                    if (l.SymbolMetadata is not null)
                    {
                        sb.Append(" metadata=").Append(l.SymbolMetadata);
                    }

                    sb.Append('\n');
                }

                if (!s.Frames.SequenceEqual(s.Lines.SelectMany(l => l.Frames)))
                {
                    sb.Append("    frames differ from the lines' frames\n");
                }
            }
        }
        catch (InvalidTextInputException ex)
        {
            sb.Append("  error: ").Append(Quote(ex.Message)).Append('\n');
        }

        return sb.ToString();
    }

    private static string Frame(StackFrame f)
    {
        var sb = new StringBuilder();
        sb.Append('{').Append(f.Kind).Append(' ').Append(f.Provenance);
        if (f.FrameNumber is int n)
        {
            sb.Append(" #").Append(n.ToString(CultureInfo.InvariantCulture));
        }

        if (f.Module is not null)
        {
            sb.Append(" mod=").Append(Quote(f.Module.Name)).Append('/').Append(f.Module.Key);
        }

        switch (f)
        {
            case ModuleOffsetFrame m:
                sb.Append(" off=").Append(Hex(m.Offset));
                break;
            case VirtualAddressFrame v:
                sb.Append(" va=").Append(Hex(v.Address));
                break;
            case SymbolizedFrame s:
                sb.Append(" sym=")
                    .Append(Quote(s.Symbol))
                    .Append(" disp=")
                    .Append(s.Displacement is ulong d ? Hex(d) : "-");
                break;
            case OrdinalFrame o:
                sb.Append(" ord=")
                    .Append(o.Ordinal.ToString(CultureInfo.InvariantCulture))
                    .Append(" off=")
                    .Append(Hex(o.Offset));
                break;
            case RvaFrame r:
                sb.Append(" pdb=")
                    .Append(r.PdbName is null ? "-" : Quote(r.PdbName))
                    .Append(" id=")
                    .Append(r.Identity?.ToString() ?? "-")
                    .Append(" rva=")
                    .Append(r.Rva is ulong rv ? Hex(rv) : "-")
                    .Append(" addr=")
                    .Append(r.Address is ulong ad ? Hex(ad) : "-")
                    .Append(r.IsAbbreviated ? " abbreviated" : string.Empty)
                    .Append(r.CanResolve ? " resolvable" : string.Empty);
                break;
            default:
                sb.Append(" ?").Append(f.GetType().Name);
                break;
        }

        sb.Append(" raw=").Append(Quote(f.Raw)).Append('}');
        return sb.ToString();
    }

    private static string Hex(ulong v) => "0x" + v.ToString("X", CultureInfo.InvariantCulture);

    private static string Quote(string s)
    {
        var sb = new StringBuilder(s.Length + 2);
        sb.Append('"');
        foreach (char c in s)
        {
            switch (c)
            {
                case '\\':
                    sb.Append(@"\\");
                    break;
                case '"':
                    sb.Append("\\\"");
                    break;
                case '\n':
                    sb.Append(@"\n");
                    break;
                case '\r':
                    sb.Append(@"\r");
                    break;
                case '\t':
                    sb.Append(@"\t");
                    break;
                default:
                    if (c < ' ' || c > '~')
                    {
                        sb.Append(@"\u").Append(((int)c).ToString("X4", CultureInfo.InvariantCulture));
                    }
                    else
                    {
                        sb.Append(c);
                    }

                    break;
            }
        }

        return sb.Append('"').ToString();
    }

    private static string Unescape(string s)
    {
        var sb = new StringBuilder(s.Length);
        for (int i = 0; i < s.Length; i++)
        {
            char c = s[i];
            if (c != '\\' || i + 1 >= s.Length)
            {
                sb.Append(c);
                continue;
            }

            char e = s[i + 1];
            switch (e)
            {
                case 't':
                    sb.Append('\t');
                    i++;
                    break;
                case 'r':
                    sb.Append('\r');
                    i++;
                    break;
                case 'n':
                    sb.Append('\n');
                    i++;
                    break;
                case '\\':
                    sb.Append('\\');
                    i++;
                    break;
                case 'u' when i + 5 < s.Length:
                    sb.Append(
                        (char)
                            int.Parse(s.AsSpan(i + 2, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture)
                    );
                    i += 5;
                    break;
                default:
                    sb.Append(c);
                    break;
            }
        }

        return sb.ToString();
    }

    private static string Mutate(string s, SplitMix64 rng)
    {
        var chars = new StringBuilder(s);
        int edits = 1 + rng.Next(3);
        for (int e = 0; e < edits; e++)
        {
            int at = chars.Length == 0 ? 0 : rng.Next(chars.Length + 1);
            switch (rng.Next(5))
            {
                case 0 when chars.Length > 0:
                    chars.Length = Math.Max(at, 1);
                    break;
                case 1 when at < chars.Length:
                    chars[at] = (char)(' ' + rng.Next(0x7F - ' '));
                    break;
                case 2 when at < chars.Length:
                    chars.Remove(at, Math.Min(1 + rng.Next(8), chars.Length - at));
                    break;
                default:
                    chars.Insert(at, s_inserts[rng.Next(s_inserts.Length)]);
                    break;
            }
        }

        return chars.ToString();
    }

    /// <summary>A fixed pseudo-random sequence (SplitMix64), so the mutations do not depend on the runtime's
    /// <see cref="Random"/>.</summary>
    private sealed class SplitMix64(ulong seed)
    {
        private ulong _state = seed;

        public int Next(int maxExclusive)
        {
            unchecked
            {
                ulong z = _state += 0x9E3779B97F4A7C15UL;
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
                z ^= z >> 31;
                return (int)(z % (ulong)maxExclusive);
            }
        }
    }
}

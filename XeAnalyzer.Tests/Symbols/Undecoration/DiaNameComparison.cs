using System.Globalization;
using System.Text;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// Compares <see cref="MsvcNameUndecorator"/> with names DIA produced (breakpad <c>.sym</c> files in the shared
/// vectors).
/// </summary>
/// <remarks>
/// <para><b>Why a normaliser.</b> Breakpad's dump_syms asked DIA for <c>get_undecoratedNameEx</c> with its own flags
/// (parameters included, <c>UNDNAME_NO_MS_KEYWORDS</c> and friends), not <c>UNDNAME_NAME_ONLY</c>
/// (PDB-AND-SYMBOLS.md §8 "Using .sym/.old.sym names"). So the DIA text carries parts a name-only string does not have,
/// and only those are removed. <see cref="NormalizeDia"/> (DIA side only):</para>
/// <list type="number">
/// <item>FUNC lines only: a leading <c>static </c> and the return type after it are dropped (private-symbol
/// text).</item>
/// <item>Trailing qualifiers of the function (<c> const</c>, <c> volatile</c>, <c> &amp;</c>, <c> &amp;&amp;</c>, <c>
/// __ptr64</c>) are dropped, then the last balanced parenthesised group (the parameter list) is cut. Scanning from the
/// end keeps
/// <c>operator()</c>, <c>operator&lt;</c> and function-pointer template arguments intact.</item>
/// </list>
/// <para><see cref="Canonical"/> (applied to BOTH sides) removes what the flags breakpad passed suppress but
/// name-only keeps: calling-convention keywords (<c>__cdecl</c>, <c>__stdcall</c>, <c>__fastcall</c>,
/// <c>__thiscall</c>,
/// <c>__vectorcall</c>, <c>__clrcall</c>) and <c> __ptr64</c> (UNDNAME_NO_MS_KEYWORDS). Nothing else: template-argument
/// spacing, <c>__int64</c>, backtick quoting, pointer spacing inside template arguments and the x86 C-name
/// decorations must match DIA's text exactly.</para>
/// <para><b>Counting.</b> The unit is one DIA line (<c>PUBLIC</c>, and <c>FUNC</c> when asked). A line is paired with
/// every PDB public at its RVA; it is <i>identical</i> when ANY of those publics undecorates (after
/// <see cref="Canonical"/>) to the normalised DIA text: DIA printed one name for identical-code-folded ties
/// (breakpad marks them <c>PUBLIC m</c>), and the tie DIA picked is not ours to predict here. Lines whose RVA has no
/// public (e.g. <c>&lt;unknown&gt;</c>) are counted as <i>unpaired</i> and excluded from the ratio; publics with no
/// DIA line (data, and code breakpad covered with a FUNC record) are counted separately and not compared;
/// publics that map to no RVA (segment 0, absolute symbols) are left out by <see cref="PdbFile.GetPublics"/>.</para>
/// </remarks>
internal static class DiaNameComparison
{
    private static readonly string[] s_callingConventions =
    [
        "__cdecl",
        "__stdcall",
        "__fastcall",
        "__thiscall",
        "__vectorcall",
        "__clrcall",
    ];

    private static readonly string[] s_trailingQualifiers =
    [
        " const",
        " volatile",
        " __ptr64",
        " &&",
        " &",
        " __restrict",
    ];

    /// <summary>One DIA line and its pairing.</summary>
    internal sealed record LineResult(
        string Kind,
        uint Rva,
        string DiaRaw,
        string DiaNormalized,
        IReadOnlyList<string> Decorated,
        IReadOnlyList<string> Ours,
        bool Identical
    );

    /// <summary>The comparison over one file.</summary>
    internal sealed record Summary(
        int Lines,
        int Unpaired,
        int Paired,
        int Identical,
        int Tied,
        int IdenticalUntied,
        int PublicsWithoutLine,
        IReadOnlyList<LineResult> Differences
    )
    {
        public double Ratio => Paired == 0 ? 0 : (double)Identical / Paired;

        public override string ToString() =>
            string.Create(
                CultureInfo.InvariantCulture,
                $"{Identical}/{Paired} DIA lines identical ({Ratio:P2}); untied lines (one public at the RVA) "
                    + $"{IdenticalUntied}/{Paired - Tied}; {Unpaired} lines without a public at their RVA; "
                    + $"{PublicsWithoutLine} publics without a DIA line; {Differences.Count} differences"
            );
    }

    /// <summary>Removes calling conventions and <c>__ptr64</c> (see the class remarks).</summary>
    public static string Canonical(string name)
    {
        string s = name;
        foreach (string cc in s_callingConventions)
        {
            s = s.Replace(cc, string.Empty, StringComparison.Ordinal);
        }

        return s.Replace(" __ptr64", string.Empty, StringComparison.Ordinal);
    }

    /// <summary>Cuts DIA's full-signature text to name-only (see the class remarks).</summary>
    public static string NormalizeDia(string dia, bool isFunc)
    {
        string s = dia;
        bool changed = true;
        while (changed)
        {
            changed = false;
            foreach (string q in s_trailingQualifiers)
            {
                if (s.EndsWith(q, StringComparison.Ordinal))
                {
                    s = s[..^q.Length];
                    changed = true;
                }
            }
        }

        if (s.EndsWith(')'))
        {
            int depth = 0;
            for (int i = s.Length - 1; i >= 0; i--)
            {
                if (s[i] == ')')
                {
                    depth++;
                }
                else if (s[i] == '(' && --depth == 0)
                {
                    s = s[..i];
                    break;
                }
            }
        }

        if (isFunc && s.StartsWith("static ", StringComparison.Ordinal))
        {
            s = s["static ".Length..];
            int angle = 0;
            int lastSpace = -1;
            for (int i = 0; i < s.Length; i++)
            {
                char c = s[i];
                if (c == '<')
                {
                    angle++;
                }
                else if (c == '>')
                {
                    angle--;
                }
                else if (c == ' ' && angle == 0)
                {
                    lastSpace = i;
                }
            }

            if (lastSpace >= 0)
            {
                s = s[(lastSpace + 1)..];
            }
        }

        return Canonical(s);
    }

    /// <summary>Reads the publics of a PDB with <see cref="PdbFile.GetPublics"/>: RVA to decorated names, in stream
    /// order.</summary>
    public static (Dictionary<uint, List<string>> ByRva, int Count) ReadPublics(string pdbPath)
    {
        using PdbFile pdb = PdbFile.Open(pdbPath);
        var byRva = new Dictionary<uint, List<string>>();
        IReadOnlyList<PdbPublicSymbol> publics = pdb.GetPublics();
        foreach (PdbPublicSymbol p in publics)
        {
            if (!byRva.TryGetValue(p.Rva, out List<string>? list))
            {
                byRva[p.Rva] = list = [];
            }

            list.Add(p.Name);
        }

        return (byRva, publics.Count);
    }

    /// <summary>Reads breakpad <c>PUBLIC [m] rva psize name</c> and (optionally) <c>FUNC [m] rva size psize name</c>
    /// lines.</summary>
    public static List<(string Kind, uint Rva, string Name)> ReadSym(string path, bool includeFunc)
    {
        var result = new List<(string, uint, string)>();
        foreach (string line in File.ReadLines(path))
        {
            string kind;
            int fields;
            if (line.StartsWith("PUBLIC ", StringComparison.Ordinal))
            {
                kind = "PUBLIC";
                fields = 2; // rva, parameter size
            }
            else if (includeFunc && line.StartsWith("FUNC ", StringComparison.Ordinal))
            {
                kind = "FUNC";
                fields = 3; // rva, size, parameter size
            }
            else
            {
                continue;
            }

            int pos = kind.Length + 1;
            if (line.AsSpan(pos).StartsWith("m "))
            {
                pos += 2;
            }

            string? rvaText = null;
            for (int f = 0; f < fields; f++)
            {
                int space = line.IndexOf(' ', pos);
                Assert.That(space, Is.GreaterThan(pos), "sym line: " + line);
                rvaText ??= line[pos..space];
                pos = space + 1;
            }

            result.Add((kind, uint.Parse(rvaText!, NumberStyles.HexNumber, CultureInfo.InvariantCulture), line[pos..]));
        }

        return result;
    }

    /// <summary>Runs the comparison of one PDB's publics with one <c>.sym</c> file.</summary>
    public static Summary Compare(string pdbPath, string symPath, bool includeFunc)
    {
        (Dictionary<uint, List<string>> byRva, _) = ReadPublics(pdbPath);
        List<(string Kind, uint Rva, string Name)> lines = ReadSym(symPath, includeFunc);
        var rvasWithLine = new HashSet<uint>();
        var differences = new List<LineResult>();
        int unpaired = 0;
        int identical = 0;
        int tied = 0;
        int identicalUntied = 0;
        foreach ((string kind, uint rva, string dia) in lines)
        {
            rvasWithLine.Add(rva);
            if (!byRva.TryGetValue(rva, out List<string>? decorated))
            {
                unpaired++;
                continue;
            }

            string expected = NormalizeDia(dia, kind == "FUNC");
            var ours = decorated.ConvertAll(MsvcNameUndecorator.UndecorateNameOnly);
            bool same = ours.Exists(o => string.Equals(Canonical(o), expected, StringComparison.Ordinal));
            if (decorated.Count > 1)
            {
                tied++;
            }

            if (same)
            {
                identical++;
                if (decorated.Count == 1)
                {
                    identicalUntied++;
                }
            }
            else
            {
                differences.Add(new LineResult(kind, rva, dia, expected, decorated, ours, false));
            }
        }

        int publicsWithoutLine = 0;
        foreach ((uint rva, List<string> names) in byRva)
        {
            if (!rvasWithLine.Contains(rva))
            {
                publicsWithoutLine += names.Count;
            }
        }

        return new Summary(
            lines.Count,
            unpaired,
            lines.Count - unpaired,
            identical,
            tied,
            identicalUntied,
            publicsWithoutLine,
            differences
        );
    }

    /// <summary>A readable listing of differences, for assertion messages.</summary>
    public static string Describe(IEnumerable<LineResult> differences)
    {
        var sb = new StringBuilder();
        foreach (LineResult d in differences)
        {
            sb.Append(
                    CultureInfo.InvariantCulture,
                    $"{d.Kind} {d.Rva:x}: decorated [{string.Join(" | ", d.Decorated)}] -> ours "
                        + $"[{string.Join(" | ", d.Ours)}]; DIA \"{d.DiaNormalized}\" (raw \"{d.DiaRaw}\")"
                )
                .AppendLine();
        }

        return sb.ToString();
    }
}

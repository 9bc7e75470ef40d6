using System.Globalization;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>FUNC and PUBLIC lines of a breakpad <c>.sym</c> file made with DIA (the vectors' independent
/// oracle).</summary>
internal static class BreakpadSym
{
    public static List<(bool Multiple, uint Rva, uint Size, string Name)> Funcs(string path) =>
        Lines(path, "FUNC")
            .Select(f => (f.Multiple, Hex(f.Fields[0]), Hex(f.Fields[1]), string.Join(' ', f.Fields[3..])))
            .ToList();

    /// <summary>
    /// The PUBLIC lines, without the one <c>&lt;unknown&gt;</c> line breakpad writes at the end of the last function of
    /// .text (basic32-min 0x55e92 = unaligned_memcmp 0x550b2 + 0xde0; dump_syms_regtest64 0xbc1b = end of .text): no
    /// symbol is stored there.
    /// </summary>
    public static List<(bool Multiple, uint Rva, string Name)> Publics(string path) =>
        Lines(path, "PUBLIC")
            .Select(f => (f.Multiple, Hex(f.Fields[0]), string.Join(' ', f.Fields[2..])))
            .Where(p => p.Item3 != "<unknown>")
            .ToList();

    /// <summary>The FILE lines: file id → path.</summary>
    public static Dictionary<int, string> Files(string path) =>
        Lines(path, "FILE")
            .ToDictionary(
                f => int.Parse(f.Fields[0], CultureInfo.InvariantCulture),
                f => string.Join(' ', f.Fields[1..])
            );

    /// <summary>The line records (<c>address size line file</c>, address and size in hex) that follow FUNC lines, in
    /// file order.</summary>
    public static List<(uint Rva, uint Size, int Line, int File)> LineRecords(string path)
    {
        var records = new List<(uint, uint, int, int)>();
        bool inFunc = false;
        foreach (string line in File.ReadLines(path))
        {
            if (line.StartsWith("FUNC ", StringComparison.Ordinal))
            {
                inFunc = true;
                continue;
            }

            string[] f = line.Split(' ');
            if (
                inFunc
                && f.Length == 4
                && f.All(x => x.Length > 0 && Uri.IsHexDigit(x[0]))
                && uint.TryParse(f[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture, out uint rva)
            )
            {
                records.Add(
                    (
                        rva,
                        Hex(f[1]),
                        int.Parse(f[2], CultureInfo.InvariantCulture),
                        int.Parse(f[3], CultureInfo.InvariantCulture)
                    )
                );
            }
            else
            {
                inFunc = false;
            }
        }

        return records;
    }

    /// <summary>The name without its parameter list: cut at the first '(' outside template brackets.</summary>
    public static string CutAtParameters(string name)
    {
        int depth = 0;
        for (int i = 0; i < name.Length; i++)
        {
            switch (name[i])
            {
                case '<':
                    depth++;
                    break;
                case '>':
                    depth--;
                    break;
                case '(' when depth == 0 && i > 0:
                    return name[..i];
            }
        }

        return name;
    }

    private static IEnumerable<(bool Multiple, string[] Fields)> Lines(string path, string kind)
    {
        foreach (string line in File.ReadLines(path))
        {
            if (!line.StartsWith(kind + " ", StringComparison.Ordinal))
            {
                continue;
            }

            string[] f = line[(kind.Length + 1)..].Split(' ');
            bool multiple = f[0] == "m";
            yield return (multiple, multiple ? f[1..] : f);
        }
    }

    private static uint Hex(string s) => uint.Parse(s, NumberStyles.HexNumber, CultureInfo.InvariantCulture);
}

using System.Globalization;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>The committed tiny fixture (TestData/pdb, built by build.sh) and its recorded oracle outputs.</summary>
internal static class TinyFixture
{
    public static string Dir => Path.Combine(TestPaths.TestData, "pdb");

    /// <summary>full, publics or stripped.</summary>
    public static string Pdb(string flavor) => Path.Combine(Dir, flavor, "tiny.pdb");

    /// <summary>full or publics (the stripped twin pairs with full/tiny.dll).</summary>
    public static string Dll(string flavor) => Path.Combine(Dir, flavor == "stripped" ? "full" : flavor, "tiny.dll");

    public static string Expected(string file) => Path.Combine(Dir, "expected", file);

    public static PdbUtilDump PdbUtil(string flavor) => PdbUtilDump.Load(Expected(flavor + ".pdbutil.txt"));

    /// <summary>The recorded llvm-symbolizer answers: RVA → function name ("" when it found none).</summary>
    public static IReadOnlyList<(uint Rva, string Function)> Symbolizer(string flavor)
    {
        var list = new List<(uint, string)>();
        foreach (string line in File.ReadAllLines(Expected(flavor + ".symbolizer.txt")))
        {
            if (line.StartsWith('#') || line.Length == 0)
            {
                continue;
            }

            string[] cols = line.Split('\t');
            list.Add((uint.Parse(cols[0].AsSpan(2), NumberStyles.HexNumber, CultureInfo.InvariantCulture), cols[1]));
        }

        return list;
    }
}

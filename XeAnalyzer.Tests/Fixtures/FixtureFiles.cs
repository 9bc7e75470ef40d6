using System.Globalization;

namespace XeAnalyzer.Tests.Fixtures;

/// <summary>Paths and tab-separated data of the committed symbol fixtures (built by tools/fixtures/build.sh).</summary>
internal static class FixtureFiles
{
    /// <summary>The four synthetic modules.</summary>
    public static readonly string[] Modules = ["sqlmin", "sqldk", "sqllang", "sqlTsEs"];

    public static string Expected => Path.Combine(TestPaths.RepoRoot, "tools", "fixtures", "expected");

    public static string PrivateSymbols => Path.Combine(TestPaths.TestData, "symbols-private");

    /// <summary>The single key folder under <paramref name="parent"/>, with the file <paramref name="fileName"/> in
    /// it.</summary>
    public static (string Key, string Path) SingleKeyedFile(string parent, string fileName)
    {
        Assert.That(Directory.Exists(parent), Is.True, $"expected the symbol-store folder {parent}");
        string[] keys = Directory.GetDirectories(parent);
        Assert.That(keys, Has.Length.EqualTo(1), $"expected exactly one key folder under {parent}");
        string path = System.IO.Path.Combine(keys[0], fileName);
        Assert.That(File.Exists(path), Is.True, $"expected {path}");
        return (System.IO.Path.GetFileName(keys[0]), path);
    }

    public static string StrippedPdb(string module) =>
        SingleKeyedFile(Path.Combine(TestPaths.SymbolsCache, module + ".pdb"), module + ".pdb").Path;

    public static string FullPdb(string module) =>
        SingleKeyedFile(Path.Combine(PrivateSymbols, module + ".pdb"), module + ".pdb").Path;

    public static string Dll(string module) =>
        SingleKeyedFile(Path.Combine(TestPaths.SymbolsCache, module + ".dll"), module + ".dll").Path;

    /// <summary>Rows of a TSV file with a header line, as column-name → value maps; lines starting with # are
    /// skipped.</summary>
    public static IReadOnlyList<IReadOnlyDictionary<string, string>> ReadTsv(string path)
    {
        string[] lines = File.ReadAllLines(path).Where(l => l.Length > 0 && !l.StartsWith('#')).ToArray();
        Assert.That(lines, Is.Not.Empty, $"{path} has no header");
        string[] header = lines[0].Split('\t');
        var rows = new List<IReadOnlyDictionary<string, string>>();
        foreach (string line in lines.Skip(1))
        {
            string[] cells = line.Split('\t');
            Assert.That(cells, Has.Length.EqualTo(header.Length), $"{path}: wrong column count in '{line}'");
            rows.Add(header.Zip(cells).ToDictionary(p => p.First, p => p.Second, StringComparer.Ordinal));
        }

        return rows;
    }

    public static IReadOnlyList<IReadOnlyDictionary<string, string>> ReadExpected(string fileName) =>
        ReadTsv(Path.Combine(Expected, fileName));

    /// <summary>Parses <c>0x1a9</c>.</summary>
    public static long Hex(string text)
    {
        Assert.That(text, Does.StartWith("0x"), $"expected a 0x-prefixed number, found '{text}'");
        return long.Parse(text.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
    }

    public static string ToHex(long value) => "0x" + value.ToString("x", CultureInfo.InvariantCulture);
}

namespace XeAnalyzer.Tests.Architecture;

/// <summary>
/// A library file a newcomer can read in one sitting: at most <see cref="MaxLines"/> lines, outside
/// <c>Symbols/Undecoration/</c>, whose grammar tables are long by nature. A file that grows past it is split by
/// responsibility, not by line count.
/// </summary>
public sealed class FileSizeTests
{
    private const int MaxLines = 700;

    [Test]
    public void EveryLibraryFile_OutsideUndecoration_HasAtMost700Lines()
    {
        string library = Path.Combine(TestPaths.RepoRoot, "XeAnalyzer");
        string undecoration = Path.Combine(library, "Symbols", "Undecoration") + Path.DirectorySeparatorChar;
        string[] files = Directory
            .GetFiles(library, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.StartsWith(undecoration, StringComparison.Ordinal) && !IsBuildOutput(library, f))
            .ToArray();
        Assert.That(files, Is.Not.Empty);
        string[] tooLong = files
            .Select(f => (File: Path.GetRelativePath(library, f), Lines: File.ReadLines(f).Count()))
            .Where(f => f.Lines > MaxLines)
            .Select(f => f.File + ": " + f.Lines.ToString(System.Globalization.CultureInfo.InvariantCulture) + " lines")
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.That(tooLong, Is.Empty);
    }

    private static bool IsBuildOutput(string library, string file)
    {
        string first = Path.GetRelativePath(library, file).Split(Path.DirectorySeparatorChar)[0];
        return first is "obj" or "bin";
    }
}

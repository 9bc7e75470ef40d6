using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>The committed symbol-store fixtures (XeAnalyzer.Tests/TestData/store, made by make-fixtures.sh) and scratch
/// folders.</summary>
internal static class StoreFixtures
{
    public static string Folder => Path.Combine(TestPaths.TestData, "store");

    /// <summary>A tiny x64 PDB built by clang-14/lld-link-14.</summary>
    public static string PdbA => Path.Combine(Folder, "storea.pdb");

    /// <summary>Another tiny PDB with a different GUID.</summary>
    public static string PdbB => Path.Combine(Folder, "storeb.pdb");

    /// <summary><see cref="PdbA"/> compressed by gcab (CAB, MSZIP).</summary>
    public static string CabA => Path.Combine(Folder, "storea.pd_");

    public static PdbIdentity IdentityA => PdbFile.ReadIdentity(PdbA);

    public static PdbIdentity IdentityB => PdbFile.ReadIdentity(PdbB);

    /// <summary>Creates an empty scratch directory under the system temp folder.</summary>
    public static string NewScratch()
    {
        string dir = Path.Combine(Path.GetTempPath(), "xea-store-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        return dir;
    }

    /// <summary>Every file under <paramref name="root"/>, relative, with '/' separators, sorted.</summary>
    public static string[] FilesUnder(string root) =>
        Directory.Exists(root)
            ? Directory
                .EnumerateFiles(
                    root,
                    "*",
                    new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }
                )
                .Select(f => Path.GetRelativePath(root, f).Replace('\\', '/'))
                .Order(StringComparer.Ordinal)
                .ToArray()
            : [];

    public static void DeleteScratch(string dir)
    {
        if (Directory.Exists(dir))
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}

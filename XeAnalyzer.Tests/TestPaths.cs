namespace XeAnalyzer.Tests;

/// <summary>Where the repository, its committed fixtures and the optional shared vectors are.</summary>
internal static class TestPaths
{
    private static readonly Lazy<string> s_repoRoot = new(FindRepoRoot);

    /// <summary>The repository root (the folder holding XeAnalyzer.sln).</summary>
    public static string RepoRoot => s_repoRoot.Value;

    /// <summary>Committed test data of the test project.</summary>
    public static string TestData => Path.Combine(RepoRoot, "XeAnalyzer.Tests", "TestData");

    /// <summary>The committed symbol store.</summary>
    public static string SymbolsCache => Path.Combine(RepoRoot, "symbols-cache");

    /// <summary>The committed sample captures.</summary>
    public static string Samples => Path.Combine(RepoRoot, "sample-xel");

    /// <summary>
    /// The shared real-world vectors (<c>../shared/vectors</c> beside the checkout, or <c>XEANALYZER_VECTORS</c>),
    /// or <see langword="null"/> when they are not present (a fresh clone elsewhere).
    /// </summary>
    public static string? Vectors
    {
        get
        {
            string? env = Environment.GetEnvironmentVariable("XEANALYZER_VECTORS");
            if (!string.IsNullOrEmpty(env) && Directory.Exists(env))
            {
                return env;
            }

            string candidate = Path.GetFullPath(Path.Combine(RepoRoot, "..", "shared", "vectors"));
            return Directory.Exists(candidate) ? candidate : null;
        }
    }

    /// <summary>Returns the path of a shared vector file, or marks the test inconclusive-ignored when the vectors are absent.</summary>
    public static string RequireVector(params string[] relative)
    {
        string? root = Vectors;
        if (root is null)
        {
            Assert.Ignore("../shared/vectors is not present; this test reads a shared real-world vector.");
        }

        string path = Path.Combine([root!, .. relative]);
        Assert.That(File.Exists(path), Is.True, $"expected shared vector {path}");
        return path;
    }

    private static string FindRepoRoot()
    {
        string? dir = AppContext.BaseDirectory;
        while (dir is not null)
        {
            if (File.Exists(Path.Combine(dir, "XeAnalyzer.sln")))
            {
                return dir;
            }

            dir = Path.GetDirectoryName(dir);
        }

        throw new InvalidOperationException("XeAnalyzer.sln not found above " + AppContext.BaseDirectory);
    }
}

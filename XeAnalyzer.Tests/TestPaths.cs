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

    /// <summary>The prefix of a test-case argument naming a shared vector (see <see cref="ResolveCase"/>).</summary>
    public const string VectorCasePrefix = "vectors/";

    /// <summary>
    /// The shared vectors' folder. When it is absent (a fresh clone elsewhere) the test is ignored with the reason, in
    /// CI too: the vectors are optional data beside the checkout, the project's own tests run on committed fixtures,
    /// and <c>.ci/run</c> says whether the vectors were there and how many tests were skipped for want of them.
    /// </summary>
    public static string RequireVectors()
    {
        string? root = Vectors;
        if (root is null)
        {
            Assert.Ignore("../shared/vectors is not present; this test reads a shared real-world vector.");
        }

        return root!;
    }

    /// <summary>The path of a shared vector file (see <see cref="RequireVectors"/> for a missing folder); a missing
    /// file fails the test.</summary>
    public static string RequireVector(params string[] relative)
    {
        string path = Path.Combine([RequireVectors(), .. relative]);
        Assert.That(File.Exists(path), Is.True, $"expected shared vector {path}");
        return path;
    }

    /// <summary>
    /// A test-case argument for a shared vector (<c>vectors/xel/sqlhealth.xel</c>), resolved inside the test by
    /// <see cref="ResolveCase"/>, so a missing vector is decided when the test runs, not when cases are discovered.
    /// </summary>
    public static string VectorCase(params string[] relative) => VectorCasePrefix + string.Join('/', relative);

    /// <summary>The path a test-case argument names: a <see cref="VectorCase"/> through <see cref="RequireVector"/>,
    /// anything else as is.</summary>
    public static string ResolveCase(string argument) =>
        argument.StartsWith(VectorCasePrefix, StringComparison.Ordinal)
            ? RequireVector(argument[VectorCasePrefix.Length..].Split('/'))
            : argument;

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

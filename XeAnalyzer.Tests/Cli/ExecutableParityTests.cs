using XeAnalyzer.Tests.Analysis;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// xeanalyze as a child process (the published binary <c>XEANALYZE_BINARY</c> names, else <c>dotnet xeanalyze.dll</c>)
/// writes the bytes it writes in-process: exit code, stdout, stderr and every file. The cases are exports beyond the
/// golden one: trimming and NativeAOT warn about Parquet.Net code that every export runs (DataField's type discovery,
/// docs/install.md), so every column type (all-types.xel), every compression and the resolved-frames list column are
/// written by both. It also checks which shared libraries the child loads.
/// </summary>
public sealed class ExecutableParityTests
{
    private const string Sym = "--symbols symbols-cache --binaries symbols-cache --offline";

    private static readonly string[] Commands =
    [
        "export XeAnalyzer.Tests/TestData/xel/all-types.xel -o {out}",
        "export XeAnalyzer.Tests/TestData/xel/all-types.xel --compression snappy --row-group-size 1 -o {out}",
        "export sample-xel/blob_storage_waits --compression gzip -o {out}",
        "export sample-xel/latch_nesting_full --resolve " + Sym + " --compression none -o {out}",
    ];

    public static IEnumerable<TestCaseData> AllCommands() => Commands.Select(c => new TestCaseData(c));

    [TestCaseSource(nameof(AllCommands))]
    public void ChildProcess_WritesTheInProcessBytes(string command)
    {
        using var inProcessOut = new TempFolder();
        using var childOut = new TempFolder();
        string repo = TestPaths.RepoRoot;
        (int Exit, string Out, string Err) inProcess = CliRunner.RunIn(repo, Args(command, inProcessOut.Path));
        (int Exit, string Out, string Err) child = CliRunner.RunExecutableIn(repo, Args(command, childOut.Path));

        Assert.That(inProcess.Exit, Is.Zero, inProcess.Err);
        Assert.That(child.Exit, Is.EqualTo(inProcess.Exit), child.Err);
        Assert.That(
            child.Out.Replace(childOut.Path, "{out}", StringComparison.Ordinal),
            Is.EqualTo(inProcess.Out.Replace(inProcessOut.Path, "{out}", StringComparison.Ordinal))
        );
        Assert.That(child.Err, Is.EqualTo(inProcess.Err));

        Dictionary<string, byte[]> expected = Files(inProcessOut.Path);
        Dictionary<string, byte[]> actual = Files(childOut.Path);
        Assert.That(expected.Keys.Count(k => k.EndsWith(".parquet", StringComparison.Ordinal)), Is.Positive);
        Assert.That(actual.Keys, Is.EquivalentTo(expected.Keys));
        foreach ((string name, byte[] bytes) in expected)
        {
            Assert.That(actual[name], Is.EqualTo(bytes), name);
        }
    }

    /// <summary>
    /// Reading, analysing and resolving against a local store never load OpenSSL, so the published binary runs on a
    /// Linux image without <c>libssl</c> (docs/install.md). glibc's loader lists every library it loads, dlopen
    /// included, under <c>LD_DEBUG=libs</c>.
    /// </summary>
    [TestCase("info sample-xel/ring_buffer_waits/ring_buffer_waits.ring_buffer.xml")]
    [TestCase("waits sample-xel/ring_buffer_waits/ring_buffer_waits.ring_buffer.xml")]
    [TestCase("stacks sample-xel/latch_nesting_full_histogram " + Sym)]
    [TestCase("report sample-xel/system_health_stacks " + Sym + " -o {out}")]
    [TestCase("batch sample-xel -o {out}")]
    public void ChildProcess_LocalWork_LoadsNoOpenSsl(string command)
    {
        Assume.That(OperatingSystem.IsLinux(), "LD_DEBUG is glibc's");
        using var output = new TempFolder();
        var environment = new Dictionary<string, string> { ["LD_DEBUG"] = "libs" };

        (int exit, _, string err) = CliRunner.RunExecutableIn(
            TestPaths.RepoRoot,
            environment,
            Args(command, Path.Combine(output.Path, "out"))
        );

        Assert.That(exit, Is.AnyOf(0, 4), err.Length > 4000 ? err[^4000..] : err);
        Assert.That(err, Does.Contain("libc.so"), "the loader's list of libraries was captured");
        Assert.That(err, Does.Not.Contain("libssl").And.Not.Contain("libcrypto"));
    }

    private static string[] Args(string command, string outDir) =>
        [.. command.Split(' ').Select(a => a == "{out}" ? outDir : a)];

    private static Dictionary<string, byte[]> Files(string folder) =>
        Directory
            .EnumerateFiles(folder, "*", SearchOption.AllDirectories)
            .ToDictionary(f => Path.GetRelativePath(folder, f), File.ReadAllBytes, StringComparer.Ordinal);
}

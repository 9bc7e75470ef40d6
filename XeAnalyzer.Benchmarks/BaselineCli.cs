using System.Diagnostics;
using System.Globalization;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Builds the <c>xeanalyze</c> CLI of an earlier commit, so the symbolizer benchmarks run today's code and the baseline
/// in the same run. The commit is exported with <c>git archive</c> into <c>$TMP/xebench-baseline-cli-&lt;commit&gt;</c>
/// (no worktree is registered) and its <c>XeAnalyzer.Cli</c> built in Release; a folder that already holds the built
/// CLI is reused.
/// </summary>
internal static class BaselineCli
{
    /// <summary>
    /// The commit before the symbolizer work of issue 12 (the parent of the first commit that added
    /// <c>XeAnalyzer/Symbols/Pdb/PdbPublicTable.cs</c>): the default baseline.
    /// </summary>
    public static string DefaultRef(string repo)
    {
        string first = BaselineBuild
            .Git(repo, "rev-list", "--reverse", "HEAD", "--", "XeAnalyzer/Symbols/Pdb/PdbPublicTable.cs")
            .Split('\n')[0]
            .Trim();
        return first.Length == 0 ? "HEAD" : first + "^";
    }

    /// <summary>Builds (or reuses) the CLI of <paramref name="reference"/>; returns its <c>xeanalyze.dll</c> and a note
    /// saying what it is.</summary>
    public static (string Dll, string Note) Build(string repo, string reference)
    {
        string commit = BaselineBuild.Git(repo, "rev-parse", "--short", reference + "^{commit}");
        string subject = BaselineBuild.Git(repo, "log", "-1", "--format=%cs %s", commit);
        string dir = Path.Combine(Path.GetTempPath(), "xebench-baseline-cli-" + commit);
        string dll = Path.Combine(dir, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        string note = string.Create(
            CultureInfo.InvariantCulture,
            $"baseline: commit {commit} ({(subject.Length > 90 ? subject[..90] + "…" : subject)})"
        );
        if (File.Exists(dll))
        {
            return (dll, note + ", CLI built earlier in " + dir);
        }

        if (Directory.Exists(dir))
        {
            Directory.Delete(dir, recursive: true);
        }

        Directory.CreateDirectory(dir);
        var sw = Stopwatch.StartNew();
        BaselineBuild.Run("sh", repo, "-c", "git archive --format=tar \"$1\" | tar -x -C \"$2\"", "sh", commit, dir);
        BaselineBuild.Run(
            "dotnet",
            dir,
            "build",
            "XeAnalyzer.Cli/XeAnalyzer.Cli.csproj",
            "-c",
            "Release",
            "-nologo",
            "-v",
            "q"
        );
        if (!File.Exists(dll))
        {
            throw new InvalidOperationException("building the baseline CLI at " + commit + " produced no " + dll);
        }

        return (
            dll,
            string.Create(CultureInfo.InvariantCulture, $"{note}, CLI built in {dir} in {sw.Elapsed.TotalSeconds:F0} s")
        );
    }
}

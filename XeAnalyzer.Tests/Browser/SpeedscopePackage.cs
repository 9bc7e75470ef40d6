using System.Diagnostics;
using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Browser;

/// <summary>
/// The npm packages of <c>tools/speedscope</c> (the speedscope viewer and Ajv, pinned by its package-lock.json;
/// installed by <c>npm ci</c> there, as <c>.ci/run</c> does) and Node.js, under the <see cref="ToolRequirement"/>
/// policy.
/// </summary>
internal static class SpeedscopePackage
{
    public const string MissingMessage =
        "Node.js or the npm packages of tools/speedscope are missing (install the Debian packages nodejs and npm, then "
        + "run 'npm ci' in tools/speedscope; .ci/run does both) for the speedscope schema and viewer tests.";

    /// <summary>tools/speedscope.</summary>
    public static string Folder => Path.Combine(TestPaths.RepoRoot, "tools", "speedscope");

    /// <summary>The speedscope package's built viewer (index.html, its script, the file format's schema).</summary>
    public static string Viewer => Path.Combine(Folder, "node_modules", "speedscope", "dist", "release");

    /// <summary>Returns the node executable, or fails (CI=true) or ignores the test with the reason.</summary>
    public static string RequireNode()
    {
        string? node = LlvmTools.Find("node");
        bool installed =
            File.Exists(Path.Combine(Viewer, "index.html"))
            && File.Exists(Path.Combine(Folder, "node_modules", "ajv", "package.json"));
        ToolRequirement.Require(node is not null && installed, MissingMessage);
        return node!;
    }

    /// <summary>Runs <c>validate.mjs</c> (Ajv against speedscope's file-format schema) on the files.</summary>
    /// <returns>Its exit code (0 all valid, 1 one invalid, 2 unreadable) and its output.</returns>
    public static (int Exit, string Output) Validate(string node, params string[] files)
    {
        var psi = new ProcessStartInfo(node)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = Folder,
        };
        psi.ArgumentList.Add(Path.Combine(Folder, "validate.mjs"));
        foreach (string f in files)
        {
            psi.ArgumentList.Add(f);
        }

        using Process p = Process.Start(psi)!;
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        string stdout = p.StandardOutput.ReadToEnd();
        if (!p.WaitForExit(60_000))
        {
            p.Kill();
            Assert.Fail("node validate.mjs did not finish within 60 s");
        }

        return (p.ExitCode, stdout + stderr.Result);
    }
}

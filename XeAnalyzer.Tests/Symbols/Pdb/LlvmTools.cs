using System.Diagnostics;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>Runs the LLVM 14 oracles (llvm-pdbutil-14, llvm-readobj-14, …) when they are installed.</summary>
internal static class LlvmTools
{
    /// <summary>The full path of <paramref name="tool"/> on PATH, or <see langword="null"/>.</summary>
    public static string? Find(string tool)
    {
        foreach (
            string dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(
                Path.PathSeparator,
                StringSplitOptions.RemoveEmptyEntries
            )
        )
        {
            string candidate = Path.Combine(dir, tool);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }

    /// <summary>Runs the tool and returns its standard output; fails the test on a non-zero exit.</summary>
    public static string Run(string toolPath, string workingDirectory, params string[] args)
    {
        var psi = new ProcessStartInfo(toolPath)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = workingDirectory,
            UseShellExecute = false,
        };
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        string stdout = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        Assert.That(p.ExitCode, Is.EqualTo(0), $"{toolPath} {string.Join(' ', args)} failed: {stderr.Result}");
        return stdout;
    }

    /// <summary>The tool's path, or fails (CI=true) / ignores the test with the reason when it is not
    /// installed.</summary>
    public static string Require(string tool)
    {
        string? path = Find(tool);
        ToolRequirement.Require(
            path is not null,
            tool + " is not installed (Debian package llvm-14); this test compares against it live."
        );

        return path!;
    }
}

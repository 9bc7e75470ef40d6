using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Cli;

namespace XeAnalyzer.Tests;

/// <summary>
/// The one way tests run the CLI: in-process through <see cref="Program.Run"/> (stdout and stderr captured, culture-invariant
/// writers), optionally in another working directory, or as a child process (<c>dotnet xeanalyze.dll</c>), plain or under a
/// pseudo-terminal.
/// </summary>
internal static class CliRunner
{
    /// <summary>How long a child process may run before the test fails instead of hanging.</summary>
    private const int ProcessLimitMilliseconds = 300_000;

    /// <summary>The CLI assembly copied beside the tests.</summary>
    public static string CliDll => Path.Combine(AppContext.BaseDirectory, "xeanalyze.dll");

    /// <summary>Runs <c>xeanalyze <paramref name="args"/></c> in-process.</summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) Run(params string[] args)
    {
        using var o = new StringWriter(CultureInfo.InvariantCulture);
        using var e = new StringWriter(CultureInfo.InvariantCulture);
        int exit = Program.Run(args, o, e);
        return (exit, o.ToString(), e.ToString());
    }

    /// <summary>Runs <c>xeanalyze <paramref name="args"/></c> in-process with <paramref name="workingDirectory"/> as the current directory (restored afterwards).</summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunIn(string workingDirectory, params string[] args)
    {
        string cwd = Environment.CurrentDirectory;
        try
        {
            Environment.CurrentDirectory = workingDirectory;
            return Run(args);
        }
        finally
        {
            Environment.CurrentDirectory = cwd;
        }
    }

    /// <summary>Runs <c>dotnet xeanalyze.dll <paramref name="args"/></c> as a child process (no terminal: stdout and stderr are pipes).</summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunProcess(params string[] args)
    {
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        psi.ArgumentList.Add(CliDll);
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        Task<string> err = p.StandardError.ReadToEndAsync();
        string stdout = p.StandardOutput.ReadToEnd();
        Assert.That(p.WaitForExit(ProcessLimitMilliseconds), Is.True, "xeanalyze finished");
        return (p.ExitCode, stdout, err.GetAwaiter().GetResult());
    }
}

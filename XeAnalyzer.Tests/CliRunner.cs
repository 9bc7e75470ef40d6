using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Cli;

namespace XeAnalyzer.Tests;

/// <summary>
/// The one way tests run the CLI: in-process through <see cref="Program.Run"/> (stdout and stderr captured,
/// culture-invariant writers), optionally in another working directory, or as a child process
/// (<c>dotnet xeanalyze.dll</c>, or the published binary <c>XEANALYZE_BINARY</c> names), plain or under a
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

    /// <summary>Runs <c>xeanalyze <paramref name="args"/></c> in-process with <paramref name="workingDirectory"/> as
    /// the current directory (restored afterwards).</summary>
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

    /// <summary>
    /// The published <c>xeanalyze</c> executable (<c>dotnet publish XeAnalyzer.Cli -r RID</c>) named by the
    /// environment variable <c>XEANALYZE_BINARY</c>, or <see langword="null"/> when it is not set. <c>.ci/run</c> sets
    /// it to run the golden tests against the NativeAOT binary.
    /// </summary>
    public static string? PublishedBinary { get; } =
        Environment.GetEnvironmentVariable("XEANALYZE_BINARY") is { Length: > 0 } binary
            ? Path.GetFullPath(binary)
            : null;

    /// <summary>
    /// Runs <c>xeanalyze <paramref name="args"/></c> in <paramref name="workingDirectory"/> as the CLI under test: the
    /// <see cref="PublishedBinary"/> as a child process when it is set, else in-process (<see cref="RunIn"/>).
    /// </summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunUnderTestIn(string workingDirectory, params string[] args) =>
        PublishedBinary is null ? RunIn(workingDirectory, args) : RunExecutableIn(workingDirectory, args);

    /// <summary>
    /// Runs <c>xeanalyze <paramref name="args"/></c> in <paramref name="workingDirectory"/> as a child process: the
    /// <see cref="PublishedBinary"/> when it is set, else <c>dotnet xeanalyze.dll</c>.
    /// </summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunExecutableIn(string workingDirectory, params string[] args) =>
        PublishedBinary is null
            ? RunChild("dotnet", [CliDll, .. args], workingDirectory)
            : RunChild(PublishedBinary, args, workingDirectory);

    /// <summary>
    /// As <see cref="RunExecutableIn(string, string[])"/>, with <paramref name="environment"/> added to the child's
    /// environment.
    /// </summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunExecutableIn(
        string workingDirectory,
        IReadOnlyDictionary<string, string> environment,
        params string[] args
    ) =>
        PublishedBinary is null
            ? RunChild("dotnet", [CliDll, .. args], workingDirectory, environment)
            : RunChild(PublishedBinary, args, workingDirectory, environment);

    /// <summary>Runs <c>dotnet xeanalyze.dll <paramref name="args"/></c> as a child process (no terminal: stdout and
    /// stderr are pipes).</summary>
    /// <returns>The exit code and everything written to stdout and stderr.</returns>
    public static (int Exit, string Out, string Err) RunProcess(params string[] args) =>
        RunChild("dotnet", [CliDll, .. args], workingDirectory: null);

    /// <summary>
    /// Runs <paramref name="fileName"/> with <paramref name="args"/>: stdout and stderr are pipes read as UTF-8 (what
    /// the CLI writes) and stdin is closed at once, so the child sees no terminal and waits for no input.
    /// </summary>
    private static (int Exit, string Out, string Err) RunChild(
        string fileName,
        IEnumerable<string> args,
        string? workingDirectory,
        IReadOnlyDictionary<string, string>? environment = null
    )
    {
        var psi = new ProcessStartInfo(fileName)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            RedirectStandardInput = true,
            StandardOutputEncoding = new System.Text.UTF8Encoding(false),
            StandardErrorEncoding = new System.Text.UTF8Encoding(false),
            UseShellExecute = false,
        };
        if (workingDirectory is not null)
        {
            psi.WorkingDirectory = workingDirectory;
        }

        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            psi.Environment[name] = value;
        }

        using Process p = Process.Start(psi)!;
        p.StandardInput.Close();
        Task<string> err = p.StandardError.ReadToEndAsync();
        string stdout = p.StandardOutput.ReadToEnd();
        Assert.That(p.WaitForExit(ProcessLimitMilliseconds), Is.True, "xeanalyze finished");
        return (p.ExitCode, stdout, err.GetAwaiter().GetResult());
    }
}

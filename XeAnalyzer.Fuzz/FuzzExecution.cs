using System.Globalization;

namespace XeAnalyzer.Fuzz;

/// <summary>What kind of problem an input caused. Only these fail a fuzz run; a clear error for bad input is the
/// expected outcome.</summary>
public enum FindingKind
{
    /// <summary>No problem.</summary>
    None,

    /// <summary>A command printed <c>internal error</c>, threw, or exited with an undocumented code; or the library
    /// threw outside its exception family.</summary>
    InternalError,

    /// <summary>The input took longer than the hang limit.</summary>
    Hang,

    /// <summary>The input made the process allocate more than the memory limit.</summary>
    Memory,
}

/// <summary>The verdict on one input.</summary>
/// <param name="Kind">The problem, or <see cref="FindingKind.None"/>.</param>
/// <param name="Detail">What happened (the command and its error line, or the exception), empty when there is no
/// problem.</param>
/// <param name="Elapsed">How long the input took.</param>
/// <param name="AllocatedBytes">Bytes allocated by the process while the input ran.</param>
public sealed record FuzzVerdict(FindingKind Kind, string Detail, TimeSpan Elapsed, long AllocatedBytes)
{
    /// <summary>Whether the input found a problem.</summary>
    public bool IsFinding => Kind != FindingKind.None;
}

/// <summary>
/// One execution of one input: a scratch folder for its files, and the checks on each command and library call. A
/// command may exit 0 to 5 (the documented codes) with any message except <c>internal error</c>; a library call may
/// throw only
/// <see cref="XeFormatException"/> (or an I/O error).
/// </summary>
public sealed class FuzzExecution
{
    private static readonly int[] DocumentedExitCodes = [0, 1, 2, 3, 4, 5];
    private readonly string _work;
    private readonly List<string> _problems = [];

    /// <summary>Creates an execution whose files go to <paramref name="work"/> (an absolute path).</summary>
    /// <param name="work">The scratch folder.</param>
    public FuzzExecution(string work)
    {
        _work = work;
    }

    /// <summary>How often each command ended with each exit code, over every execution of this process (for the run
    /// summary).</summary>
    public static System.Collections.Concurrent.ConcurrentDictionary<string, long> ExitCounts { get; } =
        new(StringComparer.Ordinal);

    /// <summary>The problems found so far (one line each).</summary>
    public IReadOnlyList<string> Problems => _problems;

    /// <summary>Writes <paramref name="bytes"/> to <paramref name="name"/> in the scratch folder and returns its
    /// path.</summary>
    public string WriteInput(string name, byte[] bytes) => WriteFile(Path.Combine(_work, name), bytes);

    /// <summary>Writes <paramref name="bytes"/> to <paramref name="path"/> (inside the scratch folder), creating its
    /// folder.</summary>
    public string WriteFile(string path, byte[] bytes)
    {
        InsideWork(path);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    /// <summary>A fresh, empty folder <paramref name="name"/> in the scratch folder.</summary>
    public string Folder(string name)
    {
        string dir = Path.Combine(_work, name);
        if (Directory.Exists(dir))
        {
            Directory.Delete(dir, recursive: true);
        }

        Directory.CreateDirectory(dir);
        return dir;
    }

    /// <summary>Runs <c>xeanalyze</c> with <paramref name="args"/> in-process and checks its outcome.</summary>
    /// <returns>The exit code, or -1 when the CLI threw.</returns>
    public int Cli(params string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        using var error = new StringWriter(CultureInfo.InvariantCulture);
        int exit;
        try
        {
            exit = XeAnalyzer.Cli.Program.Run(args, output, error);
        }
#pragma warning disable CA1031 // whatever escapes the CLI is the finding
        catch (Exception ex)
#pragma warning restore CA1031
        {
            _problems.Add("xeanalyze " + Shown(args) + ": threw " + ex.GetType().Name + ": " + ex.Message);
            return -1;
        }

        ExitCounts.AddOrUpdate(
            (args.Length > 0 ? args[0] : "(none)") + " " + exit.ToString(CultureInfo.InvariantCulture),
            1,
            (_, n) => n + 1
        );
        string err = error.ToString();
        string? internalError = err.Split('\n')
            .FirstOrDefault(l => l.Contains("internal error", StringComparison.Ordinal));
        if (internalError is not null)
        {
            _problems.Add("xeanalyze " + Shown(args) + ": " + internalError.Trim());
        }
        else if (!DocumentedExitCodes.Contains(exit))
        {
            _problems.Add(
                "xeanalyze "
                    + Shown(args)
                    + string.Create(CultureInfo.InvariantCulture, $": undocumented exit code {exit}")
            );
        }

        return exit;
    }

    /// <summary>
    /// Runs <c>xeanalyze</c> with <paramref name="folder"/> (inside the scratch folder) as the current directory, so
    /// relative paths the arguments name, read or written, stay there.
    /// </summary>
    /// <returns>The exit code, or -1 when the CLI threw.</returns>
    public int CliIn(string folder, params string[] args)
    {
        string cwd = Environment.CurrentDirectory;
        Environment.CurrentDirectory = InsideWork(folder);
        try
        {
            return Cli(args);
        }
        finally
        {
            Environment.CurrentDirectory = cwd;
        }
    }

    /// <summary>
    /// Runs <paramref name="body"/> with the per-user folders (configuration: the build catalog; cache: symbols) inside
    /// the scratch folder and no symbol path or catalog from the environment, restoring them afterwards.
    /// </summary>
    public void WithUserFolders(Action body)
    {
        ArgumentNullException.ThrowIfNull(body);
        string[] names = ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "_NT_SYMBOL_PATH", "XEANALYZER_BUILD_CATALOG"];
        string?[] saved = [.. names.Select(Environment.GetEnvironmentVariable)];
        Environment.SetEnvironmentVariable(names[0], Folder("config"));
        Environment.SetEnvironmentVariable(names[1], Folder("user-cache"));
        Environment.SetEnvironmentVariable(names[2], null);
        Environment.SetEnvironmentVariable(names[3], null);
        try
        {
            body();
        }
        finally
        {
            for (int i = 0; i < names.Length; i++)
            {
                Environment.SetEnvironmentVariable(names[i], saved[i]);
            }
        }
    }

    /// <summary>Runs a library call; anything but <see cref="XeFormatException"/> or an I/O error is a
    /// problem.</summary>
    public void Library(string what, Action call)
    {
        ArgumentNullException.ThrowIfNull(call);
        try
        {
            call();
        }
        catch (Exception ex) when (ex is XeFormatException or IOException or UnauthorizedAccessException)
        {
            // Bad input, reported clearly: the expected outcome.
        }
#pragma warning disable CA1031 // everything else is the finding
        catch (Exception ex)
#pragma warning restore CA1031
        {
            _problems.Add(
                what
                    + ": "
                    + ex.GetType().Name
                    + ": "
                    + ex.Message
                    + " at "
                    + ex.StackTrace?.Split('\n').FirstOrDefault()?.Trim()
            );
        }
    }

    private string InsideWork(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (!Path.GetFullPath(path).StartsWith(_work + Path.DirectorySeparatorChar, StringComparison.Ordinal))
        {
            throw new ArgumentException(
                "the fuzz harness writes only inside its scratch folder, not to " + path,
                nameof(path)
            );
        }

        return path;
    }

    private string Shown(string[] args) =>
        string.Join(' ', args.Select(a => a.Replace(_work, "<work>", StringComparison.Ordinal)));
}

using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// An earlier commit of XeAnalyzer built from a temporary git worktree, run as the baseline of a benchmark in the same
/// run as the current code: its own benchmark program (its child modes) and its own <c>xeanalyze</c>.
/// </summary>
/// <remarks>
/// The worktree is <c>$TMPDIR/xebench-baseline-COMMIT</c>; a worktree already built there (by an earlier run) is
/// reused, since a commit never changes. Remove it with <c>git worktree remove --force DIR</c>.
/// </remarks>
internal sealed partial class BaselineBuild
{
    /// <summary>
    /// The commit the issue-12 benchmarks compare with by default: main before the parallel, pooled reader (the
    /// baseline of docs/performance.md's issue-12 table).
    /// </summary>
    public const string PerformanceBaseline = "380d976b7757052c2131c97b82e99181a25ab0bd";

    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    private BaselineBuild(string commit, string worktree, string note)
    {
        Commit = commit;
        Worktree = worktree;
        Note = note;
    }

    /// <summary>The commit (short hash).</summary>
    public string Commit { get; }

    /// <summary>The worktree.</summary>
    public string Worktree { get; }

    /// <summary>How the build was obtained.</summary>
    public string Note { get; }

    /// <summary>The baseline's benchmark program.</summary>
    public string BenchmarkDll =>
        Path.Combine(Worktree, "XeAnalyzer.Benchmarks", "bin", "Release", "net10.0", "XeAnalyzer.Benchmarks.dll");

    /// <summary>The baseline's <c>xeanalyze</c>.</summary>
    public string CliDll => Path.Combine(Worktree, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");

    /// <summary>Checks <paramref name="reference"/> out into a worktree and builds its benchmark program (and, with
    /// <paramref name="cli"/>, its CLI).</summary>
    /// <param name="reference">A commit, branch or tag.</param>
    /// <param name="cli">Whether the CLI is needed too.</param>
    /// <param name="reuse">Whether an existing build of the same commit may be reused.</param>
    /// <returns>The build.</returns>
    public static BaselineBuild Prepare(string reference, bool cli, bool reuse = true)
    {
        string repo = RepoRoot();
        string commit = Git(repo, "rev-parse", "--short", reference);
        string worktree = Path.Combine(Path.GetTempPath(), "xebench-baseline-" + commit);
        var b = new BaselineBuild(commit, worktree, "built in " + worktree);
        if (reuse && File.Exists(b.BenchmarkDll) && (!cli || File.Exists(b.CliDll)))
        {
            return new BaselineBuild(commit, worktree, "reusing the build in " + worktree);
        }

        if (Directory.Exists(worktree))
        {
            Git(repo, "worktree", "remove", "--force", worktree);
        }

        Git(repo, "worktree", "add", "--detach", worktree, commit);
        DotnetBuild(worktree, "XeAnalyzer.Benchmarks/XeAnalyzer.Benchmarks.csproj");
        if (cli)
        {
            DotnetBuild(worktree, "XeAnalyzer.Cli/XeAnalyzer.Cli.csproj");
        }

        return b;
    }

    /// <summary>Removes the worktree.</summary>
    public void Remove()
    {
        if (Directory.Exists(Worktree))
        {
            Git(RepoRoot(), "worktree", "remove", "--force", Worktree);
        }
    }

    /// <summary>The current code's commit, and whether it has uncommitted changes.</summary>
    public static string CurrentCode()
    {
        string repo = RepoRoot();
        return Git(repo, "rev-parse", "--short", "HEAD")
            + (
                Git(repo, "status", "--porcelain", "--untracked-files=no").Length > 0
                    ? " (with uncommitted changes)"
                    : string.Empty
            );
    }

    /// <summary>The repository holding this benchmark.</summary>
    public static string RepoRoot()
    {
        foreach (string start in new[] { Environment.CurrentDirectory, AppContext.BaseDirectory })
        {
            for (string? d = start; d is not null; d = Path.GetDirectoryName(d))
            {
                if (File.Exists(Path.Combine(d, "XeAnalyzer.sln")))
                {
                    return d;
                }
            }
        }

        throw new InvalidOperationException("XeAnalyzer.sln not found above " + AppContext.BaseDirectory);
    }

    /// <summary>Runs git in <paramref name="repo"/> and returns its output, trimmed.</summary>
    public static string Git(string repo, params string[] args) => Run("git", repo, args);

    /// <summary>Runs <paramref name="program"/> in <paramref name="directory"/> and returns its output, trimmed; a
    /// non-zero exit throws with its output.</summary>
    public static string Run(string program, string directory, params string[] args)
    {
        var psi = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = directory,
        };
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        Task<string> err = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd().Trim();
        p.WaitForExit();
        if (p.ExitCode != 0)
        {
            throw new InvalidOperationException(
                program
                    + " "
                    + string.Join(" ", args)
                    + " failed (exit "
                    + p.ExitCode.ToString(CultureInfo.InvariantCulture)
                    + "): "
                    + output
                    + err.Result
            );
        }

        return output;
    }

    /// <summary>The first number before <paramref name="unit"/> in a child's line (for example <c>M events/s</c>), or
    /// NaN.</summary>
    public static double Figure(string line, string unit)
    {
        Match m = Regex.Match(line, @"([0-9][0-9,]*(?:\.[0-9]+)?) " + Regex.Escape(unit));
        return m.Success
            ? double.Parse(m.Groups[1].Value.Replace(",", string.Empty, StringComparison.Ordinal), Ic)
            : double.NaN;
    }

    /// <summary>The median.</summary>
    public static double Median(IEnumerable<double> values)
    {
        double[] v = [.. values.Where(x => !double.IsNaN(x)).Order()];
        return v.Length == 0 ? double.NaN
            : v.Length % 2 == 1 ? v[v.Length / 2]
            : (v[(v.Length / 2) - 1] + v[v.Length / 2]) / 2;
    }

    /// <summary>"min–max" of the values.</summary>
    public static string Spread(IEnumerable<double> values, string format = "F2")
    {
        double[] v = [.. values.Where(x => !double.IsNaN(x))];
        return v.Length == 0 ? "n/a" : v.Min().ToString(format, Ic) + "–" + v.Max().ToString(format, Ic);
    }

    /// <summary>The machine's load average now (Linux), for the record.</summary>
    public static string Load()
    {
        try
        {
            string[] f = File.ReadAllText("/proc/loadavg").Split(' ');
            return "load average " + f[0] + " " + f[1] + " " + f[2];
        }
        catch (IOException)
        {
            return "load average unknown";
        }
    }

    private static void DotnetBuild(string worktree, string project)
    {
        var psi = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = worktree,
        };
        foreach (string a in new[] { "build", project, "-c", "Release", "-nologo", "-v", "q" })
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        Task<string> err = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        if (p.ExitCode != 0)
        {
            throw new InvalidOperationException(
                "building " + project + " at " + worktree + " failed: " + output + err.Result
            );
        }
    }
}

/// <summary>The child lines of a comparison benchmark, by what ran (for example <c>latches 1gb baseline</c>), and their
/// summary.</summary>
internal sealed class RunTable
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;
    private readonly Dictionary<string, List<string>> _lines = new(StringComparer.Ordinal);

    /// <summary>Records and prints one child's line.</summary>
    public void Add(string key, string line)
    {
        if (!_lines.TryGetValue(key, out List<string>? l))
        {
            _lines[key] = l = [];
        }

        l.Add(line);
        Console.WriteLine(key + ": " + line);
    }

    /// <summary>The median of a figure over the runs of <paramref name="key"/>.</summary>
    public double Median(string key, string unit) =>
        _lines.TryGetValue(key, out List<string>? l)
            ? BaselineBuild.Median(l.Select(x => BaselineBuild.Figure(x, unit)))
            : double.NaN;

    /// <summary>The spread of a figure over the runs of <paramref name="key"/>.</summary>
    public string Spread(string key, string unit, string format = "F2") =>
        _lines.TryGetValue(key, out List<string>? l)
            ? BaselineBuild.Spread(l.Select(x => BaselineBuild.Figure(x, unit)), format)
            : "n/a";

    /// <summary>
    /// One summary line comparing the baseline's and the current code's events/s for <paramref name="what"/> (keys
    /// <c>what baseline</c> and <c>what new</c>), with the ratio of the medians and whether it reaches
    /// <paramref name="target"/>; sets <paramref name="met"/> false when not.
    /// </summary>
    public string Compare(string what, double target, ref bool met, string unit = "M events/s")
    {
        double b = Median(what + " baseline", unit),
            n = Median(what + " new", unit);
        double ratio = n / b;
        bool ok = double.IsNaN(b) || ratio >= target;
        met &= ok;
        double cb = CpuBoundMedian(what + " baseline"),
            cn = CpuBoundMedian(what + " new");
        string cpu = double.IsNaN(cn)
            ? string.Empty
            : string.Create(
                Ic,
                $"; CPU-bound estimate (events / max(busiest thread CPU, process CPU / "
                    + $"{Environment.ProcessorCount}), what an otherwise idle machine allows): baseline {cb:F2}, new "
                    + $"{cn:F2}: {cn / cb:F2}x"
            );
        return string.Create(
                Ic,
                $"{what}: baseline {b:F2} {unit} (runs {Spread(what + " baseline", unit)}, peak "
                    + $"{Spread(what + " baseline", "MiB; gen2", "F0")} MiB), new {n:F2} (runs "
                    + $"{Spread(what + " new", unit)}, peak {Spread(what + " new", "MiB; gen2", "F0")} MiB): "
                    + $"{ratio:F2}x "
                    + $"(target >= {target:0.##}x: {(double.IsNaN(b) ? "no baseline" : ok ? "met" : "NOT met")})"
            ) + cpu;
    }

    /// <summary>The median of <see cref="CpuBound"/> over the runs of <paramref name="key"/>.</summary>
    public double CpuBoundMedian(string key) =>
        _lines.TryGetValue(key, out List<string>? l) ? BaselineBuild.Median(l.Select(CpuBound)) : double.NaN;

    /// <summary>
    /// M events/s that a run's CPU time allows on an otherwise idle machine: events / max(busiest thread CPU, process
    /// CPU / cores), from the child's own line (events, <c>busiest thread cpu</c> when it reports it: a single-threaded
    /// baseline does not) and
    /// <c>/usr/bin/time</c>'s user and system time; NaN without them.
    /// </summary>
    public static double CpuBound(string line)
    {
        double events = BaselineBuild.Figure(line, "events");
        Match t = Regex.Match(line, @"/usr/bin/time: cpu user ([0-9.]+) s, sys ([0-9.]+) s");
        if (double.IsNaN(events) || !t.Success)
        {
            return double.NaN;
        }

        double process = double.Parse(t.Groups[1].Value, Ic) + double.Parse(t.Groups[2].Value, Ic);
        Match busiest = Regex.Match(line, @"busiest thread cpu ([0-9.]+) s");
        double bound = busiest.Success
            ? Math.Max(double.Parse(busiest.Groups[1].Value, Ic), process / Environment.ProcessorCount)
            : process;
        return events / bound / 1e6;
    }
}

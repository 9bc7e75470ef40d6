using System.Diagnostics;

namespace XeAnalyzer.Benchmarks;

/// <summary>Runs this benchmark program again in a fresh process (so peak memory is measured per run) and returns its
/// output line.</summary>
internal static class ChildProcess
{
    /// <summary>Starts this program with <paramref name="args"/>, waits for it and returns its standard output,
    /// trimmed.</summary>
    public static string Run(params string[] args)
    {
        var psi = new ProcessStartInfo(Environment.ProcessPath!)
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath!) == "dotnet")
        {
            psi.ArgumentList.Add(typeof(ChildProcess).Assembly.Location);
        }

        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        return Finish(psi);
    }

    /// <summary>Runs another build's benchmark program (<c>dotnet <paramref name="dll"/> args</c>) and returns its
    /// standard output, trimmed.</summary>
    public static string RunDll(string dll, params string[] args)
    {
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        psi.ArgumentList.Add(dll);
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        return Finish(psi);
    }

    /// <summary>
    /// Like <see cref="RunDll"/> (<paramref name="dll"/> <see langword="null"/>: this program), under
    /// <c>/usr/bin/time</c> when it exists, so the child's CPU time and peak resident set are measured by the OS the
    /// same way for every build; the measurement (<c>cpu user … s, sys … s, max RSS … MiB</c>) is appended to the
    /// returned line.
    /// </summary>
    public static string RunTimed(string? dll, params string[] args)
    {
        const string Time = "/usr/bin/time";
        if (!File.Exists(Time))
        {
            return dll is null ? Run(args) : RunDll(dll, args);
        }

        string report = Path.GetTempFileName();
        var psi = new ProcessStartInfo(Time) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (string a in new[] { "-o", report, "-f", "%U %S %M", "dotnet" })
        {
            psi.ArgumentList.Add(a);
        }

        psi.ArgumentList.Add(dll ?? typeof(ChildProcess).Assembly.Location);
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }

        string line = Finish(psi);
        string[] f = File.ReadAllText(report).Trim().Split(' ');
        File.Delete(report);
        double user = double.Parse(f[0], System.Globalization.CultureInfo.InvariantCulture),
            sys = double.Parse(f[1], System.Globalization.CultureInfo.InvariantCulture);
        long rssKb = long.Parse(f[2], System.Globalization.CultureInfo.InvariantCulture);
        return line
            + string.Create(
                System.Globalization.CultureInfo.InvariantCulture,
                $"; /usr/bin/time: cpu user {user:F2} s, sys {sys:F2} s, max RSS {rssKb / 1024.0:F0} MiB"
            );
    }

    /// <summary>
    /// This process's CPU time and its busiest thread's (the reading thread that feeds the consumers, in every child
    /// here): on a machine shared with other work, elapsed time depends on the load, but the busiest thread's CPU time
    /// bounds what an idle 2-core machine would take.
    /// </summary>
    public static string CpuNote()
    {
        using Process me = Process.GetCurrentProcess();
        me.Refresh();
        double busiest = 0;
        foreach (ProcessThread t in me.Threads)
        {
            try
            {
                busiest = Math.Max(busiest, t.TotalProcessorTime.TotalSeconds);
            }
            catch (InvalidOperationException)
            {
                // The thread ended.
            }
        }

        return string.Create(
            System.Globalization.CultureInfo.InvariantCulture,
            $"; process cpu {me.TotalProcessorTime.TotalSeconds:F2} s, busiest thread cpu {busiest:F2} s"
        );
    }

    private static string Finish(ProcessStartInfo psi)
    {
        using Process p = Process.Start(psi)!;
        string line = p.StandardOutput.ReadToEnd().Trim();
        p.WaitForExit();
        return line;
    }
}

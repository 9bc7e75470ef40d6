using System.Diagnostics;

namespace XeAnalyzer.Benchmarks;

/// <summary>Runs this benchmark program again in a fresh process (so peak memory is measured per run) and returns its output line.</summary>
internal static class ChildProcess
{
    /// <summary>Starts this program with <paramref name="args"/>, waits for it and returns its standard output, trimmed.</summary>
    public static string Run(params string[] args)
    {
        var psi = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true, UseShellExecute = false };
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

    /// <summary>Runs another build's benchmark program (<c>dotnet <paramref name="dll"/> args</c>) and returns its standard output, trimmed.</summary>
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

    private static string Finish(ProcessStartInfo psi)
    {
        using Process p = Process.Start(psi)!;
        string line = p.StandardOutput.ReadToEnd().Trim();
        p.WaitForExit();
        return line;
    }
}

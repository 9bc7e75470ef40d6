using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Peak memory per distinct stack of <c>xeanalyze stacks</c> (each format), <c>diff</c> (the file against itself and
/// against a variant) and <c>report</c> on histogram XML of N distinct one-frame <c>sqlmin.dll+0x…</c> slots resolved
/// against the committed <c>symbols-cache/</c>:
/// <c>dotnet run -c Release --project XeAnalyzer.Benchmarks -- stackmem [--slots 250000,1000000]
/// [--dir /tmp/xestackmem] [--only stacks,stacks-json,diff-variant,…]</c>.
/// Each command runs as the user runs it, in a process of its own (the built <c>xeanalyze.dll</c>, standard output
/// drained and counted), under <c>/usr/bin/time</c>, which gives its peak resident set.
/// </summary>
/// <remarks>
/// Slot i holds <c>sqlmin.dll+0x</c> (0x1040 + i, 16 digits): one distinct frame per slot. The synthetic sqlmin.dll's
/// image ends at RVA 0x11080, so the first 65,600 slots resolve to names
/// (<c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1</c>, …) and the rest stay unresolved with a reason (RVA past
/// the end of the image), as frames of another build would. The variant drops every tenth slot (i mod 10 = 3), doubles
/// the count (plus one) of every seventh and adds N/10 slots past the last: common stacks whose counts change, vanished
/// and new ones.
/// </remarks>
internal static class StackMemoryBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        int[] slots = [250_000, 1_000_000];
        string dir = Path.Combine(Path.GetTempPath(), "xestackmem");
        HashSet<string>? only = null;
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--slots":
                    slots = [.. args[i + 1].Split(',').Select(s => int.Parse(s, Ic))];
                    break;
                case "--dir":
                    dir = args[i + 1];
                    break;
                case "--only":
                    only = [.. args[i + 1].Split(',')];
                    break;
                default:
                    Console.Error.WriteLine("unknown option " + args[i]);
                    return 2;
            }
        }

        string repo = BatchBenchmark.FindRepo();
        string cli = Path.Combine(repo, "XeAnalyzer.Cli", "bin", "Release", "net10.0", "xeanalyze.dll");
        string symbols = Path.Combine(repo, "symbols-cache");
        Directory.CreateDirectory(dir);
        Console.WriteLine(
            "XeAnalyzer memory per distinct stack: histogram XML of N distinct one-frame sqlmin.dll+0x... slots, "
                + "each command in its own process"
        );
        Console.WriteLine(
            string.Create(
                Ic,
                $"runtime {Environment.Version}, {Environment.ProcessorCount} cores; load {Load()}; {cli}"
            )
        );
        foreach (int n in slots)
        {
            string path = Path.Combine(dir, "sqlmin_slots_" + n.ToString(Ic) + ".xml");
            string variant = Path.Combine(dir, "sqlmin_slots_" + n.ToString(Ic) + "_variant.xml");
            if (!File.Exists(path))
            {
                Write(path, n, variant: false);
            }

            if (!File.Exists(variant))
            {
                Write(variant, n, variant: true);
            }

            // The size of the file itself, not of a symbolic link to it.
            var info = new FileInfo(path);
            long xml = ((FileInfo?)info.ResolveLinkTarget(returnFinalTarget: true) ?? info).Length;
            string report = Path.Combine(dir, "report_" + n.ToString(Ic));
            string[] store = ["--symbols", symbols, "--binaries", symbols, "--offline", "--quiet"];
            (string Name, string[] Args)[] commands =
            [
                ("stacks", ["stacks", path, .. store]),
                ("stacks-json", ["stacks", path, "--format", "json", .. store]),
                ("stacks-csv", ["stacks", path, "--format", "csv", .. store]),
                ("stacks-folded", ["stacks", path, "--format", "folded", .. store]),
                ("stacks-svg", ["stacks", path, "--format", "svg", .. store]),
                ("stacks-speedscope", ["stacks", path, "--format", "speedscope", .. store]),
                ("diff", ["diff", path, path, .. store]),
                ("diff-variant", ["diff", path, variant, .. store]),
                ("report", ["report", path, "-o", report, .. store]),
            ];
            Console.WriteLine(string.Create(Ic, $"{n:N0} slots, {xml / 1048576.0:F1} MiB of XML ({path})"));
            foreach ((string name, string[] a) in commands.Where(c => only is null || only.Contains(c.Name)))
            {
                if (Directory.Exists(report))
                {
                    Directory.Delete(report, recursive: true);
                }

                (long peakKb, double seconds, long stdout, int exit) = Measure(cli, a);
                long peak = peakKb * 1024;
                Console.WriteLine(
                    string.Create(
                        Ic,
                        $"  {name, -17} peak RSS {peak / 1048576.0, 6:F0} MiB ({(double)peak / xml:F1}x the XML, "
                            + $"{(double)peak / n:F0} bytes per distinct stack); "
                            + $"{seconds:F1} s; stdout {stdout:N0} bytes; exit {exit}"
                    )
                );
                Console.WriteLine("                    command: xeanalyze " + string.Join(' ', a));
            }
        }

        return 0;
    }

    private static void Write(string path, int slots, bool variant)
    {
        using var w = new StreamWriter(path, false, new UTF8Encoding(false), 1 << 20) { NewLine = "\n" };
        w.WriteLine("<HistogramTarget truncated=\"0\" buckets=\"16384\">");
        for (int i = 0; i < (variant ? slots + (slots / 10) : slots); i++)
        {
            long count = (i * 7919L % 1000) + 1;
            if (variant && i < slots && i % 10 == 3)
            {
                continue;
            }

            if (variant && i < slots && i % 7 == 0)
            {
                count = (count * 2) + 1;
            }

            w.Write("<Slot count=\"");
            w.Write(count.ToString(Ic));
            w.Write("\"><value>sqlmin.dll+0x");
            w.Write((0x1040UL + (ulong)i).ToString("X16", Ic));
            w.WriteLine("</value></Slot>");
        }

        w.WriteLine("</HistogramTarget>");
    }

    /// <summary>Runs <c>dotnet cli args</c> under <c>/usr/bin/time</c>: its peak resident set (KiB), elapsed seconds,
    /// stdout bytes, exit code.</summary>
    private static (long PeakKb, double Seconds, long Stdout, int Exit) Measure(string cli, string[] args)
    {
        string timeFile = Path.GetTempFileName();
        var psi = new ProcessStartInfo("/usr/bin/time") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (string a in (string[])["-o", timeFile, "-f", "%M %e", "dotnet", cli, .. args])
        {
            psi.ArgumentList.Add(a);
        }

        using Process p = Process.Start(psi)!;
        long bytes = 0;
        var buffer = new char[1 << 16];
        int read;
        while ((read = p.StandardOutput.Read(buffer, 0, buffer.Length)) > 0)
        {
            bytes += Encoding.UTF8.GetByteCount(buffer.AsSpan(0, read));
        }

        p.WaitForExit();
        string[] f = File.ReadAllText(timeFile).Trim().Split('\n')[^1].Split(' ');
        File.Delete(timeFile);
        return (long.Parse(f[0], Ic), double.Parse(f[1], Ic), bytes, p.ExitCode);
    }

    private static string Load() => File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Trim() : "n/a";
}

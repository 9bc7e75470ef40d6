using System.Diagnostics;
using System.Text;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Xel;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// The progress display through a real pseudo-terminal: the built <c>xeanalyze</c> runs under util-linux <c>script</c>
/// (stderr on the pty, stdout redirected to a file), on a capture generated here (about 45 MB). Progress shows on the
/// terminal, stdout bytes are those of a run without a terminal, and <c>--quiet</c> or a redirected stderr show none
/// (no text, no ANSI escape).
/// </summary>
[CancelAfter(600_000)]
[NonParallelizable]
public sealed class TerminalProgressTests
{
    private const string Escape = "\u001b";

    /// <summary>
    /// What every .NET console program writes to a terminal when its console starts (terminfo's keypad_xmit:
    /// application cursor keys), with or without this project's progress display (the CLI before it did the same); it
    /// is not progress and is removed before the "no escape" checks.
    /// </summary>
    private const string DotnetKeypadMode = "\u001b[?1h\u001b=";

    private TempFolder _temp = null!;
    private string _capture = null!;

    [OneTimeSetUp]
    public void GenerateCapture()
    {
        _temp = new TempFolder();
        _capture = _temp.File("big_latches.xel");
        WriteLatchCapture(_capture, events: 240_000);
    }

    [OneTimeTearDown]
    public void TearDown() => _temp.Dispose();

    [Test]
    public void ActivityDetail_ShowsRateAndTimeLeft_OnceAQuarterSecondHasPassed()
    {
        long f = System.Diagnostics.Stopwatch.Frequency;
        var a = new XeAnalyzer.Cli.Progress.TerminalProgress.Activity(
            "reading",
            "/data/big_latches.xel",
            XeAnalyzer.Cli.Progress.TerminalProgress.Unit.Bytes,
            started: 0,
            startDone: 0
        );
        Assert.That(a.Title, Is.EqualTo("reading big_latches.xel"));
        // 10 MiB of 40 MiB after 0.1 s: too early for a rate.
        Assert.That(a.Detail(10L << 20, 40L << 20, null, f / 10, 120), Is.EqualTo("10.0 MiB of 40.0 MiB"));
        // 10 MiB after 2 s: 5 MiB/s, 30 MiB left = 6 s.
        Assert.That(
            a.Detail(10L << 20, 40L << 20, null, 2 * f, 120),
            Is.EqualTo("10.0 MiB of 40.0 MiB, 5.0 MiB/s, 0:06 left")
        );
        // A narrow terminal drops the time left, then the rate.
        Assert.That(a.Detail(10L << 20, 40L << 20, null, 2 * f, 31), Is.EqualTo("10.0 MiB of 40.0 MiB, 5.0 MiB/s"));
        Assert.That(a.Detail(10L << 20, 40L << 20, null, 2 * f, 20), Is.EqualTo("10.0 MiB of 40.0 MiB"));
    }

    [Test]
    public void OnATerminal_ProgressShows_AndStdoutIsTheSameAsWithoutOne()
    {
        string script = Pty.Script();
        string withTerminal = _temp.File("latches-tty.txt");
        string pty = Pty.Run(
            script,
            "stty cols 120 rows 40 && " + Pty.Cli("latches", _capture) + " > " + Pty.Quote(withTerminal),
            delayMs: 0,
            out int exit
        );
        Assert.That(exit, Is.EqualTo(0), pty);

        // (a) The bar, its figures and Spectre.Console's cursor handling are on the terminal (120 columns: room for the
        // rate and time left).
        Assert.That(pty, Does.Contain("reading big_latches.xel"), Visible(pty));
        // The rate and time left need a quarter of a second of reading, which a fast machine may not spend on this
        // file; their text is checked without a terminal in
        // ActivityDetail_ShowsRateAndTimeLeft_OnceAQuarterSecondHasPassed.
        Assert.That(pty, Does.Match(@"\d+\.\d MiB of 5\d\.\d MiB"), Visible(pty));
        Assert.That(pty, Does.Match(@" \d+%"), Visible(pty));
        Assert.That(
            pty.Contains(Escape + "[?25l", StringComparison.Ordinal),
            Is.True,
            "the cursor is hidden while the bar shows"
        );
        Assert.That(
            pty.EndsWith(Escape + "[?25h", StringComparison.Ordinal),
            Is.True,
            "the display is cleared at the end and the cursor shown again: " + Visible(pty)
        );

        // (b) stdout: byte for byte what a run without any terminal writes.
        string plain = _temp.File("latches-plain.txt");
        int plainExit = Pty.RunWithoutTerminal(
            Pty.Cli("latches", _capture) + " > " + Pty.Quote(plain) + " 2> " + Pty.Quote(_temp.File("plain-err.txt"))
        );
        Assert.That(plainExit, Is.EqualTo(0));
        byte[] expected = File.ReadAllBytes(plain);
        Assert.That(expected, Is.Not.Empty);
        Assert.That(File.ReadAllBytes(withTerminal), Is.EqualTo(expected), "stdout bytes with stderr on a terminal");
        Assert.That(File.ReadAllText(_temp.File("plain-err.txt")), Is.Empty);
    }

    [Test]
    public void OnATerminal_TheDisplayIsClearedBeforeTheFinalMessage()
    {
        string script = Pty.Script();
        // Every latch event is read (and counted for progress), none passes the filter: exit 4 with a message at the
        // very end.
        string pty = Pty.Run(
            script,
            Pty.Cli("latches", _capture, "--where", "class=NO_SUCH_CLASS") + " > /dev/null",
            delayMs: 0,
            out int exit
        );
        Assert.That(exit, Is.EqualTo(4), Visible(pty));
        Assert.That(pty, Does.Contain("reading big_latches.xel"), Visible(pty));
        int message = pty.IndexOf("xeanalyze: ", StringComparison.Ordinal);
        Assert.That(message, Is.GreaterThan(0), Visible(pty));
        Assert.That(
            pty.LastIndexOf(Escape + "[?25h", StringComparison.Ordinal),
            Is.LessThan(message),
            "the cursor is back before the message: " + Visible(pty)
        );
        Assert.That(
            pty[message..].Contains(Escape, StringComparison.Ordinal)
                || pty[message..].Contains("reading ", StringComparison.Ordinal),
            Is.False,
            "nothing of the display after the message: " + Visible(pty)
        );
    }

    [Test]
    public void OnATerminal_Quiet_ShowsNoProgress()
    {
        string script = Pty.Script();
        string quietOut = _temp.File("latches-quiet.txt");
        string pty = Pty.Run(
            script,
            Pty.Cli("latches", _capture, "--quiet") + " > " + Pty.Quote(quietOut),
            delayMs: 0,
            out int exit
        );
        Assert.That(exit, Is.EqualTo(0), pty);
        Assert.That(WithoutKeypadMode(pty), Is.Empty, "nothing on the terminal, no ANSI escape: " + Visible(pty));
        Assert.That(File.ReadAllBytes(quietOut), Is.Not.Empty);

        // -q before the command (the option is shared by every command) does the same.
        pty = Pty.Run(
            script,
            "dotnet " + Pty.Quote(Pty.CliDll) + " -q latches " + Pty.Quote(_capture) + " > /dev/null",
            delayMs: 0,
            out exit
        );
        Assert.That(exit, Is.EqualTo(0), pty);
        Assert.That(WithoutKeypadMode(pty), Is.Empty, Visible(pty));
    }

    [Test]
    public void StderrRedirected_NoProgressAndNoEscapes_EvenInATerminal()
    {
        string script = Pty.Script();
        string err = _temp.File("stacks-err.txt");
        string pty = Pty.Run(
            script,
            Pty.Cli("export", _capture, "--format", "parquet", "-o", _temp.File("parquet"))
                + " > /dev/null 2> "
                + Pty.Quote(err),
            delayMs: 0,
            out int exit
        );
        Assert.That(exit, Is.EqualTo(0), File.ReadAllText(err));
        Assert.That(WithoutKeypadMode(pty), Is.Empty, "nothing reaches the terminal: " + Visible(pty));
        string stderr = File.ReadAllText(err);
        Assert.That(
            stderr.Contains(Escape, StringComparison.Ordinal),
            Is.False,
            "no ANSI escape in the redirected stderr: " + Visible(stderr)
        );
        Assert.That(stderr, Does.Not.Contain("reading"));
    }

    [Test]
    public void Export_OnATerminal_ShowsProgressOverBothPasses()
    {
        string script = Pty.Script();
        string pty = Pty.Run(
            script,
            Pty.Cli("export", _capture, "--format", "parquet", "-o", _temp.File("parquet-tty")) + " > /dev/null",
            delayMs: 0,
            out int exit
        );
        Assert.That(exit, Is.EqualTo(0), Visible(pty));
        Assert.That(pty, Does.Contain("reading big_latches.xel"), Visible(pty));
        Assert.That(pty.EndsWith(Escape + "[?25h", StringComparison.Ordinal), Is.True, Visible(pty));
    }

    private static string WithoutKeypadMode(string pty) =>
        pty.Replace(DotnetKeypadMode, string.Empty, StringComparison.Ordinal);

    /// <summary>The terminal text with escapes made visible, for failure messages.</summary>
    private static string Visible(string s) =>
        s.Replace(Escape, "\\e", StringComparison.Ordinal).Replace("\r", "\\r", StringComparison.Ordinal);

    /// <summary>latch_acquired events with 16-frame callstacks (about 190 bytes each): the shape of the analyses'
    /// captures, big enough to read for a while.</summary>
    internal static void WriteLatchCapture(string path, int events)
    {
        XeSchema s = XelFixtures.LatchSchema(out XeEventType t, out XeColumn[] a);
        var stacks = new ulong[64][];
        for (int i = 0; i < stacks.Length; i++)
        {
            stacks[i] = new ulong[16];
            for (int f = 0; f < 16; f++)
            {
                stacks[i][f] = 0x00007FFAF2BD0000UL + (ulong)(i * 0x1000) + (ulong)(f * 0x40);
            }
        }

        ulong[] classes = [0, 28, 41, 57];
        var fields = new XeValue[7];
        var actions = new XeValue[4];
        using XelWriter w = XelWriter.Create(
            path,
            s,
            new XelWriterOptions
            {
                StartTimeUtc = XelFixtures.Start,
                BufferSize = 1 << 16,
                Partitions = 4,
            }
        );
        for (int i = 0; i < events; i++)
        {
            fields[0] = XeValue.Create(t.Fields[0], classes[i % 4]);
            fields[1] = XeValue.Create(t.Fields[1], (ulong)(i % 6));
            fields[2] = XeValue.Create(t.Fields[2], 0x000001A2B3C4D000UL + (ulong)(i % 4096 * 64));
            fields[3] = XeValue.Create(t.Fields[3], 5UL);
            fields[4] = XeValue.Create(t.Fields[4], 1UL);
            fields[5] = XeValue.Create(t.Fields[5], (ulong)(100 + (i % 1000)));
            fields[6] = XeValue.Create(t.Fields[6], (ulong)(i % 97));
            actions[0] = XeValue.Create(a[0], (ulong)(i % 8));
            actions[1] = XeValue.Create(a[1], (ulong)(51 + (i % 7)));
            actions[2] = XeValue.Create(a[2], (ulong)(i + 1));
            actions[3] = XeValue.Create(a[3], stacks[i % stacks.Length]);
            w.Write(t, XelFixtures.Start.AddTicks(i * 100L), fields, actions, i % 4);
        }
    }
}

/// <summary>Runs the built <c>xeanalyze</c> under util-linux <c>script</c>: a real pseudo-terminal on the command's
/// stdin, stdout and stderr.</summary>
internal static class Pty
{
    public static string CliDll => Path.Combine(AppContext.BaseDirectory, "xeanalyze.dll");

    /// <summary>The <c>script</c> program (Debian's bsdutils); fails on CI and ignores the test elsewhere when it is
    /// missing.</summary>
    public static string Script()
    {
        string? script = new[] { "/usr/bin/script", "/bin/script" }.FirstOrDefault(File.Exists);
        ToolRequirement.Require(
            script is not null,
            "util-linux 'script' (package bsdutils) is not installed: no pseudo-terminal to run the CLI in."
        );
        return script!;
    }

    /// <summary>A shell command line running the built CLI with <paramref name="args"/>.</summary>
    public static string Cli(params string[] args) =>
        "dotnet " + string.Join(' ', new[] { CliDll }.Concat(args).Select(Quote));

    public static string Quote(string a) => "'" + a.Replace("'", "'\\''", StringComparison.Ordinal) + "'";

    /// <summary>
    /// Runs <paramref name="shellCommand"/> in a pseudo-terminal (<c>script -qec CMD /dev/null</c>) with
    /// <c>TERM=xterm-256color</c> and returns what reached the terminal; <paramref name="delayMs"/> sets how long work
    /// runs before progress may show (null: the default).
    /// </summary>
    public static string Run(string script, string shellCommand, int? delayMs, out int exit)
    {
        var psi = new ProcessStartInfo(script)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (string a in new[] { "-q", "-e", "-c", shellCommand, "/dev/null" })
        {
            psi.ArgumentList.Add(a);
        }

        psi.Environment["TERM"] = "xterm-256color";
        if (delayMs is int d)
        {
            psi.Environment["XEANALYZER_PROGRESS_DELAY_MS"] = d.ToString(
                System.Globalization.CultureInfo.InvariantCulture
            );
        }
        else
        {
            psi.Environment.Remove("XEANALYZER_PROGRESS_DELAY_MS");
        }

        psi.StandardOutputEncoding = Encoding.UTF8;
        using Process p = Process.Start(psi)!;
        p.StandardInput.Close();
        Task<string> err = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd();
        Assert.That(p.WaitForExit(300_000), Is.True, "the command finished");
        _ = err.GetAwaiter().GetResult();
        exit = p.ExitCode;
        return output;
    }

    /// <summary>Runs <paramref name="shellCommand"/> with no terminal at all (every stream a pipe or a file); returns
    /// the exit code.</summary>
    public static int RunWithoutTerminal(string shellCommand)
    {
        var psi = new ProcessStartInfo("/bin/sh")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        psi.ArgumentList.Add("-c");
        psi.ArgumentList.Add(shellCommand);
        psi.Environment["TERM"] = "xterm-256color";
        psi.Environment["XEANALYZER_PROGRESS_DELAY_MS"] = "0";
        using Process p = Process.Start(psi)!;
        p.StandardInput.Close();
        Task<string> err = p.StandardError.ReadToEndAsync();
        _ = p.StandardOutput.ReadToEnd();
        Assert.That(p.WaitForExit(300_000), Is.True, "the command finished");
        _ = err.GetAwaiter().GetResult();
        return p.ExitCode;
    }
}

using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.IO;
using XeAnalyzer.Output;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>Shared pieces of the commands that read captures: the capture argument, <c>--skip-corrupt</c>, and error
/// handling.</summary>
internal static class CaptureCommandSupport
{
    public static Option<bool> SkipCorruptOption() =>
        new("--skip-corrupt")
        {
            Description =
                "Skip damaged buffers (reported on stderr, exit code 3) instead of stopping at the first damage.",
        };

    /// <summary>
    /// Runs a command body, turning input errors into one line on stderr and exit code 1 (never a stack trace). While
    /// it runs, the progress display of <see cref="TerminalProgress"/> is <see cref="TerminalProgress.Current"/> (when
    /// it may show), and the body writes through it; it is cleared before the command returns.
    /// </summary>
    public static int Run(ParseResult parse, Func<TextWriter, TextWriter, int> body)
    {
        TextWriter output = parse.InvocationConfiguration.Output;
        TextWriter error = parse.InvocationConfiguration.Error;
        using TerminalProgress? progress = TerminalProgress.Start(parse, output, error);
        if (progress is not null)
        {
            output = progress.Output;
            error = progress.Error;
        }

        try
        {
            return body(output, error);
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            output.Flush();
            error.WriteLine("xeanalyze: " + ex.Message);
            return ExitCodes.InputError;
        }
        catch (UsageException ex)
        {
            output.Flush();
            error.WriteLine("xeanalyze: " + ex.Message);
            return ExitCodes.Usage;
        }
        catch (RegexMatchTimeoutException ex)
        {
            output.Flush();
            error.WriteLine(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"xeanalyze: --where: the pattern '{ex.Pattern}' took longer than "
                        + $"{ex.MatchTimeout.TotalSeconds:0.#} s "
                ) + "on one value; write one that backtracks less"
            );
            return ExitCodes.Usage;
        }
        catch (OperationCanceledException)
        {
            error.WriteLine("xeanalyze: cancelled");
            return ExitCodes.InputError;
        }
#pragma warning disable CA1031 // The CLI promises one line on stderr, never a stack trace, even for its own bugs.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            output.Flush();
            error.WriteLine("xeanalyze: internal error (" + ex.GetType().Name + "): " + ex.Message);
            return ExitCodes.InputError;
        }
    }

    /// <summary>
    /// Ends a command that read captures: writes every warning of the run to stderr once (the reader's, target data's,
    /// the analyses' and the resolver's), the partial-result line when data was skipped, and returns the exit code of
    /// <paramref name="status"/>.
    /// </summary>
    public static int Finish(
        CaptureDiagnostics diagnostics,
        TextWriter error,
        AnalysisStatus status = AnalysisStatus.Complete
    )
    {
        foreach (string w in diagnostics.Warnings)
        {
            error.WriteLine("xeanalyze: warning: " + w);
        }

        long hidden = diagnostics.WarningCount - diagnostics.Warnings.Count;
        if (hidden > 0)
        {
            error.WriteLine(
                string.Create(CultureInfo.InvariantCulture, $"xeanalyze: warning: {hidden} more warnings not shown")
            );
        }

        if (diagnostics.PartialSummary is string partial)
        {
            error.WriteLine("xeanalyze: " + partial);
            status = AnalysisStatus.Partial;
        }

        return ExitCodes.For(status);
    }

    /// <summary>
    /// Throws the usage error (exit code 2) of a filter that names an event, field or action the capture does not have,
    /// one line each with the nearest names it has (<see cref="EventFilter.FindUnknownNames"/>).
    /// </summary>
    public static void CheckFilterNames(CaptureSummary read)
    {
        IReadOnlyList<string> unknown = read.Filter.FindUnknownNames(read);
        if (unknown.Count > 0)
        {
            throw new UsageException(string.Join("\nxeanalyze: ", unknown));
        }
    }

    /// <summary>
    /// Ends a command without an analysis that read through a filter (<c>events</c>, <c>slice</c>): a name the
    /// capture does not have is a usage error (exit 2); a filter that kept no event says so on stderr, in the words
    /// of <see cref="MissingDataExplainer.ExplainNoMatch"/>, and exits 4 as an analysis whose events the filter left
    /// out does; otherwise as <see cref="Finish"/>.
    /// </summary>
    public static int FinishFiltered(
        CaptureSummary? read,
        CaptureDiagnostics diagnostics,
        TextWriter stdout,
        TextWriter stderr
    )
    {
        if (read is null)
        {
            return Finish(diagnostics, stderr);
        }

        CheckFilterNames(read);
        if (MissingDataExplainer.ExplainNoMatch(read) is string none)
        {
            WriteMessage(none, stdout, stderr);
            return Finish(diagnostics, stderr, AnalysisStatus.MissingData);
        }

        return Finish(diagnostics, stderr);
    }

    /// <summary>Writes the view of <paramref name="source"/> the writer shows to a file (-o) or to standard
    /// output.</summary>
    public static void WriteDocument(
        IDocumentSource source,
        IReportWriter writer,
        string? path,
        TextWriter stdout,
        CancellationToken cancellationToken = default
    ) => WriteOutput(path, stdout, s => OutputFormats.Write(source, writer, s, cancellationToken));

    /// <summary>
    /// Writes the listing (text) of <paramref name="source"/> to stderr, after flushing stdout, each line prefixed with
    /// <paramref name="prefix"/> (for example <c>xeanalyze: </c>).
    /// </summary>
    public static void WriteLines(IDocumentSource source, string prefix, TextWriter stdout, TextWriter stderr)
    {
        stdout.Flush();
        string text = OutputFormats.ToText(source);
        foreach (string line in text.Split('\n').SkipLast(1))
        {
            stderr.WriteLine(prefix + line);
        }
    }

    /// <summary>Writes text to a file (-o) or to standard output.</summary>
    public static void WriteOutput(string? path, TextWriter stdout, Action<Stream> write)
    {
        if (path is not null)
        {
            using var fs = OutputFile.Create(path);
            write(fs);
            return;
        }

        // Decoded as it is written: a long listing is never held whole (bytes, then a string) before it reaches stdout.
        using (var toStdout = new TextWriterStream(stdout))
        {
            write(toStdout);
        }

        stdout.Flush();
    }

    /// <summary>Writes a file.</summary>
    public static void WriteFile(string path, Action<Stream> write)
    {
        using var fs = OutputFile.Create(path);
        write(fs);
    }

    /// <summary>
    /// Writes a message of one or more <c>\n</c>-separated lines to stderr, after flushing stdout: the first line
    /// prefixed with
    /// <c>xeanalyze: </c> (and <paramref name="side"/>, when given), the others as they are.
    /// </summary>
    public static void WriteMessage(string text, TextWriter stdout, TextWriter stderr, string? side = null)
    {
        stdout.Flush();
        string[] lines = text.Split('\n');
        stderr.WriteLine("xeanalyze: " + (side is null ? string.Empty : side + ": ") + lines[0]);
        foreach (string line in lines.Skip(1))
        {
            stderr.WriteLine(line);
        }
    }
}

/// <summary>A bad option value found after parsing (exit code 2).</summary>
internal sealed class UsageException(string message) : Exception(message);

using System.CommandLine;
using System.Globalization;
using System.Text;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>Shared pieces of the commands that read captures: the capture argument, <c>--skip-corrupt</c>, and error handling.</summary>
internal static class CaptureCommandSupport
{
    public static Argument<string[]> CapturesArgument() => new("capture")
    {
        Description = "Capture files, folders (their *.xel files) or globs; rollover files of one session are read as one set.",
        Arity = ArgumentArity.OneOrMore,
    };

    public static Option<bool> SkipCorruptOption() => new("--skip-corrupt")
    {
        Description = "Skip damaged buffers (reported on stderr, exit code 3) instead of stopping at the first damage.",
    };

    public static XelReadOptions ReadOptions(bool skipCorrupt, XelDiagnostics diagnostics, IReadOnlyCollection<string>? eventNames = null) => new()
    {
        Integrity = skipCorrupt ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict,
        Diagnostics = diagnostics,
        EventNames = eventNames,
    };

    /// <summary>Runs a command body, turning input errors into one line on stderr and exit code 1 (never a stack trace).</summary>
    public static int Run(ParseResult parse, Func<TextWriter, TextWriter, int> body)
    {
        TextWriter output = parse.InvocationConfiguration.Output;
        TextWriter error = parse.InvocationConfiguration.Error;
        try
        {
            return body(output, error);
        }
        catch (Exception ex) when (ex is XeFormatException or IOException or UnauthorizedAccessException)
        {
            output.Flush();
            error.WriteLine("xeanalyze: " + ex.Message);
            return ExitCodes.InputError;
        }
        catch (UsageException ex)
        {
            error.WriteLine("xeanalyze: " + ex.Message);
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

    /// <summary>Writes the warnings of a read to stderr and returns the exit code (3 when the result is partial).</summary>
    public static int Finish(XelDiagnostics diagnostics, TextWriter error)
    {
        foreach (XelWarning w in diagnostics.Warnings)
        {
            error.WriteLine("xeanalyze: warning: " + w);
        }

        if (diagnostics.WarningCount > diagnostics.Warnings.Count)
        {
            error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"xeanalyze: warning: {diagnostics.WarningCount - diagnostics.Warnings.Count} more warnings not shown"));
        }

        if (diagnostics.IsPartial)
        {
            error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"xeanalyze: partial result: {diagnostics.SkippedBuffers} damaged buffer(s) skipped, {diagnostics.IncompleteBuffers} incomplete final buffer(s), {diagnostics.UndecodableEvents} undecodable event(s)"));
            return ExitCodes.Partial;
        }

        return ExitCodes.Ok;
    }

    /// <summary>
    /// Ends a command whose analysis found what it needs missing: the reader's warnings, then exit code 4, or 3 when the input
    /// was read only in part (the missing events may be in what could not be read, so the session advice may not apply).
    /// </summary>
    public static int FinishMissing(XelDiagnostics diagnostics, TextWriter error)
    {
        if (Finish(diagnostics, error) == ExitCodes.Partial)
        {
            error.WriteLine("xeanalyze: the input could be read only in part: what is reported missing above may be in the part that could not be read");
            return ExitCodes.Partial;
        }

        return ExitCodes.MissingData;
    }

    /// <summary>Writes text to a file (-o) or to standard output.</summary>
    public static void WriteOutput(string? path, TextWriter stdout, Action<Stream> write)
    {
        if (path is not null)
        {
            using var fs = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read);
            write(fs);
            return;
        }

        using var ms = new MemoryStream();
        write(ms);
        stdout.Write(Encoding.UTF8.GetString(ms.GetBuffer(), 0, (int)ms.Length));
        stdout.Flush();
    }

    /// <summary>Writes a file.</summary>
    public static void WriteFile(string path, Action<Stream> write)
    {
        using var fs = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read);
        write(fs);
    }

    /// <summary>
    /// Writes a message of one or more <c>\n</c>-separated lines to stderr, after flushing stdout: the first line prefixed with
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

    /// <summary>A UTC time as ISO 8601 with seven fraction digits and a Z (<c>2024-03-01T12:00:00.0000000Z</c>), as every output writes it.</summary>
    public static string IsoUtc(DateTime t) => t.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture);

    /// <summary>Parses a time given on the command line (ISO 8601; UTC unless an offset is given).</summary>
    public static DateTime? ParseTime(string? text, string option)
    {
        if (string.IsNullOrEmpty(text))
        {
            return null;
        }

        if (DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out DateTime t))
        {
            return DateTime.SpecifyKind(t, DateTimeKind.Utc);
        }

        throw new UsageException(option + ": expected a time such as 2024-03-01T12:00:00Z, found '" + text + "'");
    }
}

/// <summary>A bad option value found after parsing (exit code 2).</summary>
internal sealed class UsageException(string message) : Exception(message);

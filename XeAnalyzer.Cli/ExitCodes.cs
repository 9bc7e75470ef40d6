using XeAnalyzer.Analysis;

namespace XeAnalyzer.Cli;

/// <summary>Process exit codes of <c>xeanalyze</c> (documented in README.md).</summary>
internal static class ExitCodes
{
    /// <summary>Success: every input was read and the output is complete.</summary>
    public const int Ok = 0;

    /// <summary>An input could not be read at all (missing, unreadable, malformed); for batch: some inputs
    /// failed.</summary>
    public const int InputError = 1;

    /// <summary>Usage error: unknown command or option, bad option value.</summary>
    public const int Usage = 2;

    /// <summary>Partial result: output was written, but some data was skipped (corrupt buffers, an incomplete final
    /// buffer, undecodable events).</summary>
    public const int Partial = 3;

    /// <summary>The capture lacks the events, fields or actions the analysis needs (the message says which session
    /// change adds them).</summary>
    public const int MissingData = 4;

    /// <summary>A regression gate tripped (<c>diff --fail-if-grows</c>).</summary>
    public const int GateFailed = 5;

    /// <summary>The exit code of an analysis status: the one mapping every command uses.</summary>
    /// <param name="status">The status.</param>
    /// <returns>0, 3 or 4.</returns>
    public static int For(AnalysisStatus status) =>
        status switch
        {
            AnalysisStatus.Partial => Partial,
            AnalysisStatus.MissingData => MissingData,
            _ => Ok,
        };
}

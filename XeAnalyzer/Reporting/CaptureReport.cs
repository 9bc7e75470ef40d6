using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.IO;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>How a capture report came out.</summary>
public enum ReportStatus
{
    /// <summary>Every input was read whole and at least one analysis ran.</summary>
    Complete,

    /// <summary>
    /// The reader skipped data (damaged or incomplete buffers, undecodable events). The results cover what was read;
    /// when no analysis was possible, the events it needs may be in the part that could not be read.
    /// </summary>
    Partial,

    /// <summary>Every input was read whole, and no analysis was possible with its events (the page says what each would
    /// need).</summary>
    NothingToAnalyse,
}

/// <summary>
/// A capture report made by <see cref="CaptureReporter"/>: the composed page (<see cref="Document"/>), the parts it was
/// built from, and the files <see cref="Write"/> writes. Immutable.
/// </summary>
public sealed class CaptureReport
{
    internal CaptureReport(
        string title,
        IReadOnlyList<string> inputs,
        string? filter,
        CaptureSummary capture,
        Func<string, string> displayPath,
        IReadOnlyList<IAnalysisResult> analyses,
        IReadOnlyList<string> warnings,
        ReportOptions options
    )
    {
        ShowUnresolvedReasons = options.ShowUnresolvedReasons;
        FlameRoot = options.FlameRoot;
        Filter = filter;
        Title = title;
        Inputs = inputs;
        Capture = capture;
        DisplayPath = displayPath;
        Analyses = analyses;
        Read = capture.ReadStatistics;
        Warnings = [.. warnings];
        Status =
            Read.IsPartial ? ReportStatus.Partial
            : !analyses.Any(AnalysisOutcome.Ran) ? ReportStatus.NothingToAnalyse
            : ReportStatus.Complete;
        (Document, Files) = ReportComposer.Compose(this);
    }

    /// <summary>Whether the page's frames end in <c> -- unresolved: reason</c> (<see
    /// cref="ReportOptions.ShowUnresolvedReasons"/>).</summary>
    internal bool ShowUnresolvedReasons { get; }

    /// <summary>Which end of the stacks the page's flame graphs grow from (<see
    /// cref="ReportOptions.FlameRoot"/>).</summary>
    internal FlameRoot FlameRoot { get; }

    /// <summary>The page title.</summary>
    public string Title { get; }

    /// <summary>The inputs, as shown.</summary>
    public IReadOnlyList<string> Inputs { get; }

    /// <summary>The event filter the report was made with (<see cref="ReportOptions.Filter"/>, described), or
    /// <see langword="null"/> for none.</summary>
    public string? Filter { get; }

    /// <summary>What the read found: the inputs, their files and events (those that passed <see cref="Filter"/>),
    /// targets, diagnostics.</summary>
    public CaptureSummary Capture { get; }

    /// <summary>How a path is shown in the report.</summary>
    internal Func<string, string> DisplayPath { get; }

    /// <summary>Every section's result, in page order (<see cref="IAnalysisResult.Sections"/> of each analysis's
    /// result).</summary>
    public IReadOnlyList<IAnalysisResult> Analyses { get; }

    /// <summary>What the reader skipped and the analyses left out.</summary>
    public CaptureReadStatistics Read { get; }

    /// <summary>Reader warnings (with file and offset), target-data warnings, unusable module lists.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>How the report came out.</summary>
    public ReportStatus Status { get; }

    /// <summary>The whole page as a report document (what <c>index.html</c> and <c>report.json</c> hold).</summary>
    public ReportDocument Document { get; }

    /// <summary>The files <see cref="Write"/> writes, in the order it writes them (also listed on the page).</summary>
    public IReadOnlyList<ReportFile> Files { get; }

    /// <summary>The analyses that ran.</summary>
    public IEnumerable<IAnalysisResult> Completed => Analyses.Where(AnalysisOutcome.Ran);

    /// <summary>The analyses that were not possible (missing data).</summary>
    public IEnumerable<IAnalysisResult> NotPossible => Analyses.Where(a => a.Status == AnalysisStatus.MissingData);

    /// <summary>
    /// Writes the report into <paramref name="directory"/> (created if needed): <c>index.html</c> (one self-contained
    /// page),
    /// <c>report.json</c> (the same document), one CSV file per table (<c>&lt;analysis&gt;.&lt;table&gt;.csv</c>), one
    /// SVG file per chart or flame graph, one CSV file per line chart (every point) and a folded-stacks file per flame
    /// graph, each through the writer of its format (<see cref="OutputFormats"/>). Files of the same names are
    /// replaced; other files in the folder are left alone. The bytes depend only on the report.
    /// </summary>
    /// <param name="directory">The output folder.</param>
    /// <param name="cancellationToken">Stops the writing.</param>
    /// <exception cref="IOException">A file cannot be written.</exception>
    public void Write(string directory, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory.CreateDirectory(directory);
        foreach (ReportFile f in Files)
        {
            cancellationToken.ThrowIfCancellationRequested();
            string path = Path.Combine(directory, f.Name);
            // A small buffer: most report files are a few hundred bytes and every writer buffers itself; 64 KB per file
            // was 130 MB of allocation per 100-capture batch (B batch: gen0 collections 51 → 43 per --jobs 1 run).
            using var fs = OutputFile.Create(path, 1 << 13);
            ReportComposer.WriteFile(this, f, fs, cancellationToken);
        }
    }

    /// <summary>A one-line description (status, events, analyses), for logs.</summary>
    /// <returns>The text.</returns>
    public string Describe()
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        string done = string.Join(", ", Completed.Select(a => a.Key));
        string missing = string.Join(", ", NotPossible.Select(a => a.Key));
        return string.Create(
            ic,
            $"{Capture.EventsMatched:N0} events; analyses: "
                + $"{(done.Length == 0 ? "none" : done)}"
                + $"{(missing.Length == 0 ? string.Empty : "; not possible: " + missing)}"
        );
    }
}

/// <summary>What a report file holds.</summary>
public enum ReportFileKind
{
    /// <summary>The HTML page.</summary>
    Html,

    /// <summary>The whole report as JSON (<see cref="JsonReportWriter"/>).</summary>
    Json,

    /// <summary>One table as CSV.</summary>
    TableCsv,

    /// <summary>The points of a line chart as CSV (<c>series,x,y</c>).</summary>
    SeriesCsv,

    /// <summary>A chart or flame graph as SVG.</summary>
    Svg,

    /// <summary>A flame graph's stacks in folded format (root first, <c>a;b;c count</c>).</summary>
    Folded,
}

/// <summary>One file of a written report.</summary>
/// <param name="Name">The file name (no folder).</param>
/// <param name="Kind">What it holds.</param>
/// <param name="Description">What it is (the table or chart title).</param>
/// <param name="Block">The block it is written from, or <see langword="null"/> for the page and the JSON.</param>
public sealed record ReportFile(string Name, ReportFileKind Kind, string Description, ReportBlock? Block);

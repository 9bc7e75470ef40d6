using System.Globalization;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.IO;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The batch's own document and files: <c>index.html</c> (the HTML writer: one row per capture with its status, event
/// counts, analyses and a link to its report) and <c>summary.json</c> (the JSON writer: the same document as data —
/// totals, and per capture its kind, files, module list, folder, status, reason, events by name, analyses,
/// symbolization and warnings; no timing, so it is byte-identical across runs).
/// </summary>
internal static class BatchOutput
{
    /// <summary>The file name of the batch index page.</summary>
    public const string IndexFile = "index.html";

    /// <summary>The file name of the batch summary.</summary>
    public const string SummaryFile = "summary.json";

    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    /// <summary>The name a status has in <c>summary.json</c> and on the page.</summary>
    /// <param name="status">The status.</param>
    /// <returns><c>ok</c>, <c>partial</c>, <c>nothing-to-analyse</c>, <c>failed</c> or <c>not-run</c>.</returns>
    public static string StatusName(BatchStatus status) =>
        status switch
        {
            BatchStatus.Ok => "ok",
            BatchStatus.Partial => "partial",
            BatchStatus.NothingToAnalyse => "nothing-to-analyse",
            BatchStatus.Failed => "failed",
            _ => "not-run",
        };

    /// <summary>Writes <c>summary.json</c> and <c>index.html</c> into <paramref name="directory"/>.</summary>
    /// <param name="result">The batch result.</param>
    /// <param name="directory">The batch output folder.</param>
    /// <param name="cancellationToken">Stops the writing.</param>
    public static void Write(BatchResult result, string directory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(result);
        foreach (
            (string file, string format, ReportDocument document) in new[]
            {
                (SummaryFile, "json", ToDocument(result)),
                (IndexFile, "html", Page(result)),
            }
        )
        {
            using var fs = OutputFile.Create(Path.Combine(directory, file), 1 << 16);
            OutputFormats.Write(document, format, fs, cancellationToken);
        }
    }

    /// <summary>
    /// The batch as a document: the totals by status; one row per capture (linked to its report, with its status,
    /// events, time range, analyses done, symbolization and notes); then, per capture, its files, its events by name,
    /// each analysis's status, its frames by resolution status and its warnings.
    /// </summary>
    /// <param name="result">The batch result.</param>
    /// <returns>The document.</returns>
    public static ReportDocument ToDocument(BatchResult result) => Build(result, page: false);

    /// <summary>
    /// The batch as <c>index.html</c> shows it: the document of <see cref="ToDocument"/> with a captures table of one
    /// line per capture (capture linked to its report, status, events, time range, analyses done, notes); the kind,
    /// the report path, the reason (it is the note) and the symbolization (the Details have its table) stay in
    /// <c>summary.json</c>.
    /// </summary>
    internal static ReportDocument Page(BatchResult result) => Build(result, page: true);

    private static ReportDocument Build(BatchResult result, bool page)
    {
        ArgumentNullException.ThrowIfNull(result);
        var totals = new List<KeyValuePair<string, TableCell>> { new("captures", result.Items.Count) };
        foreach (BatchStatus s in Enum.GetValues<BatchStatus>())
        {
            totals.Add(new(StatusName(s), result.Count(s)));
        }

        totals.Add(new("events", result.Items.Sum(i => i.Events)));

        var captures = new TableBuilder("Captures")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("status"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Timestamp("first event"))
            .AddColumn(TableColumn.Timestamp("last event"))
            .AddColumn(TableColumn.Text("analyses"));
        if (!page)
        {
            captures.AddColumn(TableColumn.Text("symbolization"));
        }

        captures.AddColumn(TableColumn.Text("notes"));
        if (!page)
        {
            captures
                .AddColumn(TableColumn.Text("kind"))
                .AddColumn(TableColumn.Text("report"))
                .AddColumn(TableColumn.Text("reason"));
        }

        var files = new TableBuilder("Capture files")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("file"))
            .AddColumn(TableColumn.Text("module list"));
        var events = new TableBuilder("Events by name")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("events"));
        var analyses = new TableBuilder("Analyses")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("analysis"))
            .AddColumn(TableColumn.Text("status"))
            .AddColumn(TableColumn.Text("note"));
        var symbolization = new TableBuilder("Symbolization (frames counted per event)")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Integer("stacks"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Integer("in-engine"))
            .AddColumn(TableColumn.Integer("resolved offline"))
            .AddColumn(TableColumn.Integer("unverified"))
            .AddColumn(TableColumn.Integer("unresolved"));
        var warnings = new TableBuilder("Warnings")
            .AddColumn(TableColumn.Text("capture"))
            .AddColumn(TableColumn.Text("warning"));
        foreach (BatchItemResult item in result.Items)
        {
            BatchCapture c = item.Capture;
            string report = item.HasReport ? c.Folder + "/" + IndexFile : string.Empty;
            var row = new List<TableCell>
            {
                item.HasReport ? TableCell.FromLink(c.Name, report) : c.Name,
                StatusName(item.Status),
                item.HasReport ? item.Events : TableCell.Empty,
                item.FirstEvent is DateTime f ? f : TableCell.Empty,
                item.LastEvent is DateTime l ? l : TableCell.Empty,
                string.Join(", ", item.Analyses.Where(a => a.Done).Select(a => a.Title)),
            };
            if (!page)
            {
                row.Add(
                    item.Symbolization is SymbolizationCounts r
                        ? string.Create(
                            Ic,
                            $"{r.Frames:N0} frames: {r.InEngine:N0} in-engine, {r.ResolvedOffline:N0} offline, "
                                + $"{r.Unresolved:N0} unresolved"
                        )
                        : string.Empty
                );
            }

            row.Add(Notes(item));
            if (!page)
            {
                row.AddRange([c.IsTargetData ? "target-data" : "xel", report, item.Reason]);
            }

            captures.AddRow([.. row]);
            foreach (string file in c.Files)
            {
                files.AddRow(
                    c.Name,
                    c.DisplayPath(file),
                    c.ModuleList is null ? string.Empty : c.DisplayPath(c.ModuleList)
                );
            }

            foreach (EventTypeSummary e in item.EventsByName)
            {
                events.AddRow(c.Name, e.Name, e.Count);
            }

            foreach (BatchAnalysisStatus a in item.Analyses)
            {
                analyses.AddRow(c.Name, a.Key, a.Done ? "done" : "not-possible", a.Note);
            }

            if (item.Symbolization is SymbolizationCounts s)
            {
                symbolization.AddRow(
                    c.Name,
                    s.Stacks,
                    s.Frames,
                    s.InEngine,
                    s.ResolvedOffline,
                    s.Unverified,
                    s.Unresolved
                );
            }

            foreach (string w in item.Warnings)
            {
                warnings.AddRow(c.Name, w);
            }
        }

        captures.AddNote("Each capture's report is in its folder (the link); summary.json holds this page as data.");
        return new ReportDocument(
            "XeAnalyzer batch",
            [
                new ReportSection("Totals", new KeyValueList(totals)),
                new ReportSection("Captures", captures.Build()),
                new ReportSection(
                    "Details",
                    files.Build(),
                    events.Build(),
                    analyses.Build(),
                    symbolization.Build(),
                    warnings.Build()
                ),
            ]
        )
        {
            Description = "Inputs: " + string.Join(", ", result.Inputs),
        };
    }

    private static string Notes(BatchItemResult item)
    {
        if (item.Reason is not null)
        {
            return item.Reason;
        }

        var parts = new List<string>();
        foreach (BatchAnalysisStatus a in item.Analyses.Where(a => !a.Done))
        {
            parts.Add(a.Title + " not possible");
        }

        if (item.Warnings.Count > 0)
        {
            parts.Add(item.Warnings.Count.ToString("N0", Ic) + " warning(s)");
        }

        if (item.FilterMisses.Count > 0)
        {
            parts.Add("no match for the filter: " + string.Join(" ", item.FilterMisses));
        }

        return string.Join("; ", parts);
    }
}

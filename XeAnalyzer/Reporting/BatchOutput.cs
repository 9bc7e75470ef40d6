using System.Globalization;
using System.Text;
using System.Text.Json;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The batch's own files: <c>index.html</c> (self-contained: inline CSS, no script, a Content-Security-Policy; one row per
/// capture with its status, event counts, analyses and a link to its report) and <c>summary.json</c> (inputs, captures, folders,
/// statuses, reasons, counts; no timing, so it is byte-identical across runs).
/// </summary>
public static class BatchOutput
{
    /// <summary>The file name of the batch index page.</summary>
    public const string IndexFile = "index.html";

    /// <summary>The file name of the batch summary.</summary>
    public const string SummaryFile = "summary.json";

    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    private const string Css = """
        :root { color-scheme: light; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #f3f4f6; color: #1f2328; font: 14px/1.5 "Segoe UI", "DejaVu Sans", "Liberation Sans", Helvetica, Arial, sans-serif; }
        .page { max-width: 1280px; margin: 0 auto; padding: 28px 24px 40px; }
        header { background: #1f3a5f; color: #fff; border-radius: 8px; padding: 22px 28px; margin-bottom: 20px; }
        header h1 { margin: 0; font-size: 26px; font-weight: 600; }
        header p { margin: 6px 0 0; color: #d6e2f0; }
        section { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: 18px 24px 22px; margin-bottom: 20px; }
        h2 { margin: 0 0 12px; font-size: 19px; font-weight: 600; color: #1f3a5f; }
        dl.kv { display: grid; grid-template-columns: max-content auto; gap: 4px 18px; margin: 0; }
        dl.kv dt { color: #57606a; }
        dl.kv dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
        .table-scroll { overflow-x: auto; border: 1px solid #e1e4e8; border-radius: 6px; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; }
        thead th { background: #f0f3f6; text-align: left; padding: 7px 12px; border-bottom: 1px solid #d0d7de; white-space: nowrap; }
        tbody td { padding: 5px 12px; border-bottom: 1px solid #eef0f2; vertical-align: top; overflow-wrap: anywhere; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        a { color: #0b5cad; }
        .status { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; white-space: nowrap; }
        .status-ok { background: #dafbe1; color: #116329; }
        .status-partial { background: #fff8c5; color: #7d4e00; }
        .status-nothing { background: #eaeef2; color: #57606a; }
        .status-failed, .status-not-run { background: #ffebe9; color: #a40e26; }
        footer { color: #6e7781; font-size: 12px; text-align: center; margin-top: 8px; }
        """;

    /// <summary>The name a status has in <c>summary.json</c> and on the page.</summary>
    /// <param name="status">The status.</param>
    /// <returns><c>ok</c>, <c>partial</c>, <c>nothing-to-analyse</c>, <c>failed</c> or <c>not-run</c>.</returns>
    public static string StatusName(BatchStatus status) => status switch
    {
        BatchStatus.Ok => "ok",
        BatchStatus.Partial => "partial",
        BatchStatus.NothingToAnalyse => "nothing-to-analyse",
        BatchStatus.Failed => "failed",
        _ => "not-run",
    };

    /// <summary>Writes <c>index.html</c> and <c>summary.json</c> into <paramref name="directory"/>.</summary>
    /// <param name="result">The batch result.</param>
    /// <param name="directory">The batch output folder.</param>
    /// <param name="cancellationToken">Stops the writing.</param>
    /// <returns>A task that completes when both files are written.</returns>
    public static async Task WriteAsync(BatchResult result, string directory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(result);
        await File.WriteAllBytesAsync(Path.Combine(directory, SummaryFile), SummaryJson(result), cancellationToken).ConfigureAwait(false);
        await File.WriteAllBytesAsync(Path.Combine(directory, IndexFile), OutputText.Utf8NoBom.GetBytes(IndexHtml(result)), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The <c>summary.json</c> bytes (UTF-8, indented, <c>\n</c> line ends).</summary>
    /// <param name="result">The batch result.</param>
    /// <returns>The JSON.</returns>
    public static byte[] SummaryJson(BatchResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        using var ms = new MemoryStream();
        using (var w = new Utf8JsonWriter(ms, JsonOutput.Options(indented: true)))
        {
            w.WriteStartObject();
            w.WriteString("format", "xeanalyzer-batch");
            w.WriteNumber("formatVersion", 1);
            w.WriteString("generator", ReportDocument.DefaultGenerator);
            w.WriteSafeStrings("inputs", result.Inputs);
            w.WriteStartObject("totals");
            w.WriteNumber("captures", result.Items.Count);
            foreach (BatchStatus s in Enum.GetValues<BatchStatus>())
            {
                w.WriteNumber(StatusName(s), result.Count(s));
            }

            w.WriteNumber("events", result.Items.Sum(i => i.Events));
            w.WriteEndObject();
            w.WriteStartArray("captures");
            foreach (BatchItemResult item in result.Items)
            {
                WriteItem(w, item);
            }

            w.WriteEndArray();
            w.WriteEndObject();
        }

        ms.WriteByte((byte)'\n');
        return ms.ToArray();
    }

    /// <summary>The <c>index.html</c> text.</summary>
    /// <param name="result">The batch result.</param>
    /// <returns>The page.</returns>
    public static string IndexHtml(BatchResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var sb = new StringBuilder(16384);
        HtmlReportWriter.AppendPageStart(sb, ReportDocument.DefaultGenerator, "XeAnalyzer batch", Css);
        sb.Append("<header>\n<h1>XeAnalyzer batch</h1>\n<p>").Append(E("Inputs: " + string.Join(", ", result.Inputs))).Append("</p>\n</header>\n");

        sb.Append("<section id=\"totals\">\n<h2>Totals</h2>\n<dl class=\"kv\">\n");
        HtmlReportWriter.AppendKeyValue(sb, "captures", result.Items.Count.ToString("N0", Ic));
        foreach (BatchStatus s in Enum.GetValues<BatchStatus>())
        {
            HtmlReportWriter.AppendKeyValue(sb, StatusName(s), result.Count(s).ToString("N0", Ic));
        }

        HtmlReportWriter.AppendKeyValue(sb, "events", result.Items.Sum(i => i.Events).ToString("N0", Ic));
        sb.Append("</dl>\n</section>\n");

        sb.Append("<section id=\"captures\">\n<h2>Captures</h2>\n<div class=\"table-scroll\">\n<table>\n<thead>\n<tr>")
          .Append("<th>capture</th><th>status</th><th class=\"num\">events</th><th>time range (UTC)</th><th>analyses</th><th>symbolization</th><th>notes</th>")
          .Append("</tr>\n</thead>\n<tbody>\n");
        foreach (BatchItemResult item in result.Items)
        {
            string status = StatusName(item.Status);
            sb.Append("<tr class=\"capture\" data-status=\"").Append(status).Append("\"><td class=\"name\">");
            if (item.HasReport)
            {
                // Folder names are made of [A-Za-z0-9._-] only, so they need no URL escaping.
                sb.Append("<a href=\"").Append(E(item.Capture.Folder)).Append("/index.html\">").Append(E(item.Capture.Name)).Append("</a>");
            }
            else
            {
                sb.Append(E(item.Capture.Name));
            }

            sb.Append("</td><td><span class=\"status status-").Append(item.Status switch
            {
                BatchStatus.NothingToAnalyse => "nothing",
                _ => status,
            }).Append("\">").Append(E(status)).Append("</span></td>")
              .Append("<td class=\"num\">").Append(item.HasReport ? item.Events.ToString("N0", Ic) : string.Empty).Append("</td>")
              .Append("<td>").Append(E(item.FirstEvent is DateTime f && item.LastEvent is DateTime l ? CellFormatter.IsoUtc(f) + " .. " + CellFormatter.IsoUtc(l) : string.Empty)).Append("</td>")
              .Append("<td>").Append(E(string.Join(", ", item.Analyses.Where(a => a.Done).Select(a => a.Title)))).Append("</td>")
              .Append("<td>").Append(E(item.Symbolization is SymbolizationCounts r ? string.Create(Ic, $"{r.Frames:N0} frames: {r.InEngine:N0} in-engine, {r.ResolvedOffline:N0} offline, {r.Unresolved:N0} unresolved") : string.Empty)).Append("</td>")
              .Append("<td>").Append(E(Notes(item))).Append("</td></tr>\n");
        }

        sb.Append("</tbody>\n</table>\n</div>\n</section>\n")
          .Append("<footer>Generated by ").Append(E(ReportDocument.DefaultGenerator)).Append(" (xeanalyze batch). summary.json holds the same data.</footer>\n</div>\n</body>\n</html>\n");
        return sb.ToString();
    }

    private static void WriteItem(Utf8JsonWriter w, BatchItemResult item)
    {
        BatchCapture c = item.Capture;
        w.WriteStartObject();
        w.WriteSafeString("name", c.Name);
        w.WriteString("kind", c.IsTargetData ? "target-data" : "xel");
        w.WriteSafeStrings("files", c.Files.Select(c.DisplayPath));
        w.WriteSafeString("moduleList", c.ModuleList is null ? null : c.DisplayPath(c.ModuleList));
        w.WriteString("status", StatusName(item.Status));
        w.WriteSafeString("reason", item.Reason);
        w.WriteString("folder", item.HasReport ? c.Folder : null);
        w.WriteString("report", item.HasReport ? c.Folder + "/index.html" : null);
        w.WriteNumber("events", item.Events);
        w.WriteTimestamp("firstEvent", item.FirstEvent);
        w.WriteTimestamp("lastEvent", item.LastEvent);
        w.WriteStartObject("eventsByName");
        foreach (CaptureEventSummary e in item.EventsByName)
        {
            w.WriteNumber(TextEscaping.Sanitize(e.Name), e.Count);
        }

        w.WriteEndObject();
        w.WriteStartArray("analyses");
        foreach (BatchAnalysisStatus a in item.Analyses)
        {
            w.WriteStartObject();
            w.WriteString("key", a.Key);
            w.WriteString("status", a.Done ? "done" : "not-possible");
            w.WriteSafeString("note", a.Note.Length == 0 ? null : a.Note);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        if (item.Symbolization is SymbolizationCounts r)
        {
            w.WriteStartObject("symbolization");
            w.WriteNumber("stacks", r.Stacks);
            w.WriteNumber("frames", r.Frames);
            w.WriteNumber("inEngine", r.InEngine);
            w.WriteNumber("resolvedOffline", r.ResolvedOffline);
            w.WriteNumber("unverified", r.Unverified);
            w.WriteNumber("unresolved", r.Unresolved);
            w.WriteEndObject();
        }
        else
        {
            w.WriteNull("symbolization");
        }

        w.WriteSafeStrings("warnings", item.Warnings);
        w.WriteEndObject();
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

        return string.Join("; ", parts);
    }

    private static string E(string text) => TextEscaping.Xml(text);
}

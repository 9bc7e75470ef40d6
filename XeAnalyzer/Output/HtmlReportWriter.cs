using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes a report as one self-contained HTML5 page: inline CSS, charts and flame graphs as inline SVG, tables with
/// right-aligned numbers, preformatted blocks, key/value lists, and a footer naming the generator (never a wall-clock
/// time, so the same report gives the same bytes). It has no scripts and no external URLs; a Content-Security-Policy
/// meta tag forbids scripts and remote loads, and every string from the report is HTML-escaped (names come from
/// untrusted captures), with lone surrogates and forbidden control characters replaced by U+FFFD. The markup is also
/// well-formed XML (void elements self-closed, attributes quoted), so it can be checked with an XML parser.
/// </summary>
internal sealed class HtmlReportWriter : IReportWriter
{
    /// <summary>Rows of a long table shown before the fold; the rest open from a "Show N more rows" summary.</summary>
    internal const int PreviewRows = 20;

    /// <summary>A table at most this many rows longer than <see cref="PreviewRows"/> is shown whole.</summary>
    internal const int FoldSlack = 5;

    /// <summary>Longer text cells show their first words and open to the rest.</summary>
    internal const int LongText = 100;

    /// <summary>The length of the first words of a long text cell.</summary>
    private const int LeadLength = 80;

    /// <summary>Longer texts without a space (frames, paths) may break anywhere.</summary>
    private const int LongIdentifier = 24;

    private const string Css = """
        :root { color-scheme: light; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #f3f4f6; color: #1f2328; font: 14px/1.5 "Segoe UI", "DejaVu Sans", "Liberation Sans", Helvetica, Arial, sans-serif; }
        .page { max-width: 1280px; margin: 0 auto; padding: 28px 24px 40px; }
        header.report-header { background: #1f3a5f; color: #fff; border-radius: 8px; padding: 22px 28px; margin-bottom: 20px; }
        header.report-header h1 { margin: 0; font-size: 26px; font-weight: 600; letter-spacing: 0.2px; }
        header.report-header p { margin: 6px 0 0; color: #d6e2f0; white-space: pre-line; }
        nav.toc { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: 12px 22px; margin-bottom: 20px; }
        nav.toc h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.6px; color: #57606a; margin: 4px 0; }
        nav.toc ol { margin: 4px 0 6px; padding-left: 22px; columns: 2; }
        nav.toc a { color: #0b5cad; text-decoration: none; }
        nav.toc a:hover { text-decoration: underline; }
        section.section { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: 18px 24px 22px; margin-bottom: 20px; box-shadow: 0 1px 2px rgba(0,0,0,0.04); }
        section.section > h2 { margin: 0 0 12px; font-size: 19px; font-weight: 600; color: #1f3a5f; border-bottom: 2px solid #e8edf3; padding-bottom: 8px; }
        p.paragraph { margin: 8px 0 12px; max-width: 95ch; white-space: pre-line; }
        figure { margin: 14px 0 18px; }
        figcaption { font-weight: 600; font-size: 14px; margin-bottom: 6px; color: #24292f; }
        .table-scroll { overflow-x: auto; border: 1px solid #e1e4e8; border-radius: 6px; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; }
        thead th { background: #f0f3f6; color: #24292f; font-weight: 600; text-align: left; padding: 7px 12px; border-bottom: 1px solid #d0d7de; white-space: nowrap; }
        dl.kv dt, figcaption { overflow-wrap: break-word; }
        tbody td { padding: 5px 12px; border-bottom: 1px solid #eef0f2; vertical-align: top; overflow-wrap: break-word; }
        td.id { overflow-wrap: anywhere; min-width: 28ch; }
        details > summary { cursor: pointer; }
        details.more-rows { margin-top: 6px; }
        details.more-rows > summary { color: #0b5cad; font-size: 13px; padding: 4px 0; }
        details.long-text > summary { list-style-position: outside; }
        details.stack { margin: 10px 0; }
        details.stack > summary { font-weight: 600; font-size: 14px; margin-bottom: 6px; color: #24292f; }
        tbody tr:nth-child(even) td { background: #fafbfc; }
        tbody tr:hover td { background: #eef5ff; }
        th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        td.text { font-family: "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
        td.empty-table { color: #6e7781; font-style: italic; text-align: center; }
        ul.notes { list-style: none; margin: 8px 0 0; padding: 0; font-size: 13px; }
        ul.notes li { padding: 6px 10px; border-radius: 4px; margin-top: 4px; }
        li.note { background: #f1f8ff; border-left: 3px solid #54aeff; }
        li.warning { background: #fff8c5; border-left: 3px solid #d4a72c; }
        .chart svg, .flame svg { display: block; width: 100%; height: auto; }
        .chart, .flame { border: 1px solid #e1e4e8; border-radius: 6px; padding: 6px; background: #fff; }
        pre { background: #f6f8fa; border: 1px solid #e1e4e8; border-radius: 6px; padding: 10px 14px; overflow-x: auto; font: 12.5px/1.45 "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace; margin: 0; }
        dl.kv { display: grid; grid-template-columns: max-content auto; gap: 4px 18px; margin: 10px 0 14px; font-size: 13.5px; }
        dl.kv dt { color: #57606a; }
        dl.kv dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
        .kv-title { font-weight: 600; margin-top: 10px; }
        footer { color: #6e7781; font-size: 12px; text-align: center; margin-top: 8px; }
        @media print { body { background: #fff; } section.section, nav.toc { box-shadow: none; break-inside: avoid; } }
        """;

    /// <summary>Creates the writer.</summary>
    /// <param name="maxTableRows">Rows shown per table (1 to 1,000,000; default 10,000); a note says how many were left
    /// out.</param>
    /// <param name="chartOptions">The size of charts; <see langword="null"/> for 1160 × 380 px (the page's content
    /// width). Charts and flame graphs scale to the page width.</param>
    public HtmlReportWriter(int maxTableRows = 10_000, ChartSvgOptions? chartOptions = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxTableRows, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxTableRows, 1_000_000);
        MaxTableRows = maxTableRows;
        ChartOptions = chartOptions ?? new ChartSvgOptions { Width = 1160 };
    }

    /// <summary>Rows shown per table.</summary>
    public int MaxTableRows { get; }

    /// <summary>The size of charts.</summary>
    public ChartSvgOptions ChartOptions { get; }

    /// <inheritdoc/>
    public string Format => "html";

    /// <inheritdoc/>
    public string FileExtension => ".html";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Page;

    /// <inheritdoc/>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(output);
        OutputText.WriteUtf8(RenderPage(document, cancellationToken), output);
    }

    /// <summary>Renders the page.</summary>
    /// <param name="report">The report.</param>
    /// <param name="cancellationToken">Cancels rendering between blocks.</param>
    /// <returns>The HTML text.</returns>
    public string Render(ReportDocument report, CancellationToken cancellationToken = default) =>
        RenderPage(report, cancellationToken).ToString();

    /// <summary>
    /// Renders the page into a builder of small chunks (at most 8,000 characters each; no initial large block), which
    /// <see cref="Write"/> encodes chunk by chunk: a page allocates nothing on the large-object heap however long it
    /// is.
    /// </summary>
    private StringBuilder RenderPage(ReportDocument report, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(report);
        var sb = new StringBuilder(8000);
        AppendPageStart(sb, report.Generator, report.Title, Css);
        if (report.Title.Length > 0 || report.Description is not null)
        {
            sb.Append("<header class=\"report-header\">\n");
            if (report.Title.Length > 0)
            {
                sb.Append("<h1>").Append(E(report.Title)).Append("</h1>\n");
            }

            if (report.Description is { } description)
            {
                sb.Append("<p>").Append(E(description)).Append("</p>\n");
            }

            sb.Append("</header>\n");
        }

        if (report.Sections.Count(s => s.Title.Length > 0) > 1)
        {
            sb.Append("<nav class=\"toc\">\n<h2>Contents</h2>\n<ol>\n");
            for (int i = 0; i < report.Sections.Count; i++)
            {
                if (report.Sections[i].Title.Length > 0)
                {
                    sb.Append("<li><a href=\"#section-")
                        .Append((i + 1).ToString(CultureInfo.InvariantCulture))
                        .Append("\">")
                        .Append(E(report.Sections[i].Title))
                        .Append("</a></li>\n");
                }
            }

            sb.Append("</ol>\n</nav>\n");
        }

        sb.Append("<main>\n");
        for (int i = 0; i < report.Sections.Count; i++)
        {
            ReportSection section = report.Sections[i];
            sb.Append("<section class=\"section\" id=\"section-")
                .Append((i + 1).ToString(CultureInfo.InvariantCulture))
                .Append("\">\n");
            if (section.Title.Length > 0)
            {
                sb.Append("<h2>").Append(E(section.Title)).Append("</h2>\n");
            }

            foreach (ReportBlock block in section.Blocks)
            {
                cancellationToken.ThrowIfCancellationRequested();
                AppendBlock(sb, block, cancellationToken);
            }

            sb.Append("</section>\n");
        }

        sb.Append("</main>\n");
        if (report.Generator is { } generator)
        {
            sb.Append("<footer>Generated by ").Append(E(generator)).Append("</footer>\n");
        }

        sb.Append("</div>\n</body>\n</html>\n");
        return sb;
    }

    /// <summary>
    /// Appends the start of a self-contained page, up to and including <c>&lt;div class="page"&gt;</c>: the doctype,
    /// the Content-Security-Policy that forbids scripts and remote loads, the generator, the title and the inline style
    /// sheet.
    /// </summary>
    private static void AppendPageStart(StringBuilder sb, string? generator, string title, string css)
    {
        sb.Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
            .Append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
            .Append(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                    + "'unsafe-inline'; img-src data:\"/>\n"
            );
        if (generator is not null)
        {
            sb.Append("<meta name=\"generator\" content=\"").Append(E(generator)).Append("\"/>\n");
        }

        sb.Append("<title>")
            .Append(E(title))
            .Append("</title>\n<style>\n")
            .Append(css)
            .Append("\n</style>\n</head>\n<body>\n<div class=\"page\">\n");
    }

    private static void AppendKeyValue(StringBuilder sb, string key, string value) =>
        sb.Append("<dt>").Append(E(key)).Append("</dt><dd>").Append(E(value)).Append("</dd>\n");

    private static string E(string text) => TextEscaping.Xml(text);

    private void AppendBlock(StringBuilder sb, ReportBlock block, CancellationToken cancellationToken)
    {
        switch (block)
        {
            case Paragraph p:
                sb.Append("<p class=\"paragraph\">").Append(E(p.Text)).Append("</p>\n");
                break;
            case Preformatted pre:
                sb.Append("<figure class=\"pre\">\n");
                if (pre.Caption is { } cap)
                {
                    sb.Append("<figcaption>").Append(E(cap)).Append("</figcaption>\n");
                }

                sb.Append("<pre>").Append(E(pre.Text)).Append("</pre>\n</figure>\n");
                break;
            case KeyValueList kv:
                if (kv.Title is { } title)
                {
                    sb.Append("<div class=\"kv-title\">").Append(E(title)).Append("</div>\n");
                }

                sb.Append("<dl class=\"kv\">\n");
                foreach (KeyValuePair<string, TableCell> item in kv.Items)
                {
                    TableCell v = item.Value;
                    string value = v.IsEmpty
                        ? (v.IsNotApplicable ? "n/a" : string.Empty)
                        : CellFormatter.Display(v, TableColumn.DefaultFor(v.Kind!.Value));
                    AppendKeyValue(sb, item.Key, value);
                }

                sb.Append("</dl>\n");
                break;
            case ReportTable t:
                AppendTable(sb, t, cancellationToken);
                break;
            case BarChart bar:
                sb.Append("<figure class=\"chart bar-chart\">\n")
                    .Append(ChartSvg.RenderBar(bar, ChartOptions, standalone: false))
                    .Append("</figure>\n");
                break;
            case LineChart line:
                sb.Append("<figure class=\"chart line-chart\">\n")
                    .Append(ChartSvg.RenderLine(line, ChartOptions, standalone: false, cancellationToken))
                    .Append("</figure>\n");
                break;
            case FlameGraph flame:
                sb.Append("<figure class=\"flame\">\n")
                    .Append(FlameGraphSvg.Render(flame.Tree, flame.Options, standalone: false, cancellationToken).Svg)
                    .Append("</figure>\n");
                break;
            case Outline outline:
                // An outline is shown as a terminal shows it: its text form, in a preformatted block.
                var text = new StringBuilder();
                TextReportWriter.AppendOutline(text, outline);
                sb.Append("<figure class=\"pre\">\n<pre>")
                    .Append(E(text.ToString().TrimEnd('\n')))
                    .Append("</pre>\n</figure>\n");
                break;
            case StackList stacks:
                // Each stack folds under its heading (the first open): tens of frames per bucket would otherwise push
                // the rest of the page hundreds of lines down.
                for (int i = 0; i < stacks.Items.Count; i++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    StackListItem item = stacks.Items[i];
                    sb.Append(i == 0 ? "<details class=\"stack\" open=\"open\">\n" : "<details class=\"stack\">\n")
                        .Append("<summary>")
                        .Append(E(item.Heading))
                        .Append("</summary>\n");
                    if (item.Details.Count > 0)
                    {
                        sb.Append("<p class=\"paragraph\">")
                            .Append(E(string.Join("\n", item.Details)))
                            .Append("</p>\n");
                    }

                    sb.Append("<pre>").Append(E(stacks.FramesText(item))).Append("</pre>\n</details>\n");
                }

                foreach (string note in stacks.Notes)
                {
                    sb.Append("<p class=\"paragraph\">").Append(E(note)).Append("</p>\n");
                }

                break;
            default:
                throw new NotSupportedException("Unknown report block " + block.GetType().Name);
        }
    }

    private void AppendTable(StringBuilder sb, ReportTable t, CancellationToken cancellationToken)
    {
        sb.Append("<figure class=\"table\">\n");
        if (t.Title.Length > 0)
        {
            sb.Append("<figcaption>").Append(E(t.Title)).Append("</figcaption>\n");
        }

        int[] columns = t.ColumnsWithValues();
        int shown = Math.Min(t.Rows.Count, MaxTableRows);
        int inline = shown > PreviewRows + FoldSlack ? PreviewRows : shown;
        AppendTableRows(sb, t, columns, 0, inline, cancellationToken);
        if (inline < shown)
        {
            sb.Append("<details class=\"more-rows\">\n<summary>")
                .Append(E(string.Create(CultureInfo.InvariantCulture, $"Show {shown - inline:N0} more rows")))
                .Append("</summary>\n");
            AppendTableRows(sb, t, columns, inline, shown, cancellationToken);
            sb.Append("</details>\n");
        }

        int hidden = t.Rows.Count - shown;
        int leftOut = t.Columns.Count - columns.Length;
        if (t.Notes.Count > 0 || t.Warnings.Count > 0 || hidden > 0 || leftOut > 0)
        {
            sb.Append("<ul class=\"notes\">\n");
            if (hidden > 0)
            {
                sb.Append("<li class=\"note\">")
                    .Append(
                        E(
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"{hidden:N0} more rows are not shown here; write the report as CSV or JSON to see "
                                    + $"all {t.Rows.Count:N0}."
                            )
                        )
                    )
                    .Append("</li>\n");
            }

            if (leftOut > 0)
            {
                IEnumerable<string> names = Enumerable
                    .Range(0, t.Columns.Count)
                    .Except(columns)
                    .Select(c => t.Columns[c].Name);
                sb.Append("<li class=\"note\">")
                    .Append(E("Empty in every row, so not shown: " + string.Join(", ", names) + "."))
                    .Append("</li>\n");
            }

            foreach (string note in t.Notes)
            {
                sb.Append("<li class=\"note\">").Append(E(note)).Append("</li>\n");
            }

            foreach (string warning in t.Warnings)
            {
                sb.Append("<li class=\"warning\">Warning: ").Append(E(warning)).Append("</li>\n");
            }

            sb.Append("</ul>\n");
        }

        sb.Append("</figure>\n");
    }

    /// <summary>Appends a table of the rows <paramref name="from"/> (inclusive) to <paramref name="to"/> (exclusive),
    /// with its header.</summary>
    private static void AppendTableRows(
        StringBuilder sb,
        ReportTable t,
        int[] columns,
        int from,
        int to,
        CancellationToken cancellationToken
    )
    {
        sb.Append("<div class=\"table-scroll\">\n<table>\n<thead>\n<tr>");
        foreach (int ci in columns)
        {
            TableColumn c = t.Columns[ci];
            sb.Append("<th");
            if (c.IsRightAligned)
            {
                sb.Append(" class=\"num\"");
            }

            if (c.Description is { } d)
            {
                sb.Append(" title=\"").Append(E(d)).Append('"');
            }

            sb.Append('>').Append(E(c.Name)).Append("</th>");
        }

        sb.Append("</tr>\n</thead>\n<tbody>\n");
        for (int r = from; r < to; r++)
        {
            if ((r & 0x3FF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            sb.Append("<tr>");
            IReadOnlyList<TableCell> row = t.Rows[r];
            foreach (int c in columns)
            {
                AppendCell(sb, row[c], t.Columns[c]);
            }

            sb.Append("</tr>\n");
        }

        if (t.Rows.Count == 0)
        {
            sb.Append("<tr><td class=\"empty-table\" colspan=\"")
                .Append(columns.Length.ToString(CultureInfo.InvariantCulture))
                .Append("\">no rows</td></tr>\n");
        }

        sb.Append("</tbody>\n</table>\n</div>\n");
    }

    /// <summary>
    /// Appends one cell. A number never wraps; a text with no space longer than <see cref="LongIdentifier"/> characters
    /// (a frame, a path) may break anywhere; a text longer than <see cref="LongText"/> characters shows its first words
    /// and opens to the whole text, so one long note does not make a row hundreds of pixels tall.
    /// </summary>
    private static void AppendCell(StringBuilder sb, TableCell cell, TableColumn column)
    {
        string text = CellFormatter.Display(cell, column);
        if (column.IsRightAligned)
        {
            sb.Append("<td class=\"num\">").Append(E(text)).Append("</td>");
            return;
        }

        bool identifier = text.Length > LongIdentifier && !text.Any(char.IsWhiteSpace);
        sb.Append(identifier ? "<td class=\"text id\">" : "<td class=\"text\">");
        if (cell.Link is string link)
        {
            sb.Append("<a href=\"").Append(E(link)).Append("\">").Append(E(text)).Append("</a>");
        }
        else if (text.Length > LongText)
        {
            sb.Append("<details class=\"long-text\"><summary>")
                .Append(E(Lead(text)))
                .Append("</summary>")
                .Append(E(text))
                .Append("</details>");
        }
        else
        {
            sb.Append(E(text));
        }

        sb.Append("</td>");
    }

    /// <summary>The first words of a long text, cut at a space before <see cref="LeadLength"/> characters, with an
    /// ellipsis.</summary>
    internal static string Lead(string text)
    {
        int firstLine = text.IndexOf('\n', StringComparison.Ordinal);
        string line = firstLine >= 0 ? text[..firstLine] : text;
        if (line.Length <= LeadLength)
        {
            return line + " \u2026";
        }

        int cut = line.LastIndexOf(' ', LeadLength);
        return line[..(cut > LeadLength / 2 ? cut : LeadLength)].TrimEnd(',', ';', ':') + " \u2026";
    }
}

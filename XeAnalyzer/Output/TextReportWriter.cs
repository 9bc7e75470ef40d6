using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes a report as plain text for terminals: titles underlined, tables with aligned columns (numbers right-aligned,
/// digits grouped), bar charts as rows of <c>#</c>, line charts and flame graphs as short summaries, and the
/// generated-by line last. Every string from the report is made terminal-safe (control characters, which could carry
/// escape sequences, and bidirectional overrides become U+FFFD; line breaks inside cells become spaces). Deterministic.
/// </summary>
internal sealed class TextReportWriter : IReportWriter
{
    private const string Gap = "  ";

    /// <summary>Creates the writer.</summary>
    /// <param name="maxCellWidth">Cells longer than this many characters are cut with an ellipsis (10 to 10,000;
    /// default 120).</param>
    /// <param name="barWidth">The length of the longest bar of a bar chart in characters (5 to 200; default
    /// 40).</param>
    public TextReportWriter(int maxCellWidth = 120, int barWidth = 40)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxCellWidth, 10);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxCellWidth, 10_000);
        ArgumentOutOfRangeException.ThrowIfLessThan(barWidth, 5);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(barWidth, 200);
        MaxCellWidth = maxCellWidth;
        BarWidth = barWidth;
    }

    /// <summary>The longest cell in characters.</summary>
    public int MaxCellWidth { get; }

    /// <summary>The longest bar in characters.</summary>
    public int BarWidth { get; }

    /// <inheritdoc/>
    public string Format => "text";

    /// <inheritdoc/>
    public string FileExtension => ".txt";

    /// <summary>Formats one table as aligned text with a <c>\n</c> after every line.</summary>
    /// <param name="table">The table.</param>
    /// <param name="maxCellWidth">The longest cell in characters.</param>
    /// <returns>The text: title (if any), header, dashes, rows, notes and warnings.</returns>
    public static string FormatTable(ReportTable table, int maxCellWidth = 120)
    {
        ArgumentNullException.ThrowIfNull(table);
        var sb = new StringBuilder();
        AppendTable(sb, table, Math.Max(10, maxCellWidth), CancellationToken.None);
        return sb.ToString();
    }

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Listing;

    /// <summary>
    /// Formats the whole document as text: the title underlined with <c>=</c> (none when empty), the description, each
    /// section's heading underlined with <c>-</c> (none when its title is empty) and its blocks, one blank line between
    /// blocks and sections, and the generated-by line last (none when <see cref="ReportDocument.Generator"/> is
    /// <see langword="null"/>).
    /// </summary>
    /// <param name="report">The document.</param>
    /// <param name="cancellationToken">Cancels formatting between blocks.</param>
    /// <returns>The text, each line ending with <c>\n</c>.</returns>
    public string FormatReport(ReportDocument report, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(report);
        var sb = new StringBuilder();
        AppendReport(sb, report, null, cancellationToken);
        return sb.ToString();
    }

    /// <inheritdoc/>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        using (StreamWriter writer = OutputText.CreateWriter(output))
        {
            // A listing of many stacks passes through a small builder to the stream instead of being held whole.
            var spill = new TextSpill(writer);
            var sb = new StringBuilder();
            AppendReport(sb, document, spill, cancellationToken);
            spill.Flush(sb, keep: 0);
        }

        output.Flush();
    }

    private void AppendReport(
        StringBuilder sb,
        ReportDocument report,
        TextSpill? spill,
        CancellationToken cancellationToken
    )
    {
        if (report.Title.Length > 0)
        {
            Heading(sb, report.Title, '=');
        }

        if (report.Description is { } d)
        {
            sb.Append(TextEscaping.TerminalMultiline(d)).Append('\n');
        }

        foreach (ReportSection section in report.Sections)
        {
            cancellationToken.ThrowIfCancellationRequested();
            Separate(sb);
            if (section.Title.Length > 0)
            {
                Heading(sb, section.Title, '-');
            }

            bool first = true;
            foreach (ReportBlock block in section.Blocks)
            {
                if (!first)
                {
                    Separate(sb);
                }

                first = false;
                AppendBlock(sb, block, spill, cancellationToken);
                spill?.FlushIfLarge(sb);
            }
        }

        if (report.Generator is { } generator)
        {
            Separate(sb);
            sb.Append("Generated by ").Append(TextEscaping.Terminal(generator)).Append('\n');
        }
    }

    /// <summary>Ends the text so far with one blank line (nothing at the start, nothing more after a blank
    /// line).</summary>
    private static void Separate(StringBuilder sb)
    {
        if (sb.Length > 0 && !(sb.Length >= 2 && sb[^1] == '\n' && sb[^2] == '\n'))
        {
            sb.Append('\n');
        }
    }

    private void AppendBlock(StringBuilder sb, ReportBlock block, TextSpill? spill, CancellationToken cancellationToken)
    {
        switch (block)
        {
            case Paragraph p:
                sb.Append(TextEscaping.TerminalMultiline(p.Text)).Append('\n');
                break;
            case ReportTable t:
                AppendTable(sb, t, MaxCellWidth, cancellationToken);
                break;
            case KeyValueList kv:
                AppendKeyValues(sb, kv);
                break;
            case Preformatted pre:
                if (pre.Caption is { } cap)
                {
                    sb.Append(TextEscaping.Terminal(cap)).Append('\n');
                }

                foreach (string line in TextEscaping.TerminalMultiline(pre.Text).Split('\n'))
                {
                    sb.Append("    ").Append(line).Append('\n');
                }

                break;
            case BarChart bar:
                AppendBarChart(sb, bar);
                break;
            case LineChart line:
                AppendLineChart(sb, line);
                break;
            case FlameGraph flame:
                AppendFlameGraph(sb, flame);
                break;
            case Outline outline:
                AppendOutline(sb, outline);
                break;
            case StackList stacks:
                AppendStackList(sb, stacks, spill);
                break;
            default:
                throw new NotSupportedException("Unknown report block " + block.GetType().Name);
        }
    }

    /// <summary>An outline as text: the title underlined with <c>-</c>, then each item indented by two spaces per
    /// level.</summary>
    internal static void AppendOutline(StringBuilder sb, Outline outline)
    {
        if (outline.Title is { } title)
        {
            Heading(sb, title, '-');
        }

        foreach (OutlineItem item in outline.Items)
        {
            sb.Append(' ', item.Depth * 2).Append(TextEscaping.Terminal(item.Text)).Append('\n');
        }
    }

    private static void AppendStackList(StringBuilder sb, StackList list, TextSpill? spill)
    {
        foreach (StackListItem item in list.Items)
        {
            spill?.FlushIfLarge(sb);
            sb.Append(TextEscaping.Terminal(item.Heading)).Append('\n');
            foreach (string detail in item.Details)
            {
                sb.Append("  ").Append(TextEscaping.Terminal(detail)).Append('\n');
            }

            if (item.Frames.Count == 0)
            {
                sb.Append("(no frames)\n");
            }

            foreach (StackListFrame frame in item.Frames)
            {
                sb.Append(TextEscaping.Terminal(list.LineOf(frame))).Append('\n');
            }

            sb.Append('\n');
        }

        foreach (string note in list.Notes)
        {
            sb.Append(TextEscaping.Terminal(note)).Append("\n\n");
        }
    }

    private static void Heading(StringBuilder sb, string title, char underline)
    {
        string t = TextEscaping.Terminal(title);
        sb.Append(t).Append('\n').Append(underline, Math.Max(3, t.Length)).Append('\n');
    }

    private static void AppendTable(
        StringBuilder sb,
        ReportTable table,
        int maxCellWidth,
        CancellationToken cancellationToken
    )
    {
        if (table.Title.Length > 0)
        {
            sb.Append(TextEscaping.Terminal(table.Title)).Append('\n');
        }

        int cols = table.Columns.Count;
        var cells = new string[table.Rows.Count + 1][];
        cells[0] = [.. table.Columns.Select(c => TextEscaping.Ellipsize(TextEscaping.Terminal(c.Name), maxCellWidth))];
        for (int r = 0; r < table.Rows.Count; r++)
        {
            if ((r & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            var row = new string[cols];
            for (int c = 0; c < cols; c++)
            {
                row[c] = TextEscaping.Ellipsize(
                    TextEscaping.Terminal(CellFormatter.Display(table.Rows[r][c], table.Columns[c])),
                    maxCellWidth
                );
            }

            cells[r + 1] = row;
        }

        int[] widths = new int[cols];
        foreach (string[] row in cells)
        {
            for (int c = 0; c < cols; c++)
            {
                widths[c] = Math.Max(widths[c], row[c].Length);
            }
        }

        for (int r = 0; r < cells.Length; r++)
        {
            AppendRow(sb, cells[r], widths, table.Columns);
            if (r == 0)
            {
                AppendRow(sb, [.. widths.Select(w => new string('-', w))], widths, table.Columns);
            }
        }

        if (table.Rows.Count == 0)
        {
            sb.Append("(no rows)\n");
        }

        foreach (string note in table.Notes)
        {
            sb.Append("Note: ").Append(TextEscaping.Terminal(note)).Append('\n');
        }

        foreach (string warning in table.Warnings)
        {
            sb.Append("Warning: ").Append(TextEscaping.Terminal(warning)).Append('\n');
        }
    }

    private static void AppendRow(StringBuilder sb, string[] row, int[] widths, IReadOnlyList<TableColumn> columns)
    {
        var line = new StringBuilder();
        for (int c = 0; c < row.Length; c++)
        {
            if (c > 0)
            {
                line.Append(Gap);
            }

            line.Append(columns[c].IsRightAligned ? row[c].PadLeft(widths[c]) : row[c].PadRight(widths[c]));
        }

        sb.Append(line.ToString().TrimEnd(' ')).Append('\n');
    }

    private static void AppendKeyValues(StringBuilder sb, KeyValueList kv)
    {
        if (kv.Title is { } title)
        {
            sb.Append(TextEscaping.Terminal(title)).Append('\n');
        }

        string[] keys = [.. kv.Items.Select(i => TextEscaping.Terminal(i.Key) + ":")];
        int width = keys.Length == 0 ? 0 : keys.Max(k => k.Length);
        for (int i = 0; i < keys.Length; i++)
        {
            TableCell v = kv.Items[i].Value;
            string value = v.IsEmpty
                ? (v.IsNotApplicable ? "n/a" : string.Empty)
                : CellFormatter.Display(v, TableColumn.DefaultFor(v.Kind!.Value));
            sb.Append((keys[i].PadRight(width) + " " + TextEscaping.Terminal(value)).TrimEnd(' ')).Append('\n');
        }
    }

    private void AppendBarChart(StringBuilder sb, BarChart chart)
    {
        sb.Append(TextEscaping.Terminal(chart.Title)).Append('\n');
        if (chart.Values.Count == 0)
        {
            sb.Append("(no data)\n");
            return;
        }

        string[] labels = [.. chart.Categories.Select(c => TextEscaping.Ellipsize(TextEscaping.Terminal(c), 40))];
        string[] values = [.. chart.Values.Select(v => CellFormatter.Fixed(v, chart.ValueDecimalPlaces))];
        int lw = labels.Max(l => l.Length);
        int vw = values.Max(v => v.Length);
        double max = chart.Values.Max(Math.Abs);
        for (int i = 0; i < labels.Length; i++)
        {
            int len = max > 0 ? (int)Math.Round(Math.Abs(chart.Values[i]) / max * BarWidth) : 0;
            sb.Append(chart.IsHighlighted[i] ? "* " : "  ")
                .Append(labels[i].PadRight(lw))
                .Append(Gap)
                .Append(new string(chart.Values[i] < 0 ? '-' : '#', len).PadRight(BarWidth))
                .Append(Gap)
                .Append(values[i].PadLeft(vw))
                .Append('\n');
        }

        if (chart.ReferenceLine is { } rl)
        {
            sb.Append(TextEscaping.Terminal(rl.Label))
                .Append(": ")
                .Append(CellFormatter.Fixed(rl.Value, Math.Max(1, chart.ValueDecimalPlaces)))
                .Append('\n');
        }

        if (chart.IsHighlighted.Any(h => h))
        {
            sb.Append("(* = highlighted)\n");
        }
    }

    private static void AppendLineChart(StringBuilder sb, LineChart chart)
    {
        sb.Append(TextEscaping.Terminal(chart.Title)).Append('\n');
        if (chart.Series.Count == 0)
        {
            sb.Append("(no data)\n");
        }

        foreach (LineSeries s in chart.Series)
        {
            sb.Append("  ").Append(TextEscaping.Terminal(s.Name)).Append(": ");
            if (s.Count == 0)
            {
                sb.Append("no points\n");
                continue;
            }

            ReadOnlySpan<double> xs = s.X.Span;
            ReadOnlySpan<double> ys = s.Y.Span;
            int lo = 0,
                hi = 0;
            for (int i = 1; i < ys.Length; i++)
            {
                if (ys[i] < ys[lo])
                {
                    lo = i;
                }

                if (ys[i] > ys[hi])
                {
                    hi = i;
                }
            }

            string X(double v) =>
                chart.XAxis == XAxisKind.Time
                    ? LineSeries.FromUnixSeconds(v).ToString("yyyy-MM-dd HH:mm:ss.fff", CultureInfo.InvariantCulture)
                    : CellFormatter.RoundTrip(v);
            sb.Append(s.Count.ToString("N0", CultureInfo.InvariantCulture))
                .Append(" points, x ")
                .Append(X(xs[0]))
                .Append(" to ")
                .Append(X(xs[^1]))
                .Append("; min ")
                .Append(CellFormatter.Fixed(ys[lo], 2))
                .Append(" at ")
                .Append(X(xs[lo]))
                .Append(", max ")
                .Append(CellFormatter.Fixed(ys[hi], 2))
                .Append(" at ")
                .Append(X(xs[hi]))
                .Append(", last ")
                .Append(CellFormatter.Fixed(ys[^1], 2))
                .Append('\n');
        }
    }

    private void AppendFlameGraph(StringBuilder sb, FlameGraph flame)
    {
        CallTree tree = flame.Tree;
        sb.Append(TextEscaping.Terminal(flame.Options.Title)).Append('\n');
        sb.Append(
            string.Create(
                CultureInfo.InvariantCulture,
                $"{tree.StackCount:N0} stacks merged into {tree.NodeCount - 1:N0} frames, total weight "
                    + $"{tree.TotalWeight:N0} ({SpeedscopeWriter.UnitName(tree.Unit)})"
            )
        );
        if (tree.HasBaseline)
        {
            sb.Append(string.Create(CultureInfo.InvariantCulture, $", baseline {tree.TotalBaselineWeight:N0}"));
        }

        sb.Append('\n');
        var self = new Dictionary<string, long>(StringComparer.Ordinal);
        for (int i = 1; i < tree.NodeCount; i++)
        {
            if (tree.SelfWeightOf(i) > 0)
            {
                string name = tree.NameOf(i);
                self[name] = checked(self.GetValueOrDefault(name) + tree.SelfWeightOf(i));
            }
        }

        if (self.Count == 0)
        {
            return;
        }

        var top = new TableBuilder("Top frames by self weight")
            .AddColumn(TableColumn.Text("Frame"))
            .AddColumn(TableColumn.Integer("Self"))
            .AddColumn(TableColumn.Percentage("Share"));
        foreach (
            KeyValuePair<string, long> kv in self.OrderByDescending(kv => kv.Value)
                .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Take(10)
        )
        {
            top.AddRow(
                kv.Key,
                kv.Value,
                TableCell.FromPercentage(tree.TotalWeight > 0 ? (double)kv.Value / tree.TotalWeight : 0)
            );
        }

        AppendTable(sb, top.Build(), MaxCellWidth, CancellationToken.None);
    }
}

/// <summary>
/// Moves the text built so far to a writer once it is large, keeping its last two characters, which
/// <see cref="TextReportWriter"/> reads back to separate blocks by one blank line.
/// </summary>
internal sealed class TextSpill(TextWriter writer)
{
    private const int Threshold = 1 << 16;
    private const int Kept = 2;

    public void FlushIfLarge(StringBuilder sb)
    {
        if (sb.Length >= Threshold)
        {
            Flush(sb, Kept);
        }
    }

    public void Flush(StringBuilder sb, int keep)
    {
        int n = sb.Length - keep;
        if (n <= 0)
        {
            return;
        }

        foreach (ReadOnlyMemory<char> chunk in sb.GetChunks())
        {
            int take = Math.Min(chunk.Length, n);
            writer.Write(chunk.Span[..take]);
            n -= take;
            if (n == 0)
            {
                break;
            }
        }

        sb.Remove(0, sb.Length - keep);
    }
}

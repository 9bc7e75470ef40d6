using System.Text.Json;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes a report as JSON through <see cref="Utf8JsonWriter"/>. The shape is fixed and every optional property is
/// always present (<c>null</c> when absent), in this order:
/// <c>format</c> (<c>"xeanalyzer-report"</c>), <c>formatVersion</c> (<c>1</c>), <c>title</c>, <c>description</c>,
/// <c>generator</c>, <c>sections</c> (<c>[{"title", "blocks":[…]}]</c>).
/// Each block has a <c>type</c> first: <c>paragraph</c> (<c>text</c>), <c>preformatted</c> (<c>caption, text</c>),
/// <c>keyValues</c> (<c>title, items:[{key, kind, value}]</c>), <c>table</c> (<c>title, columns:[{name, kind, unit,
/// description}], rows:[[…]], notes, warnings</c>), <c>barChart</c> (<c>title, categoryAxisLabel, valueAxisLabel,
/// referenceLine:{label, value}, bars:[{category, value, highlighted}]</c>), <c>lineChart</c> (<c>title, xAxis,
/// xAxisLabel, yAxisLabel, series:[{name, count, points:[[x, y]…]}]</c>, every point, x an ISO-8601 UTC string on a
/// time axis) and
/// <c>flameGraph</c> (<c>title, unit, differential, totalWeight, totalBaselineWeight, nodes:[{id, parent, name, weight,
/// selfWeight, baselineWeight, selfBaselineWeight}]</c>, a flat pre-order list where <c>parent</c> is an earlier id or
/// -1),
/// <c>outline</c> (<c>title, items:[{depth, text}]</c>) and <c>stackList</c> (<c>items:[{heading, details,
/// frames:[{text, status, verified, module, function, unresolvedReason}]}], notes</c>; <c>status</c> is
/// <c>inEngine</c>, <c>resolvedOffline</c>,
/// <c>unresolved</c> or <c>null</c>).
/// Cell values: text as strings, integers and decimals as numbers, percentages as fractions, durations as numbers in
/// the column's <c>unit</c> (<c>us</c>, <c>ms</c>, <c>s</c>), timestamps as ISO-8601 UTC strings, empty cells and
/// non-finite numbers as <c>null</c>. Numbers use the shortest round-trip form; output is deterministic.
/// </summary>
internal sealed class JsonReportWriter : IReportWriter
{
    /// <summary>Creates the writer.</summary>
    /// <param name="indented">Whether to indent with two spaces (default <see langword="true"/>).</param>
    public JsonReportWriter(bool indented = true)
    {
        Indented = indented;
    }

    /// <summary>Whether the output is indented.</summary>
    public bool Indented { get; }

    /// <inheritdoc/>
    public string Format => "json";

    /// <inheritdoc/>
    public string FileExtension => ".json";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Data;

    /// <inheritdoc/>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        ReportDocument report = document;
        using (var json = new Utf8JsonWriter(output, JsonOutput.Options(Indented)))
        {
            json.WriteStartObject();
            json.WriteString("format", "xeanalyzer-report");
            json.WriteNumber("formatVersion", 1);
            json.WriteSafeString("title", report.Title);
            json.WriteSafeString("description", report.Description);
            json.WriteSafeString("generator", report.Generator);
            json.WriteStartArray("sections");
            foreach (ReportSection section in report.Sections)
            {
                json.WriteStartObject();
                json.WriteSafeString("title", section.Title);
                json.WriteStartArray("blocks");
                foreach (ReportBlock block in section.Blocks)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    WriteBlock(json, block, cancellationToken);
                }

                json.WriteEndArray();
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.Flush();
            if (Indented)
            {
                output.Write("\n"u8);
            }
        }

        output.Flush();
    }

    private static void WriteBlock(Utf8JsonWriter json, ReportBlock block, CancellationToken cancellationToken)
    {
        json.WriteStartObject();
        switch (block)
        {
            case Paragraph p:
                json.WriteString("type", "paragraph");
                json.WriteSafeString("text", p.Text);
                break;
            case Preformatted pre:
                json.WriteString("type", "preformatted");
                json.WriteSafeString("caption", pre.Caption);
                json.WriteSafeString("text", pre.Text);
                break;
            case KeyValueList kv:
                json.WriteString("type", "keyValues");
                json.WriteSafeString("title", kv.Title);
                json.WriteStartArray("items");
                foreach (KeyValuePair<string, TableCell> item in kv.Items)
                {
                    json.WriteStartObject();
                    json.WriteSafeString("key", item.Key);
                    if (item.Value.Kind is { } k)
                    {
                        json.WriteString("kind", CellFormatter.KindName(k));
                    }
                    else
                    {
                        json.WriteNull("kind");
                    }

                    json.WritePropertyName("value");
                    Cell(
                        json,
                        item.Value,
                        item.Value.Kind is { } kk ? TableColumn.DefaultFor(kk) : TableColumn.DefaultFor(ColumnKind.Text)
                    );
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                break;
            case ReportTable t:
                Table(json, t, cancellationToken);
                break;
            case BarChart bar:
                json.WriteString("type", "barChart");
                json.WriteSafeString("title", bar.Title);
                json.WriteSafeString("categoryAxisLabel", bar.CategoryAxisLabel);
                json.WriteSafeString("valueAxisLabel", bar.ValueAxisLabel);
                if (bar.ReferenceLine is { } rl)
                {
                    json.WriteStartObject("referenceLine");
                    json.WriteSafeString("label", rl.Label);
                    json.WriteNumber("value", rl.Value);
                    json.WriteEndObject();
                }
                else
                {
                    json.WriteNull("referenceLine");
                }

                json.WriteStartArray("bars");
                for (int i = 0; i < bar.Values.Count; i++)
                {
                    json.WriteStartObject();
                    json.WriteSafeString("category", bar.Categories[i]);
                    json.WriteNumber("value", bar.Values[i]);
                    json.WriteBoolean("highlighted", bar.IsHighlighted[i]);
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                break;
            case LineChart line:
                Line(json, line, cancellationToken);
                break;
            case FlameGraph flame:
                Flame(json, flame, cancellationToken);
                break;
            case Outline outline:
                json.WriteString("type", "outline");
                json.WriteSafeString("title", outline.Title);
                json.WriteStartArray("items");
                foreach (OutlineItem item in outline.Items)
                {
                    json.WriteStartObject();
                    json.WriteNumber("depth", item.Depth);
                    json.WriteSafeString("text", item.Text);
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                break;
            case StackList stacks:
                Stacks(json, stacks, cancellationToken);
                break;
            default:
                throw new NotSupportedException("Unknown report block " + block.GetType().Name);
        }

        json.WriteEndObject();
    }

    private static void Stacks(Utf8JsonWriter json, StackList stacks, CancellationToken cancellationToken)
    {
        json.WriteString("type", "stackList");
        json.WriteStartArray("items");
        foreach (StackListItem item in stacks.Items)
        {
            json.WriteStartObject();
            json.WriteSafeString("heading", item.Heading);
            json.WriteSafeStrings("details", item.Details);
            json.WriteStartArray("frames");
            foreach (StackListFrame f in item.Frames)
            {
                json.WriteStartObject();
                json.WriteSafeString("text", f.Text);
                json.WriteSafeString(
                    "status",
                    f.Status switch
                    {
                        StackFrameStatus.InEngine => "inEngine",
                        StackFrameStatus.ResolvedOffline => "resolvedOffline",
                        StackFrameStatus.Unresolved => "unresolved",
                        _ => null,
                    }
                );
                if (f.Verified is bool v)
                {
                    json.WriteBoolean("verified", v);
                }
                else
                {
                    json.WriteNull("verified");
                }

                json.WriteSafeString("module", f.Module);
                json.WriteSafeString("function", f.Function);
                json.WriteSafeString("unresolvedReason", f.UnresolvedReason);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.FlushIfLarge(cancellationToken);
        }

        json.WriteEndArray();
        json.WriteSafeStrings("notes", stacks.Notes);
    }

    private static void Table(Utf8JsonWriter json, ReportTable t, CancellationToken cancellationToken)
    {
        json.WriteString("type", "table");
        json.WriteSafeString("title", t.Title);
        json.WriteStartArray("columns");
        foreach (TableColumn c in t.Columns)
        {
            json.WriteStartObject();
            json.WriteSafeString("name", c.Name);
            json.WriteString("kind", CellFormatter.KindName(c.Kind));
            json.WriteSafeString("unit", c.Kind == ColumnKind.Duration ? CellFormatter.UnitCode(c.DurationUnit) : null);
            json.WriteSafeString("description", c.Description);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteStartArray("rows");
        foreach (IReadOnlyList<TableCell> row in t.Rows)
        {
            json.WriteStartArray();
            for (int c = 0; c < row.Count; c++)
            {
                Cell(json, row[c], t.Columns[c]);
            }

            json.WriteEndArray();
            json.FlushIfLarge(cancellationToken);
        }

        json.WriteEndArray();
        json.WriteSafeStrings("notes", t.Notes);
        json.WriteSafeStrings("warnings", t.Warnings);
    }

    private static void Line(Utf8JsonWriter json, LineChart line, CancellationToken cancellationToken)
    {
        json.WriteString("type", "lineChart");
        json.WriteSafeString("title", line.Title);
        json.WriteString("xAxis", line.XAxis == XAxisKind.Time ? "time" : "number");
        json.WriteSafeString("xAxisLabel", line.XAxisLabel);
        json.WriteSafeString("yAxisLabel", line.YAxisLabel);
        json.WriteStartArray("series");
        foreach (LineSeries s in line.Series)
        {
            json.WriteStartObject();
            json.WriteSafeString("name", s.Name);
            json.WriteNumber("count", s.Count);
            json.WriteStartArray("points");
            for (int i = 0; i < s.Count; i++)
            {
                json.WriteStartArray();
                double x = s.X.Span[i];
                if (line.XAxis == XAxisKind.Time)
                {
                    json.WriteStringValue(CellFormatter.IsoUtc(LineSeries.FromUnixSeconds(x)));
                }
                else
                {
                    json.WriteNumberValue(x);
                }

                json.WriteNumberValue(s.Y.Span[i]);
                json.WriteEndArray();
                if ((i & 0x3FF) == 0x3FF)
                {
                    json.FlushIfLarge(cancellationToken);
                }
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        json.WriteEndArray();
    }

    private static void Flame(Utf8JsonWriter json, FlameGraph flame, CancellationToken cancellationToken)
    {
        CallTree tree = flame.Tree;
        json.WriteString("type", "flameGraph");
        json.WriteSafeString("title", flame.Options.Title);
        json.WriteString("unit", SpeedscopeWriter.UnitName(tree.Unit));
        json.WriteBoolean("differential", flame.Options.Differential ?? tree.HasBaseline);
        json.WriteNumber("totalWeight", tree.TotalWeight);
        json.WriteNumber("totalBaselineWeight", tree.TotalBaselineWeight);
        json.WriteStartArray("nodes");
        // Ids are the tree's depth-first node indices (the root 0, a parent before its children).
        for (int id = 0; id < tree.NodeCount; id++)
        {
            json.WriteStartObject();
            json.WriteNumber("id", id);
            json.WriteNumber("parent", tree.ParentOf(id));
            json.WriteSafeString("name", tree.NameOf(id));
            json.WriteNumber("weight", tree.WeightOf(id));
            json.WriteNumber("selfWeight", tree.SelfWeightOf(id));
            json.WriteNumber("baselineWeight", tree.BaselineWeightOf(id));
            json.WriteNumber("selfBaselineWeight", tree.SelfBaselineWeightOf(id));
            json.WriteEndObject();
            json.FlushIfLarge(cancellationToken);
        }

        json.WriteEndArray();
    }

    private static void Cell(Utf8JsonWriter json, TableCell cell, TableColumn column)
    {
        switch (cell.Kind)
        {
            case null:
                json.WriteNullValue();
                break;
            case ColumnKind.Text:
                json.WriteStringValue(TextEscaping.Sanitize(cell.Text!));
                break;
            case ColumnKind.Integer:
                json.WriteNumberValue(cell.Integer);
                break;
            case ColumnKind.Decimal or ColumnKind.Percentage:
                Number(json, cell.Number);
                break;
            case ColumnKind.Duration:
                Number(json, CellFormatter.DurationValue(cell.Duration, column.DurationUnit));
                break;
            default:
                json.WriteStringValue(CellFormatter.IsoUtc(cell.Timestamp));
                break;
        }
    }

    private static void Number(Utf8JsonWriter json, double value)
    {
        if (double.IsFinite(value))
        {
            json.WriteNumberValue(value);
        }
        else
        {
            json.WriteNullValue();
        }
    }
}

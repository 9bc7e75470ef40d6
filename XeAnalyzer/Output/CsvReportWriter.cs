namespace XeAnalyzer.Output;

/// <summary>
/// Writes the tables of a document as CSV (format <c>csv</c>, the tables of the <see cref="DocumentView.Table"/> view),
/// through the one CSV encoder (<see cref="CsvTableWriter"/>: CsvHelper, RFC 4180 quoting, the CSV-injection rule,
/// <c>\n</c> record endings, UTF-8 without a byte order mark, the invariant culture). Values are written for machines:
/// integers without grouping, decimals and percentages (as fractions) with full round-trip precision, durations as a
/// number in the column's unit (the header gets the unit, e.g.
/// <c>Wait time (ms)</c>), timestamps as ISO-8601 UTC (<c>2024-05-01T12:00:00.0000000Z</c>), empty cells as empty
/// fields. Notes, warnings and blocks other than tables are not written. A document with several tables is written as
/// consecutive CSV blocks, each with its header, separated by one empty line; a document of one table is a strict RFC
/// 4180 file.
/// </summary>
internal sealed class CsvReportWriter : IReportWriter
{
    /// <inheritdoc/>
    public string Format => "csv";

    /// <inheritdoc/>
    public string FileExtension => ".csv";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Table;

    /// <summary>The CSV header of a column: its name, plus the unit for durations.</summary>
    /// <param name="column">The column.</param>
    /// <returns>The header text.</returns>
    public static string HeaderOf(TableColumn column)
    {
        ArgumentNullException.ThrowIfNull(column);
        return CsvTableWriter.HeaderOf(column);
    }

    /// <inheritdoc/>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        bool first = true;
        foreach (ReportTable table in document.Blocks.OfType<ReportTable>())
        {
            if (!first)
            {
                output.WriteByte((byte)'\n');
            }

            first = false;
            using (var csv = new CsvTableWriter(output))
            {
                csv.WriteTable(table, cancellationToken);
                csv.Flush();
            }
        }

        output.Flush();
    }
}

using System.Globalization;
using CsvHelper;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes tables as CSV through CsvHelper: RFC 4180 quoting (a field is quoted when it holds a comma, a quote, CR or LF;
/// quotes are doubled), <c>\n</c> record endings, UTF-8 without a byte order mark, the invariant culture. Values are
/// written for machines: integers without grouping, decimals and percentages (as fractions) with full round-trip
/// precision, durations as a number in the column's unit (the header gets the unit, e.g. <c>Wait time (ms)</c>),
/// timestamps as ISO-8601 UTC (<c>2024-05-01T12:00:00.0000000Z</c>), empty cells as empty fields. Notes, warnings and
/// non-table blocks are not written. A report with several tables is written as consecutive CSV blocks, each with its
/// header, separated by one empty line; write a single table with <see cref="WriteTableAsync"/> for strict RFC 4180.
/// </summary>
public sealed class CsvReportWriter : IReportWriter
{
    /// <summary>Creates the writer.</summary>
    /// <param name="protectFromFormulaInjection">
    /// Whether text fields starting with <c>= + - @</c>, tab or CR get a leading <c>'</c> so spreadsheets do not run them
    /// as formulas (default <see langword="false"/>: values are written exactly).
    /// </param>
    public CsvReportWriter(bool protectFromFormulaInjection = false)
    {
        ProtectFromFormulaInjection = protectFromFormulaInjection;
    }

    /// <summary>Whether text that looks like a spreadsheet formula is escaped with a leading <c>'</c>.</summary>
    public bool ProtectFromFormulaInjection { get; }

    /// <inheritdoc/>
    public string Format => "csv";

    /// <inheritdoc/>
    public string FileExtension => ".csv";

    /// <inheritdoc/>
    public async ValueTask WriteAsync(ReportDocument report, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(output);
        bool first = true;
        foreach (ReportTable table in report.Sections.SelectMany(s => s.Blocks).OfType<ReportTable>())
        {
            if (!first)
            {
                await output.WriteAsync("\n"u8.ToArray(), cancellationToken).ConfigureAwait(false);
            }

            first = false;
            await WriteTableCoreAsync(table, output, ProtectFromFormulaInjection, cancellationToken).ConfigureAwait(false);
        }

        await output.FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes one table as an RFC 4180 CSV file: a header record, then one record per row.</summary>
    /// <param name="table">The table.</param>
    /// <param name="output">The destination; left open.</param>
    /// <param name="protectFromFormulaInjection">See the constructor.</param>
    /// <param name="cancellationToken">Cancels the write between rows.</param>
    /// <returns>A task that completes when the output has been flushed.</returns>
    public static async ValueTask WriteTableAsync(ReportTable table, Stream output, bool protectFromFormulaInjection = false, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(table);
        ArgumentNullException.ThrowIfNull(output);
        await WriteTableCoreAsync(table, output, protectFromFormulaInjection, cancellationToken).ConfigureAwait(false);
        await output.FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The CSV header of a column: its name, plus the unit for durations.</summary>
    /// <param name="column">The column.</param>
    /// <returns>The header text.</returns>
    public static string HeaderOf(TableColumn column)
    {
        ArgumentNullException.ThrowIfNull(column);
        return column.Kind == ColumnKind.Duration
            ? string.Create(CultureInfo.InvariantCulture, $"{column.Name} ({CellFormatter.UnitCode(column.DurationUnit)})")
            : column.Name;
    }

    private static async ValueTask WriteTableCoreAsync(ReportTable table, Stream output, bool protect, CancellationToken cancellationToken)
    {
        CsvWriterOptions options = CsvWriterOptions.Default with
        {
            NewLine = "\n",
            FormatProvider = CultureInfo.InvariantCulture,
            Quoting = CsvQuoting.WhenNeeded,
            WriteByteOrderMark = false,
            Injection = protect ? CsvInjection.Escape : CsvInjection.None,
        };
        CsvWriter csv = CsvWriter.Create(output, options, leaveOpen: true);
        await using (csv.ConfigureAwait(false))
        {
            string[] record = new string[table.Columns.Count];
            for (int c = 0; c < record.Length; c++)
            {
                record[c] = TextEscaping.Sanitize(HeaderOf(table.Columns[c]));
            }

            csv.WriteRecord(record);
            for (int r = 0; r < table.Rows.Count; r++)
            {
                if ((r & 0xFFF) == 0xFFF)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                IReadOnlyList<TableCell> row = table.Rows[r];
                for (int c = 0; c < record.Length; c++)
                {
                    record[c] = TextEscaping.Sanitize(CellFormatter.Data(row[c], table.Columns[c]));
                }

                csv.WriteRecord(record);
            }

            await csv.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}

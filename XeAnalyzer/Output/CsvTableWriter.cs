using System.Globalization;
using CsvHelper;

namespace XeAnalyzer.Output;

/// <summary>
/// The one CSV encoder every CSV the tool writes goes through (report and analysis tables, the frames table, line-chart
/// points, the
/// <c>memory --series</c> file, the <c>events</c> table): CsvHelper in RFC 4180 mode (a field is quoted when it holds a
/// comma, a quote, CR or LF; quotes are doubled), UTF-8 without a byte order mark, the invariant culture.
/// </summary>
/// <remarks>
/// <para><b>The CSV-injection rule</b> (one place: <see cref="Options"/>): a <em>text</em> field that starts with
/// <c>=</c>, <c>+</c>,
/// <c>-</c>, <c>@</c>, tab or CR — which a spreadsheet would run as a formula — is written with a leading <c>'</c> (so
/// the spreadsheet shows it as text) and quoted. Numbers, timestamps and empty fields are never changed, so <c>-5</c>
/// in a number column stays a number. Text from captures (clerk names, field values, frame names) is always written as
/// text.</para>
/// <para>Text is also sanitised (<see cref="TextEscaping.Sanitize"/>): lone surrogates and control characters other
/// than tab, CR and LF become U+FFFD.</para>
/// </remarks>
internal sealed class CsvTableWriter : IDisposable
{
    private const string TimestampFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'";
    private readonly CsvWriter _csv;

    /// <summary>Starts writing to a stream (left open).</summary>
    /// <param name="output">The destination.</param>
    /// <param name="newLine">The record ending: <c>\n</c> (report files) or <c>\r\n</c> (the events table, as RFC 4180
    /// writes it).</param>
    public CsvTableWriter(Stream output, string newLine = "\n")
    {
        ArgumentNullException.ThrowIfNull(output);
        _csv = CsvWriter.Create(output, Options(newLine), leaveOpen: true);
    }

    /// <summary>Starts writing to a text writer (left open).</summary>
    /// <param name="output">The destination.</param>
    /// <param name="newLine">The record ending.</param>
    public CsvTableWriter(TextWriter output, string newLine = "\n")
    {
        ArgumentNullException.ThrowIfNull(output);
        _csv = CsvWriter.Create(output, Options(newLine), leaveOpen: true);
    }

    /// <summary>The CsvHelper options of every CSV the tool writes, with the injection rule of the class
    /// remarks.</summary>
    /// <param name="newLine">The record ending.</param>
    /// <returns>The options.</returns>
    public static CsvWriterOptions Options(string newLine) =>
        CsvWriterOptions.Default with
        {
            NewLine = newLine,
            FormatProvider = CultureInfo.InvariantCulture,
            Quoting = CsvQuoting.WhenNeeded,
            WriteByteOrderMark = false,
            Injection = CsvInjection.Escape,
            InjectionCharacters = "=+-@\t\r",
            InjectionEscape = '\'',
        };

    /// <summary>The CSV header of a column: its name, plus the unit for durations (<c>Wait time (ms)</c>).</summary>
    /// <param name="column">The column.</param>
    /// <returns>The header text.</returns>
    public static string HeaderOf(TableColumn column) =>
        column.Kind == ColumnKind.Duration
            ? string.Create(
                CultureInfo.InvariantCulture,
                $"{column.Name} ({CellFormatter.UnitCode(column.DurationUnit)})"
            )
            : column.Name;

    /// <summary>Writes a header record of column names (text fields).</summary>
    /// <param name="names">The names.</param>
    public void WriteHeader(IEnumerable<string> names)
    {
        foreach (string n in names)
        {
            Text(n);
        }

        EndRow();
    }

    /// <summary>Writes the header record of a table's columns.</summary>
    /// <param name="columns">The columns.</param>
    public void WriteHeader(IReadOnlyList<TableColumn> columns) => WriteHeader(columns.Select(HeaderOf));

    /// <summary>Writes one record of cells, each formatted for its column (see <see cref="Cell"/>).</summary>
    /// <param name="cells">The cells, one per column.</param>
    /// <param name="columns">The columns.</param>
    public void WriteRow(IReadOnlyList<TableCell> cells, IReadOnlyList<TableColumn> columns)
    {
        for (int c = 0; c < columns.Count; c++)
        {
            Cell(cells[c], columns[c]);
        }

        EndRow();
    }

    /// <summary>Writes a whole table: the header record, then one record per row.</summary>
    /// <param name="table">The table.</param>
    /// <param name="cancellationToken">Cancels the write between rows.</param>
    public void WriteTable(ReportTable table, CancellationToken cancellationToken = default)
    {
        WriteHeader(table.Columns);
        for (int r = 0; r < table.Rows.Count; r++)
        {
            if ((r & 0xFFF) == 0xFFF)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            WriteRow(table.Rows[r], table.Columns);
        }
    }

    /// <summary>
    /// Writes one cell for machines: text as text; integers without grouping; decimals and percentages (as fractions)
    /// and durations (in the column's unit) with full round-trip precision; timestamps as ISO-8601 UTC; empty cells,
    /// <c>n/a</c> and non-finite numbers as empty fields.
    /// </summary>
    /// <param name="cell">The cell.</param>
    /// <param name="column">Its column.</param>
    public void Cell(TableCell cell, TableColumn column)
    {
        switch (cell.Kind)
        {
            case null:
                Empty();
                break;
            case ColumnKind.Text:
                Text(cell.Text);
                break;
            case ColumnKind.Integer:
                Integer(cell.Integer);
                break;
            case ColumnKind.Decimal or ColumnKind.Percentage:
                Number(cell.Number);
                break;
            case ColumnKind.Duration:
                Number(CellFormatter.DurationValue(cell.Duration, column.DurationUnit));
                break;
            default:
                Timestamp(cell.Timestamp);
                break;
        }
    }

    /// <summary>Writes a text field (subject to the injection rule); <see langword="null"/> is an empty
    /// field.</summary>
    /// <param name="value">The text.</param>
    public void Text(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            Empty();
        }
        else
        {
            _csv.WriteField(TextEscaping.Sanitize(value));
        }
    }

    /// <summary>Writes an empty field.</summary>
    public void Empty() => _csv.WriteField(string.Empty);

    /// <summary>Writes a whole number.</summary>
    /// <param name="value">The value.</param>
    public void Integer(long value) => _csv.WriteField(value, default);

    /// <summary>Writes a whole number.</summary>
    /// <param name="value">The value.</param>
    public void Integer(ulong value) => _csv.WriteField(value, default);

    /// <summary>Writes a real number, shortest round-trip form; NaN and infinities as an empty field.</summary>
    /// <param name="value">The value.</param>
    public void Number(double value)
    {
        if (double.IsFinite(value))
        {
            _csv.WriteField(value, default);
        }
        else
        {
            Empty();
        }
    }

    /// <summary>Writes a single-precision real number, shortest round-trip form; NaN and infinities as an empty
    /// field.</summary>
    /// <param name="value">The value.</param>
    public void Number(float value)
    {
        if (float.IsFinite(value))
        {
            _csv.WriteField(value, default);
        }
        else
        {
            Empty();
        }
    }

    /// <summary>Writes a UTC time as ISO 8601 with seven fraction digits and a Z
    /// (<c>2024-05-01T12:00:00.0000000Z</c>).</summary>
    /// <param name="utc">The time.</param>
    public void Timestamp(DateTime utc) => _csv.WriteField(utc, TimestampFormat);

    /// <summary>Writes a value that is not text (a Boolean, a time with its offset, a GUID) in its invariant
    /// form.</summary>
    /// <param name="value">The value.</param>
    public void Value(object value)
    {
        switch (value)
        {
            case bool b:
                _csv.WriteField(b);
                break;
            case DateTimeOffset dto:
                _csv.WriteField(dto, "o");
                break;
            case Guid g:
                _csv.WriteField(g, "D");
                break;
            default:
                throw new ArgumentException(
                    "not a value type the CSV writer formats: " + value.GetType().Name,
                    nameof(value)
                );
        }
    }

    /// <summary>Ends the current record.</summary>
    public void EndRow() => _csv.EndRecord();

    /// <summary>Writes what is buffered to the destination.</summary>
    public void Flush() => _csv.Flush();

    /// <inheritdoc/>
    public void Dispose() => _csv.Dispose();
}

using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>
/// A table: a title, typed columns, rows of <see cref="TableCell"/>s, and optional notes and warnings. Immutable; the
/// constructor copies its inputs and checks that every row has one cell per column and that each cell fits its column
/// (an integer cell fits a decimal column, a decimal cell fits a percentage column, an empty cell fits any column).
/// Build one directly or with <see cref="TableBuilder"/>.
/// </summary>
public sealed class ReportTable : ReportBlock
{
    /// <summary>Creates a table.</summary>
    /// <param name="title">The title (may be empty).</param>
    /// <param name="columns">The columns, at least one.</param>
    /// <param name="rows">The rows in display order.</param>
    /// <param name="notes">Optional notes shown below the table.</param>
    /// <param name="warnings">Optional warnings shown below the table, highlighted.</param>
    /// <exception cref="ArgumentNullException">An argument, column, row or note is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">There are no columns, a row has the wrong number of cells, or a cell does
    /// not fit its column.</exception>
    public ReportTable(
        string title,
        IEnumerable<TableColumn> columns,
        IEnumerable<IReadOnlyList<TableCell>> rows,
        IEnumerable<string>? notes = null,
        IEnumerable<string>? warnings = null
    )
    {
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(columns);
        ArgumentNullException.ThrowIfNull(rows);
        TableColumn[] cols = [.. columns];
        if (cols.Length == 0)
        {
            throw new ArgumentException("A table needs at least one column.", nameof(columns));
        }

        if (Array.Exists(cols, c => c is null))
        {
            throw new ArgumentNullException(nameof(columns), "A column is null.");
        }

        var copied = new List<IReadOnlyList<TableCell>>();
        foreach (IReadOnlyList<TableCell> row in rows)
        {
            copied.Add(Checked(title, cols, row, copied.Count, nameof(rows)));
        }

        Title = title;
        Columns = Array.AsReadOnly(cols);
        Rows = copied.AsReadOnly();
        Notes = CopyStrings(notes, nameof(notes));
        Warnings = CopyStrings(warnings, nameof(warnings));
    }

    /// <summary>
    /// A table whose rows are made when a writer reads them, each checked as the public constructor checks it: a table
    /// of very many rows then costs memory only for the row being written.
    /// </summary>
    /// <param name="title">The title (may be empty).</param>
    /// <param name="columns">The columns, at least one.</param>
    /// <param name="rowCount">The number of rows.</param>
    /// <param name="row">Makes the row at a position (each read makes it again).</param>
    /// <param name="notes">Notes shown below the table.</param>
    /// <param name="warnings">Warnings shown below the table.</param>
    internal ReportTable(
        string title,
        IReadOnlyList<TableColumn> columns,
        int rowCount,
        Func<int, IReadOnlyList<TableCell>> row,
        IEnumerable<string>? notes,
        IEnumerable<string>? warnings
    )
    {
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(row);
        TableColumn[] cols = [.. columns];
        if (cols.Length == 0)
        {
            throw new ArgumentException("A table needs at least one column.", nameof(columns));
        }

        Title = title;
        Columns = Array.AsReadOnly(cols);
        Rows = new ItemsOnRead<IReadOnlyList<TableCell>>(rowCount, i => Checked(title, cols, row(i), i, nameof(row)));
        Notes = CopyStrings(notes, nameof(notes));
        Warnings = CopyStrings(warnings, nameof(warnings));
    }

    /// <summary>A row with each cell coerced to its column's kind, or the error that says which cell does not
    /// fit.</summary>
    private static System.Collections.ObjectModel.ReadOnlyCollection<TableCell> Checked(
        string title,
        TableColumn[] cols,
        IReadOnlyList<TableCell> row,
        int index,
        string paramName
    )
    {
        if (row is null)
        {
            throw new ArgumentNullException(
                paramName,
                string.Create(CultureInfo.InvariantCulture, $"Row {index} is null.")
            );
        }

        if (row.Count != cols.Length)
        {
            throw new ArgumentException(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Row {index} of table '{title}' has {row.Count} cells; the table has {cols.Length} columns."
                ),
                paramName
            );
        }

        var cells = new TableCell[cols.Length];
        for (int i = 0; i < cells.Length; i++)
        {
            cells[i] =
                row[i].CoerceTo(cols[i].Kind)
                ?? throw new ArgumentException(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"Row {index}, column '{cols[i].Name}' of table '{title}': a {row[i].Kind} value does not "
                            + $"fit a "
                            + $"{cols[i].Kind} column."
                    ),
                    paramName
                );
        }

        return Array.AsReadOnly(cells);
    }

    /// <summary>The title (may be empty).</summary>
    public string Title { get; }

    /// <summary>The columns.</summary>
    public IReadOnlyList<TableColumn> Columns { get; }

    /// <summary>The rows; each has exactly one cell per column.</summary>
    public IReadOnlyList<IReadOnlyList<TableCell>> Rows { get; }

    /// <summary>Notes shown below the table.</summary>
    public IReadOnlyList<string> Notes { get; }

    /// <summary>Warnings shown below the table.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// The indexes of the columns a page shows: those with a value (or <c>n/a</c>) in at least one row; every column
    /// when the table has no rows. Text, CSV and JSON keep every column (their layout is a contract); a page leaves an
    /// empty column out.
    /// </summary>
    internal int[] ColumnsWithValues()
    {
        if (Rows.Count == 0)
        {
            return [.. Enumerable.Range(0, Columns.Count)];
        }

        return [.. Enumerable.Range(0, Columns.Count).Where(c => Rows.Any(r => HasValue(r[c])))];
    }

    private static bool HasValue(TableCell cell) =>
        cell.IsNotApplicable || (!cell.IsEmpty && (cell.Kind != ColumnKind.Text || cell.Text!.Length > 0));

    internal static IReadOnlyList<string> CopyStrings(IEnumerable<string>? items, string paramName)
    {
        if (items is null)
        {
            return [];
        }

        string[] copy = [.. items];
        if (Array.Exists(copy, s => s is null))
        {
            throw new ArgumentNullException(paramName, "An entry is null.");
        }

        return Array.AsReadOnly(copy);
    }
}

/// <summary>Collects columns and rows, then builds an immutable <see cref="ReportTable"/>. Not thread-safe.</summary>
internal sealed class TableBuilder
{
    private readonly string _title;
    private readonly List<TableColumn> _columns = [];
    private readonly List<IReadOnlyList<TableCell>> _rows = [];
    private readonly List<string> _notes = [];
    private readonly List<string> _warnings = [];

    /// <summary>Starts a table.</summary>
    /// <param name="title">The title (may be empty).</param>
    /// <exception cref="ArgumentNullException"><paramref name="title"/> is <see langword="null"/>.</exception>
    public TableBuilder(string title)
    {
        ArgumentNullException.ThrowIfNull(title);
        _title = title;
    }

    /// <summary>Adds a column; all columns must be added before the first row.</summary>
    /// <param name="column">The column.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="InvalidOperationException">Rows have already been added.</exception>
    public TableBuilder AddColumn(TableColumn column)
    {
        ArgumentNullException.ThrowIfNull(column);
        if (_rows.Count > 0)
        {
            throw new InvalidOperationException("Columns must be added before the first row.");
        }

        _columns.Add(column);
        return this;
    }

    /// <summary>Adds a column of the given kind.</summary>
    /// <param name="name">The header.</param>
    /// <param name="kind">The type of the values.</param>
    /// <returns>This builder.</returns>
    public TableBuilder AddColumn(string name, ColumnKind kind) => AddColumn(new TableColumn(name, kind));

    /// <summary>Adds a row (one cell per column; the table constructor checks the cells).</summary>
    /// <param name="cells">The cells.</param>
    /// <returns>This builder.</returns>
    public TableBuilder AddRow(params TableCell[] cells)
    {
        ArgumentNullException.ThrowIfNull(cells);
        _rows.Add((TableCell[])cells.Clone());
        return this;
    }

    /// <summary>Adds a note shown below the table.</summary>
    /// <param name="note">The note.</param>
    /// <returns>This builder.</returns>
    public TableBuilder AddNote(string note)
    {
        ArgumentNullException.ThrowIfNull(note);
        _notes.Add(note);
        return this;
    }

    /// <summary>Adds a warning shown below the table.</summary>
    /// <param name="warning">The warning.</param>
    /// <returns>This builder.</returns>
    public TableBuilder AddWarning(string warning)
    {
        ArgumentNullException.ThrowIfNull(warning);
        _warnings.Add(warning);
        return this;
    }

    /// <summary>Builds the table.</summary>
    /// <returns>The immutable table.</returns>
    /// <exception cref="ArgumentException">A row does not match the columns.</exception>
    public ReportTable Build() => new(_title, _columns, _rows, _notes, _warnings);

    /// <summary>
    /// Builds a table whose rows are made when read (see <see cref="ReportTable"/>'s internal constructor) instead of
    /// the rows added: for tables of very many rows written once.
    /// </summary>
    /// <param name="rowCount">The number of rows.</param>
    /// <param name="row">Makes the row at a position, one cell per column.</param>
    /// <returns>The table.</returns>
    /// <exception cref="InvalidOperationException">Rows have been added.</exception>
    public ReportTable BuildWithRowsOnRead(int rowCount, Func<int, TableCell[]> row)
    {
        if (_rows.Count > 0)
        {
            throw new InvalidOperationException("The rows are made on read: add none.");
        }

        return new ReportTable(_title, _columns, rowCount, row, _notes, _warnings);
    }
}

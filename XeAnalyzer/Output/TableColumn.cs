namespace XeAnalyzer.Output;

/// <summary>
/// A typed column of a <see cref="ReportTable"/>. Immutable. Text columns are left-aligned and every other kind is
/// right-aligned in text and HTML output.
/// </summary>
public sealed class TableColumn
{
    private static readonly TableColumn[] s_defaults =
    [
        .. Enum.GetValues<ColumnKind>().Select(k => new TableColumn(k.ToString(), k)),
    ];

    /// <summary>Creates a column.</summary>
    /// <param name="name">The header; any text (writers escape it).</param>
    /// <param name="kind">The type of the values.</param>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="kind"/> is not a defined value.</exception>
    public TableColumn(string name, ColumnKind kind)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!Enum.IsDefined(kind))
        {
            throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown column kind.");
        }

        Name = name;
        Kind = kind;
    }

    /// <summary>The header text.</summary>
    public string Name { get; }

    /// <summary>The type of the values.</summary>
    public ColumnKind Kind { get; }

    /// <summary>
    /// Decimals shown for <see cref="ColumnKind.Decimal"/> (default 2), <see cref="ColumnKind.Percentage"/> (default 2,
    /// of the percent value) and <see cref="ColumnKind.Duration"/> (default 0 for ms and µs, 3 for seconds) in text and
    /// HTML output. CSV and JSON always write the full value. Must be between 0 and 9.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 0..9.</exception>
    public int? DecimalPlaces
    {
        get;
        init
        {
            if (value is < 0 or > 9)
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, "Decimal places must be between 0 and 9.");
            }

            field = value;
        }
    }

    /// <summary>The unit of a <see cref="ColumnKind.Duration"/> column (default milliseconds).</summary>
    public DurationUnit DurationUnit { get; init; } = DurationUnit.Milliseconds;

    /// <summary>An optional longer explanation of the column (HTML shows it as the header's tooltip; JSON writes
    /// it).</summary>
    public string? Description { get; init; }

    /// <summary>Whether text and HTML output right-align the column (every kind but
    /// <see cref="ColumnKind.Text"/>).</summary>
    public bool IsRightAligned => Kind != ColumnKind.Text;

    /// <summary>The decimals actually used for display: <see cref="DecimalPlaces"/> or the default of the
    /// kind.</summary>
    public int EffectiveDecimalPlaces =>
        DecimalPlaces
        ?? Kind switch
        {
            ColumnKind.Decimal or ColumnKind.Percentage => 2,
            ColumnKind.Duration => DurationUnit == DurationUnit.Seconds ? 3 : 0,
            _ => 0,
        };

    /// <summary>A text column.</summary>
    /// <param name="name">The header.</param>
    public static TableColumn Text(string name) => new(name, ColumnKind.Text);

    /// <summary>An integer column.</summary>
    /// <param name="name">The header.</param>
    public static TableColumn Integer(string name) => new(name, ColumnKind.Integer);

    /// <summary>A decimal column.</summary>
    /// <param name="name">The header.</param>
    /// <param name="decimalPlaces">Decimals shown in text and HTML output.</param>
    public static TableColumn Decimal(string name, int decimalPlaces = 2) =>
        new(name, ColumnKind.Decimal) { DecimalPlaces = decimalPlaces };

    /// <summary>A percentage column (values are fractions).</summary>
    /// <param name="name">The header.</param>
    /// <param name="decimalPlaces">Decimals of the percent value shown in text and HTML output.</param>
    public static TableColumn Percentage(string name, int decimalPlaces = 2) =>
        new(name, ColumnKind.Percentage) { DecimalPlaces = decimalPlaces };

    /// <summary>A duration column.</summary>
    /// <param name="name">The header.</param>
    /// <param name="unit">The unit values are shown in.</param>
    public static TableColumn Duration(string name, DurationUnit unit = DurationUnit.Milliseconds) =>
        new(name, ColumnKind.Duration) { DurationUnit = unit };

    /// <summary>A UTC timestamp column.</summary>
    /// <param name="name">The header.</param>
    public static TableColumn Timestamp(string name) => new(name, ColumnKind.Timestamp);

    /// <summary>The column with default settings for a kind (used to format key/value entries).</summary>
    internal static TableColumn DefaultFor(ColumnKind kind) => s_defaults[(int)kind];
}

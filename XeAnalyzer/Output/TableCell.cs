namespace XeAnalyzer.Output;

/// <summary>
/// One value of a <see cref="ReportTable"/> row or a <see cref="KeyValueList"/> entry: empty, or a value of one
/// <see cref="ColumnKind"/>. Immutable. Conversions exist from <see cref="string"/> (text), <see cref="int"/> and
/// <see cref="long"/> (integer), <see cref="double"/> (decimal), <see cref="TimeSpan"/> (duration) and
/// <see cref="DateTime"/> (timestamp); percentages are made with <see cref="FromPercentage"/>.
/// </summary>
public readonly struct TableCell : IEquatable<TableCell>
{
    private readonly string? _text;
    private readonly string? _link;
    private readonly long _integer;
    private readonly double _number;
    private readonly ColumnKind _kind;
    private readonly bool _hasValue;

    private TableCell(ColumnKind kind, string? text, long integer, double number, string? link = null)
    {
        _kind = kind;
        _text = text;
        _link = link;
        _integer = integer;
        _number = number;
        _hasValue = true;
    }

    private const string NotApplicableText = "n/a";

    private TableCell(string notApplicable)
    {
        _text = notApplicable;
    }

    /// <summary>An empty cell (no value); every writer shows it as an empty field (JSON: <c>null</c>).</summary>
    public static TableCell Empty => default;

    /// <summary>
    /// A value the data does not have (a field the event's schema lacks): no value, shown as <c>n/a</c> in text and
    /// HTML, an empty field in CSV and <c>null</c> in JSON, never 0.
    /// </summary>
    public static TableCell NotApplicable => new(NotApplicableText);

    /// <summary>Whether the cell has no value (empty or <see cref="NotApplicable"/>).</summary>
    public bool IsEmpty => !_hasValue;

    /// <summary>Whether the cell is <see cref="NotApplicable"/>.</summary>
    public bool IsNotApplicable => !_hasValue && _text is not null;

    /// <summary>The kind of the value; <see langword="null"/> for an empty cell.</summary>
    public ColumnKind? Kind => _hasValue ? _kind : null;

    /// <summary>The text of a <see cref="ColumnKind.Text"/> cell, otherwise <see langword="null"/>.</summary>
    public string? Text => _hasValue && _kind == ColumnKind.Text ? _text : null;

    /// <summary>
    /// Where a text cell links to (a relative path such as <c>capture/index.html</c>), or <see langword="null"/>. HTML
    /// shows the cell as a link; the other formats show its text.
    /// </summary>
    public string? Link => _hasValue && _kind == ColumnKind.Text ? _link : null;

    /// <summary>The value of a <see cref="ColumnKind.Integer"/> cell, otherwise 0.</summary>
    public long Integer => _hasValue && _kind == ColumnKind.Integer ? _integer : 0;

    /// <summary>
    /// The value of a <see cref="ColumnKind.Decimal"/> cell, the fraction of a <see cref="ColumnKind.Percentage"/>
    /// cell, or the value of an <see cref="ColumnKind.Integer"/> cell converted to <see cref="double"/>; otherwise 0.
    /// </summary>
    public double Number =>
        !_hasValue
            ? 0
            : _kind switch
            {
                ColumnKind.Decimal or ColumnKind.Percentage => _number,
                ColumnKind.Integer => _integer,
                _ => 0,
            };

    /// <summary>The value of a <see cref="ColumnKind.Duration"/> cell, otherwise <see cref="TimeSpan.Zero"/>.</summary>
    public TimeSpan Duration => _hasValue && _kind == ColumnKind.Duration ? new TimeSpan(_integer) : TimeSpan.Zero;

    /// <summary>The UTC value of a <see cref="ColumnKind.Timestamp"/> cell, otherwise
    /// <see cref="DateTime.MinValue"/>.</summary>
    public DateTime Timestamp =>
        _hasValue && _kind == ColumnKind.Timestamp ? new DateTime(_integer, DateTimeKind.Utc) : DateTime.MinValue;

    /// <summary>A text cell; <see langword="null"/> gives an empty cell.</summary>
    /// <param name="value">The text. It may hold any characters; writers escape or sanitise it for their
    /// format.</param>
    public static TableCell FromString(string? value) =>
        value is null ? default : new TableCell(ColumnKind.Text, value, 0, 0);

    /// <summary>A text cell that links to a file beside the document (HTML shows a link; the other formats the
    /// text).</summary>
    /// <param name="text">The text.</param>
    /// <param name="target">
    /// A relative path: segments of ASCII letters, digits, <c>.</c>, <c>_</c> and <c>-</c> separated by <c>/</c>, none
    /// of them <c>..</c> (so it needs no escaping and cannot leave the folder or name a scheme).
    /// </param>
    /// <returns>The cell.</returns>
    /// <exception cref="ArgumentException"><paramref name="target"/> is not such a path.</exception>
    public static TableCell FromLink(string text, string target)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(target);
        string[] segments = target.Split('/');
        if (
            Array.Exists(
                segments,
                s =>
                    s.Length == 0
                    || s is "." or ".."
                    || !s.All(c =>
                        c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '.' or '_' or '-'
                    )
            )
        )
        {
            throw new ArgumentException(
                "a link target must be a relative path of [A-Za-z0-9._-] segments: '" + target + "'",
                nameof(target)
            );
        }

        return new TableCell(ColumnKind.Text, text, 0, 0, target);
    }

    /// <summary>An integer cell.</summary>
    /// <param name="value">The value.</param>
    public static TableCell FromInt64(long value) => new(ColumnKind.Integer, null, value, 0);

    /// <summary>An integer cell.</summary>
    /// <param name="value">The value.</param>
    public static TableCell FromInt32(int value) => new(ColumnKind.Integer, null, value, 0);

    /// <summary>A decimal cell.</summary>
    /// <param name="value">The value; NaN and infinities are shown as empty fields (JSON: <c>null</c>).</param>
    public static TableCell FromDouble(double value) => new(ColumnKind.Decimal, null, 0, value);

    /// <summary>A percentage cell.</summary>
    /// <param name="fraction">The share as a fraction: 0.25 is shown as 25 %.</param>
    public static TableCell FromPercentage(double fraction) => new(ColumnKind.Percentage, null, 0, fraction);

    /// <summary>A duration cell.</summary>
    /// <param name="value">The duration.</param>
    public static TableCell FromTimeSpan(TimeSpan value) => new(ColumnKind.Duration, null, value.Ticks, 0);

    /// <summary>
    /// A timestamp cell. A <see cref="DateTimeKind.Unspecified"/> value is taken as UTC (as Extended Events timestamps
    /// are); a <see cref="DateTimeKind.Local"/> value is converted to UTC.
    /// </summary>
    /// <param name="value">The point in time.</param>
    public static TableCell FromDateTime(DateTime value)
    {
        DateTime utc = value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : value;
        return new TableCell(ColumnKind.Timestamp, null, utc.Ticks, 0);
    }

    /// <summary>Converts text to a cell; see <see cref="FromString"/>.</summary>
    /// <param name="value">The text.</param>
    public static implicit operator TableCell(string? value) => FromString(value);

    /// <summary>Converts an integer to a cell; see <see cref="FromInt64"/>.</summary>
    /// <param name="value">The value.</param>
    public static implicit operator TableCell(long value) => FromInt64(value);

    /// <summary>Converts an integer to a cell; see <see cref="FromInt32"/>.</summary>
    /// <param name="value">The value.</param>
    public static implicit operator TableCell(int value) => FromInt32(value);

    /// <summary>Converts a real number to a decimal cell; see <see cref="FromDouble"/>.</summary>
    /// <param name="value">The value.</param>
    public static implicit operator TableCell(double value) => FromDouble(value);

    /// <summary>Converts a duration to a cell; see <see cref="FromTimeSpan"/>.</summary>
    /// <param name="value">The value.</param>
    public static implicit operator TableCell(TimeSpan value) => FromTimeSpan(value);

    /// <summary>Converts a point in time to a cell; see <see cref="FromDateTime"/>.</summary>
    /// <param name="value">The value.</param>
    public static implicit operator TableCell(DateTime value) => FromDateTime(value);

    /// <summary>Compares two cells by kind and value.</summary>
    /// <param name="left">The first cell.</param>
    /// <param name="right">The second cell.</param>
    public static bool operator ==(TableCell left, TableCell right) => left.Equals(right);

    /// <summary>Compares two cells by kind and value.</summary>
    /// <param name="left">The first cell.</param>
    /// <param name="right">The second cell.</param>
    public static bool operator !=(TableCell left, TableCell right) => !left.Equals(right);

    /// <inheritdoc/>
    public bool Equals(TableCell other) =>
        _hasValue == other._hasValue
        && _kind == other._kind
        && _integer == other._integer
        && _number.Equals(other._number)
        && string.Equals(_text, other._text, StringComparison.Ordinal)
        && string.Equals(_link, other._link, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is TableCell other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() =>
        HashCode.Combine(
            _hasValue,
            _kind,
            _integer,
            _number,
            _text is null ? 0 : StringComparer.Ordinal.GetHashCode(_text)
        );

    /// <summary>The value formatted for display with the default format of its kind (see
    /// <see cref="TableColumn"/>).</summary>
    public override string ToString() =>
        _hasValue ? CellFormatter.Display(this, TableColumn.DefaultFor(_kind))
        : IsNotApplicable ? NotApplicableText
        : string.Empty;

    /// <summary>Returns this cell re-typed for a column of <paramref name="kind"/>, or <see langword="null"/> if it
    /// does not fit.</summary>
    internal TableCell? CoerceTo(ColumnKind kind)
    {
        if (!_hasValue || _kind == kind)
        {
            return this;
        }

        return (_kind, kind) switch
        {
            (ColumnKind.Integer, ColumnKind.Decimal) => FromDouble(_integer),
            (ColumnKind.Decimal, ColumnKind.Percentage) => FromPercentage(_number),
            // The cast matters: a bare null would convert to an empty cell through the string conversion.
            _ => (TableCell?)null,
        };
    }
}

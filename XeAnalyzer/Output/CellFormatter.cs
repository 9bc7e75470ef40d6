using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Output;

/// <summary>Formats <see cref="TableCell"/>s, always with the invariant culture.</summary>
internal static class CellFormatter
{
    private static readonly CultureInfo s_inv = CultureInfo.InvariantCulture;

    /// <summary>The display form used by text and HTML: grouped digits, fixed decimals, units and percent
    /// signs.</summary>
    public static string Display(TableCell cell, TableColumn column)
    {
        if (cell.IsEmpty)
        {
            return cell.IsNotApplicable ? "n/a" : string.Empty;
        }

        int d = column.EffectiveDecimalPlaces;
        return cell.Kind switch
        {
            ColumnKind.Text => cell.Text!,
            ColumnKind.Integer => cell.Integer.ToString("N0", s_inv),
            ColumnKind.Decimal => Fixed(cell.Number, d),
            ColumnKind.Percentage => double.IsFinite(cell.Number) ? Fixed(cell.Number * 100, d) + "%" : string.Empty,
            ColumnKind.Duration => Fixed(DurationValue(cell.Duration, column.DurationUnit), d)
                + " "
                + UnitSymbol(column.DurationUnit),
            ColumnKind.Timestamp => cell.Timestamp.ToString("yyyy-MM-dd HH:mm:ss.fffffff", s_inv),
            _ => string.Empty,
        };
    }

    /// <summary>The data form used by CSV: no grouping, full round-trip precision, ISO-8601 UTC timestamps.</summary>
    public static string Data(TableCell cell, TableColumn column)
    {
        if (cell.IsEmpty)
        {
            return string.Empty;
        }

        return cell.Kind switch
        {
            ColumnKind.Text => cell.Text!,
            ColumnKind.Integer => cell.Integer.ToString(s_inv),
            ColumnKind.Decimal or ColumnKind.Percentage => RoundTrip(cell.Number),
            ColumnKind.Duration => RoundTrip(DurationValue(cell.Duration, column.DurationUnit)),
            ColumnKind.Timestamp => IsoUtc(cell.Timestamp),
            _ => string.Empty,
        };
    }

    /// <summary>A finite double with fixed decimals and grouped digits; empty for NaN and infinities.</summary>
    public static string Fixed(double value, int decimals)
    {
        if (!double.IsFinite(value))
        {
            return string.Empty;
        }

        string s = value.ToString("N" + decimals.ToString(s_inv), s_inv);
        return IsNegativeZero(s) ? s[1..] : s;
    }

    /// <summary>The shortest text that parses back to the same double; empty for NaN and infinities.</summary>
    public static string RoundTrip(double value) => double.IsFinite(value) ? value.ToString("R", s_inv) : string.Empty;

    /// <summary>ISO-8601 UTC with 7 fractional digits and a Z suffix.</summary>
    public static string IsoUtc(DateTime utc) => Timestamps.IsoUtc(utc);

    /// <summary>The duration expressed in the unit.</summary>
    public static double DurationValue(TimeSpan value, DurationUnit unit) =>
        unit switch
        {
            DurationUnit.Microseconds => value.Ticks / (double)TimeSpan.TicksPerMicrosecond,
            DurationUnit.Seconds => value.Ticks / (double)TimeSpan.TicksPerSecond,
            _ => value.Ticks / (double)TimeSpan.TicksPerMillisecond,
        };

    /// <summary>The display symbol of a unit (µs, ms, s).</summary>
    public static string UnitSymbol(DurationUnit unit) =>
        unit switch
        {
            DurationUnit.Microseconds => "\u00B5s",
            DurationUnit.Seconds => "s",
            _ => "ms",
        };

    /// <summary>The ASCII code of a unit for CSV headers and JSON (us, ms, s).</summary>
    public static string UnitCode(DurationUnit unit) =>
        unit switch
        {
            DurationUnit.Microseconds => "us",
            DurationUnit.Seconds => "s",
            _ => "ms",
        };

    /// <summary>The lower-case name of a column kind used in JSON.</summary>
    public static string KindName(ColumnKind kind) =>
        kind switch
        {
            ColumnKind.Text => "text",
            ColumnKind.Integer => "integer",
            ColumnKind.Decimal => "decimal",
            ColumnKind.Percentage => "percentage",
            ColumnKind.Duration => "duration",
            _ => "timestamp",
        };

    private static bool IsNegativeZero(string s) =>
        s.Length > 1 && s[0] == '-' && s.AsSpan(1).IndexOfAnyExcept("0.,") < 0;
}

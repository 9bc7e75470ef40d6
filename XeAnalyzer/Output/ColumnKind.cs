namespace XeAnalyzer.Output;

/// <summary>The type of the values in a <see cref="TableColumn"/>; it decides alignment and formatting in every
/// writer.</summary>
public enum ColumnKind
{
    /// <summary>Free text, left-aligned.</summary>
    Text,

    /// <summary>A whole number (<see cref="long"/>), right-aligned, grouped with <c>,</c> in text and HTML
    /// output.</summary>
    Integer,

    /// <summary>A real number (<see cref="double"/>) shown with <see cref="TableColumn.DecimalPlaces"/>
    /// decimals.</summary>
    Decimal,

    /// <summary>
    /// A share held as a fraction (<c>0.25</c> is 25 %). Text and HTML show it multiplied by 100 with a <c>%</c> sign;
    /// CSV and JSON write the fraction itself.
    /// </summary>
    Percentage,

    /// <summary>A <see cref="TimeSpan"/>, shown in the column's <see cref="TableColumn.DurationUnit"/>.</summary>
    Duration,

    /// <summary>A point in time, always UTC; written as ISO-8601 with a <c>Z</c> suffix in CSV and JSON.</summary>
    Timestamp,
}

/// <summary>The unit a <see cref="ColumnKind.Duration"/> value is shown in.</summary>
public enum DurationUnit
{
    /// <summary>Microseconds (<c>µs</c>; <c>us</c> in CSV headers).</summary>
    Microseconds,

    /// <summary>Milliseconds (<c>ms</c>).</summary>
    Milliseconds,

    /// <summary>Seconds (<c>s</c>).</summary>
    Seconds,
}

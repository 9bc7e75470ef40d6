using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>What the x values of a <see cref="LineChart"/> mean.</summary>
internal enum XAxisKind
{
    /// <summary>Plain numbers.</summary>
    Number,

    /// <summary>
    /// UTC time: x values are seconds since 1970-01-01T00:00:00Z (see <see cref="LineSeries.ToUnixSeconds"/>); axis
    /// labels are UTC.
    /// </summary>
    Time,
}

/// <summary>
/// One named series of a <see cref="LineChart"/>: (x, y) points ordered by x. Immutable; the constructor copies the
/// values and, when the x values are not already in order, sorts the points by x (stable, so points with equal x keep
/// their order). It holds millions of points compactly (two <see cref="double"/> arrays).
/// </summary>
internal sealed class LineSeries
{
    private static readonly DateTime s_unixEpoch = new(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private readonly double[] _x;
    private readonly double[] _y;

    /// <summary>Creates a series from parallel x and y values.</summary>
    /// <param name="name">The name shown in the legend.</param>
    /// <param name="x">The x values, all finite.</param>
    /// <param name="y">The y values, all finite; same count as <paramref name="x"/>.</param>
    /// <exception cref="ArgumentException">The counts differ or a value is not finite.</exception>
    public LineSeries(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (x.Length != y.Length)
        {
            throw new ArgumentException(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Series '{name}' has {x.Length} x values but {y.Length} y values."
                ),
                nameof(y)
            );
        }

        bool sorted = true;
        for (int i = 0; i < x.Length; i++)
        {
            if (!double.IsFinite(x[i]) || !double.IsFinite(y[i]))
            {
                throw new ArgumentException(
                    string.Create(CultureInfo.InvariantCulture, $"Series '{name}': point {i} is not finite."),
                    nameof(x)
                );
            }

            if (i > 0 && x[i] < x[i - 1])
            {
                sorted = false;
            }
        }

        Name = name;
        if (sorted)
        {
            _x = x.ToArray();
            _y = y.ToArray();
        }
        else
        {
            int[] order = new int[x.Length];
            for (int i = 0; i < order.Length; i++)
            {
                order[i] = i;
            }

            double[] keys = x.ToArray();
            Array.Sort(order, (a, b) => keys[a] != keys[b] ? keys[a].CompareTo(keys[b]) : a.CompareTo(b));
            _x = new double[order.Length];
            _y = new double[order.Length];
            for (int i = 0; i < order.Length; i++)
            {
                _x[i] = keys[order[i]];
                _y[i] = y[order[i]];
            }
        }
    }

    /// <summary>The name shown in the legend.</summary>
    public string Name { get; }

    /// <summary>The number of points.</summary>
    public int Count => _x.Length;

    /// <summary>The x values, in non-decreasing order.</summary>
    public ReadOnlyMemory<double> X => _x;

    /// <summary>The y values, parallel to <see cref="X"/>.</summary>
    public ReadOnlyMemory<double> Y => _y;

    /// <summary>Creates a series from (x, y) points.</summary>
    /// <param name="name">The name shown in the legend.</param>
    /// <param name="points">The points.</param>
    /// <returns>The series.</returns>
    public static LineSeries FromPoints(string name, IEnumerable<(double X, double Y)> points)
    {
        ArgumentNullException.ThrowIfNull(points);
        (double X, double Y)[] p = [.. points];
        return new LineSeries(name, Array.ConvertAll(p, t => t.X), Array.ConvertAll(p, t => t.Y));
    }

    /// <summary>Creates a time series for a chart with <see cref="XAxisKind.Time"/>.</summary>
    /// <param name="name">The name shown in the legend.</param>
    /// <param name="points">The points; times of kind <see cref="DateTimeKind.Unspecified"/> are taken as UTC.</param>
    /// <returns>The series.</returns>
    public static LineSeries FromTimestamps(string name, IEnumerable<(DateTime Time, double Value)> points)
    {
        ArgumentNullException.ThrowIfNull(points);
        (DateTime Time, double Value)[] p = [.. points];
        return new LineSeries(name, Array.ConvertAll(p, t => ToUnixSeconds(t.Time)), Array.ConvertAll(p, t => t.Value));
    }

    /// <summary>Converts a time to the x value of a time axis: seconds since 1970-01-01T00:00:00Z.</summary>
    /// <param name="time">The time; <see cref="DateTimeKind.Unspecified"/> is taken as UTC, local time is
    /// converted.</param>
    /// <returns>Seconds since the Unix epoch (sub-microsecond precision for present-day dates).</returns>
    public static double ToUnixSeconds(DateTime time)
    {
        DateTime utc = time.Kind == DateTimeKind.Local ? time.ToUniversalTime() : time;
        return (utc.Ticks - s_unixEpoch.Ticks) / (double)TimeSpan.TicksPerSecond;
    }

    /// <summary>Converts the x value of a time axis back to a UTC time (rounded to the nearest 100 ns tick).</summary>
    /// <param name="unixSeconds">Seconds since the Unix epoch.</param>
    /// <returns>The UTC time, clamped to the <see cref="DateTime"/> range.</returns>
    public static DateTime FromUnixSeconds(double unixSeconds)
    {
        double ticks = Math.Round(unixSeconds * TimeSpan.TicksPerSecond) + s_unixEpoch.Ticks;
        if (!(ticks >= DateTime.MinValue.Ticks))
        {
            return DateTime.SpecifyKind(DateTime.MinValue, DateTimeKind.Utc);
        }

        if (ticks >= DateTime.MaxValue.Ticks)
        {
            return DateTime.SpecifyKind(DateTime.MaxValue, DateTimeKind.Utc);
        }

        return new DateTime((long)ticks, DateTimeKind.Utc);
    }
}

/// <summary>
/// Line chart data: one or more <see cref="LineSeries"/> sharing an x axis (numbers or UTC time) and a y axis.
/// The SVG writer downsamples long series per pixel column without losing peaks. Immutable.
/// </summary>
internal sealed class LineChart : ReportBlock
{
    /// <summary>Creates a line chart.</summary>
    /// <param name="title">The title.</param>
    /// <param name="xAxis">What the x values mean.</param>
    /// <param name="series">The series, drawn in order with a legend.</param>
    /// <exception cref="ArgumentNullException">An argument or series is <see langword="null"/>.</exception>
    public LineChart(string title, XAxisKind xAxis, IEnumerable<LineSeries> series)
    {
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(series);
        LineSeries[] copy = [.. series];
        if (Array.Exists(copy, s => s is null))
        {
            throw new ArgumentNullException(nameof(series), "A series is null.");
        }

        Title = title;
        XAxis = xAxis;
        Series = Array.AsReadOnly(copy);
    }

    /// <summary>The title.</summary>
    public string Title { get; }

    /// <summary>What the x values mean.</summary>
    public XAxisKind XAxis { get; }

    /// <summary>The series.</summary>
    public IReadOnlyList<LineSeries> Series { get; }

    /// <summary>The x axis label, or <see langword="null"/> (a time axis is then labelled "time (UTC)").</summary>
    public string? XAxisLabel { get; init; }

    /// <summary>The y axis label, or <see langword="null"/>.</summary>
    public string? YAxisLabel { get; init; }

    /// <summary>Whether the y axis always includes 0 (default <see langword="true"/>, right for counts and running
    /// totals).</summary>
    public bool YAxisIncludesZero { get; init; } = true;

    /// <summary>
    /// Every point of every series as a table (<c>series</c>, then <c>time</c> on a time axis or the x axis label, then
    /// the y axis label): the data behind the chart, for CSV and JSON.
    /// </summary>
    /// <returns>The table, titled like the chart.</returns>
    public ReportTable ToPointsTable()
    {
        var t = new TableBuilder(Title)
            .AddColumn(TableColumn.Text("series"))
            .AddColumn(
                XAxis == XAxisKind.Time
                    ? TableColumn.Timestamp("time")
                    : new TableColumn(XAxisLabel ?? "x", ColumnKind.Decimal)
            )
            .AddColumn(new TableColumn(YAxisLabel ?? "y", ColumnKind.Decimal));
        foreach (LineSeries s in Series)
        {
            ReadOnlySpan<double> x = s.X.Span;
            ReadOnlySpan<double> y = s.Y.Span;
            for (int i = 0; i < x.Length; i++)
            {
                t.AddRow(
                    s.Name,
                    XAxis == XAxisKind.Time
                        ? TableCell.FromDateTime(LineSeries.FromUnixSeconds(x[i]))
                        : TableCell.FromDouble(x[i]),
                    TableCell.FromDouble(y[i])
                );
            }
        }

        return t.Build();
    }
}

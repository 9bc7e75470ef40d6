using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>A tick on a chart axis: its value and label.</summary>
internal readonly record struct AxisTick(double Value, string Label);

/// <summary>A linear axis range rounded to "nice" values (1, 2, 2.5 or 5 times a power of ten) with its
/// ticks.</summary>
internal sealed class AxisScale
{
    private static readonly double[] s_timeSteps =
    [
        0.001,
        0.002,
        0.005,
        0.01,
        0.02,
        0.05,
        0.1,
        0.2,
        0.5,
        1,
        2,
        5,
        10,
        15,
        30,
        60,
        120,
        300,
        600,
        900,
        1800,
        3600,
        7200,
        10800,
        21600,
        43200,
        86400,
        172800,
        604800,
    ];

    private AxisScale(double min, double max, IReadOnlyList<AxisTick> ticks, string? caption)
    {
        Min = min;
        Max = max;
        Ticks = ticks;
        Caption = caption;
    }

    /// <summary>The lower end of the axis.</summary>
    public double Min { get; }

    /// <summary>The upper end of the axis.</summary>
    public double Max { get; }

    /// <summary>The ticks, ascending, all within [Min, Max].</summary>
    public IReadOnlyList<AxisTick> Ticks { get; }

    /// <summary>Extra text for the axis title (the UTC date of a time axis), or null.</summary>
    public string? Caption { get; }

    /// <summary>Maps a value to a position between <paramref name="from"/> (at Min) and <paramref name="to"/> (at
    /// Max).</summary>
    public double Map(double value, double from, double to) =>
        Max > Min ? from + ((value - Min) / (Max - Min) * (to - from)) : (from + to) / 2;

    /// <summary>A nice numeric axis covering [min, max] with about <paramref name="targetTicks"/> ticks.</summary>
    public static AxisScale Numeric(double min, double max, int targetTicks)
    {
        if (!double.IsFinite(min) || !double.IsFinite(max))
        {
            min = 0;
            max = 1;
        }

        if (max < min)
        {
            (min, max) = (max, min);
        }

        if (max == min)
        {
            double pad = min == 0 ? 1 : Math.Abs(min) * 0.1;
            min -= min == 0 ? 0 : pad;
            max += pad;
        }

        double step = NiceNumber((max - min) / Math.Max(1, targetTicks - 1), round: true);
        double lo = Math.Floor(min / step) * step;
        double hi = Math.Ceiling(max / step) * step;
        double maxAbs = Math.Max(Math.Abs(lo), Math.Abs(hi));
        (double scale, string suffix) = maxAbs switch
        {
            >= 1e13 => (1e12, "T"),
            >= 1e10 => (1e9, "G"),
            >= 1e7 => (1e6, "M"),
            >= 1e4 => (1e3, "k"),
            _ => (1.0, string.Empty),
        };
        int decimals = DecimalsFor(step / scale);
        string format = "N" + decimals.ToString(CultureInfo.InvariantCulture);
        var ticks = new List<AxisTick>();
        int count = (int)Math.Round((hi - lo) / step);
        for (int i = 0; i <= count && i <= 1000; i++)
        {
            double v = lo + (i * step);
            if (Math.Abs(v) < step * 1e-9)
            {
                v = 0;
            }

            string label = v == 0 ? "0" : (v / scale).ToString(format, CultureInfo.InvariantCulture) + suffix;
            ticks.Add(new AxisTick(v, label));
        }

        return new AxisScale(lo, hi, ticks, null);
    }

    /// <summary>
    /// A time axis over Unix seconds [min, max]: steps of whole milliseconds, seconds, minutes, hours or days aligned
    /// to UTC, labels in UTC. The range is not widened to the ticks (time axes start at the first point).
    /// </summary>
    public static AxisScale Time(double min, double max, int targetTicks)
    {
        if (max < min)
        {
            (min, max) = (max, min);
        }

        if (max == min)
        {
            min -= 1;
            max += 1;
        }

        double range = max - min;
        double step = Array.Find(s_timeSteps, s => range / s <= targetTicks);
        if (step == 0)
        {
            step = NiceNumber(range / targetTicks / 86400, round: false) * 86400;
        }

        if (range / step < 2)
        {
            step = NiceNumber(range / Math.Max(1, targetTicks - 1), round: true);
        }

        DateTime first = LineSeries.FromUnixSeconds(min);
        DateTime last = LineSeries.FromUnixSeconds(max);
        bool multiDay = first.Date != last.Date;
        string format = step switch
        {
            >= 86400 => "yyyy-MM-dd",
            >= 60 => multiDay ? "MM-dd HH:mm" : "HH:mm",
            >= 1 => multiDay ? "MM-dd HH:mm:ss" : "HH:mm:ss",
            >= 0.001 => "HH:mm:ss.fff",
            _ => "HH:mm:ss.fffffff",
        };
        var ticks = new List<AxisTick>();
        double t0 = Math.Ceiling(min / step) * step;
        for (int i = 0; i <= 1000; i++)
        {
            double v = t0 + (i * step);
            if (v > max + (step * 1e-9))
            {
                break;
            }

            ticks.Add(new AxisTick(v, LineSeries.FromUnixSeconds(v).ToString(format, CultureInfo.InvariantCulture)));
        }

        string caption = multiDay
            ? first.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture)
                + " to "
                + last.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture)
            : first.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);
        return new AxisScale(min, max, ticks, caption);
    }

    /// <summary>A nice number near <paramref name="value"/>: 1, 2, 2.5, 5 or 10 times a power of ten.</summary>
    internal static double NiceNumber(double value, bool round)
    {
        if (!(value > 0) || !double.IsFinite(value))
        {
            return 1;
        }

        double exp = Math.Floor(Math.Log10(value));
        double p = Math.Pow(10, exp);
        double f = value / p;
        double nice = round
            ? f switch
            {
                < 1.5 => 1,
                < 2.25 => 2,
                < 3.5 => 2.5,
                < 7.5 => 5,
                _ => 10,
            }
            : f switch
            {
                <= 1 => 1,
                <= 2 => 2,
                <= 2.5 => 2.5,
                <= 5 => 5,
                _ => 10,
            };
        return nice * p;
    }

    private static int DecimalsFor(double step)
    {
        for (int d = 0; d < 9; d++)
        {
            double scaled = step * Math.Pow(10, d);
            if (Math.Abs(scaled - Math.Round(scaled)) < 1e-6 * Math.Max(1, scaled))
            {
                return d;
            }
        }

        return 9;
    }
}

namespace XeAnalyzer.Analysis;

/// <summary>Count, mean, percentiles and extremes of a set of values, in the unit the producer states.</summary>
/// <param name="Count">Number of values.</param>
/// <param name="Mean">Exact arithmetic mean (0 when empty).</param>
/// <param name="P50">Median (nearest rank), within <see cref="LogLinearHistogram.RelativeError"/> of the exact
/// value.</param>
/// <param name="P99">99th percentile (nearest rank), within <see cref="LogLinearHistogram.RelativeError"/>.</param>
/// <param name="Min">Exact minimum (0 when empty).</param>
/// <param name="Max">Exact maximum (0 when empty).</param>
/// <param name="Total">Exact sum.</param>
public sealed record DistributionSummary(
    long Count,
    double Mean,
    double P50,
    double P99,
    double Min,
    double Max,
    double Total
)
{
    /// <summary>An empty summary.</summary>
    public static DistributionSummary Empty { get; } = new(0, 0, 0, 0, 0, 0, 0);

    /// <summary>The same summary with every value (not the count) multiplied by <paramref name="factor"/>, for unit
    /// conversion.</summary>
    /// <param name="factor">The factor.</param>
    /// <returns>The scaled summary.</returns>
    public DistributionSummary Scale(double factor) =>
        new(Count, Mean * factor, P50 * factor, P99 * factor, Min * factor, Max * factor, Total * factor);
}

/// <summary>
/// A streaming histogram of non-negative integers with bounded memory (at most 7,296 counters, allocated in blocks of
/// 128 as values need them) for percentiles of millions of values. Values below 256 are counted exactly; larger values
/// fall in log-linear buckets 1/128 of a power of two wide, and a percentile reports its bucket's midpoint, so it is
/// within
/// <see cref="RelativeError"/> (0.4 %) of the exact nearest-rank percentile. Count, sum, mean, minimum and maximum are
/// exact.
/// </summary>
/// <remarks>Not thread-safe.</remarks>
internal sealed class LogLinearHistogram
{
    /// <summary>The largest relative difference between a reported percentile and the exact one: 1/256.</summary>
    public const double RelativeError = 1.0 / 256;

    private const int SubBits = 7;
    private const int SubCount = 1 << SubBits; // 128 buckets per power of two
    private const int ExactLimit = SubCount * 2; // values below 256 are exact
    private const int BlockCount = 57; // 2 blocks of exact values (0..255) + one block per exponent 8..62

    private readonly long[]?[] _blocks = new long[]?[BlockCount];
    private long _count;
    private double _sum;
    private long _min = long.MaxValue;
    private long _max = long.MinValue;

    /// <summary>Number of values added.</summary>
    public long Count => _count;

    /// <summary>Exact sum of the values (as a double).</summary>
    public double Sum => _sum;

    /// <summary>Exact minimum, or 0 when empty.</summary>
    public long Min => _count == 0 ? 0 : _min;

    /// <summary>Exact maximum, or 0 when empty.</summary>
    public long Max => _count == 0 ? 0 : _max;

    /// <summary>Adds a value; negative values count as 0.</summary>
    /// <param name="value">The value.</param>
    public void Add(long value)
    {
        if (value < 0)
        {
            value = 0;
        }

        int index = IndexOf(value);
        long[] block = _blocks[index >> SubBits] ??= new long[SubCount];
        block[index & (SubCount - 1)]++;
        _count++;
        _sum += value;
        if (value < _min)
        {
            _min = value;
        }

        if (value > _max)
        {
            _max = value;
        }
    }

    /// <summary>The nearest-rank percentile: the smallest bucket value with at least <paramref name="quantile"/> of the
    /// values at or below it.</summary>
    /// <param name="quantile">0 to 1 (0.5 = median, 0.99 = 99th percentile).</param>
    /// <returns>The value (a bucket midpoint clamped to the exact minimum and maximum), or 0 when empty.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="quantile"/> is outside 0..1.</exception>
    public double Percentile(double quantile)
    {
        if (!(quantile >= 0 && quantile <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(quantile), quantile, "The quantile must be between 0 and 1.");
        }

        if (_count == 0)
        {
            return 0;
        }

        long rank = Math.Max(1, (long)Math.Ceiling(quantile * _count));
        long seen = 0;
        for (int b = 0; b < _blocks.Length; b++)
        {
            long[]? block = _blocks[b];
            if (block is null)
            {
                continue;
            }

            for (int i = 0; i < block.Length; i++)
            {
                seen += block[i];
                if (seen >= rank)
                {
                    double mid = Midpoint((b << SubBits) | i);
                    return Math.Clamp(mid, _min, _max);
                }
            }
        }

        return _max;
    }

    /// <summary>Summarises the values, multiplying each by <paramref name="scale"/> (for example 0.1 to turn 100 ns
    /// ticks into µs).</summary>
    /// <param name="scale">Unit factor.</param>
    /// <returns>The summary.</returns>
    public DistributionSummary Summarize(double scale = 1) =>
        _count == 0
            ? DistributionSummary.Empty
            : new DistributionSummary(_count, _sum / _count, Percentile(0.5), Percentile(0.99), Min, Max, _sum).Scale(
                scale
            ) with
            {
                Count = _count,
            };

    internal static int IndexOf(long value)
    {
        if (value < ExactLimit)
        {
            return (int)value;
        }

        int exponent = 63 - System.Numerics.BitOperations.LeadingZeroCount((ulong)value); // >= 8
        int shift = exponent - SubBits;
        int mantissa = (int)(value >> shift); // 128..255
        return ExactLimit + ((exponent - (SubBits + 1)) * SubCount) + (mantissa - SubCount);
    }

    internal static double Midpoint(int index)
    {
        if (index < ExactLimit)
        {
            return index;
        }

        int exponent = ((index - ExactLimit) / SubCount) + SubBits + 1;
        int mantissa = ((index - ExactLimit) % SubCount) + SubCount;
        int shift = exponent - SubBits;
        double lower = (double)mantissa * Math.Pow(2, shift);
        double width = Math.Pow(2, shift);
        return lower + ((width - 1) / 2);
    }
}

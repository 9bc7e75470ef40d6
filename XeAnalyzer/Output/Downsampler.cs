namespace XeAnalyzer.Output;

/// <summary>
/// Reduces a long x-ordered series to at most four points per pixel column: the first, minimum, maximum and last point
/// of each column, in their original order. The drawn line therefore reaches every local extreme the full series
/// reaches at that resolution; in particular the global maximum and minimum are always kept.
/// </summary>
internal static class Downsampler
{
    /// <summary>Picks the indices of the points to draw.</summary>
    /// <param name="x">X values, non-decreasing.</param>
    /// <param name="y">Y values.</param>
    /// <param name="xMin">The x value at the left edge of the plot.</param>
    /// <param name="xMax">The x value at the right edge of the plot.</param>
    /// <param name="columns">The plot width in pixel columns (at least 1).</param>
    /// <param name="cancellationToken">Checked every million points.</param>
    /// <returns>Increasing indices into the series.</returns>
    public static List<int> Select(
        ReadOnlySpan<double> x,
        ReadOnlySpan<double> y,
        double xMin,
        double xMax,
        int columns,
        CancellationToken cancellationToken
    )
    {
        var result = new List<int>(Math.Min(x.Length, columns * 4));
        if (x.Length <= columns * 4)
        {
            for (int i = 0; i < x.Length; i++)
            {
                result.Add(i);
            }

            return result;
        }

        double scale = xMax > xMin ? columns / (xMax - xMin) : 0;
        int col = -1;
        int first = 0,
            last = 0,
            lo = 0,
            hi = 0;
        Span<int> picks = stackalloc int[4];
        for (int i = 0; i < x.Length; i++)
        {
            if ((i & 0xFFFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            int c = (int)Math.Clamp(Math.Floor((x[i] - xMin) * scale), 0, columns - 1);
            if (c != col)
            {
                if (col >= 0)
                {
                    Flush(result, picks, first, lo, hi, last);
                }

                col = c;
                first = last = lo = hi = i;
                continue;
            }

            last = i;
            if (y[i] < y[lo])
            {
                lo = i;
            }

            if (y[i] > y[hi])
            {
                hi = i;
            }
        }

        if (col >= 0)
        {
            Flush(result, picks, first, lo, hi, last);
        }

        return result;
    }

    private static void Flush(List<int> result, Span<int> picks, int first, int lo, int hi, int last)
    {
        picks[0] = first;
        picks[1] = lo;
        picks[2] = hi;
        picks[3] = last;
        picks.Sort();
        int previous = -1;
        foreach (int p in picks)
        {
            if (p != previous)
            {
                result.Add(p);
                previous = p;
            }
        }
    }
}

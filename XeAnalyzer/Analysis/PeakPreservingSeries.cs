namespace XeAnalyzer.Analysis;

/// <summary>One point of a running-total series.</summary>
/// <param name="Time">The event time (UTC).</param>
/// <param name="Value">The running total after the event.</param>
public readonly record struct SeriesPoint(DateTime Time, long Value);

/// <summary>
/// A time series reduced on the fly to a bounded number of points without losing extremes: time is cut into at most
/// <c>maxBuckets</c> equal buckets (their width doubles, merging neighbours, when the series gets longer), and each
/// bucket keeps its first, lowest, highest and last point. The global maximum and minimum are therefore always kept
/// exactly (value and time of their first occurrence), and so is every local extreme wider than a bucket — enough for a
/// chart of up to
/// <c>maxBuckets</c> pixel columns to look exactly like the full series. Memory: four points per bucket.
/// </summary>
/// <remarks>Points should be added in time order; an earlier point than the first is put in the first bucket. Not
/// thread-safe.</remarks>
internal sealed class PeakPreservingSeries
{
    private readonly int _maxBuckets;

    // The buckets in use so far: the array grows (doubling) up to _maxBuckets as later buckets are reached, so a short
    // series, or a report of many small captures, does not allocate the whole (large object heap) array up front;
    // buckets past its end are empty.
    private Bucket[] _buckets = new Bucket[16];
    private long _origin;
    private long _width = 1;

    // The bucket width is a power of two (it starts at 1 and doubles): its log, so a point's bucket is a shift, not a
    // division.
    private int _widthShift;
    private long _serial;
    private bool _started;

    /// <summary>Creates an empty series.</summary>
    /// <param name="maxBuckets">The most time buckets kept (16 to 1,000,000; four points each).</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxBuckets"/> is outside
    /// 16..1,000,000.</exception>
    public PeakPreservingSeries(int maxBuckets = 2048)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxBuckets, 16);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxBuckets, 1_000_000);
        _maxBuckets = maxBuckets;
    }

    /// <summary>Points added.</summary>
    public long Count => _serial;

    /// <summary>Adds a point.</summary>
    /// <param name="time">The time (UTC).</param>
    /// <param name="value">The value.</param>
    public void Add(DateTime time, long value)
    {
        long ticks = time.Ticks;
        if (!_started)
        {
            _started = true;
            _origin = ticks;
        }

        long offset = ticks - _origin;
        if (offset < 0)
        {
            offset = 0;
        }

        long index = offset >> _widthShift;
        while (index >= _maxBuckets)
        {
            Widen();
            index = offset >> _widthShift;
        }

        if (index >= _buckets.Length)
        {
            Array.Resize(ref _buckets, (int)Math.Min(_maxBuckets, Math.Max(index + 1, 2L * _buckets.Length)));
        }

        var p = new Point(ticks, value, _serial++);
        ref Bucket b = ref _buckets[index];
        if (!b.Used)
        {
            b.Used = true;
            b.First = b.Min = b.Max = b.Last = p;
            return;
        }

        b.Last = p;
        if (value < b.Min.Value)
        {
            b.Min = p;
        }

        if (value > b.Max.Value)
        {
            b.Max = p;
        }
    }

    /// <summary>The kept points in the order they were added (at most four per bucket).</summary>
    /// <returns>The points.</returns>
    public IReadOnlyList<SeriesPoint> ToPoints()
    {
        var result = new List<SeriesPoint>();
        Span<Point> four = stackalloc Point[4];
        foreach (Bucket b in _buckets)
        {
            if (!b.Used)
            {
                continue;
            }

            four[0] = b.First;
            four[1] = b.Min;
            four[2] = b.Max;
            four[3] = b.Last;
            four.Sort((x, y) => x.Serial.CompareTo(y.Serial));
            long previous = -1;
            foreach (Point p in four)
            {
                if (p.Serial != previous)
                {
                    result.Add(new SeriesPoint(new DateTime(p.Ticks, DateTimeKind.Utc), p.Value));
                    previous = p.Serial;
                }
            }
        }

        return result.AsReadOnly();
    }

    private void Widen()
    {
        _width = checked(_width * 2);
        _widthShift++;
        int n = _buckets.Length;
        for (int i = 0; i < n; i++)
        {
            int a = 2 * i;
            int b = a + 1;
            Bucket merged = default;
            if (a < n)
            {
                merged = Merge(_buckets[a], b < n ? _buckets[b] : default);
            }

            _buckets[i] = merged;
        }
    }

    private static Bucket Merge(Bucket a, Bucket b)
    {
        if (!a.Used)
        {
            return b;
        }

        if (!b.Used)
        {
            return a;
        }

        return new Bucket
        {
            Used = true,
            First = a.First.Serial <= b.First.Serial ? a.First : b.First,
            Last = a.Last.Serial >= b.Last.Serial ? a.Last : b.Last,
            Min =
                b.Min.Value < a.Min.Value || (b.Min.Value == a.Min.Value && b.Min.Serial < a.Min.Serial)
                    ? b.Min
                    : a.Min,
            Max =
                b.Max.Value > a.Max.Value || (b.Max.Value == a.Max.Value && b.Max.Serial < a.Max.Serial)
                    ? b.Max
                    : a.Max,
        };
    }

    private readonly record struct Point(long Ticks, long Value, long Serial);

    private struct Bucket
    {
        public bool Used;
        public Point First;
        public Point Min;
        public Point Max;
        public Point Last;
    }
}

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// The tallies of stacks held by column under dense ids (a raw stack table's stacks, a merger's buckets): the event
/// count, the earliest and latest event time, and the durations. Times and durations take a column only once some
/// stack has them: with a million distinct stacks most have neither.
/// </summary>
internal sealed class TallyColumns
{
    private long[] _counts = [];
    private long[]? _firsts;
    private long[]? _lasts;
    private RawDurations?[]? _durations;

    /// <summary>The ids the columns have room for.</summary>
    public int Capacity => _counts.Length;

    public long CountAt(int id) => _counts[id];

    /// <summary>The earliest event time in ticks, or <see cref="long.MaxValue"/>.</summary>
    public long FirstAt(int id) => _firsts?[id] ?? long.MaxValue;

    /// <summary>The latest event time in ticks, or <see cref="long.MinValue"/>.</summary>
    public long LastAt(int id) => _lasts?[id] ?? long.MinValue;

    public RawDurations? DurationsAt(int id) => _durations?[id];

    /// <summary>Makes room for ids below <paramref name="capacity"/>; new ids start with no events.</summary>
    public void Grow(int capacity)
    {
        int old = _counts.Length;
        Array.Resize(ref _counts, capacity);
        if (_firsts is not null && _lasts is not null)
        {
            Array.Resize(ref _firsts, capacity);
            Array.Resize(ref _lasts, capacity);
            _firsts.AsSpan(old).Fill(long.MaxValue);
            _lasts.AsSpan(old).Fill(long.MinValue);
        }

        if (_durations is not null)
        {
            Array.Resize(ref _durations, capacity);
        }
    }

    public void AddCount(int id, long count) => _counts[id] += count;

    /// <summary>Widens an id's time span to <paramref name="first"/>..<paramref name="last"/> (ticks); nothing when
    /// both are the "no time" values (<see cref="long.MaxValue"/>, <see cref="long.MinValue"/>).</summary>
    public void AddTimes(int id, long first, long last)
    {
        if (first == long.MaxValue && last == long.MinValue)
        {
            return;
        }

        if (_firsts is null || _lasts is null)
        {
            _firsts = new long[_counts.Length];
            _lasts = new long[_counts.Length];
            _firsts.AsSpan().Fill(long.MaxValue);
            _lasts.AsSpan().Fill(long.MinValue);
        }

        _firsts[id] = Math.Min(_firsts[id], first);
        _lasts[id] = Math.Max(_lasts[id], last);
    }

    /// <summary>Adds events' duration and signal duration (−1 when the event has no such field).</summary>
    public void AddDurations(int id, long count, long duration, long signal)
    {
        if (duration >= 0 || signal >= 0)
        {
            ((_durations ??= new RawDurations?[_counts.Length])[id] ??= new RawDurations()).Add(
                count,
                duration,
                signal
            );
        }
    }

    /// <summary>Adds another id's durations: an id without any takes <paramref name="durations"/> itself (the caller
    /// reads it no more).</summary>
    public void AddDurations(int id, RawDurations? durations)
    {
        if (durations is null)
        {
            return;
        }

        RawDurations?[] column = _durations ??= new RawDurations?[_counts.Length];
        if (column[id] is RawDurations held)
        {
            held.Add(durations);
        }
        else
        {
            column[id] = durations;
        }
    }

    /// <summary>Lets go of every column.</summary>
    public void Release()
    {
        _counts = [];
        _firsts = null;
        _lasts = null;
        _durations = null;
    }
}

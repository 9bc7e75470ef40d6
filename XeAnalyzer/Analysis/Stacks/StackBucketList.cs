namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// The buckets of a result held by column: per bucket its count, event, times, raw stacks and where its frames start in
/// one array of every bucket's frames (the frame objects shared with the symbolization). A <see cref="StackBucket"/> is
/// made when read, so each read makes it again. With hundreds of thousands of distinct stacks an object and a frame
/// array per bucket were a third of a result's memory, and held twice by <c>diff</c>.
/// </summary>
internal sealed class StackBucketList : IReadOnlyList<StackBucket>
{
    private readonly BucketFrame[] _frames;
    private readonly int[] _frameStart;
    private readonly long[] _counts;
    private readonly int[] _eventIds;
    private readonly int[] _eventNameLists;
    private readonly long[] _first;
    private readonly long[] _last;
    private readonly int[] _rawStacks;
    private readonly string[] _eventNames;
    private readonly IReadOnlyList<string>[] _nameLists;
    private readonly long _total;

    // Only when a bucket has durations (wait events): most captures' buckets have none.
    private readonly StackDurations?[]? _durations;

    private StackBucketList(Columns c, long total)
    {
        _frames = c.Frames;
        _frameStart = c.FrameStart;
        _counts = c.Counts;
        _eventIds = c.EventIds;
        _eventNameLists = c.EventNameLists;
        _first = c.First;
        _last = c.Last;
        _rawStacks = c.RawStacks;
        _eventNames = c.EventNames;
        _nameLists = c.NameLists;
        _durations = c.Durations;
        _total = total;
    }

    public int Count => _counts.Length;

    /// <summary>Every bucket's event names: each list once (buckets of one event share it).</summary>
    public IReadOnlyList<IReadOnlyList<string>> EventNameLists => _nameLists;

    /// <summary>Whether a bucket has <c>duration</c> totals.</summary>
    public bool HasDurations => _durations is not null;

    public StackBucket this[int index] =>
        (uint)index < (uint)_counts.Length ? Make(index) : throw new ArgumentOutOfRangeException(nameof(index));

    /// <summary>The frames of the bucket at a position, leaf first, without making the bucket.</summary>
    /// <param name="index">The position.</param>
    /// <returns>The frames.</returns>
    public ArraySegment<BucketFrame> FramesAt(int index) =>
        new(_frames, _frameStart[index], _frameStart[index + 1] - _frameStart[index]);

    /// <summary>The event name of a bucket (<see cref="StackBucket.EventName"/>), not making it.</summary>
    /// <param name="index">The position.</param>
    /// <returns>The name, or <see langword="null"/>.</returns>
    public string? EventNameAt(int index) => _eventIds[index] >= 0 ? _eventNames[_eventIds[index]] : null;

    /// <summary>The event names of a bucket (<see cref="StackBucket.EventNames"/>), not making it.</summary>
    /// <param name="index">The position.</param>
    /// <returns>The names, ordinal order.</returns>
    public IReadOnlyList<string> EventNamesAt(int index) =>
        _eventNameLists[index] >= 0 ? _nameLists[_eventNameLists[index]] : [];

    /// <summary>The count of the bucket at a position, without making it.</summary>
    /// <param name="index">The position.</param>
    /// <returns>The count.</returns>
    public long CountAt(int index) => _counts[index];

    /// <summary>The weight of the bucket at a position (<see cref="StackBucket.WeightOf"/>), not making it.</summary>
    /// <param name="index">The position.</param>
    /// <param name="weight">The weight.</param>
    /// <returns>The value.</returns>
    public long WeightAt(int index, StackWeight weight) =>
        weight == StackWeight.Duration ? _durations?[index]?.TotalDuration ?? 0 : _counts[index];

    public IEnumerator<StackBucket> GetEnumerator()
    {
        for (int i = 0; i < _counts.Length; i++)
        {
            yield return Make(i);
        }
    }

    System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();

    private StackBucket Make(int i)
    {
        ArraySegment<BucketFrame> frames = FramesAt(i);
        long count = _counts[i];
        return new StackBucket(
            i + 1,
            _eventIds[i] >= 0 ? _eventNames[_eventIds[i]] : null,
            EventNamesAt(i),
            frames.Count == 0 ? Array.Empty<BucketFrame>() : (IReadOnlyList<BucketFrame>)frames,
            count,
            _total == 0 ? 0 : (double)count / _total,
            _durations?[i],
            _first[i] == long.MaxValue ? null : new DateTime(_first[i], DateTimeKind.Utc),
            _last[i] == long.MinValue ? null : new DateTime(_last[i], DateTimeKind.Utc),
            _rawStacks[i]
        );
    }

    /// <summary>Collects the buckets in rank order, then makes the list.</summary>
    /// <param name="buckets">How many buckets.</param>
    /// <param name="frames">How many frames they have together.</param>
    /// <param name="eventNames">The event names by id.</param>
    internal sealed class Builder(int buckets, int frames, string[] eventNames)
    {
        private readonly Columns _c = new(buckets, frames, eventNames);
        private readonly List<IReadOnlyList<string>> _nameLists = [];
        private readonly Dictionary<int, int> _listOfEvent = [];
        private int _count;
        private int _frameCount;

        /// <summary>Adds the next bucket.</summary>
        /// <param name="eventId">The event name id, or −1.</param>
        /// <param name="eventIds">The ids of every event name counted in the bucket (null or empty for none).</param>
        /// <param name="frames">The frames, leaf first.</param>
        /// <param name="count">The events.</param>
        /// <param name="durations">The duration totals, or <see langword="null"/>.</param>
        /// <param name="first">The earliest event time in ticks, or <see cref="long.MaxValue"/>.</param>
        /// <param name="last">The latest event time in ticks, or <see cref="long.MinValue"/>.</param>
        /// <param name="rawStacks">The raw stacks merged into the bucket.</param>
        public void Add(
            int eventId,
            List<int>? eventIds,
            BucketFrame[] frames,
            long count,
            StackDurations? durations,
            long first,
            long last,
            int rawStacks
        )
        {
            int i = _count++;
            _c.FrameStart[i] = _frameCount;
            frames.CopyTo(_c.Frames, _frameCount);
            _frameCount += frames.Length;
            _c.FrameStart[i + 1] = _frameCount;
            _c.Counts[i] = count;
            _c.EventIds[i] = eventId;
            _c.EventNameLists[i] = NameList(eventIds);
            _c.First[i] = first;
            _c.Last[i] = last;
            _c.RawStacks[i] = rawStacks;
            if (durations is not null)
            {
                (_c.Durations ??= new StackDurations?[_c.Counts.Length])[i] = durations;
            }
        }

        /// <summary>Makes the list once every bucket was added.</summary>
        /// <param name="total">The sum of the counts of all buckets (each share's denominator).</param>
        /// <returns>The list.</returns>
        public StackBucketList Build(long total)
        {
            _c.NameLists = [.. _nameLists];
            return new StackBucketList(_c, total);
        }

        // A bucket of one event name shares that name's list with the other buckets of the event.
        private int NameList(List<int>? ids)
        {
            if (ids is not { Count: > 0 })
            {
                return -1;
            }

            if (ids.Count == 1 && _listOfEvent.TryGetValue(ids[0], out int shared))
            {
                return shared;
            }

            int at = _nameLists.Count;
            _nameLists.Add(
                ids.Count == 1
                    ? Array.AsReadOnly([_c.EventNames[ids[0]]])
                    : Array.AsReadOnly([.. ids.Select(id => _c.EventNames[id]).Order(StringComparer.Ordinal)])
            );
            if (ids.Count == 1)
            {
                _listOfEvent.Add(ids[0], at);
            }

            return at;
        }
    }

    private sealed class Columns(int buckets, int frames, string[] eventNames)
    {
        public BucketFrame[] Frames { get; } = new BucketFrame[frames];

        public int[] FrameStart { get; } = new int[buckets + 1];

        public long[] Counts { get; } = new long[buckets];

        public int[] EventIds { get; } = new int[buckets];

        public int[] EventNameLists { get; } = new int[buckets];

        public long[] First { get; } = new long[buckets];

        public long[] Last { get; } = new long[buckets];

        public int[] RawStacks { get; } = new int[buckets];

        public string[] EventNames { get; } = eventNames;

        public IReadOnlyList<string>[] NameLists { get; set; } = [];

        public StackDurations?[]? Durations { get; set; }
    }
}

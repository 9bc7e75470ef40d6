namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Reads buckets by position: a <see cref="StackBucketList"/> answers from its columns without making each bucket
/// (a report keeps 500 of hundreds of thousands, and <c>diff</c> reads every bucket of two results); any other list
/// answers from its buckets.
/// </summary>
internal sealed class BucketPositions(IReadOnlyList<StackBucket> buckets)
{
    private readonly StackBucketList? _list = buckets as StackBucketList;

    /// <summary>The buckets read.</summary>
    public IReadOnlyList<StackBucket> Buckets { get; } = buckets;

    /// <summary>How many buckets.</summary>
    public int Count => Buckets.Count;

    /// <summary>Whether every bucket has an event name.</summary>
    public bool AllHaveEventNames()
    {
        for (int i = 0; i < Count; i++)
        {
            if (EventNameAt(i) is null)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The bucket's <see cref="StackBucket.EventName"/>.</summary>
    public string? EventNameAt(int index) => _list is not null ? _list.EventNameAt(index) : Buckets[index].EventName;

    /// <summary>The bucket's <see cref="StackBucket.EventNames"/>.</summary>
    public IReadOnlyList<string> EventNamesAt(int index) =>
        _list is not null ? _list.EventNamesAt(index) : Buckets[index].EventNames;

    /// <summary>The bucket's <see cref="StackBucket.Count"/>.</summary>
    public long CountAt(int index) => _list is not null ? _list.CountAt(index) : Buckets[index].Count;

    /// <summary>The bucket's weight (<see cref="StackBucket.WeightOf"/>).</summary>
    public long WeightAt(int index, StackWeight weight) =>
        _list is not null ? _list.WeightAt(index, weight) : Buckets[index].WeightOf(weight);

    /// <summary>How many frames the bucket has.</summary>
    public int FrameCountAt(int index) =>
        _list is not null ? _list.FramesAt(index).Count : Buckets[index].FrameDetails.Count;

    /// <summary>The bucket's frames, leaf first.</summary>
    public ArraySegment<BucketFrame> FramesAt(int index) =>
        _list is not null
            ? _list.FramesAt(index)
            : Buckets[index].FrameDetails switch
            {
                BucketFrame[] a => a,
                ArraySegment<BucketFrame> s => s,
                IReadOnlyList<BucketFrame> l => l.ToArray(),
            };
}

namespace XeAnalyzer.Xel;

/// <summary>What the reader does with damaged data.</summary>
public enum XelIntegrityHandling
{
    /// <summary>Any damage throws <see cref="InvalidXelDataException"/>.</summary>
    Strict,

    /// <summary>
    /// A damaged event buffer is skipped from the point of damage (events before it are kept), counted and reported in
    /// <see cref="XelDiagnostics"/>; a buffer header that cannot be trusted makes the reader look for the next buffer
    /// on a 512-byte boundary. File-level damage (not a <c>.xel</c> file, unreadable metadata) still throws.
    /// </summary>
    SkipCorruptBuffers,
}

/// <summary>Options of <see cref="XelReader"/>.</summary>
/// <remarks>Immutable apart from the <see cref="Diagnostics"/> collector it refers to.</remarks>
internal sealed class XelReadOptions
{
    /// <summary>The default options: all events, strict, default limits, no diagnostics collector.</summary>
    public static XelReadOptions Default { get; } = new();

    /// <summary>
    /// Event names to keep (<c>package.event</c> or <c>event</c>, ordinal); <see langword="null"/> or empty keeps every
    /// event. Other events are skipped by RID before their payload is decoded.
    /// </summary>
    public IReadOnlyCollection<string>? EventNames { get; init; }

    /// <summary>What to do with damaged buffers. Default <see cref="XelIntegrityHandling.Strict"/>.</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Size and count caps. Default <see cref="XeReaderLimits.Default"/>.</summary>
    public XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Receives warnings and counts (skipped buffers, incomplete final buffers, undecodable events);
    /// optional.</summary>
    public XelDiagnostics? Diagnostics { get; init; }

    /// <summary>The default of <see cref="DecodeThreads"/>: one per processor, at most 8.</summary>
    public static int DefaultDecodeThreads => Math.Clamp(Environment.ProcessorCount, 1, 8);

    /// <summary>
    /// How many threads decode event buffers (read them and walk their records): the reading thread plus up to this
    /// many less one decode threads of the read's own, on a window of at most eight times as many buffers (64 at most)
    /// ahead of the events being delivered, which still come in file order. Default <see cref="DefaultDecodeThreads"/>;
    /// 1 decodes on the reading thread only.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..64.</exception>
    public int DecodeThreads
    {
        get;
        init =>
            field = value is >= 1 and <= 64
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "DecodeThreads must be 1..64.");
    } = DefaultDecodeThreads;

    /// <summary>
    /// Receives the number of event records met per event type, including the records <see cref="EventNames"/> skipped
    /// before decoding, and the facts of each file read (so a caller can say what a capture holds without reading it
    /// again);
    /// <see langword="null"/> for none.
    /// </summary>
    public XelEventTally? Tally { get; init; }
}

/// <summary>
/// Counts event records by full name (<c>package.event</c>) as the <c>.xel</c> reader meets them, and keeps the facts
/// of each file it has read. Thread-safe.
/// </summary>
internal sealed class XelEventTally
{
    private readonly Dictionary<string, long> _counts = new(StringComparer.Ordinal);
    private readonly List<XelFileFacts> _files = [];

    /// <summary>The files read so far, in reading order.</summary>
    public IReadOnlyList<XelFileFacts> Files
    {
        get
        {
            lock (_counts)
            {
                return [.. _files];
            }
        }
    }

    /// <summary>The counts so far, most frequent first (ties by name, ordinal).</summary>
    public IReadOnlyList<KeyValuePair<string, long>> Counts
    {
        get
        {
            lock (_counts)
            {
                return [.. _counts.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal)];
            }
        }
    }

    /// <summary>The number of records of one event (full name), or 0.</summary>
    /// <param name="fullName">The <c>package.event</c> name.</param>
    /// <returns>The count.</returns>
    public long this[string fullName]
    {
        get
        {
            lock (_counts)
            {
                return _counts.GetValueOrDefault(fullName);
            }
        }
    }

    /// <summary>Adds records of one event.</summary>
    /// <param name="fullName">The <c>package.event</c> name.</param>
    /// <param name="records">How many.</param>
    public void Add(string fullName, long records)
    {
        ArgumentNullException.ThrowIfNull(fullName);
        lock (_counts)
        {
            _counts[fullName] = _counts.GetValueOrDefault(fullName) + records;
        }
    }

    /// <summary>Keeps the facts of a file the reader has finished.</summary>
    internal void FileRead(XelFileFacts facts)
    {
        lock (_counts)
        {
            _files.Add(facts);
        }
    }
}

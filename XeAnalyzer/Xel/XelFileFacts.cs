using XeAnalyzer.Events;

namespace XeAnalyzer.Xel;

/// <summary>
/// What the <c>.xel</c> reader knows of one file when it has read it and no event shows: its size, its buffers and its
/// metadata (<see cref="XelEventTally.Files"/>). Immutable.
/// </summary>
/// <param name="FilePath">The file.</param>
/// <param name="Length">Its size in bytes.</param>
/// <param name="Schema">Its metadata (event types, actions, maps, pointer size).</param>
/// <param name="BufferCount">Buffers read (metadata and events).</param>
/// <param name="MetadataBufferCount">Metadata buffers read.</param>
internal sealed record XelFileFacts(
    string FilePath,
    long Length,
    XeSchema Schema,
    int BufferCount,
    int MetadataBufferCount
);

using System.Globalization;

namespace XeAnalyzer.Xel;

/// <summary>One non-fatal problem found while reading a capture.</summary>
/// <param name="FilePath">The file.</param>
/// <param name="Offset">Byte offset of the problem in the file.</param>
/// <param name="Message">What was found.</param>
internal sealed record XelWarning(string FilePath, long Offset, string Message)
{
    /// <inheritdoc/>
    public override string ToString() =>
        string.Create(CultureInfo.InvariantCulture, $"{FilePath}: byte offset {Offset} (0x{Offset:X}): {Message}");
}

/// <summary>
/// Collects what the reader skipped or could not decode: warnings with file and offset, and counts. Pass one in
/// <see cref="XelReadOptions.Diagnostics"/>; read it after enumerating. Thread-safe.
/// </summary>
internal sealed class XelDiagnostics
{
    /// <summary>At most this many warnings are kept; later ones are only counted.</summary>
    public const int MaxWarnings = 1000;

    private readonly object _gate = new();
    private readonly List<XelWarning> _warnings = [];
    private long _warningCount;
    private long _skippedBuffers;
    private long _incompleteBuffers;
    private long _undecodableEvents;
    private long _eventsRead;
    private long _filesRead;

    /// <summary>The warnings kept (at most <see cref="MaxWarnings"/>), in the order they were found.</summary>
    public IReadOnlyList<XelWarning> Warnings
    {
        get
        {
            lock (_gate)
            {
                return [.. _warnings];
            }
        }
    }

    /// <summary>Total number of warnings, including those not kept.</summary>
    public long WarningCount => Interlocked.Read(ref _warningCount);

    /// <summary>Event buffers skipped (wholly or from the point of damage) because they were damaged.</summary>
    public long SkippedBuffers => Interlocked.Read(ref _skippedBuffers);

    /// <summary>Final buffers cut short (a truncated file, or one SQL Server is still writing).</summary>
    public long IncompleteBuffers => Interlocked.Read(ref _incompleteBuffers);

    /// <summary>Events skipped because their event type's metadata could not be decoded.</summary>
    public long UndecodableEvents => Interlocked.Read(ref _undecodableEvents);

    /// <summary>Events returned by the reader.</summary>
    public long EventsRead => Interlocked.Read(ref _eventsRead);

    /// <summary>Files opened.</summary>
    public long FilesRead => Interlocked.Read(ref _filesRead);

    /// <summary>Whether anything was skipped or cut short, so the result is partial.</summary>
    public bool IsPartial => SkippedBuffers > 0 || IncompleteBuffers > 0 || UndecodableEvents > 0;

    internal void Warn(string file, long offset, string message)
    {
        Interlocked.Increment(ref _warningCount);
        lock (_gate)
        {
            if (_warnings.Count < MaxWarnings)
            {
                _warnings.Add(new XelWarning(file, offset, message));
            }
        }
    }

    internal void SkippedBuffer() => Interlocked.Increment(ref _skippedBuffers);

    internal void IncompleteBuffer() => Interlocked.Increment(ref _incompleteBuffers);

    internal void UndecodableEvent() => Interlocked.Increment(ref _undecodableEvents);

    internal void AddEvents(long n) => Interlocked.Add(ref _eventsRead, n);

    internal void FileRead() => Interlocked.Increment(ref _filesRead);

    /// <summary>Adds everything another collector recorded.</summary>
    internal void Add(XelDiagnostics other)
    {
        foreach (XelWarning w in other.Warnings)
        {
            Warn(w.FilePath, w.Offset, w.Message);
        }

        Interlocked.Add(ref _warningCount, other.WarningCount - other.Warnings.Count);
        Interlocked.Add(ref _skippedBuffers, other.SkippedBuffers);
        Interlocked.Add(ref _incompleteBuffers, other.IncompleteBuffers);
        Interlocked.Add(ref _undecodableEvents, other.UndecodableEvents);
        Interlocked.Add(ref _eventsRead, other.EventsRead);
        Interlocked.Add(ref _filesRead, other.FilesRead);
    }
}

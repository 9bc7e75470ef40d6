using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Export;

/// <summary>Options of <see cref="XelParquetExporter"/>.</summary>
/// <remarks>Immutable apart from the <see cref="Diagnostics"/> collector.</remarks>
public sealed class XelExportOptions
{
    private readonly long _maxBufferedBytes = 256L * 1024 * 1024;
    private readonly int _rowGroupRows = 128 * 1024;
    private readonly long _rowGroupBytes = 32L * 1024 * 1024;

    /// <summary>The default options.</summary>
    public static XelExportOptions Default { get; } = new();

    /// <summary>Which events are exported (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>); default every
    /// event.</summary>
    public EventFilter Filter { get; init; } = EventFilter.None;

    /// <summary>Receives what the reads skipped or doubt (damaged buffers make the export partial);
    /// <see langword="null"/> for none.</summary>
    public CaptureDiagnostics? Diagnostics { get; init; }

    /// <summary>A table's row group is written when it holds this many rows (default 131,072).</summary>
    public int RowGroupRows
    {
        get => _rowGroupRows;
        init =>
            _rowGroupRows =
                value > 0
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(RowGroupRows),
                        value,
                        "Expected a positive row count."
                    );
    }

    /// <summary>
    /// A table's row group is written when its buffered values reach about this many bytes (default 32 MiB); it bounds
    /// memory. Each table buffers at most two row groups (one filling, one being encoded), and Parquet.Net encodes a
    /// column chunk as one page in memory, so peak memory follows this size (on the benchmark's latch capture, 64 MiB
    /// instead of 32 MiB cost about a third more peak working set for files 1 % smaller).
    /// </summary>
    public long RowGroupBytes
    {
        get => _rowGroupBytes;
        init =>
            _rowGroupBytes = value is > 0 and <= 1L << 30
                ? value
                : throw new ArgumentOutOfRangeException(nameof(RowGroupBytes), value, "Expected 1 byte to 1 GiB.");
    }

    /// <summary>The page compression (default <see cref="ParquetCompression.Zstd"/>).</summary>
    internal ParquetCompression Compression { get; init; } = ParquetCompression.Zstd;

    /// <summary>
    /// The resolver for <c>--resolve</c>: when set, each stack column <c>name</c> (raw return addresses, or a text
    /// column holding frames by the rule of <see cref="StackColumns"/>) is followed by <c>name_frames</c>
    /// (LIST&lt;STRING&gt;, leaf first), each frame written as stack buckets write it; each input's raw addresses are
    /// placed with its module map (<see cref="CaptureInput.ModuleMap"/>).
    /// </summary>
    public CallstackResolver? Resolver { get; init; }

    /// <summary>Replaces the resolver's frame texts (tests): (capture file, raw return address) → frame text.</summary>
    internal Func<string, ulong, string>? FrameResolver { get; init; }

    /// <summary>
    /// The most bytes all open tables may buffer together (default 256 MiB). When exceeded, the largest open row groups
    /// are written early, so memory stays flat however many event types a capture holds.
    /// </summary>
    public long MaxBufferedBytes
    {
        get => _maxBufferedBytes;
        init =>
            _maxBufferedBytes =
                value > 0
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(MaxBufferedBytes),
                        value,
                        "Expected a positive byte count."
                    );
    }
}

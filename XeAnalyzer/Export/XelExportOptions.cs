using XeAnalyzer.Xel;

namespace XeAnalyzer.Export;

/// <summary>Options of <see cref="XelParquetExporter"/>.</summary>
/// <remarks>Immutable apart from the diagnostics collector <see cref="ReadOptions"/> may refer to.</remarks>
public sealed class XelExportOptions
{
    private readonly long _maxBufferedBytes = 256L * 1024 * 1024;
    private readonly int _rowGroupRows = 128 * 1024;
    private readonly long _rowGroupBytes = 32L * 1024 * 1024;

    /// <summary>The default options.</summary>
    public static XelExportOptions Default { get; } = new();

    /// <summary>
    /// How captures are read: event names to keep, integrity handling, limits, and the diagnostics collector that receives
    /// the warnings of the export pass. Default <see cref="XelReadOptions.Default"/>.
    /// </summary>
    public XelReadOptions ReadOptions { get; init; } = XelReadOptions.Default;

    /// <summary>
    /// Receives <see cref="WorkKind.Reading"/> reports (bytes read of the captures over both passes: the total is twice their size),
    /// about once per mebibyte and once at the end; <see langword="null"/> (the default) for none.
    /// </summary>
    public IProgress<WorkProgress>? Progress { get; init; }

    /// <summary>A table's row group is written when it holds this many rows (default 131,072).</summary>
    public int RowGroupRows
    {
        get => _rowGroupRows;
        init => _rowGroupRows = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(RowGroupRows), value, "Expected a positive row count.");
    }

    /// <summary>
    /// A table's row group is written when its buffered values reach about this many bytes (default 32 MiB); it bounds memory.
    /// Each table buffers at most two row groups (one filling, one being encoded), and Parquet.Net encodes a column chunk as one
    /// page in memory, so peak memory follows this size (on the benchmark's latch capture, 64 MiB instead of 32 MiB cost about a
    /// third more peak working set for files 1 % smaller).
    /// </summary>
    public long RowGroupBytes
    {
        get => _rowGroupBytes;
        init => _rowGroupBytes = value is > 0 and <= 1L << 30 ? value : throw new ArgumentOutOfRangeException(nameof(RowGroupBytes), value, "Expected 1 byte to 1 GiB.");
    }

    /// <summary>The page compression (default <see cref="ParquetCompression.Zstd"/>).</summary>
    public ParquetCompression Compression { get; init; } = ParquetCompression.Zstd;

    /// <summary>
    /// Resolves a callstack frame: (capture file, raw return address) → frame text, for example <c>sqlmin!Func+0x12</c>.
    /// When set, each callstack column <c>name</c> is followed by <c>name_frames</c> (LIST&lt;STRING&gt;, same order: leaf
    /// first). Results are cached per capture file (up to a million addresses), so the function is called about once per
    /// distinct address. <see langword="null"/> (the default) writes raw addresses only.
    /// </summary>
    public Func<string, ulong, string>? FrameResolver { get; init; }

    /// <summary>
    /// The most bytes all open tables may buffer together (default 256 MiB). When exceeded, the largest open row groups are
    /// written early, so memory stays flat however many event types a capture holds.
    /// </summary>
    public long MaxBufferedBytes
    {
        get => _maxBufferedBytes;
        init => _maxBufferedBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(MaxBufferedBytes), value, "Expected a positive byte count.");
    }
}

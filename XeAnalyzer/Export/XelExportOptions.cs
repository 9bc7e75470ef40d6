using XeAnalyzer.Export.Parquet;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Export;

/// <summary>Options of <see cref="XelParquetExporter"/>.</summary>
/// <remarks>Immutable apart from the diagnostics collector <see cref="ReadOptions"/> may refer to.</remarks>
public sealed class XelExportOptions
{
    private readonly long _maxBufferedBytes = 256L * 1024 * 1024;

    /// <summary>The default options.</summary>
    public static XelExportOptions Default { get; } = new();

    /// <summary>
    /// How captures are read: event names to keep, integrity handling, limits, and the diagnostics collector that receives
    /// the warnings of the export pass. Default <see cref="XelReadOptions.Default"/>.
    /// </summary>
    public XelReadOptions ReadOptions { get; init; } = XelReadOptions.Default;

    /// <summary>Row-group size, page size and compression. Default: 131,072 rows or 64 MiB per row group, GZIP pages.</summary>
    public ParquetWriterOptions Parquet { get; init; } = new() { Compression = ParquetCompression.Gzip };

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

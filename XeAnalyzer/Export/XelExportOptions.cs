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
    /// The most bytes all open tables may buffer together (default 256 MiB). When exceeded, the largest open row groups are
    /// written early, so memory stays flat however many event types a capture holds.
    /// </summary>
    public long MaxBufferedBytes
    {
        get => _maxBufferedBytes;
        init => _maxBufferedBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(MaxBufferedBytes), value, "Expected a positive byte count.");
    }
}

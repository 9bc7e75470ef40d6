namespace XeAnalyzer.Export.Parquet;

/// <summary>The value types <see cref="ParquetWriter"/> writes, with their Parquet physical and logical types.</summary>
public enum ParquetColumnType
{
    /// <summary><c>BOOLEAN</c>.</summary>
    Boolean,

    /// <summary><c>INT32</c> annotated <c>INT(8, signed)</c> / <c>INT_8</c>.</summary>
    Int8,

    /// <summary><c>INT32</c> annotated <c>INT(16, signed)</c> / <c>INT_16</c>.</summary>
    Int16,

    /// <summary><c>INT32</c> annotated <c>INT(32, signed)</c> / <c>INT_32</c>.</summary>
    Int32,

    /// <summary><c>INT64</c> annotated <c>INT(64, signed)</c> / <c>INT_64</c>.</summary>
    Int64,

    /// <summary><c>INT32</c> annotated <c>INT(8, unsigned)</c> / <c>UINT_8</c>.</summary>
    UInt8,

    /// <summary><c>INT32</c> annotated <c>INT(16, unsigned)</c> / <c>UINT_16</c>.</summary>
    UInt16,

    /// <summary><c>INT32</c> annotated <c>INT(32, unsigned)</c> / <c>UINT_32</c> (the bit pattern of the unsigned value).</summary>
    UInt32,

    /// <summary><c>INT64</c> annotated <c>INT(64, unsigned)</c> / <c>UINT_64</c> (the bit pattern of the unsigned value).</summary>
    UInt64,

    /// <summary><c>FLOAT</c> (IEEE single).</summary>
    Float,

    /// <summary><c>DOUBLE</c> (IEEE double).</summary>
    Double,

    /// <summary><c>BYTE_ARRAY</c> annotated <c>STRING</c> / <c>UTF8</c>.</summary>
    String,

    /// <summary><c>BYTE_ARRAY</c> without annotation.</summary>
    Binary,

    /// <summary><c>INT64</c> annotated <c>TIMESTAMP(isAdjustedToUTC=true, MICROS)</c> / <c>TIMESTAMP_MICROS</c>.</summary>
    TimestampMicros,

    /// <summary>
    /// A list of 64-bit integers in the standard 3-level layout:
    /// <c>&lt;optional|required&gt; group name (LIST) { repeated group list { required int64 element; } }</c>.
    /// </summary>
    Int64List,

    /// <summary>A list of strings, laid out as <see cref="Int64List"/> with a <c>required binary element (STRING)</c>.</summary>
    StringList,
}

/// <summary>One top-level column of a Parquet file written by <see cref="ParquetWriter"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class ParquetColumn
{
    /// <summary>Creates a column.</summary>
    /// <param name="name">The column name (non-empty; unique within a file).</param>
    /// <param name="type">The value type.</param>
    /// <param name="isNullable">Whether a row may hold no value (<c>optional</c>); for lists, whether the list itself may be null.</param>
    public ParquetColumn(string name, ParquetColumnType type, bool isNullable = true)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (!Enum.IsDefined(type))
        {
            throw new ArgumentOutOfRangeException(nameof(type), type, "Unknown column type.");
        }

        Name = name;
        Type = type;
        IsNullable = isNullable;
    }

    /// <summary>The column name.</summary>
    public string Name { get; }

    /// <summary>The value type.</summary>
    public ParquetColumnType Type { get; }

    /// <summary>Whether a row may hold no value.</summary>
    public bool IsNullable { get; }

    /// <summary>Whether the column is a list (<see cref="ParquetColumnType.Int64List"/> or <see cref="ParquetColumnType.StringList"/>).</summary>
    public bool IsList => Type is ParquetColumnType.Int64List or ParquetColumnType.StringList;

    /// <inheritdoc/>
    public override string ToString() => Name + " " + Type.ToString() + (IsNullable ? " (nullable)" : string.Empty);
}

/// <summary>The compression codec of data pages.</summary>
public enum ParquetCompression
{
    /// <summary><c>UNCOMPRESSED</c>.</summary>
    None,

    /// <summary><c>GZIP</c> (gzip framing, fastest deflate level).</summary>
    Gzip,
}

/// <summary>Options of <see cref="ParquetWriter"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class ParquetWriterOptions
{
    /// <summary>The value written to <c>FileMetaData.created_by</c>: fixed (no timestamp), so output bytes are deterministic.</summary>
    public const string CreatedBy = "xeanalyzer version 1 (build parquet-writer)";

    private readonly int _rowGroupRows = 128 * 1024;
    private readonly long _rowGroupBytes = 64L * 1024 * 1024;
    private readonly int _pageBytes = 1024 * 1024;

    /// <summary>The default options.</summary>
    public static ParquetWriterOptions Default { get; } = new();

    /// <summary>A row group is closed when it holds this many rows (default 131,072).</summary>
    public int RowGroupRows
    {
        get => _rowGroupRows;
        init => _rowGroupRows = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(RowGroupRows), value, "Expected a positive row count.");
    }

    /// <summary>A row group is closed when its buffered pages reach this many bytes (default 64 MiB); it bounds memory.</summary>
    public long RowGroupBytes
    {
        get => _rowGroupBytes;
        init => _rowGroupBytes = value is > 0 and <= 1L << 30 ? value : throw new ArgumentOutOfRangeException(nameof(RowGroupBytes), value, "Expected 1 byte to 1 GiB.");
    }

    /// <summary>A data page is closed (at a row boundary) when its encoded levels and values reach this many bytes (default 1 MiB).</summary>
    public int PageBytes
    {
        get => _pageBytes;
        init => _pageBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(PageBytes), value, "Expected a positive byte count.");
    }

    /// <summary>The page compression (default <see cref="ParquetCompression.None"/>).</summary>
    public ParquetCompression Compression { get; init; } = ParquetCompression.None;
}

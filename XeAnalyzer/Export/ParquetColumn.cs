namespace XeAnalyzer.Export;

/// <summary>The value types of an exported column, with the Parquet physical and logical types they are written
/// as.</summary>
internal enum ParquetColumnType
{
    /// <summary><c>BOOLEAN</c>.</summary>
    Boolean,

    /// <summary><c>INT32</c> annotated <c>INT(8, signed)</c>.</summary>
    Int8,

    /// <summary><c>INT32</c> annotated <c>INT(16, signed)</c>.</summary>
    Int16,

    /// <summary><c>INT32</c> annotated <c>INT(32, signed)</c>.</summary>
    Int32,

    /// <summary><c>INT64</c> annotated <c>INT(64, signed)</c>.</summary>
    Int64,

    /// <summary><c>INT32</c> annotated <c>INT(8, unsigned)</c>.</summary>
    UInt8,

    /// <summary><c>INT32</c> annotated <c>INT(16, unsigned)</c>.</summary>
    UInt16,

    /// <summary><c>INT32</c> annotated <c>INT(32, unsigned)</c> (the bit pattern of the unsigned value).</summary>
    UInt32,

    /// <summary><c>INT64</c> annotated <c>INT(64, unsigned)</c> (the bit pattern of the unsigned value).</summary>
    UInt64,

    /// <summary><c>FLOAT</c> (IEEE single).</summary>
    Float,

    /// <summary><c>DOUBLE</c> (IEEE double).</summary>
    Double,

    /// <summary><c>BYTE_ARRAY</c> annotated <c>STRING</c> (UTF-8), dictionary-encoded when its values repeat.</summary>
    String,

    /// <summary><c>BYTE_ARRAY</c> without annotation.</summary>
    Binary,

    /// <summary><c>INT64</c> annotated <c>TIMESTAMP(isAdjustedToUTC=true, MICROS)</c>: microseconds since 1970-01-01
    /// UTC, rounded down.</summary>
    TimestampMicros,

    /// <summary>
    /// A list of 64-bit integers in the standard 3-level layout:
    /// <c>optional group name (LIST) { repeated group list { required int64 element; } }</c>.
    /// </summary>
    Int64List,

    /// <summary>A list of strings, laid out as <see cref="Int64List"/> with a <c>required binary element
    /// (STRING)</c>.</summary>
    StringList,
}

/// <summary>The compression codec of the exported Parquet pages.</summary>
internal enum ParquetCompression
{
    /// <summary><c>UNCOMPRESSED</c>.</summary>
    None,

    /// <summary><c>SNAPPY</c>: the fastest to read and write, the largest files of the three codecs.</summary>
    Snappy,

    /// <summary><c>GZIP</c> (fastest deflate level).</summary>
    Gzip,

    /// <summary><c>ZSTD</c> (level 3): the smallest files; the default.</summary>
    Zstd,
}

/// <summary>One top-level column of an exported Parquet file.</summary>
/// <remarks>Immutable.</remarks>
internal sealed class ParquetColumn
{
    /// <summary>Creates a column.</summary>
    /// <param name="name">The column name (non-empty; unique within a file).</param>
    /// <param name="type">The value type.</param>
    /// <param name="isNullable">Whether a row may hold no value (<c>optional</c>); for lists, whether the list itself
    /// may be null.</param>
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

    /// <summary>Whether the column is a list (<see cref="ParquetColumnType.Int64List"/> or
    /// <see cref="ParquetColumnType.StringList"/>).</summary>
    public bool IsList => Type is ParquetColumnType.Int64List or ParquetColumnType.StringList;

    /// <inheritdoc/>
    public override string ToString() => Name + " " + Type.ToString() + (IsNullable ? " (nullable)" : string.Empty);
}

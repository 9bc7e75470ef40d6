using System.Globalization;

namespace XeAnalyzer.Export.Parquet;

/// <summary>
/// A small streaming Parquet writer: <c>PAR1</c>, row groups of v1 data pages (PLAIN values, RLE/bit-packed levels,
/// uncompressed or GZIP), then the Thrift-compact <c>FileMetaData</c> footer, its length and <c>PAR1</c>. Rows are written a
/// value per column at a time and closed with <see cref="EndRow"/>; a row group is written to the stream when it reaches
/// <see cref="ParquetWriterOptions.RowGroupRows"/> rows or <see cref="ParquetWriterOptions.RowGroupBytes"/> bytes, so memory
/// stays bounded by one row group. Integer and timestamp column chunks carry null counts and min/max statistics.
/// Output bytes depend only on the rows and options (the <c>created_by</c> string is fixed).
/// </summary>
/// <remarks>
/// Not thread-safe. Call <see cref="Finish"/> to write the footer; disposing an unfinished writer leaves a file without a
/// footer, which no reader accepts (so a failed export is never mistaken for a complete one).
/// </remarks>
public sealed class ParquetWriter : IDisposable
{
    private static readonly byte[] Magic = "PAR1"u8.ToArray();

    private readonly Stream _output;
    private readonly bool _leaveOpen;
    private readonly ParquetColumn[] _columns;
    private readonly ColumnChunkWriter[] _writers;
    private readonly ParquetWriterOptions _options;
    private readonly PageScratch _scratch = new();
    private readonly List<RowGroupInfo> _rowGroups = [];
    private int _columnsWrittenInRow;
    private int _rowsInGroup;
    private long _rowCount;
    private long _position;
    private bool _finished;
    private bool _disposed;

    /// <summary>Starts a file: writes the leading magic to <paramref name="output"/>.</summary>
    /// <param name="output">A writable stream (need not be seekable).</param>
    /// <param name="columns">The top-level columns, in file order; names must be unique (ordinal).</param>
    /// <param name="options">Options; <see cref="ParquetWriterOptions.Default"/> when <see langword="null"/>.</param>
    /// <param name="leaveOpen">Whether <see cref="Dispose"/> leaves <paramref name="output"/> open.</param>
    /// <exception cref="ArgumentException">No columns, or duplicate column names.</exception>
    public ParquetWriter(Stream output, IReadOnlyList<ParquetColumn> columns, ParquetWriterOptions? options = null, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(columns);
        if (!output.CanWrite)
        {
            throw new ArgumentException("The stream is not writable.", nameof(output));
        }

        if (columns.Count == 0)
        {
            throw new ArgumentException("A Parquet file needs at least one column.", nameof(columns));
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (ParquetColumn c in columns)
        {
            ArgumentNullException.ThrowIfNull(c, nameof(columns));
            if (!names.Add(c.Name))
            {
                throw new ArgumentException("Duplicate column name '" + c.Name + "'.", nameof(columns));
            }
        }

        _output = output;
        _leaveOpen = leaveOpen;
        _columns = [.. columns];
        _writers = [.. _columns.Select(c => new ColumnChunkWriter(c))];
        _options = options ?? ParquetWriterOptions.Default;
        Write(Magic);
    }

    /// <summary>The columns, in file order.</summary>
    public IReadOnlyList<ParquetColumn> Columns => _columns;

    /// <summary>Rows completed with <see cref="EndRow"/> (written or buffered).</summary>
    public long RowCount => _rowCount;

    /// <summary>Row groups written to the stream so far.</summary>
    public int RowGroupCount => _rowGroups.Count;

    /// <summary>Bytes written to the stream so far (the whole file once <see cref="Finish"/> returned).</summary>
    public long BytesWritten => _position;

    /// <summary>Bytes buffered for the open row group.</summary>
    public long BufferedBytes
    {
        get
        {
            long sum = 0;
            foreach (ColumnChunkWriter w in _writers)
            {
                sum += w.BufferedBytes;
            }

            return sum;
        }
    }

    /// <summary>Whether <see cref="Finish"/> has completed.</summary>
    public bool IsFinished => _finished;

    /// <summary>The index of the column named <paramref name="name"/>, or -1.</summary>
    /// <param name="name">The column name (ordinal).</param>
    /// <returns>The index, or -1.</returns>
    public int IndexOf(string name) => Array.FindIndex(_columns, c => string.Equals(c.Name, name, StringComparison.Ordinal));

    /// <summary>Writes a null (for a list column: a null list) in the current row.</summary>
    /// <param name="column">Column index.</param>
    /// <exception cref="InvalidOperationException">The column is not nullable, or already has a value in this row.</exception>
    public void WriteNull(int column)
    {
        ColumnChunkWriter w = Begin(column);
        if (!w.Column.IsNullable)
        {
            throw new InvalidOperationException("Column '" + w.Column.Name + "' is not nullable.");
        }

        Mark(w).AppendNull();
    }

    /// <summary>Writes a boolean.</summary>
    /// <param name="column">Column index of a <see cref="ParquetColumnType.Boolean"/> column.</param>
    /// <param name="value">The value.</param>
    public void WriteBoolean(int column, bool value) => Begin(column, ParquetColumnType.Boolean).AppendBoolean(value);

    /// <summary>Writes a signed integer to an <c>Int8</c>, <c>Int16</c>, <c>Int32</c> or <c>Int64</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The value.</param>
    /// <exception cref="ArgumentOutOfRangeException">The value does not fit the column's type.</exception>
    /// <exception cref="InvalidOperationException">The column has another type.</exception>
    public void WriteInt64(int column, long value)
    {
        ColumnChunkWriter w = Begin(column);
        (long min, long max) = w.Column.Type switch
        {
            ParquetColumnType.Int8 => (sbyte.MinValue, sbyte.MaxValue),
            ParquetColumnType.Int16 => (short.MinValue, short.MaxValue),
            ParquetColumnType.Int32 => (int.MinValue, int.MaxValue),
            ParquetColumnType.Int64 => (long.MinValue, long.MaxValue),
            _ => throw TypeMismatch(w, "a signed integer"),
        };
        if (value < min || value > max)
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "Out of range for " + w.Column.Type.ToString() + " column '" + w.Column.Name + "'.");
        }

        if (Mark(w).Physical == ParquetPhysicalType.Int32)
        {
            w.AppendInt32((int)value);
        }
        else
        {
            w.AppendInt64(value);
        }
    }

    /// <summary>Writes an unsigned integer to a <c>UInt8</c>, <c>UInt16</c>, <c>UInt32</c> or <c>UInt64</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The value.</param>
    /// <exception cref="ArgumentOutOfRangeException">The value does not fit the column's type.</exception>
    /// <exception cref="InvalidOperationException">The column has another type.</exception>
    public void WriteUInt64(int column, ulong value)
    {
        ColumnChunkWriter w = Begin(column);
        ulong max = w.Column.Type switch
        {
            ParquetColumnType.UInt8 => byte.MaxValue,
            ParquetColumnType.UInt16 => ushort.MaxValue,
            ParquetColumnType.UInt32 => uint.MaxValue,
            ParquetColumnType.UInt64 => ulong.MaxValue,
            _ => throw TypeMismatch(w, "an unsigned integer"),
        };
        if (value > max)
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "Out of range for " + w.Column.Type.ToString() + " column '" + w.Column.Name + "'.");
        }

        if (Mark(w).Physical == ParquetPhysicalType.Int32)
        {
            w.AppendInt32(unchecked((int)(uint)value));
        }
        else
        {
            w.AppendInt64(unchecked((long)value));
        }
    }

    /// <summary>Writes a floating-point value to a <c>Float</c> (rounded to single precision) or <c>Double</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The value.</param>
    public void WriteDouble(int column, double value)
    {
        ColumnChunkWriter w = Begin(column);
        if (w.Column.Type == ParquetColumnType.Float)
        {
            Mark(w).AppendFloat((float)value);
        }
        else if (w.Column.Type == ParquetColumnType.Double)
        {
            Mark(w).AppendDouble(value);
        }
        else
        {
            throw TypeMismatch(w, "a floating-point value");
        }
    }

    /// <summary>Writes text (UTF-8 encoded; a lone surrogate becomes U+FFFD) to a <c>String</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The text.</param>
    public void WriteString(int column, ReadOnlySpan<char> value) => Begin(column, ParquetColumnType.String).AppendString(value);

    /// <summary>Writes bytes to a <c>Binary</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The bytes.</param>
    public void WriteBinary(int column, ReadOnlySpan<byte> value) => Begin(column, ParquetColumnType.Binary).AppendBytes(value);

    /// <summary>Writes a time to a <c>TimestampMicros</c> column: microseconds since 1970-01-01 UTC, rounded down.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The time; local times are converted to UTC, unspecified ones are taken as UTC.</param>
    public void WriteTimestamp(int column, DateTime value) => Begin(column, ParquetColumnType.TimestampMicros).AppendInt64(ToUnixMicroseconds(value));

    /// <summary>Writes a list of integers (empty is an empty list, not a null) to an <c>Int64List</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="values">The elements.</param>
    public void WriteInt64List(int column, ReadOnlySpan<long> values) => Begin(column, ParquetColumnType.Int64List).AppendInt64List(values);

    /// <summary>Writes a list of strings (empty is an empty list, not a null) to a <c>StringList</c> column.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="values">The elements (not null).</param>
    /// <exception cref="ArgumentException">An element is null.</exception>
    public void WriteStringList(int column, ReadOnlySpan<string> values)
    {
        foreach (string v in values)
        {
            if (v is null)
            {
                throw new ArgumentException("A list element is null; list elements are required.", nameof(values));
            }
        }

        Begin(column, ParquetColumnType.StringList).AppendStringList(values);
    }

    /// <summary>Completes the row; closes the row group when it is full.</summary>
    /// <exception cref="InvalidOperationException">A column has no value in this row.</exception>
    public void EndRow()
    {
        ThrowIfDone();
        if (_columnsWrittenInRow != _writers.Length)
        {
            ColumnChunkWriter missing = Array.Find(_writers, w => !w.WrittenInRow)!;
            throw new InvalidOperationException("Column '" + missing.Column.Name + "' has no value in row " + _rowCount.ToString(CultureInfo.InvariantCulture) + ".");
        }

        foreach (ColumnChunkWriter w in _writers)
        {
            w.EndRow(_options.PageBytes, _options.Compression, _scratch);
        }

        _columnsWrittenInRow = 0;
        _rowsInGroup++;
        _rowCount++;
        if (_rowsInGroup >= _options.RowGroupRows || BufferedBytes >= _options.RowGroupBytes)
        {
            FlushRowGroup();
        }
    }

    /// <summary>Writes the buffered rows as a row group now (nothing happens when no row is buffered).</summary>
    /// <exception cref="InvalidOperationException">A row is partly written.</exception>
    public void FlushRowGroup()
    {
        ThrowIfDone();
        if (_columnsWrittenInRow != 0)
        {
            throw new InvalidOperationException("A row is partly written; call EndRow first.");
        }

        if (_rowsInGroup == 0)
        {
            return;
        }

        long start = _position;
        var chunks = new ColumnChunkInfo[_writers.Length];
        long uncompressed = 0;
        for (int i = 0; i < _writers.Length; i++)
        {
            (ReadOnlyMemory<byte> bytes, ColumnChunkInfo info) = _writers[i].FinishChunk(_position, _options.Compression, _scratch);
            Write(bytes.Span);
            chunks[i] = info;
            uncompressed += info.UncompressedSize;
            _writers[i].ResetChunk();
        }

        _rowGroups.Add(new RowGroupInfo(chunks, _rowsInGroup, start, _position - start, uncompressed));
        _rowsInGroup = 0;
    }

    /// <summary>Writes the last row group and the footer, and flushes the stream. The file is then complete.</summary>
    /// <exception cref="InvalidOperationException">A row is partly written.</exception>
    public void Finish()
    {
        ThrowIfDone();
        FlushRowGroup();
        var footer = new ByteBuffer(4096);
        ParquetFooter.Write(footer, _columns, _writers, _rowGroups, _rowCount, _options.Compression);
        Write(footer.WrittenSpan);
        Span<byte> tail = stackalloc byte[8];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(tail, footer.Length);
        Magic.CopyTo(tail[4..]);
        Write(tail);
        _output.Flush();
        _finished = true;
    }

    /// <summary>Releases the stream (unless left open). Does not write the footer: call <see cref="Finish"/> first.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _scratch.Dispose();
        if (!_leaveOpen)
        {
            _output.Dispose();
        }
    }

    /// <summary>Microseconds since 1970-01-01 UTC, rounded towards negative infinity.</summary>
    /// <param name="value">The time (local times converted to UTC; unspecified taken as UTC).</param>
    /// <returns>The microseconds.</returns>
    public static long ToUnixMicroseconds(DateTime value)
    {
        DateTime utc = value.Kind == DateTimeKind.Local ? value.ToUniversalTime() : value;
        long ticks = utc.Ticks - DateTime.UnixEpoch.Ticks;
        long micros = ticks / TimeSpan.TicksPerMicrosecond;
        return ticks % TimeSpan.TicksPerMicrosecond < 0 ? micros - 1 : micros;
    }

    /// <summary>Validates the column index and that the column has no value yet in this row (does not mark it).</summary>
    private ColumnChunkWriter Begin(int column)
    {
        ThrowIfDone();
        if ((uint)column >= (uint)_writers.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(column), column, "No such column.");
        }

        ColumnChunkWriter w = _writers[column];
        if (w.WrittenInRow)
        {
            throw new InvalidOperationException("Column '" + w.Column.Name + "' already has a value in row " + _rowCount.ToString(CultureInfo.InvariantCulture) + ".");
        }

        return w;
    }

    /// <summary>Validates the column and its type, and marks it written in this row.</summary>
    private ColumnChunkWriter Begin(int column, ParquetColumnType type)
    {
        ColumnChunkWriter w = Begin(column);
        if (w.Column.Type != type)
        {
            throw new InvalidOperationException("Column '" + w.Column.Name + "' is " + w.Column.Type.ToString() + ", not " + type.ToString() + ".");
        }

        return Mark(w);
    }

    /// <summary>Marks the column written in this row, once every check has passed.</summary>
    private ColumnChunkWriter Mark(ColumnChunkWriter w)
    {
        w.WrittenInRow = true;
        _columnsWrittenInRow++;
        return w;
    }

    private static InvalidOperationException TypeMismatch(ColumnChunkWriter w, string what)
    {
        return new InvalidOperationException("Column '" + w.Column.Name + "' is " + w.Column.Type.ToString() + "; it does not take " + what + ".");
    }

    private void ThrowIfDone()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_finished)
        {
            throw new InvalidOperationException("The Parquet file is finished.");
        }
    }

    private void Write(ReadOnlySpan<byte> bytes)
    {
        _output.Write(bytes);
        _position += bytes.Length;
    }
}

/// <summary>One written row group: its column chunks and sizes.</summary>
internal sealed record RowGroupInfo(ColumnChunkInfo[] Columns, long NumRows, long FileOffset, long CompressedSize, long UncompressedSize);

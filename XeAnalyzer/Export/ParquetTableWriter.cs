using System.Globalization;
using System.IO.Compression;
using Parquet;
using Parquet.Schema;

namespace XeAnalyzer.Export;

/// <summary>Row-group size and compression of a <see cref="ParquetTableWriter"/>.</summary>
/// <param name="RowGroupRows">A row group is written when it holds this many rows.</param>
/// <param name="RowGroupBytes">A row group is written when its buffered values reach about this many bytes (bounds
/// memory).</param>
/// <param name="Compression">The page compression.</param>
internal sealed record ParquetTableOptions(int RowGroupRows, long RowGroupBytes, ParquetCompression Compression);

/// <summary>
/// Writes rows of <see cref="ParquetColumn"/>s through Parquet.Net: values are buffered per column, a value at a time,
/// and written as one row group when <see cref="ParquetTableOptions.RowGroupRows"/> rows or
/// <see cref="ParquetTableOptions.RowGroupBytes"/> bytes are buffered. A full row group is encoded and written on a
/// thread-pool thread while the caller fills a second set of buffers, so memory stays bounded by two row groups. String
/// columns (and list-of-string elements) are dictionary-encoded when their values repeat (Parquet.Net's threshold: at
/// most 80 % distinct). Every column chunk carries null counts and min/max statistics (Parquet.Net's).
/// </summary>
/// <remarks>
/// <para>Timestamps are handed to Parquet.Net as the microseconds the file stores, so their statistics are exact (see
/// <see cref="ColumnFields.Values"/>); the column buffers are in <c>ParquetColumnBuffers.cs</c>.</para>
/// <para>Not thread-safe (one caller; the background write never overlaps another). Call <see cref="Finish"/> to write
/// the footer; a writer disposed unfinished leaves a file without a footer, which no reader accepts.</para>
/// </remarks>
internal sealed class ParquetTableWriter : IDisposable
{
    private readonly Stream _output;
    private readonly ParquetColumn[] _columns;
    private ColumnBuffer[] _buffers;
    private ColumnBuffer[] _spare;
    private Task? _pending;
    private long _pendingBytes;
    private readonly ParquetTableOptions _options;
    private readonly ParquetWriter _writer;
    private int _columnsWrittenInRow;
    private int _rowsInGroup;
    private long _rowCount;
    private int _rowGroupCount;
    private bool _finished;
    private bool _disposed;

    /// <summary>Starts a file on <paramref name="output"/> (which the writer owns and disposes).</summary>
    /// <exception cref="ArgumentException">No columns, or duplicate column names.</exception>
    public ParquetTableWriter(Stream output, IReadOnlyList<ParquetColumn> columns, ParquetTableOptions options)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(columns);
        ArgumentNullException.ThrowIfNull(options);
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
        _columns = [.. columns];
        _options = options;
        ColumnFields[] fields = [.. _columns.Select(ColumnFields.For)];
        _buffers = [.. fields.Select(ColumnBuffer.Create)];
        _spare = [.. fields.Select(ColumnBuffer.Create)];
        var parquetOptions = new ParquetOptions
        {
            CompressionMethod = options.Compression switch
            {
                ParquetCompression.None => CompressionMethod.None,
                ParquetCompression.Snappy => CompressionMethod.Snappy,
                ParquetCompression.Gzip => CompressionMethod.Gzip,
                ParquetCompression.Zstd => CompressionMethod.Zstd,
                _ => throw new ArgumentOutOfRangeException(
                    nameof(options),
                    options.Compression,
                    "Unknown compression."
                ),
            },
            // Zstd: level 3 (zstd's own default); gzip: the fastest deflate level. Parquet.Net's default (SmallestSize)
            // is zstd level 19.
            CompressionLevel =
                options.Compression == ParquetCompression.Zstd ? CompressionLevel.Optimal : CompressionLevel.Fastest,
        };
        var schema = new ParquetSchema(fields.Select(f => f.Schema));
        foreach (
            ColumnFields f in fields.Where(f =>
                f.Column.Type is ParquetColumnType.String or ParquetColumnType.StringList
            )
        )
        {
            parquetOptions.ColumnEncodingHints[f.Values.Path.ToString()] = EncodingHint.Dictionary;
        }

        _writer = ParquetWriter.CreateAsync(schema, output, parquetOptions).GetAwaiter().GetResult();
    }

    /// <summary>The columns, in file order.</summary>
    public IReadOnlyList<ParquetColumn> Columns => _columns;

    /// <summary>Rows completed with <see cref="EndRow"/> (written or buffered).</summary>
    public long RowCount => _rowCount;

    /// <summary>Row groups written to the stream so far.</summary>
    public int RowGroupCount => _rowGroupCount;

    /// <summary>Bytes written to the stream (the whole file once <see cref="Finish"/> returned).</summary>
    public long BytesWritten { get; private set; }

    /// <summary>Bytes buffered for the open row group (an estimate: value sizes, UTF-16 text, levels).</summary>
    public long OpenRowGroupBytes
    {
        get
        {
            long sum = 0;
            foreach (ColumnBuffer b in _buffers)
            {
                sum += b.BufferedBytes;
            }

            return sum;
        }
    }

    /// <summary>
    /// Bytes buffered for the open row group, plus those of the row group being written in the background until it is
    /// written (an estimate: value sizes, UTF-16 text, levels).
    /// </summary>
    public long BufferedBytes
    {
        get { return OpenRowGroupBytes + (_pending is { IsCompleted: false } ? _pendingBytes : 0); }
    }

    /// <summary>Whether <see cref="Finish"/> has completed.</summary>
    public bool IsFinished => _finished;

    /// <summary>Writes a null (for a list column: a null list) in the current row.</summary>
    /// <exception cref="InvalidOperationException">The column is not nullable, or already has a value in this
    /// row.</exception>
    public void WriteNull(int column)
    {
        ColumnBuffer b = Begin(column);
        if (!b.Column.IsNullable)
        {
            throw new InvalidOperationException("Column '" + b.Column.Name + "' is not nullable.");
        }

        Mark(b).AppendNull();
    }

    /// <summary>Writes a boolean to a <see cref="ParquetColumnType.Boolean"/> column.</summary>
    public void WriteBoolean(int column, bool value) =>
        ((ValueBuffer<bool>)Begin(column, ParquetColumnType.Boolean)).Append(value);

    /// <summary>Writes a signed integer to an <c>Int8</c>, <c>Int16</c>, <c>Int32</c> or <c>Int64</c> column.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value does not fit the column's type.</exception>
    /// <exception cref="InvalidOperationException">The column has another type.</exception>
    public void WriteInt64(int column, long value)
    {
        ColumnBuffer b = Begin(column);
        switch (b.Column.Type)
        {
            case ParquetColumnType.Int8:
                sbyte vsbyte = value is >= sbyte.MinValue and <= sbyte.MaxValue
                    ? (sbyte)value
                    : throw OutOfRange(b, value);
                ((ValueBuffer<sbyte>)Mark(b)).Append(vsbyte);
                break;
            case ParquetColumnType.Int16:
                short vshort = value is >= short.MinValue and <= short.MaxValue
                    ? (short)value
                    : throw OutOfRange(b, value);
                ((ValueBuffer<short>)Mark(b)).Append(vshort);
                break;
            case ParquetColumnType.Int32:
                int vint = value is >= int.MinValue and <= int.MaxValue ? (int)value : throw OutOfRange(b, value);
                ((ValueBuffer<int>)Mark(b)).Append(vint);
                break;
            case ParquetColumnType.Int64:
                ((ValueBuffer<long>)Mark(b)).Append(value);
                break;
            default:
                throw TypeMismatch(b, "a signed integer");
        }
    }

    /// <summary>Writes an unsigned integer to a <c>UInt8</c>, <c>UInt16</c>, <c>UInt32</c> or <c>UInt64</c>
    /// column.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value does not fit the column's type.</exception>
    /// <exception cref="InvalidOperationException">The column has another type.</exception>
    public void WriteUInt64(int column, ulong value)
    {
        ColumnBuffer b = Begin(column);
        switch (b.Column.Type)
        {
            case ParquetColumnType.UInt8:
                byte vbyte = value <= byte.MaxValue ? (byte)value : throw OutOfRange(b, value);
                ((ValueBuffer<byte>)Mark(b)).Append(vbyte);
                break;
            case ParquetColumnType.UInt16:
                ushort vushort = value <= ushort.MaxValue ? (ushort)value : throw OutOfRange(b, value);
                ((ValueBuffer<ushort>)Mark(b)).Append(vushort);
                break;
            case ParquetColumnType.UInt32:
                uint vuint = value <= uint.MaxValue ? (uint)value : throw OutOfRange(b, value);
                ((ValueBuffer<uint>)Mark(b)).Append(vuint);
                break;
            case ParquetColumnType.UInt64:
                ((ValueBuffer<ulong>)Mark(b)).Append(value);
                break;
            default:
                throw TypeMismatch(b, "an unsigned integer");
        }
    }

    /// <summary>Writes a floating-point value to a <c>Float</c> (rounded to single precision) or <c>Double</c>
    /// column.</summary>
    public void WriteDouble(int column, double value)
    {
        ColumnBuffer b = Begin(column);
        switch (b.Column.Type)
        {
            case ParquetColumnType.Float:
                ((ValueBuffer<float>)Mark(b)).Append((float)value);
                break;
            case ParquetColumnType.Double:
                ((ValueBuffer<double>)Mark(b)).Append(value);
                break;
            default:
                throw TypeMismatch(b, "a floating-point value");
        }
    }

    /// <summary>Writes text (UTF-8 encoded; a lone surrogate becomes U+FFFD) to a <c>String</c> column.</summary>
    public void WriteString(int column, string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        ((TextBuffer)Begin(column, ParquetColumnType.String)).Append(value);
    }

    /// <summary>Writes bytes (copied) to a <c>Binary</c> column.</summary>
    public void WriteBinary(int column, ReadOnlySpan<byte> value) =>
        ((ValueBuffer<ReadOnlyMemory<byte>>)Begin(column, ParquetColumnType.Binary)).Append(value.ToArray());

    /// <summary>Writes a time to a <c>TimestampMicros</c> column: microseconds since 1970-01-01 UTC, rounded
    /// down.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The time; local times are converted to UTC, unspecified ones are taken as UTC.</param>
    public void WriteTimestamp(int column, DateTime value) =>
        ((TimestampBuffer)Begin(column, ParquetColumnType.TimestampMicros)).Append(value);

    /// <summary>Writes a list of integers (empty is an empty list, not a null) to an <c>Int64List</c> column.</summary>
    public void WriteInt64List(int column, ReadOnlySpan<long> values) =>
        ((ValueBuffer<long>)Begin(column, ParquetColumnType.Int64List)).AppendList(values);

    /// <summary>Writes a list of strings (empty is an empty list, not a null) to a <c>StringList</c> column.</summary>
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

        ((TextBuffer)Begin(column, ParquetColumnType.StringList)).AppendList(values);
    }

    /// <summary>Completes the row; writes the row group when it is full.</summary>
    /// <exception cref="InvalidOperationException">A column has no value in this row.</exception>
    public void EndRow()
    {
        ThrowIfDone();
        if (_columnsWrittenInRow != _buffers.Length)
        {
            ColumnBuffer missing = Array.Find(_buffers, b => !b.WrittenInRow)!;
            throw new InvalidOperationException(
                "Column '"
                    + missing.Column.Name
                    + "' has no value in row "
                    + _rowCount.ToString(CultureInfo.InvariantCulture)
                    + "."
            );
        }

        foreach (ColumnBuffer b in _buffers)
        {
            b.WrittenInRow = false;
        }

        _columnsWrittenInRow = 0;
        _rowsInGroup++;
        _rowCount++;
        if (_rowsInGroup >= _options.RowGroupRows || OpenRowGroupBytes >= _options.RowGroupBytes)
        {
            FlushRowGroup();
        }
    }

    /// <summary>
    /// Hands the buffered rows to the background writer as a row group, after waiting for the previous one (when no row
    /// is buffered, only waits for the previous one).
    /// </summary>
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
            WaitForPending();
            return;
        }

        // The full buffers are written by Parquet.Net on another thread while the caller fills the spare set: reading
        // the capture and encoding the previous row group overlap. At most one row group is in flight.
        WaitForPending();
        (_buffers, _spare) = (_spare, _buffers);
        ColumnBuffer[] full = _spare;
        _pendingBytes = full.Sum(b => b.BufferedBytes);
        _pending = Task.Run(() => WriteRowGroupAsync(full));
        _rowsInGroup = 0;
        _rowGroupCount++;
    }

    /// <summary>Waits for the row group being written in the background (rethrowing its failure) and records the stream
    /// position.</summary>
    private void WaitForPending()
    {
        if (_pending is null)
        {
            return;
        }

        try
        {
            _pending.GetAwaiter().GetResult();
        }
        finally
        {
            _pending = null;
            _pendingBytes = 0;
        }

        BytesWritten = _output.Position;
    }

    /// <summary>Writes the last row group and the footer, and flushes the stream. The file is then complete.</summary>
    /// <exception cref="InvalidOperationException">A row is partly written.</exception>
    public void Finish()
    {
        FlushRowGroup();
        WaitForPending();
        _writer.DisposeAsync().AsTask().GetAwaiter().GetResult();
        _output.Flush();
        BytesWritten = _output.Position;
        _finished = true;
    }

    /// <summary>Releases the stream. Does not write the footer: call <see cref="Finish"/> first.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        try
        {
            _pending?.Wait();
        }
        catch (AggregateException)
        {
            // The failure was (or will never be) reported by FlushRowGroup or Finish; the file is incomplete either
            // way.
        }

        _output.Dispose();
    }

    private async Task WriteRowGroupAsync(ColumnBuffer[] buffers)
    {
        using (ParquetRowGroupWriter rowGroup = _writer.CreateRowGroup())
        {
            foreach (ColumnBuffer b in buffers)
            {
                await b.WriteAsync(rowGroup).ConfigureAwait(false);
            }

            rowGroup.CompleteValidate();
        }

        foreach (ColumnBuffer b in buffers)
        {
            b.Clear();
        }
    }

    private static ArgumentOutOfRangeException OutOfRange(ColumnBuffer b, object value) =>
        new(nameof(value), value, "Out of range for " + b.Column.Type.ToString() + " column '" + b.Column.Name + "'.");

    private static InvalidOperationException TypeMismatch(ColumnBuffer b, string what) =>
        new("Column '" + b.Column.Name + "' is " + b.Column.Type.ToString() + "; it does not take " + what + ".");

    /// <summary>Validates the column index and that the column has no value yet in this row (does not mark
    /// it).</summary>
    private ColumnBuffer Begin(int column)
    {
        ThrowIfDone();
        if ((uint)column >= (uint)_buffers.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(column), column, "No such column.");
        }

        ColumnBuffer b = _buffers[column];
        if (b.WrittenInRow)
        {
            throw new InvalidOperationException(
                "Column '"
                    + b.Column.Name
                    + "' already has a value in row "
                    + _rowCount.ToString(CultureInfo.InvariantCulture)
                    + "."
            );
        }

        return b;
    }

    /// <summary>Validates the column and its type, and marks it written in this row.</summary>
    private ColumnBuffer Begin(int column, ParquetColumnType type)
    {
        ColumnBuffer b = Begin(column);
        if (b.Column.Type != type)
        {
            throw new InvalidOperationException(
                "Column '" + b.Column.Name + "' is " + b.Column.Type.ToString() + ", not " + type.ToString() + "."
            );
        }

        return Mark(b);
    }

    private ColumnBuffer Mark(ColumnBuffer b)
    {
        b.WrittenInRow = true;
        _columnsWrittenInRow++;
        return b;
    }

    private void ThrowIfDone()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_finished)
        {
            throw new InvalidOperationException("The Parquet file is finished.");
        }
    }
}

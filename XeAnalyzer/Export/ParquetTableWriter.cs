using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.IO.Compression;
using System.Reflection;
using Parquet;
using ColumnChunk = Parquet.Meta.ColumnChunk;
using FileMetaData = Parquet.Meta.FileMetaData;
using RowGroup = Parquet.Meta.RowGroup;
using Statistics = Parquet.Meta.Statistics;
using Parquet.Schema;

namespace XeAnalyzer.Export;

/// <summary>Row-group size and compression of a <see cref="ParquetTableWriter"/>.</summary>
/// <param name="RowGroupRows">A row group is written when it holds this many rows.</param>
/// <param name="RowGroupBytes">A row group is written when its buffered values reach about this many bytes (bounds memory).</param>
/// <param name="Compression">The page compression.</param>
internal sealed record ParquetTableOptions(int RowGroupRows, long RowGroupBytes, ParquetCompression Compression);

/// <summary>
/// Writes rows of <see cref="ParquetColumn"/>s through Parquet.Net: values are buffered per column, a value at a time, and
/// written as one row group when <see cref="ParquetTableOptions.RowGroupRows"/> rows or
/// <see cref="ParquetTableOptions.RowGroupBytes"/> bytes are buffered. A full row group is encoded and written on a
/// thread-pool thread while the caller fills a second set of buffers, so memory stays bounded by two row groups. String
/// columns (and list-of-string elements) are dictionary-encoded when their values repeat (Parquet.Net's threshold: at most
/// 80 % distinct). Every column chunk carries null counts and min/max statistics (Parquet.Net's).
/// </summary>
/// <remarks>
/// <para>Parquet.Net 6.1.0 writes the min/max statistics of <c>TIMESTAMP(MICROS)</c> columns in milliseconds
/// (aloneguid/parquet-dotnet#769), which makes DuckDB skip row groups that match a time filter. This writer replaces them in
/// the file footer with the microsecond values of the row group before the footer is written (reaching the footer being
/// built through Parquet.Net's private <c>ParquetWriter._footer._fileMeta</c>, checked when the writer is created; the
/// statistics copy in each page header stays as Parquet.Net writes it: DuckDB and Spark prune by the footer).</para>
/// <para>Not thread-safe (one caller; the background write never overlaps another). Call <see cref="Finish"/> to write the footer; a writer disposed unfinished leaves a file without
/// a footer, which no reader accepts.</para>
/// </remarks>
internal sealed class ParquetTableWriter : IDisposable
{
    private static readonly FieldInfo? s_footerField = typeof(ParquetWriter).GetField("_footer", BindingFlags.NonPublic | BindingFlags.Instance);

    private readonly Stream _output;
    private readonly ParquetColumn[] _columns;
    private ColumnBuffer[] _buffers;
    private ColumnBuffer[] _spare;
    private Task? _pending;
    private long _pendingBytes;
    private readonly ParquetTableOptions _options;
    private readonly ParquetWriter _writer;
    private readonly FileMetaData _footer;
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
                _ => throw new ArgumentOutOfRangeException(nameof(options), options.Compression, "Unknown compression."),
            },
            // Zstd: level 3 (zstd's own default); gzip: the fastest deflate level. Parquet.Net's default (SmallestSize) is zstd level 19.
            CompressionLevel = options.Compression == ParquetCompression.Zstd ? CompressionLevel.Optimal : CompressionLevel.Fastest,
        };
        var schema = new ParquetSchema(fields.Select(f => f.Schema));
        foreach (ColumnFields f in fields.Where(f => f.Column.Type is ParquetColumnType.String or ParquetColumnType.StringList))
        {
            parquetOptions.ColumnEncodingHints[f.Data.Path.ToString()] = EncodingHint.Dictionary;
        }

        _writer = ParquetWriter.CreateAsync(schema, output, parquetOptions).GetAwaiter().GetResult();
        _footer = FooterOf(_writer);
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
        get
        {
            return OpenRowGroupBytes + (_pending is { IsCompleted: false } ? _pendingBytes : 0);
        }
    }

    /// <summary>Whether <see cref="Finish"/> has completed.</summary>
    public bool IsFinished => _finished;

    /// <summary>Writes a null (for a list column: a null list) in the current row.</summary>
    /// <exception cref="InvalidOperationException">The column is not nullable, or already has a value in this row.</exception>
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
    public void WriteBoolean(int column, bool value) => ((ValueBuffer<bool>)Begin(column, ParquetColumnType.Boolean)).Append(value);

    /// <summary>Writes a signed integer to an <c>Int8</c>, <c>Int16</c>, <c>Int32</c> or <c>Int64</c> column.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value does not fit the column's type.</exception>
    /// <exception cref="InvalidOperationException">The column has another type.</exception>
    public void WriteInt64(int column, long value)
    {
        ColumnBuffer b = Begin(column);
        switch (b.Column.Type)
        {
            case ParquetColumnType.Int8:
                sbyte vsbyte = value is >= sbyte.MinValue and <= sbyte.MaxValue ? (sbyte)value : throw OutOfRange(b, value);
                ((ValueBuffer<sbyte>)Mark(b)).Append(vsbyte);
                break;
            case ParquetColumnType.Int16:
                short vshort = value is >= short.MinValue and <= short.MaxValue ? (short)value : throw OutOfRange(b, value);
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

    /// <summary>Writes an unsigned integer to a <c>UInt8</c>, <c>UInt16</c>, <c>UInt32</c> or <c>UInt64</c> column.</summary>
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

    /// <summary>Writes a floating-point value to a <c>Float</c> (rounded to single precision) or <c>Double</c> column.</summary>
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
    public void WriteBinary(int column, ReadOnlySpan<byte> value) => ((ValueBuffer<ReadOnlyMemory<byte>>)Begin(column, ParquetColumnType.Binary)).Append(value.ToArray());

    /// <summary>Writes a time to a <c>TimestampMicros</c> column: microseconds since 1970-01-01 UTC, rounded down.</summary>
    /// <param name="column">Column index.</param>
    /// <param name="value">The time; local times are converted to UTC, unspecified ones are taken as UTC.</param>
    public void WriteTimestamp(int column, DateTime value) => ((TimestampBuffer)Begin(column, ParquetColumnType.TimestampMicros)).Append(value);

    /// <summary>Writes a list of integers (empty is an empty list, not a null) to an <c>Int64List</c> column.</summary>
    public void WriteInt64List(int column, ReadOnlySpan<long> values) => ((ValueBuffer<long>)Begin(column, ParquetColumnType.Int64List)).AppendList(values);

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
            throw new InvalidOperationException("Column '" + missing.Column.Name + "' has no value in row " + _rowCount.ToString(CultureInfo.InvariantCulture) + ".");
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
    /// Hands the buffered rows to the background writer as a row group, after waiting for the previous one (when no row is
    /// buffered, only waits for the previous one).
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

        // The full buffers are written by Parquet.Net on another thread while the caller fills the spare set: reading the
        // capture and encoding the previous row group overlap. At most one row group is in flight.
        WaitForPending();
        (_buffers, _spare) = (_spare, _buffers);
        ColumnBuffer[] full = _spare;
        _pendingBytes = full.Sum(b => b.BufferedBytes);
        _pending = Task.Run(() => WriteRowGroupAsync(full));
        _rowsInGroup = 0;
        _rowGroupCount++;
    }

    /// <summary>Waits for the row group being written in the background (rethrowing its failure) and records the stream position.</summary>
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
            // The failure was (or will never be) reported by FlushRowGroup or Finish; the file is incomplete either way.
        }

        _output.Dispose();
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

    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification = "ThriftFooter is a type of Parquet.Net, which is not trimmed away while ParquetWriter is used; a missing member throws.")]
    private static FileMetaData FooterOf(ParquetWriter writer)
    {
        object? footer = s_footerField?.GetValue(writer);
        FieldInfo? meta = footer?.GetType().GetField("_fileMeta", BindingFlags.NonPublic | BindingFlags.Instance);
        return meta?.GetValue(footer) as FileMetaData
            ?? throw new InvalidOperationException("This Parquet.Net version has no ParquetWriter._footer._fileMeta, through which XeAnalyzer corrects the TIMESTAMP statistics Parquet.Net writes in milliseconds (aloneguid/parquet-dotnet#769); check whether that bug is fixed and update ParquetTableWriter.");
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

        RowGroup written = _footer.RowGroups[^1];
        for (int i = 0; i < buffers.Length; i++)
        {
            if (buffers[i] is TimestampBuffer ts)
            {
                ts.CorrectStatistics(written.Columns[i]);
            }

            buffers[i].Clear();
        }
    }

    private static ArgumentOutOfRangeException OutOfRange(ColumnBuffer b, object value) =>
        new(nameof(value), value, "Out of range for " + b.Column.Type.ToString() + " column '" + b.Column.Name + "'.");

    private static InvalidOperationException TypeMismatch(ColumnBuffer b, string what) =>
        new("Column '" + b.Column.Name + "' is " + b.Column.Type.ToString() + "; it does not take " + what + ".");

    /// <summary>Validates the column index and that the column has no value yet in this row (does not mark it).</summary>
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
            throw new InvalidOperationException("Column '" + b.Column.Name + "' already has a value in row " + _rowCount.ToString(CultureInfo.InvariantCulture) + ".");
        }

        return b;
    }

    /// <summary>Validates the column and its type, and marks it written in this row.</summary>
    private ColumnBuffer Begin(int column, ParquetColumnType type)
    {
        ColumnBuffer b = Begin(column);
        if (b.Column.Type != type)
        {
            throw new InvalidOperationException("Column '" + b.Column.Name + "' is " + b.Column.Type.ToString() + ", not " + type.ToString() + ".");
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

    /// <summary>The buffered values of one column in the open row group, and its Parquet.Net schema field.</summary>
    private abstract class ColumnBuffer(ColumnFields fields)
    {
        public ParquetColumn Column { get; } = fields.Column;

        /// <summary>The leaf holding the values (the list's element for lists), as attached to the file's schema.</summary>
        public DataField DataField { get; } = fields.Data;

        public bool WrittenInRow { get; set; }

        public abstract long BufferedBytes { get; }

        public static ColumnBuffer Create(ColumnFields f) => f.Column.Type switch
        {
            ParquetColumnType.Boolean => new ValueBuffer<bool>(f, 1),
            ParquetColumnType.Int8 => new ValueBuffer<sbyte>(f, 1),
            ParquetColumnType.Int16 => new ValueBuffer<short>(f, 2),
            ParquetColumnType.Int32 => new ValueBuffer<int>(f, 4),
            ParquetColumnType.Int64 or ParquetColumnType.Int64List => new ValueBuffer<long>(f, 8),
            ParquetColumnType.UInt8 => new ValueBuffer<byte>(f, 1),
            ParquetColumnType.UInt16 => new ValueBuffer<ushort>(f, 2),
            ParquetColumnType.UInt32 => new ValueBuffer<uint>(f, 4),
            ParquetColumnType.UInt64 => new ValueBuffer<ulong>(f, 8),
            ParquetColumnType.Float => new ValueBuffer<float>(f, 4),
            ParquetColumnType.Double => new ValueBuffer<double>(f, 8),
            ParquetColumnType.String or ParquetColumnType.StringList => new TextBuffer(f),
            ParquetColumnType.Binary => new ValueBuffer<ReadOnlyMemory<byte>>(f, 24),
            ParquetColumnType.TimestampMicros => new TimestampBuffer(f),
            _ => throw new ArgumentOutOfRangeException(nameof(f), f.Column.Type, "Unknown column type."),
        };

        public abstract void AppendNull();

        public abstract Task WriteAsync(ParquetRowGroupWriter rowGroup);

        public abstract void Clear();
    }

    /// <summary>
    /// Values plus Dremel levels. A nullable scalar has definition level 1 (value) or 0 (null); a list (always an optional
    /// group of required elements) has 0 for a null list, 1 for an empty list, 2 for an element, and repetition level 0 for
    /// the first entry of a row, 1 for the next elements.
    /// </summary>
    private class ValueBuffer<T> : ColumnBuffer
        where T : struct
    {
        private readonly int _valueBytes;
        private T[] _values = new T[1024];
        private int[] _definition;
        private int[] _repetition;
        private int _count;
        private int _levels;

        public ValueBuffer(ColumnFields fields, int valueBytes)
            : base(fields)
        {
            _valueBytes = valueBytes;
            _definition = Column.IsNullable || Column.IsList ? new int[1024] : [];
            _repetition = Column.IsList ? new int[1024] : [];
        }

        public override long BufferedBytes => ((long)_count * _valueBytes) + ((long)_levels * (Column.IsList ? 8 : 4));

        protected ReadOnlySpan<T> Values => _values.AsSpan(0, _count);

        public void Append(T value)
        {
            Add(value);
            if (Column.IsNullable)
            {
                Level(1, 0);
            }
        }

        public void AppendList(ReadOnlySpan<T> values)
        {
            if (values.IsEmpty)
            {
                Level(1, 0);
                return;
            }

            for (int i = 0; i < values.Length; i++)
            {
                Add(values[i]);
                Level(2, i == 0 ? 0 : 1);
            }
        }

        public override void AppendNull() => Level(0, 0);

        public override Task WriteAsync(ParquetRowGroupWriter rowGroup)
        {
            // Not "cond ? memory : null": null converts to an empty Memory<int> (through int[]), not to a null Nullable.
            ReadOnlyMemory<int>? definition = null, repetition = null;
            if (_definition.Length > 0)
            {
                definition = _definition.AsMemory(0, _levels);
            }

            if (Column.IsList)
            {
                repetition = _repetition.AsMemory(0, _levels);
            }

            return rowGroup.WriteAllPartsAsync<T>(DataField, _values.AsMemory(0, _count), definition, repetition, CancellationToken.None);
        }

        public override void Clear()
        {
            if (System.Runtime.CompilerServices.RuntimeHelpers.IsReferenceOrContainsReferences<T>())
            {
                Array.Clear(_values, 0, _count);
            }

            _count = 0;
            _levels = 0;
        }

        private void Add(T value)
        {
            if (_count == _values.Length)
            {
                Array.Resize(ref _values, _values.Length * 2);
            }

            _values[_count++] = value;
        }

        private void Level(int definition, int repetition)
        {
            if (_levels == _definition.Length)
            {
                Array.Resize(ref _definition, _definition.Length * 2);
                if (Column.IsList)
                {
                    Array.Resize(ref _repetition, _repetition.Length * 2);
                }
            }

            _definition[_levels] = definition;
            if (Column.IsList)
            {
                _repetition[_levels] = repetition;
            }

            _levels++;
        }
    }

    /// <summary>Strings (as <see cref="ReadOnlyMemory{T}"/> of the caller's strings: no copy) and their estimated size.</summary>
    private sealed class TextBuffer(ColumnFields fields) : ValueBuffer<ReadOnlyMemory<char>>(fields, 16)
    {
        private long _chars;

        public override long BufferedBytes => base.BufferedBytes + (_chars * 2);

        public void Append(string value)
        {
            _chars += value.Length;
            Append(value.AsMemory());
        }

        public void AppendList(ReadOnlySpan<string> values)
        {
            if (values.IsEmpty)
            {
                AppendList(ReadOnlySpan<ReadOnlyMemory<char>>.Empty);
                return;
            }

            ReadOnlyMemory<char>[] memory = new ReadOnlyMemory<char>[values.Length];
            for (int i = 0; i < values.Length; i++)
            {
                _chars += values[i].Length;
                memory[i] = values[i].AsMemory();
            }

            AppendList(memory);
        }

        public override void Clear()
        {
            base.Clear();
            _chars = 0;
        }
    }

    /// <summary>Times, kept as whole microseconds (rounded down), with their minimum and maximum for the statistics fix.</summary>
    private sealed class TimestampBuffer(ColumnFields fields) : ValueBuffer<DateTime>(fields, 8)
    {
        public new void Append(DateTime value)
        {
            long micros = ToUnixMicroseconds(value);
            base.Append(DateTime.SpecifyKind(DateTime.UnixEpoch.AddTicks(micros * TimeSpan.TicksPerMicrosecond), DateTimeKind.Utc));
        }

        /// <summary>Replaces the chunk's min/max statistics with the microsecond values of the row group's times.</summary>
        public void CorrectStatistics(ColumnChunk chunk)
        {
            Statistics? stats = chunk.MetaData?.Statistics;
            if (stats is null)
            {
                return;
            }

            string path = string.Join(".", chunk.MetaData!.PathInSchema);
            if (!string.Equals(path, Column.Name, StringComparison.Ordinal))
            {
                throw new InvalidOperationException("Column chunk '" + path + "' where '" + Column.Name + "' was expected.");
            }

            if (Values.IsEmpty)
            {
                stats.Min = stats.MinValue = stats.Max = stats.MaxValue = null;
                return;
            }

            long min = long.MaxValue, max = long.MinValue;
            foreach (DateTime t in Values)
            {
                long us = ToUnixMicroseconds(t);
                min = Math.Min(min, us);
                max = Math.Max(max, us);
            }

            stats.Min = stats.MinValue = Int64Bytes(min);
            stats.Max = stats.MaxValue = Int64Bytes(max);
        }

        private static byte[] Int64Bytes(long value)
        {
            byte[] b = new byte[8];
            BinaryPrimitives.WriteInt64LittleEndian(b, value);
            return b;
        }
    }

    /// <summary>A column's Parquet.Net schema fields: made once per file and shared by both buffer sets.</summary>
    /// <param name="Column">The column.</param>
    /// <param name="Schema">The top-level schema field (the list field for lists).</param>
    /// <param name="Data">The leaf holding the values (the list's element for lists).</param>
    private sealed record ColumnFields(ParquetColumn Column, Field Schema, DataField Data)
    {
        public static ColumnFields For(ParquetColumn c)
        {
            if (c.Type == ParquetColumnType.TimestampMicros)
            {
                var ts = new DateTimeDataField(c.Name, DateTimeFormat.Timestamp, isAdjustedToUTC: true, unit: DateTimeTimeUnit.Micros, isNullable: c.IsNullable);
                return new ColumnFields(c, ts, ts);
            }

            Type clrType = c.Type switch
            {
                ParquetColumnType.Boolean => typeof(bool),
                ParquetColumnType.Int8 => typeof(sbyte),
                ParquetColumnType.Int16 => typeof(short),
                ParquetColumnType.Int32 => typeof(int),
                ParquetColumnType.Int64 or ParquetColumnType.Int64List => typeof(long),
                ParquetColumnType.UInt8 => typeof(byte),
                ParquetColumnType.UInt16 => typeof(ushort),
                ParquetColumnType.UInt32 => typeof(uint),
                ParquetColumnType.UInt64 => typeof(ulong),
                ParquetColumnType.Float => typeof(float),
                ParquetColumnType.Double => typeof(double),
                ParquetColumnType.String or ParquetColumnType.StringList => typeof(string),
                ParquetColumnType.Binary => typeof(byte[]),
                _ => throw new ArgumentOutOfRangeException(nameof(c), c.Type, "Unknown column type."),
            };
            if (c.IsList)
            {
                var element = new DataField(ListField.ElementName, clrType, isNullable: false);
                return new ColumnFields(c, new ListField(c.Name, element), element);
            }

            var field = new DataField(c.Name, clrType, isNullable: c.IsNullable);
            return new ColumnFields(c, field, field);
        }
    }
}

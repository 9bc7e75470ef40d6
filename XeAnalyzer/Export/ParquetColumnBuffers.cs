using Parquet;
using Parquet.Schema;

namespace XeAnalyzer.Export;

/// <summary>
/// The buffered values of one column of a <see cref="ParquetTableWriter"/> in the open row group, and the Parquet.Net
/// field they are handed over with.
/// </summary>
internal abstract class ColumnBuffer(ColumnFields fields)
{
    public ParquetColumn Column { get; } = fields.Column;

    /// <summary>The field the values are handed to Parquet.Net with (see <see cref="ColumnFields.Values"/>).</summary>
    public DataField ValuesField { get; } = fields.Values;

    public bool WrittenInRow { get; set; }

    public abstract long BufferedBytes { get; }

    public static ColumnBuffer Create(ColumnFields f) =>
        f.Column.Type switch
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
internal class ValueBuffer<T> : ColumnBuffer
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
        ReadOnlyMemory<int>? definition = null,
            repetition = null;
        if (_definition.Length > 0)
        {
            definition = _definition.AsMemory(0, _levels);
        }

        if (Column.IsList)
        {
            repetition = _repetition.AsMemory(0, _levels);
        }

        return rowGroup.WriteAllPartsAsync<T>(
            ValuesField,
            _values.AsMemory(0, _count),
            definition,
            repetition,
            CancellationToken.None
        );
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

/// <summary>
/// Strings (as <see cref="ReadOnlyMemory{T}"/> of the caller's strings: no copy) and their estimated size.
/// </summary>
internal sealed class TextBuffer(ColumnFields fields) : ValueBuffer<ReadOnlyMemory<char>>(fields, 16)
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

/// <summary>Times as the whole microseconds since 1970-01-01 UTC (rounded down) that the file stores.</summary>
internal sealed class TimestampBuffer(ColumnFields fields) : ValueBuffer<long>(fields, 8)
{
    public void Append(DateTime value) => Append(ToUnixMicroseconds(value));

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
}

/// <summary>A column's Parquet.Net schema fields: made once per file and shared by both buffer sets.</summary>
/// <param name="Column">The column.</param>
/// <param name="Schema">The top-level field of the file's schema (the list field for lists).</param>
/// <param name="Values">
/// The leaf the values are handed over with: the file schema's leaf (the list's element for lists), except for
/// timestamps. Parquet.Net 6.1.0 writes the min/max statistics of <see cref="DateTime"/> values of a
/// <c>TIMESTAMP(MICROS)</c> column in milliseconds (aloneguid/parquet-dotnet#769), which makes DuckDB skip row
/// groups that match a time filter; its statistics of <see cref="long"/> values are exact. So a timestamp column is
/// declared <c>TIMESTAMP(MICROS)</c> in the file schema, and its values are handed over as the <c>INT64</c>
/// microseconds the file stores, through a <c>long</c> field of the same name and levels in a schema of its own:
/// Parquet.Net takes the column's schema element (type, logical type) from the file schema and encodes the values by
/// their CLR type, the same plain <c>INT64</c> bytes it writes for <see cref="DateTime"/> values. The tests read the
/// statistics back with DuckDB.
/// </param>
internal sealed record ColumnFields(ParquetColumn Column, Field Schema, DataField Values)
{
    public static ColumnFields For(ParquetColumn c)
    {
        if (c.Type == ParquetColumnType.TimestampMicros)
        {
            var ts = new DateTimeDataField(
                c.Name,
                DateTimeFormat.Timestamp,
                isAdjustedToUTC: true,
                unit: DateTimeTimeUnit.Micros,
                isNullable: c.IsNullable
            );
            var micros = new DataField<long>(c.Name, c.IsNullable);
            _ = new ParquetSchema(micros); // Parquet.Net takes values only through a field attached to a schema.
            return new ColumnFields(c, ts, micros);
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

using System.Buffers.Binary;
using System.IO.Compression;
using System.Text;

namespace XeAnalyzer.Export.Parquet;

/// <summary>Parquet physical types (the Thrift <c>Type</c> enum values).</summary>
internal enum ParquetPhysicalType
{
    Boolean = 0,
    Int32 = 1,
    Int64 = 2,
    Float = 4,
    Double = 5,
    ByteArray = 6,
}

/// <summary>What <see cref="ColumnChunkWriter"/> reports about one finished column chunk.</summary>
internal sealed record ColumnChunkInfo(
    long DataPageOffset,
    long NumValues,
    long UncompressedSize,
    long CompressedSize,
    long? NullCount,
    byte[]? MinValue,
    byte[]? MaxValue);

/// <summary>
/// Buffers one column of the current row group: PLAIN-encoded values and the definition/repetition levels of the open page,
/// and the finished data pages (v1) of the chunk. Pages close at row boundaries.
/// </summary>
internal sealed class ColumnChunkWriter
{
    private readonly ByteBuffer _values = new(1024);
    private readonly ByteBuffer _defs = new(256);
    private readonly ByteBuffer _reps = new(256);
    private readonly ByteBuffer _chunk = new(1024);
    private readonly bool _unsignedStats;
    private readonly bool _hasStats;
    private int _pageLevels;
    private long _pageBoolBits;
    private long _chunkValues;
    private long _chunkUncompressed;
    private long _chunkCompressed;
    private long _nullCount;
    private bool _statsSet;
    private long _min;
    private long _max;

    public ColumnChunkWriter(ParquetColumn column)
    {
        Column = column;
        Physical = column.Type switch
        {
            ParquetColumnType.Boolean => ParquetPhysicalType.Boolean,
            ParquetColumnType.Int8 or ParquetColumnType.Int16 or ParquetColumnType.Int32
                or ParquetColumnType.UInt8 or ParquetColumnType.UInt16 or ParquetColumnType.UInt32 => ParquetPhysicalType.Int32,
            ParquetColumnType.Int64 or ParquetColumnType.UInt64 or ParquetColumnType.TimestampMicros or ParquetColumnType.Int64List => ParquetPhysicalType.Int64,
            ParquetColumnType.Float => ParquetPhysicalType.Float,
            ParquetColumnType.Double => ParquetPhysicalType.Double,
            _ => ParquetPhysicalType.ByteArray,
        };
        MaxRep = column.IsList ? 1 : 0;
        MaxDef = (column.IsNullable ? 1 : 0) + (column.IsList ? 1 : 0);
        _unsignedStats = column.Type is ParquetColumnType.UInt8 or ParquetColumnType.UInt16 or ParquetColumnType.UInt32 or ParquetColumnType.UInt64;
        _hasStats = Physical is ParquetPhysicalType.Int32 or ParquetPhysicalType.Int64 && !column.IsList;
    }

    public ParquetColumn Column { get; }

    public ParquetPhysicalType Physical { get; }

    public int MaxDef { get; }

    public int MaxRep { get; }

    /// <summary>Whether the current row already has a value in this column.</summary>
    public bool WrittenInRow { get; set; }

    /// <summary>Bytes held for the current row group (finished pages plus the open page).</summary>
    public long BufferedBytes => (long)_chunk.Length + _values.Length + _defs.Length + _reps.Length;

    private long OpenPageBytes => (long)_values.Length + _defs.Length + _reps.Length;

    public void AppendNull()
    {
        if (MaxRep > 0)
        {
            _reps.WriteByte(0);
        }

        _defs.WriteByte(0);
        _pageLevels++;
        if (!Column.IsList)
        {
            _nullCount++;
        }
    }

    /// <summary>Levels of a present top-level (non-list) value.</summary>
    private void PresentValue()
    {
        if (MaxDef > 0)
        {
            _defs.WriteByte((byte)MaxDef);
        }

        _pageLevels++;
    }

    public void AppendBoolean(bool value)
    {
        PresentValue();
        _values.AppendBit(_pageBoolBits++, value);
    }

    public void AppendInt32(int value)
    {
        PresentValue();
        _values.WriteInt32(value);
        Track(_unsignedStats ? unchecked((long)(uint)value) : value);
    }

    public void AppendInt64(long value)
    {
        PresentValue();
        _values.WriteInt64(value);
        Track(value);
    }

    public void AppendFloat(float value)
    {
        PresentValue();
        BinaryPrimitives.WriteSingleLittleEndian(_values.GetSpan(4), value);
        _values.Advance(4);
    }

    public void AppendDouble(double value)
    {
        PresentValue();
        BinaryPrimitives.WriteDoubleLittleEndian(_values.GetSpan(8), value);
        _values.Advance(8);
    }

    public void AppendBytes(ReadOnlySpan<byte> value)
    {
        PresentValue();
        WriteByteArray(value);
    }

    public void AppendString(ReadOnlySpan<char> value)
    {
        PresentValue();
        WriteUtf8(value);
    }

    public void AppendInt64List(ReadOnlySpan<long> values)
    {
        ListLevels(values.Length);
        foreach (long v in values)
        {
            _values.WriteInt64(v);
        }
    }

    public void AppendStringList(ReadOnlySpan<string> values)
    {
        ListLevels(values.Length);
        foreach (string v in values)
        {
            WriteUtf8(v);
        }
    }

    /// <summary>Called after every row; closes the page when it is large enough.</summary>
    public void EndRow(int pageBytes, ParquetCompression compression, PageScratch scratch)
    {
        WrittenInRow = false;
        if (OpenPageBytes >= pageBytes)
        {
            FlushPage(compression, scratch);
        }
    }

    /// <summary>Closes the open page (if any) and returns the chunk: its bytes and its metadata relative to <paramref name="fileOffset"/>.</summary>
    public (ReadOnlyMemory<byte> Bytes, ColumnChunkInfo Info) FinishChunk(long fileOffset, ParquetCompression compression, PageScratch scratch)
    {
        FlushPage(compression, scratch);
        byte[]? min = null, max = null;
        if (_hasStats && _statsSet)
        {
            min = EncodeStat(_min);
            max = EncodeStat(_max);
        }

        var info = new ColumnChunkInfo(fileOffset, _chunkValues, _chunkUncompressed, _chunkCompressed, Column.IsList ? null : _nullCount, min, max);
        return (_chunk.WrittenMemory, info);
    }

    /// <summary>Forgets the chunk after it was written out; large buffers go back to the shared pool for the next row group.</summary>
    public void ResetChunk()
    {
        const int Keep = 256 * 1024;
        _chunk.ClearAndTrim(Keep);
        _values.ClearAndTrim(Keep);
        _defs.ClearAndTrim(Keep);
        _reps.ClearAndTrim(Keep);
        _pageLevels = 0;
        _pageBoolBits = 0;
        _chunkValues = 0;
        _chunkUncompressed = 0;
        _chunkCompressed = 0;
        _nullCount = 0;
        _statsSet = false;
        _min = 0;
        _max = 0;
    }

    private void ListLevels(int count)
    {
        if (count == 0)
        {
            _reps.WriteByte(0);
            _defs.WriteByte((byte)(MaxDef - 1));
            _pageLevels++;
            return;
        }

        for (int i = 0; i < count; i++)
        {
            _reps.WriteByte(i == 0 ? (byte)0 : (byte)1);
            _defs.WriteByte((byte)MaxDef);
        }

        _pageLevels = checked(_pageLevels + count);
    }

    private void WriteByteArray(ReadOnlySpan<byte> value)
    {
        _values.WriteInt32(value.Length);
        _values.Write(value);
    }

    private void WriteUtf8(ReadOnlySpan<char> value)
    {
        // Lone surrogates become U+FFFD, so the bytes are always valid UTF-8.
        int max = Encoding.UTF8.GetMaxByteCount(value.Length);
        Span<byte> dest = _values.GetSpan(checked(4 + max));
        int n = Encoding.UTF8.GetBytes(value, dest[4..]);
        BinaryPrimitives.WriteInt32LittleEndian(dest, n);
        _values.Advance(4 + n);
    }

    private void Track(long value)
    {
        if (!_statsSet)
        {
            _min = _max = value;
            _statsSet = true;
            return;
        }

        if (_unsignedStats)
        {
            if (unchecked((ulong)value < (ulong)_min))
            {
                _min = value;
            }

            if (unchecked((ulong)value > (ulong)_max))
            {
                _max = value;
            }
        }
        else
        {
            _min = Math.Min(_min, value);
            _max = Math.Max(_max, value);
        }
    }

    private byte[] EncodeStat(long value)
    {
        if (Physical == ParquetPhysicalType.Int32)
        {
            byte[] b4 = new byte[4];
            BinaryPrimitives.WriteInt32LittleEndian(b4, unchecked((int)value));
            return b4;
        }

        byte[] b8 = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(b8, value);
        return b8;
    }

    private void FlushPage(ParquetCompression compression, PageScratch scratch)
    {
        if (_pageLevels == 0)
        {
            return;
        }

        ByteBuffer body = scratch.Body;
        body.Clear();
        if (MaxRep > 0)
        {
            LevelEncoder.WriteWithLength(_reps.WrittenSpan, LevelEncoder.BitWidth(MaxRep), body);
        }

        if (MaxDef > 0)
        {
            LevelEncoder.WriteWithLength(_defs.WrittenSpan, LevelEncoder.BitWidth(MaxDef), body);
        }

        body.Write(_values.WrittenSpan);
        ReadOnlySpan<byte> stored = body.WrittenSpan;
        if (compression == ParquetCompression.Gzip)
        {
            stored = scratch.Gzip(body.WrittenSpan);
        }

        int headerStart = _chunk.Length;
        var t = new ThriftCompactWriter(_chunk);
        t.BeginStruct();
        t.I32Field(1, 0); // DATA_PAGE
        t.I32Field(2, body.Length);
        t.I32Field(3, stored.Length);
        t.BeginStructField(5);
        t.I32Field(1, _pageLevels);
        t.I32Field(2, 0); // PLAIN
        t.I32Field(3, 3); // RLE
        t.I32Field(4, 3); // RLE
        t.EndStruct();
        t.EndStruct();
        int headerLength = _chunk.Length - headerStart;
        _chunk.Write(stored);

        _chunkValues += _pageLevels;
        _chunkUncompressed += headerLength + body.Length;
        _chunkCompressed += headerLength + stored.Length;
        _values.Clear();
        _defs.Clear();
        _reps.Clear();
        _pageLevels = 0;
        _pageBoolBits = 0;
    }
}

/// <summary>Scratch buffers shared by the columns of one writer while a page is encoded.</summary>
internal sealed class PageScratch : IDisposable
{
    private readonly MemoryStream _compressed = new();

    public ByteBuffer Body { get; } = new(64 * 1024);

    public void Dispose() => _compressed.Dispose();

    /// <summary>Gzip-compresses <paramref name="data"/>; the header's OS byte is set to 255 (unknown) so bytes do not depend on the OS.</summary>
    public ReadOnlySpan<byte> Gzip(ReadOnlySpan<byte> data)
    {
        _compressed.SetLength(0);
        using (var gz = new GZipStream(_compressed, CompressionLevel.Fastest, leaveOpen: true))
        {
            gz.Write(data);
        }

        byte[] buffer = _compressed.GetBuffer();
        int length = (int)_compressed.Length;
        if (length >= 10)
        {
            buffer[9] = 0xFF;
        }

        if (_compressed.Capacity > 8 * 1024 * 1024)
        {
            // Keep the copy, then let an outsized buffer go.
            byte[] copy = buffer.AsSpan(0, length).ToArray();
            _compressed.SetLength(0);
            _compressed.Capacity = 0;
            return copy;
        }

        return buffer.AsSpan(0, length);
    }
}

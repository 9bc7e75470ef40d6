using System.Buffers;
using System.Buffers.Binary;

namespace XeAnalyzer.Export.Parquet;

/// <summary>
/// A growable byte array. Arrays beyond the initial one are rented from <see cref="ArrayPool{T}.Shared"/> and returned when
/// the buffer grows or is trimmed, so row groups of one table (or of several tables) reuse the same large arrays instead of
/// allocating new ones on the large-object heap.
/// </summary>
internal sealed class ByteBuffer
{
    private byte[] _data;
    private bool _rented;
    private int _length;

    public ByteBuffer(int capacity = 256)
    {
        _data = new byte[Math.Max(16, capacity)];
    }

    public int Length => _length;

    public ReadOnlySpan<byte> WrittenSpan => _data.AsSpan(0, _length);

    public ReadOnlyMemory<byte> WrittenMemory => _data.AsMemory(0, _length);

    public int Capacity => _data.Length;

    public void Clear() => _length = 0;

    /// <summary>Empties the buffer and returns its array to the pool if it grew beyond <paramref name="maxCapacity"/>.</summary>
    public void ClearAndTrim(int maxCapacity)
    {
        _length = 0;
        if (_data.Length > maxCapacity)
        {
            byte[] old = _data;
            bool rented = _rented;
            _data = new byte[Math.Max(16, Math.Min(maxCapacity, 4096))];
            _rented = false;
            if (rented)
            {
                ArrayPool<byte>.Shared.Return(old);
            }
        }
    }

    public Span<byte> GetSpan(int size)
    {
        Ensure(size);
        return _data.AsSpan(_length, size);
    }

    public void Advance(int count) => _length = checked(_length + count);

    public void WriteByte(byte value)
    {
        Ensure(1);
        _data[_length++] = value;
    }

    public void Write(ReadOnlySpan<byte> value)
    {
        Ensure(value.Length);
        value.CopyTo(_data.AsSpan(_length));
        _length += value.Length;
    }

    public void WriteInt32(int value)
    {
        BinaryPrimitives.WriteInt32LittleEndian(GetSpan(4), value);
        _length += 4;
    }

    public void WriteInt64(long value)
    {
        BinaryPrimitives.WriteInt64LittleEndian(GetSpan(8), value);
        _length += 8;
    }

    /// <summary>Sets bit <paramref name="bitIndex"/> (counted from the start of the buffer, LSB first) and grows the buffer to cover it.</summary>
    public void AppendBit(long bitIndex, bool value)
    {
        int byteIndex = checked((int)(bitIndex >> 3));
        if (byteIndex >= _length)
        {
            WriteByte(0);
        }

        if (value)
        {
            _data[byteIndex] |= (byte)(1 << (int)(bitIndex & 7));
        }
    }

    public byte this[int index] => _data[index];

    /// <summary>Overwrites bytes already written (a length prefix patched after the data).</summary>
    public void Overwrite(int at, ReadOnlySpan<byte> value)
    {
        if (at < 0 || at + value.Length > _length)
        {
            throw new ArgumentOutOfRangeException(nameof(at));
        }

        value.CopyTo(_data.AsSpan(at));
    }

    private void Ensure(int extra)
    {
        int needed = checked(_length + extra);
        if (needed <= _data.Length)
        {
            return;
        }

        int size = (int)Math.Min(Array.MaxLength, Math.Max((long)_data.Length * 2, needed));
        if (size < needed)
        {
            throw new InvalidOperationException("A Parquet column chunk exceeds 2 GB; lower the row-group size.");
        }

        byte[] grown = ArrayPool<byte>.Shared.Rent(size);
        _data.AsSpan(0, _length).CopyTo(grown);
        if (_rented)
        {
            ArrayPool<byte>.Shared.Return(_data);
        }

        _data = grown;
        _rented = true;
    }
}

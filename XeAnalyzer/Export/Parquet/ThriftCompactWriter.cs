namespace XeAnalyzer.Export.Parquet;

/// <summary>
/// The subset of the Thrift compact protocol that Parquet metadata needs (structs, unions, lists, i8/i16/i32/i64, bool,
/// binary). Field headers use the short delta form when the field id grows by 1..15, else the long form.
/// </summary>
internal sealed class ThriftCompactWriter
{
    public const byte TypeBoolTrue = 1;
    public const byte TypeBoolFalse = 2;
    public const byte TypeI8 = 3;
    public const byte TypeI16 = 4;
    public const byte TypeI32 = 5;
    public const byte TypeI64 = 6;
    public const byte TypeBinary = 8;
    public const byte TypeList = 9;
    public const byte TypeStruct = 12;

    private readonly ByteBuffer _out;
    private readonly Stack<short> _lastFieldIds = new();
    private short _lastFieldId;

    public ThriftCompactWriter(ByteBuffer output)
    {
        _out = output;
    }

    /// <summary>Starts a struct that is an element of a list (or the top-level struct): no field header.</summary>
    public void BeginStruct()
    {
        _lastFieldIds.Push(_lastFieldId);
        _lastFieldId = 0;
    }

    /// <summary>Starts a struct-valued field.</summary>
    public void BeginStructField(short id)
    {
        FieldHeader(id, TypeStruct);
        BeginStruct();
    }

    /// <summary>Ends the current struct with the stop byte.</summary>
    public void EndStruct()
    {
        _out.WriteByte(0);
        _lastFieldId = _lastFieldIds.Pop();
    }

    /// <summary>An empty struct-valued field (the members of unions such as <c>LogicalType.STRING</c>).</summary>
    public void EmptyStructField(short id)
    {
        BeginStructField(id);
        EndStruct();
    }

    public void BoolField(short id, bool value) => FieldHeader(id, value ? TypeBoolTrue : TypeBoolFalse);

    public void I8Field(short id, sbyte value)
    {
        FieldHeader(id, TypeI8);
        _out.WriteByte(unchecked((byte)value));
    }

    public void FieldI16(short id, short value)
    {
        FieldHeader(id, TypeI16);
        WriteI32(value);
    }

    public void I32Field(short id, int value)
    {
        FieldHeader(id, TypeI32);
        WriteI32(value);
    }

    public void I64Field(short id, long value)
    {
        FieldHeader(id, TypeI64);
        WriteI64(value);
    }

    public void BinaryField(short id, ReadOnlySpan<byte> value)
    {
        FieldHeader(id, TypeBinary);
        WriteBinary(value);
    }

    public void StringField(short id, string value)
    {
        FieldHeader(id, TypeBinary);
        WriteString(value);
    }

    /// <summary>Starts a list-valued field; write <paramref name="count"/> elements of <paramref name="elementType"/> next.</summary>
    public void ListField(short id, byte elementType, int count)
    {
        FieldHeader(id, TypeList);
        ListHeader(elementType, count);
    }

    public void WriteI32(int value) => WriteVarint(unchecked((uint)((value << 1) ^ (value >> 31))));

    public void WriteI64(long value) => WriteVarint(unchecked((ulong)((value << 1) ^ (value >> 63))));

    public void WriteBinary(ReadOnlySpan<byte> value)
    {
        WriteVarint((uint)value.Length);
        _out.Write(value);
    }

    public void WriteString(string value)
    {
        int n = System.Text.Encoding.UTF8.GetByteCount(value);
        WriteVarint((uint)n);
        System.Text.Encoding.UTF8.GetBytes(value, _out.GetSpan(n));
        _out.Advance(n);
    }

    private void ListHeader(byte elementType, int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if (count < 15)
        {
            _out.WriteByte((byte)((count << 4) | elementType));
        }
        else
        {
            _out.WriteByte((byte)(0xF0 | elementType));
            WriteVarint((uint)count);
        }
    }

    private void FieldHeader(short id, byte type)
    {
        int delta = id - _lastFieldId;
        if (delta is > 0 and <= 15)
        {
            _out.WriteByte((byte)((delta << 4) | type));
        }
        else
        {
            _out.WriteByte(type);
            WriteI32(id);
        }

        _lastFieldId = id;
    }

    private void WriteVarint(ulong value)
    {
        while (value >= 0x80)
        {
            _out.WriteByte(unchecked((byte)(value | 0x80)));
            value >>= 7;
        }

        _out.WriteByte((byte)value);
    }
}

using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace XeAnalyzer.Events;

/// <summary>
/// One field or action value of an event. A small non-boxing struct that refers to the bytes of the buffer it was read
/// from (or holds a value built in code) and to its <see cref="XeColumn"/>, so it knows its base type and whether it is
/// a map key. Values decode on access; numeric reads and callstack frame reads do not allocate.
/// </summary>
/// <remarks>
/// <para>Rendering (<see cref="ToString"/> / <see cref="ToObject"/>) follows XELite (XEL-FORMAT.md §11.4): a map value
/// renders as its text (bitmask maps: the names of the set bits joined with <c>", "</c>); integers as their CLR integer
/// type; pointers as
/// <c>0x%016X</c>; a callstack as <c>0x%016X</c> frames, leaf first, separated by <c>"\n"</c>; an activity id as
/// <c>{guid}:{sequence}</c>; a filetime as a UTC <see cref="DateTimeOffset"/> (rendered in the round-trip <c>"o"</c>
/// format); binary data as upper-case hex; floating point in round-trip form. All text is culture-invariant.</para>
/// <para>A default <see cref="XeValue"/> has no column: <see cref="HasValue"/> is <see langword="false"/>.</para>
/// </remarks>
public readonly partial struct XeValue : IEquatable<XeValue>
{
    // byte[] (raw bytes), string (text built in code), ulong[] (callstack built in code); null = inline bits
    private readonly object? _obj;
    private readonly ulong _bits;
    private readonly int _offset;
    private readonly int _length;
    private readonly XeColumn? _column;

    internal XeValue(XeColumn column, byte[] data, int offset, int length)
    {
        _column = column;
        _obj = data;
        _offset = offset;
        _length = length;
        _bits = 0;
    }

    private XeValue(XeColumn column, ulong bits, int length)
    {
        _column = column;
        _obj = null;
        _bits = bits;
        _length = length;
        _offset = 0;
    }

    private XeValue(XeColumn column, object obj, int length)
    {
        _column = column;
        _obj = obj;
        _length = length;
        _offset = 0;
        _bits = 0;
    }

    /// <summary>The column (field or action) this value belongs to, or <see langword="null"/> for a default
    /// value.</summary>
    public XeColumn? Column => _column;

    /// <summary>Whether this is a real value (not <c>default</c>).</summary>
    public bool HasValue => _column is not null;

    /// <summary>The stored base type (for a map value: the unsigned integer type of the key).</summary>
    public XeBaseType BaseType => _column?.BaseType ?? XeBaseType.None;

    /// <summary>Whether the value is a map key.</summary>
    public bool IsMap => _column?.Map is not null;

    /// <summary>The map of a map value, else <see langword="null"/>.</summary>
    public XeMap? Map => _column?.Map;

    /// <summary>Size of the stored bytes.</summary>
    public int Length =>
        _obj switch
        {
            string s => EncodedTextLength(s),
            ulong[] frames => frames.Length * PointerSize,
            _ => _length,
        };

    private int PointerSize => _column?.PointerSize ?? 8;

    /// <summary>The map key of a map value (the stored unsigned integer).</summary>
    /// <exception cref="InvalidOperationException">The value is not numeric.</exception>
    public ulong MapKey => RawUnsigned();

    /// <summary>The text of a map value (see <see cref="XeMap.GetText"/>); for a non-map value,
    /// <see cref="ToString"/>.</summary>
    public string MapText => _column?.Map is XeMap m ? m.GetText(RawUnsigned()) : ToString();

    /// <summary>The value as an unsigned integer: integers (signed ones reinterpreted), booleans, pointers, filetimes,
    /// map keys.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is not numeric.</exception>
    public ulong AsUInt64()
    {
        XeBaseType bt = BaseType;
        if (XeBaseTypes.IsSigned(bt))
        {
            return unchecked((ulong)AsInt64());
        }

        if (bt is XeBaseType.Float32 or XeBaseType.Float64)
        {
            return unchecked((ulong)AsDouble());
        }

        return RawUnsigned();
    }

    /// <summary>The value as a signed integer: signed types are sign-extended, unsigned ones reinterpreted.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is not numeric.</exception>
    public long AsInt64()
    {
        XeBaseType bt = BaseType;
        if (bt is XeBaseType.Float32 or XeBaseType.Float64)
        {
            return unchecked((long)AsDouble());
        }

        ulong raw = RawUnsigned();
        if (!XeBaseTypes.IsSigned(bt) || IsMap)
        {
            return unchecked((long)raw);
        }

        return _length switch
        {
            1 => unchecked((sbyte)raw),
            2 => unchecked((short)raw),
            4 => unchecked((int)raw),
            _ => unchecked((long)raw),
        };
    }

    /// <summary>The value as a double: floating point as stored, integers converted.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is not numeric.</exception>
    public double AsDouble()
    {
        XeBaseType bt = BaseType;
        if (bt == XeBaseType.Float32 && !IsMap)
        {
            return BitConverter.Int32BitsToSingle(unchecked((int)RawUnsigned()));
        }

        if (bt == XeBaseType.Float64 && !IsMap)
        {
            return BitConverter.Int64BitsToDouble(unchecked((long)RawUnsigned()));
        }

        return XeBaseTypes.IsSigned(bt) && !IsMap ? AsInt64() : RawUnsigned();
    }

    /// <summary>The value as a boolean (non-zero is true).</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is not numeric.</exception>
    public bool AsBoolean() => RawUnsigned() != 0;

    /// <summary>
    /// The value as text: strings and XML decoded (UTF-16LE; ANSI strings as Latin-1), exactly as stored (no terminator
    /// is trimmed); any other value rendered as <see cref="ToString"/>.
    /// </summary>
    /// <returns>The text.</returns>
    public string AsString()
    {
        if (_obj is string s)
        {
            return s;
        }

        if (_obj is byte[] b && !IsMap && XeBaseTypes.IsText(BaseType))
        {
            ReadOnlySpan<byte> span = b.AsSpan(_offset, _length);
            return BaseType == XeBaseType.AnsiString ? Encoding.Latin1.GetString(span) : DecodeUtf16(span);
        }

        return ToString();
    }

    /// <summary>The value as a GUID: a <c>guid</c> value, or the GUID part of an activity id.</summary>
    /// <returns>The GUID.</returns>
    /// <exception cref="InvalidOperationException">The value holds fewer than 16 bytes.</exception>
    public Guid AsGuid()
    {
        if (_obj is byte[] b && _length >= 16)
        {
            return new Guid(b.AsSpan(_offset, 16));
        }

        throw new InvalidOperationException("The value of '" + ColumnName + "' is not a GUID.");
    }

    /// <summary>The sequence number of an activity id (the 32-bit value after the GUID).</summary>
    /// <returns>The sequence.</returns>
    /// <exception cref="InvalidOperationException">The value is not an activity id.</exception>
    public uint ActivitySequence()
    {
        if (_obj is byte[] b && _length >= 20)
        {
            return BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(_offset + 16, 4));
        }

        throw new InvalidOperationException("The value of '" + ColumnName + "' is not an activity id.");
    }

    /// <summary>The stored bytes. Zero-copy for values read from a file; built values are encoded into a new
    /// array.</summary>
    /// <returns>The bytes, little-endian as in the file.</returns>
    public ReadOnlySpan<byte> AsSpan()
    {
        if (_obj is byte[] b)
        {
            return b.AsSpan(_offset, _length);
        }

        byte[] copy = new byte[Length];
        CopyRawTo(copy);
        return copy;
    }

    /// <summary>A copy of the stored bytes.</summary>
    /// <returns>A new array.</returns>
    public byte[] AsBytes() => AsSpan().ToArray();

    /// <summary>The value as a UTC time, for a <c>filetime</c> value.</summary>
    /// <returns>The time.</returns>
    /// <exception cref="InvalidOperationException">The stored value is not a valid FILETIME.</exception>
    public DateTime AsDateTime()
    {
        ulong ft = RawUnsigned();
        if (ft > MaxFileTime)
        {
            throw new InvalidOperationException("The value of '" + ColumnName + "' is not a valid FILETIME.");
        }

        return DateTime.FromFileTimeUtc((long)ft);
    }

    /// <summary>Number of frames of a callstack value (stored length divided by the pointer size).</summary>
    public int CallstackFrameCount =>
        _obj is not byte[] && _obj is ulong[] frames ? frames.Length : _length / PointerSize;

    /// <summary>Reads one callstack frame (a raw return address) without allocating.</summary>
    /// <param name="index">Frame index; 0 is the leaf (innermost) frame.</param>
    /// <returns>The address.</returns>
    public ulong GetCallstackFrame(int index)
    {
        if (_obj is ulong[] frames)
        {
            return frames[index];
        }

        if (_obj is not byte[] b)
        {
            throw new InvalidOperationException("The value of '" + ColumnName + "' is not a callstack.");
        }

        int ps = PointerSize;
        if ((uint)index >= (uint)(_length / ps))
        {
            throw new ArgumentOutOfRangeException(nameof(index));
        }

        int at = _offset + (index * ps);
        return ps == 4
            ? BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(at, 4))
            : BinaryPrimitives.ReadUInt64LittleEndian(b.AsSpan(at, 8));
    }

    /// <summary>Copies the callstack frames into <paramref name="destination"/> without allocating.</summary>
    /// <param name="destination">Receives up to its length frames, leaf first.</param>
    /// <returns>The number of frames copied.</returns>
    public int CopyCallstackTo(Span<ulong> destination)
    {
        int n = Math.Min(destination.Length, CallstackFrameCount);
        if (_obj is not byte[] b)
        {
            if (_obj is ulong[] frames)
            {
                frames.AsSpan(0, n).CopyTo(destination);
                return n;
            }

            throw new InvalidOperationException("The value of '" + ColumnName + "' is not a callstack.");
        }

        int ps = PointerSize;
        ReadOnlySpan<byte> src = b.AsSpan(_offset, n * ps);
        if (ps == 8)
        {
            if (BitConverter.IsLittleEndian)
            {
                System.Runtime.InteropServices.MemoryMarshal.Cast<byte, ulong>(src).CopyTo(destination);
            }
            else
            {
                for (int i = 0; i < n; i++)
                {
                    destination[i] = BinaryPrimitives.ReadUInt64LittleEndian(src.Slice(i * 8, 8));
                }
            }
        }
        else
        {
            for (int i = 0; i < n; i++)
            {
                destination[i] = BinaryPrimitives.ReadUInt32LittleEndian(src.Slice(i * 4, 4));
            }
        }

        return n;
    }

    /// <summary>The callstack frames (raw return addresses, leaf first) in a new array.</summary>
    /// <returns>The frames.</returns>
    public ulong[] AsCallstack()
    {
        ulong[] result = new ulong[CallstackFrameCount];
        CopyCallstackTo(result);
        return result;
    }

    /// <summary>
    /// The value as the CLR object XELite returns for it (see the type remarks): map text, integers of their own CLR
    /// type,
    /// <see cref="bool"/>, <see cref="float"/>/<see cref="double"/>, <see cref="DateTimeOffset"/> for filetimes,
    /// strings,
    /// <see cref="Guid"/>, <see cref="byte"/>[] for binary data, and strings for pointers, callstacks and activity ids.
    /// </summary>
    /// <returns>The object, or <see langword="null"/> for a default value.</returns>
    public object? ToObject()
    {
        if (_column is null)
        {
            return null;
        }

        if (_column.Map is XeMap map)
        {
            return map.GetText(RawUnsigned());
        }

        switch (BaseType)
        {
            case XeBaseType.Int8:
                return unchecked((sbyte)AsInt64());
            case XeBaseType.Int16:
                return unchecked((short)AsInt64());
            case XeBaseType.Int32:
                return unchecked((int)AsInt64());
            case XeBaseType.Int64:
                return AsInt64();
            case XeBaseType.UInt8:
                return unchecked((byte)RawUnsigned());
            case XeBaseType.UInt16:
                return unchecked((ushort)RawUnsigned());
            case XeBaseType.UInt32:
                return unchecked((uint)RawUnsigned());
            case XeBaseType.UInt64:
            case XeBaseType.CpuCycle:
                return RawUnsigned();
            case XeBaseType.Float32:
                return (float)AsDouble();
            case XeBaseType.Float64:
                return AsDouble();
            case XeBaseType.Boolean:
                return RawUnsigned() != 0;
            case XeBaseType.FileTime:
                ulong ft = RawUnsigned();
                return ft <= MaxFileTime ? new DateTimeOffset(DateTime.FromFileTimeUtc((long)ft)) : ft;
            case XeBaseType.Pointer:
            case XeBaseType.GuidPointer:
                return FormatPointer(RawUnsigned());
            case XeBaseType.AnsiString:
            case XeBaseType.UnicodeString:
            case XeBaseType.Xml:
                return AsString();
            case XeBaseType.Guid:
                return Length >= 16 ? AsGuid() : AsBytes();
            case XeBaseType.BinaryData:
                return AsBytes();
            case XeBaseType.Callstack:
                return FormatCallstack();
            case XeBaseType.ActivityId:
            case XeBaseType.ActivityIdTransfer:
                return Length >= 20 ? FormatActivityId() : AsBytes();
            default:
                return _length is > 0 and <= 8 && !_column.IsVariableLength ? RawUnsigned() : AsBytes();
        }
    }

    /// <summary>The value rendered as text the way XELite renders it (see the type remarks);
    /// culture-invariant.</summary>
    /// <returns>The text; empty for a default value.</returns>
    public override string ToString()
    {
        object? o = ToObject();
        return o switch
        {
            null => string.Empty,
            string s => s,
            float f => f.ToString("R", CultureInfo.InvariantCulture),
            double d => d.ToString("R", CultureInfo.InvariantCulture),
            bool b => b ? "True" : "False",
            DateTimeOffset dto => dto.ToString("o", CultureInfo.InvariantCulture),
            byte[] bytes => Convert.ToHexString(bytes),
            Guid g => g.ToString("D", CultureInfo.InvariantCulture),
            IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
            _ => o.ToString() ?? string.Empty,
        };
    }

    /// <summary>Values are equal when they have the same base type, the same map-ness and the same stored
    /// bytes.</summary>
    /// <param name="other">The other value.</param>
    /// <returns>Whether they are equal.</returns>
    public bool Equals(XeValue other)
    {
        if (BaseType != other.BaseType || IsMap != other.IsMap || HasValue != other.HasValue)
        {
            return false;
        }

        return AsSpan().SequenceEqual(other.AsSpan());
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is XeValue v && Equals(v);

    /// <inheritdoc/>
    public override int GetHashCode()
    {
        var h = new HashCode();
        h.Add(BaseType);
        h.AddBytes(AsSpan());
        return h.ToHashCode();
    }

    /// <summary>Equality operator; see <see cref="Equals(XeValue)"/>.</summary>
    /// <param name="left">Left value.</param>
    /// <param name="right">Right value.</param>
    /// <returns>Whether they are equal.</returns>
    public static bool operator ==(XeValue left, XeValue right) => left.Equals(right);

    /// <summary>Inequality operator; see <see cref="Equals(XeValue)"/>.</summary>
    /// <param name="left">Left value.</param>
    /// <param name="right">Right value.</param>
    /// <returns>Whether they differ.</returns>
    public static bool operator !=(XeValue left, XeValue right) => !left.Equals(right);

    // ---------------------------------------------------------------- helpers

    internal const ulong MaxFileTime = 2650467743999999999UL; // DateTime.MaxValue as a FILETIME

    private string ColumnName => _column?.Name ?? "<default>";

    private int EncodedTextLength(string s) => BaseType == XeBaseType.AnsiString ? s.Length : s.Length * 2;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ulong RawUnsigned()
    {
        // The common case (an integer of 1, 2, 4 or 8 bytes read from a file) inline; everything else in
        // RawUnsignedSlow.
        if (_obj is byte[] b)
        {
            ReadOnlySpan<byte> s = b.AsSpan(_offset, _length);
            if (s.Length == 8)
            {
                return BinaryPrimitives.ReadUInt64LittleEndian(s);
            }

            if (s.Length == 4)
            {
                return BinaryPrimitives.ReadUInt32LittleEndian(s);
            }

            if (s.Length == 2)
            {
                return BinaryPrimitives.ReadUInt16LittleEndian(s);
            }

            if (s.Length == 1)
            {
                return s[0];
            }
        }

        return RawUnsignedSlow();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ulong RawUnsignedSlow()
    {
        if (_obj is null)
        {
            if (_column is null)
            {
                throw new InvalidOperationException("The value is empty.");
            }

            return _bits;
        }

        if (_obj is byte[] b)
        {
            ReadOnlySpan<byte> s = b.AsSpan(_offset, _length);
            switch (s.Length)
            {
                case 8:
                    return BinaryPrimitives.ReadUInt64LittleEndian(s);
                case 4:
                    return BinaryPrimitives.ReadUInt32LittleEndian(s);
                case 2:
                    return BinaryPrimitives.ReadUInt16LittleEndian(s);
                case 1:
                    return s[0];
                case 0:
                    break;
                default:
                    if (s.Length < 8 && !XeBaseTypes.IsText(BaseType))
                    {
                        ulong v = 0;
                        for (int i = s.Length - 1; i >= 0; i--)
                        {
                            v = (v << 8) | s[i];
                        }

                        return v;
                    }

                    break;
            }
        }

        throw new InvalidOperationException(
            "The value of '" + ColumnName + "' (" + BaseType.ToString() + ") is not numeric."
        );
    }

    private static int FixedNumericSize(XeColumn column)
    {
        ArgumentNullException.ThrowIfNull(column);
        int size = column.Size;
        if (
            size is not (1 or 2 or 4 or 8)
            || (
                !column.IsMap
                && (
                    XeBaseTypes.IsText(column.BaseType)
                    || column.BaseType is XeBaseType.Callstack or XeBaseType.BinaryData or XeBaseType.Guid
                )
            )
        )
        {
            throw new ArgumentException(
                "Column '" + column.Name + "' does not hold a 1, 2, 4 or 8-byte number.",
                nameof(column)
            );
        }

        return size;
    }

    private static string DecodeUtf16(ReadOnlySpan<byte> span) => Encoding.Unicode.GetString(span);

    private static string FormatPointer(ulong p) => "0x" + p.ToString("X16", CultureInfo.InvariantCulture);

    private string FormatCallstack()
    {
        int n = CallstackFrameCount;
        if (n == 0)
        {
            return string.Empty;
        }

        var sb = new StringBuilder(n * 19);
        for (int i = 0; i < n; i++)
        {
            if (i > 0)
            {
                sb.Append('\n');
            }

            sb.Append("0x").Append(GetCallstackFrame(i).ToString("X16", CultureInfo.InvariantCulture));
        }

        return sb.ToString();
    }

    private string FormatActivityId() =>
        AsGuid().ToString("D", CultureInfo.InvariantCulture)
        + ":"
        + ActivitySequence().ToString(CultureInfo.InvariantCulture);
}

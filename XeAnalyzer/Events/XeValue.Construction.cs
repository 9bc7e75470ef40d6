using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace XeAnalyzer.Events;

/// <content>Building values in code (for the writer and tests), and moving stored bytes between columns.</content>
readonly partial struct XeValue
{
    /// <summary>
    /// Builds an unsigned integer value (also a map key, boolean, pointer, filetime or cpu_cycle) for a fixed-size
    /// column.
    /// </summary>
    /// <param name="column">The column.</param>
    /// <param name="value">The value; must fit the column's size.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, ulong value)
    {
        int size = FixedNumericSize(column);
        if (size < 8 && (value >> (size * 8)) != 0)
        {
            string bytes = size.ToString(CultureInfo.InvariantCulture);
            throw new ArgumentOutOfRangeException(
                nameof(value),
                value,
                "The value does not fit the " + bytes + "-byte column '" + column.Name + "'."
            );
        }

        return new XeValue(column, value, size);
    }

    /// <summary>Builds a signed integer value for a fixed-size integer column.</summary>
    /// <param name="column">The column.</param>
    /// <param name="value">The value; must fit the column's size.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, long value)
    {
        int size = FixedNumericSize(column);
        if (size < 8)
        {
            long min = -(1L << ((size * 8) - 1));
            long max = (1L << (size * 8)) - 1;
            if (value < min || value > max)
            {
                throw new ArgumentOutOfRangeException(
                    nameof(value),
                    value,
                    "The value does not fit the column '" + column.Name + "'."
                );
            }

            return new XeValue(column, unchecked((ulong)value) & ((1UL << (size * 8)) - 1), size);
        }

        return new XeValue(column, unchecked((ulong)value), size);
    }

    /// <summary>Builds a floating-point value for a <c>float32</c> or <c>float64</c> column.</summary>
    /// <param name="column">The column.</param>
    /// <param name="value">The value.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, double value)
    {
        ArgumentNullException.ThrowIfNull(column);
        return column.BaseType switch
        {
            XeBaseType.Float32 when !column.IsMap => new XeValue(
                column,
                unchecked((uint)BitConverter.SingleToInt32Bits((float)value)),
                4
            ),
            XeBaseType.Float64 when !column.IsMap => new XeValue(
                column,
                unchecked((ulong)BitConverter.DoubleToInt64Bits(value)),
                8
            ),
            _ => throw new ArgumentException(
                "Column '" + column.Name + "' is not a floating-point column.",
                nameof(column)
            ),
        };
    }

    /// <summary>Builds a boolean value.</summary>
    /// <param name="column">The column.</param>
    /// <param name="value">The value.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, bool value) => Create(column, value ? 1UL : 0UL);

    /// <summary>Builds a filetime value from a UTC time.</summary>
    /// <param name="column">The column (a <c>filetime</c> column).</param>
    /// <param name="utc">The time.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, DateTime utc) => Create(column, (ulong)utc.ToFileTimeUtc());

    /// <summary>Builds a text value for an ANSI string, Unicode string or XML column.</summary>
    /// <param name="column">The column.</param>
    /// <param name="value">The text.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, string value)
    {
        ArgumentNullException.ThrowIfNull(column);
        ArgumentNullException.ThrowIfNull(value);
        if (!XeBaseTypes.IsText(column.BaseType) || column.IsMap)
        {
            throw new ArgumentException("Column '" + column.Name + "' is not a text column.", nameof(column));
        }

        return new XeValue(column, value, 0);
    }

    /// <summary>Builds a GUID value.</summary>
    /// <param name="column">The column (a <c>guid</c> column).</param>
    /// <param name="value">The GUID.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, Guid value)
    {
        ArgumentNullException.ThrowIfNull(column);
        byte[] b = value.ToByteArray();
        return CreateRaw(column, b);
    }

    /// <summary>Builds an activity id value (GUID followed by a sequence number).</summary>
    /// <param name="column">The column (an <c>activity_id</c> or <c>activity_id_xfer</c> column).</param>
    /// <param name="activity">The GUID.</param>
    /// <param name="sequence">The sequence number.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, Guid activity, uint sequence)
    {
        ArgumentNullException.ThrowIfNull(column);
        byte[] b = new byte[20];
        activity.TryWriteBytes(b);
        BinaryPrimitives.WriteUInt32LittleEndian(b.AsSpan(16), sequence);
        return CreateRaw(column, b);
    }

    /// <summary>
    /// Builds a callstack value from raw return addresses, leaf first. The array is kept, not copied: do not change it
    /// afterwards.
    /// </summary>
    /// <param name="column">The column (a <c>callstack</c> column).</param>
    /// <param name="frames">The addresses.</param>
    /// <returns>The value.</returns>
    public static XeValue Create(XeColumn column, ulong[] frames)
    {
        ArgumentNullException.ThrowIfNull(column);
        ArgumentNullException.ThrowIfNull(frames);
        if (column.BaseType != XeBaseType.Callstack)
        {
            throw new ArgumentException("Column '" + column.Name + "' is not a callstack column.", nameof(column));
        }

        if (column.PointerSize == 4 && Array.Exists(frames, f => f > uint.MaxValue))
        {
            throw new ArgumentOutOfRangeException(nameof(frames), "A frame does not fit the 4-byte pointer size.");
        }

        return new XeValue(column, frames, 0);
    }

    /// <summary>
    /// Builds a value from its stored bytes (little-endian, as in a <c>.xel</c> payload). The bytes are copied.
    /// </summary>
    /// <param name="column">The column.</param>
    /// <param name="raw">The stored bytes; for a fixed-size column exactly <see cref="XeColumn.Size"/> bytes.</param>
    /// <returns>The value.</returns>
    public static XeValue CreateRaw(XeColumn column, ReadOnlySpan<byte> raw)
    {
        ArgumentNullException.ThrowIfNull(column);
        if (!column.IsVariableLength && raw.Length != column.Size)
        {
            IFormatProvider ic = CultureInfo.InvariantCulture;
            throw new ArgumentException(
                "Column '"
                    + column.Name
                    + "' stores "
                    + column.Size.ToString(ic)
                    + " bytes, got "
                    + raw.Length.ToString(ic)
                    + ".",
                nameof(raw)
            );
        }

        byte[] copy = raw.ToArray();
        return new XeValue(column, copy, 0, copy.Length);
    }

    /// <summary>
    /// The same stored bytes, attached to another (compatible) column: used to move values between schemas.
    /// </summary>
    internal XeValue WithColumn(XeColumn column)
    {
        if (_obj is null)
        {
            return new XeValue(column, _bits, _length);
        }

        return _obj is byte[] b ? new XeValue(column, b, _offset, _length) : new XeValue(column, _obj, _length);
    }

    /// <summary>
    /// Copies the stored bytes into <paramref name="destination"/> (at least <see cref="Length"/> long).
    /// </summary>
    internal void CopyRawTo(Span<byte> destination)
    {
        switch (_obj)
        {
            case null:
                Span<byte> tmp = stackalloc byte[8];
                BinaryPrimitives.WriteUInt64LittleEndian(tmp, _bits);
                tmp[.._length].CopyTo(destination);
                break;
            case byte[] b:
                b.AsSpan(_offset, _length).CopyTo(destination);
                break;
            case string s:
                if (BaseType == XeBaseType.AnsiString)
                {
                    Encoding.Latin1.GetBytes(s, destination);
                }
                else
                {
                    Encoding.Unicode.GetBytes(s, destination);
                }

                break;
            case ulong[] frames:
                int ps = PointerSize;
                for (int i = 0; i < frames.Length; i++)
                {
                    if (ps == 8)
                    {
                        BinaryPrimitives.WriteUInt64LittleEndian(destination.Slice(i * 8, 8), frames[i]);
                    }
                    else
                    {
                        uint frame = unchecked((uint)frames[i]);
                        BinaryPrimitives.WriteUInt32LittleEndian(destination.Slice(i * 4, 4), frame);
                    }
                }

                break;
        }
    }
}

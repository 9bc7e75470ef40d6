using System.Buffers.Binary;
using System.Globalization;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// Bounds-checked little-endian reader over bytes copied from one MSF stream (starting at stream offset <c>baseOffset</c>).
/// Running off the end throws <see cref="InvalidPdbDataException"/> located at the file offset of the failing stream byte.
/// </summary>
internal ref struct PdbRecordReader
{
    private readonly ReadOnlySpan<byte> _span;
    private readonly MsfStream _stream;
    private readonly long _baseOffset;
    private readonly string _description;
    private int _pos;

    public PdbRecordReader(ReadOnlySpan<byte> span, MsfStream stream, long baseOffset, string description)
    {
        _span = span;
        _stream = stream;
        _baseOffset = baseOffset;
        _description = description;
        _pos = 0;
    }

    public int Position
    {
        readonly get => _pos;
        set
        {
            if ((uint)value > (uint)_span.Length)
            {
                throw Error(_pos, string.Create(CultureInfo.InvariantCulture, $"a position within {_span.Length} bytes, found {value}"));
            }

            _pos = value;
        }
    }

    public readonly int Remaining => _span.Length - _pos;

    public readonly int Length => _span.Length;

    /// <summary>The stream offset of the current position.</summary>
    public readonly long StreamOffset => _baseOffset + _pos;

    public ReadOnlySpan<byte> Advance(int count, string what)
    {
        if (count < 0 || count > _span.Length - _pos)
        {
            throw Error(_pos, string.Create(CultureInfo.InvariantCulture, $"{count} bytes of {what}, but only {Math.Max(0, _span.Length - _pos)} remain"));
        }

        ReadOnlySpan<byte> s = _span.Slice(_pos, count);
        _pos += count;
        return s;
    }

    public void Skip(int count, string what) => Advance(count, what);

    public byte ReadByte(string what) => Advance(1, what)[0];

    public ushort ReadUInt16(string what) => BinaryPrimitives.ReadUInt16LittleEndian(Advance(2, what));

    public uint ReadUInt32(string what) => BinaryPrimitives.ReadUInt32LittleEndian(Advance(4, what));

    public int ReadInt32(string what) => BinaryPrimitives.ReadInt32LittleEndian(Advance(4, what));

    /// <summary>Reads a NUL-terminated string within the next <paramref name="limit"/> bytes and returns its bytes (without the NUL, which is consumed).</summary>
    public ReadOnlySpan<byte> ReadCString(int limit, string what)
    {
        ReadOnlySpan<byte> rest = _span.Slice(_pos, Math.Min(limit, _span.Length - _pos));
        int end = rest.IndexOf((byte)0);
        if (end < 0)
        {
            throw Error(_pos, $"a NUL-terminated {what}, but no terminator before the end of its record");
        }

        _pos += end + 1;
        return rest[..end];
    }

    public readonly InvalidPdbDataException Error(int position, string expected) =>
        _stream.Error(_baseOffset + position, _description, expected);
}

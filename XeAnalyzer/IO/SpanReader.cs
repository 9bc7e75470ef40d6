using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace XeAnalyzer.IO;

/// <summary>
/// The one bounds-checked little-endian reader over a span, for every binary format (<c>.xel</c> metadata, PDB records;
/// PE headers use <see cref="BinaryPrimitives"/> on checked slices). Every read goes through <see cref="Advance"/>;
/// running off the end throws the malformed-input exception of the reader's <see cref="FormatKind"/>, naming the file
/// and absolute offset, or, for bytes whose offsets are not file offsets (a PDB's MSF stream), the exception its
/// <see cref="ISpanOrigin"/> locates.
/// </summary>
internal ref struct SpanReader
{
    private readonly ReadOnlySpan<byte> _span;
    private readonly long _baseOffset;
    private readonly string? _file;
    private readonly FormatKind _kind;
    private readonly ISpanOrigin? _origin;
    private readonly string? _description;
    private int _pos;

    /// <summary>A reader over bytes of a file, the first at file offset <paramref name="baseOffset"/>.</summary>
    public SpanReader(ReadOnlySpan<byte> span, long baseOffset, string? file, FormatKind kind)
    {
        _span = span;
        _baseOffset = baseOffset;
        _file = file;
        _kind = kind;
        _pos = 0;
    }

    /// <summary>
    /// A reader over bytes copied from <paramref name="origin"/> (the first at its offset
    /// <paramref name="baseOffset"/>), whose errors <paramref name="origin"/> locates, naming the part
    /// <paramref name="description"/>.
    /// </summary>
    public SpanReader(ReadOnlySpan<byte> span, ISpanOrigin origin, long baseOffset, string description)
    {
        _span = span;
        _baseOffset = baseOffset;
        _origin = origin;
        _description = description;
        _pos = 0;
    }

    /// <summary>Position relative to the start of the span.</summary>
    public int Position
    {
        readonly get => _pos;
        set
        {
            if ((uint)value > (uint)_span.Length)
            {
                throw Error(
                    _pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a position within {_span.Length} bytes, found {value}"
                    )
                );
            }

            _pos = value;
        }
    }

    public readonly int Remaining => _span.Length - _pos;

    public readonly int Length => _span.Length;

    /// <summary>Absolute offset of the current position in the file (in the <see cref="ISpanOrigin"/>, for a reader
    /// over one).</summary>
    public readonly long FileOffset => _baseOffset + _pos;

    public ReadOnlySpan<byte> Advance(int count, string what)
    {
        if (count < 0 || count > _span.Length - _pos)
        {
            throw Error(
                _pos,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{count} bytes of {what}, but only {Math.Max(0, _span.Length - _pos)} remain"
                )
            );
        }

        ReadOnlySpan<byte> s = _span.Slice(_pos, count);
        _pos += count;
        return s;
    }

    public void Skip(int count, string what) => Advance(count, what);

    public byte ReadByte(string what) => Advance(1, what)[0];

    public ushort ReadUInt16(string what) => BinaryPrimitives.ReadUInt16LittleEndian(Advance(2, what));

    public short ReadInt16(string what) => BinaryPrimitives.ReadInt16LittleEndian(Advance(2, what));

    public uint ReadUInt32(string what) => BinaryPrimitives.ReadUInt32LittleEndian(Advance(4, what));

    public int ReadInt32(string what) => BinaryPrimitives.ReadInt32LittleEndian(Advance(4, what));

    public ulong ReadUInt64(string what) => BinaryPrimitives.ReadUInt64LittleEndian(Advance(8, what));

    public long ReadInt64(string what) => BinaryPrimitives.ReadInt64LittleEndian(Advance(8, what));

    public Guid ReadGuid(string what) => new(Advance(16, what));

    /// <summary>Reads a NUL-terminated UTF-16LE string (the terminator is consumed).</summary>
    public string ReadUtf16Z(string what)
    {
        ReadOnlySpan<byte> rest = _span[_pos..];
        for (int i = 0; i + 1 < rest.Length; i += 2)
        {
            if (rest[i] == 0 && rest[i + 1] == 0)
            {
                string s = Encoding.Unicode.GetString(rest[..i]);
                _pos += i + 2;
                return s;
            }
        }

        throw Error($"a NUL-terminated UTF-16 {what}, but no terminator before the end of the data");
    }

    /// <summary>Reads a NUL-terminated 8-bit string (UTF-8) (the terminator is consumed).</summary>
    public string ReadUtf8Z(string what)
    {
        ReadOnlySpan<byte> rest = _span[_pos..];
        int end = rest.IndexOf((byte)0);
        if (end < 0)
        {
            throw Error($"a NUL-terminated {what}, but no terminator before the end of the data");
        }

        string s = Encoding.UTF8.GetString(rest[..end]);
        _pos += end + 1;
        return s;
    }

    /// <summary>
    /// Reads a NUL-terminated string within the next <paramref name="limit"/> bytes and returns its bytes (without the
    /// NUL, which is consumed).
    /// </summary>
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

    /// <summary>Advances to the next multiple of <paramref name="alignment"/> (relative to the span start), if not
    /// already there.</summary>
    public void Align(int alignment)
    {
        int rem = _pos % alignment;
        if (rem != 0)
        {
            _pos = Math.Min(_span.Length, _pos + (alignment - rem));
        }
    }

    /// <summary>The malformed-input exception for the current position.</summary>
    public readonly XeFormatException Error(string expected) => Error(_pos, expected);

    /// <summary>The malformed-input exception for <paramref name="position"/> (relative to the start of the
    /// span).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public readonly XeFormatException Error(int position, string expected) =>
        _origin is not null
            ? _origin.Error(_baseOffset + position, _description!, expected)
            : FormatErrors.Create(_kind, _file, _baseOffset + position, "expected " + expected);
}

using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// Random access to the records of the TPI (stream 2, types) or IPI (stream 4, ids) stream by type index. The record
/// offsets are found by one pass over the stream in 64 KB chunks on first use (four bytes kept per record); each record
/// is then read on demand.
/// </summary>
/// <remarks>Layout: a header (version, header size, first and end type index, record bytes, hash stream fields), then
/// records of
/// <c>u16 length, u16 kind, data</c>; the first record has index <c>TypeIndexBegin</c> (0x1000).</remarks>
internal sealed class PdbTypeStream
{
    private const int MinHeaderSize = 56;

    private readonly MsfStream _stream;
    private readonly string _description;
    private readonly uint _begin;
    private readonly uint[] _offsets;

    private PdbTypeStream(MsfStream stream, string description, uint begin, uint[] offsets)
    {
        _stream = stream;
        _description = description;
        _begin = begin;
        _offsets = offsets;
    }

    /// <summary>Opens stream <paramref name="index"/> (2 = TPI, 4 = IPI), or returns <see langword="null"/> when the
    /// PDB has none.</summary>
    public static PdbTypeStream? Open(PdbFile pdb, int index, string description, CancellationToken cancellationToken)
    {
        MsfStream? stream = pdb.Msf.GetStream(index);
        if (stream is null || stream.Length == 0)
        {
            return null;
        }

        if (stream.Length < MinHeaderSize)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a {MinHeaderSize}-byte header, but the stream has only {stream.Length} bytes"
                )
            );
        }

        Span<byte> h = stackalloc byte[MinHeaderSize];
        stream.Read(0, h);
        uint headerSize = BinaryPrimitives.ReadUInt32LittleEndian(h[4..]);
        uint begin = BinaryPrimitives.ReadUInt32LittleEndian(h[8..]);
        uint end = BinaryPrimitives.ReadUInt32LittleEndian(h[12..]);
        uint bytes = BinaryPrimitives.ReadUInt32LittleEndian(h[16..]);
        if (headerSize < MinHeaderSize || headerSize > stream.Length || bytes > stream.Length - headerSize)
        {
            throw stream.Error(
                4,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a header of at least {MinHeaderSize} bytes followed by the record bytes within the stream's "
                        + $"{stream.Length} bytes, found header size {headerSize} and {bytes} record bytes"
                )
            );
        }

        if (begin < 0x1000 || end < begin)
        {
            throw stream.Error(
                8,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a type index range starting at 0x1000 or above, found 0x{begin:X} to 0x{end:X}"
                )
            );
        }

        ulong count = (ulong)end - begin;
        if (count > (ulong)pdb.Limits.MaxTypeRecords || count > bytes / 4UL)
        {
            throw stream.Error(
                12,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {Math.Min((ulong)pdb.Limits.MaxTypeRecords, bytes / 4UL)} records "
                        + $"(PdbReaderLimits.MaxTypeRecords, and 4 bytes each), found {count}"
                )
            );
        }

        var offsets = new uint[count];
        byte[] chunk = new byte[64 * 1024];
        long chunkStart = 0;
        int chunkLength = 0;
        long pos = headerSize;
        long limit = headerSize + (long)bytes;
        for (int i = 0; i < offsets.Length; i++)
        {
            if ((i & 0xFFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            if (pos + 4 > limit)
            {
                throw stream.Error(
                    pos,
                    description,
                    string.Create(CultureInfo.InvariantCulture, $"{count} records, but the record bytes end after {i}")
                );
            }

            if (pos < chunkStart || pos + 2 > chunkStart + chunkLength)
            {
                // Records are read in order: refill the window from this record on.
                chunkStart = pos;
                chunkLength = (int)Math.Min(chunk.Length, limit - pos);
                stream.Read(pos, chunk.AsSpan(0, chunkLength));
            }

            ushort length = BinaryPrimitives.ReadUInt16LittleEndian(chunk.AsSpan((int)(pos - chunkStart)));
            if (length < 2 || pos + 2 + length > limit)
            {
                throw stream.Error(
                    pos,
                    description,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a record length between 2 and {limit - pos - 2} for type 0x{begin + (uint)i:X}, found "
                            + $"{length}"
                    )
                );
            }

            offsets[i] = (uint)pos;
            pos += 2 + length;
        }

        return new PdbTypeStream(stream, description, begin, offsets);
    }

    /// <summary>Reads the record of <paramref name="typeIndex"/>: its kind and data (after the kind), or
    /// <see langword="null"/> when the index is outside the stream.</summary>
    public (ushort Kind, byte[] Data, long Offset)? Read(uint typeIndex)
    {
        if (typeIndex < _begin || typeIndex - _begin >= (uint)_offsets.Length)
        {
            return null;
        }

        uint at = _offsets[typeIndex - _begin];
        Span<byte> head = stackalloc byte[4];
        _stream.Read(at, head);
        ushort length = BinaryPrimitives.ReadUInt16LittleEndian(head);
        ushort kind = BinaryPrimitives.ReadUInt16LittleEndian(head[2..]);
        byte[] data = _stream.ReadRange(at + 4, length - 2, 0xFFFF, _description + " record");
        return (kind, data, at + 4L);
    }

    /// <summary>A reader over a record's data, for error locations.</summary>
    public SpanReader Reader(byte[] data, long offset) => new(data, _stream, offset, _description);
}

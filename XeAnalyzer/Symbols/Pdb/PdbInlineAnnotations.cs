using System.Globalization;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// One code range of an inline site: [<see cref="Start"/>, <see cref="End"/>) as offsets from the start of the
/// enclosing procedure, attributed to the inlinee's base line plus <see cref="LineOffset"/> in the file
/// <see cref="FileId"/> (a C13 file-checksum offset;
/// <see cref="DefaultFile"/> for the inlinee's own file).
/// </summary>
internal readonly record struct InlineRange(uint Start, uint End, int LineOffset, uint FileId)
{
    public const uint DefaultFile = uint.MaxValue;
}

/// <summary>
/// Decodes the binary annotations of an <c>S_INLINESITE</c>/<c>S_INLINESITE2</c> record into code ranges.
/// </summary>
/// <remarks>
/// <para>Operands are CodeView compressed unsigned integers (1, 2 or 4 bytes: <c>0xxxxxxx</c>, <c>10xxxxxx x</c>,
/// <c>110xxxxx x x x</c>); signed operands keep the sign in bit 0. Opcodes: 1 CodeOffset, 2 ChangeCodeOffsetBase, 3
/// ChangeCodeOffset, 4 ChangeCodeLength, 5 ChangeFile, 6 ChangeLineOffset (signed), 7 ChangeLineEndDelta, 8
/// ChangeRangeKind, 9 ChangeColumnStart, 10 ChangeColumnEndDelta (signed), 11 ChangeCodeOffsetAndLineOffset (code delta
/// in the low 4 bits, signed line delta above), 12 ChangeCodeLengthAndCodeOffset (length, then offset delta), 13
/// ChangeColumnEnd; 0 ends the list (padding).</para>
/// <para>State machine, as MSVC and LLVM write it: every opcode that moves the code offset ends the open range there
/// and opens a new one at the new offset with the current line and file; line and file changes apply to the next range
/// opened; ChangeCodeLength closes the open range after that many bytes and moves the offset past it;
/// ChangeCodeLengthAndCodeOffset moves the offset and records one closed range of that length there (the offset stays
/// at its start). A range still open at the end runs to the end of the procedure.</para>
/// </remarks>
internal static class PdbInlineAnnotations
{
    private const int MaxOpcode = 13;

    /// <summary>Decodes <paramref name="annotations"/> (the bytes after the record's fixed fields, up to its
    /// end).</summary>
    /// <param name="annotations">The annotation bytes.</param>
    /// <param name="procedureSize">The enclosing procedure's code size (an open range ends there).</param>
    /// <param name="error">Builds the exception for bad data at an annotation byte offset.</param>
    /// <returns>The ranges, in the order written.</returns>
    public static List<InlineRange> Decode(
        ReadOnlySpan<byte> annotations,
        uint procedureSize,
        Func<int, string, InvalidPdbDataException> error
    )
    {
        var ranges = new List<InlineRange>();
        long offset = 0;
        int line = 0;
        uint file = InlineRange.DefaultFile;
        bool open = false;
        long openStart = 0;
        int openLine = 0;
        uint openFile = InlineRange.DefaultFile;
        int pos = 0;
        while (pos < annotations.Length)
        {
            int at = pos;
            uint opcode = ReadCompressed(annotations, ref pos, at, error);
            if (opcode == 0)
            {
                break;
            }

            if (opcode > MaxOpcode)
            {
                throw error(
                    at,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a binary annotation opcode from 0 to {MaxOpcode}, found {opcode}"
                    )
                );
            }

            switch (opcode)
            {
                case 1: // CodeOffset
                case 2: // ChangeCodeOffsetBase
                case 3: // ChangeCodeOffset
                    MoveTo(offset + ReadCompressed(annotations, ref pos, at, error));
                    break;
                case 4: // ChangeCodeLength
                {
                    uint length = ReadCompressed(annotations, ref pos, at, error);
                    long end = Check(offset + length, at);
                    if (open)
                    {
                        Close(end);
                    }

                    offset = end;
                    break;
                }

                case 5: // ChangeFile
                    file = ReadCompressed(annotations, ref pos, at, error);
                    break;
                case 6: // ChangeLineOffset
                    line = AddLine(line, DecodeSigned(ReadCompressed(annotations, ref pos, at, error)), at);
                    break;
                case 7: // ChangeLineEndDelta
                case 8: // ChangeRangeKind
                case 9: // ChangeColumnStart
                case 10: // ChangeColumnEndDelta
                case 13: // ChangeColumnEnd
                    ReadCompressed(annotations, ref pos, at, error);
                    break;
                case 11: // ChangeCodeOffsetAndLineOffset
                {
                    uint operand = ReadCompressed(annotations, ref pos, at, error);
                    line = AddLine(line, DecodeSigned(operand >> 4), at);
                    MoveTo(offset + (operand & 0xF));
                    break;
                }

                case 12: // ChangeCodeLengthAndCodeOffset
                {
                    uint length = ReadCompressed(annotations, ref pos, at, error);
                    uint delta = ReadCompressed(annotations, ref pos, at, error);
                    long start = Check(offset + delta, at);
                    if (open)
                    {
                        Close(start);
                    }

                    offset = start;
                    long end = Check(start + length, at);
                    if (end > start)
                    {
                        ranges.Add(new InlineRange((uint)start, (uint)end, line, file));
                    }

                    break;
                }
            }
        }

        if (open && openStart < procedureSize)
        {
            Close(procedureSize);
        }

        return ranges;

        void MoveTo(long next)
        {
            next = Check(next, pos);
            if (open)
            {
                Close(next);
            }

            offset = next;
            open = true;
            openStart = next;
            openLine = line;
            openFile = file;
        }

        void Close(long end)
        {
            if (end > openStart)
            {
                ranges.Add(new InlineRange((uint)openStart, (uint)end, openLine, openFile));
            }

            open = false;
        }

        long Check(long value, int at) =>
            value <= uint.MaxValue
                ? value
                : throw error(
                    at,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"code offsets below 4 GB, but the annotations reach 0x{value:X}"
                    )
                );

        int AddLine(int current, int delta, int at)
        {
            long next = (long)current + delta;
            return next is >= -0xFFFFFF and <= 0xFFFFFF
                ? (int)next
                : throw error(
                    at,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"line offsets within ±0xFFFFFF, but the annotations reach {next}"
                    )
                );
        }
    }

    /// <summary>Reads one compressed unsigned integer.</summary>
    internal static uint ReadCompressed(
        ReadOnlySpan<byte> data,
        ref int pos,
        int opcodeAt,
        Func<int, string, InvalidPdbDataException> error
    )
    {
        if (pos >= data.Length)
        {
            throw error(opcodeAt, "a binary annotation operand, but the annotations end");
        }

        byte b = data[pos];
        if ((b & 0x80) == 0)
        {
            pos++;
            return b;
        }

        if ((b & 0xC0) == 0x80)
        {
            if (pos + 2 > data.Length)
            {
                throw error(pos, "a 2-byte compressed integer, but the annotations end");
            }

            uint v = ((uint)(b & 0x3F) << 8) | data[pos + 1];
            pos += 2;
            return v;
        }

        if ((b & 0xE0) == 0xC0)
        {
            if (pos + 4 > data.Length)
            {
                throw error(pos, "a 4-byte compressed integer, but the annotations end");
            }

            uint v =
                ((uint)(b & 0x1F) << 24) | ((uint)data[pos + 1] << 16) | ((uint)data[pos + 2] << 8) | data[pos + 3];
            pos += 4;
            return v;
        }

        throw error(
            pos,
            string.Create(CultureInfo.InvariantCulture, $"a compressed integer (first byte below 0xE0), found 0x{b:X2}")
        );
    }

    /// <summary>A signed operand: the magnitude shifted left by one, the sign in bit 0.</summary>
    internal static int DecodeSigned(uint value) => (value & 1) != 0 ? -(int)(value >> 1) : (int)(value >> 1);
}

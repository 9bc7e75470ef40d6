namespace XeAnalyzer.Export.Parquet;

/// <summary>
/// The RLE / bit-packing hybrid encoding of definition and repetition levels (Parquet Encodings.md): runs of 8 or more equal
/// values become RLE runs, everything else is bit-packed in groups of 8 values (LSB first). The last bit-packed group is
/// padded with zeros, which readers ignore because the page header gives the number of values.
/// </summary>
internal static class LevelEncoder
{
    /// <summary>The bit width of levels 0..<paramref name="maxLevel"/>.</summary>
    public static int BitWidth(int maxLevel) => maxLevel == 0 ? 0 : 32 - System.Numerics.BitOperations.LeadingZeroCount((uint)maxLevel);

    /// <summary>Appends the encoded levels prefixed with their 4-byte little-endian length (the data page v1 layout).</summary>
    public static void WriteWithLength(ReadOnlySpan<byte> levels, int bitWidth, ByteBuffer output)
    {
        int lengthAt = output.Length;
        output.WriteInt32(0);
        Encode(levels, bitWidth, output);
        int length = output.Length - lengthAt - 4;
        Patch(output, lengthAt, length);
    }

    /// <summary>Appends the hybrid encoding of <paramref name="levels"/> (each below 2^<paramref name="bitWidth"/>).</summary>
    public static void Encode(ReadOnlySpan<byte> levels, int bitWidth, ByteBuffer output)
    {
        if (bitWidth is < 1 or > 8)
        {
            throw new ArgumentOutOfRangeException(nameof(bitWidth), bitWidth, "Level bit widths are 1..8.");
        }

        int i = 0;
        while (i < levels.Length)
        {
            int run = RunLength(levels, i, int.MaxValue);
            if (run >= 8)
            {
                WriteVarint(output, (ulong)run << 1);
                output.WriteByte(levels[i]);
                i += run;
                continue;
            }

            // Bit-packed groups of 8 until a long run starts on a group boundary, or the end.
            int start = i;
            int groups = 0;
            do
            {
                groups++;
                i += 8;
            }
            while (i < levels.Length && RunLength(levels, i, 8) < 8);

            WriteVarint(output, ((ulong)groups << 1) | 1);
            Span<byte> packed = output.GetSpan(groups * bitWidth);
            packed.Clear();
            ulong acc = 0;
            int accBits = 0;
            int p = 0;
            for (int k = 0; k < groups * 8; k++)
            {
                int index = start + k;
                ulong v = index < levels.Length ? levels[index] : 0UL;
                acc |= v << accBits;
                accBits += bitWidth;
                while (accBits >= 8)
                {
                    packed[p++] = unchecked((byte)acc);
                    acc >>= 8;
                    accBits -= 8;
                }
            }

            output.Advance(groups * bitWidth);
            i = Math.Min(i, levels.Length);
        }
    }

    private static int RunLength(ReadOnlySpan<byte> levels, int start, int cap)
    {
        byte v = levels[start];
        int n = 1;
        while (n < cap && start + n < levels.Length && levels[start + n] == v)
        {
            n++;
        }

        return n;
    }

    private static void WriteVarint(ByteBuffer output, ulong value)
    {
        while (value >= 0x80)
        {
            output.WriteByte(unchecked((byte)(value | 0x80)));
            value >>= 7;
        }

        output.WriteByte((byte)value);
    }

    private static void Patch(ByteBuffer output, int at, int value)
    {
        Span<byte> tmp = stackalloc byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(tmp, value);
        output.Overwrite(at, tmp);
    }
}

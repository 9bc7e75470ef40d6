using System.Buffers.Binary;
using System.IO.Compression;
using System.Text;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>
/// Writes a one-file, one-folder MSZIP cabinet with System.IO.Compression.DeflateStream as the encoder
/// (each 32 KB block an independent DEFLATE stream, which is valid MSZIP). Layout per the Microsoft Cabinet format.
/// </summary>
internal static class CabBuilder
{
    public static byte[] Build(string name, byte[] data, CompressionLevel level, bool checksums = true)
    {
        var blocks = new List<(byte[] Compressed, int Plain)>();
        for (int off = 0; off < data.Length || (off == 0 && data.Length == 0); off += 32768)
        {
            int n = Math.Min(32768, data.Length - off);
            var ms = new MemoryStream();
            ms.WriteByte((byte)'C');
            ms.WriteByte((byte)'K');
            using (var d = new DeflateStream(ms, level, leaveOpen: true))
            {
                d.Write(data, off, n);
            }

            blocks.Add((ms.ToArray(), n));
            if (data.Length == 0)
            {
                break;
            }
        }

        byte[] nameBytes = Encoding.ASCII.GetBytes(name + "\0");
        int coffFiles = 36 + 8;
        int dataStart = coffFiles + 16 + nameBytes.Length;
        int total = dataStart + blocks.Sum(b => 8 + b.Compressed.Length);
        var cab = new byte[total];
        var s = cab.AsSpan();
        "MSCF"u8.CopyTo(s);
        BinaryPrimitives.WriteUInt32LittleEndian(s[8..], (uint)total);
        BinaryPrimitives.WriteUInt32LittleEndian(s[16..], (uint)coffFiles);
        s[24] = 3;
        s[25] = 1;
        BinaryPrimitives.WriteUInt16LittleEndian(s[26..], 1);
        BinaryPrimitives.WriteUInt16LittleEndian(s[28..], 1);
        BinaryPrimitives.WriteUInt32LittleEndian(s[36..], (uint)dataStart);
        BinaryPrimitives.WriteUInt16LittleEndian(s[40..], (ushort)blocks.Count);
        BinaryPrimitives.WriteUInt16LittleEndian(s[42..], 1);
        BinaryPrimitives.WriteUInt32LittleEndian(s[44..], (uint)data.Length);
        nameBytes.CopyTo(s[(coffFiles + 16)..]);
        int pos = dataStart;
        foreach (var (compressed, plain) in blocks)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(s[(pos + 4)..], (ushort)compressed.Length);
            BinaryPrimitives.WriteUInt16LittleEndian(s[(pos + 6)..], (ushort)plain);
            compressed.CopyTo(s[(pos + 8)..]);
            if (checksums)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(s[pos..], Checksum(s.Slice(pos + 4, 4), compressed));
            }

            pos += 8 + compressed.Length;
        }

        return cab;
    }

    /// <summary>The CFDATA checksum, written independently of the library's: XOR of LE words over the data, then over
    /// cbData/cbUncomp.</summary>
    private static uint Checksum(ReadOnlySpan<byte> sizes, byte[] data)
    {
        static uint Fold(ReadOnlySpan<byte> b, uint seed)
        {
            uint acc = seed;
            int i = 0;
            for (; i + 4 <= b.Length; i += 4)
            {
                acc ^= (uint)(b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24));
            }

            uint tail = 0;
            for (; i < b.Length; i++)
            {
                tail = (tail << 8) | b[i];
            }

            return acc ^ tail;
        }

        return Fold(sizes, Fold(data, 0));
    }
}

using System.Buffers.Binary;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// A minimal MSF 7.0 reader and writer written for the tests, independent of the library's reader: it splits a PDB into
/// its streams and writes streams back as an MSF with any block size, optionally scattering blocks (reverse order) so
/// that every stream is non-contiguous and fields straddle block boundaries. Used to make 512/1024/2048/8192-block
/// PDBs, OMAP variants and damaged files.
/// </summary>
internal sealed class MsfTestFile
{
    private static readonly byte[] Magic = "Microsoft C/C++ MSF 7.00\r\n\u001ADS\0\0\0"u8.ToArray();

    public MsfTestFile(int blockSize, List<byte[]?> streams)
    {
        BlockSize = blockSize;
        Streams = streams;
    }

    public int BlockSize { get; }

    /// <summary>Stream contents; null for a nil stream.</summary>
    public List<byte[]?> Streams { get; }

    public static MsfTestFile Read(byte[] file)
    {
        int bs = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(32));
        int dirBytes = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(44));
        int mapBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(52));
        int dirBlockCount = (dirBytes + bs - 1) / bs;
        byte[] dir = new byte[dirBlockCount * bs];
        for (int i = 0; i < dirBlockCount; i++)
        {
            int b = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan((mapBlock * bs) + (i * 4)));
            file.AsSpan(b * bs, bs).CopyTo(dir.AsSpan(i * bs));
        }

        int n = BinaryPrimitives.ReadInt32LittleEndian(dir);
        int pos = 4 + (4 * n);
        var streams = new List<byte[]?>();
        for (int s = 0; s < n; s++)
        {
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(dir.AsSpan(4 + (4 * s)));
            if (size == uint.MaxValue)
            {
                streams.Add(null);
                continue;
            }

            byte[] data = new byte[size];
            int blocks = (int)((size + bs - 1) / bs);
            for (int k = 0; k < blocks; k++)
            {
                int b = BinaryPrimitives.ReadInt32LittleEndian(dir.AsSpan(pos));
                pos += 4;
                int len = (int)Math.Min(bs, size - (k * bs));
                file.AsSpan(b * bs, len).CopyTo(data.AsSpan(k * bs));
            }

            streams.Add(data);
        }

        return new MsfTestFile(bs, streams);
    }

    /// <summary>
    /// The file ranges that hold structure: the superblock, the block map, the directory, and every block of every
    /// stream (the targets of the never-crash sweep's byte flips; the rest of a PDB is free or unused space).
    /// </summary>
    public static List<(long Offset, int Length)> UsedExtents(byte[] file)
    {
        int bs = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(32));
        int dirBytes = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(44));
        int mapBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(52));
        var extents = new List<(long, int)> { (0, 56), ((long)mapBlock * bs, 16) };
        int dirBlockCount = (dirBytes + bs - 1) / bs;
        byte[] dir = new byte[dirBlockCount * bs];
        for (int i = 0; i < dirBlockCount; i++)
        {
            int b = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan((mapBlock * bs) + (i * 4)));
            extents.Add(((long)b * bs, Math.Min(bs, dirBytes - (i * bs))));
            file.AsSpan(b * bs, bs).CopyTo(dir.AsSpan(i * bs));
        }

        int n = BinaryPrimitives.ReadInt32LittleEndian(dir);
        int pos = 4 + (4 * n);
        for (int s = 0; s < n; s++)
        {
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(dir.AsSpan(4 + (4 * s)));
            int blocks = size == uint.MaxValue ? 0 : (int)((size + bs - 1) / bs);
            for (int k = 0; k < blocks; k++)
            {
                int b = BinaryPrimitives.ReadInt32LittleEndian(dir.AsSpan(pos));
                pos += 4;
                extents.Add(((long)b * bs, (int)Math.Min(bs, size - (k * bs))));
            }
        }

        return extents;
    }

    /// <summary>Writes the streams as an MSF file with <paramref name="blockSize"/>-byte blocks.</summary>
    public byte[] Write(int blockSize, bool scatter)
    {
        // Blocks 1 and 2 (and every blockSize-th pair after them) belong to the free block maps; data never goes there.
        int needed = 0;
        foreach (byte[]? s in Streams)
        {
            needed += s is null ? 0 : (s.Length + blockSize - 1) / blockSize;
        }

        int dirBytes = 4 + (4 * Streams.Count) + (4 * needed);
        int dirBlocks = (dirBytes + blockSize - 1) / blockSize;
        int mapBlocks = ((dirBlocks * 4) + blockSize - 1) / blockSize;
        if (mapBlocks != 1)
        {
            throw new InvalidOperationException("test MSF writer supports one block-map block");
        }

        int total = needed + dirBlocks + 1;
        var free = new List<int>();
        for (int b = 3; free.Count < total; b++)
        {
            if (b % blockSize is not (1 or 2))
            {
                free.Add(b);
            }
        }

        if (scatter)
        {
            free.Reverse();
        }

        int numBlocks = free.Max() + 1;
        byte[] file = new byte[numBlocks * blockSize];
        int next = 0;
        var dir = new List<byte>();
        void U32(List<byte> list, uint v)
        {
            Span<byte> t = stackalloc byte[4];
            BinaryPrimitives.WriteUInt32LittleEndian(t, v);
            list.AddRange(t.ToArray());
        }

        U32(dir, (uint)Streams.Count);
        foreach (byte[]? s in Streams)
        {
            U32(dir, s is null ? uint.MaxValue : (uint)s.Length);
        }

        foreach (byte[]? s in Streams)
        {
            if (s is null)
            {
                continue;
            }

            for (int off = 0; off < s.Length; off += blockSize)
            {
                int b = free[next++];
                s.AsSpan(off, Math.Min(blockSize, s.Length - off)).CopyTo(file.AsSpan(b * blockSize));
                U32(dir, (uint)b);
            }
        }

        byte[] dirData = [.. dir];
        int mapBlock = free[next++];
        for (int k = 0; k < dirBlocks; k++)
        {
            int b = free[next++];
            dirData
                .AsSpan(k * blockSize, Math.Min(blockSize, dirData.Length - (k * blockSize)))
                .CopyTo(file.AsSpan(b * blockSize));
            BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan((mapBlock * blockSize) + (k * 4)), b);
        }

        Magic.CopyTo(file, 0);
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(32), blockSize);
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(36), 1);
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(40), numBlocks);
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(44), dirData.Length);
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(52), mapBlock);
        return file;
    }

    /// <summary>The DBI stream's u16 at <paramref name="offset"/>.</summary>
    public ushort DbiU16(int offset) => BinaryPrimitives.ReadUInt16LittleEndian(Streams[3].AsSpan(offset));

    /// <summary>The stream index held in slot <paramref name="slot"/> of the DBI optional debug header.</summary>
    public int DebugStreamSlotOffset(int slot)
    {
        byte[] dbi = Streams[3]!;
        int total = 64;
        foreach (int o in new[] { 24, 28, 32, 36, 40, 52 })
        {
            total += BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(o));
        }

        return total + (slot * 2);
    }
}

using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The Multi-Stream File (MSF 7.0) container of a PDB: superblock, stream directory and block-mapped streams.
/// Only the directory is read up front; stream contents are read on demand through <see cref="MsfStream"/>.
/// </summary>
internal sealed class MsfFile
{
    /// <summary>"Microsoft C/C++ MSF 7.00\r\n\x1ADS\0\0\0".</summary>
    internal static ReadOnlySpan<byte> Magic => "Microsoft C/C++ MSF 7.00\r\n\u001ADS\0\0\0"u8;

    internal static ReadOnlySpan<byte> MsfzMagic => "Microsoft MSFZ Container"u8;

    internal static ReadOnlySpan<byte> CabMagic => "MSCF"u8;

    internal static ReadOnlySpan<byte> Pdb2Magic => "Microsoft C/C++ program database 2.00"u8;

    private const int SuperBlockSize = 56;

    private readonly IRandomAccessSource _source;
    private readonly MsfStream?[] _streams;
    private readonly MsfStream _directory;

    private MsfFile(
        IRandomAccessSource source,
        int blockSize,
        uint numBlocks,
        MsfStream directory,
        MsfStream?[] streams
    )
    {
        _source = source;
        _directory = directory;
        BlockSize = blockSize;
        NumBlocks = numBlocks;
        _streams = streams;
    }

    public int BlockSize { get; }

    public uint NumBlocks { get; }

    public int StreamCount => _streams.Length;

    public string Name => _source.Name;

    /// <summary>The stream at <paramref name="index"/>, or <see langword="null"/> if the index is out of range or the
    /// stream is absent (nil).</summary>
    public MsfStream? GetStream(int index) => index >= 0 && index < _streams.Length ? _streams[index] : null;

    /// <summary>
    /// The file offset where the directory records stream <paramref name="index"/>'s size, or the stream count when the
    /// directory has no such stream: where to point an error about a stream that is missing or too short.
    /// </summary>
    public long? StreamEntryOffset(int index) =>
        index >= 0 && index < _streams.Length ? _directory.FileOffsetOf(4 + (4L * index)) : _directory.FileOffsetOf(0);

    public static MsfFile Open(IRandomAccessSource source, PdbReaderLimits limits)
    {
        string file = source.Name;
        long length = source.Length;
        Span<byte> head = stackalloc byte[SuperBlockSize];
        int got = source.Read(0, head);
        ThrowIfNotMsf(file, head[..got]);
        if (got < SuperBlockSize)
        {
            throw new InvalidPdbDataException(
                file,
                got,
                "expected a 56-byte MSF superblock, but the file ends early (truncated PDB)"
            );
        }

        int blockSize = BinaryPrimitives.ReadInt32LittleEndian(head[32..]);
        uint numBlocks = BinaryPrimitives.ReadUInt32LittleEndian(head[40..]);
        uint numDirectoryBytes = BinaryPrimitives.ReadUInt32LittleEndian(head[44..]);
        uint blockMapAddr = BinaryPrimitives.ReadUInt32LittleEndian(head[52..]);
        // 512..4096 are the classic sizes; 8192..32768 are written by linkers for PDBs over 4 GB (lld /pdbpagesize,
        // MSVC /PDBPAGESIZE).
        if (blockSize is not (512 or 1024 or 2048 or 4096 or 8192 or 16384 or 32768))
        {
            throw new InvalidPdbDataException(
                file,
                32,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected an MSF block size of 512, 1024, 2048, 4096, 8192, 16384 or 32768, found {blockSize}"
                )
            );
        }

        if ((long)numBlocks * blockSize > length)
        {
            throw new InvalidPdbDataException(
                file,
                40,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {numBlocks} blocks of {blockSize} bytes ({(long)numBlocks * blockSize} bytes), but "
                        + $"the file has only {length} bytes (truncated PDB)"
                )
            );
        }

        if (numDirectoryBytes == 0 || numDirectoryBytes > Math.Min(length, limits.MaxDirectoryBytes))
        {
            throw new InvalidPdbDataException(
                file,
                44,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a stream directory size between 1 and {Math.Min(length, limits.MaxDirectoryBytes)} "
                        + $"bytes, found {numDirectoryBytes}"
                )
            );
        }

        // The directory's block list lives in one or more block-map blocks; their indices start at superblock offset
        // 52.
        int directoryBlockCount = (int)((numDirectoryBytes + (uint)blockSize - 1) / (uint)blockSize);
        int mapBlockCount = (directoryBlockCount * 4 + blockSize - 1) / blockSize;
        uint[] mapBlocks = new uint[mapBlockCount];
        mapBlocks[0] = blockMapAddr;
        if (mapBlockCount > 1)
        {
            byte[] extra = new byte[mapBlockCount * 4];
            if (source.Read(52, extra) != extra.Length)
            {
                throw new InvalidPdbDataException(
                    file,
                    52,
                    "expected the list of directory block-map blocks, but the file ends early"
                );
            }

            for (int i = 0; i < mapBlockCount; i++)
            {
                mapBlocks[i] = BinaryPrimitives.ReadUInt32LittleEndian(extra.AsSpan(i * 4));
            }
        }

        for (int i = 0; i < mapBlocks.Length; i++)
        {
            if (mapBlocks[i] >= numBlocks)
            {
                throw new InvalidPdbDataException(
                    file,
                    52 + (i * 4L),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a directory block-map block index below the file's {numBlocks} blocks, found "
                            + $"{mapBlocks[i]}"
                    )
                );
            }
        }

        uint[] directoryBlocks = new uint[directoryBlockCount];
        byte[] blockBuf = new byte[blockSize];
        int filled = 0;
        foreach (uint mb in mapBlocks)
        {
            ReadBlock(source, file, mb, blockSize, numBlocks, blockBuf, "directory block map");
            for (int i = 0; i < blockSize / 4 && filled < directoryBlockCount; i++)
            {
                uint block = BinaryPrimitives.ReadUInt32LittleEndian(blockBuf.AsSpan(i * 4));
                if (block >= numBlocks)
                {
                    throw new InvalidPdbDataException(
                        file,
                        ((long)mb * blockSize) + (i * 4L),
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"expected the index of stream directory block {filled} to be below the file's "
                                + $"{numBlocks} blocks, found {block}"
                        )
                    );
                }

                directoryBlocks[filled++] = block;
            }
        }

        var directory = new MsfStream(
            source,
            file,
            blockSize,
            numDirectoryBytes,
            directoryBlocks,
            numBlocks,
            "stream directory",
            44
        );
        byte[] dir = directory.ReadAll(limits.MaxDirectoryBytes);
        const string DirectoryDescription = "MSF stream directory";
        var r = new SpanReader(dir, directory, 0, DirectoryDescription);
        uint numStreams = r.ReadUInt32("stream count");
        if (numStreams > limits.MaxStreams || numStreams > (uint)(dir.Length / 4))
        {
            throw r.Error(
                0,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {Math.Min(limits.MaxStreams, dir.Length / 4)} streams, found {numStreams}"
                )
            );
        }

        uint[] sizes = new uint[numStreams];
        for (int i = 0; i < sizes.Length; i++)
        {
            sizes[i] = r.ReadUInt32("stream size");
        }

        var streams = new MsfStream?[numStreams];
        for (int i = 0; i < sizes.Length; i++)
        {
            uint size = sizes[i];
            if (size == uint.MaxValue)
            {
                continue; // nil stream
            }

            if ((long)size > (long)numBlocks * blockSize)
            {
                throw r.Error(
                    4 + (i * 4),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"stream {i} to fit in the file's {numBlocks} blocks, but its size is {size} bytes"
                    )
                );
            }

            int count = (int)((size + (uint)blockSize - 1) / (uint)blockSize);
            if (count > r.Remaining / 4)
            {
                throw r.Error(
                    4 + (i * 4),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the block list of stream {i} ({count} blocks for {size} bytes) to fit in the {r.Remaining} "
                            + $"bytes left in the directory"
                    )
                );
            }

            uint[] blocks = new uint[count];
            for (int b = 0; b < count; b++)
            {
                blocks[b] = r.ReadUInt32("stream block index");
                if (blocks[b] >= numBlocks)
                {
                    throw r.Error(
                        r.Position - 4,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a block index below {numBlocks} for stream {i}, found {blocks[b]}"
                        )
                    );
                }
            }

            streams[i] = new MsfStream(
                source,
                file,
                blockSize,
                size,
                blocks,
                numBlocks,
                string.Create(CultureInfo.InvariantCulture, $"stream {i}"),
                directory.FileOffsetOf(4 + (4L * i))
            );
        }

        return new MsfFile(source, blockSize, numBlocks, directory, streams);
    }

    /// <summary>Throws a clear <see cref="InvalidPdbDataException"/> unless <paramref name="head"/> starts with the MSF
    /// 7.0 magic.</summary>
    internal static void ThrowIfNotMsf(string file, ReadOnlySpan<byte> head)
    {
        if (head.StartsWith(Magic))
        {
            return;
        }

        if (head.StartsWith(MsfzMagic))
        {
            throw new InvalidPdbDataException(
                file,
                0,
                "expected an MSF 7.0 PDB, found an MSFZ-compressed PDB (\"Microsoft MSFZ Container\"); MSFZ needs "
                    + "zstd and is not supported: fetch the plain PDB (a symbol server serves it when the request has "
                    + "no "
                    + "'Accept: application/msfz0' header)"
            );
        }

        if (head.StartsWith(CabMagic))
        {
            throw new InvalidPdbDataException(
                file,
                0,
                "expected an MSF 7.0 PDB, found a CAB archive (a compressed '.pd_' file); expand it first"
            );
        }

        if (head.StartsWith(Pdb2Magic))
        {
            throw new InvalidPdbDataException(
                file,
                0,
                "expected an MSF 7.0 PDB, found an old-format (2.00) PDB, which is not supported"
            );
        }

        if (head.Length < Magic.Length && Magic.StartsWith(head))
        {
            throw new InvalidPdbDataException(
                file,
                head.Length,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected the 32-byte MSF 7.0 magic, but the file has only {head.Length} bytes (truncated PDB)"
                )
            );
        }

        throw new InvalidPdbDataException(
            file,
            0,
            "expected the MSF 7.0 magic 'Microsoft C/C++ MSF 7.00', found other bytes: not a PDB file"
        );
    }

    internal static void ReadBlock(
        IRandomAccessSource source,
        string file,
        uint block,
        int blockSize,
        uint numBlocks,
        Span<byte> destination,
        string what
    )
    {
        if (block >= numBlocks)
        {
            throw new InvalidPdbDataException(
                file,
                null,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a block index below {numBlocks} for the {what}, found {block}"
                )
            );
        }

        long offset = (long)block * blockSize;
        int n = source.Read(offset, destination);
        if (n != destination.Length)
        {
            throw new InvalidPdbDataException(
                file,
                offset + n,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {destination.Length} bytes of the {what} in block {block}, but the file ends early "
                        + $"(truncated PDB)"
                )
            );
        }
    }
}

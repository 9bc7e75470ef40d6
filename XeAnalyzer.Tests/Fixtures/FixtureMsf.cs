using System.Buffers.Binary;

namespace XeAnalyzer.Tests.Fixtures;

/// <summary>
/// A deliberately separate, minimal MSF 7.0 reader for the fixture tests, so they check the committed PDBs without
/// XeAnalyzer's own PDB code (block size, directory, stream block lists; no limits, the inputs are our own files).
/// </summary>
internal sealed class FixtureMsf
{
    private static readonly byte[] s_magic = "Microsoft C/C++ MSF 7.00\r\n\u001aDS\0\0\0"u8.ToArray();
    private readonly byte[] _data;
    private readonly int _blockSize;
    private readonly List<(int Size, int[] Blocks)> _streams = [];

    public FixtureMsf(string path)
    {
        _data = File.ReadAllBytes(path);
        Assert.That(_data.AsSpan(0, 32).SequenceEqual(s_magic), Is.True, $"{path}: MSF 7.0 magic");
        _blockSize = BinaryPrimitives.ReadInt32LittleEndian(_data.AsSpan(32));
        int numBlocks = BinaryPrimitives.ReadInt32LittleEndian(_data.AsSpan(40));
        int dirBytes = BinaryPrimitives.ReadInt32LittleEndian(_data.AsSpan(44));
        int blockMap = BinaryPrimitives.ReadInt32LittleEndian(_data.AsSpan(52));
        Assert.That((long)numBlocks * _blockSize, Is.EqualTo(_data.Length), $"{path}: block count × block size");
        int dirBlockCount = (dirBytes + _blockSize - 1) / _blockSize;
        byte[] directory = new byte[dirBlockCount * _blockSize];
        for (int i = 0; i < dirBlockCount; i++)
        {
            int block = BinaryPrimitives.ReadInt32LittleEndian(_data.AsSpan((blockMap * _blockSize) + (4 * i)));
            _data.AsSpan(block * _blockSize, _blockSize).CopyTo(directory.AsSpan(i * _blockSize));
        }

        int count = BinaryPrimitives.ReadInt32LittleEndian(directory);
        int pos = 4 + (4 * count);
        for (int s = 0; s < count; s++)
        {
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(directory.AsSpan(4 + (4 * s)));
            int bytes = size == uint.MaxValue ? 0 : (int)size;
            int[] blocks = new int[(bytes + _blockSize - 1) / _blockSize];
            for (int b = 0; b < blocks.Length; b++, pos += 4)
            {
                blocks[b] = BinaryPrimitives.ReadInt32LittleEndian(directory.AsSpan(pos));
            }

            _streams.Add((bytes, blocks));
        }
    }

    public int StreamCount => _streams.Count;

    public byte[] ReadStream(int index)
    {
        (int size, int[] blocks) = _streams[index];
        byte[] result = new byte[size];
        for (int b = 0; b < blocks.Length; b++)
        {
            int length = Math.Min(_blockSize, size - (b * _blockSize));
            _data.AsSpan(blocks[b] * _blockSize, length).CopyTo(result.AsSpan(b * _blockSize));
        }

        return result;
    }

    /// <summary>GUID and age from the PDB info stream (1), DBI age and flags from the DBI header (stream 3).</summary>
    public (Guid Guid, int InfoAge, int DbiAge, ushort DbiFlags) Identity()
    {
        byte[] info = ReadStream(1);
        byte[] dbi = ReadStream(3);
        Assert.That(BinaryPrimitives.ReadInt32LittleEndian(dbi), Is.EqualTo(-1), "DBI version signature");
        return (
            new Guid(info.AsSpan(12, 16)),
            BinaryPrimitives.ReadInt32LittleEndian(info.AsSpan(8)),
            BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(8)),
            BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(56))
        );
    }
}

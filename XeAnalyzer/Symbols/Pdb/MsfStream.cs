using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>One MSF stream: a byte sequence scattered over blocks of the file, read through its block list.</summary>
internal sealed class MsfStream
{
    private readonly IRandomAccessSource _source;
    private readonly string _file;
    private readonly int _blockSize;
    private readonly uint[] _blocks;
    private readonly uint _numBlocks;

    public MsfStream(IRandomAccessSource source, string file, int blockSize, uint length, uint[] blocks, uint numBlocks, string name)
    {
        _source = source;
        _file = file;
        _blockSize = blockSize;
        Length = length;
        _blocks = blocks;
        _numBlocks = numBlocks;
        Name = name;
    }

    public uint Length { get; }

    public string Name { get; }

    /// <summary>Reads <paramref name="destination"/>.Length bytes at <paramref name="position"/>; throws if the range is outside the stream.</summary>
    public void Read(long position, Span<byte> destination)
    {
        if (position < 0 || position + destination.Length > Length)
        {
            throw new InvalidPdbDataException(_file, null, string.Create(CultureInfo.InvariantCulture, $"expected {destination.Length} bytes at offset {position} of {Name}, but the stream has only {Length} bytes"));
        }

        while (!destination.IsEmpty)
        {
            int blockIndex = (int)(position / _blockSize);
            int inBlock = (int)(position % _blockSize);
            int n = Math.Min(destination.Length, _blockSize - inBlock);
            uint block = _blocks[blockIndex];
            long fileOffset = ((long)block * _blockSize) + inBlock;
            if (block >= _numBlocks || _source.Read(fileOffset, destination[..n]) != n)
            {
                throw new InvalidPdbDataException(_file, fileOffset, string.Create(CultureInfo.InvariantCulture, $"expected {n} bytes of {Name} in block {block}, but the file ends early (truncated PDB)"));
            }

            destination = destination[n..];
            position += n;
        }
    }

    /// <summary>Reads the whole stream into a new array, refusing streams larger than <paramref name="maxBytes"/>.</summary>
    public byte[] ReadAll(long maxBytes)
    {
        if (Length > maxBytes)
        {
            throw new InvalidPdbDataException(_file, null, string.Create(CultureInfo.InvariantCulture, $"expected {Name} to be at most {maxBytes} bytes, found {Length}"));
        }

        byte[] data = new byte[Length];
        Read(0, data);
        return data;
    }
}

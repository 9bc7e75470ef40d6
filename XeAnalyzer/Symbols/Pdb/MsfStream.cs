using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>One MSF stream: a byte sequence scattered over blocks of the file, read through its block list. Stateless,
/// so safe for concurrent reads.</summary>
internal sealed class MsfStream : ISpanOrigin
{
    private readonly IRandomAccessSource _source;
    private readonly string _file;
    private readonly int _blockSize;
    private readonly uint[] _blocks;
    private readonly uint _numBlocks;

    public MsfStream(
        IRandomAccessSource source,
        string file,
        int blockSize,
        uint length,
        uint[] blocks,
        uint numBlocks,
        string name,
        long? sizeFieldOffset
    )
    {
        SizeFieldOffset = sizeFieldOffset;
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

    public string File => _file;

    /// <summary>The file offset where the stream's size is stored (its entry in the MSF directory; the superblock for
    /// the directory itself).</summary>
    public long? SizeFieldOffset { get; }

    /// <summary>The file offset of stream byte <paramref name="position"/> when it is inside the stream, else where the
    /// stream's size is stored.</summary>
    public long? OffsetForError(long position) => FileOffsetOf(position) ?? SizeFieldOffset;

    /// <summary>Reads <paramref name="destination"/>.Length bytes at <paramref name="position"/>; throws if the range
    /// is outside the stream.</summary>
    public void Read(long position, Span<byte> destination)
    {
        if (position < 0 || position + destination.Length > Length)
        {
            throw new InvalidPdbDataException(
                _file,
                OffsetForError(position),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {destination.Length} bytes at offset {position} of {Name}, but the stream has only "
                        + $"{Length} bytes"
                )
            );
        }

        while (!destination.IsEmpty)
        {
            int blockIndex = (int)(position / _blockSize);
            int inBlock = (int)(position % _blockSize);
            uint block = _blocks[blockIndex];
            int n = Math.Min(destination.Length, _blockSize - inBlock);

            // Coalesce runs of consecutive blocks into one read (streams written by linkers are mostly contiguous).
            while (
                n < destination.Length
                && blockIndex + 1 < _blocks.Length
                && (ulong)_blocks[blockIndex + 1] == (ulong)_blocks[blockIndex] + 1
            )
            {
                blockIndex++;
                n = Math.Min(destination.Length, n + _blockSize);
            }

            long fileOffset = ((long)block * _blockSize) + inBlock;
            long lastBlock = (fileOffset + n - 1) / _blockSize;
            int got = block < _numBlocks && lastBlock < _numBlocks ? _source.Read(fileOffset, destination[..n]) : 0;
            if (got != n)
            {
                throw new InvalidPdbDataException(
                    _file,
                    fileOffset + Math.Max(got, 0),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected {n} bytes of {Name} starting in block {block}, but the file ends early (truncated "
                            + $"PDB)"
                    )
                );
            }

            destination = destination[n..];
            position += n;
        }
    }

    /// <summary>Reads the whole stream into a new array, refusing streams larger than
    /// <paramref name="maxBytes"/>.</summary>
    public byte[] ReadAll(long maxBytes) => ReadRange(0, Length, maxBytes, Name);

    /// <summary>Reads <paramref name="count"/> bytes at <paramref name="position"/> into a new array, refusing more
    /// than <paramref name="maxBytes"/>.</summary>
    public byte[] ReadRange(long position, long count, long maxBytes, string what)
    {
        CheckRange(position, count, maxBytes, what);
        byte[] data = new byte[count];
        Read(position, data);
        return data;
    }

    /// <summary>
    /// Throws unless <paramref name="count"/> bytes at <paramref name="position"/> lie inside the stream and are at
    /// most
    /// <paramref name="maxBytes"/>: the checks of <see cref="ReadRange"/>, for a range that is read piece by piece.
    /// </summary>
    public void CheckRange(long position, long count, long maxBytes, string what)
    {
        if (count > maxBytes)
        {
            throw new InvalidPdbDataException(
                _file,
                OffsetForError(position),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {what} in {Name} to be at most {maxBytes} bytes, found {count}"
                )
            );
        }

        if (position < 0 || count < 0 || position + count > Length)
        {
            throw new InvalidPdbDataException(
                _file,
                OffsetForError(position),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {count} bytes of {what} at offset {position} of {Name}, but the stream has only "
                        + $"{Length} bytes"
                )
            );
        }
    }

    /// <summary>The file offset of the stream byte at <paramref name="position"/>, or <see langword="null"/> when it is
    /// outside the stream.</summary>
    public long? FileOffsetOf(long position)
    {
        if (position < 0 || position >= Length)
        {
            return null;
        }

        return ((long)_blocks[position / _blockSize] * _blockSize) + (position % _blockSize);
    }

    /// <summary>An <see cref="InvalidPdbDataException"/> for bad data at stream <paramref name="position"/>, located at
    /// the matching file offset.</summary>
    public InvalidPdbDataException Error(long position, string description, string expected) =>
        new(
            _file,
            OffsetForError(position),
            string.Create(
                CultureInfo.InvariantCulture,
                $"expected {expected} in the {description} ({Name}, stream offset {position})"
            )
        );

    /// <inheritdoc/>
    XeFormatException ISpanOrigin.Error(long offset, string description, string expected) =>
        Error(offset, description, expected);
}

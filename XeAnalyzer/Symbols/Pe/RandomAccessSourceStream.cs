using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pe;

/// <summary>
/// A read-only, seekable <see cref="Stream"/> over an <see cref="IRandomAccessSource"/>, for
/// <see cref="System.Reflection.PortableExecutable.PEReader"/>. Not a <see cref="FileStream"/>, so PEReader reads the
/// blocks it needs instead of memory-mapping the file.
/// </summary>
internal sealed class RandomAccessSourceStream(IRandomAccessSource source) : Stream
{
    private readonly long _length = source.Length;
    private long _position;

    public override bool CanRead => true;

    public override bool CanSeek => true;

    public override bool CanWrite => false;

    public override long Length => _length;

    public override long Position
    {
        get => _position;
        set => _position = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        if (_position >= _length)
        {
            return 0;
        }

        int n = source.Read(_position, buffer[..(int)Math.Min(buffer.Length, _length - _position)]);
        _position += n;
        return n;
    }

    public override long Seek(long offset, SeekOrigin origin)
    {
        Position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            SeekOrigin.End => _length + offset,
            _ => throw new ArgumentOutOfRangeException(nameof(origin)),
        };
        return _position;
    }

    public override void Flush() { }

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}

using System.Text;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// A write-only stream that decodes the UTF-8 bytes written to it into a <see cref="TextWriter"/> (standard output), a
/// character sequence split between two writes included.
/// </summary>
internal sealed class TextWriterStream(TextWriter writer) : Stream
{
    private readonly Decoder _decoder = new UTF8Encoding(false).GetDecoder();
    private char[] _chars = new char[4096];

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        int needed = _decoder.GetCharCount(buffer, flush: false);
        if (needed > _chars.Length)
        {
            _chars = new char[needed];
        }

        int n = _decoder.GetChars(buffer, _chars, flush: false);
        writer.Write(_chars, 0, n);
    }

    public override void Flush() { }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            int n = _decoder.GetChars(ReadOnlySpan<byte>.Empty, _chars, flush: true);
            writer.Write(_chars, 0, n);
        }

        base.Dispose(disposing);
    }
}

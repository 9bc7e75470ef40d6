using System.Net;

namespace XeAnalyzer.TargetData;

/// <summary>Reads a string, then another reader.</summary>
internal sealed class ConcatTextReader(string head, TextReader tail) : TextReader
{
    private int _headPos;

    public override int Peek() => _headPos < head.Length ? head[_headPos] : tail.Peek();

    public override int Read()
    {
        return _headPos < head.Length ? head[_headPos++] : tail.Read();
    }

    public override int Read(char[] buffer, int index, int count) => Read(buffer.AsSpan(index, count));

    public override int Read(Span<char> buffer)
    {
        if (_headPos < head.Length)
        {
            int n = Math.Min(buffer.Length, head.Length - _headPos);
            head.AsSpan(_headPos, n).CopyTo(buffer);
            _headPos += n;
            return n;
        }

        return tail.Read(buffer);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            tail.Dispose();
        }

        base.Dispose(disposing);
    }
}

/// <summary>
/// Decodes HTML/XML character references (<c>&amp;lt;</c>, <c>&amp;#x41;</c>, …) while streaming; a reference cut by a
/// chunk end is held back.
/// </summary>
internal sealed class HtmlDecodingTextReader(TextReader inner) : TextReader
{
    private readonly char[] _raw = new char[16 * 1024];
    private string _decoded = string.Empty;
    private int _decodedPos;
    private int _carry;
    private bool _eof;

    public override int Peek() => Fill() ? _decoded[_decodedPos] : -1;

    public override int Read() => Fill() ? _decoded[_decodedPos++] : -1;

    public override int Read(char[] buffer, int index, int count) => Read(buffer.AsSpan(index, count));

    public override int Read(Span<char> buffer)
    {
        if (buffer.IsEmpty || !Fill())
        {
            return 0;
        }

        int n = Math.Min(buffer.Length, _decoded.Length - _decodedPos);
        _decoded.AsSpan(_decodedPos, n).CopyTo(buffer);
        _decodedPos += n;
        return n;
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            inner.Dispose();
        }

        base.Dispose(disposing);
    }

    private bool Fill()
    {
        while (_decodedPos >= _decoded.Length)
        {
            if (_eof && _carry == 0)
            {
                return false;
            }

            int n = _eof ? 0 : inner.Read(_raw, _carry, _raw.Length - _carry);
            if (n <= 0)
            {
                _eof = true;
            }

            int total = _carry + Math.Max(n, 0);
            int cut = total;
            if (!_eof)
            {
                // Hold back a trailing '&…' that has no ';' yet (a reference is at most ~10 characters long).
                int amp = _raw.AsSpan(Math.Max(0, total - 12), Math.Min(12, total)).LastIndexOf('&');
                if (amp >= 0)
                {
                    int ampAbs = Math.Max(0, total - 12) + amp;
                    if (_raw.AsSpan(ampAbs, total - ampAbs).IndexOf(';') < 0)
                    {
                        cut = ampAbs;
                    }
                }
            }

            _decoded = WebUtility.HtmlDecode(new string(_raw, 0, cut));
            _decodedPos = 0;
            _carry = total - cut;
            if (_carry > 0)
            {
                Array.Copy(_raw, cut, _raw, 0, _carry);
            }
        }

        return true;
    }
}

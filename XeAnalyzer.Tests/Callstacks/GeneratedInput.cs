using System.Globalization;
using System.Text;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// A <see cref="TextReader"/> that produces a large callstack input on demand (nothing is held in memory) and counts
/// the characters handed out, to prove that readers stream.
/// </summary>
public sealed class GeneratedInput : TextReader
{
    private static readonly string[] s_modules =
    [
        "sqldk.dll",
        "sqlmin.dll",
        "sqllang.dll",
        "sqlTsEs.dll",
        "ntdll.dll",
        "KERNEL32.DLL",
    ];
    private readonly Shape _shape;
    private readonly int _stacks;
    private readonly int _framesPerStack;
    private readonly StringBuilder _sb = new();
    private string _chunk = string.Empty;
    private int _pos;
    private int _next = -1;

    /// <summary>Creates the input.</summary>
    /// <param name="shape">What to generate.</param>
    /// <param name="stacks">How many stacks.</param>
    /// <param name="framesPerStack">Frames per stack.</param>
    public GeneratedInput(Shape shape, int stacks, int framesPerStack = 25)
    {
        _shape = shape;
        _stacks = stacks;
        _framesPerStack = framesPerStack;
    }

    /// <summary>The generated shapes.</summary>
    public enum Shape
    {
        /// <summary>A histogram target with one slot per stack.</summary>
        Histogram,

        /// <summary>Module+offset lines only.</summary>
        PlainText,

        /// <summary>A ring buffer with one event per stack.</summary>
        RingBuffer,
    }

    /// <summary>Characters handed out so far.</summary>
    public long CharsRead { get; private set; }

    /// <summary>The sum of the slot counts of a generated histogram (slot i counts i + 1).</summary>
    public ulong TotalCount => (ulong)_stacks * ((ulong)_stacks + 1) / 2;

    /// <summary>Frame <paramref name="f"/> of stack <paramref name="s"/>.</summary>
    public static string Frame(int s, int f) =>
        s_modules[(s + f) % s_modules.Length]
        + "+0x"
        + ((ulong)((s * 31) + (f * 7919) + 0x1000)).ToString("X16", CultureInfo.InvariantCulture);

    /// <inheritdoc/>
    public override int Peek() => Fill() ? _chunk[_pos] : -1;

    /// <inheritdoc/>
    public override int Read()
    {
        if (!Fill())
        {
            return -1;
        }

        CharsRead++;
        return _chunk[_pos++];
    }

    /// <inheritdoc/>
    public override int Read(char[] buffer, int index, int count) => Read(buffer.AsSpan(index, count));

    /// <inheritdoc/>
    public override int Read(Span<char> buffer)
    {
        if (buffer.IsEmpty || !Fill())
        {
            return 0;
        }

        int n = Math.Min(buffer.Length, _chunk.Length - _pos);
        _chunk.AsSpan(_pos, n).CopyTo(buffer);
        _pos += n;
        CharsRead += n;
        return n;
    }

    private bool Fill()
    {
        while (_pos >= _chunk.Length)
        {
            if (_next > _stacks)
            {
                return false;
            }

            _sb.Clear();
            if (_next == -1)
            {
                _sb.Append(
                    _shape switch
                    {
                        Shape.Histogram => "<HistogramTarget truncated=\"0\" buckets=\"16384\">\n",
                        Shape.RingBuffer => "<RingBufferTarget truncated=\"0\" eventCount=\"0\">\n",
                        _ => string.Empty,
                    }
                );
            }
            else if (_next == _stacks)
            {
                _sb.Append(
                    _shape switch
                    {
                        Shape.Histogram => "</HistogramTarget>\n",
                        Shape.RingBuffer => "</RingBufferTarget>\n",
                        _ => string.Empty,
                    }
                );
            }
            else
            {
                int s = _next;
                if (_shape == Shape.Histogram)
                {
                    _sb.Append(CultureInfo.InvariantCulture, $"  <Slot count=\"{s + 1}\">\n    <value>");
                }
                else if (_shape == Shape.RingBuffer)
                {
                    _sb.Append(
                        CultureInfo.InvariantCulture,
                        $"  <event name=\"page_allocated\" package=\"sqlos\" "
                            + $"timestamp=\"2024-01-01T00:00:00.000Z\"><data "
                            + $"name=\"memory_clerk_name\"><value>MEMORYCLERK_SQLQERESERVATIONS</value></data><action "
                            + $"name=\"callstack\" package=\"package0\"><value>"
                    );
                }

                for (int f = 0; f < _framesPerStack; f++)
                {
                    if (f > 0)
                    {
                        _sb.Append('\n');
                    }

                    _sb.Append(Frame(s, f));
                }

                _sb.Append(
                    _shape switch
                    {
                        Shape.Histogram => "</value>\n  </Slot>\n",
                        Shape.RingBuffer => "</value></action></event>\n",
                        _ => "\n",
                    }
                );
            }

            _next++;
            _chunk = _sb.ToString();
            _pos = 0;
        }

        return true;
    }
}

using System.Buffers;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.TargetData;

/// <summary>What <see cref="TextSource.Next"/> found.</summary>
internal enum ScanKind
{
    End,
    Text,
    Root,
}

/// <summary>A recognised target-data root element name.</summary>
internal sealed record RootName(string Name, TargetDataKind Kind);

/// <summary>
/// A forward-only scanner over a text input. It hands out plain-text lines (bounded by
/// <see cref="TextInputLimits.MaxLineLength"/>) until it meets the start of a target-data root element
/// (<c>&lt;HistogramTarget</c>, <c>&lt;event</c>, …), anywhere on a line; then <see cref="OpenSegment"/> streams
/// exactly that root's characters to an XML reader, with no line-length limit, and scanning resumes right after the
/// root's end tag. An input that starts with <c>&amp;lt;</c> plus a root name is HTML-decoded from that point on. Line
/// numbers count LF, CR LF and lone CR as one break each, as XML does.
/// </summary>
internal sealed class TextSource : IDisposable
{
    private const int BufferSize = 64 * 1024;
    private const int Lookahead = 32;

    private static readonly SearchValues<char> s_stops = SearchValues.Create("\r\n<&");

    internal static readonly RootName[] Roots =
    [
        new("HistogramTarget", TargetDataKind.Histogram),
        new("BucketizerTarget", TargetDataKind.Histogram),
        new("Slots", TargetDataKind.Histogram),
        new("RingBufferTarget", TargetDataKind.RingBuffer),
        new("CounterTarget", TargetDataKind.EventCounter),
        new("unpaired", TargetDataKind.PairMatching),
        new("EventFileTarget", TargetDataKind.EventFile),
        new("event", TargetDataKind.Event),
        new("Events", TargetDataKind.EventList),
    ];

    private readonly TextInputLimits _limits;
    private readonly bool _ownsReader;
    private readonly LineInterner? _lines;
    private TextReader _reader;
    private char[] _buf = new char[BufferSize];
    private int _pos;
    private int _len;
    private bool _eof;
    private bool _started;
    private bool _skipBlankRest;
    private SegmentReader? _segment;

    public TextSource(
        TextReader reader,
        string? filePath,
        TextInputLimits limits,
        bool ownsReader,
        LineInterner? lines = null,
        bool liftValues = true
    )
    {
        _lines = lines;
        Lifter = liftValues ? new XmlValueLifter(this) : null;
        _reader = reader;
        FilePath = filePath;
        _limits = limits;
        _ownsReader = ownsReader;
    }

    public string? FilePath { get; }

    public TextInputLimits Limits => _limits;

    /// <summary>1-based line number of the next unread character.</summary>
    public long Line { get; internal set; } = 1;

    /// <summary>
    /// Takes plain values out of the XML of each root (see <see cref="XmlValueLifter"/>); <see langword="null"/> when
    /// the source leaves every value to the XML reader.
    /// </summary>
    public XmlValueLifter? Lifter { get; }

    /// <summary>The buffer (replaced when it grows); the segment reader and the lifter read it in place.</summary>
    internal char[] Chars => _buf;

    /// <summary>Where the next unread character is in <see cref="Chars"/>.</summary>
    internal int Start
    {
        get => _pos;
        set => _pos = value;
    }

    /// <summary>Where the characters read so far end in <see cref="Chars"/>.</summary>
    internal int End => _len;

    /// <summary>Whether the input has no more characters than those in <see cref="Chars"/>.</summary>
    internal bool InputEnded => _eof;

    /// <summary>The text of the last <see cref="ScanKind.Text"/> result (without the line break).</summary>
    public string Text { get; private set; } = string.Empty;

    /// <summary>
    /// The <see cref="LineInterner"/> id of <see cref="Text"/> when the source interns lines and kept this one; else
    /// -1.
    /// </summary>
    public int TextLineId { get; private set; } = -1;

    /// <summary>The line of the last <see cref="ScanKind.Text"/> or <see cref="ScanKind.Root"/> result.</summary>
    public long ItemLine { get; private set; }

    /// <summary>The root of the last <see cref="ScanKind.Root"/> result.</summary>
    public RootName? Root { get; private set; }

    /// <summary>True once the input has been found HTML-escaped and is being decoded.</summary>
    public bool HtmlDecoded { get; private set; }

    public void Dispose()
    {
        if (_ownsReader)
        {
            _reader.Dispose();
        }
    }

    public InvalidTextInputException Error(long line, string detail, Exception? inner = null) =>
        new(FilePath, (int)Math.Min(line, int.MaxValue), detail, inner);

    /// <summary>Advances to the next text line or root start.</summary>
    public ScanKind Next()
    {
        if (_segment is not null)
        {
            throw new InvalidOperationException("The XML segment of the previous root was not finished.");
        }

        if (!_started)
        {
            _started = true;
            if (EnsureAvailable(1) && _buf[_pos] == '\uFEFF')
            {
                _pos++;
            }
        }

        int scan = _pos;
        while (true)
        {
            if (scan >= _len)
            {
                int rel = scan - _pos;
                if (!ReadMore())
                {
                    if (_pos < _len)
                    {
                        string last = new(_buf, _pos, _len - _pos);
                        _pos = _len;
                        if (_skipBlankRest && string.IsNullOrWhiteSpace(last))
                        {
                            _skipBlankRest = false;
                            return ScanKind.End;
                        }

                        _skipBlankRest = false;
                        return EmitText(last, Line);
                    }

                    return ScanKind.End;
                }

                scan = _pos + rel;
                continue;
            }

            int idx = _buf.AsSpan(scan, _len - scan).IndexOfAny(s_stops);
            if (idx < 0)
            {
                scan = _len;
                if (_len - _pos > _limits.MaxLineLength)
                {
                    throw Error(
                        Line,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a line of at most {_limits.MaxLineLength} characters outside XML "
                                + $"(TextInputLimits.MaxLineLength); the line is longer"
                        )
                    );
                }

                continue;
            }

            int i = scan + idx;
            char c = _buf[i];
            if (c is '\n' or '\r')
            {
                if (i - _pos > _limits.MaxLineLength)
                {
                    throw Error(
                        Line,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a line of at most {_limits.MaxLineLength} characters outside XML "
                                + $"(TextInputLimits.MaxLineLength); the line is longer"
                        )
                    );
                }

                int lineId = -1;
                ReadOnlySpan<char> content = _buf.AsSpan(_pos, i - _pos);
                string text =
                    _lines is not null && _lines.TryIntern(content, out string? kept, out lineId)
                        ? kept
                        : new string(content);

                long line = Line;
                int next = i + 1;
                if (c == '\r')
                {
                    int relNext = next - _pos;
                    EnsureAvailable(relNext + 1);
                    next = _pos + relNext;
                    if (next < _len && _buf[next] == '\n')
                    {
                        next++;
                    }
                }

                _pos = next;
                Line++;
                if (_skipBlankRest)
                {
                    _skipBlankRest = false;
                    if (string.IsNullOrWhiteSpace(text))
                    {
                        scan = _pos;
                        continue;
                    }
                }

                return EmitText(text, line, lineId);
            }

            // '<' or '&': look ahead for a root name.
            int relI = i - _pos;
            EnsureAvailable(relI + Lookahead);
            i = _pos + relI;
            ReadOnlySpan<char> ahead = _buf.AsSpan(i, _len - i);
            if (c == '<')
            {
                if (ahead.StartsWith("<!DOCTYPE", StringComparison.OrdinalIgnoreCase))
                {
                    throw Error(
                        Line,
                        "no document type declaration: DTDs are refused (they enable entity-expansion attacks)"
                    );
                }

                if (ahead.StartsWith("<?xml", StringComparison.Ordinal))
                {
                    if (!IsBlank(_pos, i))
                    {
                        return EmitTextBefore(i);
                    }

                    SkipDeclaration(i);
                    scan = _pos;
                    continue;
                }

                RootName? root = MatchRoot(ahead[1..]);
                if (root is not null)
                {
                    if (!IsBlank(_pos, i))
                    {
                        return EmitTextBefore(i);
                    }

                    _pos = i;
                    _skipBlankRest = false;
                    Root = root;
                    ItemLine = Line;
                    return ScanKind.Root;
                }
            }
            else if (
                !HtmlDecoded
                && ahead.StartsWith("&lt;", StringComparison.Ordinal)
                && (MatchRoot(ahead[4..]) is not null || ahead[4..].StartsWith("?xml", StringComparison.Ordinal))
            )
            {
                if (!IsBlank(_pos, i))
                {
                    return EmitTextBefore(i);
                }

                SwitchToHtmlDecoding(i);
                scan = _pos;
                continue;
            }

            scan = i + 1;
        }
    }

    /// <summary>Opens a reader over the characters of the root found by the last <see cref="Next"/>.</summary>
    public TextReader OpenSegment()
    {
        if (Root is null || _segment is not null)
        {
            throw new InvalidOperationException("No root to open.");
        }

        // Slots are lifted only where their <value> children are within the depth limit, as the XML reader would check
        // it.
        Lifter?.Begin(liftSlots: Root.Kind == TargetDataKind.Histogram && _limits.MaxXmlDepth >= 2);
        _segment = new SegmentReader(this, Root.Name, Lifter);
        return _segment;
    }

    /// <summary>Consumes what is left of the current segment and resumes line scanning after it.</summary>
    public void CloseSegment()
    {
        if (_segment is null)
        {
            return;
        }

        Span<char> sink = stackalloc char[512];
        while (_segment.Read(sink) > 0) { }

        _segment = null;
        Root = null;
        _skipBlankRest = true;
    }

    internal static RootName? MatchRoot(ReadOnlySpan<char> s)
    {
        foreach (RootName r in Roots)
        {
            if (s.Length > r.Name.Length && s.StartsWith(r.Name, StringComparison.Ordinal))
            {
                char after = s[r.Name.Length];
                if (after is '>' or '/' || char.IsWhiteSpace(after))
                {
                    return r;
                }
            }
        }

        return null;
    }

    private ScanKind EmitText(string text, long line, int lineId = -1)
    {
        Text = text;
        TextLineId = lineId;
        ItemLine = line;
        return ScanKind.Text;
    }

    private ScanKind EmitTextBefore(int i)
    {
        string text = new(_buf, _pos, i - _pos);
        _pos = i;
        _skipBlankRest = false;
        return EmitText(text, Line);
    }

    private bool IsBlank(int from, int to) => _buf.AsSpan(from, to - from).IsWhiteSpace();

    private void SkipDeclaration(int i)
    {
        // <?xml … ?> : bounded, may not span more than a few lines.
        int rel = i - _pos;
        for (int guard = 0; guard < 64; guard++)
        {
            int start = _pos + rel;
            int end = _buf.AsSpan(start, _len - start).IndexOf("?>", StringComparison.Ordinal);
            if (end >= 0)
            {
                int stop = start + end + 2;
                AdvanceCountingLines(stop);
                _skipBlankRest = true;
                return;
            }

            if (_len - _pos > 4096 || !EnsureAvailable(_len - _pos + 1))
            {
                throw Error(Line, "the end '?>' of the XML declaration within 4096 characters");
            }
        }

        throw Error(Line, "the end '?>' of the XML declaration");
    }

    private void AdvanceCountingLines(int stop)
    {
        ReadOnlySpan<char> span = _buf.AsSpan(_pos, stop - _pos);
        bool lastCr = false;
        Line += CountLineBreaks(span, ref lastCr);
        _pos = stop;
    }

    private void SwitchToHtmlDecoding(int i)
    {
        string rest = new(_buf, i, _len - i);
        _reader = new HtmlDecodingTextReader(new ConcatTextReader(rest, _reader));
        _pos = 0;
        _len = 0;
        _eof = false;
        HtmlDecoded = true;
    }

    /// <summary>Makes at least <paramref name="count"/> characters available from <see cref="_pos"/>, unless the input
    /// ends first.</summary>
    private bool EnsureAvailable(int count)
    {
        while (_len - _pos < count)
        {
            if (!ReadMore())
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Reads more characters, compacting or growing the buffer; false at the end of the input. Positions
    /// relative to <see cref="_pos"/> stay valid.</summary>
    internal bool ReadMore()
    {
        if (_eof)
        {
            return false;
        }

        if (_pos > 0 && (_len == _buf.Length || _pos > _buf.Length / 2))
        {
            Array.Copy(_buf, _pos, _buf, 0, _len - _pos);
            _len -= _pos;
            _pos = 0;
        }

        if (_len == _buf.Length)
        {
            long max = (long)_limits.MaxLineLength + Lookahead + 2;
            if (_buf.Length >= max)
            {
                throw Error(
                    Line,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a line of at most {_limits.MaxLineLength} characters outside XML "
                            + $"(TextInputLimits.MaxLineLength); the line is longer"
                    )
                );
            }

            int size = (int)Math.Min(max, (long)_buf.Length * 2);
            Array.Resize(ref _buf, size);
        }

        int n = _reader.Read(_buf, _len, _buf.Length - _len);
        if (n <= 0)
        {
            _eof = true;
            return false;
        }

        _len += n;
        return true;
    }

    internal static int CountLineBreaks(ReadOnlySpan<char> span, ref bool lastWasCr)
    {
        int cr = span.IndexOf('\r');
        if (cr < 0)
        {
            int n = span.Count('\n');
            if (lastWasCr && span.Length > 0 && span[0] == '\n')
            {
                n--;
            }

            if (span.Length > 0)
            {
                lastWasCr = false;
            }

            return n;
        }

        int count = 0;
        foreach (char ch in span)
        {
            if (ch == '\r')
            {
                count++;
                lastWasCr = true;
            }
            else
            {
                if (ch == '\n' && !lastWasCr)
                {
                    count++;
                }

                lastWasCr = false;
            }
        }

        return count;
    }
}

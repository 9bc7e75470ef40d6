using System.Buffers;
using System.Globalization;
using System.Net;
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

/// <summary>A histogram slot a segment took out of the XML whole (see <see cref="TextSource.TakeLiftedSlots"/>).</summary>
/// <param name="Line">The line of its <c>&lt;Slot</c> as the XML reader counts it (1-based, from the segment's start).</param>
/// <param name="ValueLine">The line where its value's text starts, counted the same way.</param>
/// <param name="Count">Its <c>count</c> attribute.</param>
/// <param name="Trunc">Its <c>trunc</c> attribute, when present.</param>
/// <param name="Text">Its value's text, line breaks normalised to LF.</param>
internal readonly record struct LiftedSlot(int Line, int ValueLine, ulong Count, ulong? Trunc, string Text);

/// <summary>
/// A forward-only scanner over a text input. It hands out plain-text lines (bounded by <see cref="TextInputLimits.MaxLineLength"/>)
/// until it meets the start of a target-data root element (<c>&lt;HistogramTarget</c>, <c>&lt;event</c>, …), anywhere on a line;
/// then <see cref="OpenSegment"/> streams exactly that root's characters to an XML reader, with no line-length limit, and
/// scanning resumes right after the root's end tag. An input that starts with <c>&amp;lt;</c> plus a root name is HTML-decoded
/// from that point on. Line numbers count LF, CR LF and lone CR as one break each, as XML does.
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
    private readonly bool _liftValues;
    private TextReader _reader;
    private char[] _buf = new char[BufferSize];
    private int _pos;
    private int _len;
    private bool _eof;
    private bool _started;
    private bool _skipBlankRest;
    private SegmentReader? _segment;

    public TextSource(TextReader reader, string? filePath, TextInputLimits limits, bool ownsReader, LineInterner? lines = null, bool liftValues = true)
    {
        _lines = lines;
        _liftValues = liftValues;
        _reader = reader;
        FilePath = filePath;
        _limits = limits;
        _ownsReader = ownsReader;
    }

    public string? FilePath { get; }

    public TextInputLimits Limits => _limits;

    /// <summary>1-based line number of the next unread character.</summary>
    public long Line { get; private set; } = 1;

    /// <summary>The text of the last <see cref="ScanKind.Text"/> result (without the line break).</summary>
    public string Text { get; private set; } = string.Empty;

    /// <summary>The <see cref="LineInterner"/> id of <see cref="Text"/> when the source interns lines and kept this one; else -1.</summary>
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
                    throw Error(Line, string.Create(CultureInfo.InvariantCulture,
                        $"a line of at most {_limits.MaxLineLength} characters outside XML (TextInputLimits.MaxLineLength); the line is longer"));
                }

                continue;
            }

            int i = scan + idx;
            char c = _buf[i];
            if (c is '\n' or '\r')
            {
                if (i - _pos > _limits.MaxLineLength)
                {
                    throw Error(Line, string.Create(CultureInfo.InvariantCulture,
                        $"a line of at most {_limits.MaxLineLength} characters outside XML (TextInputLimits.MaxLineLength); the line is longer"));
                }

                int lineId = -1;
                ReadOnlySpan<char> content = _buf.AsSpan(_pos, i - _pos);
                string text = _lines is not null && _lines.TryIntern(content, out string? kept, out lineId)
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
                    throw Error(Line, "no document type declaration: DTDs are refused (they enable entity-expansion attacks)");
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
            else if (!HtmlDecoded && ahead.StartsWith("&lt;", StringComparison.Ordinal) &&
                     (MatchRoot(ahead[4..]) is not null || ahead[4..].StartsWith("?xml", StringComparison.Ordinal)))
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

        // Slots are lifted only where their <value> children are within the depth limit, as the XML reader would check it.
        _segment = new SegmentReader(this, Root.Name, _liftValues, _liftValues && Root.Kind == TargetDataKind.Histogram && _limits.MaxXmlDepth >= 2);
        return _segment;
    }

    /// <summary>How many <c>&lt;value&gt;</c> texts the segments read so far took out of the XML themselves (see <see cref="TakeLiftedValue"/>).</summary>
    public long LiftedValues { get; private set; }

    /// <summary>
    /// The text of the <c>&lt;value&gt;</c> element the segment's XML reader is on, when the segment took it out itself: plain text
    /// (printable ASCII, TAB, line breaks) is cut from the characters the XML reader gets and handed over here whole, which saves the
    /// reader's per-character text scan; the reader sees a blank stand-in with the same lines and columns. <see langword="null"/> when
    /// the reader has the text itself.
    /// </summary>
    /// <param name="line">The element's line as the XML reader counts it (1-based, from the segment's start).</param>
    /// <param name="column">The 0-based column of the element's '&lt;' on that line.</param>
    public string? TakeLiftedValue(int line, int column)
    {
        string? text = _segment?.TakeLifted(line, column);
        if (text is not null)
        {
            LiftedValues++;
        }

        return text;
    }

    /// <summary>How many histogram slots the segments read so far took out of the XML whole (see <see cref="TakeLiftedSlots"/>).</summary>
    public long LiftedSlots { get; private set; }

    /// <summary>
    /// The slots that the <c>&lt;Slot/&gt;</c> stand-in the segment's XML reader is on stands for, when the segment took a run of
    /// histogram slots out itself: consecutive slots of the plain form <c>&lt;Slot count="N"&gt;&lt;value&gt;plain text&lt;/value&gt;&lt;/Slot&gt;</c>
    /// (what SQL Server writes) at the start of the root's content, separated by white space only, are read here without the XML
    /// reader, which sees white space with the same line breaks and one empty <c>&lt;Slot/&gt;</c> ending where the run ends.
    /// <see langword="null"/> when the element is a slot of the input.
    /// </summary>
    /// <param name="line">The element's line as the XML reader counts it (1-based, from the segment's start).</param>
    /// <param name="column">The 0-based column of the element's '&lt;' on that line.</param>
    public LiftedSlot[]? TakeLiftedSlots(int line, int column)
    {
        LiftedSlot[]? run = _segment?.TakeLiftedSlots(line, column);
        if (run is not null)
        {
            LiftedSlots += run.Length;
            LiftedValues += run.Length;
        }

        return run;
    }

    /// <summary>Consumes what is left of the current segment and resumes line scanning after it.</summary>
    public void CloseSegment()
    {
        if (_segment is null)
        {
            return;
        }

        Span<char> sink = stackalloc char[512];
        while (_segment.Read(sink) > 0)
        {
        }

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

    /// <summary>Makes at least <paramref name="count"/> characters available from <see cref="_pos"/>, unless the input ends first.</summary>
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

    /// <summary>Reads more characters, compacting or growing the buffer; false at the end of the input. Positions relative to <see cref="_pos"/> stay valid.</summary>
    private bool ReadMore()
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
                throw Error(Line, string.Create(CultureInfo.InvariantCulture,
                    $"a line of at most {_limits.MaxLineLength} characters outside XML (TextInputLimits.MaxLineLength); the line is longer"));
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

    /// <summary>Streams the characters of one root element, from its '&lt;' to the '&gt;' of its end tag (or of a self-closing start tag).</summary>
    private sealed class SegmentReader : TextReader
    {
        private const int PhaseStartTag = 0;
        private const int PhaseBody = 1;
        private const int PhaseCloseName = 2;
        private const int PhaseDone = 3;
        private const string ValueOpen = "<value>";
        private const string ValueClose = "</value>";
        private const string SlotOpen = "<Slot";
        private const string SlotClose = "</Slot>";
        private const string SlotStandIn = "<Slot/>";
        private const int MaxLiftedValues = 4096; // lifted values and slots the XML reader has not reached yet; more are left to the reader
        private const int MaxRunSlots = 256; // slots one stand-in stands for
        private const string XmlBlanks = " \t\r\n"; // white space as XML has it

        // What a lifted value may hold: printable ASCII but the characters that start markup or a reference or may close a CDATA
        // section ('<', '&', ']'), TAB and LF; CR is handled apart. Anything else leaves the value to the XML reader.
        private static readonly SearchValues<char> s_plainValueChars = SearchValues.Create(
            "\t\n !\"#$%'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\^_`abcdefghijklmnopqrstuvwxyz{|}~");

        private readonly TextSource _src;
        private readonly string _closeTag;
        private readonly Queue<LiftedValue> _lifted = new();
        private readonly Queue<LiftedSlotRun> _liftedRuns = new();
        private readonly List<LiftedSlot> _run = [];
        private int _liftedRunSlots; // slots in _liftedRuns

        // Slots are lifted only at the start of the root's content, while it has held nothing but white space and lifted runs: there
        // they are children of the root, so the stand-in stands where the parser reads slots (not inside an element it skips or in a
        // value, where a stand-in would read differently from the slots it replaces).
        private bool _liftSlots;
        private int _phase;
        private char _quote;
        private char _lastNonSpace;
        private bool _lastWasCr;
        private int _pending;
        private int _phaseAfterPending;
        private int _clean;
        private bool _lifting;
        private int _xmlLine = 1; // where the next character handed to the XML reader sits, as the reader counts: its line (1-based)
        private int _xmlColumn; // and the characters before it on that line
        private char[] _stand = [];
        private int _standPos;
        private int _standLen;

        public SegmentReader(TextSource src, string rootName, bool liftValues, bool liftSlots)
        {
            _src = src;
            _closeTag = "</" + rootName;
            _lifting = liftValues;
            _liftSlots = liftSlots;
        }

        /// <summary>
        /// The slots of the run whose stand-in element the XML reader reports at <paramref name="line"/> and <paramref name="column"/>
        /// (its '&lt;', 0-based) when this reader lifted them; otherwise <see langword="null"/>. Asked in document order: runs before
        /// that position that were never asked for (inside an element the parser skipped) are dropped.
        /// </summary>
        public LiftedSlot[]? TakeLiftedSlots(int line, int column)
        {
            while (_liftedRuns.TryPeek(out LiftedSlotRun head))
            {
                int order = head.Line != line ? head.Line.CompareTo(line) : head.Column.CompareTo(column);
                if (order > 0)
                {
                    return null;
                }

                _liftedRuns.Dequeue();
                _liftedRunSlots -= head.Slots.Length;
                if (order == 0)
                {
                    return head.Slots;
                }
            }

            return null;
        }

        /// <summary>
        /// The text of the <c>&lt;value&gt;</c> element whose start tag the XML reader reports at <paramref name="line"/> and
        /// <paramref name="column"/> (its '&lt;', 0-based) when this reader lifted it; otherwise <see langword="null"/>. Asked in document
        /// order: values before that position that were never asked for are dropped.
        /// </summary>
        public string? TakeLifted(int line, int column)
        {
            while (_lifted.TryPeek(out LiftedValue head))
            {
                int order = head.Line != line ? head.Line.CompareTo(line) : head.Column.CompareTo(column);
                if (order > 0)
                {
                    return null;
                }

                _lifted.Dequeue();
                if (order == 0)
                {
                    return head.Text;
                }
            }

            return null;
        }

        public override int Peek() => -1;

        public override int Read()
        {
            Span<char> one = stackalloc char[1];
            return Read(one) == 1 ? one[0] : -1;
        }

        public override int Read(char[] buffer, int index, int count) => Read(buffer.AsSpan(index, count));

        public override int Read(Span<char> dest)
        {
            if (!_lifting && _standPos >= _standLen)
            {
                return ReadStep(dest);
            }

            // While values are lifted, the pieces (text up to a value, a stand-in) are put together until the request is filled from what
            // is buffered, so the XML reader refills its buffer no more often than without lifting: it reports some errors at a line that
            // depends on where a refill fell (a line break counted twice in blanks inside an unclosed tag, as it does at any refill).
            int total = 0;
            while (total < dest.Length)
            {
                int n = ReadStep(dest[total..]);
                total += n;
                if (n == 0 || (_standPos >= _standLen && _src._len - _src._pos < 64 && !_src._eof))
                {
                    break;
                }
            }

            return total;
        }

        private int ReadStep(Span<char> dest)
        {
            if (dest.IsEmpty)
            {
                return 0;
            }

            if (_standPos < _standLen)
            {
                int n = Math.Min(dest.Length, _standLen - _standPos);
                _stand.AsSpan(_standPos, n).CopyTo(dest);
                _standPos += n;
                return n;
            }

            TextSource s = _src;
            while (true)
            {
                if (_phase == PhaseDone && _pending == 0)
                {
                    return 0;
                }

                if (s._pos >= s._len && !s.ReadMore())
                {
                    // End of input inside the root: let the XML reader report the unclosed element.
                    _phase = PhaseDone;
                    _pending = 0;
                    return 0;
                }

                if (_pending > 0)
                {
                    int n = Math.Min(Math.Min(dest.Length, _pending), s._len - s._pos);
                    Copy(dest, n);
                    _pending -= n;
                    if (_pending == 0)
                    {
                        _phase = _phaseAfterPending;
                    }

                    return n;
                }

                switch (_phase)
                {
                    case PhaseStartTag:
                    {
                        int n = 0;
                        while (n < dest.Length && s._pos + n < s._len)
                        {
                            char c = s._buf[s._pos + n];
                            n++;
                            if (_quote != '\0')
                            {
                                if (c == _quote)
                                {
                                    _quote = '\0';
                                }
                            }
                            else if (c is '"' or '\'')
                            {
                                _quote = c;
                            }
                            else if (c == '>')
                            {
                                _phase = _lastNonSpace == '/' ? PhaseDone : PhaseBody;
                                break;
                            }
                            else if (!char.IsWhiteSpace(c))
                            {
                                _lastNonSpace = c;
                            }
                        }

                        Copy(dest, n);
                        return n;
                    }

                    case PhaseBody:
                    {
                        if (_clean > 0)
                        {
                            // Already searched: no end tag starts in the next _clean characters.
                            int n = Math.Min(Math.Min(dest.Length, _clean), s._len - s._pos);
                            Copy(dest, n);
                            _clean -= n;
                            return n;
                        }

                        ReadOnlySpan<char> avail = s._buf.AsSpan(s._pos, s._len - s._pos);
                        int j;
                        if (_lifting)
                        {
                            // The next value start tag first; the end tag is then searched only before it (it cannot span it), so
                            // each call searches the few characters between two values and not the whole buffer again.
                            int v = avail.IndexOf(ValueOpen, StringComparison.Ordinal);
                            int slot = _liftSlots ? (v < 0 ? avail : avail[..v]).IndexOf(SlotOpen, StringComparison.Ordinal) : -1;
                            if (slot >= 0)
                            {
                                v = slot;
                            }

                            j = (v < 0 ? avail : avail[..v]).IndexOf(_closeTag, StringComparison.Ordinal);
                            if (j >= 0)
                            {
                                v = -1;
                                slot = -1;
                            }

                            // Up to where this call may copy: the end tag, the value, or all but a possible partial tag.
                            int limit = j >= 0 ? j : v >= 0 ? v : s._eof ? avail.Length : avail.Length - (_closeTag.Length - 1);

                            // One character more than the limit, so a "<!" or "<?" cut by it is seen (the limit holds back at least 6).
                            ReadOnlySpan<char> before = avail[..Math.Min(avail.Length, Math.Max(limit, 0) + 1)];
                            if (before.IndexOf("<!", StringComparison.Ordinal) >= 0 || before.IndexOf("<?", StringComparison.Ordinal) >= 0)
                            {
                                // A comment, CDATA section or processing instruction: from here on only the XML reader can tell
                                // markup from content, so values are no longer lifted.
                                _lifting = false;
                                j = avail.IndexOf(_closeTag, StringComparison.Ordinal);
                            }
                            else if (v == 0 && slot == 0)
                            {
                                if (TryLiftSlots(dest, out int emitted))
                                {
                                    return emitted;
                                }

                                // Not a run of plain slots: the XML reader reads this slot (its value may still be lifted), and slots
                                // after it are left to the reader too.
                                _liftSlots = false;
                                int t = Math.Min(dest.Length, SlotOpen.Length);
                                Copy(dest, t);
                                _clean = SlotOpen.Length - t;
                                return t;
                            }
                            else if (v == 0)
                            {
                                _liftSlots = false;
                                if (TryLift(dest, out int emitted))
                                {
                                    return emitted;
                                }

                                // Not plain text: the XML reader reads this value itself.
                                int t = Math.Min(dest.Length, ValueOpen.Length);
                                Copy(dest, t);
                                _clean = ValueOpen.Length - t;
                                return t;
                            }
                            else if (limit > 0)
                            {
                                if (_liftSlots && avail[..limit].IndexOfAnyExcept(XmlBlanks) >= 0)
                                {
                                    _liftSlots = false;
                                }

                                int n = Math.Min(dest.Length, limit);
                                Copy(dest, n);
                                _clean = limit - n;
                                return n;
                            }
                        }
                        else
                        {
                            j = avail.IndexOf(_closeTag, StringComparison.Ordinal);
                        }

                        if (j < 0)
                        {
                            int safe = s._eof ? avail.Length : avail.Length - (_closeTag.Length - 1);
                            if (safe <= 0)
                            {
                                if (!s.ReadMore())
                                {
                                    safe = s._len - s._pos;
                                    if (safe <= 0)
                                    {
                                        _phase = PhaseDone;
                                        return 0;
                                    }
                                }
                                else
                                {
                                    continue;
                                }
                            }

                            int n = Math.Min(dest.Length, safe);
                            Copy(dest, n);
                            _clean = safe - n;
                            return n;
                        }

                        if (j > 0)
                        {
                            // Copy up to the candidate end tag first (the search is not repeated for these characters).
                            int n = Math.Min(dest.Length, j);
                            Copy(dest, n);
                            _clean = j - n;
                            return n;
                        }

                        int after = j + _closeTag.Length;
                        if (after >= avail.Length)
                        {
                            if (!s.ReadMore())
                            {
                                int n = Math.Min(dest.Length, avail.Length);
                                Copy(dest, n);
                                return n;
                            }

                            continue;
                        }

                        char next = avail[after];
                        _liftSlots = false;
                        _pending = after;
                        _phaseAfterPending = next == '>' || char.IsWhiteSpace(next) ? PhaseCloseName : PhaseBody;
                        continue;
                    }

                    case PhaseCloseName:
                    {
                        char c = s._buf[s._pos];
                        Copy(dest, 1);
                        if (c == '>')
                        {
                            _phase = PhaseDone;
                        }
                        else if (!char.IsWhiteSpace(c))
                        {
                            _phase = PhaseBody;
                        }

                        return 1;
                    }

                    default:
                        return 0;
                }
            }
        }

        private void Copy(Span<char> dest, int n)
        {
            ReadOnlySpan<char> chunk = _src._buf.AsSpan(_src._pos, n);
            chunk.CopyTo(dest);
            int breaks = CountLineBreaks(chunk, ref _lastWasCr);
            _src.Line += breaks;
            _src._pos += n;
            if (_lifting)
            {
                _xmlLine += breaks;
                int last = chunk.LastIndexOfAny('\n', '\r');
                _xmlColumn = last >= 0 ? n - 1 - last : _xmlColumn + n;
            }
        }

        /// <summary>
        /// At a <c>&lt;value&gt;</c> start tag: when the content up to <c>&lt;/value&gt;</c> is plain text (printable ASCII, TAB, line
        /// breaks; no markup, no references), takes it out as a string and hands the XML reader a stand-in with the same lines and
        /// columns (the line breaks, then as many blanks as the last line is long), so the reader's positions and errors stay as they were.
        /// </summary>
        private bool TryLift(Span<char> dest, out int emitted)
        {
            emitted = 0;
            TextSource s = _src;
            if (_lifted.Count + _liftedRunSlots >= MaxLiftedValues)
            {
                return false;
            }

            int k = 0; // content characters known to be plain
            bool cr = false;
            while (true)
            {
                ReadOnlySpan<char> content = s._buf.AsSpan(s._pos + ValueOpen.Length, s._len - s._pos - ValueOpen.Length);
                int stop = PlainLength(content[k..], ref cr);
                if (stop >= 0)
                {
                    k += stop;
                    if (content[k] != '<')
                    {
                        return false;
                    }

                    if (content.Length - k >= ValueClose.Length)
                    {
                        if (!content[k..].StartsWith(ValueClose, StringComparison.Ordinal))
                        {
                            return false;
                        }

                        break;
                    }
                }
                else
                {
                    k = content.Length;
                }

                // The value does not end in the buffer yet: read on while the buffer can hold it without growing.
                if (k > s._limits.MaxValueLength || (s._pos == 0 && s._len == s._buf.Length) || !s.ReadMore())
                {
                    return false;
                }
            }

            if (k == 0 || k > s._limits.MaxValueLength)
            {
                return false;
            }

            ReadOnlySpan<char> text = s._buf.AsSpan(s._pos + ValueOpen.Length, k);
            bool lastCr = false;
            int breaks = CountLineBreaks(text, ref lastCr);
            int lastBreak = text.LastIndexOfAny('\n', '\r');
            int lastLine = k - 1 - lastBreak;
            // CR LF and a lone CR become LF, as the XML reader hands text out (the other breaks ReplaceLineEndings knows are not plain).
            _lifted.Enqueue(new LiftedValue(_xmlLine, _xmlColumn, cr ? new string(text).ReplaceLineEndings("\n") : new string(text)));

            // The stand-in: "<value>", the line breaks, blanks for the last line, "</value>".
            Span<char> stand = StandIn(ValueOpen.Length + breaks + lastLine + ValueClose.Length);
            ValueOpen.CopyTo(stand);
            stand.Slice(ValueOpen.Length, breaks).Fill('\n');
            stand.Slice(ValueOpen.Length + breaks, lastLine).Fill(' ');
            ValueClose.CopyTo(stand[^ValueClose.Length..]);
            emitted = Substitute(dest, stand.Length, ValueOpen.Length + k + ValueClose.Length, breaks,
                (breaks > 0 ? 0 : _xmlColumn + ValueOpen.Length) + lastLine + ValueClose.Length);
            return true;
        }

        /// <summary>The stand-in buffer, at least <paramref name="length"/> characters long; its first <paramref name="length"/>.</summary>
        private Span<char> StandIn(int length)
        {
            if (_stand.Length < length)
            {
                _stand = new char[Math.Max(length, 256)];
            }

            return _stand.AsSpan(0, length);
        }

        /// <summary>
        /// Hands the XML reader the first <paramref name="standLen"/> characters of the stand-in buffer in place of the next
        /// <paramref name="consumed"/> characters of the source, which hold <paramref name="breaks"/> line breaks and leave the reader
        /// at <paramref name="column"/>; returns how many went into <paramref name="dest"/> (the rest follow on the next reads).
        /// </summary>
        private int Substitute(Span<char> dest, int standLen, int consumed, int breaks, int column)
        {
            _src._pos += consumed;
            _src.Line += breaks;
            _xmlLine += breaks;
            _xmlColumn = column;
            _lastWasCr = false;
            int emitted = Math.Min(dest.Length, standLen);
            _stand.AsSpan(0, emitted).CopyTo(dest);
            _standPos = emitted;
            _standLen = standLen;
            return emitted;
        }

        /// <summary>
        /// How many characters at the start of <paramref name="text"/> a lifted value may hold (<see cref="s_plainValueChars"/> and CR),
        /// or -1 when all of them; <paramref name="cr"/> is set when they hold a CR.
        /// </summary>
        private static int PlainLength(ReadOnlySpan<char> text, ref bool cr)
        {
            int k = 0;
            while (true)
            {
                int stop = text[k..].IndexOfAnyExcept(s_plainValueChars);
                if (stop < 0)
                {
                    return -1;
                }

                k += stop;
                if (text[k] != '\r')
                {
                    return k;
                }

                cr = true;
                k++;
            }
        }

        /// <summary>
        /// At a <c>&lt;Slot</c>: takes out the run of plain slots that starts here (see <see cref="TextSource.TakeLiftedSlots"/>), up to
        /// <see cref="MaxRunSlots"/> and what the buffer holds, and hands the XML reader white space with the run's line breaks and an
        /// empty <c>&lt;Slot/&gt;</c> ending where the run ends instead; false when the slot here is not of the plain form.
        /// </summary>
        private bool TryLiftSlots(Span<char> dest, out int emitted)
        {
            emitted = 0;
            TextSource s = _src;
            int room = MaxLiftedValues - _lifted.Count - _liftedRunSlots;
            if (room <= 0)
            {
                return false;
            }

            _run.Clear();
            int end = 0; // the run's length: up to the end of its last slot
            int breaks = 0; // line breaks in the run up to the slot being read
            int runBreaks = 0; // line breaks in the run up to its end (white space after its last slot is not part of it)
            int at = 0;
            while (_run.Count < Math.Min(room, MaxRunSlots))
            {
                ReadOnlySpan<char> avail = s._buf.AsSpan(s._pos, s._len - s._pos);
                int length = ScanSlot(avail[at..], out ulong count, out ulong? trunc, out int valueStart, out int valueLength, out bool cr);
                if (length == NeedMore && _run.Count == 0 && !(s._pos == 0 && s._len == s._buf.Length) && s.ReadMore())
                {
                    continue; // the first slot does not end in the buffer yet: read on while the buffer holds it without growing
                }

                if (length < 0)
                {
                    break;
                }

                // Line breaks up to the value's text, in it, and up to the slot's end (CR LF, lone CR and LF each count once).
                int slotLine = breaks;
                bool lastCr = false;
                ReadOnlySpan<char> slotText = avail.Slice(at, length);
                int toValue = CountLineBreaks(slotText[..valueStart], ref lastCr);
                ReadOnlySpan<char> text = slotText.Slice(valueStart, valueLength);
                int inValue = CountLineBreaks(text, ref lastCr);
                lastCr = false;
                int afterValue = CountLineBreaks(slotText[(valueStart + valueLength)..], ref lastCr);
                breaks += toValue + inValue + afterValue;
                _run.Add(new LiftedSlot(_xmlLine + slotLine, _xmlLine + slotLine + toValue, count, trunc,
                    cr ? new string(text).ReplaceLineEndings("\n") : new string(text)));
                at += length;
                end = at;
                runBreaks = breaks;

                // White space, then another slot of the run, or the run ends before the white space.
                int ws = avail[at..].IndexOfAnyExcept(XmlBlanks);
                if (ws < 0 || !avail[(at + ws)..].StartsWith(SlotOpen, StringComparison.Ordinal))
                {
                    break;
                }

                lastCr = false;
                breaks += CountLineBreaks(avail.Slice(at, ws), ref lastCr);
                at += ws;
            }

            if (_run.Count == 0)
            {
                return false;
            }

            // The last line of the run ends in "</Slot>", so it is at least as long as the stand-in element.
            int lastLine = runBreaks > 0 ? end - 1 - s._buf.AsSpan(s._pos, end).LastIndexOfAny('\n', '\r') : end;
            int endColumn = runBreaks > 0 ? lastLine : _xmlColumn + end;

            // The stand-in: the run's line breaks, blanks, and "<Slot/>" ending where the run's last "</Slot>" ends, so the XML reader
            // reads what follows the run exactly as it would after that end tag (an error right after the run comes before the run's
            // last slot, as it does when the slot is read from the XML).
            // It starts with a blank: a line feed first would make one line break with a CR right before the run.
            int lead = runBreaks > 0 ? 1 : 0;
            _liftedRuns.Enqueue(new LiftedSlotRun(_xmlLine + runBreaks, endColumn - SlotStandIn.Length, [.. _run]));
            _liftedRunSlots += _run.Count;
            Span<char> stand = StandIn(lead + runBreaks + lastLine);
            stand[..lead].Fill(' ');
            stand.Slice(lead, runBreaks).Fill('\n');
            stand[(lead + runBreaks)..^SlotStandIn.Length].Fill(' ');
            SlotStandIn.CopyTo(stand[^SlotStandIn.Length..]);
            emitted = Substitute(dest, stand.Length, end, runBreaks, endColumn);
            return true;
        }

        private const int NeedMore = -2;

        /// <summary>
        /// Reads a slot of the plain form at the start of <paramref name="text"/>: <c>&lt;Slot</c>, a <c>count</c> and at most a
        /// <c>trunc</c> attribute of decimal digits in double quotes separated by blanks, <c>&gt;</c>, white space,
        /// <c>&lt;value&gt;</c>, plain text (as a lifted value: printable ASCII but '&lt;', '&amp;' and ']', TAB and line breaks; not
        /// empty, at most <see cref="TextInputLimits.MaxValueLength"/>), <c>&lt;/value&gt;</c>, white space, <c>&lt;/Slot&gt;</c>.
        /// Anything else in it is for the XML reader. Returns the slot's length, -1 when it is not of that form, or
        /// <see cref="NeedMore"/> when the text ends first; <paramref name="cr"/> says whether the value holds a CR.
        /// </summary>
        private int ScanSlot(ReadOnlySpan<char> text, out ulong count, out ulong? trunc, out int valueStart, out int valueLength, out bool cr)
        {
            count = 0;
            trunc = null;
            valueStart = valueLength = 0;
            cr = false;
            bool hasCount = false;
            int i = SlotOpen.Length;
            while (true)
            {
                if (i >= text.Length)
                {
                    return NeedMore;
                }

                if (text[i] == '>')
                {
                    i++;
                    break;
                }

                if (text[i] != ' ')
                {
                    return -1;
                }

                while (i < text.Length && text[i] == ' ')
                {
                    i++;
                }

                if (i >= text.Length)
                {
                    return NeedMore;
                }

                if (text[i] == '>')
                {
                    i++;
                    break;
                }

                bool isCount = text[i..].StartsWith("count=\"", StringComparison.Ordinal);
                if ((!isCount && !text[i..].StartsWith("trunc=\"", StringComparison.Ordinal)) || (isCount ? hasCount : trunc is not null))
                {
                    return text.Length - i < 7 ? NeedMore : -1;
                }

                i += 7;
                int q = text[i..].IndexOfAnyExceptInRange('0', '9');
                if (q < 0)
                {
                    return NeedMore;
                }

                if (q == 0 || q > 19 || text[i + q] != '"' || !ulong.TryParse(text.Slice(i, q), NumberStyles.None, CultureInfo.InvariantCulture, out ulong n))
                {
                    return -1;
                }

                if (isCount)
                {
                    count = n;
                    hasCount = true;
                }
                else
                {
                    trunc = n;
                }

                i += q + 1;
            }

            if (!hasCount)
            {
                return -1;
            }

            int ws = text[i..].IndexOfAnyExcept(XmlBlanks);
            if (ws < 0 || text.Length - (i + ws) < ValueOpen.Length)
            {
                return NeedMore;
            }

            i += ws;
            if (!text[i..].StartsWith(ValueOpen, StringComparison.Ordinal))
            {
                return -1;
            }

            i += ValueOpen.Length;
            int stop = PlainLength(text[i..], ref cr);
            if (stop < 0)
            {
                return text.Length - i > _src._limits.MaxValueLength ? -1 : NeedMore;
            }

            if (stop == 0 || stop > _src._limits.MaxValueLength || text[i + stop] != '<')
            {
                return -1;
            }

            valueStart = i;
            valueLength = stop;
            i += stop;
            if (text.Length - i < ValueClose.Length)
            {
                return NeedMore;
            }

            if (!text[i..].StartsWith(ValueClose, StringComparison.Ordinal))
            {
                return -1;
            }

            i += ValueClose.Length;
            ws = text[i..].IndexOfAnyExcept(XmlBlanks);
            if (ws < 0 || text.Length - (i + ws) < SlotClose.Length)
            {
                return NeedMore;
            }

            i += ws;
            return text[i..].StartsWith(SlotClose, StringComparison.Ordinal) ? i + SlotClose.Length : -1;
        }

        private readonly record struct LiftedValue(int Line, int Column, string Text);

        private readonly record struct LiftedSlotRun(int Line, int Column, LiftedSlot[] Slots);
    }

    /// <summary>Reads a string, then another reader.</summary>
    private sealed class ConcatTextReader(string head, TextReader tail) : TextReader
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

    /// <summary>Decodes HTML/XML character references (<c>&amp;lt;</c>, <c>&amp;#x41;</c>, …) while streaming; a reference cut by a chunk end is held back.</summary>
    private sealed class HtmlDecodingTextReader(TextReader inner) : TextReader
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
}

using System.Buffers;

namespace XeAnalyzer.TargetData;

/// <summary>
/// A histogram slot a segment took out of the XML whole (see <see cref="XmlValueLifter.TakeSlots"/>).
/// </summary>
/// <param name="Line">The line of its <c>&lt;Slot</c> as the XML reader counts it (1-based, from the segment's
/// start).</param>
/// <param name="ValueLine">The line where its value's text starts, counted the same way.</param>
/// <param name="Count">Its <c>count</c> attribute.</param>
/// <param name="Trunc">Its <c>trunc</c> attribute, when present.</param>
/// <param name="Text">Its value's text, line breaks normalised to LF.</param>
internal readonly record struct LiftedSlot(int Line, int ValueLine, ulong Count, ulong? Trunc, string Text);

/// <summary>
/// Takes plain values out of the characters a root's XML reader gets, which saves the reader's per-character text scan
/// (about a quarter of the time of <c>resolve</c> on a histogram): the content of a <c>&lt;value&gt;</c> that is plain
/// text (printable ASCII, TAB, line breaks) is cut out and handed to the parser by position (<see cref="TakeValue"/>),
/// the reader seeing a blank stand-in with the same lines and columns; at the start of a histogram, a run of slots in
/// SQL Server's plain form is read whole (<see cref="TakeSlots"/>), the reader seeing blanks and one empty
/// <c>&lt;Slot/&gt;</c> where the run ends. Anything the lifter cannot read exactly as the XML reader would (a
/// reference, CDATA, a comment, a processing instruction, other characters) is left to the reader, so what the parser
/// gets, lines and errors included, is the same with and without it.
/// </summary>
/// <remarks>
/// One per <see cref="TextSource"/>, started again for each root (<see cref="Begin"/>); its <see cref="SegmentReader"/>
/// hands it the root's content (<see cref="Step"/>) and tells it what it copied (<see cref="Advance"/>), so it knows
/// where the XML reader is.
/// </remarks>
internal sealed partial class XmlValueLifter
{
    private const string ValueOpen = "<value>";
    private const string ValueClose = "</value>";
    private const string SlotOpen = "<Slot";
    private const string SlotClose = "</Slot>";
    private const string SlotStandIn = "<Slot/>";

    // Lifted values and slots the XML reader has not reached yet; more are left to the reader.
    private const int MaxLiftedValues = 4096;
    private const int MaxRunSlots = 256; // slots one stand-in stands for
    private const string XmlBlanks = " \t\r\n"; // white space as XML has it

    // What a lifted value may hold: printable ASCII but the characters that start markup or a reference or may close a
    // CDATA section ('<', '&', ']'), TAB and LF; CR is handled apart. Anything else leaves the value to the XML reader.
    private static readonly SearchValues<char> s_plainValueChars = SearchValues.Create(
        "\t\n !\"#$%'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\^_`abcdefghijklmnopqrstuvwxyz{|}~"
    );

    private readonly TextSource _src;
    private readonly Queue<LiftedValue> _lifted = new();
    private readonly Queue<LiftedSlotRun> _liftedRuns = new();
    private readonly List<LiftedSlot> _run = [];
    private int _liftedRunSlots; // slots in _liftedRuns

    // Slots are lifted only at the start of the root's content, while it has held nothing but white space and lifted
    // runs: there they are children of the root, so the stand-in stands where the parser reads slots (not inside an
    // element it skips or in a value, where a stand-in would read differently from the slots it replaces).
    private bool _liftSlots;

    // Where the next character handed to the XML reader sits, as the reader counts: its line (1-based) and the
    // characters before it on that line.
    private int _xmlLine = 1;
    private int _xmlColumn;
    private char[] _stand = [];
    private int _standPos;
    private int _standLen;

    /// <summary>Creates a lifter over the buffer of <paramref name="src"/>.</summary>
    /// <param name="src">The source whose roots it reads.</param>
    public XmlValueLifter(TextSource src)
    {
        _src = src;
    }

    /// <summary>What <see cref="Step"/> did.</summary>
    internal enum StepKind
    {
        /// <summary>
        /// Nothing: the reader copies this many characters (no end tag candidate, nothing to lift in them).
        /// </summary>
        Copy,

        /// <summary>
        /// A value or a run of slots taken out: this many characters of its stand-in are in the destination.
        /// </summary>
        StandIn,

        /// <summary>
        /// Nothing to lift before the root's end tag candidate at this offset (-1: none in the buffer).
        /// </summary>
        EndTag,
    }

    /// <summary>
    /// Whether the current root's values are still being lifted (until a comment, CDATA or processing instruction).
    /// </summary>
    public bool Lifting { get; private set; }

    /// <summary>Whether part of a stand-in is still to be handed to the XML reader.</summary>
    public bool HasStandIn => _standPos < _standLen;

    /// <summary>Whether the lifter still has a part in the current root: lifting, or a stand-in to hand out.</summary>
    public bool Engaged => Lifting || HasStandIn;

    /// <summary>How many <c>&lt;value&gt;</c> texts the parser took from the lifter so far (slots included).</summary>
    public long Values { get; private set; }

    /// <summary>How many histogram slots the parser took from the lifter so far.</summary>
    public long Slots { get; private set; }

    /// <summary>Starts a root: its content is lifted from its start tag's end on.</summary>
    /// <param name="liftSlots">Whether runs of plain slots at the start of its content are lifted (a
    /// histogram).</param>
    public void Begin(bool liftSlots)
    {
        Lifting = true;
        _liftSlots = liftSlots;
        _xmlLine = 1;
        _xmlColumn = 0;
        _lifted.Clear();
        _liftedRuns.Clear();
        _liftedRunSlots = 0;
        _standPos = _standLen = 0;
    }

    /// <summary>
    /// The text of the <c>&lt;value&gt;</c> element whose start tag the XML reader reports at <paramref name="line"/>
    /// and <paramref name="column"/> (its '&lt;', 0-based), when the lifter took it out; otherwise
    /// <see langword="null"/> (the reader has the text itself). Asked in document order: values before that position
    /// that were never asked for are dropped.
    /// </summary>
    /// <param name="line">The element's line as the XML reader counts it (1-based, from the segment's start).</param>
    /// <param name="column">The 0-based column of the element's '&lt;' on that line.</param>
    public string? TakeValue(int line, int column)
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
                Values++;
                return head.Text;
            }
        }

        return null;
    }

    /// <summary>
    /// The slots that the <c>&lt;Slot/&gt;</c> stand-in the XML reader reports at <paramref name="line"/> and
    /// <paramref name="column"/> (its '&lt;', 0-based) stands for, when the lifter took a run of histogram slots out:
    /// consecutive slots of the plain form <c>&lt;Slot count="N"&gt;&lt;value&gt;plain
    /// text&lt;/value&gt;&lt;/Slot&gt;</c> (what SQL Server writes) at the start of the root's content, separated by
    /// white space only. <see langword="null"/> when the element is a slot of the input. Asked in document order: runs
    /// before that position that were never asked for (inside an element the parser skipped) are dropped.
    /// </summary>
    /// <param name="line">The element's line as the XML reader counts it (1-based, from the segment's start).</param>
    /// <param name="column">The 0-based column of the element's '&lt;' on that line.</param>
    public LiftedSlot[]? TakeSlots(int line, int column)
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
                Slots += head.Slots.Length;
                Values += head.Slots.Length;
                return head.Slots;
            }
        }

        return null;
    }

    /// <summary>
    /// At the source's position in the root's content: lifts the value or the run of slots that starts there into
    /// <paramref name="dest"/>, or says how many characters the reader may copy as they are, or where the root's end
    /// tag candidate is (the reader's business).
    /// </summary>
    /// <param name="dest">Where a stand-in goes.</param>
    /// <param name="closeTag">The root's end tag up to its name (<c>&lt;/HistogramTarget</c>).</param>
    /// <param name="count">How many characters to copy, of the stand-in written, or the end tag's offset (-1:
    /// none).</param>
    public StepKind Step(Span<char> dest, string closeTag, out int count)
    {
        TextSource s = _src;
        ReadOnlySpan<char> avail = s.Chars.AsSpan(s.Start, s.End - s.Start);

        // The next value start tag first; the end tag is then searched only before it (it cannot span it), so each step
        // searches the few characters between two values and not the whole buffer again.
        int v = avail.IndexOf(ValueOpen, StringComparison.Ordinal);
        int slot = _liftSlots ? (v < 0 ? avail : avail[..v]).IndexOf(SlotOpen, StringComparison.Ordinal) : -1;
        if (slot >= 0)
        {
            v = slot;
        }

        int j = (v < 0 ? avail : avail[..v]).IndexOf(closeTag, StringComparison.Ordinal);
        if (j >= 0)
        {
            v = -1;
            slot = -1;
        }

        // Up to where this step may copy: the end tag, the value, or all but a possible partial tag.
        int limit =
            j >= 0 ? j
            : v >= 0 ? v
            : s.InputEnded ? avail.Length
            : avail.Length - (closeTag.Length - 1);

        // One character more than the limit, so a "<!" or "<?" cut by it is seen (the limit holds back at least 6).
        ReadOnlySpan<char> before = avail[..Math.Min(avail.Length, Math.Max(limit, 0) + 1)];
        if (before.IndexOf("<!", StringComparison.Ordinal) >= 0 || before.IndexOf("<?", StringComparison.Ordinal) >= 0)
        {
            // A comment, CDATA section or processing instruction: from here on only the XML reader can tell markup from
            // content, so values are no longer lifted.
            Lifting = false;
            count = avail.IndexOf(closeTag, StringComparison.Ordinal);
            return StepKind.EndTag;
        }

        if (v == 0 && slot == 0)
        {
            if (TryLiftSlots(dest, out count))
            {
                return StepKind.StandIn;
            }

            // Not a run of plain slots: the XML reader reads this slot (its value may still be lifted), and slots after
            // it are left to the reader too.
            _liftSlots = false;
            count = SlotOpen.Length;
            return StepKind.Copy;
        }

        if (v == 0)
        {
            _liftSlots = false;
            if (TryLift(dest, out count))
            {
                return StepKind.StandIn;
            }

            // Not plain text: the XML reader reads this value itself.
            count = ValueOpen.Length;
            return StepKind.Copy;
        }

        if (limit > 0)
        {
            if (_liftSlots && avail[..limit].IndexOfAnyExcept(XmlBlanks) >= 0)
            {
                _liftSlots = false;
            }

            count = limit;
            return StepKind.Copy;
        }

        count = j;
        return StepKind.EndTag;
    }

    /// <summary>
    /// The root's content has reached an end tag candidate: slots after it are no longer at its start.
    /// </summary>
    public void StopLiftingSlots() => _liftSlots = false;

    /// <summary>
    /// Follows the characters the reader copied to the XML reader (<paramref name="breaks"/> line breaks among them).
    /// </summary>
    public void Advance(ReadOnlySpan<char> chunk, int breaks)
    {
        if (!Lifting)
        {
            return;
        }

        _xmlLine += breaks;
        int last = chunk.LastIndexOfAny('\n', '\r');
        _xmlColumn = last >= 0 ? chunk.Length - 1 - last : _xmlColumn + chunk.Length;
    }

    /// <summary>Hands out the rest of the stand-in, as much as fits in <paramref name="dest"/>.</summary>
    public int ReadStandIn(Span<char> dest)
    {
        int n = Math.Min(dest.Length, _standLen - _standPos);
        _stand.AsSpan(_standPos, n).CopyTo(dest);
        _standPos += n;
        return n;
    }

    /// <summary>
    /// At a <c>&lt;value&gt;</c> start tag: when the content up to <c>&lt;/value&gt;</c> is plain text (printable
    /// ASCII, TAB, line breaks; no markup, no references), takes it out as a string and hands the XML reader a stand-in
    /// with the same lines and columns (the line breaks, then as many blanks as the last line is long), so the reader's
    /// positions and errors stay as they were.
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
            ReadOnlySpan<char> content = s.Chars.AsSpan(s.Start + ValueOpen.Length, s.End - s.Start - ValueOpen.Length);
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
            if (k > s.Limits.MaxValueLength || (s.Start == 0 && s.End == s.Chars.Length) || !s.ReadMore())
            {
                return false;
            }
        }

        if (k == 0 || k > s.Limits.MaxValueLength)
        {
            return false;
        }

        ReadOnlySpan<char> text = s.Chars.AsSpan(s.Start + ValueOpen.Length, k);
        bool lastCr = false;
        int breaks = TextSource.CountLineBreaks(text, ref lastCr);
        int lastBreak = text.LastIndexOfAny('\n', '\r');
        int lastLine = k - 1 - lastBreak;
        // CR LF and a lone CR become LF, as the XML reader hands text out (the other breaks ReplaceLineEndings knows
        // are not plain).
        string lifted = cr ? new string(text).ReplaceLineEndings("\n") : new string(text);
        _lifted.Enqueue(new LiftedValue(_xmlLine, _xmlColumn, lifted));

        // The stand-in: "<value>", the line breaks, blanks for the last line, "</value>".
        Span<char> stand = StandIn(ValueOpen.Length + breaks + lastLine + ValueClose.Length);
        ValueOpen.CopyTo(stand);
        stand.Slice(ValueOpen.Length, breaks).Fill('\n');
        stand.Slice(ValueOpen.Length + breaks, lastLine).Fill(' ');
        ValueClose.CopyTo(stand[^ValueClose.Length..]);
        emitted = Substitute(
            dest,
            stand.Length,
            ValueOpen.Length + k + ValueClose.Length,
            breaks,
            (breaks > 0 ? 0 : _xmlColumn + ValueOpen.Length) + lastLine + ValueClose.Length
        );
        return true;
    }

    /// <summary>
    /// The stand-in buffer, at least <paramref name="length"/> characters long; its first <paramref name="length"/>.
    /// </summary>
    private Span<char> StandIn(int length)
    {
        if (_stand.Length < length)
        {
            _stand = new char[Math.Max(length, 256)];
        }

        return _stand.AsSpan(0, length);
    }

    /// <summary>
    /// Hands the XML reader the first <paramref name="standLen"/> characters of the stand-in buffer in place of the
    /// next <paramref name="consumed"/> characters of the source, which hold <paramref name="breaks"/> line breaks and
    /// leave the reader at <paramref name="column"/>; returns how many went into <paramref name="dest"/> (the rest
    /// follow on the next reads).
    /// </summary>
    private int Substitute(Span<char> dest, int standLen, int consumed, int breaks, int column)
    {
        _src.Start += consumed;
        _src.Line += breaks;
        _xmlLine += breaks;
        _xmlColumn = column;
        int emitted = Math.Min(dest.Length, standLen);
        _stand.AsSpan(0, emitted).CopyTo(dest);
        _standPos = emitted;
        _standLen = standLen;
        return emitted;
    }

    /// <summary>
    /// How many characters at the start of <paramref name="text"/> a lifted value may hold
    /// (<see cref="s_plainValueChars"/> and CR), or -1 when all of them; <paramref name="cr"/> is set when they hold a
    /// CR.
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

    private readonly record struct LiftedValue(int Line, int Column, string Text);

    private readonly record struct LiftedSlotRun(int Line, int Column, LiftedSlot[] Slots);
}

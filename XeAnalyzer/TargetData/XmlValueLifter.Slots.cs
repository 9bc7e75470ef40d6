using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.TargetData;

/// <content>
/// Lifting runs of histogram slots: scanning slots of SQL Server's plain form at the start of a histogram's content
/// and handing the XML reader one empty <c>&lt;Slot/&gt;</c> stand-in for the run.
/// </content>
internal sealed partial class XmlValueLifter
{
    /// <summary>
    /// At a <c>&lt;Slot</c>: takes out the run of plain slots that starts here (see <see cref="TakeSlots"/>), up to
    /// <see cref="MaxRunSlots"/> and what the buffer holds, and hands the XML reader white space with the run's line
    /// breaks and an empty <c>&lt;Slot/&gt;</c> ending where the run ends instead; false when the slot here is not of
    /// the plain form.
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
            ReadOnlySpan<char> avail = s.Chars.AsSpan(s.Start, s.End - s.Start);
            int length = ScanSlot(
                avail[at..],
                out ulong count,
                out ulong? trunc,
                out int valueStart,
                out int valueLength,
                out bool cr
            );
            if (length == NeedMore && _run.Count == 0 && !(s.Start == 0 && s.End == s.Chars.Length) && s.ReadMore())
            {
                // The first slot does not end in the buffer yet: read on while the buffer holds it without growing.
                continue;
            }

            if (length < 0)
            {
                break;
            }

            // Line breaks up to the value's text, in it, and up to the slot's end (CR LF, lone CR and LF each count
            // once).
            int slotLine = breaks;
            bool lastCr = false;
            ReadOnlySpan<char> slotText = avail.Slice(at, length);
            int toValue = TextSource.CountLineBreaks(slotText[..valueStart], ref lastCr);
            ReadOnlySpan<char> text = slotText.Slice(valueStart, valueLength);
            int inValue = TextSource.CountLineBreaks(text, ref lastCr);
            lastCr = false;
            int afterValue = TextSource.CountLineBreaks(slotText[(valueStart + valueLength)..], ref lastCr);
            breaks += toValue + inValue + afterValue;
            _run.Add(
                new LiftedSlot(
                    _xmlLine + slotLine,
                    _xmlLine + slotLine + toValue,
                    count,
                    trunc,
                    cr ? new string(text).ReplaceLineEndings("\n") : new string(text)
                )
            );
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
            breaks += TextSource.CountLineBreaks(avail.Slice(at, ws), ref lastCr);
            at += ws;
        }

        if (_run.Count == 0)
        {
            return false;
        }

        // The last line of the run ends in "</Slot>", so it is at least as long as the stand-in element.
        int lastLine = runBreaks > 0 ? end - 1 - s.Chars.AsSpan(s.Start, end).LastIndexOfAny('\n', '\r') : end;
        int endColumn = runBreaks > 0 ? lastLine : _xmlColumn + end;

        // The stand-in: the run's line breaks, blanks, and "<Slot/>" ending where the run's last "</Slot>" ends, so the
        // XML reader reads what follows the run exactly as it would after that end tag (an error right after the run
        // comes before the run's last slot, as it does when the slot is read from the XML). It starts with a blank: a
        // line feed first would make one line break with a CR right before the run.
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
    /// Reads a slot of the plain form at the start of <paramref name="text"/>: <c>&lt;Slot</c>, a <c>count</c> and at
    /// most a <c>trunc</c> attribute of decimal digits in double quotes separated by blanks, <c>&gt;</c>, white space,
    /// <c>&lt;value&gt;</c>, plain text (as a lifted value: printable ASCII but '&lt;', '&amp;' and ']', TAB and line
    /// breaks; not empty, at most <see cref="TextInputLimits.MaxValueLength"/>), <c>&lt;/value&gt;</c>, white space,
    /// <c>&lt;/Slot&gt;</c>. Anything else in it is for the XML reader. Returns the slot's length, -1 when it is not of
    /// that form, or <see cref="NeedMore"/> when the text ends first; <paramref name="cr"/> says whether the value
    /// holds a CR.
    /// </summary>
    private int ScanSlot(
        ReadOnlySpan<char> text,
        out ulong count,
        out ulong? trunc,
        out int valueStart,
        out int valueLength,
        out bool cr
    )
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
            bool isTrunc = !isCount && text[i..].StartsWith("trunc=\"", StringComparison.Ordinal);
            if ((!isCount && !isTrunc) || (isCount ? hasCount : trunc is not null))
            {
                return text.Length - i < 7 ? NeedMore : -1;
            }

            i += 7;
            int q = text[i..].IndexOfAnyExceptInRange('0', '9');
            if (q < 0)
            {
                return NeedMore;
            }

            if (
                q == 0
                || q > 19
                || text[i + q] != '"'
                || !ulong.TryParse(text.Slice(i, q), NumberStyles.None, CultureInfo.InvariantCulture, out ulong n)
            )
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
            return text.Length - i > _src.Limits.MaxValueLength ? -1 : NeedMore;
        }

        if (stop == 0 || stop > _src.Limits.MaxValueLength || text[i + stop] != '<')
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
}

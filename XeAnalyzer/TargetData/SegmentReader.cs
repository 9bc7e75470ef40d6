namespace XeAnalyzer.TargetData;

/// <summary>
/// Streams the characters of one root element to its XML reader, from its '&lt;' to the '&gt;' of its end tag (or of a
/// self-closing start tag), straight from the buffer of its <see cref="TextSource"/>, counting the source's lines as it
/// goes. With a <see cref="XmlValueLifter"/>, the root's content goes through it: it may take plain values out and hand
/// the XML reader stand-ins instead.
/// </summary>
internal sealed class SegmentReader : TextReader
{
    private const int PhaseStartTag = 0;
    private const int PhaseBody = 1;
    private const int PhaseCloseName = 2;
    private const int PhaseDone = 3;

    private readonly TextSource _src;
    private readonly string _closeTag;
    private readonly XmlValueLifter? _lifter;
    private int _phase;
    private char _quote;
    private char _lastNonSpace;
    private bool _lastWasCr;
    private int _pending;
    private int _phaseAfterPending;
    private int _clean;

    /// <summary>
    /// Creates a reader for the root named <paramref name="rootName"/> that the source's buffer starts with.
    /// </summary>
    /// <param name="src">The source, positioned on the root's '&lt;'.</param>
    /// <param name="rootName">The root's element name.</param>
    /// <param name="lifter">Takes plain values out of the root's content, or <see langword="null"/>.</param>
    public SegmentReader(TextSource src, string rootName, XmlValueLifter? lifter)
    {
        _src = src;
        _closeTag = "</" + rootName;
        _lifter = lifter;
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
        if (_lifter is not { Engaged: true })
        {
            return ReadStep(dest);
        }

        // While values are lifted, the pieces (text up to a value, a stand-in) are put together until the request is
        // filled from what is buffered, so the XML reader refills its buffer no more often than without lifting: it
        // reports some errors at a line that depends on where a refill fell (a line break counted twice in blanks
        // inside an unclosed tag, as it does at any refill).
        int total = 0;
        while (total < dest.Length)
        {
            int n = ReadStep(dest[total..]);
            total += n;
            if (n == 0 || (!_lifter.HasStandIn && _src.End - _src.Start < 64 && !_src.InputEnded))
            {
                break;
            }
        }

        return total;
    }

    /// <summary>
    /// Copies the next <paramref name="n"/> characters of the source to <paramref name="dest"/>, counting their line
    /// breaks.
    /// </summary>
    internal void Copy(Span<char> dest, int n)
    {
        ReadOnlySpan<char> chunk = _src.Chars.AsSpan(_src.Start, n);
        chunk.CopyTo(dest);
        int breaks = TextSource.CountLineBreaks(chunk, ref _lastWasCr);
        _src.Line += breaks;
        _src.Start += n;
        _lifter?.Advance(chunk, breaks);
    }

    private int ReadStep(Span<char> dest)
    {
        if (dest.IsEmpty)
        {
            return 0;
        }

        if (_lifter is { HasStandIn: true })
        {
            return _lifter.ReadStandIn(dest);
        }

        TextSource s = _src;
        while (true)
        {
            if (_phase == PhaseDone && _pending == 0)
            {
                return 0;
            }

            if (s.Start >= s.End && !s.ReadMore())
            {
                // End of input inside the root: let the XML reader report the unclosed element.
                _phase = PhaseDone;
                _pending = 0;
                return 0;
            }

            if (_pending > 0)
            {
                int n = Math.Min(Math.Min(dest.Length, _pending), s.End - s.Start);
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
                    return ReadStartTag(dest);

                case PhaseBody:
                {
                    if (_clean > 0)
                    {
                        // Already searched: no end tag starts in the next _clean characters.
                        int n = Math.Min(Math.Min(dest.Length, _clean), s.End - s.Start);
                        Copy(dest, n);
                        _clean -= n;
                        return n;
                    }

                    ReadOnlySpan<char> avail = s.Chars.AsSpan(s.Start, s.End - s.Start);
                    int j;
                    if (_lifter is { Lifting: true })
                    {
                        switch (_lifter.Step(dest, _closeTag, out int count))
                        {
                            case XmlValueLifter.StepKind.Copy:
                            {
                                // Characters with no end tag and nothing to lift in them.
                                int n = Math.Min(dest.Length, count);
                                Copy(dest, n);
                                _clean = count - n;
                                return n;
                            }

                            case XmlValueLifter.StepKind.StandIn:
                                _lastWasCr = false;
                                return count;

                            default:
                                j = count;
                                break;
                        }
                    }
                    else
                    {
                        j = avail.IndexOf(_closeTag, StringComparison.Ordinal);
                    }

                    if (j < 0)
                    {
                        int safe = s.InputEnded ? avail.Length : avail.Length - (_closeTag.Length - 1);
                        if (safe <= 0)
                        {
                            if (!s.ReadMore())
                            {
                                safe = s.End - s.Start;
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
                    _lifter?.StopLiftingSlots();
                    _pending = after;
                    _phaseAfterPending = next == '>' || char.IsWhiteSpace(next) ? PhaseCloseName : PhaseBody;
                    continue;
                }

                case PhaseCloseName:
                {
                    char c = s.Chars[s.Start];
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

    /// <summary>Copies the root's start tag up to its '&gt;', which says whether the root has content.</summary>
    private int ReadStartTag(Span<char> dest)
    {
        TextSource s = _src;
        int n = 0;
        while (n < dest.Length && s.Start + n < s.End)
        {
            char c = s.Chars[s.Start + n];
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
}

using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks.Scanning;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Callstacks;

/// <summary>Collects the lines of one stack (reused from stack to stack), then freezes them into a
/// <see cref="Callstack"/>.</summary>
internal sealed class StackBuilder
{
    private const int MaxJoinedRvaLines = 16;
    private const int MaxJoinedRvaChars = 64 * 1024;

    private readonly FrameLineScanner _scanner;
    private readonly SymbolMetadataTable _metadata;
    private readonly string? _filePath;
    private readonly OffsetRadix _radix;
    private readonly List<PendingLine> _lines = [];
    private readonly List<StackFrame> _frames = [];
    private string? _pendingRva;
    private long _pendingRvaLine;
    private int _pendingRvaLines;
    private int _modulelessSymbols;
    private bool _blocksReinterpretation;
    private bool _hasMetadata;
    private bool _hasNonBlank;

    private readonly LineInterner? _interner;

    // The frame each kept line (by its LineInterner id) parsed to by its text alone, when it is one such frame; else
    // null.
    private StackFrame?[] _frameOfLine = [];

    /// <summary>Creates a builder.</summary>
    /// <param name="scanner">Reads frame lines.</param>
    /// <param name="metadata">Where CSV symbol metadata lines go.</param>
    /// <param name="filePath">The input's path, for messages.</param>
    /// <param name="radix">The radix of displacements without <c>0x</c>.</param>
    /// <param name="interner">The input's table of repeated lines (the one its plain text goes through), for the lines
    /// of XML values; or <see langword="null"/>.</param>
    public StackBuilder(
        FrameLineScanner scanner,
        SymbolMetadataTable metadata,
        string? filePath,
        OffsetRadix radix,
        LineInterner? interner = null
    )
    {
        _interner = interner;
        _scanner = scanner;
        _metadata = metadata;
        _filePath = filePath;
        _radix = radix;
    }

    private readonly record struct PendingLine(
        string Text,
        long LineNumber,
        int Start,
        int Count,
        LineDetails? Details,
        int TextId = -1
    );

    public int LineCount => _lines.Count + (_pendingRva is null ? 0 : 1);

    public bool HasFrames => _frames.Count > 0;

    public bool HasMetadata => _hasMetadata;

    public bool HasPendingJoin => _pendingRva is not null;

    /// <summary>True when no line holds anything but white space.</summary>
    public bool IsBlank => !_hasNonBlank && _pendingRva is null;

    public void AddLine(string text, long lineNumber) => AddLine(text, lineNumber, mayHoldMarkup: true);

    /// <summary>
    /// Adds a line the source interned (its <see cref="LineInterner"/> id, or -1 when it was not kept): a line whose
    /// text alone made it one frame before (no markup, one compact token) takes that frame again without scanning
    /// (frames are immutable, so stacks may share them); any other line is read as usual, and its frame remembered when
    /// it is such a line.
    /// </summary>
    public void AddLine(string text, long lineNumber, int lineId)
    {
        if (lineId < 0 || _pendingRva is not null)
        {
            AddLine(text, lineNumber, mayHoldMarkup: true);
            return;
        }

        if (lineId < _frameOfLine.Length && _frameOfLine[lineId] is StackFrame known)
        {
            _hasNonBlank = true;
            _lines.Add(new PendingLine(text, lineNumber, _frames.Count, 1, null, lineId));
            _frames.Add(known);
            Track(known);
            return;
        }

        if (text.AsSpan().IndexOfAny('<', '&') >= 0)
        {
            AddLine(text, lineNumber, mayHoldMarkup: true);
            return;
        }

        if (ParseAndAdd(text, lineNumber) is { TextOnly: true, FrameCount: 1, Unparsed: null, Diagnostic: null })
        {
            LineInterner.EnsureRoom(ref _frameOfLine, lineId);
            _frameOfLine[lineId] = _frames[^1];
            _lines[^1] = _lines[^1] with { TextId = lineId };
        }
    }

    private void AddLine(string text, long lineNumber, bool mayHoldMarkup)
    {
        if (_pendingRva is not null)
        {
            _pendingRva = string.Concat(_pendingRva, "\n", text);
            _pendingRvaLines++;
            if (
                !RvaFrameScanner.EndsInsideRvaFrame(_pendingRva)
                || _pendingRvaLines >= MaxJoinedRvaLines
                || _pendingRva.Length > MaxJoinedRvaChars
            )
            {
                FlushPendingRva();
            }

            return;
        }

        if (
            mayHoldMarkup
            && text.AsSpan().IndexOfAny('<', '&') >= 0
            && RvaFrameScanner.HasRvaFrame(text)
            && RvaFrameScanner.EndsInsideRvaFrame(text)
        )
        {
            _pendingRva = text;
            _pendingRvaLine = lineNumber;
            _pendingRvaLines = 1;
            return;
        }

        ParseAndAdd(text, lineNumber);
    }

    /// <summary>
    /// Adds the lines of a value's text (split at LF), dropping blank lines at both ends. Its lines are numbered from
    /// <paramref name="firstLine"/>; when that is 0 (no file line known) every line keeps 0.
    /// </summary>
    public void AddTextBlock(string text, long firstLine)
    {
        long step = firstLine > 0 ? 1 : 0;
        ReadOnlySpan<char> s = text.AsSpan();
        bool markup = s.IndexOfAny('<', '&') >= 0;
        int pos = 0;
        long line = firstLine;
        int emittedBlank = 0;
        bool started = false;
        while (pos <= s.Length)
        {
            int nl = s[pos..].IndexOf('\n');
            int end = nl < 0 ? s.Length : pos + nl;
            int lineEnd = end > pos && s[end - 1] == '\r' ? end - 1 : end;
            bool blank = lineEnd == pos || (char.IsWhiteSpace(s[pos]) && s[pos..lineEnd].IsWhiteSpace());
            if (blank)
            {
                if (started)
                {
                    emittedBlank++;
                }
            }
            else
            {
                // Blank lines between content lines are kept; those at the ends are not.
                for (int b = emittedBlank; b > 0; b--)
                {
                    AddLine(string.Empty, line - (b * step), false);
                }

                emittedBlank = 0;
                started = true;

                // The lines of histogram and event values repeat like plain-text lines: a kept line reuses its string
                // and frame.
                if (_interner is not null && _interner.TryIntern(s[pos..lineEnd], out string? kept, out int lineId))
                {
                    AddLine(kept, line, lineId);
                }
                else
                {
                    AddLine(pos == 0 && lineEnd == s.Length ? text : text[pos..lineEnd], line, markup);
                }
            }

            if (nl < 0)
            {
                break;
            }

            pos = end + 1;
            line += step;
        }
    }

    /// <summary>Adds the content of an XML value: its text lines and any raw child <c>&lt;frame&gt;</c> elements, in
    /// document order.</summary>
    public void AddValue(TargetValue value)
    {
        if (value.Elements.Count == 0)
        {
            AddTextBlock(value.Text, value.LineNumber);
            return;
        }

        int pos = 0;
        long line = value.LineNumber;
        foreach (XmlChildElement element in value.Elements)
        {
            int upTo = Math.Clamp(element.TextOffset, pos, value.Text.Length);
            string before = value.Text[pos..upTo];
            AddTextBlock(before, line);
            line += before.AsSpan().Count('\n');
            pos = upTo;
            string markup = element.ToMarkup();
            if (string.Equals(element.Name, "frame", StringComparison.Ordinal))
            {
                AddBuilt(markup, element.LineNumber, _scanner.Rva.BuildFrame(element.Attributes, markup, 0));
            }
            else
            {
                AddBuilt(
                    markup,
                    element.LineNumber,
                    new FrameFailure(FrameFailureReason.UnexpectedElement, 0, element.Name)
                );
            }
        }

        AddTextBlock(value.Text[pos..], line);
    }

    /// <summary>Joins the text lines (for an annotation), without blank lines at the ends; null when all
    /// blank.</summary>
    public string? JoinText(out long firstLine)
    {
        FlushPendingRva();
        int a = 0,
            b = _lines.Count;
        while (a < b && string.IsNullOrWhiteSpace(_lines[a].Text))
        {
            a++;
        }

        while (b > a && string.IsNullOrWhiteSpace(_lines[b - 1].Text))
        {
            b--;
        }

        firstLine = a < b ? _lines[a].LineNumber : 0;
        if (a == b)
        {
            return null;
        }

        var parts = new string[b - a];
        for (int i = a; i < b; i++)
        {
            parts[i - a] = _lines[i].Text;
        }

        return string.Join('\n', parts);
    }

    public Callstack Build(int index, StackHeader? header, bool isContinuation)
    {
        FlushPendingRva();
        if (_modulelessSymbols > 0 && !_blocksReinterpretation)
        {
            Reinterpret();
        }

        StackFrame[] frames = _frames.ToArray();
        var lines = new StackLine[_lines.Count];
        for (int i = 0; i < lines.Length; i++)
        {
            PendingLine p = _lines[i];
            lines[i] = new StackLine(
                p.Text,
                p.LineNumber,
                p.Count == 0 ? null : frames,
                p.Start,
                p.Count,
                p.Details,
                p.TextId
            );
        }

        var stack = new Callstack(
            index,
            header,
            ImmutableCollectionsMarshal.AsImmutableArray(lines),
            ImmutableCollectionsMarshal.AsImmutableArray(frames),
            isContinuation
        );
        Reset();
        return stack;
    }

    public void Reset()
    {
        _lines.Clear();
        _frames.Clear();
        _pendingRva = null;
        _modulelessSymbols = 0;
        _blocksReinterpretation = false;
        _hasMetadata = false;
        _hasNonBlank = false;
    }

    private void FlushPendingRva()
    {
        if (_pendingRva is not null)
        {
            string text = _pendingRva;
            _pendingRva = null;
            ParseAndAdd(text, _pendingRvaLine);
        }
    }

    private void AddBuilt(string text, long lineNumber, TokenScan scan)
    {
        _hasNonBlank = true;
        if (scan.Frame is { } frame)
        {
            _lines.Add(new PendingLine(text, lineNumber, _frames.Count, 1, null));
            _frames.Add(frame);
            Track(frame);
        }
        else
        {
            var details = new LineDetails([new UnparsedToken(text, 0, scan.Failure.Message)], scan.Failure, null);
            _lines.Add(new PendingLine(text, lineNumber, _frames.Count, 0, details));
        }
    }

    private LineScan ParseAndAdd(string text, long lineNumber)
    {
        int start = _frames.Count;
        LineScan r = _scanner.ScanLine(text, _frames);
        ModulePdbInfo? metadata = null;
        if (
            r.FrameCount == 0
            && text.Contains(',', StringComparison.Ordinal)
            && CsvSymbolMetadata.TryParseLine(text, lineNumber, out metadata)
        )
        {
            _metadata.Add(metadata, _filePath);
            _hasMetadata = true;
        }

        LineDetails? details =
            r.Unparsed is not null || r.Diagnostic is not null || metadata is not null
                ? new LineDetails(r.Unparsed, r.Diagnostic, metadata)
                : null;
        _lines.Add(new PendingLine(text, lineNumber, start, r.FrameCount, details));
        if (!_hasNonBlank && !string.IsNullOrWhiteSpace(text))
        {
            _hasNonBlank = true;
        }

        for (int i = start; i < _frames.Count; i++)
        {
            Track(_frames[i]);
        }

        return r;
    }

    private void Track(StackFrame f)
    {
        switch (f)
        {
            case SymbolizedFrame s when s.Module is null:
                _modulelessSymbols++;
                break;
            case SymbolizedFrame:
                break;
            case ModuleOffsetFrame m
                when m.Provenance == FrameProvenance.ModuleOffsetText && !m.ModuleName.HasImageExtension:
                break;
            default:
                _blocksReinterpretation = true;
                break;
        }
    }

    /// <summary>
    /// A stack of module-less symbols (2008 R2 trace flag 3656 output, hand-copied stacks) also holds bare function
    /// names (<c>OpenSystemTableRowset</c>) and <c>Name+hex</c> frames that read like module+offset: read those as
    /// symbols too.
    /// </summary>
    private void Reinterpret()
    {
        var frames = new List<StackFrame>(_frames.Count + 4);
        for (int i = 0; i < _lines.Count; i++)
        {
            PendingLine p = _lines[i];
            int start = frames.Count;
            if (p.Count == 0)
            {
                ReadOnlySpan<char> t = p.Text.AsSpan().Trim();
                if (p.Details is null && IsIdentifier(t))
                {
                    frames.Add(
                        new SymbolizedFrame(null, t.ToString(), null, t.ToString(), FrameProvenance.SymbolizedCapture)
                    );
                    _lines[i] = p with { Start = start, Count = 1 };
                }
                else
                {
                    _lines[i] = p with { Start = start };
                }

                continue;
            }

            for (int k = 0; k < p.Count; k++)
            {
                StackFrame f = _frames[p.Start + k];
                if (
                    _radix == OffsetRadix.Hex
                    && f is ModuleOffsetFrame m
                    && m.Provenance == FrameProvenance.ModuleOffsetText
                )
                {
                    f = new SymbolizedFrame(
                        null,
                        m.ModuleName.Name,
                        m.Offset,
                        m.Raw,
                        FrameProvenance.SymbolizedCapture,
                        m.FrameNumber
                    );
                }

                frames.Add(f);
            }

            _lines[i] = p with { Start = start };
        }

        _frames.Clear();
        _frames.AddRange(frames);
    }

    private static bool IsIdentifier(ReadOnlySpan<char> t)
    {
        if (t.IsEmpty || t.Length > 512 || !(char.IsAsciiLetter(t[0]) || t[0] == '_'))
        {
            return false;
        }

        foreach (char c in t)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c == '_'))
            {
                return false;
            }
        }

        return true;
    }
}

using System.Collections.Immutable;
using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Writes resolved stacks as text, the way <c>xeanalyze resolve</c> prints them: every input line kept in order; frames
/// one per line in the resolver's style, with the input's frame number (<c>{n:x2} </c>) when it had one (except for
/// unresolved <c>callstack_rva</c> frames, echoed as their markup with its <c>id</c>); unresolved frames as captured (a
/// line holding one unresolved frame is kept whole: a SQLDumper <c>Return Addr: … Module(…)</c> line, a numbered
/// frame), followed by
/// <c> -- unresolved: {reason}</c>; frames resolved against a PDB matched by name only (no GUID/age known) get
/// <c> -- unverified: PDB matched by name only</c> (part of their text); with inline frames
/// (<see cref="CallstackResolverOptions.IncludeInlineFrames"/>) each frame is preceded by its inline chain, innermost
/// first, one per line, and when the input numbered its frames the inline frames take numbers and shift the later ones;
/// text lines verbatim; histogram slots headed <c>Slot_{n}\t[count:{c}]:</c> and events
/// <c>Event …:</c>, each followed by a blank line, the frames and a blank line; a target's annotation (the free text
/// before it) before its first stack. Lines end with LF. Not thread-safe.
/// <para>
/// Over a <see cref="Stream"/> it writes UTF-8 (no byte order mark) through a buffer of its own, a resolved frame's
/// text copied from its <see cref="FrameResolution"/>, which holds it in UTF-8; call <see cref="Flush"/> at the end.
/// Over a
/// <see cref="TextWriter"/> it writes characters, and the caller flushes.
/// </para>
/// </summary>
internal sealed class ResolvedCallstackWriter
{
    private const int ByteBufferSize = 1 << 20;

    private readonly TextWriter? _output;
    private readonly Stream? _stream;
    private readonly byte[] _bytes = [];
    private readonly bool _writeReasons;
    private readonly char[] _number = new char[24];
    private int _used;
    private StackTargetInfo? _lastTarget;
    private int _numberShift;

    /// <summary>Creates a writer over characters.</summary>
    /// <param name="output">The destination (not disposed); a large buffered <see cref="StreamWriter"/> for big
    /// outputs.</param>
    /// <param name="writeReasons">Whether unresolved frames get their reason appended (<c> -- unresolved:
    /// …</c>).</param>
    public ResolvedCallstackWriter(TextWriter output, bool writeReasons = true)
    {
        ArgumentNullException.ThrowIfNull(output);
        _output = output;
        _writeReasons = writeReasons;
    }

    /// <summary>Creates a writer of UTF-8 bytes (no byte order mark), buffered; <see cref="Flush"/> writes what is
    /// buffered.</summary>
    /// <param name="output">The destination (not disposed).</param>
    /// <param name="writeReasons">Whether unresolved frames get their reason appended (<c> -- unresolved:
    /// …</c>).</param>
    public ResolvedCallstackWriter(Stream output, bool writeReasons = true)
    {
        ArgumentNullException.ThrowIfNull(output);
        if (!output.CanWrite)
        {
            throw new ArgumentException("The stream is not writable.", nameof(output));
        }

        _stream = output;
        _bytes = new byte[ByteBufferSize];
        _writeReasons = writeReasons;
    }

    /// <summary>Writes what is buffered to the destination and flushes it.</summary>
    public void Flush()
    {
        if (_stream is not null)
        {
            FlushBytes();
            _stream.Flush();
        }
        else
        {
            _output!.Flush();
        }
    }

    /// <summary>Writes one stack.</summary>
    /// <param name="stack">The resolved stack.</param>
    public void Write(ResolvedCallstack stack)
    {
        ArgumentNullException.ThrowIfNull(stack);
        StackHeader? header = stack.Stack.Header;
        if (header?.Target is StackTargetInfo target && !ReferenceEquals(target, _lastTarget))
        {
            _lastTarget = target;
            if (target.Annotation is string annotation)
            {
                WriteLines(annotation);
                Put('\n');
            }
        }

        bool framed = false;
        _numberShift = 0;
        if (header is not null && !stack.Stack.IsContinuation)
        {
            switch (header.Origin)
            {
                case StackOrigin.HistogramSlot:
                    Put("Slot_");
                    WriteNumber(header.SlotNumber ?? 0);
                    Put("\t[count:");
                    WriteNumber(header.SlotCount ?? 0);
                    Put("]:\n\n");
                    framed = true;
                    break;
                case StackOrigin.Event:
                    Put(EventHeader(header));
                    Put("\n\n");
                    framed = true;
                    break;
            }
        }

        WriteBody(stack);
        if (framed)
        {
            Put('\n');
        }
    }

    /// <summary>The header line of an event's stack: <c>Event key: …</c> for events carrying a <c>key</c> attribute
    /// (XEL exports), else <c>Event package.name timestamp [field]:</c>.</summary>
    /// <param name="header">The stack's header.</param>
    /// <returns>The line.</returns>
    public static string EventHeader(StackHeader header)
    {
        ArgumentNullException.ThrowIfNull(header);
        TargetEvent? ev = header.Event;
        if (ev is null)
        {
            return "Event:";
        }

        if (ev.GetAttribute("key") is string key)
        {
            return "Event key: " + key;
        }

        string name = ev.Package is null ? ev.Name : ev.Package + "." + ev.Name;
        string time = ev.TimestampText is null ? string.Empty : " " + ev.TimestampText;
        string field =
            header.Field is EventField f && !string.Equals(f.Name, "callstack", StringComparison.Ordinal)
                ? " [" + f.Name + "]"
                : string.Empty;
        return "Event " + name + time + field + ":";
    }

    private void WriteBody(ResolvedCallstack stack)
    {
        int frameIndex = 0;
        ImmutableArray<ResolvedFrame> frames = stack.Frames;
        foreach (StackLine line in stack.Stack.Lines)
        {
            int count = line.FrameCount;
            if (count == 0)
            {
                Put(line.Text);
                Put('\n');
                continue;
            }

            if (!line.HasUnparsed)
            {
                if (
                    count == 1
                    && frameIndex < frames.Length
                    && frames[frameIndex].Status == FrameResolutionStatus.Unresolved
                    && !line.Text.Contains('\n', StringComparison.Ordinal)
                )
                {
                    // An unresolved frame keeps its whole line (a SQLDumper "Return Addr: … Module(…)" line, a WinDbg k
                    // line, its number).
                    WriteUnresolvedLine(line.Text.Trim(), frames[frameIndex++].Resolution);
                    continue;
                }

                for (int k = 0; k < count && frameIndex < frames.Length; k++)
                {
                    WriteFrame(frames[frameIndex++]);
                }

                continue;
            }

            // Frames and the pieces that are not frames (a label, a malformed token), in their order on the line.
            IReadOnlyList<UnparsedToken> unparsed = line.Unparsed;
            int u = 0;
            int pieces = count + unparsed.Count;
            for (int p = 0; p < pieces; p++)
            {
                if (u < unparsed.Count && unparsed[u].Index == p)
                {
                    Put(unparsed[u++].Text);
                    Put('\n');
                }
                else if (frameIndex < frames.Length)
                {
                    WriteFrame(frames[frameIndex++]);
                }
            }
        }
    }

    private void WriteFrame(ResolvedFrame f)
    {
        FrameResolution r = f.Resolution;
        StackFrame frame = f.Frame;
        if (_stream is not null && r.Text is not null && !frame.HasFrameNumber && !r.HasInlineFrames)
        {
            // The common case over a stream: a resolved frame without number or inline frames is its encoded line.
            PutLine(r);
            return;
        }

        // An unresolved callstack_rva frame is echoed as its markup, which carries its id already.
        bool numbered =
            frame.FrameNumber is int && (r.Text is not null || frame.Provenance != FrameProvenance.CallstackRvaXml);
        int n = frame.FrameNumber ?? 0;
        if (numbered && n == 0)
        {
            // An input frame 00 starts a new stack: inline frames before it shifted nothing yet.
            _numberShift = 0;
        }

        // Inline frames (innermost first) come before the frame and, as SQLCallStackResolver numbers them, take numbers
        // of their own.
        IReadOnlyList<FrameResolution> inlines = r.InlineFrames;
        for (int i = 0; i < inlines.Count; i++)
        {
            if (numbered)
            {
                WriteFrameNumber(n + _numberShift++);
            }

            PutLine(inlines[i]);
        }

        if (numbered)
        {
            WriteFrameNumber(n + _numberShift);
        }

        if (r.Text is not null)
        {
            // A frame resolved through a PDB matched by name only carries " -- unverified: …" in its text already.
            PutLine(r);
            return;
        }

        Put(frame.Raw);
        if (_writeReasons)
        {
            Put(" -- unresolved: ");
            Put(r.ReasonText);
        }

        Put('\n');
    }

    private void WriteFrameNumber(int n)
    {
        n.TryFormat(_number, out int len, "x2", CultureInfo.InvariantCulture);
        _number[len++] = ' ';
        Put(_number, 0, len);
    }

    private void WriteUnresolvedLine(string text, FrameResolution r)
    {
        Put(text);
        if (_writeReasons)
        {
            Put(" -- unresolved: ");
            Put(r.ReasonText);
        }

        Put('\n');
    }

    private void WriteNumber(ulong value)
    {
        value.TryFormat(_number, out int len, default, CultureInfo.InvariantCulture);
        Put(_number, 0, len);
    }

    private void WriteNumber(int value) => WriteNumber((ulong)Math.Max(0, value));

    private void Put(string? text)
    {
        if (_stream is null)
        {
            _output!.Write(text);
        }
        else
        {
            PutUtf8(text);
        }
    }

    /// <summary>A resolution's <see cref="FrameResolution.Text"/> and a line feed.</summary>
    private void PutLine(FrameResolution r)
    {
        if (_stream is null)
        {
            _output!.Write(r.Text);
            _output.Write('\n');
        }
        else
        {
            PutBytes(r.Utf8Text!);
            Put('\n');
        }
    }

    private void PutUtf8(ReadOnlySpan<char> text)
    {
        if (text.Length > (_bytes.Length - _used) / 3)
        {
            FlushBytes();
            if (text.Length > _bytes.Length / 3)
            {
                // Whole strings only (no surrogate pair is split), so one conversion of the rest is exact.
                _stream!.Write(Encoding.UTF8.GetBytes(text.ToArray()));
                return;
            }
        }

        _used += Encoding.UTF8.GetBytes(text, _bytes.AsSpan(_used));
    }

    private void Put(char c)
    {
        if (_stream is null)
        {
            _output!.Write(c);
            return;
        }

        // Only ASCII punctuation is written a character at a time (line breaks, blanks).
        if (_used == _bytes.Length)
        {
            FlushBytes();
        }

        _bytes[_used++] = (byte)c;
    }

    private void Put(char[] chars, int start, int count)
    {
        if (_stream is null)
        {
            _output!.Write(chars, start, count);
        }
        else
        {
            PutUtf8(chars.AsSpan(start, count));
        }
    }

    private void PutBytes(byte[] bytes)
    {
        if (bytes.Length > _bytes.Length - _used)
        {
            FlushBytes();
            if (bytes.Length > _bytes.Length)
            {
                _stream!.Write(bytes);
                return;
            }
        }

        bytes.CopyTo(_bytes.AsSpan(_used));
        _used += bytes.Length;
    }

    private void FlushBytes()
    {
        if (_used > 0)
        {
            _stream!.Write(_bytes, 0, _used);
            _used = 0;
        }
    }

    private void WriteLines(string text)
    {
        foreach (string line in text.Split('\n'))
        {
            Put(line.TrimEnd('\r'));
            Put('\n');
        }
    }
}

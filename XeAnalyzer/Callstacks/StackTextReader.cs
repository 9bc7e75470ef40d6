using XeAnalyzer.Callstacks.Scanning;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Callstacks;

/// <summary>Options for <see cref="StackTextReader"/>.</summary>
internal sealed class StackTextReaderOptions
{
    /// <summary>The defaults.</summary>
    public static StackTextReaderOptions Default { get; } = new();

    /// <summary>The input's file name, used in error messages; <see langword="null"/> for a stream or pasted
    /// text.</summary>
    public string? FilePath { get; init; }

    /// <summary>
    /// Frames written on one line separated by blanks (SSMS grid copies, hand-pasted lists): when
    /// <see langword="true"/>, every piece of a line that parses as a frame is kept and the other pieces are reported
    /// in <see cref="StackLine.Unparsed"/>. When <see langword="false"/> (the default) a line yields frames only if all
    /// of its pieces are frames, apart from one leading label before a TAB (<c>callstack\t 0x… 0x…</c>); anything else
    /// stays text. Lines are always split at TABs and at blanks outside template brackets and backtick quotes.
    /// </summary>
    public bool FramesOnSingleLine { get; init; }

    /// <summary>
    /// The radix of symbolized displacements written without <c>0x</c>. <see cref="OffsetRadix.Hex"/> (the default) for
    /// every capture shape; <see cref="OffsetRadix.Decimal"/> only to re-read a resolver's own output. Module+offset
    /// and ordinal offsets are always hex.
    /// </summary>
    public OffsetRadix SymbolizedOffsetRadix { get; init; } = OffsetRadix.Hex;

    /// <summary>Caps on line length, XML value size and depth, lines per plain-text stack and frames per
    /// line.</summary>
    public TextInputLimits Limits { get; init; } = TextInputLimits.Default;

    /// <summary>
    /// Whether plain-text lines go through a <see cref="LineInterner"/> (a repeated frame line reuses its string and
    /// parsed frame); on by default. Off only to check, in tests, that interning changes nothing.
    /// </summary>
    internal bool InternLines { get; init; } = true;

    /// <summary>
    /// Whether plain-text XML values bypass the XML reader's text scan (see <see cref="XmlValueLifter"/>); on by
    /// default. Off only to check, in tests, that it changes nothing.
    /// </summary>
    internal bool LiftValues { get; init; } = true;
}

/// <summary>
/// Turns any callstack text input into a stream of <see cref="Callstack"/>s: plain frame lists (one stack per input, or
/// per dump block), histogram/bucketizer slots, ring-buffer and event-list events (every
/// <c>callstack</c>/<c>callstack_rva</c> action or field), bare <c>&lt;event&gt;</c> XML, <c>callstack_rva</c> frames
/// in any wrapping, CSV symbol metadata and SQLDumper text; several targets with free text between them; CR LF or LF; a
/// BOM; HTML-escaped inputs. Lines are streamed (a <see cref="TextReader"/> and an
/// <see cref="System.Xml.XmlReader"/> per target), so inputs of hundreds of MB never sit in memory whole.
/// </summary>
/// <remarks>
/// Each <see cref="Callstack"/> is independent of the reader once handed out. The reader is single-use and not
/// thread-safe.
/// </remarks>
internal sealed class StackTextReader : IDisposable
{
    private readonly TextSource _source;
    private readonly StackTextReaderOptions _options;
    private readonly FrameLineScanner _scanner;
    private readonly StackBuilder _builder;
    private readonly List<InputWarning> _warnings = [];
    private DumpMarker[] _dumpMarkerOfLine = [];
    private bool _started;

    /// <summary>Creates a reader over a text input.</summary>
    /// <param name="input">The text; not disposed by the reader.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    public StackTextReader(TextReader input, StackTextReaderOptions? options = null)
        : this(input, options, ownsInput: false) { }

    private StackTextReader(TextReader input, StackTextReaderOptions? options, bool ownsInput)
    {
        ArgumentNullException.ThrowIfNull(input);
        _options = options ?? StackTextReaderOptions.Default;
        LineInterner? lines = _options.InternLines ? new LineInterner() : null;
        _source = new TextSource(input, _options.FilePath, _options.Limits, ownsInput, lines, _options.LiftValues);
        _scanner = new FrameLineScanner(
            _options.SymbolizedOffsetRadix,
            _options.FramesOnSingleLine,
            _options.Limits.MaxFramesPerLine
        );
        _builder = new StackBuilder(_scanner, SymbolMetadata, _options.FilePath, _options.SymbolizedOffsetRadix, lines);
    }

    /// <summary>
    /// The module → PDB identities found in CSV symbol-metadata lines so far (complete once the enumeration has
    /// finished). For inputs whose metadata follows the stacks, read it first with
    /// <see cref="CsvSymbolMetadata.ReadAll"/>.
    /// </summary>
    public SymbolMetadataTable SymbolMetadata { get; } = new();

    /// <summary>How many XML values were read without the XML reader's text scan so far (tests check that the fast path
    /// is taken).</summary>
    internal long LiftedValues => _source.Lifter?.Values ?? 0;

    /// <summary>How many histogram slots the reader took out of the XML whole (tests).</summary>
    internal long LiftedSlots => _source.Lifter?.Slots ?? 0;

    /// <summary>Non-fatal observations (histograms that may hold merged values, truncated targets), in input
    /// order.</summary>
    public IReadOnlyList<InputWarning> Warnings => _warnings;

    /// <summary>Opens a file (UTF-8 unless a BOM says otherwise, shared for reading while SQL Server writes); the
    /// reader owns and closes it.</summary>
    /// <param name="path">The file.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults;
    /// <see cref="StackTextReaderOptions.FilePath"/> defaults to <paramref name="path"/>.</param>
    public static StackTextReader OpenFile(string path, StackTextReaderOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options ??= StackTextReaderOptions.Default;
        if (options.FilePath is null)
        {
            options = new StackTextReaderOptions
            {
                FilePath = path,
                FramesOnSingleLine = options.FramesOnSingleLine,
                SymbolizedOffsetRadix = options.SymbolizedOffsetRadix,
                Limits = options.Limits,
                InternLines = options.InternLines,
                LiftValues = options.LiftValues,
            };
        }

        return new StackTextReader(TextInput.OpenText(path), options, ownsInput: true);
    }

    /// <summary>Parses a whole text held in memory (for small inputs and tests).</summary>
    /// <param name="text">The text.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the parse.</param>
    /// <returns>The stacks.</returns>
    /// <exception cref="InvalidTextInputException">Malformed XML, an over-long line, or one module with two PDB
    /// identities in CSV metadata.</exception>
    public static IReadOnlyList<Callstack> Parse(
        string text,
        StackTextReaderOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(text);
        using var reader = new StackTextReader(new StringReader(text), options);
        return reader.ReadStacks(cancellationToken).ToList();
    }

    /// <summary>Streams the stacks of the input, in input order. Can be called once.</summary>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    /// <returns>The stacks.</returns>
    /// <exception cref="InvalidTextInputException">Malformed XML (with the line), a DTD, an over-long line or value, a
    /// bad slot count, or one module with two PDB identities in CSV metadata.</exception>
    public IEnumerable<Callstack> ReadStacks(CancellationToken cancellationToken = default)
    {
        if (_started)
        {
            throw new InvalidOperationException("ReadStacks can be called only once per reader.");
        }

        _started = true;
        return Iterate(cancellationToken);
    }

    /// <summary>Closes the input when the reader owns it.</summary>
    public void Dispose() => _source.Dispose();

    private IEnumerable<Callstack> Iterate(CancellationToken ct)
    {
        int index = 0;
        int slotNumber = 0;
        int targetIndex = 0;
        bool runFlushed = false;
        StackHeader? runHeader = null;
        int maxLines = _options.Limits.MaxLinesPerStack;
        int lineCounter = 0;
        ct.ThrowIfCancellationRequested();

        while (true)
        {
            if ((++lineCounter & 255) == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            ScanKind kind = _source.Next();
            if (kind == ScanKind.End)
            {
                break;
            }

            if (kind == ScanKind.Text)
            {
                string line = _source.Text;
                if (StartsDump(line, _source.TextLineId))
                {
                    if (!_builder.IsBlank)
                    {
                        yield return _builder.Build(index++, runFlushed ? null : runHeader, runFlushed);
                    }
                    else
                    {
                        _builder.Reset();
                    }

                    runHeader = new StackHeader(
                        StackOrigin.SqlDumperBlock,
                        _source.ItemLine,
                        null,
                        null,
                        null,
                        null,
                        null,
                        line.Trim()
                    );
                    runFlushed = false;
                }

                _builder.AddLine(line, _source.ItemLine, _source.TextLineId);
                if (_builder.LineCount >= maxLines)
                {
                    yield return _builder.Build(index++, runFlushed ? null : runHeader, runFlushed);
                    runFlushed = true;
                }

                continue;
            }

            // A target starts: the text before it is its annotation if it is short prose, else a stack of its own.
            string? annotation = null;
            long annotationLine = 0;
            if (!_builder.IsBlank)
            {
                if (
                    !runFlushed
                    && runHeader is null
                    && !_builder.HasFrames
                    && !_builder.HasMetadata
                    && !_builder.HasPendingJoin
                    && _builder.LineCount <= 1000
                )
                {
                    annotation = _builder.JoinText(out annotationLine);
                    _builder.Reset();
                }
                else
                {
                    yield return _builder.Build(index++, runFlushed ? null : runHeader, runFlushed);
                }
            }
            else
            {
                _builder.Reset();
            }

            runFlushed = false;
            runHeader = null;
            StackTargetInfo? target = null;
            int stacksInTarget = 0;
            foreach (TargetDataElement element in TargetXmlParser.ParseRoot(_source, targetIndex++, ct))
            {
                switch (element)
                {
                    case TargetStart start:
                        target = new StackTargetInfo(start, annotation, annotationLine);
                        break;

                    case HistogramSlot slot:
                        if (slot.Value is not null)
                        {
                            _builder.AddValue(slot.Value);
                        }

                        stacksInTarget++;
                        yield return _builder.Build(
                            index++,
                            new StackHeader(
                                StackOrigin.HistogramSlot,
                                slot.LineNumber,
                                target,
                                slotNumber++,
                                slot,
                                null,
                                null,
                                null
                            ),
                            false
                        );
                        break;

                    case TargetEvent ev:
                    {
                        bool any = false;
                        foreach (EventField field in ev.Actions.Concat(ev.Fields))
                        {
                            if (!IsStackField(field))
                            {
                                continue;
                            }

                            any = true;
                            if (field.Value is not null)
                            {
                                _builder.AddValue(field.Value);
                            }

                            stacksInTarget++;
                            yield return _builder.Build(
                                index++,
                                new StackHeader(StackOrigin.Event, ev.LineNumber, target, null, null, ev, field, null),
                                false
                            );
                        }

                        if (!any)
                        {
                            stacksInTarget++;
                            yield return _builder.Build(
                                index++,
                                new StackHeader(StackOrigin.Event, ev.LineNumber, target, null, null, ev, null, null),
                                false
                            );
                        }

                        break;
                    }

                    case TargetEnd end:
                        foreach (string w in end.Warnings)
                        {
                            _warnings.Add(new InputWarning(end.Start.LineNumber, w));
                        }

                        if (stacksInTarget == 0 && target is not null)
                        {
                            yield return _builder.Build(
                                index++,
                                new StackHeader(
                                    StackOrigin.EmptyTarget,
                                    end.Start.LineNumber,
                                    target,
                                    null,
                                    null,
                                    null,
                                    null,
                                    null
                                ),
                                false
                            );
                        }

                        break;

                    default:
                        // event_counter values and event_file entries hold no stacks (read them with TargetDataReader).
                        break;
                }
            }
        }

        if (!_builder.IsBlank)
        {
            yield return _builder.Build(index, runFlushed ? null : runHeader, runFlushed);
        }
    }

    /// <summary>True for an action or field that holds a callstack: <c>callstack</c>, <c>callstack_rva</c>,
    /// <c>task_callstack_rva</c>, <c>tsql_callstack_rva</c>, <c>call_stack…</c>, <c>stack_frames…</c>, or type
    /// <c>callstack</c>.</summary>
    internal static bool IsStackField(EventField field) =>
        field.Name.Contains("callstack", StringComparison.OrdinalIgnoreCase)
        || field.Name.StartsWith("call_stack", StringComparison.OrdinalIgnoreCase)
        || field.Name.StartsWith("stack_frames", StringComparison.OrdinalIgnoreCase)
        || string.Equals(field.TypeName, "callstack", StringComparison.OrdinalIgnoreCase);

    /// <summary>
    /// Whether <paramref name="line"/> starts a SQLDumper stack dump, worked out once per kept line (by its
    /// <see cref="LineInterner"/> id, or -1).
    /// </summary>
    private bool StartsDump(string line, int lineId)
    {
        if (lineId < 0)
        {
            return IsDumpMarker(line);
        }

        LineInterner.EnsureRoom(ref _dumpMarkerOfLine, lineId);
        ref DumpMarker known = ref _dumpMarkerOfLine[lineId];
        if (known == DumpMarker.Unknown)
        {
            known = IsDumpMarker(line) ? DumpMarker.Yes : DumpMarker.No;
        }

        return known == DumpMarker.Yes;
    }

    private static bool IsDumpMarker(string line) =>
        line.Length >= 16
        && line.AsSpan().IndexOf(' ') >= 0
        && (
            line.Contains("BEGIN STACK DUMP", StringComparison.Ordinal)
            || line.Contains("Short Stack Dump", StringComparison.Ordinal)
        );

    /// <summary>What is known of a kept line: whether it starts a SQLDumper stack dump.</summary>
    private enum DumpMarker : byte
    {
        Unknown,
        No,
        Yes,
    }
}

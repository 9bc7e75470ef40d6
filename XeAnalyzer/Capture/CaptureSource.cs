using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>
/// What the user named, opened as inputs: <c>.xel</c> files, rollover sets (ordered by the FILETIME in their names),
/// folders (their
/// <c>*.xel</c> and target-data files), globs, and target-data XML files (histogram, ring_buffer, event_counter,
/// pair_matching, event_file, <c>event_data</c> rows), mixed. Each input is identified once, bound to its module map
/// once (<see cref="ModuleMapBinding"/>), and read in one pass that feeds every consumer: <c>.xel</c> events and
/// target-data events become the same <see cref="XEvent"/>s (the XML adapter lives here), histogram slots and
/// event_counter counts are reported as what they are, and everything the read finds is summed up in a
/// <see cref="CaptureSummary"/>.
/// </summary>
/// <remarks>
/// A file is read as target data when it is not a <c>.xel</c> file (by its magic) and its first non-blank text starts
/// with <c>&lt;</c> (or the HTML-escaped <c>&amp;lt;</c>); any other file is refused with
/// <see cref="InvalidXelDataException"/>. Immutable; each read is independent, so one source may be read by several
/// threads at once.
/// </remarks>
public sealed partial class CaptureSource
{
    private CaptureSource(IReadOnlyList<CaptureInput> inputs, CaptureReadOptions options, IReadOnlyList<string> names)
    {
        Inputs = inputs;
        Options = options;
        Names = names;
    }

    /// <summary>The inputs, in the order they are read.</summary>
    public IReadOnlyList<CaptureInput> Inputs { get; }

    /// <summary>The options the inputs were opened with.</summary>
    public CaptureReadOptions Options { get; }

    /// <summary>The paths, folders or globs as the caller named them.</summary>
    public IReadOnlyList<string> Names { get; }

    /// <summary>Expands, identifies and binds the inputs. Events are not read yet.</summary>
    /// <param name="inputs">Files, folders or globs.</param>
    /// <param name="options">Options; <see langword="null"/> for <see cref="CaptureReadOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops loading module maps.</param>
    /// <returns>The source.</returns>
    /// <exception cref="ArgumentException">No input was named.</exception>
    /// <exception cref="FileNotFoundException">An input, or the explicit module list, names nothing that
    /// exists.</exception>
    /// <exception cref="InvalidXelDataException">A file is neither a <c>.xel</c> capture nor XML (or is cut inside its
    /// file header).</exception>
    /// <exception cref="XeFormatException">The explicit module list is malformed.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    public static CaptureSource Open(
        IEnumerable<string> inputs,
        CaptureReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(inputs);
        options ??= CaptureReadOptions.Default;
        string[] list = [.. inputs];
        if (list.Length == 0)
        {
            throw new ArgumentException("At least one input is needed.", nameof(inputs));
        }

        ModuleMap? explicitMap = null;
        if (options.ModuleMapPath is string mp)
        {
            if (!File.Exists(mp))
            {
                throw new FileNotFoundException("the module list " + mp + " does not exist", mp);
            }

            explicitMap = ModuleMap.Load(mp, cancellationToken);
        }

        var result = new List<CaptureInput>();
        foreach (CaptureSet set in CaptureSet.Expand(list))
        {
            CaptureInputKind kind = Identify(set);
            string name = set.Files[0];
            ModuleMapBinding binding =
                explicitMap is not null
                    ? new ModuleMapBinding(explicitMap, options.ModuleMapPath, ModuleMapSource.Explicit)
                : options.UseSidecars
                    ? Sidecar(
                        kind == CaptureInputKind.Xel ? ModuleListSidecar.Find(set) : ModuleListSidecar.Find(name),
                        name,
                        cancellationToken
                    )
                : ModuleMapBinding.None;

            // A file's own list (a rollover set that spans a restart) takes precedence over the set's; --modules is
            // for every file.
            ModuleMapBinding[] fileMaps =
            [
                .. set.Files.Select(f =>
                    explicitMap is null && options.UseSidecars && ModuleListSidecar.FindForFile(f) is string own
                        ? Sidecar(own, f, cancellationToken)
                        : binding
                ),
            ];
            CaptureSet? xelSet = kind == CaptureInputKind.Xel ? set : null;
            result.Add(new CaptureInput(result.Count, kind, name, set.Files, xelSet, binding, fileMaps));
        }

        return new CaptureSource(result.AsReadOnly(), options, Array.AsReadOnly(list));
    }

    /// <summary>
    /// Reads every input once and pushes what it holds to the consumers: for each input
    /// <see cref="ICaptureConsumer.BeginInput"/>, then its events that pass <paramref name="filter"/> (to each consumer
    /// that <see cref="ICaptureConsumer.Accepts"/> them) and its histogram slots, in file order, then
    /// <see cref="ICaptureConsumer.EndInput"/> with what the read found in it.
    /// </summary>
    /// <param name="consumers">The consumers, called in this order for each item.</param>
    /// <param name="filter">Which events to deliver; <see langword="null"/> for all.</param>
    /// <param name="eventNames">
    /// The events the consumers read (short or full names), pushed down to the <c>.xel</c> reader so others are skipped
    /// before decoding (they are still counted by name); <see langword="null"/> to decode every event. The filter's own
    /// names, when it has any, take precedence.
    /// </param>
    /// <param name="diagnostics">Receives what was skipped or doubtful; <see langword="null"/> for a new
    /// collector.</param>
    /// <param name="cancellationToken">Checked between buffers and every 4,096 events.</param>
    /// <returns>What the read found.</returns>
    /// <exception cref="XeFormatException">An input is malformed (a <c>.xel</c> file in strict mode, XML that is not
    /// target data).</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public CaptureSummary Read(
        IReadOnlyList<ICaptureConsumer> consumers,
        EventFilter? filter = null,
        IReadOnlyCollection<string>? eventNames = null,
        CaptureDiagnostics? diagnostics = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(consumers);
        var reading = new Reading(
            this,
            filter ?? EventFilter.None,
            eventNames,
            diagnostics ?? new CaptureDiagnostics(),
            new EventDispatcher(consumers),
            pooled: true
        );
        foreach (ReadItem item in reading.Items(cancellationToken))
        {
            switch (item.Kind)
            {
                case ReadItemKind.Event:
                    reading.Dispatcher.Add(item.Event!);
                    break;
                case ReadItemKind.Slot:
                    foreach (ICaptureConsumer c in consumers)
                    {
                        c.AddHistogramSlot(item.Histogram!, item.Slot!);
                    }

                    break;
                case ReadItemKind.EndInput:
                    foreach (ICaptureConsumer c in consumers)
                    {
                        c.EndInput(item.Summary!);
                    }

                    break;
                default:
                    foreach (ICaptureConsumer c in consumers)
                    {
                        c.BeginInput(item.Input!);
                    }

                    break;
            }
        }

        return reading.Summary();
    }

    /// <summary>
    /// Streams the events of every input that pass <paramref name="filter"/>, input by input, each in file order
    /// (histogram slots are not events: use <see cref="Read"/> to receive them). When the enumeration ends,
    /// <paramref name="completed"/> receives what the read found.
    /// </summary>
    /// <param name="filter">Which events; <see langword="null"/> for all.</param>
    /// <param name="diagnostics">Receives what was skipped or doubtful; <see langword="null"/> for a new
    /// collector.</param>
    /// <param name="completed">Called once with the summary after the last event; <see langword="null"/> for
    /// none.</param>
    /// <param name="cancellationToken">Checked between buffers and every 4,096 events.</param>
    /// <returns>The events.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public IEnumerable<XEvent> ReadEvents(
        EventFilter? filter = null,
        CaptureDiagnostics? diagnostics = null,
        Action<CaptureSummary>? completed = null,
        CancellationToken cancellationToken = default
    ) => ReadEvents(filter, diagnostics, completed, null, cancellationToken);

    /// <summary>As the public overload, converting target-data events with the given adapters (whose schema was built
    /// by an earlier pass).</summary>
    internal IEnumerable<XEvent> ReadEvents(
        EventFilter? filter,
        CaptureDiagnostics? diagnostics,
        Action<CaptureSummary>? completed,
        IReadOnlyDictionary<CaptureInput, TargetEventAdapter>? adapters,
        CancellationToken cancellationToken
    )
    {
        var reading = new Reading(
            this,
            filter ?? EventFilter.None,
            null,
            diagnostics ?? new CaptureDiagnostics(),
            new EventDispatcher([]),
            pooled: false
        )
        {
            Adapters = adapters,
        };
        foreach (ReadItem item in reading.Items(cancellationToken))
        {
            if (item.Kind == ReadItemKind.Event)
            {
                reading.Dispatcher.Add(item.Event!);
                yield return item.Event!;
            }
        }

        completed?.Invoke(reading.Summary());
    }

    /// <summary>
    /// The event types each input defines, without reading its events: a <c>.xel</c> file's metadata, or, for target
    /// data, the types the XML adapter builds from the events (this reads the XML). For writers that need every column
    /// before the first row.
    /// </summary>
    /// <param name="filter">Only event types whose names pass the filter's names; <see langword="null"/> for
    /// all.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>Per input, the event types (in metadata order) and actions.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    public IReadOnlyList<(
        CaptureInput Input,
        IReadOnlyList<XeEventType> EventTypes,
        IReadOnlyList<XeColumn> Actions
    )> ReadSchemas(EventFilter? filter = null, CancellationToken cancellationToken = default)
    {
        filter ??= EventFilter.None;
        var result = new List<(CaptureInput, IReadOnlyList<XeEventType>, IReadOnlyList<XeColumn>)>();
        foreach (CaptureInput input in Inputs)
        {
            var types = new List<XeEventType>();
            var actions = new List<XeColumn>();
            if (input.Kind == CaptureInputKind.Xel)
            {
                foreach (string file in input.Files)
                {
                    XeSchema schema = XelReader.ReadSchema(
                        file,
                        new XelReadOptions { Integrity = Options.Integrity, Limits = Options.Limits },
                        cancellationToken
                    );
                    types.AddRange(schema.EventTypes.Where(filter.MatchesName));
                    actions.AddRange(schema.Actions);
                }
            }
            else
            {
                var adapter = new TargetEventAdapter(input.Name);
                var seenTypes = new HashSet<XeEventType>(ReferenceEqualityComparer.Instance);
                var seenActions = new HashSet<XeColumn>(ReferenceEqualityComparer.Instance);
                foreach (
                    TargetDataElement element in TargetDataReader.ReadFile(
                        input.Name,
                        new TargetDataReaderOptions { FilePath = input.Name, Limits = Options.TextLimits },
                        cancellationToken
                    )
                )
                {
                    if (element is TargetEvent te && filter.MatchesName(te.Package, te.Name))
                    {
                        XEvent e = adapter.Convert(te);
                        if (seenTypes.Add(e.EventType))
                        {
                            types.Add(e.EventType);
                        }

                        foreach (XeColumn a in e.Actions)
                        {
                            if (seenActions.Add(a))
                            {
                                actions.Add(a);
                            }
                        }
                    }
                }
            }

            result.Add((input, types.AsReadOnly(), actions.AsReadOnly()));
        }

        return result.AsReadOnly();
    }

    private static CaptureInputKind Identify(CaptureSet set)
    {
        if (set.Files.Count != 1 || set.IsRollover || set.Files[0].EndsWith(".xel", StringComparison.OrdinalIgnoreCase))
        {
            return CaptureInputKind.Xel;
        }

        string path = set.Files[0];
        XelFileIdentity id = XelFile.Identify(path);
        if (id.IsXel)
        {
            return CaptureInputKind.Xel;
        }

        if (LooksLikeXml(path))
        {
            return CaptureInputKind.TargetData;
        }

        throw new InvalidXelDataException(
            path,
            0,
            "expected a .xel capture (magic 0xEFAB375A) or target-data XML (starting with '<'): "
                + (id.Reason ?? "unknown content")
        );
    }

    private static ModuleMapBinding Sidecar(string? found, string inputName, CancellationToken cancellationToken)
    {
        if (found is null)
        {
            return ModuleMapBinding.None;
        }

        // A sidecar found beside an input is shown next to the input's path as given (not as the absolute path found).
        string? dir = Path.GetDirectoryName(inputName);
        string shown = string.IsNullOrEmpty(dir) ? Path.GetFileName(found) : Path.Combine(dir, Path.GetFileName(found));
        try
        {
            return new ModuleMapBinding(ModuleMap.Load(found, cancellationToken), shown, ModuleMapSource.Sidecar);
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            return new ModuleMapBinding(null, shown, ModuleMapSource.None, ex.Message);
        }
    }

    private static int? Line(long line) => line is > 0 and <= int.MaxValue ? (int)line : null;

    /// <summary>The name of an element in free text that looks like a target-data root this reader does not know
    /// (<c>&lt;…Target&gt;</c>), or <see langword="null"/>.</summary>
    private static string? UnknownTarget(string text)
    {
        ReadOnlySpan<char> t = text.AsSpan().TrimStart();
        if (t.StartsWith("&lt;", StringComparison.Ordinal))
        {
            t = t[4..];
        }
        else if (t.StartsWith("<", StringComparison.Ordinal))
        {
            t = t[1..];
        }
        else
        {
            return null;
        }

        int n = 0;
        while (n < t.Length && (char.IsAsciiLetterOrDigit(t[n]) || t[n] is '_' or '-' or '.' or ':'))
        {
            n++;
        }

        if (n == 0 || !char.IsAsciiLetter(t[0]))
        {
            return null;
        }

        ReadOnlySpan<char> name = t[..n];
        return
            name.EndsWith("Target", StringComparison.OrdinalIgnoreCase)
            || name.EndsWith("Targets", StringComparison.OrdinalIgnoreCase)
            ? name.ToString()
            : null;
    }

    private static bool LooksLikeXml(string path)
    {
        using var fs = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1);
        Span<byte> head = stackalloc byte[4096];
        int n = fs.ReadAtLeast(head, head.Length, throwOnEndOfStream: false);
        string text;
        if (n >= 2 && head[0] == 0xFF && head[1] == 0xFE)
        {
            text = Encoding.Unicode.GetString(head[2..n]);
        }
        else if (n >= 2 && head[0] == 0xFE && head[1] == 0xFF)
        {
            text = Encoding.BigEndianUnicode.GetString(head[2..n]);
        }
        else
        {
            int start = n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0;
            text = Encoding.UTF8.GetString(head[start..n]);
        }

        ReadOnlySpan<char> t = text.AsSpan().TrimStart();
        return t.StartsWith("<", StringComparison.Ordinal) || t.StartsWith("&lt;", StringComparison.Ordinal);
    }

    /// <summary>The most distinct event types of target data a read keeps for checking filter names.</summary>
    private const int MaxTypesRead = 10_000;

    /// <summary>A name no event has (event names cannot hold a NUL character).</summary>
    private const string NoEvent = "\0";

    private enum ReadItemKind : byte
    {
        BeginInput,
        Event,
        Slot,
        EndInput,
    }

    private readonly record struct ReadItem(
        ReadItemKind Kind,
        CaptureInput? Input,
        XEvent? Event,
        HistogramTarget? Histogram,
        HistogramSlot? Slot,
        InputSummary? Summary = null
    );
}

using System.Globalization;
using System.Text;
using XeAnalyzer.Events;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Analysis;

/// <summary>Options of <see cref="AnalysisInput"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class AnalysisInputOptions
{
    /// <summary>The defaults: strict reading, default limits.</summary>
    public static AnalysisInputOptions Default { get; } = new();

    /// <summary>What the <c>.xel</c> reader does with damaged buffers (default strict).</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Caps of the <c>.xel</c> reader.</summary>
    public XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Caps of the target-data XML reader.</summary>
    public TextInputLimits TextLimits { get; init; } = TextInputLimits.Default;
}

/// <summary>
/// The inputs of an analysis, opened as one stream of events: <c>.xel</c> files, rollover sets, folders (their <c>*.xel</c>
/// files) and globs (expanded by <see cref="CaptureSet.Expand"/>), and target-data XML files (ring_buffer, pair_matching,
/// <c>event_data</c> rows; see <see cref="TargetEventConverter"/>). A file is read as XML when it is not a <c>.xel</c> file and
/// its first non-blank character is <c>&lt;</c> (or it starts with the HTML-escaped <c>&amp;lt;</c>); any other file is
/// refused with <see cref="InvalidXelDataException"/>. Inputs are read in the order given, each rollover set in file order.
/// </summary>
/// <remarks>Enumerate <see cref="ReadEvents"/> once at a time; the counters describe the last enumeration. Not thread-safe.</remarks>
public sealed class AnalysisInput
{
    private readonly List<InputItem> _items;
    private readonly AnalysisInputOptions _options;
    private readonly List<string> _warnings = [];
    private long _eventsRead;
    private long _eventsMatched;

    private AnalysisInput(List<InputItem> items, AnalysisInputOptions options)
    {
        _items = items;
        _options = options;
        Captures = Array.AsReadOnly(items.Where(i => i.Set is not null).Select(i => i.Set!).ToArray());
        TargetDataFiles = Array.AsReadOnly(items.Where(i => i.XmlPath is not null).Select(i => i.XmlPath!).ToArray());
    }

    /// <summary>The <c>.xel</c> capture sets, in input order.</summary>
    public IReadOnlyList<CaptureSet> Captures { get; }

    /// <summary>The target-data XML files, in input order.</summary>
    public IReadOnlyList<string> TargetDataFiles { get; }

    /// <summary>What the <c>.xel</c> reader skipped or could not decode during the last enumeration.</summary>
    public XelDiagnostics Diagnostics { get; private set; } = new();

    /// <summary>Warnings about target-data inputs (truncated ring buffers, events without timestamps) from the last enumeration.</summary>
    public IReadOnlyList<string> Warnings => _warnings.AsReadOnly();

    /// <summary>Events read during the last enumeration (after the reader's event-name filter, before value and time conditions).</summary>
    public long EventsRead => _eventsRead;

    /// <summary>Events that passed the whole filter during the last enumeration.</summary>
    public long EventsMatched => _eventsMatched;

    /// <summary>Expands the inputs and classifies each file (<c>.xel</c> or target-data XML). Files are not read yet.</summary>
    /// <param name="inputs">Files, folders or globs.</param>
    /// <param name="options">Reader options; <see langword="null"/> for the defaults.</param>
    /// <returns>The input.</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists, or a glob or folder matches no file.</exception>
    /// <exception cref="InvalidXelDataException">A file is neither a <c>.xel</c> capture nor XML.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    public static AnalysisInput Open(IEnumerable<string> inputs, AnalysisInputOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        string[] list = [.. inputs];
        if (list.Length == 0)
        {
            throw new ArgumentException("At least one input is needed.", nameof(inputs));
        }

        var items = new List<InputItem>();
        foreach (CaptureSet set in CaptureSet.Expand(list))
        {
            if (set.Files.Count == 1 && !set.IsRollover && !set.Files[0].EndsWith(".xel", StringComparison.OrdinalIgnoreCase))
            {
                string path = set.Files[0];
                XelFileIdentity id = XelFile.Identify(path);
                if (!id.IsXel)
                {
                    if (LooksLikeXml(path))
                    {
                        items.Add(new InputItem(null, path));
                        continue;
                    }

                    throw new InvalidXelDataException(path, 0, "expected a .xel capture (magic 0xEFAB375A) or target-data XML (starting with '<'): " + (id.Reason ?? "unknown content"));
                }
            }

            items.Add(new InputItem(set, null));
        }

        return new AnalysisInput(items, options ?? AnalysisInputOptions.Default);
    }

    /// <summary>
    /// Streams the events of every input that pass <paramref name="filter"/>. The filter's event names (or, when it has none,
    /// <paramref name="defaultEventNames"/>) are pushed down to the <c>.xel</c> reader, which then skips other events before
    /// decoding them; the rest of the filter is applied to each event.
    /// </summary>
    /// <param name="filter">The filter; <see langword="null"/> for none.</param>
    /// <param name="defaultEventNames">The events to read when the filter names none (for example the events an analysis uses); <see langword="null"/> for all.</param>
    /// <param name="cancellationToken">Checked between buffers and events.</param>
    /// <returns>The events, input by input, each in file order.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public IEnumerable<XEvent> ReadEvents(EventFilter? filter = null, IReadOnlyCollection<string>? defaultEventNames = null, CancellationToken cancellationToken = default)
    {
        filter ??= EventFilter.None;
        IReadOnlyCollection<string>? names = filter.EventNames.Count > 0 ? filter.EventNames : defaultEventNames;
        var nameFilter = names is { Count: > 0 } ? new EventFilter(names) : EventFilter.None;
        Diagnostics = new XelDiagnostics();
        _warnings.Clear();
        _eventsRead = 0;
        _eventsMatched = 0;
        return Iterate(filter, nameFilter, names, cancellationToken);
    }

    /// <summary>
    /// Reads every event of every input (no filter) and counts them by full name: what a capture holds, for messages such as
    /// "no latch_acquired events; found wait_info (12)". A full pass over the inputs.
    /// </summary>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>Names with counts, most frequent first (ties by name, ordinal).</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    public IReadOnlyList<EventNameCount> CountEvents(CancellationToken cancellationToken = default)
    {
        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        XeEventType? last = null;
        string lastName = string.Empty;
        foreach (XEvent e in Iterate(EventFilter.None, EventFilter.None, null, cancellationToken, countOnly: true))
        {
            if (!ReferenceEquals(e.EventType, last))
            {
                last = e.EventType;
                lastName = e.FullName;
            }

            counts[lastName] = counts.GetValueOrDefault(lastName) + 1;
        }

        return [.. counts.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => new EventNameCount(kv.Key, kv.Value))];
    }

    private IEnumerable<XEvent> Iterate(EventFilter filter, EventFilter nameFilter, IReadOnlyCollection<string>? names, CancellationToken cancellationToken, bool countOnly = false)
    {
        XelDiagnostics diagnostics = countOnly ? new XelDiagnostics() : Diagnostics;
        var readOptions = new XelReadOptions
        {
            Integrity = _options.Integrity,
            Limits = _options.Limits,
            Diagnostics = diagnostics,
            EventNames = names,
        };
        bool needFilter = !filter.IsEmpty;
        foreach (InputItem item in _items)
        {
            if (item.Set is CaptureSet set)
            {
                foreach (XEvent e in XelReader.ReadEvents(set, readOptions, cancellationToken))
                {
                    if (countOnly)
                    {
                        yield return e;
                        continue;
                    }

                    _eventsRead++;
                    if (!needFilter || filter.Matches(e))
                    {
                        _eventsMatched++;
                        yield return e;
                    }
                }

                continue;
            }

            string path = item.XmlPath!;
            var converter = new TargetEventConverter(path);
            long counter = 0;
            foreach (TargetDataElement element in TargetDataReader.ReadFile(path, new TargetDataReaderOptions { FilePath = path, Limits = _options.TextLimits }, cancellationToken))
            {
                switch (element)
                {
                    case TargetEvent te:
                        if ((++counter & 0xFFF) == 0)
                        {
                            cancellationToken.ThrowIfCancellationRequested();
                        }

                        if (!nameFilter.MatchesName(te.Package, te.Name))
                        {
                            continue;
                        }

                        XEvent e = converter.Convert(te);
                        if (countOnly)
                        {
                            yield return e;
                            continue;
                        }

                        _eventsRead++;
                        if (!needFilter || filter.Matches(e))
                        {
                            _eventsMatched++;
                            yield return e;
                        }

                        break;
                    case TargetEnd end when !countOnly:
                        foreach (string w in end.Warnings)
                        {
                            _warnings.Add(path + ": line " + end.Start.LineNumber.ToString(CultureInfo.InvariantCulture) + ": " + w);
                        }

                        break;
                }
            }

            if (!countOnly && converter.EventsWithoutTimestamp > 0)
            {
                _warnings.Add(path + ": " + converter.EventsWithoutTimestamp.ToString("N0", CultureInfo.InvariantCulture) + " event(s) without a parseable timestamp (ordered first)");
            }
        }
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

    private sealed record InputItem(CaptureSet? Set, string? XmlPath);
}

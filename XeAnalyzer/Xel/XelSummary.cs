using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>What one event type looks like in a file: how many events, their time range and the actions they carry.</summary>
/// <remarks>Immutable.</remarks>
public sealed class XelEventTypeSummary
{
    internal XelEventTypeSummary(XeEventType eventType, long count, DateTime first, DateTime last, XeColumn[] actions)
    {
        EventType = eventType;
        Count = count;
        FirstTimestamp = first;
        LastTimestamp = last;
        Actions = actions;
    }

    /// <summary>The event type (fields with their types and maps).</summary>
    public XeEventType EventType { get; }

    /// <summary>Number of events of this type.</summary>
    public long Count { get; }

    /// <summary>Earliest event time.</summary>
    public DateTime FirstTimestamp { get; }

    /// <summary>Latest event time.</summary>
    public DateTime LastTimestamp { get; }

    /// <summary>Every action seen on events of this type, in first-seen order.</summary>
    public IReadOnlyList<XeColumn> Actions { get; }

    /// <summary>Whether a field or an action of this event type holds a callstack.</summary>
    public bool HasCallstack => EventType.HasCallstackField || Actions.Any(a => a.BaseType == XeBaseType.Callstack);
}

/// <summary>A summary of one <c>.xel</c> file: size, time range, counts by event, schema, callstacks and warnings.</summary>
/// <remarks>Immutable.</remarks>
public sealed class XelFileSummary
{
    internal XelFileSummary(string filePath, long length, XeSchema schema, XelEventTypeSummary[] types, int buffers, int metadataBuffers, XelDiagnostics diag)
    {
        FilePath = filePath;
        Length = length;
        Schema = schema;
        EventTypes = types;
        BufferCount = buffers;
        MetadataBufferCount = metadataBuffers;
        Warnings = diag.Warnings;
        SkippedBuffers = diag.SkippedBuffers;
        IncompleteBuffers = diag.IncompleteBuffers;
        UndecodableEvents = diag.UndecodableEvents;
        EventCount = types.Sum(t => t.Count);
        if (types.Length > 0)
        {
            FirstTimestamp = types.Min(t => t.FirstTimestamp);
            LastTimestamp = types.Max(t => t.LastTimestamp);
        }
    }

    /// <summary>The file.</summary>
    public string FilePath { get; }

    /// <summary>File size in bytes.</summary>
    public long Length { get; }

    /// <summary>The file's metadata.</summary>
    public XeSchema Schema { get; }

    /// <summary>Event types that occur in the file, ordered by full name (then package index).</summary>
    public IReadOnlyList<XelEventTypeSummary> EventTypes { get; }

    /// <summary>Number of events.</summary>
    public long EventCount { get; }

    /// <summary>Earliest event time, when there are events.</summary>
    public DateTime? FirstTimestamp { get; }

    /// <summary>Latest event time, when there are events.</summary>
    public DateTime? LastTimestamp { get; }

    /// <summary>Buffers read (metadata and events).</summary>
    public int BufferCount { get; }

    /// <summary>Metadata buffers read.</summary>
    public int MetadataBufferCount { get; }

    /// <summary>Warnings (with file offsets).</summary>
    public IReadOnlyList<XelWarning> Warnings { get; }

    /// <summary>Damaged buffers skipped.</summary>
    public long SkippedBuffers { get; }

    /// <summary>Incomplete final buffers.</summary>
    public long IncompleteBuffers { get; }

    /// <summary>Events whose event type could not be decoded.</summary>
    public long UndecodableEvents { get; }

    /// <summary>Whether anything was skipped or cut short.</summary>
    public bool IsPartial => SkippedBuffers > 0 || IncompleteBuffers > 0 || UndecodableEvents > 0;

    /// <summary>Whether any event carries a callstack (field or action).</summary>
    public bool HasCallstacks => EventTypes.Any(t => t.HasCallstack);

    /// <summary>Reads a file (events are enumerated but their values are not decoded) and summarizes it.</summary>
    /// <param name="path">The <c>.xel</c> file.</param>
    /// <param name="options">Integrity and limits (the event-name filter is ignored); a diagnostics collector given there also receives what the file's own summary records.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="InvalidXelDataException">The file is malformed.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static XelFileSummary Read(string path, XelReadOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        var diag = new XelDiagnostics();
        var opts = new XelReadOptions { Integrity = options?.Integrity ?? XelIntegrityHandling.Strict, Limits = options?.Limits ?? XeReaderLimits.Default, Diagnostics = diag };
        using var src = new FileRandomAccessSource(path, sequential: true);
        var reader = new XelFileReader(src, opts);
        var acc = new Dictionary<XeEventType, (long Count, DateTime First, DateTime Last, List<XeColumn> Actions, HashSet<XeActionSet> Sets)>(ReferenceEqualityComparer.Instance);
        foreach (XEvent e in reader.Read(false, cancellationToken))
        {
            if (!acc.TryGetValue(e.EventType, out var a))
            {
                a = (0, e.Timestamp, e.Timestamp, [], new HashSet<XeActionSet>(ReferenceEqualityComparer.Instance));
            }

            a.Count++;
            if (e.Timestamp < a.First)
            {
                a.First = e.Timestamp;
            }

            if (e.Timestamp > a.Last)
            {
                a.Last = e.Timestamp;
            }

            if (a.Sets.Add(e.ActionSet))
            {
                foreach (XeColumn c in e.ActionSet.Columns)
                {
                    if (!a.Actions.Contains(c))
                    {
                        a.Actions.Add(c);
                    }
                }
            }

            acc[e.EventType] = a;
        }

        XelEventTypeSummary[] types = [.. acc
            .Select(kv => new XelEventTypeSummary(kv.Key, kv.Value.Count, kv.Value.First, kv.Value.Last, [.. kv.Value.Actions]))
            .OrderBy(t => t.EventType.FullName, StringComparer.Ordinal)
            .ThenBy(t => t.EventType.Package.Index)];
        options?.Diagnostics?.Add(diag);
        return new XelFileSummary(path, src.Length, reader.Schema, types, reader.BufferCount, reader.MetadataBufferCount, diag);
    }
}

/// <summary>A summary of a capture set: its files' summaries and totals.</summary>
/// <remarks>Immutable.</remarks>
public sealed class XelCaptureSummary
{
    private XelCaptureSummary(CaptureSet set, XelFileSummary[] files)
    {
        Set = set;
        Files = files;
        Length = files.Sum(f => f.Length);
        EventCount = files.Sum(f => f.EventCount);
        FirstTimestamp = files.Where(f => f.FirstTimestamp.HasValue).Select(f => f.FirstTimestamp).Min();
        LastTimestamp = files.Where(f => f.LastTimestamp.HasValue).Select(f => f.LastTimestamp).Max();
        var counts = new SortedDictionary<string, long>(StringComparer.Ordinal);
        foreach (XelEventTypeSummary t in files.SelectMany(f => f.EventTypes))
        {
            counts[t.EventType.FullName] = counts.GetValueOrDefault(t.EventType.FullName) + t.Count;
        }

        CountsByEvent = counts.Select(kv => new KeyValuePair<string, long>(kv.Key, kv.Value)).ToArray();
    }

    /// <summary>The set.</summary>
    public CaptureSet Set { get; }

    /// <summary>Per-file summaries, in reading order.</summary>
    public IReadOnlyList<XelFileSummary> Files { get; }

    /// <summary>Total size in bytes.</summary>
    public long Length { get; }

    /// <summary>Total number of events.</summary>
    public long EventCount { get; }

    /// <summary>Earliest event time.</summary>
    public DateTime? FirstTimestamp { get; }

    /// <summary>Latest event time.</summary>
    public DateTime? LastTimestamp { get; }

    /// <summary>Event counts by <c>package.event</c>, ordered by name.</summary>
    public IReadOnlyList<KeyValuePair<string, long>> CountsByEvent { get; }

    /// <summary>Whether any file's result is partial.</summary>
    public bool IsPartial => Files.Any(f => f.IsPartial);

    /// <summary>Summarizes every file of <paramref name="set"/>.</summary>
    /// <param name="set">The set.</param>
    /// <param name="options">Integrity and limits.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="InvalidXelDataException">A file is malformed.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    public static XelCaptureSummary Read(CaptureSet set, XelReadOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(set);
        return new XelCaptureSummary(set, [.. set.Files.Select(f => XelFileSummary.Read(f, options, cancellationToken))]);
    }
}

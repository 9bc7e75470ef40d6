using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>One input file of a capture report.</summary>
/// <param name="Path">The file as shown (see <see cref="ReportOptions.DisplayPath"/>).</param>
/// <param name="Length">Size in bytes.</param>
/// <param name="Events">Events read from it.</param>
/// <param name="FirstEvent">Earliest event time, or <see langword="null"/>.</param>
/// <param name="LastEvent">Latest event time, or <see langword="null"/>.</param>
/// <param name="ModuleList">The module list used for its callstacks (as shown), or <see langword="null"/>.</param>
public sealed record CaptureFileSummary(string Path, long Length, long Events, DateTime? FirstEvent, DateTime? LastEvent, string? ModuleList);

/// <summary>One event of a capture report, by full name.</summary>
/// <param name="Name">The full name (<c>package.event</c>).</param>
/// <param name="Count">How many.</param>
/// <param name="FirstEvent">Earliest time.</param>
/// <param name="LastEvent">Latest time.</param>
/// <param name="HasCallstack">Whether its events carry a callstack (field or action).</param>
/// <param name="Actions">The actions seen on it (full names, ordinal order; at most 64).</param>
public sealed record CaptureEventSummary(string Name, long Count, DateTime FirstEvent, DateTime LastEvent, bool HasCallstack, IReadOnlyList<string> Actions);

/// <summary>What a capture report's inputs hold: files, time range, events by name, callstacks. Immutable.</summary>
public sealed class CaptureSummary : IDocumentSource
{
    internal CaptureSummary(IReadOnlyList<CaptureFileSummary> files, IReadOnlyList<CaptureEventSummary> events)
    {
        Files = files;
        Events = events;
        TotalEvents = events.Sum(e => e.Count);
        FirstEvent = events.Count == 0 ? null : events.Min(e => e.FirstEvent);
        LastEvent = events.Count == 0 ? null : events.Max(e => e.LastEvent);
        TotalLength = files.Sum(f => f.Length);
    }

    /// <summary>The input files, in reading order.</summary>
    public IReadOnlyList<CaptureFileSummary> Files { get; }

    /// <summary>Events by full name, most frequent first (ties by name, ordinal).</summary>
    public IReadOnlyList<CaptureEventSummary> Events { get; }

    /// <summary>All events read.</summary>
    public long TotalEvents { get; }

    /// <summary>Total size of the files in bytes.</summary>
    public long TotalLength { get; }

    /// <summary>Earliest event time, or <see langword="null"/> when there is no event.</summary>
    public DateTime? FirstEvent { get; }

    /// <summary>Latest event time, or <see langword="null"/> when there is no event.</summary>
    public DateTime? LastEvent { get; }

    /// <summary>Whether any event carries a callstack.</summary>
    public bool HasCallstacks => Events.Any(e => e.HasCallstack);

    /// <summary>The events found, as <see cref="Analysis.MissingData.Describe"/> takes them.</summary>
    /// <returns>Names with counts, most frequent first.</returns>
    public IReadOnlyList<EventNameCount> ToEventNameCounts() => [.. Events.Select(e => new EventNameCount(e.Name, e.Count))];

    /// <inheritdoc/>
    /// <remarks>The same in every view: a "Capture" section with the files and the events by name.</remarks>
    public ReportDocument ToDocument(DocumentView view) => new("Capture", [new ReportSection("Capture", ToBlocks())]);

    /// <summary>The files and events as report tables (the capture section of a report).</summary>
    /// <returns>The blocks.</returns>
    public IReadOnlyList<ReportBlock> ToBlocks()
    {
        var files = new TableBuilder("Files")
            .AddColumn(TableColumn.Text("file"))
            .AddColumn(TableColumn.Integer("bytes"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Timestamp("first event"))
            .AddColumn(TableColumn.Timestamp("last event"))
            .AddColumn(TableColumn.Text("module list"));
        foreach (CaptureFileSummary f in Files)
        {
            files.AddRow(f.Path, f.Length, f.Events, Time(f.FirstEvent), Time(f.LastEvent), f.ModuleList ?? string.Empty);
        }

        var events = new TableBuilder("Events by name")
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Timestamp("first"))
            .AddColumn(TableColumn.Timestamp("last"))
            .AddColumn(TableColumn.Text("callstack"))
            .AddColumn(TableColumn.Text("actions"));
        foreach (CaptureEventSummary e in Events)
        {
            events.AddRow(e.Name, e.Count, TableCell.FromPercentage(TotalEvents == 0 ? 0 : (double)e.Count / TotalEvents), e.FirstEvent, e.LastEvent, e.HasCallstack ? "yes" : "no", string.Join(", ", e.Actions));
        }

        return [files.Build(), events.Build()];
    }

    private static TableCell Time(DateTime? t) => t is DateTime v ? TableCell.FromDateTime(v) : TableCell.Empty;
}

/// <summary>Accumulates a <see cref="CaptureSummary"/> from the events of one pass. Not thread-safe.</summary>
internal sealed class CaptureSummaryBuilder(Func<string, string> display) : ICaptureConsumer
{
    private const int MaxNames = 10_000;
    private const int MaxActions = 64;

    private readonly List<FileState> _files = [];
    private readonly Dictionary<string, FileState> _filesByPath = new(StringComparer.Ordinal);
    private readonly Dictionary<string, EventState> _events = new(StringComparer.Ordinal);
    private readonly Dictionary<XeEventType, EventState> _byType = new(ReferenceEqualityComparer.Instance);
    private readonly HashSet<(EventState, XeActionSet)> _actionSets = [];
    private FileState? _lastFile;
    private string? _lastPath;
    private XeEventType? _lastType;
    private EventState? _lastEvent;
    private XeEventType? _otherType;
    private EventState? _otherEvent;

    public bool Accepts(XeEventType eventType, XeActionSet actions) => true;

    /// <summary>Registers an input's files (so files without events are listed too), with the module list shown beside them.</summary>
    public void BeginInput(CaptureInput input)
    {
        string? list = input.ModuleMap.Map is not null ? input.ModuleMap.Path : null;
        foreach (string f in input.Files)
        {
            AddFile(f, Length(f), list);
        }
    }

    private static long Length(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    public void AddFile(string path, long length, string? moduleList)
    {
        if (!_filesByPath.ContainsKey(path))
        {
            var f = new FileState(path, length, moduleList);
            _files.Add(f);
            _filesByPath.Add(path, f);
        }
    }

    public void Add(XEvent e)
    {
        string? path = e.Source.FilePath;
        if (!ReferenceEquals(path, _lastPath) || _lastFile is null)
        {
            _lastPath = path;
            string key = path ?? string.Empty;
            if (!_filesByPath.TryGetValue(key, out _lastFile))
            {
                _lastFile = new FileState(key, 0, null);
                _files.Add(_lastFile);
                _filesByPath.Add(key, _lastFile);
            }
        }

        DateTime timestamp = e.Timestamp;
        _lastFile.Add(timestamp);
        XeEventType type = e.EventType;
        if (!ReferenceEquals(type, _lastType))
        {
            // Captures often alternate two event types: the type before the last is kept too, so switching back costs no lookup.
            if (ReferenceEquals(type, _otherType))
            {
                (_otherType, _lastType) = (_lastType, _otherType);
                (_otherEvent, _lastEvent) = (_lastEvent, _otherEvent);
            }
            else
            {
                _otherType = _lastType;
                _otherEvent = _lastEvent;
                _lastType = type;
                _lastEvent = Lookup(e);
            }
        }

        EventState s = _lastEvent!;
        s.Add(timestamp);
        XeActionSet actions = e.ActionSet;
        if (!ReferenceEquals(actions, s.LastActions))
        {
            // Each event type usually carries one action set: the set last seen with this type is checked first.
            s.LastActions = actions;
            if (_actionSets.Count < 100_000 && _actionSets.Add((s, actions)))
            {
                s.HasCallstack |= StackColumns.Find(type, actions, null, out _) is not null;
                foreach (XeColumn c in actions.Columns)
                {
                    if (s.Actions.Count < MaxActions)
                    {
                        s.Actions.Add(c.FullName);
                    }
                }
            }
        }
    }

    private EventState Lookup(XEvent e)
    {
        if (!_byType.TryGetValue(e.EventType, out EventState? state))
        {
            string name = e.FullName;
            if (!_events.TryGetValue(name, out state))
            {
                if (_events.Count >= MaxNames)
                {
                    name = "(other events)";
                    _events.TryGetValue(name, out state);
                }

                if (state is null)
                {
                    state = new EventState(name);
                    _events.Add(name, state);
                }
            }

            if (_byType.Count < 100_000)
            {
                _byType.Add(e.EventType, state);
            }
        }

        return state;
    }

    public CaptureSummary Build()
    {
        CaptureFileSummary[] files = [.. _files.Select(f => new CaptureFileSummary(
            f.Path.Length == 0 ? "(built events)" : display(f.Path), f.Length, f.Events, f.Events > 0 ? f.First : null, f.Events > 0 ? f.Last : null,
            f.ModuleList is null ? null : display(f.ModuleList)))];
        CaptureEventSummary[] events = [.. _events.Values
            .OrderByDescending(e => e.Count).ThenBy(e => e.Name, StringComparer.Ordinal)
            .Select(e => new CaptureEventSummary(e.Name, e.Count, e.First, e.Last, e.HasCallstack, [.. e.Actions.Order(StringComparer.Ordinal)]))];
        return new CaptureSummary(files, events);
    }

    private sealed class FileState(string path, long length, string? moduleList)
    {
        public string Path { get; } = path;

        public long Length { get; } = length;

        public string? ModuleList { get; } = moduleList;

        public long Events { get; private set; }

        public DateTime First { get; private set; } = DateTime.MaxValue;

        public DateTime Last { get; private set; } = DateTime.MinValue;

        public void Add(DateTime t)
        {
            Events++;
            if (t < First)
            {
                First = t;
            }

            if (t > Last)
            {
                Last = t;
            }
        }
    }

    private sealed class EventState(string name)
    {
        public string Name { get; } = name;

        public long Count { get; private set; }

        public DateTime First { get; private set; } = DateTime.MaxValue;

        public DateTime Last { get; private set; } = DateTime.MinValue;

        public bool HasCallstack { get; set; }

        public HashSet<string> Actions { get; } = new(StringComparer.Ordinal);

        /// <summary>The action set of the last event of this type (its actions are already listed).</summary>
        public XeActionSet? LastActions { get; set; }

        public void Add(DateTime t)
        {
            Count++;
            if (t < First)
            {
                First = t;
            }

            if (t > Last)
            {
                Last = t;
            }
        }
    }

    internal static string Describe(DateTime? t) => t is DateTime v ? CellFormatter.IsoUtc(v) : "-";
}

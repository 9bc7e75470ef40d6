using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Reporting;

/// <summary>
/// What inputs hold, as <c>xeanalyze info</c> shows it: per <c>.xel</c> file and set, size, time range, counts by event, each event's
/// fields and actions with their types, callstacks and warnings; per target-data XML file, its targets (kind, histogram source and slots,
/// event_counter counts, truncation), events by name, the schema the XML carries, and warnings. Immutable.
/// </summary>
public sealed class CaptureInfo : IDocumentSource
{
    private readonly IReadOnlyList<OutlineItem> _items;

    private CaptureInfo(IReadOnlyList<OutlineItem> items)
    {
        _items = items;
    }

    /// <summary>Reads what the inputs hold (each input once; the metadata and the events' shapes, not their values).</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="diagnostics">Where the reader's warnings and those of target data go.</param>
    /// <param name="cancellationToken">Stops the reading.</param>
    /// <returns>The description.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static CaptureInfo Read(CaptureSource source, CaptureDiagnostics diagnostics, CancellationToken cancellationToken = default) =>
        new([.. ReadEach(source, diagnostics, cancellationToken).SelectMany(i => i._items)]);

    /// <summary>Reads what each input holds, one input at a time (so a console shows each input before the next is read).</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="diagnostics">Where the reader's warnings and those of target data go.</param>
    /// <param name="cancellationToken">Stops the reading.</param>
    /// <returns>One description per input, read as it is enumerated.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static IEnumerable<CaptureInfo> ReadEach(CaptureSource source, CaptureDiagnostics diagnostics, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(diagnostics);
        return Iterate(source, diagnostics, cancellationToken);
    }

    private static IEnumerable<CaptureInfo> Iterate(CaptureSource source, CaptureDiagnostics diagnostics, CancellationToken cancellationToken)
    {
        foreach (CaptureInput i in source.Inputs)
        {
            var items = new List<OutlineItem>();
            if (i.Kind == CaptureInputKind.Xel)
            {
                XelCaptureSummary summary = XelCaptureSummary.Read(i.Set!, new XelReadOptions { Integrity = source.Options.Integrity, Limits = source.Options.Limits, Diagnostics = diagnostics.Reader }, cancellationToken);
                AddXel(items, summary);
            }
            else
            {
                AddTargetData(items, i, source.Options, diagnostics, cancellationToken);
            }

            yield return new CaptureInfo(items.AsReadOnly());
        }
    }

    /// <inheritdoc/>
    /// <remarks>The same in every view: an untitled outline without a generated-by line.</remarks>
    public ReportDocument ToDocument(DocumentView view) => new(string.Empty, [new ReportSection(string.Empty, new Outline(_items))]) { Generator = null };

    private static string Time(DateTime? t) => t is DateTime v ? CellFormatter.IsoUtc(v) : "-";

    private static string Count(string name, long count) => string.Create(CultureInfo.InvariantCulture, $"{name,-60} {count,10}");

    private static void AddXel(List<OutlineItem> o, XelCaptureSummary s)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        o.Add(new(0, string.Create(ic, $"capture {s.Set.Name}: {s.Files.Count} file(s){(s.Set.IsRollover ? " (rollover set)" : string.Empty)}")));
        foreach (XelFileSummary f in s.Files)
        {
            o.Add(new(0, "file " + f.FilePath));
            o.Add(new(1, string.Create(ic, $"size: {f.Length} bytes, {f.BufferCount} buffers ({f.MetadataBufferCount} metadata), pointer size {f.Schema.PointerSize}")));
            o.Add(new(1, "time range: " + Time(f.FirstTimestamp) + " .. " + Time(f.LastTimestamp)));
            o.Add(new(1, string.Create(ic, $"events: {f.EventCount}")));
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.Add(new(2, Count(t.EventType.FullName, t.Count)));
            }

            o.Add(new(1, "callstacks: " + (f.HasCallstacks ? "yes" : "no")));
            o.Add(new(1, "schema:"));
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.Add(new(2, string.Create(ic, $"{t.EventType.FullName} (package index {t.EventType.Package.Index}, uuid {t.EventType.Uuid}){(t.HasCallstack ? " [callstack]" : string.Empty)}")));
                AddColumns(o, t.EventType.Fields, t.Actions);
            }

            o.Add(new(1, string.Create(ic, $"warnings: {f.Warnings.Count}")));
            foreach (XelWarning w in f.Warnings)
            {
                o.Add(new(2, w.ToString()));
            }
        }

        if (s.Files.Count > 1)
        {
            o.Add(new(0, string.Create(ic, $"set total: {s.Length} bytes, {s.EventCount} events, {Time(s.FirstTimestamp)} .. {Time(s.LastTimestamp)}")));
            foreach (KeyValuePair<string, long> kv in s.CountsByEvent)
            {
                o.Add(new(2, Count(kv.Key, kv.Value)));
            }
        }
    }

    private static void AddColumns(List<OutlineItem> o, IEnumerable<XeColumn> fields, IEnumerable<XeColumn> actions)
    {
        foreach (XeColumn c in fields)
        {
            o.Add(new(3, "field  " + c.Name + " : " + Describe(c)));
        }

        foreach (XeColumn c in actions)
        {
            o.Add(new(3, "action " + c.FullName + " : " + Describe(c)));
        }
    }

    private static void AddTargetData(List<OutlineItem> o, CaptureInput input, CaptureReadOptions options, CaptureDiagnostics runDiagnostics, CancellationToken cancellationToken)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var shapes = new SchemaCollector();
        var diagnostics = new CaptureDiagnostics();
        CaptureReadSummary read = CaptureSource.Open([input.Name], new CaptureReadOptions { Integrity = options.Integrity, Limits = options.Limits, TextLimits = options.TextLimits, UseSidecars = false }, cancellationToken)
            .Read([shapes], EventFilter.None, null, diagnostics, cancellationToken);
        InputReadSummary r = read.Inputs[0];
        o.Add(new(0, "target data " + input.Name));
        o.Add(new(1, string.Create(ic, $"size: {new FileInfo(input.Name).Length} bytes, {r.Targets.Count} target(s)")));
        int histogram = 0;
        for (int index = 0; index < r.Targets.Count; index++)
        {
            TargetSummary t = r.Targets[index];
            string head = string.Create(ic, $"line {t.LineNumber}: {t.KindName} ({t.RootName})");
            switch (t.Kind)
            {
                case TargetData.TargetDataKind.Histogram:
                    HistogramTarget h = r.Histograms[histogram++];
                    string source = h.SourceKind switch
                    {
                        HistogramSourceKind.Callstack => "callstacks",
                        HistogramSourceKind.Value => h.ValuesAreIntegers ? "an event field or action (numbers or map keys)" : "an event field or action (text)",
                        _ => "unknown (no slot has a value)",
                    };
                    o.Add(new(1, head + string.Create(ic, $": source {source}; {h.SlotCount} slot(s), {h.TotalCount} event(s) counted; buckets {(h.Buckets is int b ? b.ToString(ic) : "-")}{(h.SlotsReachedBuckets ? " (every slot in use: values may have been merged)" : h.Buckets is not null ? " (not all in use)" : string.Empty)}; truncated {(h.Truncated ? "yes" : "no")}")));
                    break;
                case TargetData.TargetDataKind.EventCounter:
                    o.Add(new(1, head + string.Create(ic, $": {t.ItemCount} counter(s); truncated {(t.Truncated ? "yes" : "no")}")));
                    foreach (EventCounterValueRead c in r.EventCounters.Where(c => c.TargetIndex == index))
                    {
                        o.Add(new(2, string.Create(ic, $"{c.FullName,-60} {c.Count,10}")));
                    }

                    break;
                case TargetData.TargetDataKind.EventFile:
                    o.Add(new(1, head + string.Create(ic, $": files {string.Join(", ", t.EventFiles)}; buffers logged {(t.BuffersLogged?.ToString(ic) ?? "-")}, dropped {(t.BuffersDropped?.ToString(ic) ?? "-")}; truncated {(t.Truncated ? "yes" : "no")}")));
                    break;
                default:
                    string attrs = string.Join(", ", t.Attributes.Where(a => a.Key != "truncated").Select(a => a.Key + " " + a.Value));
                    o.Add(new(1, head + string.Create(ic, $": {t.ItemCount} event(s){(attrs.Length > 0 ? " (" + attrs + ")" : string.Empty)}; truncated {(t.Truncated ? "yes" : "no")}")));
                    break;
            }
        }

        o.Add(new(1, "time range: " + Time(r.FirstTimestamp) + " .. " + Time(r.LastTimestamp)));
        o.Add(new(1, string.Create(ic, $"events: {r.EventsByName.Sum(e => e.Count)}")));
        foreach (EventNameCount e in r.EventsByName)
        {
            o.Add(new(2, Count(e.Name, e.Count)));
        }

        o.Add(new(1, "callstacks: " + (shapes.HasStacks || r.Histograms.Any(h => h.SourceKind == HistogramSourceKind.Callstack) ? "yes" : "no")));
        o.Add(new(1, "schema (as the XML carries it: types from <type> elements or inferred from values):"));
        foreach ((XeEventType type, List<XeColumn> actions, bool stack) in shapes.Types)
        {
            o.Add(new(2, type.FullName + (stack ? " [callstack]" : string.Empty)));
            AddColumns(o, type.Fields, actions);
        }

        IReadOnlyList<string> warnings = diagnostics.Warnings;
        o.Add(new(1, string.Create(ic, $"warnings: {warnings.Count}")));
        foreach (string w in warnings)
        {
            o.Add(new(2, w));
            runDiagnostics.Warn(w);
        }
    }

    private static string Describe(XeColumn c) => c.Map is XeMap m
        ? "map " + m.Package.Name + "." + m.Name + (m.IsBitmask ? " (bitmask)" : string.Empty)
        : c.TypeName;

    /// <summary>Collects the event shapes (one entry per event name, fields and actions merged over its shapes) without receiving events.</summary>
    private sealed class SchemaCollector : ICaptureConsumer
    {
        private readonly Dictionary<string, (XeEventType Type, List<XeColumn> Actions, bool Stack)> _byName = new(StringComparer.Ordinal);
        private readonly List<string> _order = [];

        public bool HasStacks { get; private set; }

        public IEnumerable<(XeEventType Type, List<XeColumn> Actions, bool Stack)> Types => _order.Select(n => _byName[n]);

        public bool Accepts(XeEventType eventType, XeActionSet actions)
        {
            bool stack = StackColumns.Find(eventType, actions, null, out _) is not null;
            HasStacks |= stack;
            if (!_byName.TryGetValue(eventType.FullName, out var entry))
            {
                entry = (eventType, [], stack);
                _order.Add(eventType.FullName);
            }

            foreach (XeColumn a in actions.Columns)
            {
                if (!entry.Actions.Exists(x => x.FullName == a.FullName))
                {
                    entry.Actions.Add(a);
                }
            }

            _byName[eventType.FullName] = (entry.Type.Fields.Count >= eventType.Fields.Count ? entry.Type : eventType, entry.Actions, entry.Stack || stack);
            return false;
        }

        public void Add(XEvent e)
        {
        }
    }
}

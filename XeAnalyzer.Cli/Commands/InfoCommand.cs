using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze info &lt;input...&gt;</c>: per <c>.xel</c> file and set, size, time range, counts by event, schema, callstacks and
/// warnings; per target-data XML file, its targets (kind, histogram source and slots, event_counter counts, truncation), events by name,
/// the schema the XML carries, and warnings.
/// </summary>
internal static class InfoCommand
{
    public static Command Create()
    {
        var command = new Command("info", "Describe captures and target data: size, time range, event counts, each event's fields and actions with types, callstacks, histograms, event_counter counts, warnings.");
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        command.SetAction((parse, cancellationToken) => Task.FromResult(CaptureCommandSupport.Run(parse, (output, error) =>
        {
            CaptureSource source = input.Open(parse, null, cancellationToken);
            var diagnostics = new CaptureDiagnostics();
            foreach (CaptureInput i in source.Inputs)
            {
                if (i.Kind == CaptureInputKind.Xel)
                {
                    XelCaptureSummary summary = XelCaptureSummary.Read(i.Set!, new XelReadOptions { Integrity = source.Options.Integrity, Limits = source.Options.Limits, Diagnostics = diagnostics.Reader }, cancellationToken);
                    WriteXel(output, summary);
                }
                else
                {
                    WriteTargetData(output, i, source.Options, diagnostics, cancellationToken);
                }
            }

            output.Flush();
            return CaptureCommandSupport.Finish(diagnostics, error);
        })));
        return command;
    }

    private static string Time(DateTime? t) => t is DateTime v ? CaptureCommandSupport.IsoUtc(v) : "-";

    private static void WriteXel(TextWriter o, XelCaptureSummary s)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        o.WriteLine(string.Create(ic, $"capture {s.Set.Name}: {s.Files.Count} file(s){(s.Set.IsRollover ? " (rollover set)" : string.Empty)}"));
        foreach (XelFileSummary f in s.Files)
        {
            o.WriteLine(string.Create(ic, $"file {f.FilePath}"));
            o.WriteLine(string.Create(ic, $"  size: {f.Length} bytes, {f.BufferCount} buffers ({f.MetadataBufferCount} metadata), pointer size {f.Schema.PointerSize}"));
            o.WriteLine(string.Create(ic, $"  time range: {Time(f.FirstTimestamp)} .. {Time(f.LastTimestamp)}"));
            o.WriteLine(string.Create(ic, $"  events: {f.EventCount}"));
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.WriteLine(string.Create(ic, $"    {t.EventType.FullName,-60} {t.Count,10}"));
            }

            o.WriteLine(string.Create(ic, $"  callstacks: {(f.HasCallstacks ? "yes" : "no")}"));
            o.WriteLine("  schema:");
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.WriteLine(string.Create(ic, $"    {t.EventType.FullName} (package index {t.EventType.Package.Index}, uuid {t.EventType.Uuid}){(t.HasCallstack ? " [callstack]" : string.Empty)}"));
                foreach (XeColumn c in t.EventType.Fields)
                {
                    o.WriteLine("      field  " + c.Name + " : " + Describe(c));
                }

                foreach (XeColumn c in t.Actions)
                {
                    o.WriteLine("      action " + c.FullName + " : " + Describe(c));
                }
            }

            o.WriteLine(string.Create(ic, $"  warnings: {f.Warnings.Count}"));
            foreach (XelWarning w in f.Warnings)
            {
                o.WriteLine("    " + w.ToString());
            }
        }

        if (s.Files.Count > 1)
        {
            o.WriteLine(string.Create(ic, $"set total: {s.Length} bytes, {s.EventCount} events, {Time(s.FirstTimestamp)} .. {Time(s.LastTimestamp)}"));
            foreach (KeyValuePair<string, long> kv in s.CountsByEvent)
            {
                o.WriteLine(string.Create(ic, $"    {kv.Key,-60} {kv.Value,10}"));
            }
        }
    }

    private static void WriteTargetData(TextWriter o, CaptureInput input, CaptureReadOptions options, CaptureDiagnostics runDiagnostics, CancellationToken cancellationToken)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var shapes = new SchemaCollector();
        var diagnostics = new CaptureDiagnostics();
        CaptureReadSummary read = CaptureSource.Open([input.Name], new CaptureReadOptions { Integrity = options.Integrity, Limits = options.Limits, TextLimits = options.TextLimits, UseSidecars = false }, cancellationToken)
            .Read([shapes], EventFilter.None, null, diagnostics, cancellationToken);
        InputReadSummary r = read.Inputs[0];
        o.WriteLine("target data " + input.Name);
        o.WriteLine(string.Create(ic, $"  size: {new FileInfo(input.Name).Length} bytes, {r.Targets.Count} target(s)"));
        int histogram = 0;
        foreach (TargetSummary t in r.Targets)
        {
            string head = string.Create(ic, $"  line {t.LineNumber}: {t.KindName} ({t.RootName})");
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
                    o.WriteLine(head + string.Create(ic, $": source {source}; {h.SlotCount} slot(s), {h.TotalCount} event(s) counted; buckets {(h.Buckets is int b ? b.ToString(ic) : "-")}{(h.SlotsReachedBuckets ? " (every slot in use: values may have been merged)" : h.Buckets is not null ? " (not all in use)" : string.Empty)}; truncated {(h.Truncated ? "yes" : "no")}"));
                    break;
                case TargetData.TargetDataKind.EventCounter:
                    o.WriteLine(head + string.Create(ic, $": {t.ItemCount} counter(s); truncated {(t.Truncated ? "yes" : "no")}"));
                    foreach (EventCounterValueRead c in r.EventCounters.Where(c => c.TargetIndex == r.Targets.ToList().IndexOf(t)))
                    {
                        o.WriteLine(string.Create(ic, $"    {c.FullName,-60} {c.Count,10}"));
                    }

                    break;
                case TargetData.TargetDataKind.EventFile:
                    o.WriteLine(head + string.Create(ic, $": files {string.Join(", ", t.EventFiles)}; buffers logged {(t.BuffersLogged?.ToString(ic) ?? "-")}, dropped {(t.BuffersDropped?.ToString(ic) ?? "-")}; truncated {(t.Truncated ? "yes" : "no")}"));
                    break;
                default:
                    string attrs = string.Join(", ", t.Attributes.Where(a => a.Key != "truncated").Select(a => a.Key + " " + a.Value));
                    o.WriteLine(head + string.Create(ic, $": {t.ItemCount} event(s){(attrs.Length > 0 ? " (" + attrs + ")" : string.Empty)}; truncated {(t.Truncated ? "yes" : "no")}"));
                    break;
            }
        }

        o.WriteLine(string.Create(ic, $"  time range: {Time(r.FirstTimestamp)} .. {Time(r.LastTimestamp)}"));
        o.WriteLine(string.Create(ic, $"  events: {r.EventsByName.Sum(e => e.Count)}"));
        foreach (EventNameCount e in r.EventsByName)
        {
            o.WriteLine(string.Create(ic, $"    {e.Name,-60} {e.Count,10}"));
        }

        o.WriteLine(string.Create(ic, $"  callstacks: {(shapes.HasStacks || r.Histograms.Any(h => h.SourceKind == HistogramSourceKind.Callstack) ? "yes" : "no")}"));
        o.WriteLine("  schema (as the XML carries it: types from <type> elements or inferred from values):");
        foreach ((XeEventType type, List<XeColumn> actions, bool stack) in shapes.Types)
        {
            o.WriteLine("    " + type.FullName + (stack ? " [callstack]" : string.Empty));
            foreach (XeColumn c in type.Fields)
            {
                o.WriteLine("      field  " + c.Name + " : " + Describe(c));
            }

            foreach (XeColumn c in actions)
            {
                o.WriteLine("      action " + c.FullName + " : " + Describe(c));
            }
        }

        IReadOnlyList<string> warnings = diagnostics.Warnings;
        o.WriteLine(string.Create(ic, $"  warnings: {warnings.Count}"));
        foreach (string w in warnings)
        {
            o.WriteLine("    " + w);
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

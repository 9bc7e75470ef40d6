using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// What one input holds, as <c>xeanalyze info</c> shows it, from the read's summary (<see cref="InputSummary"/>): per
/// <c>.xel</c> file and set, size, buffers, time range, counts by event, each event's fields and actions with their
/// types, callstacks and warnings; per target-data XML file, its targets (kind, histogram source and slots,
/// event_counter counts, truncation), events by name, the schema the XML carries, and warnings. Immutable.
/// </summary>
internal sealed class CaptureInfo : IDocumentSource
{
    private readonly IReadOnlyList<OutlineItem> _items;

    /// <summary>Describes an input from what a read found in it.</summary>
    /// <param name="input">The input's summary (<see cref="ICaptureConsumer.EndInput"/>,
    /// <see cref="CaptureSummary.Inputs"/>).</param>
    public CaptureInfo(InputSummary input)
    {
        ArgumentNullException.ThrowIfNull(input);
        var items = new List<OutlineItem>();
        if (input.Input.Kind == CaptureInputKind.Xel)
        {
            AddXel(items, input);
        }
        else
        {
            AddTargetData(items, input);
        }

        _items = items.AsReadOnly();
    }

    /// <inheritdoc/>
    /// <remarks>The same in every view: an untitled outline without a generated-by line.</remarks>
    public ReportDocument ToDocument(DocumentView view) =>
        new(string.Empty, [new ReportSection(string.Empty, new Outline(_items))]) { Generator = null };

    private static string Time(DateTime? t) => t is DateTime v ? CellFormatter.IsoUtc(v) : "-";

    private static string Count(string name, long count) =>
        string.Create(CultureInfo.InvariantCulture, $"{name, -60} {count, 10}");

    private static void AddXel(List<OutlineItem> o, InputSummary s)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        Xel.CaptureSet set = s.Input.Set!;
        o.Add(
            new(
                0,
                string.Create(
                    ic,
                    $"capture {set.Name}: {s.Files.Count} file(s){(set.IsRollover ? " (rollover set)" : string.Empty)}"
                )
            )
        );
        foreach (FileSummary f in s.Files)
        {
            EventTypeSummary[] types =
            [
                .. f
                    .EventTypes.OrderBy(t => t.EventType.FullName, StringComparer.Ordinal)
                    .ThenBy(t => t.EventType.Package.Index),
            ];
            o.Add(new(0, "file " + f.Path));
            o.Add(
                new(
                    1,
                    string.Create(
                        ic,
                        $"size: {f.Length} bytes, {f.Xel?.BufferCount ?? 0} buffers "
                            + $"({f.Xel?.MetadataBufferCount ?? 0} metadata), pointer size "
                            + $"{f.Xel?.Schema.PointerSize ?? 8}"
                    )
                )
            );
            o.Add(new(1, "time range: " + Time(f.FirstEvent) + " .. " + Time(f.LastEvent)));
            o.Add(new(1, string.Create(ic, $"events: {f.Events}")));
            foreach (EventTypeSummary t in types)
            {
                o.Add(new(2, Count(t.EventType.FullName, t.Count)));
            }

            o.Add(new(1, "callstacks: " + CaptureOverview.DescribeCallstacks(f.EventTypes, [])));
            o.Add(new(1, "schema:"));
            foreach (EventTypeSummary t in types)
            {
                o.Add(
                    new(
                        2,
                        string.Create(ic, $"{t.EventType.FullName} (package index {t.EventType.Package.Index}, ")
                            + string.Create(ic, $"uuid {t.EventType.Uuid}){StackMark(t)}")
                    )
                );
                AddColumns(o, t.EventType.Fields, t.Actions);
            }

            o.Add(new(1, string.Create(ic, $"warnings: {f.Warnings.Count}")));
            foreach (string w in f.Warnings)
            {
                o.Add(new(2, w));
            }
        }

        if (s.Files.Count > 1)
        {
            o.Add(
                new(
                    0,
                    string.Create(
                        ic,
                        $"set total: {s.Files.Sum(f => f.Length)} bytes, {s.Files.Sum(f => f.Events)} events, "
                            + $"{Time(s.FirstEvent)} .. {Time(s.LastEvent)}"
                    )
                )
            );
            foreach (EventTypeSummary t in s.EventTypes.OrderBy(t => t.Name, StringComparer.Ordinal))
            {
                o.Add(new(2, Count(t.Name, t.Count)));
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

    private static void AddTargetData(List<OutlineItem> o, InputSummary r)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        FileSummary file = r.Files[0];
        o.Add(new(0, "target data " + r.Input.Name));
        o.Add(new(1, string.Create(ic, $"size: {file.Length} bytes, {r.Targets.Count} target(s)")));
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
                        HistogramSourceKind.Value => h.ValuesAreIntegers
                            ? "an event field or action (numbers or map keys)"
                            : "an event field or action (text)",
                        _ => "unknown (no slot has a value)",
                    };
                    string buckets = h.Buckets is int b ? b.ToString(ic) : "-";
                    string use =
                        h.SlotsReachedBuckets ? " (every slot in use: values may have been merged)"
                        : h.Buckets is not null ? " (not all in use)"
                        : string.Empty;
                    o.Add(
                        new(
                            1,
                            head
                                + string.Create(
                                    ic,
                                    $": source {source}; {h.SlotCount} slot(s), {h.TotalCount} event(s) counted; "
                                        + $"buckets {buckets}{use}; truncated {(h.Truncated ? "yes" : "no")}"
                                )
                        )
                    );
                    break;
                case TargetData.TargetDataKind.EventCounter:
                    o.Add(
                        new(
                            1,
                            head
                                + string.Create(
                                    ic,
                                    $": {t.ItemCount} counter(s); truncated {(t.Truncated ? "yes" : "no")}"
                                )
                        )
                    );
                    foreach (EventCounterValueRead c in r.EventCounters.Where(c => c.TargetIndex == index))
                    {
                        o.Add(new(2, string.Create(ic, $"{c.FullName, -60} {c.Count, 10}")));
                    }

                    break;
                case TargetData.TargetDataKind.EventFile:
                    o.Add(
                        new(
                            1,
                            head
                                + string.Create(
                                    ic,
                                    $": files {string.Join(", ", t.EventFiles)}; buffers logged "
                                        + $"{(t.BuffersLogged?.ToString(ic) ?? "-")}, dropped "
                                        + $"{(t.BuffersDropped?.ToString(ic) ?? "-")}; truncated "
                                        + $"{(t.Truncated ? "yes" : "no")}"
                                )
                        )
                    );
                    break;
                default:
                    string attrs = string.Join(
                        ", ",
                        t.Attributes.Where(a => a.Key != "truncated").Select(a => a.Key + " " + a.Value)
                    );
                    o.Add(
                        new(
                            1,
                            head
                                + string.Create(
                                    ic,
                                    $": {t.ItemCount} "
                                        + $"event(s){(attrs.Length > 0 ? " (" + attrs + ")" : string.Empty)}; "
                                        + $"truncated "
                                        + $"{(t.Truncated ? "yes" : "no")}"
                                )
                        )
                    );
                    break;
            }
        }

        o.Add(new(1, "time range: " + Time(r.FirstEvent) + " .. " + Time(r.LastEvent)));
        o.Add(new(1, string.Create(ic, $"events: {r.EventsByName.Sum(e => e.Count)}")));
        foreach (EventNameCount e in r.EventsByName)
        {
            o.Add(new(2, Count(e.Name, e.Count)));
        }

        o.Add(new(1, "callstacks: " + CaptureOverview.DescribeCallstacks(r.EventTypes, r.Histograms)));
        o.Add(new(1, "schema (as the XML carries it: types from <type> elements or inferred from values):"));
        foreach (EventTypeSummary t in r.EventTypes)
        {
            o.Add(new(2, t.Name + StackMark(t)));
            AddColumns(o, t.EventType.Fields, t.Actions);
        }

        o.Add(new(1, string.Create(ic, $"warnings: {file.Warnings.Count}")));
        foreach (string w in file.Warnings)
        {
            o.Add(new(2, w));
        }
    }

    /// <summary>An event type's callstack field and how many of its events carried a stack; empty if none.</summary>
    private static string StackMark(EventTypeSummary t) =>
        t.HasCallstack
            ? string.Create(
                CultureInfo.InvariantCulture,
                $" [callstack field: {t.EventsWithStack:N0} of {t.Count:N0} event(s) carry a stack]"
            )
            : string.Empty;

    private static string Describe(XeColumn c) =>
        c.Map is XeMap m
            ? "map " + m.Package.Name + "." + m.Name + (m.IsBitmask ? " (bitmask)" : string.Empty)
            : c.TypeName;
}

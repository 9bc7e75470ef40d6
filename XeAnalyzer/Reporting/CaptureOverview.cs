using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The capture section of a report, from the read's summary (<see cref="CaptureSummary"/>): the files (size, events,
/// time range, module list) and the events by name (share, time range, callstack field, events with a stack, actions).
/// Immutable.
/// </summary>
/// <param name="capture">What the read found.</param>
/// <param name="displayPath">How a path is shown.</param>
internal sealed class CaptureOverview(CaptureSummary capture, Func<string, string> displayPath) : IDocumentSource
{
    /// <summary>The most actions listed per event.</summary>
    private const int MaxActions = 64;

    /// <inheritdoc/>
    /// <remarks>The same in every view: a "Capture" section with the files and the events by name.</remarks>
    public ReportDocument ToDocument(DocumentView view) => new("Capture", [new ReportSection("Capture", ToBlocks())]);

    /// <summary>The files and events as report tables.</summary>
    public IReadOnlyList<ReportBlock> ToBlocks()
    {
        var files = new TableBuilder("Files")
            .AddColumn(TableColumn.Text("file"))
            .AddColumn(TableColumn.Integer("bytes"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Timestamp("first event"))
            .AddColumn(TableColumn.Timestamp("last event"))
            .AddColumn(TableColumn.Text("module list"));
        foreach (FileSummary f in capture.Files)
        {
            int index = IndexOf(f.Input.Files, f.Path);
            ModuleMapBinding map = index >= 0 ? f.Input.FileModuleMaps[index] : f.Input.ModuleMap;
            files.AddRow(
                displayPath(f.Path),
                f.Length,
                f.Events,
                Time(f.FirstEvent),
                Time(f.LastEvent),
                map.Map is not null && map.Path is string p ? displayPath(p) : string.Empty
            );
        }

        long total = capture.EventTypes.Sum(e => e.Count);
        var events = new TableBuilder("Events by name")
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Timestamp("first"))
            .AddColumn(TableColumn.Timestamp("last"))
            .AddColumn(TableColumn.Text("callstack field"))
            .AddColumn(TableColumn.Integer("events with a stack"))
            .AddColumn(TableColumn.Text("actions"));
        foreach (EventTypeSummary e in capture.EventTypes)
        {
            string actions = string.Join(
                ", ",
                e.Actions.Select(a => a.FullName)
                    .Distinct(StringComparer.Ordinal)
                    .Order(StringComparer.Ordinal)
                    .Take(MaxActions)
            );
            events.AddRow(
                e.Name,
                e.Count,
                TableCell.FromPercentage(total == 0 ? 0 : (double)e.Count / total),
                Time(e.FirstEvent),
                Time(e.LastEvent),
                e.HasCallstack ? "yes" : "no",
                e.HasCallstack ? e.EventsWithStack : TableCell.Empty,
                actions
            );
        }

        return [files.Build(), events.Build()];
    }

    private static int IndexOf(IReadOnlyList<string> files, string path)
    {
        for (int i = 0; i < files.Count; i++)
        {
            if (string.Equals(files[i], path, StringComparison.Ordinal))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>
    /// What a capture (or a file of it) holds of callstacks, as every capture description says it: the schema
    /// fact (event types with a callstack field, histograms whose slots are callstacks) and the data fact (events whose
    /// stack held a frame), from the read's summary. A field every event leaves empty (system_health's call_stack)
    /// reads "0 of N events".
    /// </summary>
    /// <param name="types">
    /// The event types (<see cref="EventTypeSummary.HasCallstack"/>, <see cref="EventTypeSummary.EventsWithStack"/>).
    /// </param>
    /// <param name="histograms">The histogram targets read.</param>
    /// <returns>The text, "no …" when there is neither.</returns>
    internal static string DescribeCallstacks(
        IReadOnlyList<EventTypeSummary> types,
        IEnumerable<HistogramTarget> histograms
    )
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var parts = new List<string>(2);
        EventTypeSummary[] withField = [.. types.Where(t => t.HasCallstack)];
        if (withField.Length > 0)
        {
            long events = types.Sum(t => t.Count),
                withStack = withField.Sum(t => t.EventsWithStack);
            parts.Add(
                string.Create(ic, $"{withStack:N0} of {events:N0} event(s) carry a stack ")
                    + string.Create(ic, $"(callstack field on {withField.Length:N0} of {types.Count:N0} event type(s))")
            );
        }

        HistogramTarget[] stackHistograms = [.. histograms.Where(h => h.SourceKind == HistogramSourceKind.Callstack)];
        if (stackHistograms.Length > 0)
        {
            long slots = stackHistograms.Sum(h => h.SlotCount);
            parts.Add(
                string.Create(ic, $"{slots:N0} histogram slot(s) of callstacks ")
                    + string.Create(ic, $"counting {Total(stackHistograms):N0} event(s)")
            );
        }

        return parts.Count > 0
            ? string.Join("; ", parts)
            : "no (no event type has a callstack field, no histogram counts callstacks)";
    }

    /// <summary>The events the histograms count: each total fits a long, their sum need not.</summary>
    private static Int128 Total(IEnumerable<HistogramTarget> histograms) =>
        histograms.Aggregate(Int128.Zero, (sum, h) => sum + h.TotalCount);

    /// <summary>A time as the overview says it: ISO-8601 UTC, or <c>-</c>.</summary>
    internal static string Describe(DateTime? t) => t is DateTime v ? CellFormatter.IsoUtc(v) : "-";

    private static TableCell Time(DateTime? t) => t is DateTime v ? TableCell.FromDateTime(v) : TableCell.Empty;
}

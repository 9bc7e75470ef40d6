using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The target data of a capture as a report section: the targets read (kind, size, truncation), event_counter counts, and each histogram
/// on an event field or action with its table and chart (<see cref="HistogramAnalysis"/>; callstack histograms are in the stack section).
/// Not shown for inputs without target data.
/// </summary>
/// <param name="options">Options of the histogram tables; <see langword="null"/> for the defaults.</param>
public sealed class TargetDataReportAnalysis(HistogramAnalysisOptions? options = null) : IReportAnalysis
{
    /// <inheritdoc/>
    public string Key => "targets";

    /// <inheritdoc/>
    public string Title => "Target data";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = new HistogramAnalysis(options);

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(read);
        var histograms = (HistogramAnalysisResult)result;
        if (read.Targets.Count == 0)
        {
            return ReportAnalysisOutcome.NotApplicable();
        }

        var sections = new List<ReportSection>();
        var targets = new TableBuilder("Targets")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Integer("line"))
            .AddColumn(TableColumn.Text("target"))
            .AddColumn(TableColumn.Integer("items"))
            .AddColumn(TableColumn.Text("truncated"))
            .AddColumn(TableColumn.Text("notes"));
        foreach (TargetSummary t in read.Targets)
        {
            targets.AddRow(context.DisplayPath(t.Input.Name), t.LineNumber, t.KindName, t.ItemCount, t.Truncated ? "yes" : "no", Notes(t, read));
        }

        targets.AddNote("Items are slots (histogram), events (ring_buffer, pair_matching, event lists), counters (event_counter) or files (event_file).");
        sections.Add(new ReportSection("Targets", targets.Build()));
        if (read.EventCounters.Count > 0)
        {
            var counters = new TableBuilder("Event counts (event_counter)")
                .AddColumn(TableColumn.Text("event"))
                .AddColumn(TableColumn.Integer("count"))
                .AddColumn(TableColumn.Text("input"));
            foreach (EventCounterValueRead c in read.EventCounters.OrderByDescending(c => c.Count).ThenBy(c => c.FullName, StringComparer.Ordinal))
            {
                counters.AddRow(c.FullName, c.Count > long.MaxValue ? long.MaxValue : (long)c.Count, context.DisplayPath(c.Input.Name));
            }

            counters.AddNote("event_counter counts every time an event fired (after the session's predicate), whatever other targets kept.");
            sections.Add(new ReportSection("Event counts", counters.Build()));
        }

        foreach (ReportSection s in histograms.ToReport().Sections)
        {
            sections.Add(s);
        }

        // Events the targets counted: the larger of the histograms' slot counts and the event_counter counts (two targets of one
        // session count the same events, so they are not added).
        ulong counted = Math.Max(Sum(read.Histograms.Select(h => h.TotalCount)), Sum(read.EventCounters.Select(c => c.Count)));

        long used = counted > long.MaxValue ? long.MaxValue : (long)counted;
        return ReportAnalysisOutcome.Completed(new ReportDocument("Target data", sections), used, null, histograms);
    }

    private static ulong Sum(IEnumerable<ulong> values)
    {
        ulong s = 0;
        foreach (ulong n in values)
        {
            s = n > ulong.MaxValue - s ? ulong.MaxValue : s + n;
        }

        return s;
    }

    private static string Notes(TargetSummary t, CaptureSummary read)
    {
        var notes = new List<string>();
        if (t.Kind == TargetData.TargetDataKind.Histogram && read.Histograms.FirstOrDefault(h => ReferenceEquals(h.Input, t.Input) && h.TargetIndex == t.TargetIndex) is HistogramTarget h)
        {
            notes.Add(h.SourceKind switch
            {
                HistogramSourceKind.Callstack => "source: callstacks (see Stacks)",
                HistogramSourceKind.Value => "source: an event field or action",
                _ => "no slot values",
            });
            if (h.Buckets is int b)
            {
                notes.Add(string.Create(CultureInfo.InvariantCulture, $"buckets {b:N0}{(h.SlotsReachedBuckets ? ", all in use: values may have been merged" : string.Empty)}"));
            }
        }

        if (t.EventFiles.Count > 0)
        {
            notes.Add("files (server paths): " + string.Join(", ", t.EventFiles.Take(5)) + (t.EventFiles.Count > 5 ? ", …" : string.Empty));
        }

        if (t.BuffersDropped is ulong d)
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture, $"buffers logged {t.BuffersLogged?.ToString("N0", CultureInfo.InvariantCulture) ?? "?"}, dropped {d:N0}"));
        }

        if (t.GetAttribute("droppedCount") is string dropped && dropped != "0")
        {
            notes.Add("droppedCount " + dropped);
        }

        return string.Join("; ", notes);
    }
}

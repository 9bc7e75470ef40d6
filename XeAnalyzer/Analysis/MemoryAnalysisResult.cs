using System.Globalization;
using XeAnalyzer.Output;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis;

/// <summary>Allocations, frees and the running total of one session or memory clerk.</summary>
/// <param name="Key">The session id (decimal) or clerk name.</param>
/// <param name="AllocationEvents">page_allocated events.</param>
/// <param name="FreeEvents">page_freed events.</param>
/// <param name="PagesAllocated">Pages allocated.</param>
/// <param name="PagesFreed">Pages freed.</param>
/// <param name="FinalPages">The running total after the last event (allocated minus freed).</param>
/// <param name="PeakPages">The highest running total.</param>
/// <param name="PeakTime">When the running total first reached <paramref name="PeakPages"/>.</param>
public sealed record GroupMemory(
    string Key,
    long AllocationEvents,
    long FreeEvents,
    long PagesAllocated,
    long PagesFreed,
    long FinalPages,
    long PeakPages,
    DateTime? PeakTime
);

/// <summary>How often events allocate or free a given number of pages.</summary>
/// <param name="Pages">The page count.</param>
/// <param name="Events">Events with that page count.</param>
/// <param name="Share">Events / all page events, as a fraction.</param>
/// <param name="IsOnePlusPowerOfTwo">Whether the count is 1 + 2^k (2, 3, 5, 9, 17, …).</param>
public sealed record PageCountFrequency(long Pages, long Events, double Share, bool IsOnePlusPowerOfTwo);

/// <summary>A running-total series reduced by <see cref="PeakPreservingSeries"/>.</summary>
/// <param name="Name">The series name ("all sessions", "session 53", a clerk name).</param>
/// <param name="Points">The kept points in time order (first, lowest, highest and last of each time bucket).</param>
/// <param name="PointsBeforeReduction">Steps of the full series.</param>
public sealed record RunningTotalSeries(string Name, IReadOnlyList<SeriesPoint> Points, long PointsBeforeReduction);

/// <summary>The result of <see cref="MemoryAnalysis"/>. Immutable.</summary>
public sealed class MemoryAnalysisResult : IAnalysisResult, IDocumentSource
{
    internal MemoryAnalysisResult() { }

    /// <summary>What the capture lacks, or <see langword="null"/> when the analysis could run.</summary>
    public MissingData? MissingData { get; internal init; }

    /// <summary>Whether the analysis could run.</summary>
    public bool IsComplete => MissingData is null;

    /// <summary>The page-count field used.</summary>
    public string PagesField { get; internal init; } = string.Empty;

    /// <summary>page_allocated events.</summary>
    public long AllocationEvents { get; internal init; }

    /// <summary>page_freed events.</summary>
    public long FreeEvents { get; internal init; }

    /// <summary>Pages allocated in total.</summary>
    public long PagesAllocated { get; internal init; }

    /// <summary>Pages freed in total.</summary>
    public long PagesFreed { get; internal init; }

    /// <summary>Bytes allocated at 8 KB (8,192 bytes) a page.</summary>
    public double BytesAllocated => (double)PagesAllocated * MemoryAnalysis.PageSize;

    /// <summary>Bytes freed at 8 KB a page.</summary>
    public double BytesFreed => (double)PagesFreed * MemoryAnalysis.PageSize;

    /// <summary>The running total after the last event (pages allocated minus freed during the capture).</summary>
    public long FinalPages { get; internal init; }

    /// <summary>The highest running total over all sessions.</summary>
    public long PeakPages { get; internal init; }

    /// <summary>When the running total first reached <see cref="PeakPages"/>.</summary>
    public DateTime? PeakTime { get; internal init; }

    /// <summary>The lowest running total (below 0 when memory allocated before the capture was freed).</summary>
    public long MinimumPages { get; internal init; }

    /// <summary>When the running total first reached <see cref="MinimumPages"/>.</summary>
    public DateTime? MinimumTime { get; internal init; }

    /// <summary>The first event time.</summary>
    public DateTime? FirstEvent { get; internal init; }

    /// <summary>The last event time.</summary>
    public DateTime? LastEvent { get; internal init; }

    /// <summary>Per session (<c>sqlserver.session_id</c>), highest peak first.</summary>
    public IReadOnlyList<GroupMemory> Sessions { get; internal init; } = [];

    /// <summary>Events without the <c>sqlserver.session_id</c> action, or of sessions beyond the 65,536 distinct ones
    /// tracked (in the overall total only).</summary>
    public long EventsWithoutSession { get; internal init; }

    /// <summary>Whether per-clerk totals were asked for.</summary>
    public bool ByClerk { get; internal init; }

    /// <summary>Per memory clerk (<c>memory_clerk_name</c>), highest peak first; empty unless
    /// <see cref="ByClerk"/>.</summary>
    public IReadOnlyList<GroupMemory> Clerks { get; internal init; } = [];

    /// <summary>The most frequent page counts per event (at most 15), most frequent first.</summary>
    public IReadOnlyList<PageCountFrequency> TopPageCounts { get; internal init; } = [];

    /// <summary>Distinct page counts tallied (at most 65,536).</summary>
    public int DistinctPageCounts { get; internal init; }

    /// <summary>Events whose page count was not tallied because 65,536 distinct counts were already held.</summary>
    public long EventsWithUncountedPageCounts { get; internal init; }

    /// <summary>The share of events whose page count is one plus a power of two (2, 3, 5, 9, 17, …).</summary>
    public double OnePlusPowerOfTwoShare { get; internal init; }

    /// <summary>The share of events of exactly one page.</summary>
    public double ExactlyOneShare { get; internal init; }

    /// <summary>The overall running total, reduced (peaks kept exactly).</summary>
    public RunningTotalSeries Total { get; internal init; } = new("all sessions", [], 0);

    /// <summary>Running totals of the sessions that got a series (see
    /// <see cref="MemoryAnalysisOptions.MaxSeriesPerGroup"/>), highest peak first.</summary>
    public IReadOnlyList<RunningTotalSeries> SessionSeries { get; internal init; } = [];

    /// <summary>Running totals per clerk (with <see cref="ByClerk"/>), highest peak first.</summary>
    public IReadOnlyList<RunningTotalSeries> ClerkSeries { get; internal init; } = [];

    /// <summary>How disordered the input was.</summary>
    internal OrderingStatistics Ordering { get; init; } = OrderingStatistics.None;

    /// <summary>
    /// Warnings about the result: events later than the reorder window, events without <c>package0.event_sequence</c>,
    /// events left out because a page count was out of range.
    /// </summary>
    public IReadOnlyList<AnalysisWarning> Warnings { get; internal init; } = [];

    /// <inheritdoc/>
    public string Key => "memory";

    /// <inheritdoc/>
    public string Title => "Memory";

    /// <summary>The page_allocated and page_freed events read.</summary>
    public long EventsUsed => AllocationEvents + FreeEvents;

    /// <summary>
    /// Describes a page count the way the seed write-up does: <c>71,300,000 pages (about 71.3 million pages, about
    /// 584.1 GB at 8 KB a page)</c>. GB are 10^9 bytes.
    /// </summary>
    /// <param name="pages">The page count.</param>
    /// <returns>The text.</returns>
    public static string DescribePages(long pages)
    {
        string s = N0(pages) + " pages";
        var parts = new List<string>();
        if (Math.Abs(pages) >= 1_000_000_000)
        {
            parts.Add("about " + (pages / 1e9).ToString("0.0", CultureInfo.InvariantCulture) + " billion pages");
        }
        else if (Math.Abs(pages) >= 1_000_000)
        {
            parts.Add("about " + (pages / 1e6).ToString("0.0", CultureInfo.InvariantCulture) + " million pages");
        }

        parts.Add(DescribeBytes((double)pages * MemoryAnalysis.PageSize) + " at 8 KB a page");
        return s + " (" + string.Join(", ", parts) + ")";
    }

    /// <summary>Bytes as "about 584.1 GB" (GB = 10^9 bytes), "about 12.3 MB", or "1,024 bytes".</summary>
    /// <param name="bytes">The byte count.</param>
    /// <returns>The text.</returns>
    public static string DescribeBytes(double bytes)
    {
        double a = Math.Abs(bytes);
        return a switch
        {
            >= 1e12 => "about " + (bytes / 1e12).ToString("0.0", CultureInfo.InvariantCulture) + " TB",
            >= 1e9 => "about " + (bytes / 1e9).ToString("0.0", CultureInfo.InvariantCulture) + " GB",
            >= 1e6 => "about " + (bytes / 1e6).ToString("0.0", CultureInfo.InvariantCulture) + " MB",
            >= 1e3 => "about " + (bytes / 1e3).ToString("0.0", CultureInfo.InvariantCulture) + " KB",
            _ => bytes.ToString("N0", CultureInfo.InvariantCulture) + " bytes",
        };
    }

    /// <summary>The line chart: pages currently allocated over time, overall and for the sessions (or clerks) with the
    /// highest peaks (at most 6).</summary>
    /// <returns>The chart.</returns>
    internal LineChart ToLineChart()
    {
        var series = new List<LineSeries> { ToLineSeries(Total) };
        IReadOnlyList<RunningTotalSeries> groups = ByClerk ? ClerkSeries : SessionSeries;
        if (groups.Count > 1 || ByClerk)
        {
            series.AddRange(groups.Take(6).Select(ToLineSeries));
        }

        return new LineChart(
            "Pages currently allocated (running total of page_allocated − page_freed)",
            XAxisKind.Time,
            series
        )
        {
            YAxisLabel = "pages",
            YAxisIncludesZero = true,
        };
    }

    /// <summary>The result as a document: the same in every view (<see cref="ToReport"/>; the running-total line chart
    /// is its figure).</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => ToReport();

    /// <summary>The result as a report: summary, per session, per clerk, pages per event, and the running-total
    /// chart.</summary>
    /// <returns>The report; a single "Missing data" section when <see cref="MissingData"/> is set.</returns>
    public ReportDocument ToReport()
    {
        const string Title = "Pages allocated minus freed over time (page_allocated − page_freed)";
        if (MissingData is MissingData m)
        {
            return new ReportDocument(Title, [new ReportSection("Missing data", new Preformatted(m.Describe()))]);
        }

        var sections = new List<ReportSection>();
        var summary = new List<KeyValuePair<string, TableCell>>
        {
            Kv("page_allocated", N0(AllocationEvents) + " events allocating " + DescribePages(PagesAllocated)),
            Kv("page_freed", N0(FreeEvents) + " events freeing " + DescribePages(PagesFreed)),
            Kv("net change during the capture", DescribePages(FinalPages)),
            Kv("peak pages allocated (running total)", DescribePages(PeakPages)),
            Kv("time of peak", PeakTime is DateTime p ? TableCell.FromDateTime(p) : TableCell.Empty),
            Kv("lowest running total", N0(MinimumPages) + " pages"),
            Kv("first event", FirstEvent is DateTime f ? TableCell.FromDateTime(f) : TableCell.Empty),
            Kv("last event", LastEvent is DateTime l ? TableCell.FromDateTime(l) : TableCell.Empty),
            Kv("page-count field", PagesField),
            Kv("ordering", Ordering.Describe()),
        };
        sections.Add(
            new ReportSection(
                "Summary",
                new KeyValueList(summary),
                new Paragraph(
                    "The running total starts at 0 at the first event (pages allocated before the capture are "
                        + "unknown): allocations add their pages, frees subtract them, in (timestamp, event_sequence) "
                        + "order. Bytes are pages × 8,192; GB = 10^9 bytes."
                )
            )
        );
        sections.Add(new ReportSection("Running total of page_allocated − page_freed", ToLineChart()));

        var sessionBlocks = new List<ReportBlock>();
        if (Sessions.Count == 0)
        {
            sessionBlocks.Add(
                new Paragraph(
                    "No event carries the sqlserver.session_id action, so there are no per-session totals. Add it: "
                        + "ALTER EVENT SESSION [your_session] ON SERVER DROP EVENT sqlos.page_allocated; … ADD EVENT "
                        + "sqlos.page_allocated (ACTION (sqlserver.session_id, package0.event_sequence)); and the same "
                        + "for "
                        + "sqlos.page_freed."
                )
            );
        }
        else
        {
            sessionBlocks.Add(
                GroupTable(
                    "Per session (sqlserver.session_id), highest peak first",
                    "session_id",
                    Sessions,
                    EventsWithoutSession > 0
                        ? N0(EventsWithoutSession)
                            + " events without sqlserver.session_id count only in the overall total."
                        : null
                )
            );
        }

        sections.Add(new ReportSection("Sessions", sessionBlocks));
        if (ByClerk)
        {
            sections.Add(
                new ReportSection(
                    "Memory clerks",
                    GroupTable(
                        "Per memory clerk (memory_clerk_name), highest peak first",
                        "memory_clerk_name",
                        Clerks,
                        null
                    )
                )
            );
        }

        var t = new TableBuilder("Pages per event (most frequent)")
            .AddColumn(TableColumn.Integer("pages"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Text("1 + 2^k"));
        foreach (PageCountFrequency pc in TopPageCounts)
        {
            t.AddRow(
                pc.Pages,
                pc.Events,
                TableCell.FromPercentage(pc.Share),
                pc.IsOnePlusPowerOfTwo ? "yes (1 + " + N0(pc.Pages - 1) + ")" : string.Empty
            );
        }

        t.AddNote(
            Percent(OnePlusPowerOfTwoShare, 2)
                + " of events allocate or free one plus a power of two pages (2, 3, 5, 9, 17, …); "
                + Percent(ExactlyOneShare, 2)
                + " exactly one page; "
                + N0(DistinctPageCounts)
                + " distinct page counts."
        );
        if (EventsWithUncountedPageCounts > 0)
        {
            t.AddWarning(
                N0(EventsWithUncountedPageCounts) + " events had page counts beyond the 65,536 distinct values tallied."
            );
        }

        sections.Add(new ReportSection("Pages per event", t.Build()));
        return new ReportDocument(Title, sections);
    }

    private static LineSeries ToLineSeries(RunningTotalSeries s) =>
        LineSeries.FromTimestamps(s.Name, s.Points.Select(p => (p.Time, (double)p.Value)));

    private static ReportTable GroupTable(string title, string header, IReadOnlyList<GroupMemory> rows, string? note)
    {
        var t = new TableBuilder(title)
            .AddColumn(TableColumn.Text(header))
            .AddColumn(TableColumn.Integer("allocations"))
            .AddColumn(TableColumn.Integer("frees"))
            .AddColumn(TableColumn.Integer("pages allocated"))
            .AddColumn(TableColumn.Integer("pages freed"))
            .AddColumn(TableColumn.Integer("net pages"))
            .AddColumn(TableColumn.Integer("peak pages"))
            .AddColumn(TableColumn.Timestamp("time of peak"))
            .AddColumn(TableColumn.Decimal("peak MB", 1));
        foreach (GroupMemory g in rows)
        {
            t.AddRow(
                g.Key,
                g.AllocationEvents,
                g.FreeEvents,
                g.PagesAllocated,
                g.PagesFreed,
                g.FinalPages,
                g.PeakPages,
                g.PeakTime is DateTime pt ? TableCell.FromDateTime(pt) : TableCell.Empty,
                (double)g.PeakPages * MemoryAnalysis.PageSize / 1e6
            );
        }

        if (note is not null)
        {
            t.AddNote(note);
        }

        t.AddNote("Running totals start at 0 at the first event; peak MB = peak pages × 8,192 bytes / 10^6.");
        return t.Build();
    }
}

using System.Globalization;
using System.Text.Json;
using DuckDB.NET.Data;
using XeAnalyzer.Sql;
using XeAnalyzer.Tests.Export;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Sql;

/// <summary>
/// Runs a shipped query in DuckDB over exports, and compares its rows with the figures of the in-process analyses
/// (<see cref="InProcessFigures"/>): the one comparison per query that every SQL test uses.
/// </summary>
internal static class SqlFigures
{
    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;

    /// <summary>
    /// Runs a shipped query after its header's views (or <paramref name="views"/>), with DuckDB's working directory at
    /// <paramref name="root"/> (the folder holding <c>out/</c>).
    /// </summary>
    public static QueryResult Run(string root, string name, params string[] views)
    {
        AnalysisQuery query = AnalysisQueries.Get(name);
        string cwd = Environment.CurrentDirectory;
        try
        {
            Environment.CurrentDirectory = root;
            using var connection = new DuckDBConnection("Data Source=:memory:");
            connection.Open();
            DuckDbOracle.Execute(connection, "SET TimeZone = 'UTC'");
            foreach (string v in views.Length > 0 ? views : QueryViews.Of(query))
            {
                DuckDbOracle.Execute(connection, v);
            }

            return DuckDbOracle.Read(connection, query.Text);
        }
        finally
        {
            Environment.CurrentDirectory = cwd;
        }
    }

    /// <summary>The capture name the queries give a capture file or set (<see cref="CaptureSet"/>'s rule).</summary>
    public static string CaptureOf(string path) => CaptureSet.Expand([path]).Single().Name;

    public static long L(QueryResult q, int row, string column) => long.Parse(q.Text(row, column)!, Ic);

    public static double? D(QueryResult q, int row, string column) =>
        q.Rows[row][q.Index(column)] is { ValueKind: JsonValueKind.Number } v ? v.GetDouble() : null;

    public static void AssertClose(double? actual, double expected, string what)
    {
        if (double.IsNaN(expected))
        {
            Assert.That(actual, Is.Null, what + ": no reference, so NULL");
            return;
        }

        Assert.That(actual, Is.Not.Null, what);
        Assert.That(actual!.Value, Is.EqualTo(expected).Within(1e-12 * Math.Max(1, Math.Abs(expected))), what);
    }

    /// <summary>DuckDB's text of a TIMESTAMPTZ ("yyyy-MM-dd HH:mm:ss.ffffff+00") as microseconds.</summary>
    public static string Micros(string duckTimestamp)
    {
        DateTime t = DateTime.ParseExact(
            duckTimestamp[..26],
            "yyyy-MM-dd HH:mm:ss.ffffff",
            Ic,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal
        );
        return ExportOracle.Micros(t);
    }

    /// <summary><c>latches_per_scheduler</c>'s rows of one capture against <c>LatchAnalysis</c>.</summary>
    public static void AssertLatches(QueryResult q, string capture, IReadOnlyList<SchedulerFigures> expected)
    {
        int[] rows = RowsOf(q, capture, expected.Count);
        for (int i = 0; i < rows.Length; i++)
        {
            int r = rows[i];
            SchedulerFigures e = expected[i];
            string what = capture + " scheduler " + e.SchedulerId.ToString(Ic);
            Assert.That(L(q, r, "scheduler_id"), Is.EqualTo(e.SchedulerId), what);
            Assert.That(L(q, r, "acquires"), Is.EqualTo(e.Acquires), what);
            AssertClose(D(q, r, "share"), e.Share, what + " share");
            AssertClose(D(q, r, "deviation_from_peer_mean"), e.DeviationFromPeerMean, what + " deviation from peers");
            AssertClose(D(q, r, "deviation_from_mean"), e.DeviationFromMean, what + " deviation from the mean");
            AssertClose(D(q, r, "deviation_from_median"), e.DeviationFromMedian, what + " deviation from the median");
            Assert.That(q.Text(r, "is_outlier"), Is.EqualTo(e.IsOutlier ? "true" : "false"), what + " outlier");
        }
    }

    /// <summary><c>memory_running_total</c>'s rows of one capture against <c>MemoryAnalysis</c>'s series.</summary>
    public static void AssertMemorySeries(QueryResult q, string capture, IReadOnlyList<MemoryStep> expected)
    {
        int[] rows = RowsOf(q, capture, expected.Count);
        for (int i = 0; i < rows.Length; i++)
        {
            int r = rows[i];
            MemoryStep e = expected[i];
            string what = "step " + i.ToString(Ic);
            Assert.That(q.Text(r, "event_sequence"), Is.EqualTo(e.EventSequence?.ToString(Ic)), what + " order");
            Assert.That(Micros(q.Text(r, "timestamp_utc")!), Is.EqualTo(ExportOracle.Micros(e.Time)), what + " time");
            Assert.That(L(q, r, "delta_pages"), Is.EqualTo(e.DeltaPages), what);
            Assert.That(q.Text(r, "session_id"), Is.EqualTo(e.SessionId?.ToString(Ic)), what);
            Assert.That(L(q, r, "total_pages"), Is.EqualTo(e.TotalPages), what + " running total");
            Assert.That(q.Text(r, "session_pages"), Is.EqualTo(e.SessionPages?.ToString(Ic)), what + " session total");
        }
    }

    /// <summary><c>memory_peaks</c>'s rows of one capture against <c>MemoryAnalysis</c>.</summary>
    public static void AssertMemoryPeaks(QueryResult q, string capture, IReadOnlyList<MemoryPeak> expected)
    {
        int[] rows = RowsOf(q, capture, expected.Count);
        for (int i = 0; i < rows.Length; i++)
        {
            int r = rows[i];
            MemoryPeak e = expected[i];
            string what = e.Session is null ? "all sessions" : "session " + e.Session.Value.ToString(Ic);
            Assert.That(q.Text(r, "scope"), Is.EqualTo(e.Session is null ? "all" : "session"), what);
            Assert.That(q.Text(r, "session_id"), Is.EqualTo(e.Session?.ToString(Ic)), what);
            Assert.That(L(q, r, "allocation_events"), Is.EqualTo(e.AllocationEvents), what);
            Assert.That(L(q, r, "free_events"), Is.EqualTo(e.FreeEvents), what);
            Assert.That(L(q, r, "pages_allocated"), Is.EqualTo(e.PagesAllocated), what);
            Assert.That(L(q, r, "pages_freed"), Is.EqualTo(e.PagesFreed), what);
            Assert.That(L(q, r, "final_pages"), Is.EqualTo(e.FinalPages), what);
            Assert.That(L(q, r, "peak_pages"), Is.EqualTo(e.PeakPages), what);
            Assert.That(L(q, r, "peak_bytes"), Is.EqualTo(e.PeakPages * 8192), what);
            string peak = ExportOracle.Micros(e.PeakTime!.Value);
            Assert.That(Micros(q.Text(r, "peak_time")!), Is.EqualTo(peak), what + " peak time");
        }
    }

    /// <summary><c>wait_summary</c>'s rows against <c>WaitAnalysis</c>, in the analysis's order.</summary>
    public static void AssertWaits(QueryResult q, IReadOnlyList<WaitFigures> expected)
    {
        Assert.That(q.Rows, Has.Length.EqualTo(expected.Count), "wait types, in the analysis's order");
        for (int r = 0; r < expected.Count; r++)
        {
            WaitFigures e = expected[r];
            Assert.That(q.Text(r, "wait_type"), Is.EqualTo(e.WaitType), "row " + r.ToString(Ic));
            Assert.That(L(q, r, "waits"), Is.EqualTo(e.Waits), e.WaitType);
            Assert.That(L(q, r, "begins"), Is.EqualTo(e.Begins), e.WaitType);
            Assert.That(L(q, r, "total_duration_ms"), Is.EqualTo(e.TotalDurationMs), e.WaitType);
            AssertClose(D(q, r, "mean_duration_ms"), e.MeanDurationMs, e.WaitType + " mean");
            Assert.That(L(q, r, "max_duration_ms"), Is.EqualTo(e.MaxDurationMs), e.WaitType);
            Assert.That(
                q.Text(r, "total_signal_duration_ms"),
                Is.EqualTo(e.TotalSignalDurationMs?.ToString(Ic)),
                e.WaitType + " signal duration (NULL: n/a)"
            );
            AssertClose(D(q, r, "share_of_duration"), e.ShareOfDuration, e.WaitType + " share");
        }
    }

    /// <summary>The rows of one capture, which must be as many as the analysis's figures.</summary>
    private static int[] RowsOf(QueryResult q, string capture, int expected)
    {
        int[] rows = [.. Enumerable.Range(0, q.Rows.Length).Where(r => q.Text(r, "capture") == capture)];
        Assert.That(rows, Has.Length.EqualTo(expected), capture + ": one row per figure of the analysis");
        return rows;
    }
}

using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Export;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The min/max statistics of the exported <c>timestamp_utc</c> column, as DuckDB's <c>parquet_metadata</c> reads them,
/// against the column's real minimum and maximum per row group (DuckDB's <c>min()</c>/<c>max()</c> over the rows) and
/// over the file (the <c>.xel</c> reader's times), for a capture whose events are out of time order.
/// </summary>
public sealed class TimestampStatisticsTests
{
    private const int RowGroupRows = 1000;
    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;
    private string _dir = null!;

    [SetUp]
    public void SetUp() => _dir = Directory.CreateTempSubdirectory("xeanalyzer-ts-stats-").FullName;

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    [Test]
    public void TimestampStatistics_AreTheColumnsMinAndMax_PerRowGroup_ForEventsOutOfTimeOrder()
    {
        string source = SampleData.CapturePath(SampleData.Latch);
        List<XEvent> events = [.. XelReader.ReadEvents(source)];
        Assert.That(events, Has.Count.GreaterThan(5 * RowGroupRows), "test setup: several row groups");

        // A fixed permutation: each row group then holds times from all over the capture.
        var random = new Random(20261128);
        List<XEvent> shuffled = [.. events.OrderBy(_ => random.Next())];
        string capture = Path.Combine(_dir, "shuffled_0_133601526724170000.xel");
        var writerOptions = new XelWriterOptions
        {
            StartTimeUtc = events.Min(e => e.Timestamp).AddMinutes(-1),
            Partitions = 1,
        };
        using (XelWriter w = XelWriter.Create(capture, XelReader.ReadSchema(source), writerOptions))
        {
            foreach (XEvent e in shuffled)
            {
                w.Write(e);
            }
        }

        List<XEvent> written = [.. XelReader.ReadEvents(capture)];
        int backwards = Enumerable
            .Range(1, written.Count - 1)
            .Count(i => written[i].Timestamp < written[i - 1].Timestamp);
        Assert.That(backwards, Is.GreaterThan(written.Count / 4), "test setup: the events are out of time order");

        string output = Path.Combine(_dir, "out");
        var exportOptions = new XelExportOptions { RowGroupRows = RowGroupRows };
        XelParquetExporter.Export(CaptureSource.Open([capture]), output, exportOptions);
        string table = Path.Combine(output, "sqlserver.latch_acquired.parquet");
        string file = DuckDbOracle.Literal(table);

        // Each row group's statistics next to the min and max of its rows (row groups hold consecutive file rows).
        QueryResult r = DuckDbOracle.Single(
            null,
            $"""
            WITH meta AS (
                SELECT row_group_id, row_group_num_rows,
                       epoch_us(CAST(stats_min_value AS TIMESTAMPTZ)) AS stats_min,
                       epoch_us(CAST(stats_max_value AS TIMESTAMPTZ)) AS stats_max
                FROM parquet_metadata({file}) WHERE path_in_schema = 'timestamp_utc'
            ),
            bounds AS (
                SELECT *, SUM(row_group_num_rows) OVER (ORDER BY row_group_id) - row_group_num_rows AS first_row
                FROM meta
            ),
            actual AS (
                SELECT b.row_group_id, count(*) AS num_rows,
                       epoch_us(min(d.timestamp_utc)) AS real_min, epoch_us(max(d.timestamp_utc)) AS real_max
                FROM bounds b
                JOIN read_parquet({file}, file_row_number = true) d
                  ON d.file_row_number >= b.first_row AND d.file_row_number < b.first_row + b.row_group_num_rows
                GROUP BY b.row_group_id
            )
            SELECT CAST(b.row_group_id AS VARCHAR), CAST(b.row_group_num_rows AS VARCHAR), CAST(a.num_rows AS VARCHAR),
                   CAST(b.stats_min AS VARCHAR), CAST(a.real_min AS VARCHAR),
                   CAST(b.stats_max AS VARCHAR), CAST(a.real_max AS VARCHAR)
            FROM bounds b JOIN actual a USING (row_group_id)
            ORDER BY b.row_group_id
            """
        );

        Assert.That(r.Rows, Has.Length.EqualTo((events.Count + RowGroupRows - 1) / RowGroupRows), "row groups");
        foreach (System.Text.Json.JsonElement[] g in r.Rows)
        {
            string[] v = [.. g.Select(x => x.GetString()!)];
            string what = "row group " + v[0];
            Assert.That(v[2], Is.EqualTo(v[1]), what + ": rows joined");
            Assert.That(v[3], Is.EqualTo(v[4]), what + ": stats min = min(timestamp_utc)");
            Assert.That(v[5], Is.EqualTo(v[6]), what + ": stats max = max(timestamp_utc)");
        }

        // Over the file: the smallest and largest statistics are the reader's earliest and latest times.
        string fileMin = r.Rows.Select(g => long.Parse(g[3].GetString()!, Ic)).Min().ToString(Ic);
        string fileMax = r.Rows.Select(g => long.Parse(g[5].GetString()!, Ic)).Max().ToString(Ic);
        Assert.That(fileMin, Is.EqualTo(ExportOracle.Micros(events.Min(e => e.Timestamp))));
        Assert.That(fileMax, Is.EqualTo(ExportOracle.Micros(events.Max(e => e.Timestamp))));

        // And DuckDB prunes nothing it should keep: a filter on the last event's time finds it.
        string last = events.Max(e => e.Timestamp).ToString("yyyy-MM-dd HH:mm:ss.ffffff", Ic);
        QueryResult kept = DuckDbOracle.Single(
            table,
            "SELECT count(*) FROM t WHERE timestamp_utc >= TIMESTAMPTZ '" + last + "+00'"
        );
        int latest = events.Count(e => ExportOracle.Micros(e.Timestamp) == fileMax);
        Assert.That(kept.Rows[0][0].GetString(), Is.EqualTo(latest.ToString(Ic)));
    }
}

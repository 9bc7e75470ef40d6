using System.Globalization;
using XeAnalyzer.Cli;
using XeAnalyzer.Sql;
using XeAnalyzer.Tests.Export;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Sql;

/// <summary>
/// Every shipped analysis query (<see cref="AnalysisQueries"/>) run by DuckDB, in-process, over the Parquet exports of
/// the samples (<c>export --resolve</c>), against the figures of the in-process analyses
/// (<see cref="InProcessFigures"/>).
/// </summary>
[NonParallelizable]
public sealed class SqlQueryTests
{
    private static readonly string[] SampleNames = ["latch_nesting_full", "cci_insert_memory", "blob_storage_waits"];
    private string _dir = null!;

    private static string Sample(string name) => Path.Combine(TestPaths.Samples, name);

    private string Out => Path.Combine(_dir, "out");

    [OneTimeSetUp]
    public void ExportSamples()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-sql-" + Guid.NewGuid().ToString("N"));
        foreach (string s in SampleNames)
        {
            (int exit, _, string err) = CliRunner.Run(
                "export",
                Sample(s),
                "--format",
                "parquet",
                "-o",
                Path.Combine(Out, s),
                "--resolve",
                "--symbols",
                TestPaths.SymbolsCache,
                "--binaries",
                TestPaths.SymbolsCache,
                "--offline"
            );
            Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        }
    }

    [OneTimeTearDown]
    public void Cleanup() => Directory.Delete(_dir, recursive: true);

    /// <summary>Runs a shipped query after its header's views (or <paramref name="views"/>) over the exports.</summary>
    private QueryResult RunQuery(string name, params string[] views) => SqlFigures.Run(_dir, name, views);

    private static string CaptureOf(string sample) => SqlFigures.CaptureOf(Sample(sample));

    private static long L(QueryResult q, int row, string column) => SqlFigures.L(q, row, column);

    private static double? D(QueryResult q, int row, string column) => SqlFigures.D(q, row, column);

    [Test]
    public void Queries_AreListed_WithSummaryInputsAndText()
    {
        Assert.That(
            AnalysisQueries.All.Select(q => q.Name),
            Is.EqualTo(
                new[]
                {
                    "latches_per_scheduler",
                    "memory_peaks",
                    "memory_running_total",
                    "stack_buckets",
                    "wait_summary",
                }
            )
        );
        foreach (AnalysisQuery q in AnalysisQueries.All)
        {
            Assert.That(q.Summary, Is.Not.Empty, q.Name);
            Assert.That(q.Inputs, Is.Not.Empty, q.Name);
            string statement = string.Join(
                "\n",
                q.Text.Split('\n').Where(l => !l.TrimStart().StartsWith("--", StringComparison.Ordinal))
            );
            Assert.That(
                statement,
                Does.StartWith("WITH ").And.Contain("SELECT").And.Not.Contain(";"),
                q.Name + ": one statement without terminator after the header comments"
            );
            Assert.That(q.Text, Does.Not.Contain("\r"), q.Name);
        }

        Assert.That(AnalysisQueries.Get("WAIT_SUMMARY").Name, Is.EqualTo("wait_summary"));
        Assert.That(
            () => AnalysisQueries.Get("nope"),
            Throws.InstanceOf<KeyNotFoundException>().With.Message.Contains("latches_per_scheduler")
        );
    }

    [TestCase("README.md")]
    [TestCase("docs/export-and-sql.md")]
    public void DocumentedViews_AreTheQueryHeadersViews(string document)
    {
        // The views.sql block of the document: the statements between "cat > views.sql <<'SQL'" and "SQL".
        string[] lines = File.ReadAllLines(Path.Combine(TestPaths.RepoRoot, document));
        int start = Array.IndexOf(lines, "cat > views.sql <<'SQL'");
        Assert.That(start, Is.GreaterThanOrEqualTo(0), document + ": a views.sql block");
        int end = Array.IndexOf(lines, "SQL", start + 1);
        IReadOnlyList<string> documented = QueryViews.Statements(string.Join("\n", lines[(start + 1)..end]));
        Assert.That(documented, Is.EqualTo(QueryViews.All), document + ": the views of the query headers, in order");
        string[] names = ["latch_acquired", "page_events", "stack_events", "wait_events"];
        Assert.That(QueryViews.All.Select(v => v.Split(' ')[2]), Is.EqualTo(names));
    }

    [Test]
    public void EveryQuery_ReadsOnlyColumnsItsViewsName()
    {
        // Over views holding only their empty SELECT, a query binds only if every column it reads is named there: then
        // an export without some of the query's events or actions binds too (with NULLs for what it lacks).
        foreach (AnalysisQuery q in AnalysisQueries.All)
        {
            QueryResult r = RunQuery(q.Name, [.. QueryViews.Of(q).Select(QueryViews.WithoutTables)]);
            Assert.That(r.Rows, Is.Empty, q.Name);
        }

        Assert.That(
            () =>
                SqlFigures.Run(
                    _dir,
                    "wait_summary",
                    "CREATE VIEW wait_events AS SELECT CAST(NULL AS VARCHAR) AS event_name, "
                        + "CAST(NULL AS VARCHAR) AS wait_type WHERE false"
                ),
            Throws.Exception.With.Message.Contains("opcode"),
            "the check fails when a view lacks a column the query reads"
        );
    }

    [Test]
    public void SqlCommand_ListsAndShowsTheQueries()
    {
        (int exit, string list, string err) = CliRunner.Run("sql", "list");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        foreach (AnalysisQuery q in AnalysisQueries.All)
        {
            Assert.That(list, Does.Contain(q.Name + "\n  " + q.Summary));
        }

        (exit, string shown, err) = CliRunner.Run("sql", "show", "memory_peaks");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(shown, Is.EqualTo(AnalysisQueries.Get("memory_peaks").Text), "the text exactly, ready to pipe");
        (exit, _, err) = CliRunner.Run("sql", "show", "no_such_query");
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(err, Does.Contain("no query is named 'no_such_query'").And.Contain("wait_summary"));
    }

    [Test]
    public void LatchesPerScheduler_MatchesLatchAnalysis_PerCapture()
    {
        QueryResult q = RunQuery("latches_per_scheduler");
        string[] withLatches = ["latch_nesting_full", "blob_storage_waits"];
        Assert.That(
            Enumerable.Range(0, q.Rows.Length).Select(r => q.Text(r, "capture")).Distinct(),
            Is.EquivalentTo(withLatches.Select(CaptureOf)),
            "one capture per sample with latch_acquired events, named as CaptureSet names it"
        );
        foreach (string sample in withLatches)
        {
            SqlFigures.AssertLatches(q, CaptureOf(sample), InProcessFigures.Latches(Sample(sample)));
        }

        // The seed scenario, from the sample generator's figures: scheduler 27 got 688 acquires, its peers 765 on
        // average.
        int s27 = Enumerable
            .Range(0, q.Rows.Length)
            .Single(r => q.Text(r, "capture") == CaptureOf("latch_nesting_full") && L(q, r, "scheduler_id") == 27);
        Assert.That(L(q, s27, "acquires"), Is.EqualTo(688));
        Assert.That(D(q, s27, "peer_mean_acquires"), Is.EqualTo(765.0).Within(1e-9));
        Assert.That(q.Text(s27, "is_outlier"), Is.EqualTo("true"));
    }

    [Test]
    public void MemoryRunningTotal_MatchesMemoryAnalysis_EventByEvent()
    {
        QueryResult q = RunQuery("memory_running_total");
        IReadOnlyList<MemoryStep> expected = InProcessFigures.MemorySeries(Sample("cci_insert_memory"));
        Assert.That(expected, Has.Count.GreaterThan(5000));
        Assert.That(q.Rows, Has.Length.EqualTo(expected.Count), "only the cci sample has page events");
        SqlFigures.AssertMemorySeries(q, CaptureOf("cci_insert_memory"), expected);
    }

    [Test]
    public void MemoryPeaks_MatchMemoryAnalysis_OverallAndPerSession()
    {
        QueryResult q = RunQuery("memory_peaks");
        IReadOnlyList<MemoryPeak> expected = InProcessFigures.MemoryPeaks(Sample("cci_insert_memory"));
        Assert.That(q.Rows, Has.Length.EqualTo(expected.Count));
        SqlFigures.AssertMemoryPeaks(q, CaptureOf("cci_insert_memory"), expected);

        // The generator's own figures (sample-xel/expected/cci_insert_memory.figures.tsv): session 64 peaks at 9266
        // pages.
        int s64 = Enumerable.Range(0, q.Rows.Length).Single(r => q.Text(r, "session_id") == "64");
        Assert.That(L(q, s64, "peak_pages"), Is.EqualTo(9266));
        Assert.That(q.Text(s64, "peak_time"), Does.StartWith("2024-05-14 10:02:49.372930"));
    }

    [Test]
    public void WaitSummary_MatchesWaitAnalysis_OverAllSamples()
    {
        QueryResult q = RunQuery("wait_summary");
        IReadOnlyList<WaitFigures> expected = InProcessFigures.Waits([.. SampleNames.Select(Sample)]);
        SqlFigures.AssertWaits(q, expected);

        // The generator's figures: PAGEIOLATCH_SH 810 waits, 27,819 ms.
        int pio = Enumerable.Range(0, q.Rows.Length).Single(r => q.Text(r, "wait_type") == "PAGEIOLATCH_SH");
        Assert.That(L(q, pio, "waits"), Is.EqualTo(810));
        Assert.That(L(q, pio, "total_duration_ms"), Is.EqualTo(27819));
    }

    [TestCase("latch_nesting_full")]
    [TestCase("blob_storage_waits")]
    [TestCase("cci_insert_memory")]
    public void StackBuckets_MatchStackBucketAnalysis(string sample)
    {
        // Every table of the sample that has resolved callstacks, as one view of the columns the query reads.
        string[] tables =
        [
            .. Directory
                .GetFiles(Path.Combine(Out, sample), "*.parquet")
                .Order(StringComparer.Ordinal)
                .Where(f =>
                    DuckDbOracle
                        .Single(f, "SELECT count(*) FROM (DESCRIBE t) WHERE column_name = 'callstack_frames'")
                        .Rows[0][0]
                        .GetString() == "1"
                ),
        ];
        Assert.That(tables, Is.Not.Empty);
        string view =
            "CREATE VIEW stack_events AS "
            + string.Join(
                " UNION ALL ",
                tables.Select(f =>
                    "SELECT capture_file, package, event_name, timestamp_utc, callstack_frames FROM read_parquet("
                    + DuckDbOracle.Literal(f)
                    + ")"
                )
            );
        QueryResult q = RunQuery("stack_buckets", view);
        IReadOnlyList<BucketFigures> expected = InProcessFigures.StackBuckets(Sample(sample));
        Assert.That(q.Rows, Has.Length.EqualTo(expected.Count), sample + ": buckets");
        var actual = Enumerable
            .Range(0, q.Rows.Length)
            .ToDictionary(
                r =>
                    q.Text(r, "event")
                    + "\n"
                    + string.Join("\n", q.Rows[r][q.Index("frames")].EnumerateArray().Select(f => f.GetString())),
                r => (Events: L(q, r, "events"), Share: D(q, r, "share")!.Value)
            );
        foreach (BucketFigures e in expected)
        {
            string key = e.EventName + "\n" + string.Join("\n", e.Frames);
            Assert.That(
                actual.TryGetValue(key, out var a),
                Is.True,
                sample
                    + ": a SQL bucket for "
                    + e.EventName
                    + " with "
                    + e.Frames.Length.ToString(CultureInfo.InvariantCulture)
                    + " frames from "
                    + e.Frames.FirstOrDefault()
            );
            Assert.That(a.Events, Is.EqualTo(e.Events), key);
            SqlFigures.AssertClose(a.Share, e.Share, key + " share");
        }

        Assert.That(Enumerable.Range(0, q.Rows.Length).Select(r => L(q, r, "events")), Is.Ordered.Descending);
        Assert.That(
            Enumerable.Range(0, q.Rows.Length).Select(r => L(q, r, "bucket")),
            Is.EqualTo(Enumerable.Range(1, q.Rows.Length).Select(i => (long)i))
        );
    }

    [Test]
    public void StackBuckets_OfTheLatchSample_AreTheGeneratorsBuckets()
    {
        // Independent of the resolver: the expected frames come from the sample generator's model
        // (sample-xel/expected).
        QueryResult q = RunQuery(
            "stack_buckets",
            "CREATE VIEW stack_events AS SELECT * FROM "
                + "read_parquet('out/latch_nesting_full/sqlserver.latch_acquired.parquet')"
        );
        string[] lines = File.ReadAllLines(
            Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")
        );
        string[] header = lines[0].Split('\t');
        int bucketCol = Array.IndexOf(header, "bucket"),
            countCol = Array.IndexOf(header, "count"),
            textCol = Array.IndexOf(header, "symbolized");
        var buckets = lines
            .Skip(1)
            .Select(l => l.Split('\t'))
            .GroupBy(f => f[bucketCol])
            .Where(g => g.Key is "A" or "B" or "C")
            .Select(g =>
                (
                    Count: long.Parse(g.First()[countCol], CultureInfo.InvariantCulture),
                    Frames: g.Select(f => f[textCol]).ToArray()
                )
            )
            .ToList();
        Assert.That(buckets, Has.Count.EqualTo(3));
        for (int i = 0; i < 3; i++)
        {
            Assert.That(
                L(q, i, "events"),
                Is.EqualTo(buckets[i].Count),
                "bucket " + (i + 1).ToString(CultureInfo.InvariantCulture)
            );
            Assert.That(
                q.Rows[i][q.Index("frames")].EnumerateArray().Select(f => f.GetString()),
                Is.EqualTo(buckets[i].Frames)
            );
        }

        Assert.That(q.Rows, Has.Length.EqualTo(14));
    }

    [Test]
    public void CaptureKey_GroupsRolloverFiles_AsCaptureSetDoes()
    {
        // The queries' capture expression (a rollover set is one capture) must agree with CaptureSet.Expand.
        string exportDir = Path.Combine(_dir, "rollover");
        string fixture = Path.Combine(TestPaths.TestData, "xel", "rollover");
        (int exit, _, string err) = CliRunner.Run("export", fixture, "-o", exportDir);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);

        string capture = CaptureSet.Expand([fixture]).Single().Name;
        string block = AnalysisQueries
            .Get("latches_per_scheduler")
            .Text.Split('\n')
            .SkipWhile(l => !l.Contains("CASE", StringComparison.Ordinal))
            .TakeWhile(l => !l.Contains("END AS capture", StringComparison.Ordinal))
            .Aggregate((a, b) => a + "\n" + b);
        foreach (
            AnalysisQuery query in AnalysisQueries.All.Where(q =>
                q.Text.Contains("AS capture", StringComparison.Ordinal)
            )
        )
        {
            Assert.That(
                query.Text,
                Does.Contain(block + "\n        END AS capture"),
                query.Name + " uses the same capture expression"
            );
        }

        string expression = block + " END";

        foreach (string table in Directory.GetFiles(exportDir, "*.parquet"))
        {
            QueryResult r = DuckDbOracle.Single(
                table,
                "SELECT DISTINCT " + expression + " AS capture, count(DISTINCT capture_file) OVER () AS files FROM t"
            );
            Assert.That(r.Rows.Select(x => x[0].GetString()), Is.EqualTo(new[] { capture }), table);
        }

        QueryResult single = DuckDbOracle.Single(
            null,
            "SELECT "
                + expression.Replace("capture_file", "'/x/data_2024.xel'", StringComparison.Ordinal)
                + ", "
                + expression.Replace("capture_file", "'/x/s_0_133601526724170000.XEL'", StringComparison.Ordinal)
        );
        Assert.That(
            single.Rows[0].Select(v => v.GetString()),
            Is.EqualTo(new[] { "/x/data_2024.xel", "/x/s_0" }),
            "a file that is not a rollover name is its own capture"
        );
        Assert.That(CaptureSet.TryParseRolloverName("/x/data_2024.xel", out _, out _), Is.False);
    }
}

using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Export;

/// <summary><c>xeanalyze export</c>, run in-process: summary lines, exit codes, and the README's example queries run by
/// DuckDB.</summary>
public sealed class ExportCliTests
{
    /// <summary>The README's example queries (Export section); keep them in sync.</summary>
    public const string ReadmeTopStacks =
        "SELECT callstack, count(*) FROM read_parquet('out/*/sqlserver.latch_acquired.parquet', union_by_name = "
        + "true) GROUP BY ALL ORDER BY 2 DESC LIMIT 10;";

    /// <inheritdoc cref="ReadmeTopStacks"/>
    public const string ReadmePerScheduler =
        "SELECT scheduler_id, count(*) AS events, count(DISTINCT capture_file) AS captures FROM "
        + "read_parquet('out/*/sqlserver.latch_acquired.parquet', union_by_name = true) GROUP BY ALL ORDER BY events "
        + "DESC;";

    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;
    private string _dir = null!;

    [SetUp]
    public void SetUp()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-exportcli-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    private static string Sample(string name) => Path.Combine(TestPaths.Samples, name);

    [Test]
    public void Export_PrintsOneLinePerFile_WithRowsAndBytes()
    {
        string outDir = Path.Combine(_dir, "out");
        (int exit, string output, string err) = CliRunner.Run(
            "export",
            Sample("blob_storage_waits"),
            "--format",
            "parquet",
            "-o",
            outDir,
            "--row-group-size",
            "1000"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        var counts = XelReader
            .ReadEvents(CaptureSet.Expand([Sample("blob_storage_waits")])[0])
            .GroupBy(e => e.FullName)
            .ToDictionary(g => g.Key, g => g.Count());
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines, Has.Length.EqualTo(counts.Count + 1));
        foreach (string line in lines.Take(counts.Count))
        {
            Match m = Regex.Match(line, @"^(.+\.parquet): (\d+) rows, (\d+) row group\(s\), (\d+) bytes$");
            Assert.That(m.Success, Is.True, line);
            string file = m.Groups[1].Value;
            string evt = Path.GetFileNameWithoutExtension(file);
            int rows = int.Parse(m.Groups[2].Value, Ic);
            Assert.That(rows, Is.EqualTo(counts[evt]), line);
            Assert.That(int.Parse(m.Groups[3].Value, Ic), Is.EqualTo((rows + 999) / 1000), line);
            Assert.That(long.Parse(m.Groups[4].Value, Ic), Is.EqualTo(new FileInfo(file).Length), line);
        }

        Assert.That(lines[^1], Does.Match(@"^6 file\(s\), 7194 events, \d+ bytes$"));
    }

    [Test]
    public void ReadmeQueries_GiveTheReadersCounts_AcrossCaptures()
    {
        // As the README shows: one export per capture into out/<name>, then one query over all of them.
        string[] samples = ["latch_nesting_full", "blob_storage_waits", "cci_insert_memory"];
        foreach (string s in samples)
        {
            (int exit, _, string err) = CliRunner.Run(
                "export",
                Sample(s),
                "--format",
                "parquet",
                "-o",
                Path.Combine(_dir, "out", s)
            );
            Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        }

        List<XEvent> latches =
        [
            .. samples
                .SelectMany(s => XelReader.ReadEvents(CaptureSet.Expand([Sample(s)])[0]))
                .Where(e => e.FullName == "sqlserver.latch_acquired"),
        ];
        Assert.That(
            latches.Select(e => e.Source.FilePath).Distinct().Count(),
            Is.EqualTo(2),
            "two samples have latch_acquired events"
        );
        var stackCounts = latches
            .GroupBy(e =>
                e.TryGetAction("callstack", out XeValue v)
                    ? string.Join(",", v.AsCallstack().Select(a => unchecked((long)a).ToString(Ic)))
                    : "<null>"
            )
            .ToDictionary(g => g.Key, g => g.Count(), StringComparer.Ordinal);
        var schedulerCounts = latches
            .GroupBy(e => e.GetAction("scheduler_id").AsUInt64())
            .ToDictionary(g => g.Key, g => g.Count());

        string cwd = Environment.CurrentDirectory;
        IReadOnlyList<QueryResult> r;
        try
        {
            // The README's relative paths ('out/*/...') resolve against DuckDB's working directory.
            Environment.CurrentDirectory = _dir;
            r = DuckDbOracle.Query(null, ReadmeTopStacks, ReadmePerScheduler);
        }
        finally
        {
            Environment.CurrentDirectory = cwd;
        }

        QueryResult top = r[0];
        Assert.That(top.Rows, Has.Length.EqualTo(Math.Min(10, stackCounts.Count)));
        foreach (System.Text.Json.JsonElement[] row in top.Rows)
        {
            string stack =
                row[0].ValueKind == System.Text.Json.JsonValueKind.Null
                    ? "<null>"
                    : string.Join(",", row[0].EnumerateArray().Select(v => v.GetString()));
            Assert.That(stackCounts.TryGetValue(stack, out int n), Is.True, "a callstack the reader saw");
            Assert.That(row[1].GetString(), Is.EqualTo(n.ToString(Ic)));
        }

        Assert.That(
            top.Rows.Select(x => int.Parse(x[1].GetString()!, Ic)),
            Is.EqualTo(stackCounts.Values.OrderByDescending(v => v).Take(10)),
            "the ten largest counts, in order"
        );
        QueryResult per = r[1];
        Assert.That(
            per.Rows.ToDictionary(x => ulong.Parse(x[0].GetRawText(), Ic), x => int.Parse(x[1].GetString()!, Ic)),
            Is.EquivalentTo(schedulerCounts)
        );
        Assert.That(
            per.Rows.Select(x => x[1].GetString()),
            Is.Ordered.Descending.Using<string?>((a, b) => long.Parse(a!, Ic).CompareTo(long.Parse(b!, Ic)))
        );
    }

    [Test]
    public void Export_ReturnsMissingData_WhenNoEventMatches()
    {
        (int exit, _, string err) = CliRunner.Run(
            "export",
            Sample("cci_insert_memory"),
            "-o",
            Path.Combine(_dir, "o"),
            "--from",
            "2030-01-01"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.MissingData));
        Assert.That(err, Does.Contain("no events to export: none of the"));
        Assert.That(err, Does.Contain("matched the filter (from 2030-01-01T00:00:00.0000000Z)"));
    }

    [Test]
    public void Export_RefusesAnEventNameTheCaptureDoesNotHave()
    {
        (int exit, _, string err) = CliRunner.Run(
            "export",
            Sample("cci_insert_memory"),
            "-o",
            Path.Combine(_dir, "o"),
            "--event",
            "no_such_event"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(err, Does.Contain("--event no_such_event: the capture has no event of that name; nearest: "));
    }

    [Test]
    public void Export_ReturnsUsage_ForBadOptions()
    {
        string capture = Sample("cci_insert_memory");
        string file = Path.Combine(_dir, "a-file");
        File.WriteAllText(file, "x");
        Assert.That(CliRunner.Run("export", capture, "--format", "csv", "-o", _dir).Exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(CliRunner.Run("export", capture).Exit, Is.EqualTo(ExitCodes.Usage), "-o is required");
        Assert.That(
            CliRunner.Run("export", capture, "-o", _dir, "--row-group-size", "0").Exit,
            Is.EqualTo(ExitCodes.Usage)
        );
        Assert.That(CliRunner.Run("export", capture, "-o", file).Exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(
            CliRunner.Run("export", capture, "-o", _dir, "--compression", "lz4").Exit,
            Is.EqualTo(ExitCodes.Usage)
        );
    }

    [Test]
    public void Export_ReturnsInputError_ForMissingCapture()
    {
        (int exit, _, string err) = CliRunner.Run(
            "export",
            Path.Combine(_dir, "nope.xel"),
            "-o",
            Path.Combine(_dir, "o")
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError));
        Assert.That(err, Does.Contain("nope.xel"));
    }

    [Test]
    public void Export_ReturnsPartial_WhenSkippingDamage()
    {
        // latch.xel cut inside its last event buffer: the reader keeps the events before the cut and warns; exit code
        // 3.
        byte[] b = File.ReadAllBytes(Path.Combine(TestPaths.TestData, "xel", "latch.xel"));
        string damaged = Path.Combine(_dir, "cut.xel");
        File.WriteAllBytes(damaged, b.AsSpan(0, b.Length - 700).ToArray());
        string outDir = Path.Combine(_dir, "o");
        (int exit, string output, string err) = CliRunner.Run("export", damaged, "-o", outDir, "--skip-corrupt");
        Assert.That(exit, Is.EqualTo(ExitCodes.Partial), err);
        Assert.That(err, Does.Contain("partial result"));
        int readable = XelReader.ReadEvents(damaged).Count();
        Assert.That(output, Does.Contain(": " + readable.ToString(Ic) + " rows,"));
        Assert.That(
            DuckDbOracle
                .Single(Path.Combine(outDir, "sqlserver.latch_acquired.parquet"), "SELECT count(*) FROM t")
                .Rows[0][0]
                .GetString(),
            Is.EqualTo(readable.ToString(Ic))
        );
    }

    [TestCase(null, "ZSTD")]
    [TestCase("zstd", "ZSTD")]
    [TestCase("snappy", "SNAPPY")]
    [TestCase("gzip", "GZIP")]
    [TestCase("none", "UNCOMPRESSED")]
    public void Export_WritesPagesWithTheChosenCodec(string? option, string codec)
    {
        string outDir = Path.Combine(_dir, "o");
        string[] args = ["export", Path.Combine(TestPaths.TestData, "xel", "latch.xel"), "-o", outDir];
        (int exit, _, string err) = CliRunner.Run(option is null ? args : [.. args, "--compression", option]);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        string path = Path.Combine(outDir, "sqlserver.latch_acquired.parquet");
        QueryResult q = DuckDbOracle.Single(
            null,
            "SELECT DISTINCT compression FROM parquet_metadata(" + DuckDbOracle.Literal(path) + ")"
        );
        Assert.That(q.Rows.Select(x => x[0].GetString()), Is.EqualTo(new[] { codec }));
        Assert.That(
            DuckDbOracle.Single(path, "SELECT count(*) FROM t").Rows[0][0].GetString(),
            Is.EqualTo(XelReader.ReadEvents(Path.Combine(TestPaths.TestData, "xel", "latch.xel")).Count().ToString(Ic))
        );
    }

    [Test]
    public void ExportResolve_AddsResolvedFrames_MatchingTheGeneratorsExpectedBuckets()
    {
        // Expected buckets come from the sample generator's input model (sample-xel/expected), not from our resolver.
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
            .Select(g =>
                (Name: g.Key, Count: int.Parse(g.First()[countCol], Ic), Frames: g.Select(f => f[textCol]).ToArray())
            )
            .Where(b => b.Name is "A" or "B" or "C")
            .ToList();
        Assert.That(buckets, Has.Count.EqualTo(3));

        string outDir = Path.Combine(_dir, "out");
        (int exit, _, string err) = CliRunner.Run(
            "export",
            Sample("latch_nesting_full"),
            "-o",
            outDir,
            "--resolve",
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
            "--offline"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(err, Does.Contain("--resolve:"));
        string file = Path.Combine(outDir, "sqlserver.latch_acquired.parquet");
        foreach ((string name, int count, string[] frames) in buckets)
        {
            string list = "[" + string.Join(", ", frames.Select(DuckDbOracle.Literal)) + "]";
            QueryResult r = DuckDbOracle.Single(file, "SELECT count(*) AS n FROM t WHERE callstack_frames = " + list);
            Assert.That(r.Text(0, "n"), Is.EqualTo(count.ToString(Ic)), "bucket " + name);
        }

        // The frames column has one entry per raw address, in the same order (leaf first).
        QueryResult lengths = DuckDbOracle.Single(
            file,
            "SELECT count(*) AS n FROM t WHERE len(callstack_frames) <> len(callstack)"
        );
        Assert.That(lengths.Text(0, "n"), Is.EqualTo("0"));
    }
}

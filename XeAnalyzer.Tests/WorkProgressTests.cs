using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Export;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Cli;
using XeAnalyzer.Tests.Symbols.Store;

namespace XeAnalyzer.Tests;

/// <summary>
/// The library's progress callbacks (<see cref="WorkProgress"/>): what reading, exporting, stack symbolization and
/// downloads report, and that asking for progress changes no result.
/// </summary>
public sealed class WorkProgressTests
{
    private TempFolder _temp = null!;

    [OneTimeSetUp]
    public void SetUp() => _temp = new TempFolder();

    [OneTimeTearDown]
    public void TearDown() => _temp.Dispose();

    [Test]
    public void CaptureRead_ReportsBytesUpToTheFileSize_AndFinishes_WithTheSameResult()
    {
        string capture = _temp.File("read.xel");
        TerminalProgressTests.WriteLatchCapture(capture, events: 40_000);
        long size = new FileInfo(capture).Length;
        Assert.That(size, Is.GreaterThan(4 * FileReadProgressStep), "a capture of several steps");

        var reports = new Recorder();
        CaptureSource withProgress = CaptureSource.Open([capture], new CaptureReadOptions { Progress = reports });
        long counted = withProgress.ReadEvents().LongCount();
        long plain = CaptureSource.Open([capture]).ReadEvents().LongCount();

        Assert.That(counted, Is.EqualTo(plain).And.EqualTo(40_000));
        WorkProgress[] r = reports.All;
        Assert.That(
            r,
            Has.All.Matches<WorkProgress>(p => p.Kind == WorkKind.Reading && p.Item == capture && p.Total == size)
        );
        Assert.That(r[..^1], Has.All.Matches<WorkProgress>(p => !p.Finished));
        Assert.That(r[^1].Finished, Is.True);
        Assert.That(r[^2].Done, Is.EqualTo(size), "the whole file was read before the end");
        Assert.That(
            r.Length,
            Is.GreaterThanOrEqualTo(4),
            "at least one report per MiB: " + string.Join(", ", r.Select(p => p.Done))
        );
        Assert.That(r.Select(p => p.Done), Is.Ordered, "never backwards");
        Assert.That(
            r.Zip(r.Skip(1)).Take(r.Length - 3).Select(p => p.Second.Done - p.First.Done),
            Has.All.GreaterThanOrEqualTo(FileReadProgressStep).Or.EqualTo(0),
            "throttled: steps of at least a MiB until the file's end is reported"
        );
    }

    [Test]
    public void CaptureRead_TargetDataXml_ReportsItsBytes()
    {
        string xml = Path.Combine(TestPaths.Samples, "ring_buffer_waits", "ring_buffer_waits.ring_buffer.xml");
        var reports = new Recorder();
        _ = CaptureSource.Open([xml], new CaptureReadOptions { Progress = reports }).ReadEvents().Count();
        WorkProgress[] r = reports.All;
        Assert.That(r[^1].Finished, Is.True);
        Assert.That(r[^2].Done, Is.EqualTo(new FileInfo(xml).Length));
    }

    [Test]
    public void Export_ReportsEachOfItsTwoReads_AndWritesTheSameFiles()
    {
        string capture = _temp.File("export.xel");
        TerminalProgressTests.WriteLatchCapture(capture, events: 20_000);
        long size = new FileInfo(capture).Length;
        var reports = new Recorder();
        XelExportResult a = XelParquetExporter.Export(
            CaptureSource.Open([capture], new CaptureReadOptions { Progress = reports }),
            _temp.File("pq-a")
        );
        XelExportResult b = XelParquetExporter.Export(CaptureSource.Open([capture]), _temp.File("pq-b"));

        WorkProgress[] r = reports.All;
        Assert.That(r, Has.All.Matches<WorkProgress>(p => p.Kind == WorkKind.Reading && p.Total == size));
        int[] ends = [.. r.Select((p, i) => (p, i)).Where(x => x.p.Finished).Select(x => x.i)];
        Assert.That(ends, Has.Length.EqualTo(2), "the layout read and the rows read");
        Assert.That(ends.Select(i => r[i - 1].Done), Has.All.EqualTo(size), "each read reaches the end of the file");
        Assert.That(
            a.Tables.Select(t => File.ReadAllBytes(t.Path)),
            Is.EqualTo(b.Tables.Select(t => File.ReadAllBytes(t.Path)))
        );
    }

    [Test]
    public void StackSymbolization_ReportsResolving_AndBucketsAsWithout()
    {
        string sample = Path.Combine(TestPaths.Samples, "latch_nesting_full");
        var reports = new Recorder();
        StackBucketResult with = Buckets(sample, reports);
        StackBucketResult without = Buckets(sample, null);

        Assert.That(
            with.Buckets.Select(b => (b.Count, string.Join("|", b.Frames))),
            Is.EqualTo(without.Buckets.Select(b => (b.Count, string.Join("|", b.Frames))))
        );
        WorkProgress[] r = reports.All;
        Assert.That(r, Is.Not.Empty);
        Assert.That(
            r,
            Has.All.Matches<WorkProgress>(p =>
                p.Kind == WorkKind.Resolving && p.Item.Contains("latch_nesting_full", StringComparison.Ordinal)
            )
        );
        Assert.That(r[^1].Finished, Is.True);
        Assert.That(r[^1].Done, Is.EqualTo(r[^1].Total).And.GreaterThan(0));
    }

    [Test]
    public void Download_ReportsTheBodyAndItsEnd()
    {
        using var server = new LoopbackSymbolServer();
        string sandbox = StoreFixtures.NewScratch();
        try
        {
            byte[] pdb = File.ReadAllBytes(StoreFixtures.PdbA);
            const string name = "storea.pdb";
            server.Files[name + "/" + StoreFixtures.IdentityA.Key + "/" + name] = pdb;
            var reports = new Recorder();
            string cache = Path.Combine(sandbox, "cache");
            using var locator = new SymbolLocator(
                SymbolPath.Parse("srv*" + cache + "*" + server.BaseUrl),
                new SymbolStoreOptions
                {
                    DefaultCacheDirectory = cache,
                    RetryDelay = TimeSpan.FromMilliseconds(10),
                    DownloadProgress = reports,
                }
            );
            Assert.That(locator.LocatePdb(name, StoreFixtures.IdentityA).IsVerified, Is.True);

            WorkProgress[] r = reports.All;
            Assert.That(r, Has.All.Matches<WorkProgress>(p => p.Kind == WorkKind.Downloading && p.Item == name));
            Assert.That(
                r[0],
                Is.EqualTo(new WorkProgress(WorkKind.Downloading, name, 0, pdb.Length, false)),
                "the body starts, with its declared length"
            );
            Assert.That(r[^1].Finished, Is.True);
        }
        finally
        {
            StoreFixtures.DeleteScratch(sandbox);
        }
    }

    private const long FileReadProgressStep = 1L << 20;

    private static StackBucketResult Buckets(string sample, IProgress<WorkProgress>? progress)
    {
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
                Progress = progress,
            }
        );
        return new StackBucketAnalysis()
            .Analyze(CaptureSource.Open([sample]), new AnalysisContext(resolver: resolver))
            .Result;
    }

    /// <summary>Records reports as they are made (synchronously, unlike <see cref="Progress{T}"/>).</summary>
    private sealed class Recorder : IProgress<WorkProgress>
    {
        private readonly List<WorkProgress> _reports = [];

        public WorkProgress[] All
        {
            get
            {
                lock (_reports)
                {
                    return [.. _reports];
                }
            }
        }

        public void Report(WorkProgress value)
        {
            lock (_reports)
            {
                _reports.Add(value);
            }
        }
    }
}

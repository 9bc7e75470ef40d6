using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Samples;

namespace XeAnalyzer.Tests.Reporting;

/// <summary>
/// <see cref="CaptureReporter"/> on the committed samples and on captures built here: which analyses run, what the page
/// says when one is not possible, the figures against the generator's documented ones, and the files written.
/// </summary>
public sealed class CaptureReporterTests
{
    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    private static CallstackResolver SampleResolver() =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
            }
        );

    private static CaptureReport Report(string set, CallstackResolver? resolver = null)
    {
        using CallstackResolver own = SampleResolver();
        return CaptureReporter.Run(
            [Path.Combine(TestPaths.Samples, set)],
            new ReportOptions { Resolver = resolver ?? own }
        );
    }

    [Test]
    public void Run_LatchSample_RunsSymbolizationAndLatches_AndSaysWhatMemoryAndWaitsNeed()
    {
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Latch);
        CaptureReport report = Report(SampleData.Latch);

        Assert.That(report.Status, Is.EqualTo(ReportStatus.Complete));
        Assert.That(report.Completed.Select(a => a.Key), Is.EqualTo(new[] { "stacks", "symbols", "latches" }));
        Assert.That(report.NotPossible.Select(a => a.Key), Is.EqualTo(new[] { "memory", "waits" }));
        Assert.That(report.Capture.EventsMatched, Is.EqualTo(SampleData.Figure(figures, "events")));
        Assert.That(
            report.Capture.FirstEvent,
            Is.EqualTo(
                DateTime.Parse(figures["first_event"], CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal)
            )
        );
        Assert.That(
            report.Capture.LastEvent,
            Is.EqualTo(
                DateTime.Parse(figures["last_event"], CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal)
            )
        );
        Assert.That(report.Capture.EventTypes.Single().Name, Is.EqualTo("sqlserver.latch_acquired"));
        Assert.That(report.Capture.Files.Single().Input.ModuleMap.Path, Does.EndWith(figures["modules_file"]));

        // Scheduler counts: the generator's figures (not our own analysis output).
        var latches = (LatchAnalysisResult)report.Analyses.Single(a => a.Key == "latches");
        foreach (GroupTally s in latches.Schedulers)
        {
            Assert.That(s.Count, Is.EqualTo(SampleData.Figure(figures, "scheduler." + s.Key)), "scheduler " + s.Key);
        }

        Assert.That(latches.Outliers.Select(o => o.Key), Is.EqualTo(new[] { "27" }));

        // Every event has a 24-frame stack; the tail stack T6's events have one frame in no module.
        var symbols = (SymbolizationResult)report.Analyses.Single(a => a.Key == "symbols");
        long events = SampleData.Figure(figures, "events");
        long outside =
            SampleData.Figure(figures, "outside_events") * SampleData.Figure(figures, "outside_frames_per_event");
        Assert.That(symbols.DistinctStacks, Is.EqualTo(SampleData.Figure(figures, "distinct_stacks")));
        Assert.That(symbols.Counts.Stacks, Is.EqualTo(events));
        Assert.That(symbols.Counts.Frames, Is.EqualTo(events * 24));
        Assert.That(symbols.Counts.Unresolved, Is.EqualTo(outside));
        Assert.That(symbols.Counts.ResolvedOffline, Is.EqualTo((events * 24) - outside));
        Assert.That(symbols.Counts.Unverified, Is.Zero, "the DLLs give every module's PDB identity");
        Assert.That(symbols.UnresolvedByReason.Single().FirstExample, Is.EqualTo(figures["outside_address"]));
        Assert.That(symbols.UnresolvedByReason.Single().Count, Is.EqualTo(outside));

        // The summary counts each distinct stack once: the out-of-module frame is in one of them (stack T6).
        Assert.That(symbols.Summary.Stacks, Is.EqualTo(SampleData.Figure(figures, "distinct_stacks")));
        Assert.That(symbols.Summary.Frames, Is.EqualTo(SampleData.Figure(figures, "distinct_stacks") * 24));
        Assert.That(symbols.Summary.Unresolved, Is.EqualTo(SampleData.Figure(figures, "outside_frames_per_event")));
        Assert.That(symbols.Pdbs.Select(p => p.PdbName), Is.EqualTo(new[] { "sqlmin.pdb", "sqlTsEs.pdb" }));

        // The notes say what is missing, naming what the capture holds instead.
        ReportSection memory = report.Document.Sections.Single(s => s.Title == "Memory: not possible");
        string text = ((Preformatted)memory.Blocks[1]).Text;
        Assert.That(text, Does.Contain("sqlserver.latch_acquired (6,043)"));
        Assert.That(text, Does.Contain("ADD EVENT sqlos.page_allocated"));
    }

    /// <summary>The generator's buckets of sample 1 (slot order): count and frames leaf first, as SQL Server symbolizes
    /// them.</summary>
    private static List<string> ExpectedBuckets()
    {
        List<Dictionary<string, string>> rows = SampleData.Tsv(
            Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")
        );
        return
        [
            .. rows.GroupBy(r => int.Parse(r["slot"], CultureInfo.InvariantCulture))
                .OrderBy(g => g.Key)
                .Select(g =>
                    g.First()["count"]
                    + "|"
                    + string.Join(
                        "\n",
                        g.OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture)).Select(r => r["symbolized"])
                    )
                ),
        ];
    }

    [TestCase("latch_nesting_full")]
    [TestCase("latch_nesting_full_histogram/latch_nesting_full.tf3656.histogram.xml")]
    [TestCase("latch_nesting_full_histogram/latch_nesting_full.histogram.xml")]
    public void Run_LatchSampleAndItsHistograms_StackSectionHasTheGeneratorsBuckets(string input)
    {
        using CallstackResolver resolver = SampleResolver();
        CaptureReport report = CaptureReporter.Run(
            [Path.Combine(TestPaths.Samples, input)],
            new ReportOptions { Resolver = resolver }
        );

        IAnalysisResult stacks = report.Analyses.Single(a => a.Key == "stacks");
        Assert.That(AnalysisOutcome.Ran(stacks), Is.True);
        StackBucketResult result = ((StackReportSection)stacks).Result;
        string[] actual =
        [
            .. result.Buckets.Select(b =>
                b.Count.ToString(CultureInfo.InvariantCulture) + "|" + string.Join("\n", b.Frames)
            ),
        ];
        Assert.That(actual.Order(StringComparer.Ordinal), Is.EqualTo(ExpectedBuckets().Order(StringComparer.Ordinal)));
        Assert.That(actual[0], Is.EqualTo(ExpectedBuckets()[0]), "the largest bucket first: stack A");

        // The page carries the buckets table, the frames of the top buckets and the flame graph.
        ReportSection buckets = report.Document.Sections.Single(s => s.Title == "Stacks: Buckets");
        Assert.That(((ReportTable)buckets.Blocks[0]).Rows, Has.Count.EqualTo(ExpectedBuckets().Count));
        Assert.That(buckets.Blocks[1], Is.InstanceOf<FlameGraph>());
        ReportSection frames = report.Document.Sections.Single(s =>
            s.Title == "Stacks: Largest buckets, frames leaf first"
        );
        StackList largest = frames.Blocks.OfType<StackList>().Single();
        Assert.That(
            largest.Items[0].Frames.Select(f => f.Text),
            Is.EqualTo(ExpectedBuckets()[0].Split('|')[1].Split('\n'))
        );
        Assert.That(largest.Items, Has.Count.EqualTo(10), "the ten largest of 14 buckets");
        Assert.That(frames.Blocks.OfType<Paragraph>().Single().Text, Does.Contain("10 largest of 14"));
        Assert.That(
            (
                (ReportTable)report.Document.Sections.Single(s => s.Title == "Stacks: Bucket frames").Blocks.Single()
            ).Rows,
            Has.Count.EqualTo(
                SampleData.Tsv(Path.Combine(TestPaths.Samples, "expected", "latch_nesting_full.stacks.tsv")).Count
            ),
            "one row per frame of every bucket"
        );
        Assert.That(
            report.Files.Select(f => f.Name),
            Is.SupersetOf(
                new[]
                {
                    "stacks.buckets.csv",
                    "stacks.stack-buckets.svg",
                    "stacks.stack-buckets.folded",
                    "stacks.stack-bucket-frames.csv",
                }
            )
        );
    }

    [Test]
    public void Run_WaitSample_WaitFiguresMatchTheGenerator()
    {
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Waits);
        CaptureReport report = Report(SampleData.Waits);

        Assert.That(report.Completed.Select(a => a.Key), Does.Contain("waits").And.Contain("symbols"));
        Assert.That(report.NotPossible.Select(a => a.Key), Does.Contain("memory"));
        Assert.That(report.Capture.EventsMatched, Is.EqualTo(SampleData.Figure(figures, "events")));
        foreach (
            string name in new[]
            {
                "wait_info",
                "wait_info_external",
                "latch_acquired",
                "latch_released",
                "file_read",
                "file_read_completed",
            }
        )
        {
            Assert.That(
                report.Capture.EventTypes.Single(e => e.Name.EndsWith("." + name, StringComparison.Ordinal)).Count,
                Is.EqualTo(SampleData.Figure(figures, "count." + name)),
                name
            );
        }

        var waits = (WaitAnalysisResult)report.Analyses.Single(a => a.Key == "waits");
        foreach (WaitTypeStats w in waits.ByWaitType)
        {
            Assert.That(w.Waits, Is.EqualTo(SampleData.Figure(figures, "wait." + w.WaitType + ".waits")), w.WaitType);
            Assert.That(
                w.TotalDurationMs,
                Is.EqualTo(SampleData.Figure(figures, "wait." + w.WaitType + ".total_ms")),
                w.WaitType
            );
        }
    }

    [Test]
    public void Run_MemorySample_SessionPeaksMatchTheGenerator()
    {
        Dictionary<string, string> figures = SampleData.Figures(SampleData.Memory);
        CaptureReport report = Report(SampleData.Memory);

        Assert.That(report.Completed.Select(a => a.Key), Does.Contain("memory"));
        var memory = (MemoryAnalysisResult)report.Analyses.Single(a => a.Key == "memory");
        foreach (string session in new[] { "64", "53" })
        {
            GroupMemory g = memory.Sessions.Single(s => s.Key == session);
            Assert.That(g.PeakPages, Is.EqualTo(SampleData.Figure(figures, "session" + session + ".peak_pages")));
            Assert.That(
                g.PagesAllocated,
                Is.EqualTo(SampleData.Figure(figures, "session" + session + ".pages_allocated"))
            );
        }

        Assert.That(
            report.Files.Where(f => f.Kind == ReportFileKind.SeriesCsv).Select(f => f.Name),
            Has.Some.StartWith("memory."),
            "the running total's points as CSV"
        );
    }

    [Test]
    public async Task Run_TwiceWithFreshResolvers_WritesTheSameBytes()
    {
        foreach (string set in new[] { SampleData.Latch, SampleData.Memory, SampleData.Waits })
        {
            string a = Path.Combine(_temp.Path, set + "-first");
            string b = Path.Combine(_temp.Path, set + "-second");
            Report(set).Write(a);
            Report(set).Write(b);
            ReportTestSupport.AssertSame(ReportTestSupport.Snapshot(a), ReportTestSupport.Snapshot(b));
        }
    }

    [Test]
    public async Task Write_WritesEveryPlannedFile_CsvAndJsonParse()
    {
        CaptureReport report = Report(SampleData.Waits);
        string dir = _temp.File("out");
        report.Write(dir);

        Assert.That(
            Directory.GetFiles(dir).Select(Path.GetFileName).Order(StringComparer.Ordinal),
            Is.EqualTo(report.Files.Select(f => f.Name).Order(StringComparer.Ordinal))
        );
        using JsonDocument json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "report.json")));
        Assert.That(json.RootElement.GetProperty("format").GetString(), Is.EqualTo("xeanalyzer-report"));
        Assert.That(
            json.RootElement.GetProperty("sections").GetArrayLength(),
            Is.EqualTo(report.Document.Sections.Count)
        );
        foreach (ReportFile f in report.Files.Where(f => f.Kind == ReportFileKind.TableCsv))
        {
            var table = (ReportTable)f.Block!;
            List<string[]> rows = ReportTestSupport.ParseCsv(await File.ReadAllTextAsync(Path.Combine(dir, f.Name)));
            Assert.That(rows, Has.Count.EqualTo(table.Rows.Count + 1), f.Name);
            Assert.That(
                rows.All(r => r.Length == table.Columns.Count),
                Is.True,
                f.Name + ": every record has one field per column"
            );
            Assert.That(rows[0], Is.EqualTo(table.Columns.Select(CsvReportWriter.HeaderOf).ToArray()), f.Name);
        }

        foreach (ReportFile f in report.Files.Where(f => f.Kind == ReportFileKind.Svg))
        {
            var svg = System.Xml.Linq.XDocument.Load(Path.Combine(dir, f.Name));
            Assert.That(svg.Root!.Name.LocalName, Is.EqualTo("svg"), f.Name);
        }

        // The page is well-formed XML too (the writer promises it), with no script.
        var page = System.Xml.Linq.XDocument.Parse(
            (await File.ReadAllTextAsync(Path.Combine(dir, "index.html")))["<!DOCTYPE html>\n".Length..]
        );
        Assert.That(page.Descendants().Count(e => e.Name.LocalName == "script"), Is.Zero);
    }

    [Test]
    public async Task Run_CaptureWithNoAnalysableEvents_SaysSoOnThePage()
    {
        var c = new AnalysisCaptures();
        string path = _temp.File("batches_0_133601526724170000.xel");
        c.WriteXel(path, Enumerable.Range(0, 50).Select(i => c.Batch(AnalysisCaptures.At(i * 1000))));

        CaptureReport report = CaptureReporter.Run([path]);
        Assert.That(report.Status, Is.EqualTo(ReportStatus.NothingToAnalyse));
        Assert.That(report.Completed, Is.Empty);
        Assert.That(report.Capture.EventsMatched, Is.EqualTo(50));
        Assert.That(
            report.Document.Sections.Select(s => s.Title),
            Is.SupersetOf(
                new[]
                {
                    "Stacks: not possible",
                    "Symbolization: not possible",
                    "Latches: not possible",
                    "Memory: not possible",
                    "Waits: not possible",
                }
            )
        );
        Assert.That(report.Document.Description, Does.StartWith("Inputs: ").And.Contain("Nothing was analysed"));
        string overview = string.Join("\n", report.Document.Sections[0].Blocks.OfType<Paragraph>().Select(p => p.Text));
        Assert.That(
            overview,
            Does.Contain("This page is not a result").And.Contain("sqlserver.sql_batch_completed (50)")
        );
        Assert.That(
            (
                (Preformatted)report.Document.Sections.Single(s => s.Title == "Symbolization: not possible").Blocks[1]
            ).Text,
            Does.Contain("package0.callstack")
        );

        report.Write(_temp.File("out"));
        Assert.That(File.Exists(_temp.File("out/index.html")), Is.True);
    }

    [Test]
    public void Run_LatchEventsWithoutSchedulerAction_LatchesNotPossible_NamingTheAction()
    {
        var c = new AnalysisCaptures();
        string path = _temp.File("noscheduler.xel");
        c.WriteXel(
            path,
            Enumerable.Range(0, 10).Select(i => c.Acquire(AnalysisCaptures.At(i), "BUFFER", 0x10, worker: 0x20))
        );

        CaptureReport report = CaptureReporter.Run([path]);
        IAnalysisResult latches = report.Analyses.Single(a => a.Key == "latches");
        Assert.That(AnalysisOutcome.Ran(latches), Is.False);
        Assert.That(latches.MissingData!.Missing, Is.EqualTo(new[] { "sqlos.scheduler_id" }));
        Assert.That(report.Status, Is.EqualTo(ReportStatus.NothingToAnalyse));
    }

    [Test]
    public void Run_TruncatedCapture_IsPartial_WithTheEventsBeforeTheCut()
    {
        string copy = _temp.File("latch_nesting_full_0_133601526724170000.xel");
        byte[] bytes = File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch));
        File.WriteAllBytes(copy, bytes.AsSpan(0, bytes.Length - 5000).ToArray());

        CaptureReport report = CaptureReporter.Run([copy]);
        Assert.That(report.Status, Is.EqualTo(ReportStatus.Partial));
        Assert.That(report.Read.IncompleteBuffers, Is.EqualTo(1));
        Assert.That(report.Capture.EventsMatched, Is.GreaterThan(0).And.LessThan(6043));
        Assert.That(report.Warnings, Has.Some.Contains("byte offset"));
    }

    [Test]
    public void Run_NotACapture_ThrowsOurFormatException()
    {
        string path = _temp.File("fake.xel");
        File.WriteAllText(path, "this is not an Extended Events file, only text with a .xel name");
        Assert.That(
            () => CaptureReporter.Run([path]),
            Throws.InstanceOf<XeFormatException>().With.Message.Contains("fake.xel")
        );
    }

    [Test]
    public void Run_PluggedAnalysis_GetsOnlyItsEvents_AndItsSectionsAndFilesAreInTheReport()
    {
        var probe = new ProbeAnalysis("wait_info_external");
        using CallstackResolver resolver = SampleResolver();
        CaptureReport report = CaptureReporter.Run(
            [Path.Combine(TestPaths.Samples, SampleData.Waits)],
            new ReportOptions { Resolver = resolver, Analyses = [probe, new WaitAnalysis()] }
        );

        long expected = SampleData.Figure(SampleData.Figures(SampleData.Waits), "count.wait_info_external");
        Assert.That(probe.Seen, Is.EqualTo(expected));
        Assert.That(probe.OtherNames, Is.Zero);
        Assert.That(report.Document.Sections.Select(s => s.Title), Does.Contain("Probe: Counted"));
        Assert.That(report.Files.Select(f => f.Name), Does.Contain("probe.events-seen.csv"));
    }

    [Test]
    public void Run_AnalysisThatThrows_FailsTheReport_WithoutHanging()
    {
        var c = new AnalysisCaptures();
        string path = _temp.File("many.xel");
        c.WriteXel(path, Enumerable.Range(0, 50_000).Select(i => c.Batch(AnalysisCaptures.At(i))));
        var options = new ReportOptions
        {
            Analyses = [new ThrowingAnalysis(100), new ProbeAnalysis("sql_batch_completed")],
        };
        Assert.That(
            () => CaptureReporter.Run([path], options),
            Throws.InvalidOperationException.With.Message.EqualTo("deliberate failure after 100 events")
        );
    }

    [Test]
    public void Run_DuplicateOrBadAnalysisKeys_AreRejected()
    {
        string path = SampleData.CapturePath(SampleData.Latch);
        Assert.That(
            () =>
                CaptureReporter.Run(
                    [path],
                    new ReportOptions { Analyses = [new ProbeAnalysis("x"), new ProbeAnalysis("y")] }
                ),
            Throws.ArgumentException.With.Message.Contains("used twice")
        );
        Assert.That(
            () =>
                CaptureReporter.Run(
                    [path],
                    new ReportOptions { Analyses = [new ProbeAnalysis("x", "latches"), new LatchAnalysis()] }
                ),
            Throws.ArgumentException.With.Message.Contains("'latches' is used twice")
        );
        Assert.That(
            () => CaptureReporter.Run([path], new ReportOptions { Analyses = [new ProbeAnalysis("x", "capture")] }),
            Throws.ArgumentException.With.Message.Contains("reserved")
        );
        Assert.That(
            () => CaptureReporter.Run([path], new ReportOptions { Analyses = [new ProbeAnalysis("x", "Bad Key")] }),
            Throws.ArgumentException
        );
    }

    /// <summary>
    /// Counts the events it gets (and those of other names it should not get): what a new analysis adds to a report is
    /// an analysis class, a result type with its documents, and one line in the list of analyses.
    /// </summary>
    private sealed class ProbeAnalysis(string eventName, string key = "probe") : ICaptureAnalysis
    {
        public long Seen { get; private set; }

        public long OtherNames { get; private set; }

        public string Key => key;

        public IReadOnlyCollection<string>? EventNames => [eventName];

        public IAnalysisRun Start(AnalysisContext context) => new Run(this);

        private sealed class Run(ProbeAnalysis owner) : IAnalysisRun
        {
            public bool Accepts(XeEventType eventType, XeActionSet actions) =>
                eventType.Name == owner.EventNames!.Single();

            public void Add(XEvent e)
            {
                if (e.Name == owner.EventNames!.Single())
                {
                    owner.Seen++;
                }
                else
                {
                    owner.OtherNames++;
                }
            }

            public IAnalysisResult Complete(CaptureSummary capture, CancellationToken cancellationToken) =>
                new ProbeResult(owner.Key, owner.Seen);
        }

        private sealed class ProbeResult(string key, long seen) : IAnalysisResult
        {
            public string Key => key;

            public string Title => "Probe";

            public MissingData? MissingData => null;

            public IReadOnlyList<AnalysisWarning> Warnings => [];

            public long EventsUsed => seen;

            public ReportDocument ToDocument(DocumentView view) =>
                new(
                    "Probe",
                    [
                        new ReportSection(
                            "Counted",
                            new TableBuilder("events seen")
                                .AddColumn(TableColumn.Integer("events"))
                                .AddRow(seen)
                                .Build()
                        ),
                    ]
                );
        }
    }

    private sealed class ThrowingAnalysis(int after) : ICaptureAnalysis, IAnalysisRun
    {
        private int _n;

        public IReadOnlyCollection<string>? EventNames => null;

        public IAnalysisRun Start(AnalysisContext context) => this;

        public bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public void Add(XEvent e)
        {
            if (++_n == after)
            {
                throw new InvalidOperationException(
                    "deliberate failure after " + after.ToString(CultureInfo.InvariantCulture) + " events"
                );
            }
        }

        public IAnalysisResult Complete(CaptureSummary capture, CancellationToken cancellationToken) =>
            throw new AssertionException("the stream ended before the failure point");
    }
}

using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Export;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Xel;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// <see cref="XelParquetExporter"/> on the committed fixtures and samples: what DuckDB reads from the Parquet files
/// equals what <see cref="XelReader"/> reads from the captures, value by value; plus schema merging, filters, row-group
/// bounds, damaged input and determinism.
/// </summary>
public sealed class XelParquetExportTests
{
    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;
    private string _dir = null!;

    [SetUp]
    public void SetUp()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-export-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    public static IEnumerable<TestCaseData> Captures()
    {
        yield return new TestCaseData(
            "fixture all-types",
            new[] { "XeAnalyzer.Tests/TestData/xel/all-types.xel" }
        ).SetName("Export_MatchesReader_AllTypesFixture");
        yield return new TestCaseData("fixture latch", new[] { "XeAnalyzer.Tests/TestData/xel/latch.xel" }).SetName(
            "Export_MatchesReader_LatchFixture"
        );
        yield return new TestCaseData("fixture rollover", new[] { "XeAnalyzer.Tests/TestData/xel/rollover" }).SetName(
            "Export_MatchesReader_RolloverFixture"
        );
        yield return new TestCaseData("sample latch", new[] { "sample-xel/latch_nesting_full" }).SetName(
            "Export_MatchesReader_LatchSample"
        );
        yield return new TestCaseData("sample cci", new[] { "sample-xel/cci_insert_memory" }).SetName(
            "Export_MatchesReader_CciSample"
        );
        yield return new TestCaseData("sample blob", new[] { "sample-xel/blob_storage_waits" }).SetName(
            "Export_MatchesReader_BlobSample"
        );
        yield return new TestCaseData(
            "all samples together",
            new[] { "sample-xel/latch_nesting_full", "sample-xel/cci_insert_memory", "sample-xel/blob_storage_waits" }
        ).SetName("Export_MatchesReader_AllSamplesMerged");
    }

    private static string[] Files(string[] inputs) =>
        [.. CaptureSet.Expand(inputs.Select(i => Path.Combine(TestPaths.RepoRoot, i))).SelectMany(s => s.Files)];

    [TestCaseSource(nameof(Captures))]
    public void Export_MatchesReader(string label, string[] inputs)
    {
        string[] files = Files(inputs);
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open(files), _dir);
        Dictionary<string, List<XEvent>> expected = ExportOracle.ReadEvents(files);

        Assert.That(
            result.Tables.Select(t => t.EventName),
            Is.EquivalentTo(expected.Keys),
            label + ": one table per event"
        );
        Assert.That(
            result.Tables.Select(t => Path.GetFileName(t.Path)),
            Is.EquivalentTo(expected.Keys.Select(k => k + ".parquet"))
        );
        Assert.That(result.Events, Is.EqualTo(expected.Values.Sum(l => l.Count)));
        Assert.That(result.Notes, Is.Empty);
        Assert.That(Directory.GetFiles(_dir, "*.tmp"), Is.Empty);
        foreach (XelExportTable t in result.Tables)
        {
            Assert.That(t.Rows, Is.EqualTo(expected[t.EventName].Count), t.EventName);
            Assert.That(new FileInfo(t.Path).Length, Is.EqualTo(t.Bytes), t.EventName);
            ExportOracle.AssertTableMatches(t.Path, expected[t.EventName]);
        }
    }

    [Test]
    public void Export_MatchesReader_ForSharedRealCaptures()
    {
        string[] files =
        [
            TestPaths.RequireVector("xel", "TestXel_0.xel"),
            TestPaths.RequireVector("xel", "sqlhealth.xel"),
            TestPaths.RequireVector("xel", "gatewaysample.xel"),
            TestPaths.RequireVector("xel", "sqltrace.xel"),
        ];
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open(files), _dir);
        Dictionary<string, List<XEvent>> expected = ExportOracle.ReadEvents(files);
        Assert.That(result.Tables.Select(t => t.EventName), Is.EquivalentTo(expected.Keys));
        foreach (XelExportTable t in result.Tables)
        {
            ExportOracle.AssertTableMatches(t.Path, expected[t.EventName]);
        }
    }

    [Test]
    public void Export_CoversEveryBaseTypeAndEdgeValue_ForAllTypesFixture()
    {
        // The value-by-value comparison above only proves something if the fixture exercises these cases; check that it
        // does, with a few direct DuckDB checks of the documented types.
        string file = XelFixtures.PathOf("all-types.xel");
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open([file]), _dir);
        string path = result.Tables.Single(t => t.EventName == "xetest.all_types").Path;
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT column_name, column_type FROM (DESCRIBE t)",
            "SELECT count(*) FROM t WHERE callstack IS NULL",
            "SELECT count(*) FROM t WHERE f_unicode LIKE 'unicode \u00e9\u4e2d %'",
            "SELECT f_flags, f_flags_key, f_wide, CAST(f_wide_key AS VARCHAR) FROM t WHERE f_flags_key = 7 LIMIT 1",
            "SELECT CAST(len(f_callstack) AS VARCHAR), CAST(count(*) AS VARCHAR), CAST(f_callstack[1] AS VARCHAR), "
                + "CAST(f_callstack[-1] AS VARCHAR) FROM t GROUP BY ALL ORDER BY 1",
            "SELECT CAST(epoch_us(timestamp_utc) AS VARCHAR) FROM t ORDER BY file_offset"
        );
        var types = r[0].Rows.ToDictionary(x => x[0].GetString()!, x => x[1].GetString()!);
        Assert.That(types["f_int8"], Is.EqualTo("TINYINT"));
        Assert.That(types["f_uint64"], Is.EqualTo("UBIGINT"));
        Assert.That(types["f_ptr"], Is.EqualTo("UBIGINT"));
        Assert.That(types["f_float32"], Is.EqualTo("FLOAT"));
        Assert.That(types["f_filetime"], Is.EqualTo("TIMESTAMP WITH TIME ZONE"));
        Assert.That(types["f_guid"], Is.EqualTo("VARCHAR"));
        Assert.That(types["f_binary"], Is.EqualTo("BLOB"));
        Assert.That(types["f_callstack"], Is.EqualTo("BIGINT[]"));
        Assert.That(types["f_bool"], Is.EqualTo("BOOLEAN"));
        Assert.That(types["f_color_key"], Is.EqualTo("UINTEGER"));
        Assert.That(types["f_flags_key"], Is.EqualTo("USMALLINT"));
        Assert.That(types["f_wide_key"], Is.EqualTo("UBIGINT"));
        Assert.That(
            types.Keys,
            Does.Contain("session_id").And.Contain("action_session_id"),
            "a field and an action named session_id"
        );
        Assert.That(types.Keys, Does.Not.Contain("action_event_sequence"), "event_sequence is the common column");

        int withoutStack = Enumerable.Range(0, XelFixtures.AllTypesCount).Count(i => i % 4 == 3);
        Assert.That(
            r[1].Rows[0][0].GetString(),
            Is.EqualTo(withoutStack.ToString(Ic)),
            "events written without the callstack action have a null callstack"
        );
        Assert.That(
            r[2].Rows[0][0].GetString(),
            Is.EqualTo(XelFixtures.AllTypesCount.ToString(Ic)),
            "non-ASCII text survives"
        );
        Assert.That(r[3].Rows[0][0].GetString(), Is.EqualTo("READ, WRITE, EXEC"), "bitmask map text");
        Assert.That(r[3].Rows[0][1].GetInt32(), Is.EqualTo(7));
        Assert.That(r[3].Rows[0][3].GetString(), Is.EqualTo(uint.MaxValue.ToString(Ic)));
        // Even events carry the whole 3-frame stack, odd ones its first (leaf) frame.
        string leaf = ((long)XelFixtures.Stack[0]).ToString(Ic),
            root = ((long)XelFixtures.Stack[^1]).ToString(Ic);
        string half = (XelFixtures.AllTypesCount / 2).ToString(Ic);
        Assert.That(
            r[4].Rows.Select(x => string.Join(" ", x.Select(v => v.GetString()))),
            Is.EqualTo(new[] { "1 " + half + " " + leaf + " " + leaf, "3 " + half + " " + leaf + " " + root }),
            "list lengths, first (leaf) and last elements"
        );
        string[] expectedTimes =
        [
            .. Enumerable
                .Range(0, XelFixtures.AllTypesCount)
                .Select(i => ExportOracle.Micros(XelFixtures.AllTypesTime(i))),
        ];
        Assert.That(
            r[5].Rows.Select(x => x[0].GetString()),
            Is.EquivalentTo(expectedTimes),
            "timestamps to the µs, from the generator's inputs"
        );
    }

    [Test]
    public void Export_MergesCompatibleSchemas_AndSplitsIncompatibleOnes()
    {
        string a = Path.Combine(_dir, "build_a.xel"),
            b = Path.Combine(_dir, "build_b.xel");
        WriteBuild(a, fieldAIsWide: false, yValueIsText: false, extraField: false, appName: false, rows: 3);
        WriteBuild(b, fieldAIsWide: true, yValueIsText: true, extraField: true, appName: true, rows: 4);
        string outDir = Path.Combine(_dir, "out");

        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open([a, b]), outDir);

        Assert.That(
            result.Tables.Select(t => Path.GetFileName(t.Path)),
            Is.EqualTo(new[] { "test.x.parquet", "test.y.parquet", "test.y.schema2.parquet" })
        );
        Assert.That(result.Notes, Has.Count.EqualTo(1));
        Assert.That(
            result.Notes[0],
            Does.Contain("test.y")
                .And.Contain("field 'value'")
                .And.Contain("build_b.xel")
                .And.Contain("test.y.schema2.parquet")
        );
        XelExportTable x = result.Tables[0];
        Assert.That(x.SourceFiles, Is.EqualTo(new[] { a, b }));
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            x.Path,
            "SELECT column_name, column_type FROM (DESCRIBE t)",
            "SELECT count(*), count(extra), count(client_app_name), count(mode_key), CAST(max(a) AS VARCHAR) FROM t",
            "SELECT capture_file, count(*) FROM t GROUP BY ALL ORDER BY 1"
        );
        var types = r[0].Rows.ToDictionary(v => v[0].GetString()!, v => v[1].GetString()!);
        Assert.That(types["a"], Is.EqualTo("UINTEGER"), "uint16 in build A and uint32 in build B widen to uint32");
        Assert.That(types["mode_key"], Is.EqualTo("UINTEGER"), "map keys of 2 and 4 bytes widen too");
        Assert.That(types["extra"], Is.EqualTo("VARCHAR"));
        Assert.That(
            r[1]
                .Rows[0]
                .Select(v => v.ValueKind == System.Text.Json.JsonValueKind.String ? v.GetString() : v.GetRawText()),
            Is.EqualTo(new[] { "7", "4", "4", "7", "70000" }),
            "build A's rows have null for the field and action only build B has"
        );
        Assert.That(r[2].Rows.Select(v => v[1].GetString()), Is.EqualTo(new[] { "3", "4" }));

        ExportOracle.AssertTableMatches(x.Path, [.. XelReader.ReadEvents([a, b]).Where(e => e.Name == "x")]);
        ExportOracle.AssertTableMatches(result.Tables[1].Path, [.. XelReader.ReadEvents(a).Where(e => e.Name == "y")]);
        ExportOracle.AssertTableMatches(result.Tables[2].Path, [.. XelReader.ReadEvents(b).Where(e => e.Name == "y")]);
    }

    [Test]
    public void Export_AddsFramesColumns_WhenResolverGiven()
    {
        string[] files = [XelFixtures.PathOf("all-types.xel"), XelFixtures.PathOf("latch.xel")];
        int calls = 0;
        string Fake(string file, ulong address)
        {
            calls++;
            return Path.GetFileNameWithoutExtension(file) + "!f_" + address.ToString("x", Ic);
        }

        XelExportResult result = XelParquetExporter.Export(
            CaptureSource.Open(files),
            _dir,
            new XelExportOptions { FrameResolver = Fake }
        );
        var distinct = new HashSet<(string, ulong)>();
        int checkedStacks = 0;
        foreach (XelExportTable t in result.Tables)
        {
            List<XEvent> events =
            [
                .. files
                    .SelectMany(f => XelReader.ReadEvents(f))
                    .Where(e => e.FullName == t.EventName)
                    .OrderBy(e => e.Source.Offset),
            ];
            string[] stackColumns =
            [
                .. t.Columns.Where(c => c.Type == ParquetColumnType.Int64List).Select(c => c.Name),
            ];
            Assert.That(
                t.Columns.Where(c => c.Type == ParquetColumnType.StringList).Select(c => c.Name),
                Is.EqualTo(stackColumns.Select(c => c + "_frames")),
                t.EventName
            );
            if (stackColumns.Length == 0)
            {
                continue;
            }

            QueryResult q = DuckDbOracle.Single(
                t.Path,
                "SELECT " + string.Join(", ", stackColumns.Select(c => c + "_frames")) + " FROM t ORDER BY file_offset"
            );
            for (int r = 0; r < events.Count; r++)
            {
                XEvent e = events[r];
                for (int c = 0; c < stackColumns.Length; c++)
                {
                    string name = stackColumns[c];
                    bool found = name.StartsWith("f_", StringComparison.Ordinal)
                        ? e.TryGetField(name, out XeValue v)
                        : e.TryGetAction(name, out v);
                    System.Text.Json.JsonElement actual = q.Rows[r][c];
                    if (!found)
                    {
                        Assert.That(
                            actual.ValueKind,
                            Is.EqualTo(System.Text.Json.JsonValueKind.Null),
                            e.Source + " " + name
                        );
                        continue;
                    }

                    string file = e.Source.FilePath!;
                    string[] expected =
                    [
                        .. v.AsCallstack()
                            .Select(a => Path.GetFileNameWithoutExtension(file) + "!f_" + a.ToString("x", Ic)),
                    ];
                    Assert.That(
                        actual.EnumerateArray().Select(x => x.GetString()),
                        Is.EqualTo(expected),
                        e.Source + " " + name
                    );
                    foreach (ulong a in v.AsCallstack())
                    {
                        distinct.Add((file, a));
                    }

                    checkedStacks++;
                }
            }
        }

        Assert.That(checkedStacks, Is.GreaterThan(40));
        Assert.That(calls, Is.EqualTo(distinct.Count), "one resolver call per distinct address and file");
    }

    [Test]
    public void Export_OfTargetDataXml_WritesTheSameRowsAsItsEvents()
    {
        string xml = Path.Combine(TestPaths.Samples, "ring_buffer_waits", "ring_buffer_waits.ring_buffer.xml");
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open([xml]), _dir);
        var expected = new Dictionary<string, List<XEvent>>(StringComparer.Ordinal);
        foreach (XEvent e in CaptureSource.Open([xml]).ReadEvents())
        {
            if (!expected.TryGetValue(e.FullName, out List<XEvent>? list))
            {
                expected[e.FullName] = list = [];
            }

            list.Add(e);
        }

        Assert.That(result.Tables.Select(t => t.EventName), Is.EquivalentTo(expected.Keys));
        Assert.That(result.Events, Is.EqualTo(expected.Values.Sum(l => l.Count)));
        foreach (XelExportTable t in result.Tables)
        {
            ExportOracle.AssertTableMatches(t.Path, expected[t.EventName]);
        }
    }

    [Test]
    public void Export_Resolve_ResolvesTextStacksOfTargetData_AsStackBucketsWriteThem()
    {
        string xml = Path.Combine(TestPaths.TestData, "text", "ring_buffer_callstack.xml");
        using CallstackResolver resolver = XeAnalyzer.Tests.Symbols.Resolution.ResolutionFixtures.Resolver();
        XelExportResult result = XelParquetExporter.Export(
            CaptureSource.Open([xml]),
            _dir,
            new XelExportOptions { Resolver = resolver }
        );
        XelExportTable errors = result.Tables.Single(t => t.EventName == "sqlserver.error_reported");
        Assert.That(
            errors.Columns.Select(c => c.Name),
            Does.Contain("callstack_frames"),
            "a text stack column gets frames by the one stack-column rule"
        );
        XelExportTable waits = result.Tables.Single(t => t.EventName == "sqlos.wait_info");
        Assert.That(waits.Columns.Select(c => c.Name), Does.Contain("callstack_rva_frames"));

        // The frames are what stack bucketing shows for the same stacks (one frame list per distinct stack).
        StackBucketResult stacks = new StackBucketAnalysis(new StackBucketOptions { GroupByEvent = true })
            .Analyze(CaptureSource.Open([xml]), new AnalysisContext(resolver: resolver))
            .Result;
        foreach (
            (XelExportTable table, string column) in new[]
            {
                (errors, "callstack_frames"),
                (waits, "callstack_rva_frames"),
            }
        )
        {
            QueryResult q = DuckDbOracle.Single(
                null,
                "SELECT array_to_string("
                    + column
                    + ", chr(10)) FROM read_parquet("
                    + DuckDbOracle.Literal(table.Path)
                    + ")"
            );
            string exported = q.Rows.Single()[0].GetString()!;
            StackBucket bucket = stacks.Buckets.Single(b => b.EventName == table.EventName);
            Assert.That(exported, Is.EqualTo(string.Join("\n", bucket.Frames)), table.EventName);
        }

        Assert.That(result.Resolution, Is.Not.Null);
        Assert.That(
            result.Resolution!.Resolved + result.Resolution.Unresolved,
            Is.EqualTo(6),
            "4 + 2 distinct frames, each counted once"
        );
    }

    [Test]
    public void Export_WritesOnlyChosenEvents_WithEventFilter()
    {
        string[] files = Files(["sample-xel/blob_storage_waits"]);
        var options = new XelExportOptions { Filter = new EventFilter(["latch_acquired", "sqlos.wait_info"]) };
        XelExportResult result = XelParquetExporter.Export(CaptureSource.Open(files), _dir, options);
        Assert.That(
            result.Tables.Select(t => t.EventName),
            Is.EqualTo(new[] { "sqlos.wait_info", "sqlserver.latch_acquired" })
        );
        Assert.That(
            Directory.GetFiles(_dir).Select(Path.GetFileName),
            Is.EquivalentTo(new[] { "sqlos.wait_info.parquet", "sqlserver.latch_acquired.parquet" })
        );
    }

    [Test]
    public void Export_BoundsRowGroups_ByRowsAndSharedMemoryBudget()
    {
        string[] files = Files(["sample-xel/blob_storage_waits"]);
        Dictionary<string, List<XEvent>> expected = ExportOracle.ReadEvents(files);
        var options = new XelExportOptions { RowGroupRows = 500 };
        XelExportResult byRows = XelParquetExporter.Export(
            CaptureSource.Open(files),
            Path.Combine(_dir, "rows"),
            options
        );
        foreach (XelExportTable t in byRows.Tables)
        {
            int n = expected[t.EventName].Count;
            Assert.That(t.RowGroups, Is.EqualTo((n + 499) / 500), t.EventName);
            QueryResult q = DuckDbOracle.Single(
                null,
                "SELECT count(*) FROM parquet_metadata(" + DuckDbOracle.Literal(t.Path) + ") WHERE column_id = 0"
            );
            Assert.That(q.Rows[0][0].GetString(), Is.EqualTo(t.RowGroups.ToString(Ic)));
        }

        // A tiny shared budget forces early row groups across tables; the rows stay the same.
        XelExportResult budget = XelParquetExporter.Export(
            CaptureSource.Open(files),
            Path.Combine(_dir, "budget"),
            new XelExportOptions { MaxBufferedBytes = 64 * 1024 }
        );
        Assert.That(
            budget.Tables.Sum(t => t.RowGroups),
            Is.GreaterThan(budget.Tables.Count),
            "the budget closed row groups early"
        );
        foreach (XelExportTable t in budget.Tables)
        {
            ExportOracle.AssertTableMatches(t.Path, expected[t.EventName]);
        }
    }

    [Test]
    public void Export_IsDeterministic_ForSameInput()
    {
        string[] files = Files(["sample-xel/cci_insert_memory", "XeAnalyzer.Tests/TestData/xel/all-types.xel"]);
        XelExportResult first = XelParquetExporter.Export(CaptureSource.Open(files), Path.Combine(_dir, "1"));
        XelExportResult second = XelParquetExporter.Export(CaptureSource.Open(files), Path.Combine(_dir, "2"));
        Assert.That(
            second.Tables.Select(t => Path.GetFileName(t.Path)),
            Is.EqualTo(first.Tables.Select(t => Path.GetFileName(t.Path)))
        );
        for (int i = 0; i < first.Tables.Count; i++)
        {
            Assert.That(
                File.ReadAllBytes(second.Tables[i].Path),
                Is.EqualTo(File.ReadAllBytes(first.Tables[i].Path)),
                first.Tables[i].Path
            );
        }
    }

    [Test]
    public void Export_Throws_AndLeavesNoFile_ForDamagedCaptureInStrictMode()
    {
        string damaged = WriteDamagedLatch();
        string outDir = Path.Combine(_dir, "out");
        Assert.That(
            () => XelParquetExporter.Export(CaptureSource.Open([damaged]), outDir),
            Throws.InstanceOf<InvalidXelDataException>()
        );
        Assert.That(
            !Directory.Exists(outDir) || Directory.GetFiles(outDir).Length == 0,
            Is.True,
            "no partial or temporary file"
        );
    }

    [Test]
    public void Export_WritesEventsBeforeDamage_WhenSkippingCorruptBuffers()
    {
        string damaged = WriteDamagedLatch();
        var diag = new CaptureDiagnostics();
        CaptureSource source = CaptureSource.Open(
            [damaged],
            new CaptureReadOptions { Integrity = XelIntegrityHandling.SkipCorruptBuffers }
        );
        XelExportResult result = XelParquetExporter.Export(
            source,
            Path.Combine(_dir, "out"),
            new XelExportOptions { Diagnostics = diag }
        );
        Assert.That(diag.Reader.SkippedBuffers, Is.EqualTo(1));
        List<XEvent> readable =
        [
            .. XelReader.ReadEvents(
                damaged,
                new XelReadOptions { Integrity = XelIntegrityHandling.SkipCorruptBuffers }
            ),
        ];
        Assert.That(readable.Count, Is.GreaterThan(0).And.LessThan(40));
        Assert.That(result.Events, Is.EqualTo(readable.Count));
        ExportOracle.AssertTableMatches(result.Tables.Single().Path, readable);
    }

    /// <summary>latch.xel with the header of its last event buffer damaged (a wrong log version): events of earlier
    /// buffers read fine.</summary>
    private string WriteDamagedLatch()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        int last = -1;
        for (int pos = 512; pos + 24 <= b.Length; )
        {
            if (System.Buffers.Binary.BinaryPrimitives.ReadUInt16LittleEndian(b.AsSpan(pos + 14)) == 0)
            {
                last = pos;
            }

            int size = System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(b.AsSpan(pos + 16));
            Assert.That(size, Is.GreaterThan(0));
            pos += size;
        }

        Assert.That(last, Is.GreaterThan(512), "latch.xel has at least two event buffers");
        b[last + 12] = 0x77;
        string path = Path.Combine(_dir, "damaged.xel");
        File.WriteAllBytes(path, b);
        return path;
    }

    /// <summary>Two "builds" of a test package: event x (compatible changes) and event y (field 'value' changes
    /// type).</summary>
    private static void WriteBuild(
        string path,
        bool fieldAIsWide,
        bool yValueIsText,
        bool extraField,
        bool appName,
        int rows
    )
    {
        var sBuilder = new XeSchemaBuilder();
        XePackage p0 = sBuilder.Package0;
        XePackage test = sBuilder.AddPackage("test", 5);
        XeMap mode = sBuilder.AddMap(test, "mode", [new(0, "OFF"), new(1, "ON")], keySize: fieldAIsWide ? 4 : 2);
        var xFields = new List<XeFieldDefinition>
        {
            XeFieldDefinition.Of("a", fieldAIsWide ? XeBaseType.UInt32 : XeBaseType.UInt16),
            XeFieldDefinition.Of("mode", mode),
        };
        if (extraField)
        {
            xFields.Add(XeFieldDefinition.Of("extra", XeBaseType.UnicodeString));
        }

        XeEventType x = sBuilder.AddEvent(test, "x", new Guid("11111111-2222-3333-4444-555555555555"), xFields);
        XeEventType y = sBuilder.AddEvent(
            test,
            "y",
            new Guid("11111111-2222-3333-4444-666666666666"),
            [XeFieldDefinition.Of("value", yValueIsText ? XeBaseType.AnsiString : XeBaseType.Int32)]
        );
        XeColumn seq = sBuilder.AddAction(p0, "event_sequence", XeBaseType.UInt64, objectIndex: 9);
        XeColumn app = sBuilder.AddAction(test, "client_app_name", XeBaseType.UnicodeString);
        XeSchema s = sBuilder.Build();
        DateTime start = new(2024, 6, 1, 0, 0, 0, DateTimeKind.Utc);
        using XelWriter w = XelWriter.Create(path, s, new XelWriterOptions { StartTimeUtc = start });
        for (int i = 0; i < rows; i++)
        {
            var fields = new List<XeValue>
            {
                XeValue.Create(x.Fields[0], fieldAIsWide ? 70000UL - (ulong)i : (ulong)(100 + i)),
                XeValue.Create(x.Fields[1], (ulong)(i % 2)),
            };
            if (extraField)
            {
                fields.Add(XeValue.Create(x.Fields[2], "extra \u00fc " + i.ToString(Ic)));
            }

            XeValue[] actions = appName
                ? [XeValue.Create(seq, (ulong)(i + 1)), XeValue.Create(app, "app " + i.ToString(Ic))]
                : [XeValue.Create(seq, (ulong)(i + 1))];
            w.Write(x, start.AddSeconds(i), [.. fields], actions);
            w.Write(
                y,
                start.AddSeconds(i).AddTicks(3),
                [
                    yValueIsText
                        ? XeValue.Create(y.Fields[0], "v" + i.ToString(Ic))
                        : XeValue.Create(y.Fields[0], (long)-i),
                ]
            );
        }
    }
}

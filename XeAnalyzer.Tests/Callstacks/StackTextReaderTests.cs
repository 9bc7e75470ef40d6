using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>Whole inputs: every shape of XE-TEXT-SHAPES.md §1–§9 through <see cref="StackTextReader"/>.</summary>
public class StackTextReaderTests
{
    internal static string Fixture(string name) => Path.Combine(TestPaths.TestData, "text", name);

    private static List<Callstack> ReadFixture(string name, StackTextReaderOptions? options = null)
    {
        using StackTextReader reader = StackTextReader.OpenFile(Fixture(name), options);
        return reader.ReadStacks().ToList();
    }

    [Test]
    public void Parse_ReturnsOneStack_ForPlainFramesOnePerLine()
    {
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(
            "sqldk.dll+0x00000000000FD919\nsqldk.dll+0x000000000003D45D\nsqlmin.dll+0x0000000000017EE0\n"
        );
        Callstack s = stacks.Single();
        Assert.That(s.Header, Is.Null);
        Assert.That(s.Lines.Select(l => l.LineNumber), Is.EqualTo(new long[] { 1, 2, 3 }));
        Assert.That(
            s.Frames.Cast<ModuleOffsetFrame>().Select(f => f.Offset),
            Is.EqualTo(new[] { 0xFD919UL, 0x3D45DUL, 0x17EE0UL })
        );
        Assert.That(s.Lines[1].Frames.Single(), Is.SameAs(s.Frames[1]));
    }

    [TestCase("\uFEFFsqldk+40609\r\nWdf01000+17f27\r\n0x00007FFEABD0D919")]
    [TestCase("sqldk+40609\nWdf01000+17f27\n0x00007FFEABD0D919\n")]
    [TestCase("sqldk+40609\rWdf01000+17f27\r0x00007FFEABD0D919\r")]
    public void Parse_ReadsSameFrames_ForCrLfLfCrAndBom(string text)
    {
        Callstack s = StackTextReader.Parse(text).Single();
        Assert.That(
            s.Lines.Select(l => l.Text),
            Is.EqualTo(new[] { "sqldk+40609", "Wdf01000+17f27", "0x00007FFEABD0D919" })
        );
        Assert.That(s.Lines.Select(l => l.LineNumber), Is.EqualTo(new long[] { 1, 2, 3 }));
        Assert.That(
            s.Frames.Select(f => f.Kind),
            Is.EqualTo(new[] { FrameKind.ModuleOffset, FrameKind.ModuleOffset, FrameKind.VirtualAddress })
        );
    }

    [Test]
    public void Parse_ReadsSsmsGridCopy_VirtualAddressesAfterCallstackLabel()
    {
        Callstack s = StackTextReader
            .Parse("callstack\t          0x00007FFEABD0D919        0x00007FFEABC4D45D  0x00007FFEABC4D45E")
            .Single();
        StackLine line = s.Lines.Single();
        Assert.That(
            line.Frames.Cast<VirtualAddressFrame>().Select(f => f.Address),
            Is.EqualTo(new[] { 0x00007FFEABD0D919UL, 0x00007FFEABC4D45DUL, 0x00007FFEABC4D45EUL })
        );
        Assert.That(line.Unparsed.Single().Text, Is.EqualTo("callstack"));
        Assert.That(line.Unparsed.Single().Index, Is.EqualTo(0));
    }

    [Test]
    public void Parse_KeepsMixedLineAsText_UnlessFramesOnSingleLine()
    {
        const string Line = "0x00007FFEABD0D919 and then 0x00007FFEABC4D45D";
        StackLine strict = StackTextReader.Parse(Line).Single().Lines.Single();
        Assert.That(strict.HasFrames, Is.False);
        Assert.That(strict.Text, Is.EqualTo(Line));

        StackLine lenient = StackTextReader
            .Parse(Line, new StackTextReaderOptions { FramesOnSingleLine = true })
            .Single()
            .Lines.Single();
        Assert.That(lenient.Frames, Has.Count.EqualTo(2));
        Assert.That(lenient.Unparsed.Select(u => u.Text), Is.EqualTo(new[] { "and", "then" }));
    }

    [Test]
    public void Parse_ReadsHtmlEscapedHistogram()
    {
        const string Text =
            "&lt;HistogramTarget truncated=\"0\" buckets=\"256\"&gt;\r\n  &lt;Slot count=\"1132435\"&gt;\r\n    "
            + "&lt;value&gt;sqldk.dll+0x00000000000FD919\r\nsqldk.dll+0x000000000003D45D&lt;/value&gt;\r\n  "
            + "&lt;/Slot&gt;\r\n&lt;/HistogramTarget&gt;";
        Callstack s = StackTextReader.Parse(Text).Single();
        Assert.That(s.Header!.Origin, Is.EqualTo(StackOrigin.HistogramSlot));
        Assert.That(s.Header.SlotCount, Is.EqualTo(1132435UL));
        Assert.That(s.Header.Target!.Start.Buckets, Is.EqualTo(256));
        Assert.That(
            s.Frames.Cast<ModuleOffsetFrame>().Select(f => f.Offset),
            Is.EqualTo(new[] { 0xFD919UL, 0x3D45DUL })
        );
        Assert.That(s.Lines.Select(l => l.LineNumber), Is.EqualTo(new long[] { 3, 4 }));
    }

    [Test]
    public void ReadStacks_ReadsHistogramFixture_WithBomAndCrLf()
    {
        List<Callstack> stacks = ReadFixture("histogram_module_offset_crlf.xml");
        Assert.That(stacks.Select(s => s.Header!.SlotCount), Is.EqualTo(new ulong?[] { 1132435, 1046453, 2505 }));
        Assert.That(stacks.Select(s => s.Frames.Length), Is.EqualTo(new[] { 24, 24, 12 }));
        Assert.That(
            stacks
                .SelectMany(s => s.Frames)
                .All(f => f is ModuleOffsetFrame { Provenance: FrameProvenance.ModuleOffsetText }),
            Is.True
        );
        Assert.That(
            stacks.SelectMany(s => s.Lines).All(l => !l.Text.Contains('\r', StringComparison.Ordinal)),
            Is.True
        );
        Assert.That(stacks[0].Lines[0].LineNumber, Is.EqualTo(3));
        Assert.That(stacks[1].Lines[0].LineNumber, Is.EqualTo(3 + 24 + 2));
    }

    [Test]
    public void ReadStacks_ReadsSeveralHistogramsWithFreeText()
    {
        using var reader = StackTextReader.OpenFile(Fixture("several_histograms.txt"));
        List<Callstack> stacks = reader.ReadStacks().ToList();

        Assert.That(stacks, Has.Count.EqualTo(5));
        Assert.That(stacks.Take(4).Select(s => s.Header!.SlotNumber), Is.EqualTo(new int?[] { 0, 1, 2, 3 }));
        Assert.That(stacks.Take(4).Select(s => s.Header!.SlotCount), Is.EqualTo(new ulong?[] { 10, 4, 35668, 8506 }));
        Assert.That(
            stacks[0].Header!.Target!.Annotation,
            Is.EqualTo("Capture of server A, LOCK_HASH spinlock\ntaken 2018-01-20")
        );
        Assert.That(stacks[0].Header!.Target!.AnnotationLineNumber, Is.EqualTo(1));
        Assert.That(stacks[1].Header!.Target, Is.SameAs(stacks[0].Header!.Target));
        Assert.That(stacks[2].Header!.Target!.Annotation, Is.EqualTo("Second capture, a 2008 R2 bucketizer"));
        Assert.That(stacks[2].Header!.Target!.Start.RootName, Is.EqualTo("BucketizerTarget"));
        Assert.That(stacks[2].Header!.Slot!.TruncatedBytes, Is.EqualTo(0UL));

        // The text after the last target is not lost.
        Assert.That(stacks[4].Header, Is.Null);
        Assert.That(stacks[4].Lines.Single().Text, Is.EqualTo("notes after the last target"));

        // First histogram: 2 slots for buckets="2" may hold merged values.
        Assert.That(reader.Warnings.Single().Message, Does.Contain("buckets"));
        Assert.That(reader.Warnings.Single().LineNumber, Is.EqualTo(4));
    }

    [Test]
    public void ReadStacks_ReadsTraceFlag3656BucketizerSymbols_IncludingBareNamesAndSeveralPerLine()
    {
        Callstack s = ReadFixture("several_histograms.txt")[2];
        string[] expected =
        [
            "XeSosPkg::spinlock_backoff::Publish",
            "SpinlockBase::Sleep",
            "SpinlockBase::Backoff",
            "Spinlock<144,1,0>::SpinToAcquireOptimistic",
            "SOS_CacheStore::GetUserData",
            "OpenSystemTableRowset",
            "CMEDScanBase::Rowset",
            "CMEDScan::StartSearch",
            "CMEDCatalogOwner::GetOwnerAliasIdFromSid",
            "CMEDCatalogOwner::LookupPrimaryIdInCatalog",
            "CMEDCacheEntryFactory::GetProxiedCacheEntryByAltKey",
            "CMEDCatalogOwner::GetProxyOwnerBySID",
            "CMEDProxyDatabase::GetOwnerBySID",
            "ISECTmpEntryStore::Get",
            "ISECTmpEntryStore::Get",
            "NTGroupInfo::`vector deleting destructor'",
        ];
        Assert.That(s.Frames.Cast<SymbolizedFrame>().Select(f => f.Symbol), Is.EqualTo(expected));
        Assert.That(s.Frames.All(f => f.Module is null), Is.True);
        Assert.That(s.Lines, Has.Length.EqualTo(15));
        Assert.That(s.Lines[9].Frames, Has.Count.EqualTo(2));

        Callstack second = ReadFixture("several_histograms.txt")[3];
        Assert.That(
            second.Frames.Cast<SymbolizedFrame>().Select(f => f.Symbol),
            Is.EqualTo(
                new[]
                {
                    "XeSosPkg::spinlock_backoff::Publish",
                    "SpinlockBase::Sleep",
                    "SpinlockBase::Backoff",
                    "Spinlock<144,1,0>::SpinToAcquireOptimistic",
                    "SOS_CacheStore::GetUserData",
                }
            )
        );
        Assert.That(((SymbolizedFrame)second.Frames[1]).Displacement, Is.EqualTo(0xc7UL));
    }

    [Test]
    public void Parse_ReadsModulelessNameWithHexDisplacement_InSymbolStack()
    {
        // In a stack of module-less symbols, "FnProducerOpen+5b" is a function+displacement, not module+offset.
        Callstack s = StackTextReader
            .Parse("XeSqlPkg::latch_suspend_end::Publish+138\nFnProducerOpen+5b\nsqlTsEs.dll!CEsExec::GeneralEval+1a9")
            .Single();
        var f = (SymbolizedFrame)s.Frames[1];
        Assert.That(f.Module, Is.Null);
        Assert.That(f.Symbol, Is.EqualTo("FnProducerOpen"));
        Assert.That(f.Displacement, Is.EqualTo(0x5bUL));
    }

    [Test]
    public void ReadStacks_ReadsCallstackRvaInRawChildElementsCdataAndEscapedText()
    {
        List<Callstack> stacks = ReadFixture("histogram_callstack_rva.xml");
        Assert.That(stacks, Has.Count.EqualTo(3));

        // Slot 0: raw <frame> children (SQL 2022 histogram without CDATA).
        Callstack raw = stacks[0];
        Assert.That(raw.Frames.Length, Is.EqualTo(6));
        Assert.That(raw.Frames.Select(f => f.FrameNumber), Is.EqualTo(new int?[] { 0, 1, 2, 3, 4, 31 }));
        var wdf = (RvaFrame)raw.Frames[1];
        Assert.That(wdf.Module!.Name, Is.EqualTo("Wdf01000.sys"));
        Assert.That(wdf.Rva, Is.EqualTo(0x17F27UL));
        var abbreviated = (RvaFrame)raw.Frames[4];
        Assert.That(abbreviated.IsAbbreviated, Is.True);
        Assert.That(abbreviated.Rva, Is.EqualTo(0x2249FUL));
        Assert.That(abbreviated.PdbName, Is.EqualTo("SqlDK.pdb"));
        var orphan = (RvaFrame)raw.Frames[5];
        Assert.That(orphan.CanResolve, Is.False);
        Assert.That(orphan.Address, Is.EqualTo(0xA000UL));

        // Slot 1: CDATA, a frame split across lines, a "Frame = " prefix, and a bad GUID kept as text.
        Callstack cdata = stacks[1];
        Assert.That(cdata.Lines, Has.Length.EqualTo(3));
        var split = (RvaFrame)cdata.Lines[0].Frames.Single();
        Assert.That(split.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("6a193443-3512-464b-8b8e-d905ad930ee6"), 2)));
        Assert.That(cdata.Lines[0].Text, Does.Contain("\n"));
        var prefixed = (RvaFrame)cdata.Lines[1].Frames.Single();
        Assert.That(prefixed.Rva, Is.EqualTo(0x2249FUL));
        Assert.That(cdata.Lines[2].HasFrames, Is.False);
        Assert.That(cdata.Lines[2].Diagnostic, Does.Contain("GUID"));

        // Slot 2: HTML-escaped text inside <value>, two frames on one line; module given without extension.
        Callstack escaped = stacks[2];
        StackLine line = escaped.Lines.Single();
        Assert.That(line.Frames, Has.Count.EqualTo(2));
        Assert.That(((RvaFrame)line.Frames[0]).Module!.Key, Is.EqualTo("ntdll"));
        Assert.That(((RvaFrame)line.Frames[1]).Rva, Is.EqualTo(0x40609UL));
    }

    [Test]
    public void ReadStacks_ReadsRingBufferEvents_WithCallstackAndCallstackRvaActions()
    {
        List<Callstack> stacks = ReadFixture("ring_buffer_callstack.xml");
        Assert.That(stacks, Has.Count.EqualTo(2));

        Callstack first = stacks[0];
        Assert.That(first.Header!.Origin, Is.EqualTo(StackOrigin.Event));
        Assert.That(first.Header.Event!.Name, Is.EqualTo("error_reported"));
        Assert.That(
            first.Header.Event.Timestamp,
            Is.EqualTo(new DateTimeOffset(2018, 1, 20, 3, 40, 4, 503, TimeSpan.Zero))
        );
        Assert.That(first.Header.Field!.Name, Is.EqualTo("callstack"));
        Assert.That(
            first.Header.Event.FindField("destination")!.MapText,
            Is.EqualTo("BUFFER, DEFAULT_NO_USER, ERRORLOG, EVENTLOG")
        );
        Assert.That(
            first.Frames.Select(f => f.Module!.Key),
            Is.EqualTo(new[] { "sqllang", "sqllang", "hkengine", "xtp_p_5_597577167_185186125354548_1" })
        );

        Callstack second = stacks[1];
        Assert.That(second.Header!.Field!.Name, Is.EqualTo("callstack_rva"));
        Assert.That(second.Frames.Cast<RvaFrame>().All(f => f.CanResolve), Is.True);
        Assert.That(((RvaFrame)second.Frames[1]).Rva, Is.EqualTo(0x2249FUL));
    }

    [Test]
    public void Parse_ReadsBareEvents_FromFileTargetReadFile()
    {
        const string Text =
            "<event name=\"lock_acquired\" package=\"sqlserver\" timestamp=\"2016-08-07T20:13:35.827Z\"><action "
            + "name=\"transaction_id\" package=\"sqlserver\"><value>39194</value></action><action name=\"sql_text\" "
            + "package=\"sqlserver\"><value><![CDATA[ select … ]]></value></action></event>\n"
            + "<event name=\"wait_info\" package=\"sqlos\" timestamp=\"2022-06-01T10:00:00Z\"><data "
            + "name=\"wait_type\"><value>124</value><text>PREEMPTIVE_HTTP_REQUEST</text></data><action "
            + "name=\"callstack_rva\" package=\"package0\"><value><![CDATA[<frame id=\"00\" pdb=\"ntdll.pdb\" "
            + "age=\"1\" guid=\"C374E059-5793-9B92-6525-386A66A2D3F5\" module=\"ntdll.dll\" rva=\"0x9F7E4\" "
            + "/>]]></value></action></event>\n";
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(Text);
        Assert.That(stacks, Has.Count.EqualTo(2));

        // No callstack action: the event is still handed out, with no lines.
        Assert.That(stacks[0].Header!.Event!.Name, Is.EqualTo("lock_acquired"));
        Assert.That(stacks[0].Header!.Event!.FindAction("sql_text")!.ValueText, Is.EqualTo(" select … "));
        Assert.That(stacks[0].Lines, Is.Empty);

        Assert.That(stacks[1].Header!.Event!.FindField("wait_type")!.MapText, Is.EqualTo("PREEMPTIVE_HTTP_REQUEST"));
        Assert.That(stacks[1].Lines.Single().LineNumber, Is.EqualTo(2));
        Assert.That(((RvaFrame)stacks[1].Frames.Single()).Rva, Is.EqualTo(0x9F7E4UL));
    }

    [Test]
    public void Parse_ReadsOldRingBufferAddresses_AndTsqlCallstackRvaField()
    {
        const string Text =
            "<RingBufferTarget eventsPerSec=\"0\" processingTime=\"0\" totalEventsProcessed=\"1\" eventCount=\"1\" "
            + "droppedCount=\"0\" memoryUsed=\"100\">"
            + "<event name=\"wait_info\" package=\"sqlos\" id=\"48\" version=\"1\" "
            + "timestamp=\"2010-12-24T10:00:00.000Z\">"
            + "<action name=\"callstack\" "
            + "package=\"package0\"><value>0x0000000001CD4F55\n0x000000000113A310</value><text /></action></event>"
            + "<event name=\"query_abort\" package=\"sqlserver\" timestamp=\"2022-11-01T00:00:00Z\">"
            + "<data name=\"tsql_callstack_rva\"><value><![CDATA[<frame id=\"00\" pdb=\"sqllang.pdb\" age=\"1\" "
            + "guid=\"0123456789abcdef0123456789abcdef\" module=\"sqllang.dll\" rva=\"0x100\" />]]></value></data>"
            + "<data name=\"task_callstack_rva\"><value><![CDATA[<frame id=\"00\" pdb=\"sqldk.pdb\" age=\"1\" "
            + "guid=\"0123456789abcdef0123456789abcdef\" module=\"sqldk.dll\" rva=\"0x200\" />]]></value></data>"
            + "</event></RingBufferTarget>";
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(Text);
        Assert.That(stacks, Has.Count.EqualTo(3));
        Assert.That(
            stacks[0].Frames.Cast<VirtualAddressFrame>().Select(f => f.Address),
            Is.EqualTo(new[] { 0x1CD4F55UL, 0x113A310UL })
        );
        Assert.That(stacks[0].Header!.Field!.MapText, Is.Empty);
        Assert.That(
            stacks.Skip(1).Select(s => s.Header!.Field!.Name),
            Is.EqualTo(new[] { "tsql_callstack_rva", "task_callstack_rva" })
        );
        Assert.That(
            stacks.Skip(1).Select(s => ((RvaFrame)s.Frames.Single()).Rva),
            Is.EqualTo(new ulong?[] { 0x100, 0x200 })
        );
    }

    [Test]
    public void Parse_ReadsEventListWithKeys()
    {
        const string Text =
            "<Events><event key=\"File: c:\\temp\\a_0_1.xel, UTC: 2024-01-01 00:00:00.0000000, UUID: "
            + "8b1a9953-c461-4c0b-8a8d-5b0e2a1c9f00\"><action "
            + "name='callstack'><value><![CDATA[sqldk.dll+0x1\nsqldk.dll+0x2]]></value></action></event></Events>";
        Callstack s = StackTextReader.Parse(Text).Single();
        Assert.That(s.Header!.Event!.GetAttribute("key"), Does.StartWith("File: c:\\temp\\a_0_1.xel, UTC: "));
        Assert.That(s.Header.Target!.Start.Kind, Is.EqualTo(TargetDataKind.EventList));
        Assert.That(s.Frames.Length, Is.EqualTo(2));
    }

    [Test]
    public void Parse_CollectsCsvSymbolMetadata()
    {
        const string Text =
            "\"ntdll.dll\",\"10.0.17763.1490\",2019328,462107166,2009368,\"ntdll.pdb\",\"{C374E059-5793-9B92-6525-386"
            + "A66A2D3F5}\",0,1\n"
            + "\"VCRUNTIME140.dll\",\"14.16.27033.0\",86016,1563486943,105788,\"vcruntime140.amd64.pdb\",\"{AF138C3F-29"
            + "33-4097-8883-C1071B13375E}\",0,1\n"
            + "sqlservr.exe,7ef4ea08-777a-43b7-8bce-4da6f0fa43c7,2\n"
            + "ntdll+0x9F7E4\n";
        using var reader = new StackTextReader(new StringReader(Text));
        Callstack s = reader.ReadStacks().Single();
        Assert.That(s.Lines.Take(3).All(l => l.SymbolMetadata is not null && !l.HasFrames), Is.True);
        Assert.That(reader.SymbolMetadata.Count, Is.EqualTo(3));

        Assert.That(reader.SymbolMetadata.TryGet(ModuleName.Create("NTDLL"), out ModulePdbInfo? ntdll), Is.True);
        Assert.That(ntdll!.PdbName, Is.EqualTo("ntdll.pdb"));
        Assert.That(ntdll.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("C374E059-5793-9B92-6525-386A66A2D3F5"), 1)));

        Assert.That(
            reader.SymbolMetadata.TryGet(ModuleName.Create("vcruntime140.dll"), out ModulePdbInfo? vc),
            Is.True
        );
        Assert.That(vc!.PdbName, Is.EqualTo("vcruntime140.amd64.pdb"));

        // No .pdb field: the PDB name is the module name.
        Assert.That(reader.SymbolMetadata.TryGet(ModuleName.Create("sqlservr.exe"), out ModulePdbInfo? servr), Is.True);
        Assert.That(servr!.PdbName, Is.EqualTo("sqlservr.pdb"));
        Assert.That(servr.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("7ef4ea08-777a-43b7-8bce-4da6f0fa43c7"), 2)));
    }

    [Test]
    public void Parse_Throws_WhenCsvMetadataGivesOneModuleTwoGuids()
    {
        const string Text =
            "ntdll.dll,C374E059-5793-9B92-6525-386A66A2D3F5,1\n"
            + "ntdll+0x9F7E4\n"
            + "ntdll.dll,AF138C3F-2933-4097-8883-C1071B13375E,1\n";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(Text));
        Assert.That(ex!.Line, Is.EqualTo(3));
        Assert.That(
            ex.Message,
            Does.Contain("C374E059-5793-9B92-6525-386A66A2D3F5")
                .And.Contain("AF138C3F-2933-4097-8883-C1071B13375E")
                .And.Contain("ntdll")
        );
    }

    [Test]
    public void ReadStacks_SplitsSqlDumperBlocks()
    {
        List<Callstack> stacks = ReadFixture("sqldumper_stack.txt");
        Assert.That(stacks, Has.Count.EqualTo(3));
        Assert.That(stacks[0].Header, Is.Null);
        Assert.That(stacks[0].Frames, Is.Empty);

        Assert.That(stacks[1].Header!.Origin, Is.EqualTo(StackOrigin.SqlDumperBlock));
        Assert.That(stacks[1].Header!.Title, Is.EqualTo("BEGIN STACK DUMP:"));
        Assert.That(
            stacks[1].Frames.Cast<ModuleOffsetFrame>().Select(f => (f.ModuleName.Name, f.Offset)),
            Is.EqualTo(new[] { ("KERNELBASE", 0x9CDA4UL), ("ntdll", 0x91735UL), ("KERNEL32", 0x11FE4UL) })
        );
        Assert.That(stacks[2].Header!.Title, Is.EqualTo("Short Stack Dump"));
        Assert.That(
            stacks[2].Frames.Cast<ModuleOffsetFrame>().Select(f => f.ModuleName.Key),
            Is.EqualTo(new[] { "kernelbase", "sqlservr" })
        );

        // Every input line is somewhere, in order.
        string[] input = File.ReadAllLines(Fixture("sqldumper_stack.txt"));
        Assert.That(stacks.SelectMany(s => s.Lines).Select(l => l.Text), Is.EqualTo(input));
    }

    [Test]
    public void Parse_SplitsLongPlainText_IntoContinuationStacks_WithoutLosingLines()
    {
        string[] lines = Enumerable.Range(1, 7).Select(i => $"sqldk.dll+0x{i:X16}").ToArray();
        var options = new StackTextReaderOptions { Limits = new TextInputLimits { MaxLinesPerStack = 3 } };
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(string.Join('\n', lines), options);
        Assert.That(stacks.Select(s => s.Lines.Length), Is.EqualTo(new[] { 3, 3, 1 }));
        Assert.That(stacks.Select(s => s.IsContinuation), Is.EqualTo(new[] { false, true, true }));
        Assert.That(stacks.SelectMany(s => s.Lines).Select(l => l.Text), Is.EqualTo(lines));
        Assert.That(stacks.Select(s => s.Index), Is.EqualTo(new[] { 0, 1, 2 }));
    }

    [Test]
    public void FromFrames_MakesOneLinePerFrame()
    {
        var frames = new StackFrame[]
        {
            new VirtualAddressFrame(0x7FFEABD0D919, "0x00007FFEABD0D919", FrameProvenance.Binary),
            new ModuleOffsetFrame(ModuleName.Create("sqldk.dll"), 0x40609, "sqldk.dll+0x40609"),
        };
        Callstack s = Callstack.FromFrames(frames, 7);
        Assert.That(s.Index, Is.EqualTo(7));
        Assert.That(
            s.Lines.Select(l => (l.Text, l.LineNumber, l.Frames.Single())),
            Is.EqualTo(new[] { ("0x00007FFEABD0D919", 1L, frames[0]), ("sqldk.dll+0x40609", 2L, frames[1]) })
        );
        Assert.That(s.Frames, Is.EqualTo(frames));
        Assert.Throws<ArgumentOutOfRangeException>(() => _ = s.Lines[0].Frames[1]);
        Assert.Throws<ArgumentOutOfRangeException>(() => _ = s.Lines[0].Frames[-1]);
    }

    [Test]
    public void Parse_KeepsEmptyHistogramAndItsAnnotation()
    {
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(
            "nothing captured\n<HistogramTarget truncated=\"0\" buckets=\"256\" />\n"
        );
        Callstack s = stacks.Single();
        Assert.That(s.Header!.Origin, Is.EqualTo(StackOrigin.EmptyTarget));
        Assert.That(s.Header.Target!.Annotation, Is.EqualTo("nothing captured"));
        Assert.That(s.Lines, Is.Empty);
    }

    [Test]
    public void Parse_TreatsTextWithFramesBeforeHistogram_AsItsOwnStack()
    {
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(
            "sqldk+0x1\n<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
                + "count=\"1\"><value>sqldk+0x2</value></Slot></HistogramTarget>"
        );
        Assert.That(stacks, Has.Count.EqualTo(2));
        Assert.That(stacks[0].Header, Is.Null);
        Assert.That(stacks[1].Header!.Target!.Annotation, Is.Null);
    }

    [Test]
    public void Parse_ReadsTextBeforeAndAfterRootOnTheSameLine()
    {
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(
            "see: <HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
                + "count=\"2\"><value>sqldk+0x2</value></Slot></HistogramTarget> done"
        );
        Assert.That(stacks, Has.Count.EqualTo(2));
        Assert.That(stacks[0].Header!.Target!.Annotation, Is.EqualTo("see: "));
        Assert.That(stacks[1].Lines.Single().Text, Is.EqualTo(" done"));
    }

    [Test]
    public void Parse_ThrowsWithLine_ForMalformedHistogramXml()
    {
        const string Text =
            "text\n<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot "
            + "count=\"1\">\n<value>sqldk+0x1</valu>\n</Slot>\n</HistogramTarget>";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(Text));
        Assert.That(ex!.Line, Is.EqualTo(4));
        Assert.That(ex.Message, Does.Contain("line 4"));
    }

    [Test]
    public void Parse_ThrowsWithLine_ForBadSlotCount()
    {
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            StackTextReader.Parse(
                "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot "
                    + "count=\"-5\"><value>x</value></Slot></HistogramTarget>"
            )
        );
        Assert.That(ex!.Line, Is.EqualTo(2));
        Assert.That(ex.Detail, Does.Contain("count"));
    }

    [Test]
    public void ReadStacks_HonoursCancellation()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        using var reader = new StackTextReader(new GeneratedInput(GeneratedInput.Shape.PlainText, 1_000_000));
        Assert.Throws<OperationCanceledException>(() => reader.ReadStacks(cts.Token).ToList());
    }

    [Test]
    public void ReadStacks_CanOnlyBeCalledOnce()
    {
        using var reader = new StackTextReader(new StringReader("sqldk+1"));
        _ = reader.ReadStacks().ToList();
        Assert.Throws<InvalidOperationException>(() => reader.ReadStacks());
    }

    [TestCase(GeneratedInput.Shape.Histogram)]
    [TestCase(GeneratedInput.Shape.PlainText)]
    [TestCase(GeneratedInput.Shape.RingBuffer)]
    public void ReadStacks_Streams_ReadingOnlyAPrefixOfAHugeInput(GeneratedInput.Shape shape)
    {
        // 2 million stacks × 25 frames would be about 1.5 GB of text; it is generated on demand and never held.
        using var input = new GeneratedInput(shape, 2_000_000);
        using var reader = new StackTextReader(input);
        int frames = 0;
        foreach (Callstack s in reader.ReadStacks().Take(200))
        {
            frames += s.Frames.Length;
        }

        Assert.That(frames, Is.EqualTo(shape == GeneratedInput.Shape.PlainText ? 2000 * 200 : 25 * 200));
        Assert.That(input.CharsRead, Is.LessThan(shape == GeneratedInput.Shape.PlainText ? 20_000_000 : 1_000_000));
    }

    [Test]
    public void ReadStacks_ReadsLargeGeneratedHistogram_Completely()
    {
        using var input = new GeneratedInput(GeneratedInput.Shape.Histogram, 20_000);
        using var reader = new StackTextReader(input);
        long frames = 0,
            stacks = 0;
        ulong counts = 0;
        foreach (Callstack s in reader.ReadStacks())
        {
            stacks++;
            frames += s.Frames.Length;
            counts += s.Header!.SlotCount!.Value;
        }

        Assert.That(stacks, Is.EqualTo(20_000));
        Assert.That(frames, Is.EqualTo(20_000 * 25));
        Assert.That(counts, Is.EqualTo(input.TotalCount));
    }

    [Test]
    public void Parse_ThrowsWithLine_ForOverLongPlainTextLine()
    {
        var options = new StackTextReaderOptions { Limits = new TextInputLimits { MaxLineLength = 1000 } };
        string text = "sqldk+0x1\n" + new string('a', 5000) + "\nsqldk+0x2";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(text, options));
        Assert.That(ex!.Line, Is.EqualTo(2));
        Assert.That(ex.Detail, Does.Contain("MaxLineLength"));
    }

    [Test]
    public void Parse_RefusesDtd_XmlBomb()
    {
        const string Bomb =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n <!ENTITY lol2 "
            + "\"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n <!ENTITY lol3 "
            + "\"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n]>\n<HistogramTarget truncated=\"0\" "
            + "buckets=\"256\"><Slot count=\"1\"><value>&lol3;</value></Slot></HistogramTarget>";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(Bomb));
        Assert.That(ex!.Line, Is.EqualTo(2));
        Assert.That(ex.Detail, Does.Contain("DTD"));
    }

    [Test]
    public void Parse_RefusesUndeclaredEntityInsideTarget()
    {
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            StackTextReader.Parse(
                "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
                    + "count=\"1\"><value>&lol9;</value></Slot></HistogramTarget>"
            )
        );
        Assert.That(ex!.Line, Is.EqualTo(1));
    }

    [Test]
    public void Parse_RefusesDeeplyNestedXml()
    {
        string deep =
            string.Concat(Enumerable.Repeat("<a>", 10_000)) + string.Concat(Enumerable.Repeat("</a>", 10_000));
        string text =
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"1\"><value>"
            + deep
            + "</value></Slot></HistogramTarget>";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(text));
        Assert.That(ex!.Detail, Does.Contain("MaxXmlDepth"));
    }

    [Test]
    public void Parse_RefusesOversizedValue()
    {
        var options = new StackTextReaderOptions { Limits = new TextInputLimits { MaxValueLength = 100_000 } };
        string text =
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"1\"><value>"
            + new string('x', 200_000)
            + "</value></Slot></HistogramTarget>";
        var ex = Assert.Throws<InvalidTextInputException>(() => StackTextReader.Parse(text, options));
        Assert.That(ex!.Detail, Does.Contain("MaxValueLength"));
    }

    [Test]
    public void Parse_ThrowsWithLine_ForUnclosedTargetAtEndOfInput()
    {
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            StackTextReader.Parse(
                "<HistogramTarget truncated=\"0\" buckets=\"256\">\n<Slot count=\"1\"><value>sqldk+1</value></Slot>\n"
            )
        );
        Assert.That(ex!.Line, Is.GreaterThanOrEqualTo(2));
    }

    [Test]
    [SetCulture("tr-TR")]
    [SetUICulture("tr-TR")]
    public void Parse_GivesInvariantResults_UnderTurkishCulture()
    {
        Assert.That(
            "I".ToLower(System.Globalization.CultureInfo.CurrentCulture),
            Is.EqualTo("\u0131"),
            "the Turkish culture must really be active"
        );
        const string Text =
            "SQLDIAG.DLL+0x00000000000FD919\n"
            + "KERNEL32.DLL!Ordinal947+0x25f\n"
            + "ntdll.dll,C374E059-5793-9B92-6525-386A66A2D3F5,1\n"
            + "<event name=\"wait_info\" package=\"sqlos\" timestamp=\"2022-06-01T10:00:00.123Z\"><action "
            + "name=\"callstack\"><value>MSVCRT.DLL+0x1A</value></action></event>";
        using var reader = new StackTextReader(new StringReader(Text));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(stacks[0].Frames[0].Module!.Key, Is.EqualTo("sqldiag"));
        Assert.That(stacks[0].Frames[1].Module!.Key, Is.EqualTo("kernel32"));
        Assert.That(((OrdinalFrame)stacks[0].Frames[1]).Ordinal, Is.EqualTo(947));
        Assert.That(reader.SymbolMetadata.Entries.Single().Module.Key, Is.EqualTo("ntdll"));
        Assert.That(
            stacks[1].Header!.Event!.Timestamp,
            Is.EqualTo(new DateTimeOffset(2022, 6, 1, 10, 0, 0, 123, TimeSpan.Zero))
        );
        Assert.That(stacks[1].Frames[0].Module!.Key, Is.EqualTo("msvcrt"));
    }
}

using System.Globalization;
using System.Text;
using System.Text.Json;
using XeAnalyzer.Analysis;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>Stack shapes, the trace-flag hints, warnings, summary counts and its JSON form, and the text layout of each
/// input shape.</summary>
public class ClassificationAndSummaryTests
{
    private const string Tf2592Advice =
        "on SQL Server 2019 and later trace flag 3656 alone no longer symbolizes; add 2592 (`DBCC TRACEON(3656, "
        + "2592, -1)`) and put the matching PDBs in Binn, or resolve offline with --symbols/--sql-build";

    private static StackShape Shape(string text) => StackShapes.Classify(StackTextReader.Parse(text).Single().Frames);

    [TestCase("sqlmin.dll!A::B+0x1\nsqldk.dll!C+0x2", StackShape.SymbolizedInEngine)]
    [TestCase(
        "sqldk!XeSosPkg::wait_info_external::Publish\nsqldk!SOS_Scheduler::ThreadEntryPoint\nKERNEL32.DLL+0x000000000"
            + "0017974\nntdll.dll+0x000000000006A271",
        StackShape.SymbolizedInEngine
    )]
    [TestCase("sqldk.dll+0x00000000000FD919\nntdll.dll+0x91735", StackShape.ModuleOffset)]
    [TestCase("0x00007FFEABD0D919\n0x00007FFEABC4D45D", StackShape.RawAddresses)]
    [TestCase("sqldk.dll!XeSosPkg::wait_info::Publish+0x138\nsqlmin.dll!Ordinal1634 + 0x76c", StackShape.Ordinals)]
    [TestCase(
        "<frame id=\"00\" pdb=\"SqlDK.pdb\" age=\"2\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" "
            + "module=\"sqldk.dll\" rva=\"0x40609\"/>",
        StackShape.CallstackRva
    )]
    [TestCase("sqldk.dll!XeSosPkg::wait_info::Publish+0x138\nsqlmin.dll+0x11e9", StackShape.Mixed)]
    [TestCase("0x00007FFEABD0D919\nsqlmin.dll+0x11e9", StackShape.Mixed)]
    [TestCase("just text", StackShape.NoFrames)]
    public void Classify_GivesTheCapturedShape(string text, StackShape expected) =>
        Assert.That(Shape(text), Is.EqualTo(expected));

    [Test]
    public void Summary_EngineModulesAsModuleOffsetBesideInEngineFrames_HintsAtTraceFlag2592()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            symbolPath: Path.Combine(Path.GetTempPath(), "xeanalyzer-no-such-folder-" + Guid.NewGuid().ToString("N"))
        );
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqldk.dll!XeSosPkg::wait_info::Publish+0x18d\nsqlmin.dll+0x0000000000001B19\nsqllang.dll+0x000000000000A"
                + "000",
            resolver
        );
        string hint = summary.Hints.Single(h => h.Contains("2592", StringComparison.Ordinal));
        Assert.That(hint, Does.EndWith(Tf2592Advice));
        Assert.That(
            hint,
            Does.StartWith(
                "2 frame(s) of SQL Server modules (sqllang.dll, sqlmin.dll) were captured as module+offset while "
                    + "other frames were symbolized in-engine"
            )
        );
    }

    [Test]
    public void Summary_RawAddressesOfEngineModules_GiveNoTraceFlagHint()
    {
        // A raw address is what a .xel holds whatever the trace flags: 3656/2592 could not have symbolized it.
        string folder = Path.Combine(Path.GetTempPath(), "xeanalyzer-no-such-folder-" + Guid.NewGuid().ToString("N"));
        var map = ModuleMap.Parse(new StringReader("name\tbase_address\nC:\\Binn\\sqlmin.dll\t0x00007FFE00000000\n"));
        using CallstackResolver resolver = ResolutionFixtures.Resolver(symbolPath: folder, map: map);
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "0x00007FFE000011E9\n0x00007FFE00001B19",
            resolver
        );
        Assert.That(summary.Unresolved, Is.EqualTo(2), "the PDB is missing, so both frames stay unresolved");
        Assert.That(summary.Hints, Has.None.Contains("3656"));
    }

    [Test]
    public void Summary_WindowsModulesWithoutIdentity_AreNotToldToGiveSqlBuild()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "ntdll.dll+0x91735\nKERNEL32.DLL+0x17974",
            resolver
        );
        string hint = summary.Hints.Single(h => h.StartsWith("no PDB GUID/age is known", StringComparison.Ordinal));
        Assert.That(
            hint,
            Does.StartWith(
                "no PDB GUID/age is known for KERNEL32.DLL, ntdll.dll, and no single PDB of that name was found: "
                    + "give --binaries DIR"
            )
        );
        Assert.That(summary.Hints, Has.None.Contains("--sql-build"));
        Assert.That(summary.Hints, Has.None.Contains("--catalog"));
    }

    [Test]
    public void Summary_MissingPdbOfAKnownBuild_GivesOneReadyFetchCommand()
    {
        string folder = Path.Combine(Path.GetTempPath(), "xeanalyzer-no-such-folder-" + Guid.NewGuid().ToString("N"));
        using CallstackResolver resolver = ResolutionFixtures.Resolver(symbolPath: folder);
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText("sqlmin.dll+0x0000000000001B19", resolver);
        PdbIdentity id = ResolutionFixtures
            .Build()
            .Pdbs.Single(p => string.Equals(p.PdbFileName, "sqlmin.pdb", StringComparison.OrdinalIgnoreCase))
            .Identity;
        string hint = summary.Hints.Single(h => h.Contains("symbols fetch", StringComparison.Ordinal));
        Assert.That(hint, Does.StartWith("sqlmin.pdb " + id + " was not found (looked in: "));
        Assert.That(hint, Does.Contain(folder), "where the tool looked");
        Assert.That(
            hint,
            Does.EndWith(
                "; fetch it with: xeanalyze symbols fetch --pdb sqlmin.pdb --guid "
                    + id.Guid.ToString("D", CultureInfo.InvariantCulture)
                    + " --age "
                    + id.Age.ToString(CultureInfo.InvariantCulture)
            )
        );
    }

    [Test]
    public void Summary_FullyResolvedModuleOffsetStacks_GiveNoHint()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        Assert.That(summary.Hints, Is.Empty);
        Assert.That(summary.Warnings, Is.Empty);
    }

    [Test]
    public void Summary_InEngineStackWithOsModuleOffsets_GivesNo2592Hint()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqldk.dll!SchedulerManager::ThreadEntryPoint+0x22d\nKERNEL32.DLL+0x0000000000017974\nntdll.dll+0x0000000"
                + "00006A271",
            resolver
        );
        Assert.That(summary.Hints, Has.None.Contains("2592"));
        Assert.That(summary.Shapes[StackShape.SymbolizedInEngine], Is.EqualTo(1));
        Assert.That(
            ResolutionFixtures.Lines(output)[1],
            Is.EqualTo("KERNEL32.DLL+0x0000000000017974 -- unresolved: no PDB for KERNEL32.pdb (GUID/age unknown)")
        );
    }

    [Test]
    public void Summary_CountsFramesAndGroupsReasons_WithFirstExampleAndLine()
    {
        string text =
            "sqlmin.dll+0x11e9\nsqlmin.dll+0x800\nsqlmin.dll+0x1000\nntdll.dll+0x91735\nntdll.dll+0x1\nsqldk.dll!SOS_"
            + "Task::PushWait+0x11c\n0x00007FFEABD0D919";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (_, ResolutionSummary s) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            (s.Stacks, s.Frames, s.InEngine, s.ResolvedOffline, s.Unresolved, s.Unverified),
            Is.EqualTo((1L, 7L, 1L, 1L, 5L, 0L))
        );
        Assert.That(
            s.UnresolvedGroups.Select(g => (g.Description, g.Count, g.FirstExample, g.FirstLine)),
            Is.EqualTo(
                new[]
                {
                    ("RVA before the first symbol of sqlmin.pdb", 2L, "sqlmin.dll+0x800", 2L),
                    ("no PDB for ntdll.pdb (GUID/age unknown)", 2L, "ntdll.dll+0x91735", 4L),
                    ("no module map for raw addresses", 1L, "0x00007FFEABD0D919", 7L),
                }
            )
        );
        Assert.That(s.UnresolvedGroups[0].FirstReason, Is.EqualTo("RVA 0x800 before the first symbol of sqlmin.pdb"));
        Assert.That(s.UnresolvedGroups[0].SearchLog, Is.Empty, "only missing or damaged PDBs carry a search log");
        Assert.That(s.UnresolvedGroups[1].SearchLog, Is.Not.Empty);
    }

    [Test]
    public void Summary_OfSharedFrameInstances_CountsEveryRepeat_InEachBuilder()
    {
        // Interned lines share one frame instance, and a summary counts an instance's repeats in a tally of its own:
        // two builders fed the same stacks (a bucket builder's overall and per-input summaries), and new symbol
        // metadata that changes a frame's resolution half-way, must still give the counts of frames that share nothing.
        const string Frames =
            "sqlmin.dll+0x11e9\nsqlmin.dll+0x800\nntdll.dll+0x91735\nsqldk.dll!SOS_Task::PushWait+0x11c\n0x00007FFEAB"
            + "D0D919\nsqlmin.dll+0x11e9";
        static string Histogram(int slots) =>
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n"
            + string.Concat(
                Enumerable.Range(0, slots).Select(i => $"<Slot count=\"{100 - i}\"><value>{Frames}</value></Slot>\n")
            )
            + "</HistogramTarget>\n";
        string text = Histogram(40) + Histogram(25);
        Assert.That(
            CsvSymbolMetadata.TryParseLine(
                "ntdll.dll,9C072258-C838-1309-4C4C-44205044422E,1",
                1,
                out ModulePdbInfo? ntdll
            )
        );
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ResolutionSummary[] Summaries(bool intern)
        {
            IReadOnlyList<Callstack> stacks = StackTextReader.Parse(
                text,
                new StackTextReaderOptions { InternLines = intern }
            );
            ResolverSession session = resolver.CreateSession();
            var first = new ResolutionSummaryBuilder("in.txt");
            var second = new ResolutionSummaryBuilder("in.txt");
            foreach (Callstack stack in stacks)
            {
                if (stack.Index == 40)
                {
                    session.AddSymbolMetadata([ntdll!]);
                }

                ResolvedCallstack resolved = session.Resolve(stack);
                first.Add(resolved);
                second.Add(resolved);
            }

            return [first.Build(resolver), second.Build(resolver)];
        }

        static string Json(ResolutionSummary s) => OutputFormats.ToText(new ResolutionSummaryDocument(s), "json");
        ResolutionSummary[] shared = Summaries(intern: true),
            separate = Summaries(intern: false);
        Assert.That(shared.Select(Json), Is.EqualTo(separate.Select(Json)));
        Assert.That(Json(shared[1]), Is.EqualTo(Json(shared[0])));
        ResolutionSummary s = shared[0];
        Assert.That(
            (s.Stacks, s.Frames, s.InEngine, s.ResolvedOffline, s.Unresolved),
            Is.EqualTo((65L, 390L, 65L, 130L, 195L)),
            "65 stacks of 6 frames"
        );
        Assert.That(
            s.UnresolvedGroups.Select(g => (g.Description, g.Count, g.FirstLine)),
            Is.EqualTo(
                new[]
                {
                    ("RVA before the first symbol of sqlmin.pdb", 65L, 3L),
                    ("no module map for raw addresses", 65L, 6L),
                    ("no PDB for ntdll.pdb (GUID/age unknown)", 40L, 4L),
                    ("no PDB for ntdll.pdb 9C072258-C838-1309-4C4C-44205044422E/1", 25L, 246L),
                }
            ),
            "the metadata changes ntdll's resolution after 40 stacks"
        );
    }

    [Test]
    public void Resolve_StacksOfTwoReadersInOneSessionAndSummary_GiveWhatFramesThatShareNothingGive()
    {
        // The session and the summary key a repeated line by its id in its reader's line table: two readers number the
        // same lines differently (the second reads them in reverse), so their ids meet with other frames. Alternating
        // their stacks in one session and one summary builder must give what frames that share nothing give.
        string[] lines = ResolutionFixtures.StackAModuleOffsetText().Split('\n');
        string forward = string.Join('\n', lines),
            backward = string.Join('\n', lines.Reverse());
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string[] Texts, string Summary) Run(bool intern)
        {
            var options = new StackTextReaderOptions { InternLines = intern };
            Callstack a = StackTextReader.Parse(forward + "\n" + forward, options).Single();
            Callstack b = StackTextReader.Parse(backward + "\n" + backward, options).Single();
            ResolverSession session = resolver.CreateSession();
            var summary = new ResolutionSummaryBuilder("in.txt");
            var texts = new List<string>();
            foreach (Callstack stack in new[] { a, b, a, b })
            {
                ResolvedCallstack resolved = session.Resolve(stack);
                summary.Add(resolved);
                texts.AddRange(resolved.Frames.Select(f => f.Text));
            }

            return ([.. texts], OutputFormats.ToText(new ResolutionSummaryDocument(summary.Build(resolver)), "json"));
        }

        (string[] keyed, string keyedSummary) = Run(intern: true);
        (string[] plain, string plainSummary) = Run(intern: false);
        Assert.That(keyed, Is.EqualTo(plain));
        Assert.That(keyedSummary, Is.EqualTo(plainSummary));
        string[] stackA = [.. ResolutionFixtures.PublishedStackA, .. ResolutionFixtures.PublishedStackA];
        Assert.That(keyed[..48], Is.EqualTo(stackA), "the first reader's stack resolves as published");
        Assert.That(keyed[48..96], Is.EqualTo(stackA.Reverse()), "the second reader's stack, its lines in reverse");
    }

    [Test]
    public void Summary_Document_HoldsTheSameFigures_InTextAndJson()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (_, ResolutionSummary s) = ResolutionFixtures.ResolveText(
            "sqlmin.dll+0x11e9\nntdll.dll+0x91735\n0x00007FFEABD0D919",
            resolver,
            new CallstackTextResolverOptions { InputName = "in.txt" }
        );
        string[] lines = OutputFormats.ToText(new ResolutionSummaryDocument(s)).Split('\n');
        Assert.That(
            lines[0],
            Is.EqualTo(
                "in.txt: 1 stack(s) (1 mixed); 3 frame(s): 0 symbolized in-engine, 1 resolved offline (0 "
                    + "unverified), 2 unresolved"
            )
        );
        Assert.That(
            lines,
            Has.Some.StartsWith("unresolved: 1 frame(s): no PDB for ntdll.pdb").And.Some.StartsWith("  searched: "),
            "search logs are indented under their reason"
        );
        Assert.That(lines.Count(l => l.StartsWith("warning: ", StringComparison.Ordinal)), Is.EqualTo(1));

        using JsonDocument doc = JsonDocument.Parse(
            Encoding.UTF8.GetBytes(OutputFormats.ToText(new ResolutionSummaryDocument(s), "json"))
        );
        JsonElement[] blocks = [.. doc.RootElement.GetProperty("sections")[0].GetProperty("blocks").EnumerateArray()];
        Dictionary<string, JsonElement> kv = blocks[0]
            .GetProperty("items")
            .EnumerateArray()
            .ToDictionary(i => i.GetProperty("key").GetString()!, i => i.GetProperty("value"));
        Assert.That(kv["input"].GetString(), Is.EqualTo("in.txt"));
        Assert.That(kv["frames"].GetInt64(), Is.EqualTo(3));
        Assert.That(kv["resolved offline"].GetInt64(), Is.EqualTo(1));
        Assert.That(kv["unresolved"].GetInt64(), Is.EqualTo(2));
        JsonElement Table(string title) =>
            blocks.Single(b =>
                b.GetProperty("type").GetString() == "table" && b.GetProperty("title").GetString() == title
            );
        Assert.That(
            Table("Stacks by shape").GetProperty("rows")[0].EnumerateArray().Select(c => c.ToString()),
            Is.EqualTo(new[] { "mixed", "1" })
        );
        Assert.That(
            Table("Unresolved frames by reason").GetProperty("rows").EnumerateArray().Select(r => r[0].GetString()),
            Is.EquivalentTo(new[] { "no PDB", "no module map" })
        );
        JsonElement pdb = Table("PDBs looked up")
            .GetProperty("rows")
            .EnumerateArray()
            .Single(r => r[0].GetString() == "sqlmin.pdb");
        Assert.That((pdb[2].GetString(), pdb[4].GetString()), Is.EqualTo(("the build catalog", "yes")));
        Assert.That(
            blocks.Count(b =>
                b.GetProperty("type").GetString() == "paragraph"
                && b.GetProperty("text").GetString()!.StartsWith("Warning: ", StringComparison.Ordinal)
            ),
            Is.EqualTo(1)
        );
    }

    [Test]
    public void Write_Histograms_KeepEverySlotCountAndAnnotation()
    {
        string text =
            "Capture 1: the PFS stack\n"
            + "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
            + "count=\"115192\"><value>sqlmin.dll+0x00000000000011E9\nsqlmin.dll+0x0000000000001411</value></Slot>"
            + "<Slot count=\"472\"><value>sqlmin.dll+0x0000000000000800</value></Slot></HistogramTarget>\n"
            + "Capture 2\n<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
            + "count=\"18446744073709551615\"><value>sqlTsEs.dll+0x1267</value></Slot></HistogramTarget>\n";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            output,
            Is.EqualTo(
                "Capture 1: the PFS stack\n\n"
                    + "Slot_0\t[count:115192]:\n\n"
                    + ResolutionFixtures.PublishedStackA[0]
                    + "\n"
                    + ResolutionFixtures.PublishedStackA[1]
                    + "\n\n"
                    + "Slot_1\t[count:472]:\n\nsqlmin.dll+0x0000000000000800 -- unresolved: RVA 0x800 before the first "
                    + "symbol of sqlmin.pdb\n\n"
                    + "Capture 2\n\n"
                    + "Slot_2\t[count:18446744073709551615]:\n\n"
                    + ResolutionFixtures.PublishedStackA[19]
                    + "\n\n"
            )
        );
        Assert.That(summary.Stacks, Is.EqualTo(3));
    }

    [Test]
    public void Write_RingBufferEvents_GetAnEventHeader()
    {
        string text =
            "<RingBufferTarget truncated=\"0\"><event name=\"error_reported\" package=\"sqlserver\" "
            + "timestamp=\"2018-01-20T03:40:04.503Z\">"
            + "<data name=\"error_number\"><value>701</value></data><action name=\"callstack\" "
            + "package=\"package0\"><value>sqlmin.dll+0x00000000000011E9</value></action></event>"
            + "<event name=\"x\" key=\"File: a.xel, UTC: 2024-01-01 00:00:00.0000000, UUID: 1\"><action "
            + "name=\"callstack\"><value>sqlmin.dll+0x0000000000001411</value></action></event></RingBufferTarget>";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            output,
            Is.EqualTo(
                "Event sqlserver.error_reported 2018-01-20T03:40:04.503Z:\n\n"
                    + ResolutionFixtures.PublishedStackA[0]
                    + "\n\n"
                    + "Event key: File: a.xel, UTC: 2024-01-01 00:00:00.0000000, UUID: 1\n\n"
                    + ResolutionFixtures.PublishedStackA[1]
                    + "\n\n"
            )
        );
    }

    [Test]
    public void Write_PlainText_KeepsEveryLineInOrder()
    {
        string text =
            "header line\nsqlmin.dll+0x11e9\n\nnot a frame at all\ncallstack\t 0x00007FFAD08A11E9   "
            + "0x00007FFAD08A1411\n";
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            map: ModuleMap.Parse(new StringReader("sqlmin.dll 0x00007FFAD08A0000"))
        );
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            output,
            Is.EqualTo(
                "header line\n"
                    + ResolutionFixtures.PublishedStackA[0]
                    + "\n\nnot a frame at all\ncallstack\n"
                    + ResolutionFixtures.PublishedStackA[0]
                    + "\n"
                    + ResolutionFixtures.PublishedStackA[1]
                    + "\n"
            )
        );
    }

    [Test]
    public void Write_SqlDumperLines_ResolvedReplaceTheLine_UnresolvedKeepIt()
    {
        string text =
            "BEGIN STACK DUMP:\nReturn Addr: 00007FF830D4CDA4 Module(sqlmin+00000000000011E9)\n00007FF818405E70      "
            + "Module(ntdll+0000000000091735) (Ordinal298 + 00000000000004A5)\n";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            output,
            Is.EqualTo(
                "BEGIN STACK DUMP:\n"
                    + ResolutionFixtures.PublishedStackA[0]
                    + "\n"
                    + "00007FF818405E70      Module(ntdll+0000000000091735) (Ordinal298 + 00000000000004A5) -- "
                    + "unresolved: no PDB for ntdll.pdb (GUID/age unknown)\n"
            )
        );
    }

    [Test]
    public void Write_WithoutReasons_EchoesUnresolvedFramesOnly()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(
            "ntdll.dll+0x91735",
            resolver,
            new CallstackTextResolverOptions { WriteReasons = false }
        );
        Assert.That(output, Is.EqualTo("ntdll.dll+0x91735\n"));
    }

    [TestCase("tr-TR")]
    [TestCase("de-DE")]
    [TestCase("ar-SA")]
    public void Resolve_OutputAndSummary_DoNotDependOnTheCulture(string culture)
    {
        string text =
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"1234567\"><value>"
            + ResolutionFixtures.StackAModuleOffsetText()
            + "\nntdll.dll+0x91735\nSQLMIN.DLL+0x1B19</value></Slot></HistogramTarget>";
        using CallstackResolver invariantResolver = ResolutionFixtures.Resolver(style: FrameStyle.Resolver);
        (string expected, ResolutionSummary expectedSummary) = ResolutionFixtures.ResolveText(text, invariantResolver);
        System.Globalization.CultureInfo saved = System.Globalization.CultureInfo.CurrentCulture;
        try
        {
            System.Globalization.CultureInfo.CurrentCulture = System.Globalization.CultureInfo.GetCultureInfo(culture);
            System.Globalization.CultureInfo.CurrentUICulture = System.Globalization.CultureInfo.GetCultureInfo(
                culture
            );
            using CallstackResolver resolver = ResolutionFixtures.Resolver(style: FrameStyle.Resolver);
            (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
            Assert.That(output, Is.EqualTo(expected));
            Assert.That(
                OutputFormats.ToText(new ResolutionSummaryDocument(summary)),
                Is.EqualTo(OutputFormats.ToText(new ResolutionSummaryDocument(expectedSummary)))
            );
            Assert.That(output, Does.Contain("[count:1234567]").And.Contain("sqlmin!LatchBase::AcquireInternal+1177"));
        }
        finally
        {
            System.Globalization.CultureInfo.CurrentCulture = saved;
            System.Globalization.CultureInfo.CurrentUICulture = saved;
        }
    }

    [TestCase(1)]
    [TestCase(2)]
    [TestCase(3)]
    public void Resolve_Histogram_GivesTheStackByStackOutput(int workers)
    {
        var input = new XeAnalyzer.Tests.Callstacks.GeneratedInput(
            XeAnalyzer.Tests.Callstacks.GeneratedInput.Shape.Histogram,
            3000,
            25
        );
        string text = input.ReadToEnd();
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string a, ResolutionSummary sa) = ResolutionFixtures.ResolveText(
            text,
            resolver,
            new CallstackTextResolverOptions { Workers = workers }
        );
        (string b, ResolutionSummary sb) = ResolutionFixtures.ResolveStackByStack(text, resolver);
        Assert.That(a, Is.EqualTo(b));
        Assert.That(
            OutputFormats.ToText(new ResolutionSummaryDocument(sa), "json"),
            Is.EqualTo(OutputFormats.ToText(new ResolutionSummaryDocument(sb), "json"))
        );
        Assert.That(sa.Stacks, Is.EqualTo(3000));
        Assert.That(sa.Frames, Is.EqualTo(75_000));
    }
}

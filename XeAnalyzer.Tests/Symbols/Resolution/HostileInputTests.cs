using System.Buffers.Binary;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Fixtures;
using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Bad inputs never crash the resolver or write outside the cache: damaged, truncated or mismatched PDBs, files that
/// are not PE images, hostile <c>callstack_rva</c> attributes. Affected frames stay raw with a reason; everything else
/// still resolves.
/// </summary>
public class HostileInputTests
{
    private const string SqlminKey = "9C072258C83813094C4C44205044422E1";
    private string _scratch = null!;

    [SetUp]
    public void SetUp() => _scratch = ResolutionFixtures.NewScratch();

    [TearDown]
    public void TearDown() => ResolutionFixtures.DeleteScratch(_scratch);

    private string Store => Path.Combine(_scratch, "store");

    /// <summary>A store holding the good stripped PDBs of every module but sqlmin, and <paramref name="sqlmin"/> in
    /// sqlmin's key folder.</summary>
    private CallstackResolver ResolverWithSqlmin(byte[] sqlmin)
    {
        foreach (string m in FixtureFiles.Modules.Where(m => m != "sqlmin"))
        {
            string pdb = FixtureFiles.StrippedPdb(m);
            ResolutionFixtures.PlaceInStore(
                Store,
                m + ".pdb",
                Path.GetFileName(Path.GetDirectoryName(pdb)!),
                File.ReadAllBytes(pdb)
            );
        }

        ResolutionFixtures.PlaceInStore(Store, "sqlmin.pdb", SqlminKey, sqlmin);
        return ResolutionFixtures.Resolver(symbolPath: Store);
    }

    private static void AssertStackARestResolved(string[] lines)
    {
        for (int i = 0; i < lines.Length; i++)
        {
            if (i == 19)
            {
                Assert.That(lines[i], Is.EqualTo(ResolutionFixtures.PublishedStackA[19]), "sqlTsEs still resolves");
            }
            else
            {
                Assert.That(
                    lines[i],
                    Does.StartWith(ResolutionFixtures.SeedFrames("A")[i]["module"] + ".dll+0x"),
                    "sqlmin frames stay raw"
                );
            }
        }
    }

    [Test]
    public void Resolve_PdbTruncatedTo1000Bytes_LeavesItsFramesRaw()
    {
        byte[] truncated = File.ReadAllBytes(FixtureFiles.StrippedPdb("sqlmin"))[..1000];
        using CallstackResolver resolver = ResolverWithSqlmin(truncated);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        string[] lines = ResolutionFixtures.Lines(output);
        AssertStackARestResolved(lines);
        Assert.That(
            lines[0],
            Does.Contain(" -- unresolved: PDB damaged: sqlmin.pdb 9C072258-C838-1309-4C4C-44205044422E/1 (")
        );
        Assert.That(
            lines[0],
            Does.Contain("byte offset").And.Contain("truncated"),
            "the reason names the offset and what was expected"
        );
        UnresolvedGroup g = summary.UnresolvedGroups.Single();
        Assert.That(g.Count, Is.EqualTo(23));
        Assert.That(g.Reason, Is.EqualTo(UnresolvedReason.PdbDamaged));
        Assert.That(
            string.Join("\n", g.SearchLog),
            Does.Contain("truncated"),
            "the search log says why the file was rejected"
        );
    }

    [Test]
    public void Resolve_PdbWhoseMultiBlockDirectoryHasBlockIndexFFFFFFFF_IsReportedAsDamaged()
    {
        // The reported case: only sqlmin's frames stay raw, with the reason, the file and the byte offset; every other
        // PDB still resolves.
        var msf = MsfTestFile.Read(File.ReadAllBytes(FixtureFiles.StrippedPdb("sqlmin")));
        // an unused extra stream: 128 more block indices make the directory span blocks
        msf.Streams.Add(new byte[64 * 1024]);
        byte[] file = msf.Write(512, scatter: false);
        Assert.That(
            BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(44)),
            Is.GreaterThan(512),
            "the directory spans several blocks"
        );
        int mapBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(52));
        BinaryPrimitives.WriteUInt32LittleEndian(file.AsSpan((mapBlock * 512) + 4), 0xFFFFFFFF);
        using CallstackResolver resolver = ResolverWithSqlmin(file);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        string[] lines = ResolutionFixtures.Lines(output);
        AssertStackARestResolved(lines);
        string offset = ((mapBlock * 512) + 4).ToString(System.Globalization.CultureInfo.InvariantCulture);
        Assert.That(
            lines[0],
            Does.Contain(" -- unresolved: PDB damaged: sqlmin.pdb 9C072258-C838-1309-4C4C-44205044422E/1 (")
                .And.Contain(Path.Combine(SqlminKey, "sqlmin.pdb") + "): byte offset " + offset + " ")
                .And.Contain("found 4294967295")
        );
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.PdbDamaged));
    }

    [Test]
    public void Resolve_PdbWithAnotherGuidInTheRightFolder_IsNeverUsed()
    {
        using CallstackResolver resolver = ResolverWithSqlmin(File.ReadAllBytes(FixtureFiles.StrippedPdb("sqldk")));
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        AssertStackARestResolved(ResolutionFixtures.Lines(output));
        Assert.That(
            string.Join("\n", summary.UnresolvedGroups.Single().SearchLog),
            Does.Contain("F18DB68E").IgnoreCase,
            "the rejected file's identity is reported"
        );
    }

    [Test]
    public void Resolve_PdbWithDamagedPublics_IsReportedAsDamaged()
    {
        // Identity intact (so the store accepts it), publics stream cut to 3 bytes: reading its symbols must fail
        // cleanly.
        var msf = MsfTestFile.Read(File.ReadAllBytes(FixtureFiles.StrippedPdb("sqlmin")));
        int publics = BinaryPrimitives.ReadUInt16LittleEndian(msf.Streams[3].AsSpan(16));
        msf.Streams[publics] = [1, 2, 3];
        using CallstackResolver resolver = ResolverWithSqlmin(msf.Write(4096, scatter: false));
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        string[] lines = ResolutionFixtures.Lines(output);
        AssertStackARestResolved(lines);
        Assert.That(
            lines[0],
            Does.Contain(" -- unresolved: PDB damaged: sqlmin.pdb 9C072258-C838-1309-4C4C-44205044422E/1 (")
        );
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.PdbDamaged));
        Assert.That(summary.Pdbs.Single(p => p.PdbName == "sqlmin.pdb").Problem, Does.StartWith("PDB damaged"));
    }

    [Test]
    public void Scan_BinariesThatAreNotPeImages_AreSkippedWithAWarning()
    {
        string bin = Path.Combine(_scratch, "bin");
        Directory.CreateDirectory(bin);
        File.WriteAllText(Path.Combine(bin, "sqlmin.dll"), "this is not a PE image");
        File.WriteAllBytes(Path.Combine(bin, "empty.exe"), []);
        File.Copy(FixtureFiles.Dll("sqldk"), Path.Combine(bin, "sqldk.dll"));
        ModuleBinaries binaries = ModuleBinaries.Scan([bin]);
        Assert.That(binaries.Images.Select(i => i.Module.Name), Is.EqualTo(new[] { "sqldk.dll" }));
        Assert.That(binaries.Warnings, Has.Count.EqualTo(2));
        Assert.That(binaries.Warnings, Has.Some.Contains("sqlmin.dll is not a usable PE image"));

        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false, binaries: binaries);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqlmin.dll!Ordinal5+0x20\nsqldk.dll+0x11f5",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output)[0],
            Does.StartWith("sqlmin.dll!Ordinal5+0x20 -- unresolved: ordinal needs the DLL")
        );
        Assert.That(ResolutionFixtures.Lines(output)[1], Does.StartWith("sqldk.dll!"));
        Assert.That(summary.Warnings, Has.Some.Contains("binaries: ").And.Some.Contains("is not a usable PE image"));
    }

    [Test]
    public void Scan_ModuleInTwoBuilds_IsNotUsed()
    {
        string bin = Path.Combine(_scratch, "bin");
        Directory.CreateDirectory(Path.Combine(bin, "a"));
        Directory.CreateDirectory(Path.Combine(bin, "b"));
        File.Copy(FixtureFiles.Dll("sqlmin"), Path.Combine(bin, "a", "sqlmin.dll"));
        File.Copy(FixtureFiles.Dll("sqldk"), Path.Combine(bin, "b", "sqlmin.dll"));
        ModuleBinaries binaries = ModuleBinaries.Scan([bin]);
        Assert.That(binaries.TryGet(ModuleName.Create("sqlmin.dll"), out _), Is.False);
        Assert.That(binaries.IsAmbiguous(ModuleName.Create("SQLMIN")), Is.True);
        Assert.That(binaries.Warnings.Single(), Does.Contain("exists in two builds"));
    }

    [TestCase("sqlmin")]
    [TestCase(".hidden.pdb")]
    [TestCase("a..b.pdb")]
    [TestCase("x%2F..%2Fy.pdb")]
    [TestCase("../../evil.pdb")]
    [TestCase("sub/evil.pdb")]
    [TestCase("..\\\\evil.pdb")]
    [TestCase("/etc/evil.pdb")]
    [TestCase("con .pdb")]
    public void Resolve_CallstackRvaWithHostilePdbName_NeverLeavesTheCache(string pdbName)
    {
        using var server = new Store.LoopbackSymbolServer();
        string cache = Path.Combine(_scratch, "cache");
        string xml =
            $"<frame id=\"00\" pdb=\"{pdbName}\" age=\"1\" guid=\"9C072258-C838-1309-4C4C-44205044422E\" "
            + $"module=\"sqlmin.dll\" rva=\"0x11e9\"/>";
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse($"srv*{cache}*{server.BaseUrl}"),
                StoreOptions = new SymbolStoreOptions { MaxRetries = 0, Timeout = TimeSpan.FromSeconds(5) },
            }
        );
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(xml, resolver);
        Assert.That(
            output,
            Does.StartWith(xml.Replace("/>", string.Empty, StringComparison.Ordinal)),
            "the frame is echoed as captured"
        );
        Assert.That(summary.ResolvedOffline, Is.Zero);
        Assert.That(server.Requests.Select(r => r.Path), Has.None.Contains("..").And.None.Contains("%2F").IgnoreCase);
        string[] written = Directory.GetFiles(_scratch, "*", SearchOption.AllDirectories);
        Assert.That(
            written.Where(f => !f.StartsWith(cache + Path.DirectorySeparatorChar, StringComparison.Ordinal)),
            Is.Empty
        );
        Assert.That(File.Exists(Path.Combine(Path.GetTempPath(), "evil.pdb")), Is.False);
    }

    [Test]
    public void Resolve_GarbageGuidsAndTruncatedFrames_AreKeptVerbatimWithAWarning()
    {
        string text =
            "<frame id=\"00\" pdb=\"ntdll.pdb\" age=\"1\" guid=\"C374E059-5793-9B92-A6525-386A66A2D3F5\" "
            + "module=\"ntdll.dll\" rva=\"0x9F7E4\" />\n"
            + "<frame id=\"01\" pdb=\"sqlmin.pdb\" age=\"1\" guid=\"9C072258-C838-1309-4C4C-44205044422E\" "
            + "module=\"sqlmin.dll\" rva=\"0x11e9\" />\n"
            + "<frame id=\"02\" pdb=\"sqlmin.pdb\" age=\"99999999999999999999\" guid=\"zzzz\" rva=\"0x11e9\" />\n"
            + "<frame id=\"03\" pdb=\"sqlmin.pdb\" age=\"1\" guid=";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        string[] lines = ResolutionFixtures.Lines(output);
        Assert.That(lines, Has.Length.EqualTo(4));
        Assert.That(lines[0], Is.EqualTo(text.Split('\n')[0]));
        Assert.That(lines[1], Is.EqualTo("01 " + ResolutionFixtures.PublishedStackA[0]));
        Assert.That(lines[2], Is.EqualTo(text.Split('\n')[2]));
        Assert.That(lines[3], Is.EqualTo(text.Split('\n')[3]));
        Assert.That(summary.Warnings, Has.One.Contains("could not be parsed and are written unchanged"));
    }

    [Test]
    public void Resolve_HugeButValidCounts_AreWrittenExactly()
    {
        string text =
            "<HistogramTarget truncated=\"1\" buckets=\"16384\"><Slot count=\"18446744073709551615\" "
            + "trunc=\"4294967295\"><value>sqlmin.dll+0x11e9</value></Slot></HistogramTarget>";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            output,
            Does.StartWith("Slot_0\t[count:18446744073709551615]:\n\n" + ResolutionFixtures.PublishedStackA[0])
        );
    }

    [Test]
    public void Resolve_ManyDistinctAddresses_StayBoundedByTheCacheCap()
    {
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                SqlBuild = ResolutionFixtures.Build(),
                MaxCachedFrames = 100,
            }
        );
        ResolverSession session = resolver.CreateSession();
        ModuleName sqlmin = ModuleName.Create("sqlmin.dll");
        for (ulong rva = 0x1040; rva < 0x1040 + 5000; rva++)
        {
            Assert.That(session.ResolveModuleOffset(sqlmin, rva).IsResolved, Is.True);
        }

        // Past the cap, results are still right, just recomputed.
        Assert.That(
            session.ResolveModuleOffset(sqlmin, 0x11e9).Text,
            Is.EqualTo(ResolutionFixtures.PublishedStackA[0])
        );
    }
}

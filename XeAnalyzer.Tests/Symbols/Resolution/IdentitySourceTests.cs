using System.Globalization;
using System.Text;
using XeAnalyzer.Analysis;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Fixtures;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Every way the resolver learns a module's PDB build (frame, CSV metadata, DLL RSDS, build catalog, nothing) resolves
/// seed stack A to the published text, and records where the identity came from and whether the PDB was verified.
/// </summary>
public class IdentitySourceTests
{
    private static PdbIdentity Identity(string module)
    {
        var row = FixtureFiles.ReadExpected("identities.tsv").Single(r => r["module"] == module);
        return new PdbIdentity(Guid.ParseExact(row["guid"], "N"), int.Parse(row["age"], CultureInfo.InvariantCulture));
    }

    [Test]
    public void Resolve_WithBuildCatalog_UsesTheCatalogIdentity()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        AssertBinding(summary, "sqlmin.pdb", Identity("sqlmin"), PdbIdentitySource.BuildCatalog);
        AssertBinding(summary, "sqlTsEs.pdb", Identity("sqlTsEs"), PdbIdentitySource.BuildCatalog);
    }

    [Test]
    public void Resolve_WithBinaries_UsesTheDllRsdsIdentity()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            withBuild: false,
            binaries: ModuleBinaries.Scan([TestPaths.SymbolsCache])
        );
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        AssertBinding(summary, "sqlmin.pdb", Identity("sqlmin"), PdbIdentitySource.Binary);
        Assert.That(summary.Unverified, Is.Zero);
    }

    [Test]
    public void Resolve_WithCsvMetadataInTheInput_UsesItAndEchoesTheMetadataLines()
    {
        PdbIdentity min = Identity("sqlmin"),
            ts = Identity("sqlTsEs");
        string csv1 =
            $"\"sqlmin.dll\",\"2099.0990.1000.01\",1234,5678,62976,\"sqlmin.pdb\",\"{{{min.Guid:D}}}\",0,{min.Age}";
        string csv2 = $"sqlTsEs.dll,{ts.Guid:D},{ts.Age}";
        string text = csv1 + "\n" + csv2 + "\n" + ResolutionFixtures.StackAModuleOffsetText();
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(new[] { csv1, csv2 }.Concat(ResolutionFixtures.PublishedStackA))
        );
        AssertBinding(summary, "sqlmin.pdb", min, PdbIdentitySource.SymbolMetadata);
        AssertBinding(summary, "sqlTsEs.pdb", ts, PdbIdentitySource.SymbolMetadata);
    }

    [Test]
    public void Resolve_MetadataLinesCloseTogether_EachBatchSeesItsOwnMetadata_WithManyWorkers()
    {
        // Metadata lines one or two batches apart, so two metadata batches are in flight at once: a batch between them
        // must wait for the first to be applied and no batch after the second may run before it is (the pipeline once
        // let one flag stand for both).
        PdbIdentity min = Identity("sqlmin"),
            ts = Identity("sqlTsEs");
        string stack = ResolutionFixtures.StackAModuleOffsetText();
        string Stacks(int n) => string.Concat(Enumerable.Repeat(stack + "\n\n", n));
        // A plain-text stack of 2,000 lines is about 75 copies of stack A: the two metadata lines fall in neighbouring
        // batches.
        string text =
            Stacks(300)
            + $"sqlmin.dll,{min.Guid:D},{min.Age}\n"
            + Stacks(75)
            + $"sqlTsEs.dll,{ts.Guid:D},{ts.Age}\n"
            + Stacks(300);
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false);
        (string expected, _) = ResolutionFixtures.ResolveStackByStack(text, resolver);
        for (int round = 0; round < 6; round++)
        {
            (string output, _) = ResolutionFixtures.ResolveText(
                text,
                resolver,
                new CallstackTextResolverOptions { Workers = 2 + (round % 3) }
            );
            Assert.That(output, Is.EqualTo(expected), "round " + round);
        }
    }

    [TestCase(1)]
    [TestCase(2)]
    [TestCase(3)]
    public void Resolve_CsvMetadataBetweenManyStacks_AppliesFromWhereItStands_AsStackByStack(int workers)
    {
        // Hundreds of stacks (many batches for the pipeline's workers) before, between and after two metadata lines:
        // whichever worker resolves a stack, it sees the metadata the stack-by-stack reference does (the text reader
        // reads ahead, so a metadata line can apply to a few stacks above it, in both alike).
        PdbIdentity min = Identity("sqlmin"),
            ts = Identity("sqlTsEs");
        string stack = ResolutionFixtures.StackAModuleOffsetText();
        string Stacks(int n) => string.Concat(Enumerable.Repeat(stack + "\n\n", n));
        string csvMin = $"sqlmin.dll,{min.Guid:D},{min.Age}",
            csvTs = $"sqlTsEs.dll,{ts.Guid:D},{ts.Age}";
        string text = Stacks(300) + csvMin + "\n" + Stacks(300) + csvTs + "\n" + Stacks(300);
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false);
        (string pipelined, ResolutionSummary a) = ResolutionFixtures.ResolveText(
            text,
            resolver,
            new CallstackTextResolverOptions { Workers = workers }
        );
        (string sequential, ResolutionSummary b) = ResolutionFixtures.ResolveStackByStack(text, resolver);
        Assert.That(pipelined, Is.EqualTo(sequential));
        Assert.That(
            OutputFormats.ToText(new ResolutionSummaryDocument(a), "json"),
            Is.EqualTo(OutputFormats.ToText(new ResolutionSummaryDocument(b), "json"))
        );

        string[] lines = ResolutionFixtures.Lines(pipelined);
        int m1 = Array.IndexOf(lines, csvMin),
            m2 = Array.IndexOf(lines, csvTs);
        Assert.That(m1, Is.GreaterThan(0));
        Assert.That(m2, Is.GreaterThan(m1));
        string[] first = lines[..m1],
            second = lines[(m1 + 1)..m2],
            third = lines[(m2 + 1)..];
        int perStack = ResolutionFixtures.PublishedStackA.Length;
        Assert.That(first, Has.Length.EqualTo(300 * perStack));
        Assert.That(
            first[..perStack].Count(l => l.StartsWith("sqlmin.dll!", StringComparison.Ordinal)),
            Is.Zero,
            "no identity for the first stack"
        );
        Assert.That(
            second.Count(l => l.StartsWith("sqlTsEs.dll!", StringComparison.Ordinal)),
            Is.LessThan(300),
            "sqlTsEs has no identity for most stacks before its metadata"
        );
        Assert.That(third, Is.EqualTo(Enumerable.Range(0, 300).SelectMany(_ => ResolutionFixtures.PublishedStackA)));
    }

    [Test]
    public void Resolve_CsvMetadataNamingAnotherBuild_LeavesFramesRawWithTheWantedIdentity()
    {
        // The metadata says sqlmin.pdb has sqldk's GUID: no such sqlmin.pdb exists, and no other sqlmin.pdb may be used
        // instead.
        PdbIdentity wrong = Identity("sqldk");
        string text = $"sqlmin.dll,{wrong.Guid:D},{wrong.Age}\nsqlmin.dll+0x11e9";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            ResolutionFixtures.Lines(output)[1],
            Is.EqualTo("sqlmin.dll+0x11e9 -- unresolved: no PDB for sqlmin.pdb " + wrong)
        );
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.NoPdb));
        Assert.That(summary.UnresolvedGroups.Single().SearchLog, Is.Not.Empty, "what was searched is reported");
    }

    [Test]
    public void Resolve_CallstackRvaFrames_UseTheirOwnGuidAndAge_AndKeepFrameNumbers()
    {
        var frames = ResolutionFixtures.SeedFrames("A");
        var sb = new StringBuilder(
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n  <Slot count=\"115192\">\n    <value>"
        );
        for (int i = 0; i < frames.Count; i++)
        {
            PdbIdentity id = Identity(frames[i]["module"]);
            // Alternate guid spellings (upper, lower) and attribute order, as SQL Server 2022 and pasted copies vary.
            string guid = i % 2 == 0 ? id.Guid.ToString("D").ToUpperInvariant() : id.Guid.ToString("D");
            sb.Append(
                CultureInfo.InvariantCulture,
                $"<frame id=\"{i:00}\" pdb=\"{frames[i]["module"]}.pdb\" age=\"{id.Age}\" guid=\"{guid}\" "
                    + $"module=\"{frames[i]["module"]}.dll\" rva=\"{frames[i]["frame_rva"]}\" />\n"
            );
        }

        sb.Append("</value>\n  </Slot>\n</HistogramTarget>\n");
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(sb.ToString(), resolver);
        string[] expected = new[] { "Slot_0\t[count:115192]:" }
            .Concat(
                ResolutionFixtures.PublishedStackA.Select(
                    (l, i) => i.ToString("x2", CultureInfo.InvariantCulture) + " " + l
                )
            )
            .ToArray();
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(expected));
        Assert.That(summary.Shapes[StackShape.CallstackRva], Is.EqualTo(1));
        AssertBinding(summary, "sqlmin.pdb", Identity("sqlmin"), PdbIdentitySource.Frame);
    }

    [Test]
    public void Resolve_AbbreviatedRvaFrame_UsesTheBaseOfAnEarlierFullFrame()
    {
        PdbIdentity id = Identity("sqlmin");
        // base = 0x180000000; the abbreviated frame's address is base + LatchBase::RecordAcquire+0x191 (RVA 0x1411 per
        // stacks.tsv).
        string text =
            $"<frame id=\"00\" pdb=\"sqlmin.pdb\" age=\"{id.Age}\" guid=\"{id.Guid:D}\" module=\"sqlmin.dll\" "
            + $"rva=\"0x11e9\" address=\"0x1800011e9\"/>\n"
            + "<frame id=\"01\" name=\"sqlmin.dll\" address=\"0x180001411\" />";
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: false);
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(
                new[] { "00 " + ResolutionFixtures.PublishedStackA[0], "01 " + ResolutionFixtures.PublishedStackA[1] }
            )
        );
    }

    [Test]
    public void Resolve_WithNothingIdentifyingTheBuild_UsesTheSingleNameMatch_InANamedFolder_MarkedUnverified()
    {
        using CallstackResolver resolver = NameOnlyResolver(nameOnlyFolders: [TestPaths.SymbolsCache]);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        // Every frame resolved through a name-only PDB match carries the unverified marker in its text.
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(ResolutionFixtures.PublishedStackA.Select(l => l + " -- unverified: PDB matched by name only"))
        );
        Assert.That(summary.Unverified, Is.EqualTo(24));
        PdbBinding b = summary.Pdbs.Single(p => p.PdbName == "sqlmin.pdb");
        Assert.That(b.IdentitySource, Is.EqualTo(PdbIdentitySource.None));
        Assert.That(b.IsVerified, Is.False);
        Assert.That(b.FileIdentity, Is.EqualTo(Identity("sqlmin")));

        ResolvedFrame f = resolver.Resolve(new XeAnalyzer.Callstacks.FrameParser().ParseLine("sqlmin.dll+0x11e9")[0]);
        Assert.That(f.Resolution.IsVerified, Is.False);
        Assert.That(f.Status, Is.EqualTo(FrameResolutionStatus.ResolvedOffline));
        Assert.That(
            f.Resolution.Text,
            Does.EndWith(" -- unverified: PDB matched by name only"),
            "the mark is part of the frame text, for every output format"
        );
        Assert.That(
            f.Resolution.Function,
            Is.EqualTo("XeSqlPkg::latch_acquired::Publish"),
            "the function name itself carries no mark"
        );
    }

    [Test]
    public void Resolve_WithNothingIdentifyingTheBuild_NeverUsesANameMatch_FromACacheOrStore()
    {
        // The symbol store holds exactly one sqlmin.pdb, but it is a store (cache*, srv*) or a folder nobody named for
        // name-only matching.
        foreach (
            string path in new[]
            {
                "cache*" + TestPaths.SymbolsCache,
                "srv*" + TestPaths.SymbolsCache,
                TestPaths.SymbolsCache,
            }
        )
        {
            using CallstackResolver resolver = NameOnlyResolver(nameOnlyFolders: [], symbolPath: path);
            (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText("sqlmin.dll+0x11e9", resolver);
            Assert.That(summary.Unresolved, Is.EqualTo(1), path);
            Assert.That(summary.ResolvedOffline, Is.Zero, path);
            Assert.That(output, Does.Contain("-- unresolved: no PDB for sqlmin.pdb (GUID/age unknown)"), path);
            PdbBinding b = summary.Pdbs.Single(p => p.PdbName == "sqlmin.pdb");
            Assert.That(b.SearchLog, Has.Some.Contains("has that name but is not used"), path);
            Assert.That(b.IsLoaded, Is.False, path);
        }
    }

    [Test]
    public void Resolve_WithTwoBuildsInTheNamedFolders_UsesNeither()
    {
        // The symbols-cache store and the private store hold different builds of sqlmin.pdb: a name says nothing about
        // which.
        using CallstackResolver resolver = NameOnlyResolver(
            nameOnlyFolders: [TestPaths.SymbolsCache, ResolutionFixtures.PrivateSymbols]
        );
        (_, ResolutionSummary summary) = ResolutionFixtures.ResolveText("sqlmin.dll+0x11e9", resolver);
        Assert.That(summary.Unresolved + summary.ResolvedOffline, Is.EqualTo(1));
        PdbBinding b = summary.Pdbs.Single(p => p.PdbName == "sqlmin.pdb");
        if (b.IsLoaded)
        {
            // Only when the two stores hold the same build (the full and stripped twins share GUID and age) is the
            // match unique.
            Assert.That(b.IsVerified, Is.False);
        }
        else
        {
            Assert.That(b.SearchLog, Has.Some.Contains("different builds"));
        }
    }

    private static CallstackResolver NameOnlyResolver(
        IReadOnlyList<string> nameOnlyFolders,
        string? symbolPath = null
    ) =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = XeAnalyzer.Symbols.Store.SymbolPath.Parse(symbolPath ?? TestPaths.SymbolsCache),
                StoreOptions = new XeAnalyzer.Symbols.Store.SymbolStoreOptions
                {
                    NameOnlyFolders = nameOnlyFolders,
                    DefaultCacheDirectory = Path.Combine(Path.GetTempPath(), "xea-nameonly-default-cache"),
                },
                Offline = true,
            }
        );

    private static void AssertBinding(
        ResolutionSummary summary,
        string pdb,
        PdbIdentity identity,
        PdbIdentitySource source
    )
    {
        PdbBinding b = summary.Pdbs.Single(p => p.PdbName.Equals(pdb, StringComparison.OrdinalIgnoreCase));
        Assert.That(b.Identity, Is.EqualTo(identity), pdb);
        Assert.That(b.IdentitySource, Is.EqualTo(source), pdb);
        Assert.That(b.IsLoaded && b.IsVerified, Is.True, pdb);
        Assert.That(b.FileIdentity, Is.EqualTo(identity), pdb);
    }
}

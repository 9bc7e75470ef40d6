using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Fixtures;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>Raw virtual addresses through a module map, and export-ordinal frames through the DLLs' export
/// tables.</summary>
public class AddressAndOrdinalTests
{
    private const ulong SqlminBase = 0x00007FFAD08A0000;
    private const ulong SqlTsEsBase = 0x00007FFACB6F0000;

    private static readonly string ModuleList =
        "name\tbase_address\n"
        + "C:\\Program Files\\Microsoft SQL "
        + "Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\sqlservr.exe\t0x00007FF72FF00000\n"
        + "C:\\WINDOWS\\SYSTEM32\\ntdll.dll\t0x00007FFB63130000\n"
        + "C:\\Program Files\\Microsoft SQL Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\sqlmin.dll\t0x00007FFAD08A0000\n"
        + "C:\\Program Files\\Microsoft SQL "
        + "Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Binn\\sqlTsEs.dll\t0x00007FFACB6F0000\n";

    private static ModuleMap Map() => ModuleMap.Parse(new StringReader(ModuleList));

    private static ulong Va(IReadOnlyDictionary<string, string> frame) =>
        (frame["module"] == "sqlmin" ? SqlminBase : SqlTsEsBase) + (ulong)FixtureFiles.Hex(frame["frame_rva"]);

    [Test]
    public void Resolve_RawAddressesWithModuleMap_GiveThePublishedStack()
    {
        string text = string.Join(
            "\n",
            ResolutionFixtures.SeedFrames("A").Select(f => "0x" + Va(f).ToString("X16", CultureInfo.InvariantCulture))
        );
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(summary.Shapes[StackShape.RawAddresses], Is.EqualTo(1));
        Assert.That(summary.Warnings, Is.Empty);
    }

    [Test]
    public void ResolveAddresses_OfAnXelCallstack_ResolvesEachAddress()
    {
        ulong[] addresses = ResolutionFixtures.SeedFrames("A").Select(Va).ToArray();
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        var results = new FrameResolution[addresses.Length];
        resolver.ResolveAddresses(addresses, results);
        Assert.That(results.Select(r => r.Text), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(results[0].Rva, Is.EqualTo(0x11e9UL));
        Assert.That(results[0].ModuleDisplayName, Is.EqualTo("sqlmin.dll"));

        // Each distinct address is resolved once: the same address gives the same shared instance.
        var again = new FrameResolution[addresses.Length];
        resolver.CreateSession(Map()).ResolveAddresses(addresses, again);
        ResolverSession session = resolver.CreateSession(Map());
        FrameResolution first = session.ResolveAddress(addresses[0]);
        FrameResolution second = session.ResolveAddress(addresses[0]);
        Assert.That(second, Is.SameAs(first));
        Assert.That(again.Select(r => r.Text), Is.EqualTo(ResolutionFixtures.PublishedStackA));
    }

    [Test]
    public void ResolveFrame_OneFrameInstanceInTwoSessions_GetsEachSessionsResolution_EveryTime()
    {
        // One frame instance (the parser shares one between the repeats of a line) resolved by sessions with different
        // module maps: each answers from its own state, however they alternate.
        ulong va = Va(ResolutionFixtures.SeedFrames("A")[0]);
        var frame = new VirtualAddressFrame(va, "0x" + va.ToString("X16", CultureInfo.InvariantCulture));
        string shifted = ModuleList.Replace("0x00007FFAD08A0000", "0x00007FFAD0800000", StringComparison.Ordinal);
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        ResolverSession mapped = resolver.CreateSession(Map());
        ResolverSession other = resolver.CreateSession(ModuleMap.Parse(new StringReader(shifted)));
        using CallstackResolver bare = ResolutionFixtures.Resolver();
        ResolverSession none = bare.CreateSession();
        ulong rva = mapped.ResolveFrame(frame).Rva!.Value;
        for (int i = 0; i < 3; i++)
        {
            // Twice each: the second resolution in a session comes from its caches.
            for (int k = 0; k < 2; k++)
            {
                Assert.That(
                    mapped.ResolveFrame(frame).Text,
                    Is.EqualTo(ResolutionFixtures.PublishedStackA[0]),
                    "round " + i
                );
            }

            for (int k = 0; k < 2; k++)
            {
                Assert.That(other.ResolveFrame(frame).Rva, Is.EqualTo(rva + 0xA0000), "round " + i);
            }

            for (int k = 0; k < 2; k++)
            {
                Assert.That(none.ResolveFrame(frame).Reason, Is.EqualTo(UnresolvedReason.NoModuleMap), "round " + i);
            }
        }
    }

    [Test]
    public void Resolve_AddressOutsideEveryModule_IsUnresolvedWithTheAddress()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "0x00007FF600001000\n0x00000000DEADBEEF",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(
                new[]
                {
                    "0x00007FF600001000 -- unresolved: no module for 0x00007FF600001000",
                    "0x00000000DEADBEEF -- unresolved: no module for 0x00000000DEADBEEF",
                }
            )
        );
        UnresolvedGroup g = summary.UnresolvedGroups.Single();
        Assert.That(g.Reason, Is.EqualTo(UnresolvedReason.NoModuleForAddress));
        Assert.That(g.Count, Is.EqualTo(2));
        Assert.That(g.FirstExample, Is.EqualTo("0x00007FF600001000"));
        Assert.That(g.FirstLine, Is.EqualTo(1));
    }

    [Test]
    public void Resolve_AddressInAModuleWithoutPdb_SaysWhichPdbIsMissing()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        (string output, _) = ResolutionFixtures.ResolveText("0x00007FFB631C1735", resolver);
        Assert.That(output, Is.EqualTo("0x00007FFB631C1735 -- unresolved: no PDB for ntdll.pdb (GUID/age unknown)\n"));
    }

    [Test]
    public void Resolve_RawAddressesWithoutModuleMap_WarnAndStayRaw()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "0x00007FFAD08A11E9\n0x00007FFAD08A1411",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(
                new[]
                {
                    "0x00007FFAD08A11E9 -- unresolved: no module map for raw addresses",
                    "0x00007FFAD08A1411 -- unresolved: no module map for raw addresses",
                }
            )
        );
        Assert.That(summary.Warnings, Has.One.StartsWith("2 raw-address frame(s) but no module map"));
    }

    [Test]
    public void Resolve_ModuleMapWithModuleOffsetFrames_WarnsTheMapIsUnused()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(map: Map());
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(summary.Warnings, Has.One.StartsWith("a module map was given but no frame is a raw address"));
    }

    [Test]
    public void Resolve_OrdinalFramesWithBinaries_UseTheExportTable()
    {
        // manifest.tsv: sqlmin ordinal 5 (NONAME) is FnProducerThread, sqldk ordinal 7 is SOS_Task::PushWait.
        var manifest = FixtureFiles.ReadExpected("manifest.tsv");
        string five = manifest.Single(r => r["module"] == "sqlmin" && r["exports"] == "ordinal:5")["name"];
        string seven = manifest.Single(r => r["module"] == "sqldk" && r["exports"] == "ordinal:7")["name"];
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            binaries: ModuleBinaries.Scan([TestPaths.SymbolsCache])
        );
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqlmin.dll!Ordinal5+0x20\nsqldk.dll!Ordinal7 + 0x11c",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(new[] { "sqlmin.dll!" + five + "+0x20", "sqldk.dll!" + seven + "+0x11c" })
        );
        Assert.That(summary.Shapes[StackShape.Ordinals], Is.EqualTo(1));
        Assert.That(summary.Hints, Has.Some.Contains("TF 3656 was on but sqlmin.pdb was not in Binn"));
    }

    [Test]
    public void Resolve_OrdinalFramesWithoutBinaries_NeedTheDll()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqldk.dll!XeSosPkg::wait_info::Publish+0x18d\nsqlmin.dll!Ordinal5+0x20",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output)[1],
            Does.StartWith("sqlmin.dll!Ordinal5+0x20 -- unresolved: ordinal needs the DLL")
        );
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.OrdinalNeedsDll));
        Assert.That(summary.Hints, Has.One.Contains("TF 3656 was on but sqlmin.pdb was not in Binn"));
        Assert.That(summary.Shapes[StackShape.Ordinals], Is.EqualTo(1));
    }

    [Test]
    public void Resolve_OrdinalTheDllDoesNotExport_SaysSo()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            binaries: ModuleBinaries.Scan([TestPaths.SymbolsCache])
        );
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqlmin.dll!Ordinal999+0x10",
            resolver
        );
        Assert.That(output, Does.StartWith("sqlmin.dll!Ordinal999+0x10 -- unresolved: "));
        Assert.That(output, Does.Contain("has no export with ordinal 999"));
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.OrdinalNotExported));
    }

    [Test]
    public void Resolve_RvaBeyond4GB_IsUnresolvedNotAnError()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "sqlmin.dll+0x0000000100000000",
            resolver
        );
        Assert.That(
            output,
            Is.EqualTo("sqlmin.dll+0x0000000100000000 -- unresolved: RVA 0x100000000 does not fit in 32 bits\n")
        );
        Assert.That(summary.UnresolvedGroups.Single().Reason, Is.EqualTo(UnresolvedReason.RvaOutOfRange));
    }
}

using System.Reflection.PortableExecutable;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Tests.Symbols.Pe;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>The reader against llvm-pdbutil's recorded view of the committed tiny fixture (full, publics-only and
/// stripped PDBs).</summary>
public class PdbFixtureTests
{
    private static readonly string[] Flavors = ["full", "publics", "stripped"];

    [TestCaseSource(nameof(Flavors))]
    public void Open_ReadsIdentityAndDbiFlags_MatchingPdbUtilSummary(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));

        Assert.That(
            pdb.BlockSize.ToString(System.Globalization.CultureInfo.InvariantCulture),
            Is.EqualTo(oracle.Summary["Block Size"])
        );
        Assert.That("{" + pdb.Identity.Guid.ToString("D").ToUpperInvariant() + "}", Is.EqualTo(oracle.Summary["GUID"]));
        Assert.That(
            pdb.Identity.Age.ToString(System.Globalization.CultureInfo.InvariantCulture),
            Is.EqualTo(oracle.Summary["Age"])
        );
        Assert.That(pdb.Dbi, Is.Not.Null);
        Assert.That(pdb.Dbi!.IsStripped, Is.EqualTo(oracle.Summary["Is stripped"] == "true"));
        Assert.That(pdb.Dbi.IsIncrementallyLinked, Is.EqualTo(oracle.Summary["Is incrementally linked"] == "true"));
        Assert.That(pdb.Dbi.HasConflictingTypes, Is.EqualTo(oracle.Summary["Has conflicting types"] == "true"));
        Assert.That(pdb.Dbi.VersionSignature, Is.EqualTo(-1));
        Assert.That(pdb.Dbi.PublicStreamIndex, Is.Not.Null);
        Assert.That(pdb.Dbi.SymbolRecordStreamIndex, Is.Not.Null);
    }

    [TestCaseSource(nameof(Flavors))]
    public void Open_IdentityAndMachine_MatchTheDllsRsdsRecord(string flavor)
    {
        // llvm-readobj's view of the DLL the PDB belongs to (the stripped twin carries full/tiny.dll's identity).
        string dllFlavor = flavor == "publics" ? "publics" : "full";
        ReadObjOutput dll = ReadObjOutput.Load(TinyFixture.Expected(dllFlavor + ".readobj.txt"));
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));

        Assert.That(dll.CodeViews, Has.Count.EqualTo(1));
        Assert.That(pdb.Identity.Guid, Is.EqualTo(dll.CodeViews[0].Guid));
        Assert.That(pdb.Identity.Age, Is.EqualTo(dll.CodeViews[0].Age));
        Assert.That(pdb.Dbi!.Machine, Is.EqualTo(Machine.Amd64));
    }

    [TestCaseSource(nameof(Flavors))]
    public void Sections_MatchPdbUtilSectionHeaders(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));

        Assert.That(oracle.Sections, Is.Not.Empty);
        Assert.That(pdb.Sections.Select(s => (s.Name, s.VirtualSize, s.VirtualAddress)), Is.EqualTo(oracle.Sections));
        Assert.That(pdb.OriginalSections, Is.Empty);
        Assert.That(oracle.OriginalSections, Is.Empty);
        Assert.That(pdb.HasOmap(), Is.False);
    }

    [TestCaseSource(nameof(Flavors))]
    public void GetPublics_MatchPdbUtilPublics_WithRvaFromSectionHeaders(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));

        var expected = oracle
            .Publics.Select(p =>
                (p.Name, (ushort)p.Segment, p.Offset, oracle.Rva(p.Segment, p.Offset), p.Flags == "function")
            )
            .OrderBy(p => p.Name, StringComparer.Ordinal)
            .ToList();
        var actual = pdb.GetPublics()
            .Select(p => (p.Name, p.Segment, p.Offset, p.Rva, p.Flags.HasFlag(PdbPublicAttributes.Function)))
            .OrderBy(p => p.Name, StringComparer.Ordinal)
            .ToList();
        Assert.That(expected, Has.Count.GreaterThan(10));
        Assert.That(actual, Is.EqualTo(expected));
    }

    [TestCaseSource(nameof(Flavors))]
    public void GetPublics_AreInAddressMapOrder(string flavor)
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));
        var keys = pdb.GetPublics().Select(p => ((int)p.Segment, p.Offset)).ToList();
        Assert.That(keys, Is.Ordered);
    }

    [Test]
    public void GetProcedures_MatchPdbUtilSymbols_ForFullPdb()
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));

        var expected = oracle
            .Procedures.Select(p =>
                (
                    p.Name,
                    oracle.Rva(p.Segment, p.Offset),
                    p.Size,
                    p.Kind.StartsWith("S_GPROC32", StringComparison.Ordinal),
                    p.Module
                )
            )
            .ToList();
        var actual = pdb.GetProcedures().Select(p => (p.Name, p.Rva, p.Size, p.IsGlobal, p.ModuleIndex)).ToList();
        Assert.That(expected, Has.Count.EqualTo(14));
        Assert.That(actual, Is.EqualTo(expected));
        Assert.That(
            actual.Count(p => !p.IsGlobal),
            Is.EqualTo(2),
            "StaticHelper and the anonymous-namespace AnonHelper are S_LPROC32"
        );
    }

    [TestCase("publics")]
    [TestCase("stripped")]
    public void GetProcedures_IsEmpty_ForPublicsOnlyPdb(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));
        Assert.That(oracle.Procedures, Is.Empty);
        Assert.That(pdb.GetProcedures(), Is.Empty);
    }

    [TestCaseSource(nameof(Flavors))]
    public void GetModules_MatchPdbUtilModules(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));

        var expected = oracle
            .Modules.Select(m => (m.Name, m.Obj, m.DebugStream == 65535 ? (int?)null : m.DebugStream))
            .ToList();
        var actual = pdb.GetModules().Select(m => (m.ModuleName, m.ObjectFileName, m.SymbolStreamIndex)).ToList();
        Assert.That(actual, Is.EqualTo(expected));
    }

    [Test]
    public void GetPublics_FlagsMsvcDecoratedNames_AndLeavesPlainNamesRaw()
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("publics"));
        foreach (PdbPublicSymbol p in pdb.GetPublics())
        {
            Assert.That(p.IsDecorated, Is.EqualTo(p.Name.StartsWith('?')), p.Name);
            Assert.That(
                p.Decoration,
                Is.EqualTo(p.Name.StartsWith('?') ? PdbNameDecoration.Msvc : PdbNameDecoration.None),
                p.Name
            );
        }

        Assert.That(
            pdb.GetPublics().Select(p => p.Name),
            Does.Contain("lock_internal").And.Contain("?Publish@Widget@TinyPkg@@SAHPEAXH@Z")
        );
    }

    [Test]
    public void GetPublics_ReturnsTheSameCachedList_OnEveryCall()
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        var publics = pdb.GetPublics();
        var procedures = pdb.GetProcedures();
        var index = pdb.GetSymbolIndex();
        Assert.That(pdb.GetPublics(), Is.SameAs(publics));
        Assert.That(pdb.GetProcedures(), Is.SameAs(procedures));
        Assert.That(pdb.GetSymbolIndex(), Is.SameAs(index));
    }
}

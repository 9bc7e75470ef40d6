namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// The acceptance measurement: <see cref="XeAnalyzer.Symbols.Undecoration.MsvcNameUndecorator"/> against names DIA
/// printed for real MSVC PDBs (shared vectors, PDB-AND-SYMBOLS.md §8). Decorated names come from
/// <c>TestData/undname/*.publics.tsv</c>, recorded from the same PDBs by <c>tools/undname/record-publics.sh</c> with
/// llvm-pdbutil-14 (an independent reader). Pairing, counting and the normaliser are documented on
/// <see cref="DiaNameComparison"/>. Every remaining difference is listed below with its reason; a new difference or a
/// listed one that disappears fails the test.
/// </summary>
[TestFixture]
public sealed class MsvcNameUndecoratorDiaTests
{
    /// <summary>An expected difference: the RVA, what we print (all tied publics, " | "-joined), DIA's normalised text, why.</summary>
    private sealed record ExpectedDifference(uint Rva, string Ours, string Dia, string Reason);

    // basic32-min (x86, stripped): every PUBLIC line is identical; ties (PUBLIC m) resolve to one of the tied names.
    private static readonly ExpectedDifference[] s_basic32Differences = [];

    // dump_syms_regtest64 (x64 full PDB; PUBLIC and FUNC lines).
    // dump_syms_regtest64 (x64 full PDB; PUBLIC and FUNC lines): FUNC names of ICF-folded procedures (memcpy at
    // memmove's address, ??_G at ??_E's) pair with the tied publics at the same RVA, so none remain.
    private static readonly ExpectedDifference[] s_regtest64Differences = [];

    // CrashWithException (x64 release; PUBLIC and FUNC lines).
    private static readonly ExpectedDifference[] s_crashDifferences = [];

    [Test]
    public void Basic32Min_AtLeast99PercentIdentical_AgainstDiaPublics()
    {
        string sym = TestPaths.RequireVector("pdb", "basic32-min.old.sym");
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(Publics("basic32-min"), sym, includeFunc: false);
        TestContext.Out.WriteLine("basic32-min.pdb PUBLIC lines: " + summary);
        Assert.That(summary.Ratio, Is.GreaterThanOrEqualTo(0.99), DiaNameComparison.Describe(summary.Differences));
        AssertDifferences(summary, s_basic32Differences);
    }

    [Test]
    public void DumpSymsRegtest64_DifferencesAreTheListedOnes_AgainstDiaFuncAndPublics()
    {
        string sym = TestPaths.RequireVector("pdb", "dump_syms_regtest64.old.sym");
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(Publics("dump_syms_regtest64"), sym, includeFunc: true);
        TestContext.Out.WriteLine("dump_syms_regtest64.pdb FUNC+PUBLIC lines: " + summary);
        AssertDifferences(summary, s_regtest64Differences);
    }

    [Test]
    public void CrashWithException_DifferencesAreTheListedOnes_AgainstDiaFuncAndPublics()
    {
        string sym = TestPaths.RequireVector("pdb", "CrashWithException.pdb.sym");
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(Publics("CrashWithException"), sym, includeFunc: true);
        TestContext.Out.WriteLine("CrashWithException.pdb FUNC+PUBLIC lines: " + summary);
        AssertDifferences(summary, s_crashDifferences);
    }

    private static string Publics(string pdb) => Path.Combine(TestPaths.TestData, "undname", pdb + ".publics.tsv");

    private static void AssertDifferences(DiaNameComparison.Summary summary, ExpectedDifference[] expected)
    {
        var actual = summary.Differences
            .Select(d => (d.Rva, Ours: string.Join(" | ", d.Ours), Dia: d.DiaNormalized))
            .OrderBy(d => d.Rva)
            .ToList();
        var listed = expected.Select(e => (e.Rva, e.Ours, e.Dia)).OrderBy(d => d.Rva).ToList();
        Assert.That(actual, Is.EqualTo(listed), "differences changed:\n" + DiaNameComparison.Describe(summary.Differences));
    }
}

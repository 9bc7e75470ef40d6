namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// The acceptance measurement: <see cref="XeAnalyzer.Symbols.Undecoration.MsvcNameUndecorator"/> against names DIA
/// printed for real MSVC PDBs (shared vectors, PDB-AND-SYMBOLS.md §8). Decorated names and RVAs come from the same
/// PDBs through the project's reader (<see cref="XeAnalyzer.Symbols.Pdb.PdbFile.GetPublics"/>). Pairing, counting and
/// the normaliser are documented on
/// <see cref="DiaNameComparison"/>. Every remaining difference is listed below with its reason; a new difference or a
/// listed one that disappears fails the test.
/// </summary>
[TestFixture]
public sealed class MsvcNameUndecoratorDiaTests
{
    /// <summary>An expected difference: the RVA, what we print (all tied publics, " | "-joined), DIA's normalised text,
    /// why.</summary>
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
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(
            TestPaths.RequireVector("pdb", "basic32-min.pdb"),
            sym,
            includeFunc: false
        );
        TestContext.Out.WriteLine("basic32-min.pdb PUBLIC lines: " + summary);
        Assert.That(summary.Ratio, Is.GreaterThanOrEqualTo(0.99), DiaNameComparison.Describe(summary.Differences));
        AssertDifferences(summary, s_basic32Differences);
    }

    [Test]
    public void DumpSymsRegtest64_DifferencesAreTheListedOnes_AgainstDiaFuncAndPublics()
    {
        string sym = TestPaths.RequireVector("pdb", "dump_syms_regtest64.old.sym");
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(
            TestPaths.RequireVector("pdb", "dump_syms_regtest64.pdb"),
            sym,
            includeFunc: true
        );
        TestContext.Out.WriteLine("dump_syms_regtest64.pdb FUNC+PUBLIC lines: " + summary);
        AssertDifferences(summary, s_regtest64Differences);
    }

    [Test]
    public void CrashWithException_DifferencesAreTheListedOnes_AgainstDiaFuncAndPublics()
    {
        string sym = TestPaths.RequireVector("pdb", "CrashWithException.pdb.sym");
        DiaNameComparison.Summary summary = DiaNameComparison.Compare(
            TestPaths.RequireVector("pdb", "CrashWithException.pdb"),
            sym,
            includeFunc: true
        );
        TestContext.Out.WriteLine("CrashWithException.pdb FUNC+PUBLIC lines: " + summary);
        AssertDifferences(summary, s_crashDifferences);
    }

    [TestCase("basic32-min.pdb")]
    [TestCase("dump_syms_regtest64.pdb")]
    [TestCase("CrashWithException.pdb")]
    public void TryUndecorate_SucceedsForEveryPublic_ExceptExceptionRecordNames(string pdb)
    {
        (Dictionary<uint, List<string>> byRva, int count) = DiaNameComparison.ReadPublics(
            TestPaths.RequireVector("pdb", pdb)
        );
        var refused = byRva
            .Values.SelectMany(v => v)
            .Where(n => !XeAnalyzer.Symbols.Undecoration.MsvcNameUndecorator.TryUndecorate(n, out _))
            .ToList();
        TestContext.Out.WriteLine($"{pdb}: {count} publics, {refused.Count} refused");

        // _CT??_R0..., _CTA2?AV..., _TI2?AV...: the compiler's C++ exception records (catchable type, catchable type
        // array, throw info), C-looking names wrapping a decorated one; no undecoration rule applies, callers keep the
        // raw name.
        Assert.That(refused.Where(n => !IsExceptionRecordName(n)), Is.Empty);
        Assert.That(count, Is.GreaterThan(100));
    }

    private static bool IsExceptionRecordName(string name)
    {
        string s = name.TrimStart('_');
        int q = s.IndexOf('?', StringComparison.Ordinal);
        if (q <= 0)
        {
            return false;
        }

        string head = s[..q].TrimEnd('0', '1', '2', '3', '4', '5', '6', '7', '8', '9');
        return head is "CT" or "CTA" or "TI";
    }

    private static void AssertDifferences(DiaNameComparison.Summary summary, ExpectedDifference[] expected)
    {
        var actual = summary
            .Differences.Select(d => (d.Rva, Ours: string.Join(" | ", d.Ours), Dia: d.DiaNormalized))
            .OrderBy(d => d.Rva)
            .ToList();
        var listed = expected.Select(e => (e.Rva, e.Ours, e.Dia)).OrderBy(d => d.Rva).ToList();
        Assert.That(
            actual,
            Is.EqualTo(listed),
            "differences changed:\n" + DiaNameComparison.Describe(summary.Differences)
        );
    }
}

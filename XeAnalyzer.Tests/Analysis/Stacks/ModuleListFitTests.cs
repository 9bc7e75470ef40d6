using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// A module list checked against the raw addresses it places: a list of another process lifetime is reported with
/// its figures, computed here from the bases (the list's ranges run from each base to the next, the highest to the
/// top of the address space).
/// </summary>
public sealed class ModuleListFitTests
{
    private StackCaptures _c = null!;
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp()
    {
        _c = new StackCaptures();
        _tmp = new TempFolder();
    }

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    /// <summary>How many <paramref name="addresses"/> these bases put in no module, and how many beyond 4 GB.</summary>
    private static (long NoModule, long Beyond4Gb) Outside(
        IEnumerable<ulong> addresses,
        IReadOnlyDictionary<string, ulong> bases
    )
    {
        long none = 0,
            beyond = 0;
        foreach (ulong a in addresses)
        {
            ulong[] below = [.. bases.Values.Where(b => b <= a)];
            if (below.Length == 0)
            {
                none++;
            }
            else if (a - below.Max() > uint.MaxValue)
            {
                beyond++;
            }
        }

        return (none, beyond);
    }

    private static string Ic(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);

    private static string MisfitWarning(StackBucketResult r) =>
        r.Inputs.Single().Resolution.Warnings.Single(w => w.Contains("does not fit", StringComparison.Ordinal));

    [Test]
    public void ListOfAnotherLifetime_AddressesAboveItsHighestModule_WarnsWithTheFigures()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] a = Addresses(Seed("A"), BasesA),
            c = Addresses(Seed("C"), BasesA);
        (long none, long beyond) = Outside([.. a, .. c], BasesB);
        Assert.That(beyond, Is.EqualTo(a.Length + c.Length), "test setup: A lies over 4 GB above B's ntdll");

        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), a), _c.Latch(At(1), c), _c.Latch(At(2), a)],
            resolver.CreateSession(Map(BasesB))
        );

        string warning = MisfitWarning(r);
        long frames = a.Length + c.Length;
        Assert.That(warning, Does.Contain(Ic($"{frames} of {frames} raw-address frame(s) (100.0 %)")));
        Assert.That(warning, Does.Contain(Ic($"{beyond} at an RVA beyond 4 GB")));
        Assert.That(warning, Does.Contain("most in ntdll.dll"));
        Assert.That(warning, Does.Contain("another process lifetime").And.Contain("restarted"));
        Assert.That(none, Is.Zero);
        Assert.That(warning, Does.Not.Contain("in no module"));
    }

    [Test]
    public void ListOfAnotherLifetime_AddressesBelowItsLowestModule_WarnsThatTheyAreInNoModule()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong[] a = Addresses(Seed("A"), BasesB);
        (long none, _) = Outside(a, BasesA);
        Assert.That(none, Is.EqualTo(a.Length), "test setup: lifetime B lies below lifetime A's lowest base");

        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), a)],
            resolver.CreateSession(Map(BasesA))
        );

        Assert.That(
            MisfitWarning(r),
            Does.Contain(
                Ic($"{a.Length} of {a.Length} raw-address frame(s) (100.0 %) ")
                    + Ic($"lie outside their module ({none} in no module")
            )
        );
    }

    [Test]
    public void ListOfTheSameLifetime_NoWarning()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA))],
            resolver.CreateSession(Map(BasesA))
        );
        Assert.That(r.Inputs.Single().Resolution.Warnings, Has.None.Contains("does not fit"));
        Assert.That(r.Inputs.Single().Resolution.ModuleListFit!.Outside, Is.Zero);
        Assert.That(r.Inputs.Single().Resolution.ModuleListFit!.Checked, Is.EqualTo(Seed("A").Count));
    }

    [Test]
    public void AFewFramesOutsideEveryModule_StayBelowTheThreshold_AndAreOnlyCountedAsUnresolved()
    {
        // Four frames of code outside every image (below the lowest base) beside a correctly placed stack: fewer than
        // ModuleListFit.MinMisfitFrames, so not a wrong list.
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        ulong low = BasesA.Values.Min() - 0x100000;
        ulong[] jit = [low, low + 0x10, low + 0x20, low + 0x30];
        Assert.That(jit.Length, Is.LessThan(ModuleListFit.MinMisfitFrames));
        StackBucketResult r = new StackBucketAnalysis().Analyze(
            [_c.Latch(At(0), Addresses(Seed("A"), BasesA)), _c.Latch(At(1), jit)],
            resolver.CreateSession(Map(BasesA))
        );

        ResolutionSummary s = r.Inputs.Single().Resolution;
        Assert.That(s.Warnings, Has.None.Contains("does not fit"));
        Assert.That(s.ModuleListFit!.InNoModule, Is.EqualTo(jit.Length));
        Assert.That(
            s.UnresolvedGroups.Where(g => g.Reason == UnresolvedReason.NoModuleForAddress).Sum(g => g.Count),
            Is.EqualTo(jit.Length)
        );
    }

    [Test]
    public void ListOfAnotherLifetime_ReadThroughACaptureSource_WarnsOnTheRunToo()
    {
        string dir = _tmp.Path;
        string xel = Path.Combine(dir, "latch_0_133612345678900000.xel");
        _c.WriteXel(xel, [_c.Latch(At(0), Addresses(Seed("A"), BasesA))]);
        File.WriteAllText(Path.Combine(dir, "latch.modules.txt"), ModuleList(BasesB));
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var context = new AnalysisContext(resolver: resolver);

        AnalysisOutcome<StackBucketResult> outcome = new StackBucketAnalysis().Analyze(
            CaptureSource.Open([xel]),
            context
        );

        int n = Seed("A").Count;
        Assert.That(
            context.Diagnostics.Warnings,
            Has.One.EqualTo(
                Ic($"{xel}: the module list {Path.Combine(dir, "latch.modules.txt")} does not fit the raw addresses ")
                    + Ic($"({n} of {n} raw-address frame(s), 100.0 %, lie outside their module): ")
                    + "from another process lifetime? See the resolution summary"
            )
        );
        Assert.That(outcome.Result.Inputs.Single().Resolution.Warnings, Has.One.Contains("does not fit"));
    }
}

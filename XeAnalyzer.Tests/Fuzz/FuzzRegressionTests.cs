using System.Collections.Concurrent;
using XeAnalyzer.Fuzz;

namespace XeAnalyzer.Tests.Fuzz;

/// <summary>
/// Every input kept in <c>TestData/fuzz/&lt;target&gt;/</c> (findings of the fuzzer and of the reliability campaign,
/// once fixed) goes through the fuzzer's own harness: the readers and the <c>xeanalyze</c> commands, with the same hang
/// and memory limits. None may cause an internal error, a hang or unbounded allocation again.
/// </summary>
public sealed class FuzzRegressionTests
{
    private static readonly ConcurrentDictionary<string, FuzzTarget> Targets = new(StringComparer.Ordinal);
    private string _work = null!;

    private static string Folder => Path.Combine(TestPaths.TestData, "fuzz");

    [SetUp]
    public void SetUp() => _work = Path.Combine(Path.GetTempPath(), "xea-fuzzreg-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void TearDown()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    public static IEnumerable<TestCaseData> KeptInputs() =>
        Directory
            .GetFiles(Folder, "*.bin", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(Folder, f).Replace(Path.DirectorySeparatorChar, '/'))
            .Order(StringComparer.Ordinal)
            .Select(r => new TestCaseData(r).SetName("KeptInput(" + r + ")"));

    private static FuzzTarget Target(string name) =>
        Targets.GetOrAdd(name, n => FuzzTarget.Create(n, TestPaths.RepoRoot));

    [TestCaseSource(nameof(KeptInputs))]
    public void KeptInput_CausesNoInternalErrorHangOrUnboundedMemory(string relative)
    {
        string target = relative.Split('/')[0];
        string path = Path.Combine(Folder, relative);
        FuzzTarget t = Target(target);
        var runner = new FuzzRunner(_work, TimeSpan.FromSeconds(60), 512L << 20);
        FuzzVerdict verdict = runner.RunOne(t, FuzzRunner.SeedOfFile(t, path), File.ReadAllBytes(path));
        Assert.That(verdict.Kind, Is.EqualTo(FindingKind.None), verdict.Detail);
    }

    [Test]
    public void TheFolder_NamesOnlyKnownTargets_AndHoldsTheReportedPdbCase()
    {
        Assert.That(Directory.GetDirectories(Folder).Select(Path.GetFileName), Is.SubsetOf(FuzzTarget.Names));
        Assert.That(
            KeptInputs().Select(c => (string)c.Arguments[0]!),
            Does.Contain("pdb/sqlmin-stripped.directory-block-ffffffff.bin")
        );
    }

    [Test]
    public void Inputs_AreTheSameBytes_ForTheSameSeedAndIteration()
    {
        foreach (string name in FuzzTarget.Names)
        {
            FuzzTarget t = Target(name);
            for (long i = 0; i < 50; i++)
            {
                byte[] a = FuzzRunner.Input(t, 13, i, out FuzzSeed sa);
                byte[] b = FuzzRunner.Input(t, 13, i, out FuzzSeed sb);
                Assert.That(b, Is.EqualTo(a), $"{name} iteration {i}");
                Assert.That(sb.Name, Is.EqualTo(sa.Name));
            }

            bool differs = Enumerable
                .Range(0, 10)
                .Any(i => !FuzzRunner.Input(t, 14, i, out _).AsSpan().SequenceEqual(FuzzRunner.Input(t, 13, i, out _)));
            Assert.That(differs, Is.True, name + ": another seed gives other inputs");
        }
    }

    [Test]
    public void Harness_CountsAnExceptionOutsideTheFamily_ButNotABadInputError()
    {
        Directory.CreateDirectory(_work);
        var run = new FuzzExecution(Path.GetFullPath(_work));
        run.Library("clean", () => throw new InvalidPdbDataException("x.pdb", 4, "expected something"));
        Assert.That(run.Problems, Is.Empty);
        run.Library("bug", () => throw new OverflowException("Arithmetic operation resulted in an overflow."));
        Assert.That(run.Problems.Single(), Does.StartWith("bug: OverflowException"));
    }
}

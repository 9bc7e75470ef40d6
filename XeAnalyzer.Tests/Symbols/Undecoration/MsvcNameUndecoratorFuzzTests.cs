using System.Text;
using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// Hostile and random input: the undecorator must never throw, never recurse without bound, and stay fast.
/// Inputs are derived from the committed corpus (truncations, byte flips) and from a seeded random generator over the
/// decoration alphabet, so failures reproduce.
/// </summary>
[TestFixture]
public sealed class MsvcNameUndecoratorFuzzTests
{
    private const string Alphabet = "?@$0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcxyz<>";

    private static List<string> CorpusNames()
    {
        string path = Path.Combine(TestPaths.TestData, "undname", "clang-corpus.tsv");
        return File.ReadLines(path).Where(l => l.Length > 0 && l[0] != '#').Select(l => l.Split('\t')[1]).ToList();
    }

    [Test]
    public void TryUndecorate_NeverThrows_ForEveryTruncationOfCorpusNames()
    {
        int calls = 0;
        foreach (string name in CorpusNames())
        {
            for (int len = 0; len <= name.Length; len++)
            {
                string input = name[..len];
                Assert.That(() => MsvcNameUndecorator.TryUndecorate(input, out _), Throws.Nothing, input);
                calls++;
            }
        }

        Assert.That(calls, Is.GreaterThan(5000));
    }

    [Test]
    public void TryUndecorate_NeverThrows_ForRandomMutationsOfCorpusNames()
    {
        var random = new Random(20240611);
        List<string> names = CorpusNames();
        for (int i = 0; i < 20000; i++)
        {
            char[] chars = names[random.Next(names.Count)].ToCharArray();
            int edits = 1 + random.Next(4);
            for (int e = 0; e < edits && chars.Length > 0; e++)
            {
                chars[random.Next(chars.Length)] = Alphabet[random.Next(Alphabet.Length)];
            }

            string input = new(chars);
            bool ok = MsvcNameUndecorator.TryUndecorate(input, out string result);
            Assert.That(result, Is.Not.Null);
            if (!ok)
            {
                Assert.That(result, Is.EqualTo(input));
            }
        }
    }

    [Test]
    public void TryUndecorate_NeverThrows_ForRandomStringsOverTheDecorationAlphabet()
    {
        var random = new Random(7);
        var sb = new StringBuilder();
        for (int i = 0; i < 20000; i++)
        {
            sb.Clear().Append('?');
            int len = random.Next(1, 80);
            for (int j = 0; j < len; j++)
            {
                sb.Append(Alphabet[random.Next(Alphabet.Length)]);
            }

            string input = sb.ToString();
            Assert.That(() => MsvcNameUndecorator.TryUndecorate(input, out _), Throws.Nothing, input);
        }
    }

    [TestCase(Description = "100 000 nested pointers")]
    public void TryUndecorate_ReturnsFalseQuickly_ForDeepPointerNesting()
    {
        string input = "?f@@YAX" + string.Concat(Enumerable.Repeat("PA", 100_000)) + "H@Z";
        AssertRefused(input);
    }

    [Test]
    public void TryUndecorate_ReturnsFalseQuickly_ForDeepTemplateNesting()
    {
        string input = "?f@" + string.Concat(Enumerable.Repeat("?$A@V", 20_000)) + "@@YAXXZ";
        AssertRefused(input);
    }

    [Test]
    public void TryUndecorate_ReturnsFalseQuickly_ForNestedSymbolsInScopes()
    {
        string input = string.Concat(Enumerable.Repeat("?x@?1?", 20_000)) + "?f@@YAXXZ@4HA";
        AssertRefused(input);
    }

    [Test]
    public void TryUndecorate_ReturnsFalseQuickly_WhenBackReferencesWouldExplode()
    {
        // Each parameter type is a function pointer taking the previous one nine times: rendered, it would double
        // per level many times over; the output cap refuses it.
        var sb = new StringBuilder("?f@@YAX");
        sb.Append("P6AXH@Z");
        for (int level = 0; level < 9; level++)
        {
            sb.Append("P6AX")
                .Append(
                    string.Concat(
                        Enumerable.Repeat(level.ToString(System.Globalization.CultureInfo.InvariantCulture), 9)
                    )
                )
                .Append("@Z");
        }

        sb.Append("@Z");
        Assert.That(() => MsvcNameUndecorator.TryUndecorate(sb.ToString(), out _), Throws.Nothing);
    }

    [Test]
    public void TryUndecorate_ReturnsFalse_WhenInputExceedsTheLengthLimit()
    {
        string input = "?" + new string('a', MsvcNameUndecorator.MaxDecoratedLength) + "@@3HA";
        Assert.That(MsvcNameUndecorator.TryUndecorate(input, out string result), Is.False);
        Assert.That(result, Is.SameAs(input));
    }

    private static void AssertRefused(string input)
    {
        bool ok = true;
        Assert.That(() => ok = MsvcNameUndecorator.TryUndecorate(input, out _), Throws.Nothing);
        Assert.That(ok, Is.False);
    }
}

using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// Random stacks over frame names that test ordering and escaping (names that start other names, separators, control
/// characters, a surrogate pair), each stack's weights summed per root-first path by a plain dictionary: the
/// independent figures the call tree and its writers are checked against.
/// </summary>
internal sealed class RandomStacks
{
    public static readonly string[] Names =
    [
        "a",
        "a!b",
        "a b",
        "a;b",
        "a:b",
        "a:c",
        "A",
        "",
        "b\tc",
        "\u00e9t\u00e9",
        "z",
        "a\u0001",
        "sqlmin.dll+0x1",
        "sqlmin.dll+0x10",
        "\U0001F600",
    ];

    public RandomStacks(int seed, int count, bool withBaseline)
    {
        var random = new Random(seed);
        for (int s = 0; s < count; s++)
        {
            string[] leafFirst =
            [
                .. Enumerable.Range(0, random.Next(0, 6)).Select(_ => Names[random.Next(Names.Length)]),
            ];
            long weight = random.Next(0, 6);
            long baseline = withBaseline ? random.Next(0, 4) : 0;
            Stacks.Add((leafFirst, weight, baseline));
            string key = Key(leafFirst.Reverse());
            (long w, long b) = SelfByPath.GetValueOrDefault(key);
            SelfByPath[key] = (w + weight, b + baseline);
            string[] rootFirst = [.. leafFirst.Reverse()];
            for (int depth = 0; depth <= rootFirst.Length; depth++)
            {
                string prefix = Key(rootFirst.Take(depth));
                (long iw, long ib) = InclusiveByPath.GetValueOrDefault(prefix);
                InclusiveByPath[prefix] = (iw + weight, ib + baseline);
            }
        }
    }

    /// <summary>The stacks as added: frames leaf first, weight, baseline weight.</summary>
    public List<(string[] LeafFirst, long Weight, long Baseline)> Stacks { get; } = [];

    /// <summary>The summed weights of the stacks of each root-first path (see <see cref="Key"/>).</summary>
    public Dictionary<string, (long Weight, long Baseline)> SelfByPath { get; } = new(StringComparer.Ordinal);

    /// <summary>The summed weights of the stacks through each root-first path, the empty path for all.</summary>
    public Dictionary<string, (long Weight, long Baseline)> InclusiveByPath { get; } = new(StringComparer.Ordinal);

    /// <summary>The call tree of the stacks, built by <see cref="CallTreeBuilder.AddStack"/>.</summary>
    public CallTree Tree()
    {
        var b = new CallTreeBuilder();
        foreach ((string[] leafFirst, long weight, long baseline) in Stacks)
        {
            b.AddStack(leafFirst, weight, baseline);
        }

        return b.Build();
    }

    /// <summary>A path as one dictionary key: each name after a U+0000, which no name holds (so the path of one empty
    /// name is not the empty path).</summary>
    public static string Key(IEnumerable<string> rootFirst) => string.Concat(rootFirst.Select(n => "\u0000" + n));

    public static string[] Path(string key) => key.Length == 0 ? [] : key[1..].Split('\u0000');
}

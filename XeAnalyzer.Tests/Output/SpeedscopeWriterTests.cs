using System.Text.Json;
using XeAnalyzer.Output;
using static XeAnalyzer.Tests.Output.OutputTestSupport;

namespace XeAnalyzer.Tests.Output;

internal sealed class SpeedscopeWriterTests
{
    private static CallTree Tree(WeightUnit unit = WeightUnit.Count)
    {
        var b = new CallTreeBuilder(unit);
        b.AddStack(["leaf", "mid", "main"], 5);
        b.AddStack(["mid", "main"], 2);
        b.AddStack(["leaf", "other", "main"], 3);
        b.AddStack(["leaf", "mid", "main"], 1);
        return b.Build();
    }

    /// <summary>The names of a file's shared frames, in order.</summary>
    private static string[] Frames(JsonElement file) =>
        [
            .. file.GetProperty("shared")
                .GetProperty("frames")
                .EnumerateArray()
                .Select(f => f.GetProperty("name").GetString()!),
        ];

    /// <summary>A profile's samples (frame indices, root first) and their weights.</summary>
    private static (int[][] Samples, long[] Weights) Samples(JsonElement profile) =>
        (
            [
                .. profile
                    .GetProperty("samples")
                    .EnumerateArray()
                    .Select(s => s.EnumerateArray().Select(i => i.GetInt32()).ToArray()),
            ],
            [.. profile.GetProperty("weights").EnumerateArray().Select(w => w.GetInt64())]
        );

    [Test]
    public void Write_WritesValidSampledProfile()
    {
        CallTree tree = Tree();
        using JsonDocument d = JsonDocument.Parse(
            Write(new SpeedscopeWriter(), ReportDocument.Of("latches", new FlameGraph(tree)))
        );
        JsonElement root = d.RootElement;
        Assert.That(
            root.GetProperty("$schema").GetString(),
            Is.EqualTo("https://www.speedscope.app/file-format-schema.json")
        );
        string[] frames =
        [
            .. root.GetProperty("shared")
                .GetProperty("frames")
                .EnumerateArray()
                .Select(f => f.GetProperty("name").GetString()!),
        ];
        Assert.That(frames, Is.Unique);
        Assert.That(frames, Is.EquivalentTo(new[] { "main", "mid", "leaf", "other" }));

        JsonElement profile = root.GetProperty("profiles").EnumerateArray().Single();
        Assert.That(profile.GetProperty("type").GetString(), Is.EqualTo("sampled"));
        Assert.That(profile.GetProperty("unit").GetString(), Is.EqualTo("none"));
        Assert.That(profile.GetProperty("name").GetString(), Is.EqualTo("latches"));
        Assert.That(profile.GetProperty("startValue").GetInt64(), Is.EqualTo(0));
        Assert.That(profile.GetProperty("endValue").GetInt64(), Is.EqualTo(11));
        (int[][] samples, long[] weights) = Samples(profile);
        Assert.That(samples, Has.Length.EqualTo(weights.Length));
        Assert.That(weights.Sum(), Is.EqualTo(tree.TotalWeight));
        Assert.That(samples.SelectMany(s => s), Is.All.InRange(0, frames.Length - 1));

        // Samples are root first: each path starts at "main" and each path appears once, with merged weights.
        var byPath = samples
            .Select((s, i) => (Path: string.Join(";", s.Select(f => frames[f])), Weight: weights[i]))
            .ToDictionary(p => p.Path, p => p.Weight);
        Assert.That(
            byPath,
            Is.EquivalentTo(
                new Dictionary<string, long>
                {
                    ["main;mid;leaf"] = 6,
                    ["main;mid"] = 2,
                    ["main;other;leaf"] = 3,
                }
            )
        );
    }

    [TestCase(WeightUnit.Count, "none")]
    [TestCase(WeightUnit.Bytes, "bytes")]
    [TestCase(WeightUnit.Milliseconds, "milliseconds")]
    [TestCase(WeightUnit.Microseconds, "microseconds")]
    [TestCase(WeightUnit.Duration, "none")]
    public void Write_WritesUnit_FromTree(WeightUnit unit, string expected)
    {
        using JsonDocument d = JsonDocument.Parse(Write(new SpeedscopeWriter(), Tree(unit)));
        Assert.That(d.RootElement.GetProperty("profiles")[0].GetProperty("unit").GetString(), Is.EqualTo(expected));
    }

    [Test]
    public void Write_KeepsHostileNamesIntact_AsJsonStrings()
    {
        var b = new CallTreeBuilder();
        foreach (string n in HostileNames)
        {
            b.AddStack([n], 1);
        }

        byte[] bytes = Write(new SpeedscopeWriter(), b.Build());
        Assert.That(Utf8(bytes), Does.Not.Contain("<script"));
        using JsonDocument d = JsonDocument.Parse(bytes);
        string[] frames = Frames(d.RootElement);
        Assert.That(frames, Does.Contain("<script>alert('x')</script>"));
        Assert.That(frames, Does.Contain("semi;colon;frame"));
        Assert.That(frames, Does.Contain("lone\uFFFDsurrogate"));
    }

    [Test]
    public void Write_WritesEmptyProfile_ForEmptyTree()
    {
        using JsonDocument d = JsonDocument.Parse(Write(new SpeedscopeWriter(), new CallTreeBuilder().Build()));
        JsonElement p = d.RootElement.GetProperty("profiles")[0];
        Assert.That(p.GetProperty("samples").GetArrayLength(), Is.EqualTo(0));
        Assert.That(p.GetProperty("weights").GetArrayLength(), Is.EqualTo(0));
        Assert.That(p.GetProperty("endValue").GetInt64(), Is.EqualTo(0));
    }

    [TestCase(21)]
    [TestCase(22)]
    public void Write_SamplesMatchPathsSummedByADictionary(int seed)
    {
        var stacks = new RandomStacks(seed, 500, withBaseline: false);
        using JsonDocument d = JsonDocument.Parse(Write(new SpeedscopeWriter(), stacks.Tree()));
        string[] frames = Frames(d.RootElement);
        JsonElement profile = d.RootElement.GetProperty("profiles")[0];
        (int[][] samples, long[] weights) = Samples(profile);
        var written = new Dictionary<string, long>(StringComparer.Ordinal);
        for (int i = 0; i < samples.Length; i++)
        {
            written.Add(RandomStacks.Key(samples[i].Select(f => frames[f])), weights[i]);
        }

        var expected = stacks
            .SelfByPath.Where(kv => kv.Value.Weight != 0)
            .ToDictionary(
                kv => RandomStacks.Key(RandomStacks.Path(kv.Key).Select(TextEscaping.Sanitize)),
                kv => kv.Value.Weight,
                StringComparer.Ordinal
            );
        Assert.That(frames, Is.Unique);
        Assert.That(written, Is.EquivalentTo(expected));
        Assert.That(profile.GetProperty("endValue").GetInt64(), Is.EqualTo(stacks.Stacks.Sum(s => s.Weight)));
    }
}

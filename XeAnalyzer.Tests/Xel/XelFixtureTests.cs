namespace XeAnalyzer.Tests.Xel;

/// <summary>The committed fixtures are exactly what the generators produce (same input, same bytes).</summary>
public sealed class XelFixtureTests
{
    private static IEnumerable<string> Names() => XelFixtures.All.Select(f => f.Name);

    [TestCaseSource(nameof(Names))]
    public void Generate_MatchesCommittedBytes_ForEachFixture(string name)
    {
        byte[] generated = XelFixtures.All.Single(f => f.Name == name).Generate();
        string path = XelFixtures.PathOf(name);
        if (Environment.GetEnvironmentVariable("XEANALYZER_REGEN_FIXTURES") == "1")
        {
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            File.WriteAllBytes(path, generated);
        }

        Assert.That(File.Exists(path), Is.True, "missing committed fixture " + path);
        Assert.That(generated, Is.EqualTo(File.ReadAllBytes(path)), "fixture differs from its generator: " + name);
    }

    [Test]
    public void Generate_IsDeterministic_WhenRunTwice()
    {
        foreach ((string name, Func<byte[]> gen) in XelFixtures.All)
        {
            byte[] first = gen();
            byte[] second = gen();
            Assert.That(second, Is.EqualTo(first), name);
        }
    }
}

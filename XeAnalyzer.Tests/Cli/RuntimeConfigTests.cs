using System.Text.Json;

namespace XeAnalyzer.Tests.Cli;

/// <summary>The runtime settings xeanalyze ships with (Directory.Build.targets, one place for every executable), read from the runtimeconfig.json the build writes beside it.</summary>
[TestFixture]
public sealed class RuntimeConfigTests
{
    [Test]
    public void XeanalyzePromotesHotMethodsWithoutTheTieringDelay()
    {
        string path = Path.ChangeExtension(CliRunner.CliDll, ".runtimeconfig.json");
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllText(path));
        JsonElement properties = doc.RootElement.GetProperty("runtimeOptions").GetProperty("configProperties");
        Assert.That(properties.TryGetProperty("System.Runtime.TieredCompilation.CallCountingDelayMs", out JsonElement delay), Is.True, path);
        Assert.That(delay.GetInt32(), Is.Zero, path);
    }

    [Test]
    public void XeanalyzeKeepsArraysUpToOneMegabyteOffTheLargeObjectHeap()
    {
        string path = Path.ChangeExtension(CliRunner.CliDll, ".runtimeconfig.json");
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllText(path));
        JsonElement properties = doc.RootElement.GetProperty("runtimeOptions").GetProperty("configProperties");
        Assert.That(properties.TryGetProperty("System.GC.LOHThreshold", out JsonElement threshold), Is.True, path);
        Assert.That(threshold.GetInt32(), Is.EqualTo(1 << 20), path);
    }

    [Test]
    public void TheTestHostRunsWithTheSameSetting()
    {
        // The runtime hands runtimeconfig properties to the process as AppContext data: the tests run under what xeanalyze runs under.
        Assert.That(AppContext.GetData("System.Runtime.TieredCompilation.CallCountingDelayMs")?.ToString(), Is.EqualTo("0"));
    }
}

using System.Text.Json;

namespace XeAnalyzer.Tests.Cli;

/// <summary>The runtime settings xeanalyze ships with (Directory.Build.targets), read from the runtimeconfig.json the build writes beside it.</summary>
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
    public void TheTestHostRunsWithTheSameSetting()
    {
        // The runtime hands runtimeconfig properties to the process as AppContext data: the tests run under what xeanalyze runs under.
        Assert.That(AppContext.GetData("System.Runtime.TieredCompilation.CallCountingDelayMs")?.ToString(), Is.EqualTo("0"));
    }
}

using System.Text.Json;

namespace XeAnalyzer.Tests.Cli;

/// <summary>The runtime settings xeanalyze ships with (Directory.Build.targets, one place for every executable), read
/// from the runtimeconfig.json the build writes beside it.</summary>
[TestFixture]
public sealed class RuntimeConfigTests
{
    // Hot methods promoted without the 100 ms tiering delay, lukewarm ones not at all; arrays up to 1 MB kept off the
    // large-object heap.
    [TestCase("System.Runtime.TieredCompilation.CallCountingDelayMs", 0)]
    [TestCase("System.Runtime.TieredCompilation.CallCountThreshold", 1000)]
    [TestCase("System.GC.LOHThreshold", 1 << 20)]
    public void XeanalyzeShipsWith(string setting, int value)
    {
        string path = Path.ChangeExtension(CliRunner.CliDll, ".runtimeconfig.json");
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllText(path));
        JsonElement properties = doc.RootElement.GetProperty("runtimeOptions").GetProperty("configProperties");
        Assert.That(properties.TryGetProperty(setting, out JsonElement actual), Is.True, path);
        Assert.That(actual.GetInt32(), Is.EqualTo(value), path);

        // The runtime hands runtimeconfig properties to the process as AppContext data: the tests run under what
        // xeanalyze runs under.
        Assert.That(
            AppContext.GetData(setting)?.ToString(),
            Is.EqualTo(value.ToString(System.Globalization.CultureInfo.InvariantCulture))
        );
    }
}

namespace XeAnalyzer.Tests.Browser;

/// <summary>
/// A fixture whose tests share one headless Chromium and a temporary folder (both removed after its last test). Fails
/// on CI and is ignored elsewhere when Chromium is missing (<see cref="BrowserRequirement"/>).
/// </summary>
public abstract class ChromiumFixture
{
    private HeadlessChromium? _browser;

    /// <summary>The fixture's browser.</summary>
    internal HeadlessChromium Browser => _browser ?? throw new InvalidOperationException("The browser is not started.");

    /// <summary>The fixture's temporary folder.</summary>
    protected string WorkFolder { get; private set; } = string.Empty;

    [OneTimeSetUp]
    public async Task StartBrowser()
    {
        string exe = BrowserRequirement.RequireChromium();
        WorkFolder = Directory.CreateTempSubdirectory("xea-browser-tests-").FullName;
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        _browser = await HeadlessChromium.LaunchAsync(exe, cts.Token);
    }

    [OneTimeTearDown]
    public async Task StopBrowser()
    {
        if (_browser is not null)
        {
            await _browser.DisposeAsync();
        }

        if (Directory.Exists(WorkFolder))
        {
            Directory.Delete(WorkFolder, recursive: true);
        }
    }
}

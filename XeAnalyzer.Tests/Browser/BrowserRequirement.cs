namespace XeAnalyzer.Tests.Browser;

/// <summary>Chromium for the browser tests, under the <see cref="ToolRequirement"/> policy (fail on CI, ignore
/// elsewhere).</summary>
internal static class BrowserRequirement
{
    public const string MissingMessage =
        "Chromium was not found (looked for XEANALYZER_CHROMIUM, then chromium, chromium-browser, google-chrome on "
        + "PATH and in /usr/bin). "
        + "Install the Debian 'chromium' package (apt-get install chromium) to run the browser rendering tests.";

    /// <summary>Returns the Chromium executable, or fails (CI=true) or ignores the test with the reason.</summary>
    public static string RequireChromium()
    {
        string? exe = HeadlessChromium.FindExecutable();
        ToolRequirement.Require(exe is not null, MissingMessage);
        return exe!;
    }
}

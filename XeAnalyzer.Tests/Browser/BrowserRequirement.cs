namespace XeAnalyzer.Tests.Browser;

/// <summary>Decides what a browser test does when Chromium is missing: fail on CI, be ignored (with the reason) elsewhere.</summary>
internal static class BrowserRequirement
{
    public static string RequireChromium()
    {
        string? exe = HeadlessChromium.FindExecutable();
        if (exe is not null)
        {
            return exe;
        }

        const string message = "Chromium was not found (looked for XEANALYZER_CHROMIUM, then chromium, chromium-browser, google-chrome on PATH and in /usr/bin). " +
                               "Install the Debian 'chromium' package (apt-get install chromium) to run the browser rendering tests.";
        if (string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase))
        {
            Assert.Fail(message + " CI=true, so this is a failure, not a skip.");
        }

        Assert.Ignore(message);
        return string.Empty;
    }
}

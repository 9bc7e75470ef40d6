namespace XeAnalyzer.Tests.Browser;

/// <summary>What a browser test does when Chromium is missing: fail on CI, be ignored (with the reason) elsewhere.</summary>
internal static class BrowserRequirement
{
    public const string MissingMessage =
        "Chromium was not found (looked for XEANALYZER_CHROMIUM, then chromium, chromium-browser, google-chrome on PATH and in /usr/bin). " +
        "Install the Debian 'chromium' package (apt-get install chromium) to run the browser rendering tests.";

    /// <summary>What to do.</summary>
    public enum Outcome
    {
        Run,
        Fail,
        Ignore,
    }

    /// <summary>The decision, separated from NUnit so it can be tested.</summary>
    public static Outcome Decide(string? executable, string? ciVariable) =>
        executable is not null ? Outcome.Run
        : string.Equals(ciVariable, "true", StringComparison.OrdinalIgnoreCase) ? Outcome.Fail
        : Outcome.Ignore;

    /// <summary>Returns the Chromium executable, or fails (CI=true) or ignores the test with the reason.</summary>
    public static string RequireChromium()
    {
        string? exe = HeadlessChromium.FindExecutable();
        switch (Decide(exe, Environment.GetEnvironmentVariable("CI")))
        {
            case Outcome.Fail:
                Assert.Fail(MissingMessage + " CI=true, so this is a failure, not a skip.");
                break;
            case Outcome.Ignore:
                Assert.Ignore(MissingMessage);
                break;
        }

        return exe!;
    }
}

using System.Diagnostics;

namespace XeAnalyzer.Tests.Browser;

/// <summary>Tests of the harness itself: it fails rather than hangs, cleans up, and reports a missing browser correctly.</summary>
[NonParallelizable]
public class BrowserHarnessTests
{
    [TestCase("/usr/bin/chromium", null, "Run")]
    [TestCase("/usr/bin/chromium", "true", "Run")]
    [TestCase(null, "true", "Fail")]
    [TestCase(null, "TRUE", "Fail")]
    [TestCase(null, null, "Ignore")]
    [TestCase(null, "false", "Ignore")]
    public void Decide_FailsOnCi_IgnoresElsewhere_WhenChromiumMissing(string? exe, string? ci, string expected)
    {
        Assert.That(ToolRequirement.Decide(exe is not null, ci).ToString(), Is.EqualTo(expected));
    }

    [Test]
    [CancelAfter(120_000)]
    public async Task NavigateAsync_TimesOut_OnPageThatNeverLoads_AndDisposeKillsBrowser(CancellationToken cancellationToken)
    {
        string exe = BrowserRequirement.RequireChromium();
        string dir = Directory.CreateTempSubdirectory("xea-hang-").FullName;
        try
        {
            string path = Path.Combine(dir, "hang.html");
            await File.WriteAllTextAsync(path, "<!DOCTYPE html><html><head><title>hang</title></head><body><script>while (true) {}</script></body></html>", cancellationToken);
            HeadlessChromium browser = await HeadlessChromium.LaunchAsync(exe, cancellationToken);
            int pid = BrowserPid(browser);
            var sw = Stopwatch.StartNew();
            try
            {
                ChromiumPage page = await browser.OpenPageAsync(cancellationToken);
                Assert.ThrowsAsync<TimeoutException>(() => page.NavigateAsync(path, cancellationToken, TimeSpan.FromSeconds(3)));
                Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(40)), "the stuck page fails the call instead of hanging it");
            }
            finally
            {
                await browser.DisposeAsync();
            }

            Assert.That(ProcessExists(pid), Is.False, "the browser process is gone after dispose");
            Assert.That(Directory.GetDirectories(Path.GetTempPath(), "xea-chromium-*").Any(d => d.EndsWith(browser.ProfileName, StringComparison.Ordinal)), Is.False,
                "the temporary profile is deleted");
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static int BrowserPid(HeadlessChromium browser) => browser.ProcessId;

    private static bool ProcessExists(int pid)
    {
        try
        {
            using Process p = Process.GetProcessById(pid);
            return !p.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}

using System.Diagnostics;

namespace XeAnalyzer.Tests.Browser;

/// <summary>Tests of the harness itself: it fails rather than hangs, cleans up, and reports a missing browser
/// correctly.</summary>
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
    public async Task NavigateAsync_TimesOut_OnPageThatNeverLoads_AndDisposeEndsBrowser(
        CancellationToken cancellationToken
    )
    {
        string exe = BrowserRequirement.RequireChromium();
        string dir = Directory.CreateTempSubdirectory("xea-hang-").FullName;
        try
        {
            string path = Path.Combine(dir, "hang.html");
            await File.WriteAllTextAsync(
                path,
                "<!DOCTYPE html><html><head><title>hang</title></head><body><script>while (true) "
                    + "{}</script></body></html>",
                cancellationToken
            );
            HeadlessChromium browser = await HeadlessChromium.LaunchAsync(exe, cancellationToken);
            Assert.That(
                ProcessesNaming(browser.ProfileDirectory),
                Is.Not.Empty,
                "the browser runs with the temporary profile"
            );
            try
            {
                ChromiumPage page = await browser.OpenPageAsync(cancellationToken);
                Assert.ThrowsAsync<TimeoutException>(
                    () => page.NavigateAsync(path, cancellationToken, TimeSpan.FromSeconds(3)),
                    "the stuck page fails the call instead of hanging it"
                );
            }
            finally
            {
                await browser.DisposeAsync();
            }

            Assert.That(
                ProcessesNaming(browser.ProfileDirectory),
                Is.Empty,
                "no browser process is left after dispose"
            );
            Assert.That(Directory.Exists(browser.ProfileDirectory), Is.False, "the temporary profile is deleted");
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>Ids of the processes whose command line contains <paramref name="text"/> (Linux /proc).</summary>
    private static List<int> ProcessesNaming(string text)
    {
        var found = new List<int>();
        foreach (string d in Directory.GetDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(d), out int pid))
            {
                continue;
            }

            try
            {
                if (File.ReadAllText(Path.Combine(d, "cmdline")).Contains(text, StringComparison.Ordinal))
                {
                    found.Add(pid);
                }
            }
            catch (IOException)
            {
                // the process ended while we looked
            }
            catch (UnauthorizedAccessException) { }
        }

        return found;
    }
}

using System.Text.Json;
using Microsoft.Playwright;

namespace XeAnalyzer.Tests.Browser;

/// <summary>A console message or uncaught exception a page produced.</summary>
internal sealed record BrowserMessage(string Source, string Level, string Text)
{
    public override string ToString() => $"[{Source}/{Level}] {Text}";
}

/// <summary>
/// Headless Chromium for the tests, driven by Microsoft.Playwright: Playwright's bundled driver (a NuGet package file)
/// launches the system's Chromium (Debian's <c>/usr/bin/chromium</c>; nothing is downloaded) on a new temporary
/// profile. Every call has a timeout, so a hung browser fails the test instead of hanging the run; disposing closes the
/// browser and deletes the profile.
/// </summary>
internal sealed class HeadlessChromium : IAsyncDisposable
{
    /// <summary>The default limit for one page load or script.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);

    private readonly IPlaywright _playwright;
    private readonly IBrowserContext _context;
    private int _disposed;

    private HeadlessChromium(IPlaywright playwright, IBrowserContext context, string profileDirectory)
    {
        _playwright = playwright;
        _context = context;
        ProfileDirectory = profileDirectory;
    }

    /// <summary>The temporary profile directory (deleted on dispose); the browser's command line names it.</summary>
    public string ProfileDirectory { get; }

    /// <summary>Finds a Chromium executable: <c>XEANALYZER_CHROMIUM</c>, then chromium, chromium-browser, google-chrome
    /// on the PATH.</summary>
    public static string? FindExecutable()
    {
        string? env = Environment.GetEnvironmentVariable("XEANALYZER_CHROMIUM");
        if (!string.IsNullOrEmpty(env))
        {
            return File.Exists(env) ? env : null;
        }

        string[] dirs = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(
            Path.PathSeparator,
            StringSplitOptions.RemoveEmptyEntries
        );
        foreach (string name in new[] { "chromium", "chromium-browser", "google-chrome", "google-chrome-stable" })
        {
            foreach (string dir in dirs.Append("/usr/bin"))
            {
                string candidate = Path.Combine(dir, name);
                if (File.Exists(candidate))
                {
                    return candidate;
                }
            }
        }

        return null;
    }

    /// <summary>Starts the browser (headless, no sandbox: the tests run as root in CI) with a new temporary
    /// profile.</summary>
    public static async Task<HeadlessChromium> LaunchAsync(string executable, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        string profile = Directory.CreateTempSubdirectory("xea-chromium-").FullName;
        IPlaywright? playwright = null;
        try
        {
            playwright = await Playwright.CreateAsync().ConfigureAwait(false);
            IBrowserContext context = await playwright
                .Chromium.LaunchPersistentContextAsync(
                    profile,
                    new BrowserTypeLaunchPersistentContextOptions
                    {
                        ExecutablePath = executable,
                        Headless = true,
                        Args =
                        [
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-quic",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync",
                        ],
                        Timeout = (float)TimeSpan.FromSeconds(60).TotalMilliseconds,
                    }
                )
                .WaitAsync(cancellationToken)
                .ConfigureAwait(false);
            return new HeadlessChromium(playwright, context, profile);
        }
        catch
        {
            playwright?.Dispose();
            DeleteProfile(profile);
            throw;
        }
    }

    /// <summary>Opens a new page (tab) that records its console errors and warnings and uncaught exceptions.</summary>
    public async Task<ChromiumPage> OpenPageAsync(CancellationToken cancellationToken)
    {
        IPage page = await _context.NewPageAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        return new ChromiumPage(page);
    }

    /// <summary>Closes the browser and deletes the temporary profile.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        try
        {
            await _context.CloseAsync().WaitAsync(DefaultTimeout).ConfigureAwait(false);
        }
        finally
        {
            _playwright.Dispose();
            DeleteProfile(ProfileDirectory);
        }
    }

    private static void DeleteProfile(string profile)
    {
        for (int attempt = 0; attempt < 10 && Directory.Exists(profile); attempt++)
        {
            try
            {
                Directory.Delete(profile, recursive: true);
            }
            catch (IOException)
            {
                Thread.Sleep(100); // the browser may still be writing as it exits
            }
        }
    }
}

/// <summary>One page of a <see cref="HeadlessChromium"/>.</summary>
internal sealed class ChromiumPage
{
    private readonly IPage _page;
    private readonly Lock _lock = new();
    private readonly List<BrowserMessage> _problems = [];

    public ChromiumPage(IPage page)
    {
        _page = page;
        _page.Console += (_, m) =>
        {
            if (m.Type is "error" or "warning" or "assert")
            {
                lock (_lock)
                {
                    _problems.Add(new BrowserMessage("console", m.Type, m.Text));
                }
            }
        };
        _page.PageError += (_, e) =>
        {
            lock (_lock)
            {
                _problems.Add(new BrowserMessage("exception", "error", e));
            }
        };
    }

    /// <summary>Console errors, warnings and assertion failures (the page's own and the browser's, such as blocked
    /// loads) and uncaught exceptions so far.</summary>
    public IReadOnlyList<BrowserMessage> Problems()
    {
        lock (_lock)
        {
            return [.. _problems];
        }
    }

    /// <summary>Navigates to a local file and waits for its load event.</summary>
    /// <exception cref="TimeoutException">The load event did not fire within the limit.</exception>
    public Task NavigateAsync(string path, CancellationToken cancellationToken, TimeSpan? loadTimeout = null) =>
        NavigateToAsync(new Uri(Path.GetFullPath(path)), cancellationToken, loadTimeout);

    /// <summary>Navigates to a URL (a local file or a server on 127.0.0.1) and waits for its load event.</summary>
    /// <exception cref="TimeoutException">The load event did not fire within the limit.</exception>
    public async Task NavigateToAsync(Uri location, CancellationToken cancellationToken, TimeSpan? loadTimeout = null)
    {
        TimeSpan limit = loadTimeout ?? HeadlessChromium.DefaultTimeout;
        string url = location.AbsoluteUri;
        try
        {
            await _page
                .GotoAsync(
                    url,
                    new PageGotoOptions { WaitUntil = WaitUntilState.Load, Timeout = (float)limit.TotalMilliseconds }
                )
                .WaitAsync(cancellationToken)
                .ConfigureAwait(false);
        }
        catch (TimeoutException ex)
        {
            throw new TimeoutException($"{url} did not fire its load event within {limit.TotalSeconds:0.#} s.", ex);
        }

        // Console messages and errors raised before the load event are delivered before this evaluation's reply.
        await EvaluateAsync("1", cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Evaluates an expression in the page and returns its value as JSON.stringify gives it (non-finite numbers become
    /// null; undefined gives an undefined element); a script exception fails.
    /// </summary>
    public async Task<JsonElement> EvaluateAsync(string expression, CancellationToken cancellationToken)
    {
        string? json = await _page
            .EvaluateAsync<string?>("JSON.stringify((" + expression + "))")
            .WaitAsync(HeadlessChromium.DefaultTimeout, cancellationToken)
            .ConfigureAwait(false);
        return json is null ? default : JsonDocument.Parse(json).RootElement.Clone();
    }

    /// <summary>Sets the viewport's CSS size (the page lays itself out again).</summary>
    public Task SetViewportAsync(int width, int height, CancellationToken cancellationToken) =>
        _page.SetViewportSizeAsync(width, height).WaitAsync(HeadlessChromium.DefaultTimeout, cancellationToken);

    /// <summary>Captures a PNG of the top of the page: a viewport of the given CSS size.</summary>
    public async Task<byte[]> CaptureViewportAsync(int width, int height, CancellationToken cancellationToken)
    {
        await _page.SetViewportSizeAsync(width, height).WaitAsync(cancellationToken).ConfigureAwait(false);
        return await _page
            .ScreenshotAsync(new PageScreenshotOptions { Type = ScreenshotType.Png })
            .WaitAsync(HeadlessChromium.DefaultTimeout, cancellationToken)
            .ConfigureAwait(false);
    }

    /// <summary>Captures a PNG of the whole page at the given CSS width.</summary>
    public async Task<byte[]> CaptureFullPageAsync(int width, CancellationToken cancellationToken)
    {
        await _page.SetViewportSizeAsync(width, 900).WaitAsync(cancellationToken).ConfigureAwait(false);
        return await _page
            .ScreenshotAsync(new PageScreenshotOptions { FullPage = true, Type = ScreenshotType.Png })
            .WaitAsync(HeadlessChromium.DefaultTimeout, cancellationToken)
            .ConfigureAwait(false);
    }
}

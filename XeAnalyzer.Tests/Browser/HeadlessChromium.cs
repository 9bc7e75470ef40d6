using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net.WebSockets;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Tests.Browser;

/// <summary>A console message, uncaught exception or log entry a page produced.</summary>
internal sealed record BrowserMessage(string Source, string Level, string Text)
{
    public override string ToString() => $"[{Source}/{Level}] {Text}";
}

/// <summary>An event received over the DevTools protocol.</summary>
internal sealed record CdpEvent(string Method, string? SessionId, JsonElement Params);

/// <summary>A failed DevTools protocol command.</summary>
internal sealed class CdpException(string message) : Exception(message);

/// <summary>
/// Runs headless Chromium for a test and talks to it over the Chrome DevTools Protocol (in-box
/// <see cref="ClientWebSocket"/>, flattened target sessions). Every wait has a timeout, so a hung browser fails the test
/// instead of hanging the run; disposing always kills the whole browser process tree and deletes its temporary profile.
/// </summary>
internal sealed partial class HeadlessChromium : IAsyncDisposable
{
    /// <summary>The default limit for one protocol command or page load.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);

    private const int MaxMessageBytes = 256 << 20;
    private readonly Process _process;
    private readonly string _profileDirectory;
    private readonly ClientWebSocket _socket = new();
    private readonly CancellationTokenSource _lifetime = new();
    private readonly ConcurrentDictionary<int, TaskCompletionSource<JsonElement>> _pending = new();
    private readonly SemaphoreSlim _sendLock = new(1, 1);
    private readonly Lock _eventLock = new();
    private readonly List<CdpEvent> _events = [];
    private readonly List<(Func<CdpEvent, bool> Match, TaskCompletionSource<CdpEvent> Done)> _waiters = [];
    private readonly StringBuilder _stderr = new();
    private Task? _receiveLoop;
    private int _nextId;
    private int _disposed;

    private HeadlessChromium(Process process, string profileDirectory)
    {
        _process = process;
        _profileDirectory = profileDirectory;
    }

    /// <summary>The id of the browser process.</summary>
    public int ProcessId { get; private init; }

    /// <summary>The name of the temporary profile directory (deleted on dispose).</summary>
    public string ProfileName => Path.GetFileName(_profileDirectory);

    /// <summary>The tail of the browser's standard error, for failure messages.</summary>
    public string StandardErrorTail
    {
        get
        {
            lock (_stderr)
            {
                string s = _stderr.ToString();
                return s.Length > 4000 ? s[^4000..] : s;
            }
        }
    }

    /// <summary>Finds a Chromium executable: <c>XEANALYZER_CHROMIUM</c>, then chromium, chromium-browser, google-chrome on the PATH.</summary>
    public static string? FindExecutable()
    {
        string? env = Environment.GetEnvironmentVariable("XEANALYZER_CHROMIUM");
        if (!string.IsNullOrEmpty(env))
        {
            return File.Exists(env) ? env : null;
        }

        string[] dirs = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
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

    /// <summary>Starts the browser with a new temporary profile and connects to its DevTools endpoint.</summary>
    public static async Task<HeadlessChromium> LaunchAsync(string executable, CancellationToken cancellationToken)
    {
        string profile = Directory.CreateTempSubdirectory("xea-chromium-").FullName;
        var psi = new ProcessStartInfo(executable)
        {
            UseShellExecute = false,
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            RedirectStandardInput = true,
        };
        foreach (string arg in new[]
        {
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile, "--remote-debugging-port=0", "about:blank",
        })
        {
            psi.ArgumentList.Add(arg);
        }

        Process process;
        try
        {
            process = Process.Start(psi) ?? throw new InvalidOperationException("Process.Start returned null for " + executable);
        }
        catch
        {
            TryDeleteDirectory(profile);
            throw;
        }

        var browser = new HeadlessChromium(process, profile) { ProcessId = process.Id };
        try
        {
            await browser.ConnectAsync(cancellationToken).ConfigureAwait(false);
            return browser;
        }
        catch
        {
            await browser.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Opens a new page (target) with the Page, Runtime and Log domains enabled.</summary>
    public async Task<ChromiumPage> OpenPageAsync(CancellationToken cancellationToken)
    {
        JsonElement created = await SendAsync("Target.createTarget", new JsonObject { ["url"] = "about:blank" }, null, cancellationToken).ConfigureAwait(false);
        string targetId = created.GetProperty("targetId").GetString()!;
        JsonElement attached = await SendAsync("Target.attachToTarget", new JsonObject { ["targetId"] = targetId, ["flatten"] = true }, null, cancellationToken).ConfigureAwait(false);
        string sessionId = attached.GetProperty("sessionId").GetString()!;
        var page = new ChromiumPage(this, sessionId);
        await SendAsync("Page.enable", null, sessionId, cancellationToken).ConfigureAwait(false);
        await SendAsync("Runtime.enable", null, sessionId, cancellationToken).ConfigureAwait(false);
        await SendAsync("Log.enable", null, sessionId, cancellationToken).ConfigureAwait(false);
        return page;
    }

    /// <summary>Sends a command and waits (with <see cref="DefaultTimeout"/>) for its result.</summary>
    public async Task<JsonElement> SendAsync(string method, JsonObject? parameters, string? sessionId, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        int id = Interlocked.Increment(ref _nextId);
        var done = new TaskCompletionSource<JsonElement>(TaskCreationOptions.RunContinuationsAsynchronously);
        _pending[id] = done;
        var message = new JsonObject { ["id"] = id, ["method"] = method, ["params"] = parameters ?? new JsonObject() };
        if (sessionId is not null)
        {
            message["sessionId"] = sessionId;
        }

        byte[] payload = Encoding.UTF8.GetBytes(message.ToJsonString());
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _lifetime.Token);
        timeout.CancelAfter(DefaultTimeout);
        try
        {
            await _sendLock.WaitAsync(timeout.Token).ConfigureAwait(false);
            try
            {
                await _socket.SendAsync(payload, WebSocketMessageType.Text, endOfMessage: true, timeout.Token).ConfigureAwait(false);
            }
            finally
            {
                _sendLock.Release();
            }

            return await done.Task.WaitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException($"DevTools command {method} got no answer within {DefaultTimeout.TotalSeconds:0} s. Browser stderr:\n{StandardErrorTail}");
        }
        finally
        {
            _pending.TryRemove(id, out _);
        }
    }

    /// <summary>Starts waiting for an event; register before triggering it.</summary>
    public Task<CdpEvent> WaitForEventAsync(Func<CdpEvent, bool> match)
    {
        var done = new TaskCompletionSource<CdpEvent>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_eventLock)
        {
            _waiters.Add((match, done));
        }

        return done.Task;
    }

    /// <summary>The events received so far for a session.</summary>
    public IReadOnlyList<CdpEvent> EventsFor(string sessionId)
    {
        lock (_eventLock)
        {
            return [.. _events.Where(e => e.SessionId == sessionId)];
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _lifetime.CancelAsync().ConfigureAwait(false);
        _socket.Abort();
        _socket.Dispose();
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
            }
        }
        catch (InvalidOperationException)
        {
            // Already exited.
        }

        using (var wait = new CancellationTokenSource(TimeSpan.FromSeconds(10)))
        {
            try
            {
                await _process.WaitForExitAsync(wait.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The kill was sent; do not hang the test run on a zombie.
            }
        }

        _process.Dispose();
        if (_receiveLoop is not null)
        {
            await Task.WhenAny(_receiveLoop, Task.Delay(TimeSpan.FromSeconds(5))).ConfigureAwait(false);
        }

        foreach (TaskCompletionSource<JsonElement> p in _pending.Values)
        {
            p.TrySetException(new ObjectDisposedException(nameof(HeadlessChromium)));
        }

        lock (_eventLock)
        {
            foreach ((_, TaskCompletionSource<CdpEvent> done) in _waiters)
            {
                done.TrySetException(new ObjectDisposedException(nameof(HeadlessChromium)));
            }

            _waiters.Clear();
        }

        TryDeleteDirectory(_profileDirectory);
        _lifetime.Dispose();
        _sendLock.Dispose();
    }

    [GeneratedRegex(@"DevTools listening on (ws://\S+)")]
    private static partial Regex ListeningLine();

    private static void TryDeleteDirectory(string path)
    {
        for (int attempt = 0; attempt < 10 && Directory.Exists(path); attempt++)
        {
            try
            {
                Directory.Delete(path, recursive: true);
            }
            catch (IOException)
            {
                Thread.Sleep(200);
            }
            catch (UnauthorizedAccessException)
            {
                Thread.Sleep(200);
            }
        }
    }

    private async Task ConnectAsync(CancellationToken cancellationToken)
    {
        var endpoint = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        _process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                return;
            }

            lock (_stderr)
            {
                if (_stderr.Length < 1 << 20)
                {
                    _stderr.AppendLine(e.Data);
                }
            }

            Match m = ListeningLine().Match(e.Data);
            if (m.Success)
            {
                endpoint.TrySetResult(m.Groups[1].Value);
            }
        };
        _process.OutputDataReceived += (_, _) => { };
        _process.EnableRaisingEvents = true;
        _process.Exited += (_, _) => endpoint.TrySetException(new InvalidOperationException(
            $"Chromium exited (code {SafeExitCode()}) before its DevTools endpoint was ready. stderr:\n{StandardErrorTail}"));
        _process.BeginErrorReadLine();
        _process.BeginOutputReadLine();

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(DefaultTimeout);
        string url;
        using (var stopPolling = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token))
        {
            try
            {
                // stderr normally announces the endpoint; the DevToolsActivePort file in the profile is the fallback.
                Task<string> fromFile = PollActivePortFileAsync(stopPolling.Token);
                Task<string> first = await Task.WhenAny(endpoint.Task, fromFile).WaitAsync(timeout.Token).ConfigureAwait(false);
                url = await first.ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException($"Chromium did not open its DevTools endpoint within {DefaultTimeout.TotalSeconds:0} s. stderr:\n{StandardErrorTail}");
            }
            finally
            {
                await stopPolling.CancelAsync().ConfigureAwait(false);
            }
        }

        try
        {
            await _socket.ConnectAsync(new Uri(url), timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException($"Could not connect to {url} within {DefaultTimeout.TotalSeconds:0} s.");
        }

        _receiveLoop = Task.Run(ReceiveLoopAsync, CancellationToken.None);
    }

    private string SafeExitCode()
    {
        try
        {
            return _process.ExitCode.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }
        catch (InvalidOperationException)
        {
            return "?";
        }
    }

    private async Task<string> PollActivePortFileAsync(CancellationToken cancellationToken)
    {
        string file = Path.Combine(_profileDirectory, "DevToolsActivePort");
        while (true)
        {
            await Task.Delay(250, cancellationToken).ConfigureAwait(false);
            try
            {
                string[] lines = File.Exists(file) ? await File.ReadAllLinesAsync(file, cancellationToken).ConfigureAwait(false) : [];
                if (lines.Length >= 2 && int.TryParse(lines[0], System.Globalization.CultureInfo.InvariantCulture, out int port) && port > 0)
                {
                    return $"ws://127.0.0.1:{port}{lines[1]}";
                }
            }
            catch (IOException)
            {
                // Being written; try again.
            }
        }
    }

    private async Task ReceiveLoopAsync()
    {
        byte[] buffer = new byte[1 << 16];
        using var message = new MemoryStream();
        try
        {
            while (!_lifetime.IsCancellationRequested)
            {
                message.SetLength(0);
                WebSocketReceiveResult result;
                do
                {
                    result = await _socket.ReceiveAsync(buffer, _lifetime.Token).ConfigureAwait(false);
                    if (result.MessageType == WebSocketMessageType.Close)
                    {
                        FailAll(new CdpException("The browser closed the DevTools connection."));
                        return;
                    }

                    message.Write(buffer, 0, result.Count);
                    if (message.Length > MaxMessageBytes)
                    {
                        throw new CdpException("A DevTools message exceeded 256 MB.");
                    }
                }
                while (!result.EndOfMessage);

                Dispatch(message.GetBuffer().AsMemory(0, (int)message.Length));
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or WebSocketException or ObjectDisposedException or CdpException or JsonException)
        {
            FailAll(ex);
        }
    }

    private void Dispatch(ReadOnlyMemory<byte> json)
    {
        using JsonDocument doc = JsonDocument.Parse(json);
        JsonElement root = doc.RootElement;
        if (root.TryGetProperty("id", out JsonElement idElement))
        {
            if (_pending.TryGetValue(idElement.GetInt32(), out TaskCompletionSource<JsonElement>? done))
            {
                if (root.TryGetProperty("error", out JsonElement error))
                {
                    done.TrySetException(new CdpException("DevTools error: " + error.GetRawText()));
                }
                else
                {
                    done.TrySetResult(root.TryGetProperty("result", out JsonElement r) ? r.Clone() : default);
                }
            }

            return;
        }

        if (!root.TryGetProperty("method", out JsonElement method))
        {
            return;
        }

        var e = new CdpEvent(
            method.GetString()!,
            root.TryGetProperty("sessionId", out JsonElement s) ? s.GetString() : null,
            root.TryGetProperty("params", out JsonElement p) ? p.Clone() : default);
        lock (_eventLock)
        {
            if (_events.Count < 100_000)
            {
                _events.Add(e);
            }

            for (int i = _waiters.Count - 1; i >= 0; i--)
            {
                if (_waiters[i].Match(e))
                {
                    _waiters[i].Done.TrySetResult(e);
                    _waiters.RemoveAt(i);
                }
            }
        }
    }

    private void FailAll(Exception ex)
    {
        foreach (TaskCompletionSource<JsonElement> p in _pending.Values)
        {
            p.TrySetException(ex);
        }

        lock (_eventLock)
        {
            foreach ((_, TaskCompletionSource<CdpEvent> done) in _waiters)
            {
                done.TrySetException(ex);
            }

            _waiters.Clear();
        }
    }
}

/// <summary>One page of a <see cref="HeadlessChromium"/>: navigate, collect problems, evaluate script, take screenshots.</summary>
internal sealed class ChromiumPage(HeadlessChromium browser, string sessionId)
{
    /// <summary>The flattened session id of the page.</summary>
    public string SessionId { get; } = sessionId;

    /// <summary>
    /// Console errors and warnings (<c>Runtime.consoleAPICalled</c>), uncaught exceptions (<c>Runtime.exceptionThrown</c>)
    /// and browser log errors and warnings (<c>Log.entryAdded</c>) so far.
    /// </summary>
    public IReadOnlyList<BrowserMessage> Problems()
    {
        var list = new List<BrowserMessage>();
        foreach (CdpEvent e in browser.EventsFor(SessionId))
        {
            switch (e.Method)
            {
                case "Runtime.consoleAPICalled":
                {
                    string type = e.Params.GetProperty("type").GetString() ?? "?";
                    if (type is "error" or "warning" or "assert")
                    {
                        string text = string.Join(' ', e.Params.GetProperty("args").EnumerateArray().Select(a =>
                            a.TryGetProperty("value", out JsonElement v) ? v.ToString() : a.TryGetProperty("description", out JsonElement d) ? d.GetString() : a.GetRawText()));
                        list.Add(new BrowserMessage("console", type, text));
                    }

                    break;
                }

                case "Runtime.exceptionThrown":
                {
                    JsonElement details = e.Params.GetProperty("exceptionDetails");
                    string text = details.TryGetProperty("exception", out JsonElement ex) && ex.TryGetProperty("description", out JsonElement d)
                        ? d.GetString() ?? details.GetRawText()
                        : details.GetProperty("text").GetString() ?? details.GetRawText();
                    list.Add(new BrowserMessage("exception", "error", text));
                    break;
                }

                case "Log.entryAdded":
                {
                    JsonElement entry = e.Params.GetProperty("entry");
                    string level = entry.GetProperty("level").GetString() ?? "?";
                    if (level is "error" or "warning")
                    {
                        list.Add(new BrowserMessage("log:" + entry.GetProperty("source").GetString(), level, entry.GetProperty("text").GetString() ?? string.Empty));
                    }

                    break;
                }
            }
        }

        return list;
    }

    /// <summary>Navigates to a local file and waits for its load event, then for every event sent before it.</summary>
    public async Task NavigateAsync(string path, CancellationToken cancellationToken, TimeSpan? loadTimeout = null)
    {
        TimeSpan limit = loadTimeout ?? HeadlessChromium.DefaultTimeout;
        string url = new Uri(Path.GetFullPath(path)).AbsoluteUri;
        Task<CdpEvent> loaded = browser.WaitForEventAsync(e => e.SessionId == SessionId && e.Method == "Page.loadEventFired");
        JsonElement result = await browser.SendAsync("Page.navigate", new JsonObject { ["url"] = url }, SessionId, cancellationToken).ConfigureAwait(false);
        if (result.TryGetProperty("errorText", out JsonElement error))
        {
            throw new CdpException($"Navigation to {url} failed: {error.GetString()}");
        }

        try
        {
            await loaded.WaitAsync(limit, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"{url} did not fire its load event within {limit.TotalSeconds:0.#} s.");
        }

        // Replies come in order with events, so one round trip after load means every earlier event has arrived.
        await EvaluateAsync("1", cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Evaluates an expression in the page and returns its JSON value; a script exception fails.</summary>
    public async Task<JsonElement> EvaluateAsync(string expression, CancellationToken cancellationToken)
    {
        JsonElement r = await browser.SendAsync("Runtime.evaluate",
            new JsonObject { ["expression"] = expression, ["returnByValue"] = true, ["awaitPromise"] = true }, SessionId, cancellationToken).ConfigureAwait(false);
        if (r.TryGetProperty("exceptionDetails", out JsonElement details))
        {
            throw new CdpException("Evaluation failed: " + details.GetRawText());
        }

        return r.GetProperty("result").TryGetProperty("value", out JsonElement value) ? value : default;
    }

    /// <summary>Captures a PNG of the whole page at the given CSS width (height capped at 16,000 px).</summary>
    public async Task<byte[]> CaptureFullPageAsync(int width, CancellationToken cancellationToken)
    {
        await browser.SendAsync("Emulation.setDeviceMetricsOverride",
            new JsonObject { ["width"] = width, ["height"] = 900, ["deviceScaleFactor"] = 1, ["mobile"] = false }, SessionId, cancellationToken).ConfigureAwait(false);
        JsonElement metrics = await browser.SendAsync("Page.getLayoutMetrics", null, SessionId, cancellationToken).ConfigureAwait(false);
        int height = (int)Math.Ceiling(Math.Min(16_000, metrics.GetProperty("cssContentSize").GetProperty("height").GetDouble()));
        await browser.SendAsync("Emulation.setDeviceMetricsOverride",
            new JsonObject { ["width"] = width, ["height"] = height, ["deviceScaleFactor"] = 1, ["mobile"] = false }, SessionId, cancellationToken).ConfigureAwait(false);
        JsonElement shot = await browser.SendAsync("Page.captureScreenshot",
            new JsonObject { ["format"] = "png", ["captureBeyondViewport"] = false, ["fromSurface"] = true }, SessionId, cancellationToken).ConfigureAwait(false);
        return Convert.FromBase64String(shot.GetProperty("data").GetString()!);
    }
}

using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace XeAnalyzer.Tests.Browser;

/// <summary>
/// Serves the files of one folder, plus files added by URL path, over HTTP on 127.0.0.1 (a free port) until disposed:
/// for pages that fetch what they show and so cannot run from <c>file://</c>. GET only; anything else, or a path
/// outside the folder, is 404.
/// </summary>
internal sealed class LoopbackFileServer : IDisposable
{
    private readonly HttpListener _listener = new();
    private readonly string _root;
    private readonly Dictionary<string, string> _extra = new(StringComparer.Ordinal);
    private readonly Lock _lock = new();
    private readonly Task _serving;

    public LoopbackFileServer(string root)
    {
        _root = Path.GetFullPath(root);
        int port = FreePort();
        BaseAddress = new Uri(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{port}/"));
        _listener.Prefixes.Add(BaseAddress.AbsoluteUri);
        _listener.Start();
        _serving = Task.Run(ServeAsync);
    }

    /// <summary>The server's address, ending with a slash.</summary>
    public Uri BaseAddress { get; }

    /// <summary>Serves <paramref name="file"/> at <paramref name="urlPath"/> (such as <c>/profile.json</c>).</summary>
    public Uri Add(string urlPath, string file)
    {
        lock (_lock)
        {
            _extra[urlPath] = Path.GetFullPath(file);
        }

        return new Uri(BaseAddress, urlPath);
    }

    public void Dispose()
    {
        _listener.Stop();
        _listener.Close();
        try
        {
            _serving.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // The listener stopped under a pending request; nothing is left to serve.
        }
    }

    private static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }

    private static string ContentType(string path) =>
        Path.GetExtension(path).ToLowerInvariant() switch
        {
            ".html" => "text/html; charset=utf-8",
            ".js" => "text/javascript; charset=utf-8",
            ".css" => "text/css; charset=utf-8",
            ".json" => "application/json",
            ".wasm" => "application/wasm",
            ".png" => "image/png",
            ".ico" => "image/x-icon",
            ".woff2" => "font/woff2",
            _ => "text/plain; charset=utf-8",
        };

    private async Task ServeAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception e)
                when (e is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                return; // stopped
            }

            using HttpListenerResponse response = context.Response;
            string? file = Resolve(context.Request);
            if (file is null)
            {
                response.StatusCode = 404;
                continue;
            }

            byte[] body = await File.ReadAllBytesAsync(file).ConfigureAwait(false);
            response.ContentType = ContentType(file);
            response.ContentLength64 = body.Length;
            try
            {
                await response.OutputStream.WriteAsync(body).ConfigureAwait(false);
            }
            catch (Exception e) when (e is HttpListenerException or IOException)
            {
                // The browser closed the connection (a page navigating away); the next request is served as usual.
            }
        }
    }

    private string? Resolve(HttpListenerRequest request)
    {
        if (request.HttpMethod != "GET" || request.Url is null)
        {
            return null;
        }

        string path = Uri.UnescapeDataString(request.Url.AbsolutePath);
        lock (_lock)
        {
            if (_extra.TryGetValue(path, out string? added))
            {
                return added;
            }
        }

        string full = Path.GetFullPath(Path.Combine(_root, path.TrimStart('/')));
        bool inside = full.StartsWith(_root + Path.DirectorySeparatorChar, StringComparison.Ordinal);
        return inside && File.Exists(full) ? full : null;
    }
}

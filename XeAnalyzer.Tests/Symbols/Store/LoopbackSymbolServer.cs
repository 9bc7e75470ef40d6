using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>One request as the server received it (header names lower-cased).</summary>
internal sealed record RecordedRequest(string Method, string Path, IReadOnlyDictionary<string, string> Headers);

/// <summary>How the server answers one path: a status and body, optionally slow, truncated or lying about its
/// length.</summary>
internal sealed class ServedResponse
{
    public int Status { get; init; } = 200;

    public byte[] Body { get; init; } = [];

    /// <summary>The Content-Length to announce (default: the body length); null with <see cref="Chunked"/>.</summary>
    public long? DeclaredLength { get; init; }

    /// <summary>Send the body with chunked transfer encoding (no Content-Length).</summary>
    public bool Chunked { get; init; }

    /// <summary>Close the connection after this many body bytes.</summary>
    public int? CloseAfterBytes { get; init; }

    /// <summary>Pause for <see cref="Pause"/> after this many body bytes (then send the rest).</summary>
    public int? PauseAfterBytes { get; init; }

    /// <summary>The pause of <see cref="PauseAfterBytes"/>.</summary>
    public TimeSpan Pause { get; init; }

    /// <summary>Wait this long before sending the status line.</summary>
    public TimeSpan DelayBeforeHeaders { get; init; }

    /// <summary>Extra header lines sent as given (name and value, e.g. <c>("Location", "ftp://…")</c>), in
    /// order.</summary>
    public IReadOnlyList<(string Name, string Value)> Headers { get; init; } = [];

    public static ServedResponse NotFound { get; } = new() { Status = 404, Body = "not found"u8.ToArray() };

    /// <summary>A redirect with <paramref name="status"/> to <paramref name="location"/>, sent byte for byte (hostile
    /// values included).</summary>
    public static ServedResponse Redirect(string location, int status = 302) =>
        new()
        {
            Status = status,
            Headers = [("Location", location)],
            Body = "moved"u8.ToArray(),
        };
}

/// <summary>
/// A minimal HTTP/1.1 server on 127.0.0.1 (real socket, ephemeral port) for symbol-store tests: serves a symbol-store
/// tree from memory, lets tests override paths with failing responses, and records every request. One request per
/// connection.
/// </summary>
internal sealed class LoopbackSymbolServer : IDisposable
{
    private readonly TcpListener _listener;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _acceptLoop;

    public LoopbackSymbolServer()
    {
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        int port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        BaseUrl = new Uri(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{port}/symbols"));
        _acceptLoop = Task.Run(AcceptLoopAsync);
    }

    /// <summary>The symbol server URL (paths below it are served from <see cref="Files"/> and
    /// <see cref="Overrides"/>).</summary>
    public Uri BaseUrl { get; }

    /// <summary>Served files by path below <see cref="BaseUrl"/> (case-sensitive, like a static server on Linux), e.g.
    /// <c>x.pdb/KEY/x.pdb</c>.</summary>
    public ConcurrentDictionary<string, byte[]> Files { get; } = new(StringComparer.Ordinal);

    /// <summary>Special responses by path below <see cref="BaseUrl"/>; take precedence over
    /// <see cref="Files"/>.</summary>
    public ConcurrentDictionary<string, ServedResponse> Overrides { get; } = new(StringComparer.Ordinal);

    /// <summary>Responses used once each, in order, by path below <see cref="BaseUrl"/>, before <see cref="Overrides"/>
    /// and <see cref="Files"/> (a first attempt that fails, then the real file).</summary>
    public ConcurrentDictionary<string, ConcurrentQueue<ServedResponse>> Once { get; } = new(StringComparer.Ordinal);

    /// <summary>A response for every path (for "server down" cases); takes precedence over everything.</summary>
    public ServedResponse? Everything { get; set; }

    public ConcurrentQueue<RecordedRequest> Requests { get; } = new();

    public int CountRequests(string relativePath) => Requests.Count(r => r.Path == "/symbols/" + relativePath);

    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
        try
        {
            _acceptLoop.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // The loop ends with the listener.
        }

        _stop.Dispose();
    }

    private async Task AcceptLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(_stop.Token);
            }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            _ = Task.Run(() => ServeAsync(client));
        }
    }

    private async Task ServeAsync(TcpClient client)
    {
        using (client)
        {
            try
            {
                NetworkStream stream = client.GetStream();
                RecordedRequest? request = await ReadRequestAsync(stream);
                if (request is null)
                {
                    return;
                }

                Requests.Enqueue(request);
                ServedResponse response = Choose(request);
                if (response.DelayBeforeHeaders > TimeSpan.Zero)
                {
                    await Task.Delay(response.DelayBeforeHeaders, _stop.Token);
                }

                await WriteResponseAsync(stream, response);
            }
            catch (Exception ex)
                when (ex is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
            {
                // The client went away (timeout tests) or the server is stopping.
            }
        }
    }

    private ServedResponse Choose(RecordedRequest request)
    {
        if (Everything is not null)
        {
            return Everything;
        }

        const string prefix = "/symbols/";
        if (request.Method != "GET" || !request.Path.StartsWith(prefix, StringComparison.Ordinal))
        {
            return ServedResponse.NotFound;
        }

        string relative = Uri.UnescapeDataString(request.Path[prefix.Length..]);
        if (
            Once.TryGetValue(relative, out ConcurrentQueue<ServedResponse>? queue)
            && queue.TryDequeue(out ServedResponse? first)
        )
        {
            return first;
        }

        if (Overrides.TryGetValue(relative, out ServedResponse? special))
        {
            return special;
        }

        return Files.TryGetValue(relative, out byte[]? body)
            ? new ServedResponse { Body = body }
            : ServedResponse.NotFound;
    }

    private async Task<RecordedRequest?> ReadRequestAsync(NetworkStream stream)
    {
        var buffer = new List<byte>();
        byte[] one = new byte[1];
        while (buffer.Count < 16384)
        {
            int n = await stream.ReadAsync(one, _stop.Token);
            if (n == 0)
            {
                return null;
            }

            buffer.Add(one[0]);
            int c = buffer.Count;
            if (
                c >= 4
                && buffer[c - 4] == '\r'
                && buffer[c - 3] == '\n'
                && buffer[c - 2] == '\r'
                && buffer[c - 1] == '\n'
            )
            {
                break;
            }
        }

        string[] lines = Encoding.ASCII.GetString(buffer.ToArray()).Split("\r\n");
        string[] requestLine = lines[0].Split(' ');
        if (requestLine.Length < 3)
        {
            return null;
        }

        var headers = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string line in lines.Skip(1))
        {
            int colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0)
            {
                string name = line[..colon].Trim().ToLowerInvariant();
                string value = line[(colon + 1)..].Trim();
                headers[name] = headers.TryGetValue(name, out string? prev) ? prev + ", " + value : value;
            }
        }

        return new RecordedRequest(requestLine[0], requestLine[1], headers);
    }

    private async Task WriteResponseAsync(NetworkStream stream, ServedResponse response)
    {
        var head = new StringBuilder();
        head.Append(CultureInfo.InvariantCulture, $"HTTP/1.1 {response.Status} {Reason(response.Status)}\r\n");
        head.Append("Content-Type: application/octet-stream\r\n");
        foreach ((string name, string value) in response.Headers)
        {
            head.Append(name).Append(": ").Append(value).Append("\r\n");
        }

        if (response.Chunked)
        {
            head.Append("Transfer-Encoding: chunked\r\n");
        }
        else
        {
            head.Append(
                CultureInfo.InvariantCulture,
                $"Content-Length: {response.DeclaredLength ?? response.Body.Length}\r\n"
            );
        }

        head.Append("Connection: close\r\n\r\n");
        await stream.WriteAsync(Encoding.Latin1.GetBytes(head.ToString()), _stop.Token);

        byte[] body = response.Body;
        int send = Math.Min(body.Length, response.CloseAfterBytes ?? body.Length);
        if (response.Chunked)
        {
            for (int off = 0; off < send; off += 8192)
            {
                int n = Math.Min(8192, send - off);
                await stream.WriteAsync(
                    Encoding.ASCII.GetBytes(n.ToString("x", CultureInfo.InvariantCulture) + "\r\n"),
                    _stop.Token
                );
                await stream.WriteAsync(body.AsMemory(off, n), _stop.Token);
                await stream.WriteAsync("\r\n"u8.ToArray(), _stop.Token);
            }

            if (response.CloseAfterBytes is null)
            {
                await stream.WriteAsync("0\r\n\r\n"u8.ToArray(), _stop.Token);
            }
        }
        else if (response.PauseAfterBytes is int pause && pause < send)
        {
            await stream.WriteAsync(body.AsMemory(0, pause), _stop.Token);
            await stream.FlushAsync(_stop.Token);
            await Task.Delay(response.Pause, _stop.Token);
            await stream.WriteAsync(body.AsMemory(pause, send - pause), _stop.Token);
        }
        else
        {
            await stream.WriteAsync(body.AsMemory(0, send), _stop.Token);
        }

        await stream.FlushAsync(_stop.Token);
    }

    private static string Reason(int status) =>
        status switch
        {
            200 => "OK",
            301 => "Moved Permanently",
            302 => "Found",
            303 => "See Other",
            307 => "Temporary Redirect",
            308 => "Permanent Redirect",
            404 => "Not Found",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Status",
        };
}

/// <summary>
/// A TCP listener on 127.0.0.1 that only counts connections: the target of redirects to other schemes (ftp://,
/// gopher://), to prove that the client never connects there.
/// </summary>
internal sealed class ConnectionCounter : IDisposable
{
    private readonly TcpListener _listener;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private int _connections;

    public ConnectionCounter()
    {
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _loop = Task.Run(async () =>
        {
            while (!_stop.IsCancellationRequested)
            {
                try
                {
                    using TcpClient c = await _listener.AcceptTcpClientAsync(_stop.Token);
                    Interlocked.Increment(ref _connections);
                }
                catch (Exception ex)
                    when (ex is OperationCanceledException or ObjectDisposedException or SocketException)
                {
                    return;
                }
            }
        });
    }

    public int Port { get; }

    public int Connections => Volatile.Read(ref _connections);

    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
        try
        {
            _loop.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // The loop ends with the listener.
        }

        _stop.Dispose();
    }
}

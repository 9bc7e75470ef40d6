using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Text;
using XeAnalyzer.Symbols.Store.Cab;

namespace XeAnalyzer.Symbols.Store;

/// <content>Downloads from HTTP(S) symbol servers.</content>
sealed partial class SymbolLocator
{
    private const int ServerFailureLimit = 3;

    /// <summary>Most redirects followed for one request.</summary>
    internal const int MaxRedirects = 10;

    /// <summary>Longest <c>Location</c> value considered.</summary>
    private const int MaxLocationLength = 4096;

    private static readonly byte[] s_msfzMagic = "Microsoft MSFZ Container"u8.ToArray();

    private readonly HttpClient? _http;

    // Server/name/key combinations a server answered 404 for in every spelling, remembered for the session.
    private readonly ConcurrentDictionary<string, byte> _notOnServer = new(StringComparer.Ordinal);

    // Consecutive connection failures or timeouts per server; at ServerFailureLimit the server is skipped for the
    // session.
    private readonly ConcurrentDictionary<string, int> _serverFailures = new(StringComparer.Ordinal);

    // Why servers failed in this session (distinct texts, capped), for summaries of runs that still found their PDBs
    // elsewhere.
    private readonly ConcurrentDictionary<string, byte> _serverProblems = new(StringComparer.Ordinal);

    private const int MaxServerProblems = 100;

    /// <summary>
    /// Why symbol servers failed in this session (a redirect not followed, a timeout, a refused or rejected download,
    /// …), one line each, sorted ordinally; at most 100. A failed server is skipped for that lookup and the next symbol
    /// path element is tried, so these may matter even when every PDB was found.
    /// </summary>
    /// <returns>The problems.</returns>
    public IReadOnlyList<string> GetServerProblems() =>
        _serverProblems.Keys.Order(StringComparer.Ordinal).ToList().AsReadOnly();

    private enum Kind
    {
        Pdb,
        Cabinet,
        Pointer,
    }

    private enum Outcome
    {
        Missing,
        Failed,
        Found,
    }

    private static HttpClient CreateHttpClient(SymbolStoreOptions options)
    {
        var handler = new SocketsHttpHandler
        {
            ConnectTimeout = options.ConnectTimeout,
            // Redirects are followed by SendFollowingRedirectsAsync, which checks every Location first (http/https
            // only).
            AllowAutoRedirect = false,
            AutomaticDecompression = DecompressionMethods.None,
            PooledConnectionLifetime = TimeSpan.FromMinutes(5),
        };
        var client = new HttpClient(handler, disposeHandler: true)
        {
            Timeout = System.Threading.Timeout.InfiniteTimeSpan,
        };

        // No Accept header at all: in particular never 'application/msfz0' (MSFZ needs zstd and is not supported).
        client.DefaultRequestHeaders.TryAddWithoutValidation("User-Agent", options.UserAgent);
        return client;
    }

    private async Task<PdbLookupResult?> TryServerAsync(
        ServerLocation server,
        string name,
        PdbIdentity id,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        string serverText = server.Server.OriginalString;
        string negativeKey = serverText + "|" + name.ToUpperInvariant() + "|" + id.Key;
        if (_notOnServer.ContainsKey(negativeKey))
        {
            reasons.Add(
                name
                    + " "
                    + id.ToString()
                    + " is not on "
                    + serverText
                    + " (a 404 remembered from earlier in this session)"
            );
            return null;
        }

        if (_serverFailures.TryGetValue(serverText, out int failures) && failures >= ServerFailureLimit)
        {
            reasons.Add(
                serverText
                    + " was not asked: it failed "
                    + failures.ToString(CultureInfo.InvariantCulture)
                    + " times in a row in this session"
            );
            return null;
        }

        // Symbol servers take the name as given and the upper-case key (msdl is case-insensitive); plain web servers
        // on case-sensitive file systems may hold the lower-case spelling (Microsoft.SymbolStore writes it).
        var spellings = new List<(string Name, string Key)> { (name, id.Key) };
        (string, string) lower = (name.ToLowerInvariant(), SymbolStoreKey.FormatLower(id));
        if (!spellings.Contains(lower))
        {
            spellings.Add(lower);
        }

        int asked = 0;
        foreach ((string urlName, string urlKey) in spellings)
        {
            foreach (Kind kind in new[] { Kind.Pdb, Kind.Cabinet, Kind.Pointer })
            {
                string file = kind switch
                {
                    Kind.Pdb => urlName,
                    Kind.Cabinet => StoreLayout.CompressedName(urlName),
                    _ => StoreLayout.PointerFileName,
                };
                var url = new Uri(
                    serverText.TrimEnd('/')
                        + "/"
                        + Uri.EscapeDataString(urlName)
                        + "/"
                        + urlKey
                        + "/"
                        + Uri.EscapeDataString(file),
                    UriKind.Absolute
                );
                asked++;
                (Outcome outcome, PdbLookupResult? result) = await DownloadAsync(
                        server,
                        url,
                        kind,
                        name,
                        id,
                        reasons,
                        cancellationToken
                    )
                    .ConfigureAwait(false);
                if (outcome == Outcome.Found)
                {
                    return result;
                }

                if (outcome == Outcome.Failed)
                {
                    if (reasons.Count > 0 && _serverProblems.Count < MaxServerProblems)
                    {
                        _serverProblems.TryAdd(reasons[^1], 0);
                    }

                    return null;
                }
            }
        }

        _notOnServer.TryAdd(negativeKey, 0);
        reasons.Add(
            string.Create(
                CultureInfo.InvariantCulture,
                $"{name} {id} is not on {serverText} (404 for all {asked} URLs: .pdb, .pd_ and file.ptr)"
            )
        );
        return null;
    }

    private async Task<(Outcome, PdbLookupResult?)> DownloadAsync(
        ServerLocation server,
        Uri url,
        Kind kind,
        string name,
        PdbIdentity id,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        string serverText = server.Server.OriginalString;
        for (int attempt = 0; ; attempt++)
        {
            bool retry = attempt < Options.MaxRetries;
            using var attemptCts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            attemptCts.CancelAfter(Options.Timeout);
            try
            {
                (HttpResponseMessage? sent, string? refused) = await SendFollowingRedirectsAsync(url, attemptCts.Token)
                    .ConfigureAwait(false);
                _serverFailures[serverText] = 0;
                if (sent is null)
                {
                    reasons.Add(url + " " + refused + "; server skipped");
                    return (Outcome.Failed, null);
                }

                using HttpResponseMessage response = sent;
                int status = (int)response.StatusCode;
                if (response.StatusCode is HttpStatusCode.NotFound or HttpStatusCode.Gone)
                {
                    return (Outcome.Missing, null);
                }

                if (
                    status >= 500
                    || response.StatusCode is HttpStatusCode.RequestTimeout or HttpStatusCode.TooManyRequests
                )
                {
                    reasons.Add(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"{url} answered {status} {response.ReasonPhrase} (attempt {attempt + 1} of "
                                + $"{Options.MaxRetries + 1})"
                        )
                    );
                    if (retry)
                    {
                        await Task.Delay(Options.RetryDelay * (attempt + 1), cancellationToken).ConfigureAwait(false);
                        continue;
                    }

                    return (Outcome.Failed, null);
                }

                if (!response.IsSuccessStatusCode)
                {
                    reasons.Add(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"{url} answered {status} {response.ReasonPhrase}; server skipped"
                        )
                    );
                    return (Outcome.Failed, null);
                }

                return kind == Kind.Pointer
                    ? await ReadServedPointerAsync(response, url, name, id, server, reasons, attemptCts.Token)
                        .ConfigureAwait(false)
                    : await SaveServedFileAsync(response, url, kind, name, id, server, reasons, attemptCts.Token)
                        .ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                CountFailure(serverText);
                reasons.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{url} timed out after {Options.Timeout.TotalSeconds:0.###} s; server skipped"
                    )
                );
                return (Outcome.Failed, null);
            }
            catch (Exception ex) when (ex is HttpRequestException or IOException)
            {
                CountFailure(serverText);
                reasons.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{url} failed: {ex.Message} (attempt {attempt + 1} of {Options.MaxRetries + 1})"
                    )
                );
                if (retry)
                {
                    await Task.Delay(Options.RetryDelay * (attempt + 1), cancellationToken).ConfigureAwait(false);
                    continue;
                }

                return (Outcome.Failed, null);
            }
        }
    }

    /// <summary>
    /// Sends a GET for <paramref name="url"/> and follows redirects itself, each checked by <see cref="CheckRedirect"/>
    /// before any connection is made, at most <see cref="MaxRedirects"/>. Returns the final response, or
    /// <see langword="null"/> and why a redirect was not followed (a failed lookup on this server, never an exception).
    /// </summary>
    private async Task<(HttpResponseMessage? Response, string? Refused)> SendFollowingRedirectsAsync(
        Uri url,
        CancellationToken cancellationToken
    )
    {
        Uri current = url;
        for (int hop = 0; ; hop++)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, current);
            HttpResponseMessage response = await _http!
                .SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken)
                .ConfigureAwait(false);
            if ((int)response.StatusCode is not (301 or 302 or 303 or 307 or 308))
            {
                return (response, null);
            }

            int status = (int)response.StatusCode;
            string? location = null;
            int locations = 0;
            if (
                response.Headers.NonValidated.TryGetValues(
                    "Location",
                    out System.Net.Http.Headers.HeaderStringValues values
                )
            )
            {
                foreach (string v in values)
                {
                    location = v;
                    locations++;
                }
            }

            response.Dispose();
            string via =
                hop == 0
                    ? string.Empty
                    : " (after " + hop.ToString(CultureInfo.InvariantCulture) + " redirects, at " + current + ")";
            if (locations > 1)
            {
                return (
                    null,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"answered {status} with {locations} Location headers{via}; not followed"
                    )
                );
            }

            string? problem = CheckRedirect(current, location, out Uri? next);
            if (problem is not null)
            {
                return (
                    null,
                    string.Create(CultureInfo.InvariantCulture, $"answered {status}{via}: {problem}; not followed")
                );
            }

            if (hop + 1 > MaxRedirects)
            {
                return (
                    null,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"was redirected more than {MaxRedirects} times (a redirect loop?); not followed further"
                    )
                );
            }

            current = next!;
        }
    }

    /// <summary>
    /// The one rule for following a redirect from <paramref name="from"/> to the <c>Location</c> value
    /// <paramref name="location"/>: it must resolve (relative to <paramref name="from"/>) to an absolute http or https
    /// URL with a host, and must not go from https to http. Returns <see langword="null"/> and the target when it may
    /// be followed, else what is wrong with it.
    /// </summary>
    internal static string? CheckRedirect(Uri from, string? location, out Uri? target)
    {
        target = null;
        if (string.IsNullOrWhiteSpace(location))
        {
            return "a redirect without a Location";
        }

        string shown = "'" + PdbNames.Printable(location.Length > 200 ? location[..200] + "…" : location) + "'";
        if (location.Length > MaxLocationLength || location.Any(char.IsControl))
        {
            return "a redirect to an unusable location " + shown;
        }

        Uri? next;
        try
        {
            if (!Uri.TryCreate(from, location.Trim(), out next))
            {
                return "a redirect to an unparsable location " + shown;
            }
        }
        catch (UriFormatException)
        {
            return "a redirect to an unparsable location " + shown;
        }

        if (!next.IsAbsoluteUri || (next.Scheme != Uri.UriSchemeHttp && next.Scheme != Uri.UriSchemeHttps))
        {
            return "a redirect to " + shown + ", which is not an http or https URL";
        }

        if (string.IsNullOrEmpty(next.IdnHost))
        {
            return "a redirect to " + shown + ", which names no host";
        }

        if (from.Scheme == Uri.UriSchemeHttps && next.Scheme == Uri.UriSchemeHttp)
        {
            return "a redirect from https to http (" + shown + ")";
        }

        target = next;
        return null;
    }

    private void CountFailure(string server) => _serverFailures.AddOrUpdate(server, 1, (_, n) => n + 1);

    /// <summary>
    /// Streams a served <c>.pdb</c> or <c>.pd_</c> into a hidden temp file in the cache's key folder, checks size and
    /// magic, expands a cabinet, verifies GUID and age, then renames into place. Nothing is left behind on failure.
    /// </summary>
    private async Task<(Outcome, PdbLookupResult?)> SaveServedFileAsync(
        HttpResponseMessage response,
        Uri url,
        Kind kind,
        string name,
        PdbIdentity id,
        ServerLocation server,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        long? declared = response.Content.Headers.ContentLength;
        if (declared > Options.MaxDownloadBytes)
        {
            reasons.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{url} declares {declared} bytes, more than the {Options.MaxDownloadBytes}-byte download limit; "
                        + $"refused"
                )
            );
            return (Outcome.Failed, null);
        }

        var created = new List<string>();
        string? temp = null;
        bool committed = false;
        try
        {
            string keyDir;
            try
            {
                keyDir = StoreLayout.PrepareKeyFolder(server.Cache, name, id, created);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or InvalidOperationException)
            {
                reasons.Add("cannot write to the cache " + server.Cache + ": " + ex.Message);
                return (Outcome.Failed, null);
            }

            temp = StoreLayout.TempPath(keyDir, name);
            byte[] head = new byte[32];
            int headLength = 0;
            long written = 0;
            long reported = 0;
            IProgress<WorkProgress>? progress = Options.DownloadProgress;
            progress?.Report(new WorkProgress(WorkKind.Downloading, name, 0, declared ?? -1, false));
            var output = new FileStream(
                temp,
                FileMode.CreateNew,
                FileAccess.Write,
                FileShare.None,
                1 << 16,
                FileOptions.Asynchronous
            );
            await using (output.ConfigureAwait(false))
            {
                Stream body = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
                await using (body.ConfigureAwait(false))
                {
                    byte[] buffer = new byte[1 << 16];
                    while (true)
                    {
                        int n = await body.ReadAsync(buffer, cancellationToken).ConfigureAwait(false);
                        if (n == 0)
                        {
                            break;
                        }

                        if (headLength < head.Length)
                        {
                            int take = Math.Min(n, head.Length - headLength);
                            Array.Copy(buffer, 0, head, headLength, take);
                            headLength += take;
                            if (headLength >= s_msfzMagic.Length && head.AsSpan().StartsWith(s_msfzMagic))
                            {
                                reasons.Add(
                                    url
                                        + " sent an MSFZ-compressed PDB ('Microsoft MSFZ Container'), which is not "
                                        + "supported (it was not asked for: no 'Accept: application/msfz0'); not cached"
                                );
                                return (Outcome.Failed, null);
                            }
                        }

                        written += n;
                        if (written > Options.MaxDownloadBytes)
                        {
                            reasons.Add(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{url} sent more than the {Options.MaxDownloadBytes}-byte download limit; "
                                        + $"aborted, not cached"
                                )
                            );
                            return (Outcome.Failed, null);
                        }

                        await output.WriteAsync(buffer.AsMemory(0, n), cancellationToken).ConfigureAwait(false);
                        if (progress is not null && written - reported >= FileReadProgress.Step)
                        {
                            reported = written;
                            progress.Report(
                                new WorkProgress(WorkKind.Downloading, name, written, declared ?? -1, false)
                            );
                        }
                    }
                }

                if (declared is long d && written != d)
                {
                    throw new IOException(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"the body ended after {written} of {d} bytes (truncated download)"
                        )
                    );
                }

                await output.FlushAsync(cancellationToken).ConfigureAwait(false);
                output.Flush(flushToDisk: true);
            }

            string final = Path.Join(keyDir, name);
            bool isCabinet = CabArchive.IsCabinet(head.AsSpan(0, headLength));
            if (isCabinet)
            {
                string? expanded = StoreLayout.ExpandCabinet(
                    temp,
                    name,
                    id,
                    server.Cache,
                    Options.MaxExpandedBytes,
                    reasons,
                    cancellationToken
                );
                if (expanded is null)
                {
                    reasons.Add(url + " was rejected; not cached");
                    return (Outcome.Failed, null);
                }

                committed = true;
                return (
                    Outcome.Found,
                    Found(
                        name,
                        id,
                        PdbLookupStatus.Verified,
                        expanded,
                        id,
                        PdbOrigin.Server,
                        url.ToString(),
                        true,
                        false,
                        reasons
                    )
                );
            }

            if (kind == Kind.Cabinet)
            {
                reasons.Add(url + " is not a cabinet file; not cached");
                return (Outcome.Failed, null);
            }

            if (!StoreLayout.TryVerify(temp, id, reasons, out PdbIdentity actual, "the PDB from " + url))
            {
                reasons.Add(url + " was rejected; not cached");
                return (Outcome.Failed, null);
            }

            StoreLayout.Commit(temp, final, id);
            committed = true;
            return (
                Outcome.Found,
                Found(
                    name,
                    id,
                    PdbLookupStatus.Verified,
                    final,
                    actual,
                    PdbOrigin.Server,
                    url.ToString(),
                    false,
                    false,
                    reasons
                )
            );
        }
        finally
        {
            StoreLayout.TryDelete(temp);
            if (!committed)
            {
                StoreLayout.RemoveIfEmpty(created);
            }

            if (temp is not null)
            {
                Options.DownloadProgress?.Report(new WorkProgress(WorkKind.Downloading, name, 0, declared ?? -1, true));
            }
        }
    }

    private async Task<(Outcome, PdbLookupResult?)> ReadServedPointerAsync(
        HttpResponseMessage response,
        Uri url,
        string name,
        PdbIdentity id,
        ServerLocation server,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        if (response.Content.Headers.ContentLength > StoreLayout.MaxPointerBytes)
        {
            reasons.Add(url + " is too large for a pointer file; ignored");
            return (Outcome.Failed, null);
        }

        Stream body = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        await using (body.ConfigureAwait(false))
        {
            byte[] buffer = new byte[StoreLayout.MaxPointerBytes + 1];
            int total = 0;
            while (total < buffer.Length)
            {
                int n = await body.ReadAsync(buffer.AsMemory(total), cancellationToken).ConfigureAwait(false);
                if (n == 0)
                {
                    break;
                }

                total += n;
            }

            if (total > StoreLayout.MaxPointerBytes)
            {
                reasons.Add(url + " is too large for a pointer file; ignored");
                return (Outcome.Failed, null);
            }

            string text = Encoding.UTF8.GetString(buffer, 0, total);
            PdbLookupResult? result = FollowPointer(
                text,
                url.ToString(),
                null,
                name,
                id,
                server.Cache,
                PdbOrigin.Server,
                reasons,
                cancellationToken
            );
            return result is null ? (Outcome.Failed, null) : (Outcome.Found, result);
        }
    }
}

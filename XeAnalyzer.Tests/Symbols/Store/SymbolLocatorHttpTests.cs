using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>The locator against a real HTTP server on 127.0.0.1 (TcpListener, ephemeral port) and a real
/// HttpClient.</summary>
public class SymbolLocatorHttpTests
{
    private const string Name = "storea.pdb";
    private LoopbackSymbolServer _server = null!;
    private string _sandbox = null!;
    private string _cache = null!;
    private PdbIdentity _id;
    private byte[] _pdb = null!;

    private string KeyPath => Name + "/" + _id.Key + "/" + Name;

    [SetUp]
    public void SetUp()
    {
        _server = new LoopbackSymbolServer();
        _sandbox = StoreFixtures.NewScratch();
        _cache = Path.Combine(_sandbox, "cache");
        _id = StoreFixtures.IdentityA;
        _pdb = File.ReadAllBytes(StoreFixtures.PdbA);
    }

    [TearDown]
    public void TearDown()
    {
        try
        {
            // Whatever a test did: the request never asked for MSFZ, and nothing was written outside the cache.
            Assert.That(
                _server.Requests.Where(r =>
                    r.Headers.TryGetValue("accept", out string? a)
                    && a.Contains("msfz", StringComparison.OrdinalIgnoreCase)
                ),
                Is.Empty
            );
            Assert.That(
                StoreFixtures
                    .FilesUnder(_sandbox)
                    .Where(f =>
                        !f.StartsWith("cache/", StringComparison.Ordinal)
                        && !f.StartsWith("local/", StringComparison.Ordinal)
                    ),
                Is.Empty
            );
        }
        finally
        {
            _server.Dispose();
            StoreFixtures.DeleteScratch(_sandbox);
        }
    }

    [Test]
    public void LocatePdb_DownloadsVerifiesAndCaches_WhenServerHasPdb()
    {
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);

        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Server));
        Assert.That(r.Path, Is.EqualTo(Path.Combine(_cache, Name, _id.Key, Name)));
        Assert.That(r.FileIdentity, Is.EqualTo(_id));
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(_pdb));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.EqualTo(new[] { KeyPath }));
        RecordedRequest request = _server.Requests.Single();
        Assert.That(request.Path, Is.EqualTo("/symbols/" + KeyPath));
        Assert.That(request.Headers.ContainsKey("accept"), Is.False);
        Assert.That(request.Headers["user-agent"], Does.Contain("XeAnalyzer"));
    }

    [Test]
    public void LocatePdb_UsesCacheWithoutNetwork_OnSecondLookupAndInNewSession()
    {
        _server.Files[KeyPath] = _pdb;
        using (var locator = Locator())
        {
            Assert.That(locator.LocatePdb(Name, _id).IsVerified, Is.True);
            Assert.That(locator.LocatePdb("STOREA.PDB", _id).IsVerified, Is.True);
        }

        using (var again = Locator())
        {
            PdbLookupResult r = again.LocatePdb(Name, _id);
            Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Store));
        }

        Assert.That(_server.Requests, Has.Count.EqualTo(1));
    }

    [Test]
    public void LocatePdb_RemembersNotFound_AndLeavesNoFolders_When404()
    {
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.NotFound));
        Assert.That(r.Reasons, Has.Some.Contains("404 for all 6 URLs"));
        int asked = _server.Requests.Count;
        Assert.That(asked, Is.EqualTo(6)); // .pdb, .pd_, file.ptr in the given and the lower-case spelling
        Assert.That(locator.LocatePdb(Name, _id).IsFound, Is.False);
        Assert.That(_server.Requests, Has.Count.EqualTo(asked));
        Assert.That(Directory.Exists(_cache) ? Directory.GetFileSystemEntries(_cache) : [], Is.Empty);
    }

    [Test]
    public void LocatePdb_RetriesThenGivesUp_When500()
    {
        _server.Overrides[KeyPath] = new ServedResponse { Status = 500, Body = "boom"u8.ToArray() };
        using var locator = Locator(
            new SymbolStoreOptions
            {
                DefaultCacheDirectory = _cache,
                MaxRetries = 2,
                RetryDelay = TimeSpan.FromMilliseconds(10),
            }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(3));
        Assert.That(r.Reasons, Has.Some.Contains("answered 500"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_TimesOut_WhenServerIsSlow()
    {
        _server.Overrides[KeyPath] = new ServedResponse { Body = _pdb, DelayBeforeHeaders = TimeSpan.FromSeconds(20) };
        using var locator = Locator(
            new SymbolStoreOptions { DefaultCacheDirectory = _cache, Timeout = TimeSpan.FromMilliseconds(400) }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("timed out"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_LeavesNoPartialFile_WhenBodyIsTruncated()
    {
        _server.Overrides[KeyPath] = new ServedResponse { Body = _pdb, CloseAfterBytes = _pdb.Length / 2 };
        using var locator = Locator(
            new SymbolStoreOptions
            {
                DefaultCacheDirectory = _cache,
                MaxRetries = 1,
                RetryDelay = TimeSpan.Zero,
            }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(2));
        Assert.That(r.Reasons, Has.Some.Contains("failed"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
        Assert.That(Directory.Exists(Path.Combine(_cache, Name)), Is.False);
    }

    [Test]
    public void LocatePdb_RejectsAndDoesNotCache_WhenServedPdbHasOtherGuid()
    {
        _server.Files[KeyPath] = File.ReadAllBytes(StoreFixtures.PdbB);
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("has " + StoreFixtures.IdentityB + ", wanted " + _id));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_RejectsAndDoesNotCache_WhenServedPdbHasOtherAge()
    {
        var older = new PdbIdentity(_id.Guid, _id.Age + 1);
        _server.Files[Name + "/" + older.Key + "/" + Name] = _pdb;
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, older);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("wanted " + older));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_RejectsClearly_WhenServerSendsMsfz()
    {
        byte[] msfz = [.. "Microsoft MSFZ Container\r\n\u001aALD\0\0\0"u8, .. new byte[5000]];
        _server.Files[KeyPath] = msfz;
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("MSFZ"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_ExpandsCabinet_WhenServerHasOnlyPd_()
    {
        _server.Files[Name + "/" + _id.Key + "/storea.pd_"] = File.ReadAllBytes(StoreFixtures.CabA);
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.ExpandedFromCabinet, Is.True);
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(_pdb));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.EqualTo(new[] { KeyPath }));
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(1));
    }

    [Test]
    public void LocatePdb_RejectsDamagedCabinet_WithoutCachingAnything()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        _server.Files[Name + "/" + _id.Key + "/storea.pd_"] = cab.AsSpan(0, cab.Length - 100).ToArray();
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("cannot expand"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_FollowsServedPointer_WhenTargetIsInsideSymbolPath()
    {
        string local = Path.Combine(_sandbox, "local");
        Directory.CreateDirectory(local);
        string target = Path.Combine(local, "builds", "storea.pdb");
        Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        File.Copy(StoreFixtures.PdbA, target);
        _server.Files[Name + "/" + _id.Key + "/file.ptr"] = System.Text.Encoding.UTF8.GetBytes(
            "PATH:" + target + "\r\n"
        );

        using var locator = new SymbolLocator(
            SymbolPath.Parse(local + ";srv*" + _cache + "*" + _server.BaseUrl),
            Options()
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.ViaPointerFile, Is.True);
        Assert.That(r.Path, Is.EqualTo(target));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [TestCase("PATH:/etc/passwd", "outside the symbol path")]
    [TestCase("PATH:../../../../../../etc/passwd", "relative path")]
    [TestCase("PATH:\\\\corp\\symbols\\storea.pdb", "Windows path")]
    [TestCase("MSG:this file was withdrawn\u0007", "says: this file was withdrawn\\u0007")]
    public void LocatePdb_RefusesServedPointer_WhenTargetIsUntrusted(string pointer, string expected)
    {
        _server.Files[Name + "/" + _id.Key + "/file.ptr"] = System.Text.Encoding.UTF8.GetBytes(pointer);
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains(expected));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [TestCase("../../etc/passwd")]
    [TestCase("a/b.pdb")]
    [TestCase("..\\..\\x.pdb")]
    [TestCase("C:\\x.pdb")]
    [TestCase("/tmp/x.pdb")]
    [TestCase("x\0.pdb")]
    [TestCase("x\n.pdb")]
    [TestCase("..pdb")]
    [TestCase("*.pdb")]
    [TestCase("sqlmin.dll")]
    [TestCase("")]
    public void LocatePdb_RejectsWithoutAnyRequest_WhenNameIsHostile(string name)
    {
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons.Single(), Does.Contain("rejected"));
        Assert.That(_server.Requests, Is.Empty);
        Assert.That(Directory.Exists(_cache), Is.False);
    }

    [Test]
    public void LocatePdb_RejectsWithoutAnyRequest_WhenNameIsAbsurdlyLong()
    {
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(new string('a', 100_000) + ".pdb", _id);
        Assert.That(r.Reasons.Single(), Does.Contain("characters long"));
        Assert.That(r.Reasons.Single().Length, Is.LessThan(400));
        Assert.That(_server.Requests, Is.Empty);
    }

    [Test]
    public void LocatePdb_EscapesNameInUrl_WhenNameHasUrlCharacters()
    {
        const string odd = "my lib#1%.pdb";
        _server.Files[odd + "/" + _id.Key + "/" + odd] = File.ReadAllBytes(StoreFixtures.PdbA);
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(odd, _id);
        Assert.That(r.IsVerified, Is.True);
        Assert.That(
            _server.Requests.Single().Path,
            Is.EqualTo("/symbols/my%20lib%231%25.pdb/" + _id.Key + "/my%20lib%231%25.pdb")
        );
        Assert.That(r.Path, Is.EqualTo(Path.Combine(_cache, odd, _id.Key, odd)));
    }

    [Test]
    public void LocatePdb_SendsNoRequest_WhenOffline()
    {
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator(new SymbolStoreOptions { DefaultCacheDirectory = _cache, Offline = true });
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.StartsWith("offline"));
        Assert.That(_server.Requests, Is.Empty);
    }

    [Test]
    public void LocatePdb_FindsCachedFile_WhenOffline()
    {
        string dir = Path.Combine(_cache, Name, _id.Key);
        Directory.CreateDirectory(dir);
        File.Copy(StoreFixtures.PdbA, Path.Combine(dir, Name));
        using var locator = Locator(new SymbolStoreOptions { DefaultCacheDirectory = _cache, Offline = true });
        Assert.That(locator.LocatePdb(Name, _id).IsVerified, Is.True);
        Assert.That(_server.Requests, Is.Empty);
    }

    [Test]
    public void LocatePdbAsync_DownloadsOnce_WhenManyCallersAskConcurrently()
    {
        // Whichever spelling's caller starts the shared lookup names the file it asks for, so the server holds each
        // spelling (a symbol server matches names in any case); once the test served only "storea.pdb" and failed
        // whenever another caller won.
        string[] spellings = ["storea.pdb", "StoreA.pdb", "STOREA.PDB", "storeA.pdb"];
        foreach (string spelling in spellings)
        {
            _server.Overrides[spelling + "/" + _id.Key + "/" + spelling] = new ServedResponse
            {
                Body = _pdb,
                DelayBeforeHeaders = TimeSpan.FromMilliseconds(300),
            };
        }

        using var locator = Locator();
        Task<PdbLookupResult>[] tasks = Enumerable
            .Range(0, 24)
            .Select(i => Task.Run(() => locator.LocatePdbAsync(spellings[i % spellings.Length], _id)))
            .ToArray();
        Task.WaitAll(tasks);
        Assert.That(tasks.Select(t => t.Result.Status).Distinct(), Is.EqualTo(new[] { PdbLookupStatus.Verified }));
        Assert.That(tasks.Select(t => t.Result.Path).Distinct().Count(), Is.EqualTo(1));
        Assert.That(_server.Requests, Has.Count.EqualTo(1));
        Assert.That(StoreFixtures.FilesUnder(_cache), Has.Length.EqualTo(1));
    }

    [Test]
    public void LocatePdb_FindsLowerCaseLayout_OnCaseSensitiveServer()
    {
        string lower = Name + "/" + SymbolStoreKey.FormatLower(_id) + "/" + Name;
        _server.Files[lower] = _pdb;
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb("StoreA.pdb", _id);
        Assert.That(r.IsVerified, Is.True);
        Assert.That(_server.Requests.Last().Path, Is.EqualTo("/symbols/" + lower));
        Assert.That(r.Path, Is.EqualTo(Path.Combine(_cache, "StoreA.pdb", _id.Key, "StoreA.pdb")));
    }

    [Test]
    public void LocatePdb_RefusesBeforeReading_WhenDeclaredLengthExceedsLimit()
    {
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator(
            new SymbolStoreOptions { DefaultCacheDirectory = _cache, MaxDownloadBytes = 10_000 }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("download limit"));
        Assert.That(Directory.Exists(_cache), Is.False);
    }

    [Test]
    public void LocatePdb_AbortsStream_WhenChunkedBodyExceedsLimit()
    {
        _server.Overrides[KeyPath] = new ServedResponse { Body = _pdb, Chunked = true };
        using var locator = Locator(
            new SymbolStoreOptions { DefaultCacheDirectory = _cache, MaxDownloadBytes = 10_000 }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("more than the 10000-byte download limit"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_AcceptsChunkedBody_WithinLimit()
    {
        _server.Overrides[KeyPath] = new ServedResponse { Body = _pdb, Chunked = true };
        using var locator = Locator();
        Assert.That(locator.LocatePdb(Name, _id).IsVerified, Is.True);
    }

    [Test]
    public void LocatePdb_RejectsHtml_WhenServerAnswers200WithPage()
    {
        _server.Files[KeyPath] = "<html><body>Please sign in</body></html>"u8.ToArray();
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("not a PDB"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_ReplacesWrongCachedFile_WithVerifiedDownload()
    {
        string dir = Path.Combine(_cache, Name, _id.Key);
        Directory.CreateDirectory(dir);
        File.Copy(StoreFixtures.PdbB, Path.Combine(dir, Name));
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Server));
        Assert.That(r.Reasons, Has.Some.Contains("has " + StoreFixtures.IdentityB + ", wanted " + _id));
        Assert.That(File.ReadAllBytes(Path.Combine(dir, Name)), Is.EqualTo(_pdb));
    }

    [Test]
    public void LocatePdb_SavesIntoCacheElement_WhenCacheStarPrecedesServer()
    {
        string explicitCache = Path.Combine(_cache, "explicit");
        _server.Files[KeyPath] = _pdb;
        using var locator = new SymbolLocator(
            SymbolPath.Parse("cache*" + explicitCache + ";srv*" + _server.BaseUrl),
            Options()
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.Path, Is.EqualTo(Path.Combine(explicitCache, Name, _id.Key, Name)));
    }

    [Test]
    public void LocatePdb_SkipsServer_AfterRepeatedConnectionFailures()
    {
        // A port nothing listens on: connections are refused at once.
        var dead = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        dead.Start();
        int port = ((System.Net.IPEndPoint)dead.LocalEndpoint).Port;
        dead.Stop();
        using var locator = new SymbolLocator(
            SymbolPath.Parse(
                "srv*"
                    + _cache
                    + "*http://127.0.0.1:"
                    + port.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + "/s"
            ),
            new SymbolStoreOptions { DefaultCacheDirectory = _cache, MaxRetries = 0 }
        );
        PdbLookupResult first = locator.LocatePdb(Name, _id);
        Assert.That(first.Reasons, Has.Some.Contains("failed"));
        locator.LocatePdb("other1.pdb", _id);
        locator.LocatePdb("other2.pdb", _id);
        PdbLookupResult skipped = locator.LocatePdb("other3.pdb", _id);
        Assert.That(skipped.Reasons, Has.Some.Contains("failed 3 times in a row"));
    }

    [Test]
    public async Task LocatePdbAsync_NeverExposesPartialFile_AndCleansUp_WhenDisposedMidDownload()
    {
        _server.Overrides[KeyPath] = new ServedResponse
        {
            Body = _pdb,
            PauseAfterBytes = _pdb.Length / 2,
            Pause = TimeSpan.FromSeconds(10),
        };
        var locator = Locator();
        Task<PdbLookupResult> lookup = locator.LocatePdbAsync(Name, _id);
        string keyDir = Path.Combine(_cache, Name, _id.Key);
        for (int poll = 0; poll < 250 && !(Directory.Exists(keyDir) && Directory.GetFiles(keyDir).Length > 0); poll++)
        {
            await Task.Delay(20);
        }

        // Mid-download: only a hidden temp file exists; the final name is not there yet.
        await Task.Delay(200);
        string[] during = Directory.GetFiles(keyDir);
        Assert.That(during, Is.Not.Empty);
        Assert.That(during.Select(Path.GetFileName), Has.All.StartWith(".storea.pdb.").And.All.EndWith(".tmp"));
        Assert.That(File.Exists(Path.Combine(keyDir, Name)), Is.False);

        locator.Dispose();
        PdbLookupResult r = await lookup;
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("canceled"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdbAsync_Throws_WhenCallerCancels_WhileSharedLookupContinues()
    {
        _server.Overrides[KeyPath] = new ServedResponse
        {
            Body = _pdb,
            DelayBeforeHeaders = TimeSpan.FromMilliseconds(800),
        };
        using var locator = Locator();
        using var cts = new CancellationTokenSource(TimeSpan.FromMilliseconds(100));
        Assert.CatchAsync<OperationCanceledException>(() => locator.LocatePdbAsync(Name, _id, cts.Token));
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsVerified, Is.True);
        Assert.That(_server.Requests, Has.Count.EqualTo(1));
    }

    [Test]
    public async Task FetchAsync_ReturnsResultsInRequestOrder()
    {
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator();
        IReadOnlyList<PdbLookupResult> results = await locator.FetchAsync([
            new PdbRequest(Name, _id),
            new PdbRequest("missing.pdb", _id),
            new PdbRequest(Name, null),
        ]);
        Assert.That(
            results.Select(r => r.Status),
            Is.EqualTo(new[] { PdbLookupStatus.Verified, PdbLookupStatus.NotFound, PdbLookupStatus.NotFound })
        );
        Assert.That(results[2].Reasons.Single(), Does.Contain("no GUID/age"));
    }

    private SymbolStoreOptions Options() =>
        new() { DefaultCacheDirectory = _cache, RetryDelay = TimeSpan.FromMilliseconds(10) };

    private SymbolLocator Locator(SymbolStoreOptions? options = null) =>
        new(SymbolPath.Parse("srv*" + _cache + "*" + _server.BaseUrl), options ?? Options());
}

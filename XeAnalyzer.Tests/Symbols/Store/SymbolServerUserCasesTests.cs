using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>
/// Symbol downloads as a user meets them, against real HTTP servers on 127.0.0.1: the public server answers with a
/// redirect to blob storage (another host), some servers send the CAB-compressed <c>.pd_</c> bytes for the <c>.pdb</c>
/// URL, and a download can be cut and retried. In each case the PDB is verified and the cache stays valid
/// (<see cref="SymbolCache.Verify"/>: every file matches its key, no partial download left).
/// </summary>
public class SymbolServerUserCasesTests
{
    private const string Name = "storea.pdb";
    private LoopbackSymbolServer _server = null!;
    private LoopbackSymbolServer _blob = null!;
    private string _sandbox = null!;
    private string _cache = null!;
    private PdbIdentity _id;
    private byte[] _pdb = null!;

    private string KeyPath => Name + "/" + _id.Key + "/" + Name;

    [SetUp]
    public void SetUp()
    {
        _server = new LoopbackSymbolServer();
        _blob = new LoopbackSymbolServer();
        _sandbox = StoreFixtures.NewScratch();
        _cache = Path.Combine(_sandbox, "cache");
        _id = StoreFixtures.IdentityA;
        _pdb = File.ReadAllBytes(StoreFixtures.PdbA);
    }

    [TearDown]
    public void TearDown()
    {
        _server.Dispose();
        _blob.Dispose();
        StoreFixtures.DeleteScratch(_sandbox);
    }

    [Test]
    public void Redirect302_ToAnotherLoopbackPort_IsFollowed_AndTheCacheStaysValid()
    {
        // The blob store has the file under an opaque name, on another port (another origin).
        _blob.Files["blob/0f3a9e?sig=abc"] = _pdb; // a blob URL with its signature query, as blob storage answers
        Assert.That(_blob.BaseUrl.Port, Is.Not.EqualTo(_server.BaseUrl.Port));
        _server.Overrides[KeyPath] = new ServedResponse
        {
            Status = 302,
            Headers = [("Location", _blob.BaseUrl + "/blob/0f3a9e?sig=abc")],
        };
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);

        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified), string.Join("\n", r.Reasons));
        Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Server));
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(_pdb));
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(1));
        Assert.That(_blob.Requests.Single().Path, Is.EqualTo("/symbols/blob/0f3a9e?sig=abc"));
        AssertCacheValid(KeyPath);
    }

    [Test]
    public void Redirect302_ToAMissingBlob_IsNotFound_AndLeavesNothing()
    {
        _server.Overrides[KeyPath] = new ServedResponse
        {
            Status = 302,
            Headers = [("Location", _blob.BaseUrl + "/blob/gone")],
        };
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(_blob.Requests, Is.Not.Empty);
        AssertCacheValid();
    }

    [Test]
    public void CompressedPd_ServedForThePdbUrl_IsExpandedAndVerified_AndTheCacheStaysValid()
    {
        // The .pdb URL itself answers with the cabinet's bytes ("MSCF…"), as a server that stores only .pd_ files may.
        _server.Files[KeyPath] = File.ReadAllBytes(StoreFixtures.CabA);
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);

        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified), string.Join("\n", r.Reasons));
        Assert.That(r.ExpandedFromCabinet, Is.True);
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(_pdb), "the cache holds the expanded PDB, not the cabinet");
        Assert.That(
            _server.Requests.Select(q => q.Path),
            Is.EqualTo(new[] { "/symbols/" + KeyPath }),
            "one request, no .pd_ URL needed"
        );
        AssertCacheValid(KeyPath);
    }

    [Test]
    public void CompressedPd_OfAnotherBuild_ServedForThePdbUrl_IsRejected_AndNothingIsCached()
    {
        _server.Files[KeyPath] = CabBuilder.Build(
            Name,
            File.ReadAllBytes(StoreFixtures.PdbB),
            System.IO.Compression.CompressionLevel.Optimal
        );
        using var locator = Locator();
        PdbLookupResult r = locator.LocatePdb(Name, _id);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("rejected"));
        AssertCacheValid();
    }

    [Test]
    public void DownloadCutMidStream_IsRetried_AndTheCacheHoldsOnlyTheVerifiedFile()
    {
        var first = new ServedResponse { Body = _pdb, CloseAfterBytes = _pdb.Length / 3 };
        _server.Once[KeyPath] = new System.Collections.Concurrent.ConcurrentQueue<ServedResponse>([first]);
        _server.Files[KeyPath] = _pdb;
        using var locator = Locator(
            new SymbolStoreOptions
            {
                DefaultCacheDirectory = _cache,
                MaxRetries = 2,
                RetryDelay = TimeSpan.FromMilliseconds(20),
            }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);

        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified), string.Join("\n", r.Reasons));
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(2), "the cut download and its retry");
        Assert.That(
            r.Reasons,
            Has.Some.Contains("truncated download").Or.Some.Contains("failed"),
            "the cut is reported"
        );
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(_pdb));
        AssertCacheValid(KeyPath);

        // A new session finds the cached file without the network.
        using var again = Locator();
        Assert.That(again.LocatePdb(Name, _id).Origin, Is.EqualTo(PdbOrigin.Store));
        Assert.That(_server.CountRequests(KeyPath), Is.EqualTo(2));
    }

    [Test]
    public void DownloadCutMidStream_OfACabinet_IsRetried_AndTheCacheStaysValid()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        string cabPath = Name + "/" + _id.Key + "/storea.pd_";
        _server.Once[cabPath] = new System.Collections.Concurrent.ConcurrentQueue<ServedResponse>([
            new ServedResponse { Body = cab, CloseAfterBytes = cab.Length / 2 },
        ]);
        _server.Files[cabPath] = cab;
        using var locator = Locator(
            new SymbolStoreOptions
            {
                DefaultCacheDirectory = _cache,
                MaxRetries = 1,
                RetryDelay = TimeSpan.Zero,
            }
        );
        PdbLookupResult r = locator.LocatePdb(Name, _id);

        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified), string.Join("\n", r.Reasons));
        Assert.That(r.ExpandedFromCabinet, Is.True);
        Assert.That(_server.CountRequests(cabPath), Is.EqualTo(2));
        AssertCacheValid(KeyPath);
    }

    /// <summary>The cache holds exactly <paramref name="expected"/> (paths below it), and every PDB there matches its
    /// key.</summary>
    private void AssertCacheValid(params string[] expected)
    {
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.EquivalentTo(expected), "no partial or stray file");
        if (Directory.Exists(_cache))
        {
            IReadOnlyList<SymbolCacheEntry> entries = SymbolCache.Verify(_cache, deleteInvalid: false);
            Assert.That(
                entries.Where(e => e.Status != SymbolCacheEntryStatus.Ok).Select(e => e.Path + ": " + e.Problem),
                Is.Empty
            );
            Assert.That(entries.Count(e => e.Status == SymbolCacheEntryStatus.Ok), Is.EqualTo(expected.Length));
        }
    }

    private SymbolLocator Locator(SymbolStoreOptions? options = null) =>
        new(
            SymbolPath.Parse("srv*" + _cache + "*" + _server.BaseUrl),
            options ?? new SymbolStoreOptions { DefaultCacheDirectory = _cache }
        );
}

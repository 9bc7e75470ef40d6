using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Cli;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>
/// A symbol server answering with redirects the client must not follow (other schemes, unparsable or host-less
/// locations, loops): a failed lookup on that server with the reason in the summary, then the next symbol path element;
/// never an exception, never a connection to a non-HTTP(S) target. Through the library, <c>xeanalyze resolve</c> and
/// <c>xeanalyze symbols fetch</c>.
/// </summary>
public sealed class SymbolServerRedirectTests
{
    private const string Name = "storea.pdb";
    private string _sandbox = null!;

    [SetUp]
    public void SetUp() => _sandbox = StoreFixtures.NewScratch();

    [TearDown]
    public void TearDown() => StoreFixtures.DeleteScratch(_sandbox);

    /// <summary>Locations that must be refused; <c>{port}</c> is a listener that counts connections.</summary>
    public static IEnumerable<TestCaseData> BadLocations()
    {
        yield return new TestCaseData("file:///etc/passwd", "not an http or https URL").SetName("Redirect_FileScheme");
        yield return new TestCaseData("ftp://127.0.0.1:{port}/storea.pdb", "not an http or https URL").SetName(
            "Redirect_FtpToLoopbackPort"
        );
        yield return new TestCaseData("gopher://127.0.0.1:{port}/1", "not an http or https URL").SetName(
            "Redirect_GopherToLoopbackPort"
        );
        yield return new TestCaseData("javascript:alert(1)", "not an http or https URL").SetName(
            "Redirect_JavascriptScheme"
        );
        yield return new TestCaseData("data:text/plain,PDB", "not an http or https URL").SetName("Redirect_DataScheme");
        yield return new TestCaseData("http://exa mple.com/x.pdb", "unparsable location").SetName(
            "Redirect_HostWithSpace"
        );
        yield return new TestCaseData("http://[::1/x.pdb", "unparsable location").SetName("Redirect_UnclosedIpv6Host");
        yield return new TestCaseData("http://%zz%/x.pdb", "unparsable location").SetName(
            "Redirect_PercentGarbageHost"
        );
        yield return new TestCaseData("http:///x.pdb", "unparsable location").SetName("Redirect_EmptyHost");
        yield return new TestCaseData("http://:80/x.pdb", "unparsable location").SetName("Redirect_PortWithoutHost");
        yield return new TestCaseData(string.Empty, "without a Location").SetName("Redirect_EmptyLocation");
        yield return new TestCaseData("   ", "without a Location").SetName("Redirect_BlankLocation");
        yield return new TestCaseData("{self}", "redirected more than 10 times").SetName("Redirect_LoopToItself");
    }

    [TestCaseSource(nameof(BadLocations))]
    public void LocatePdb_RefusesTheRedirect_AndFindsThePdbOnTheNextServer(string location, string expected)
    {
        using var counter = new ConnectionCounter();
        using var bad = new LoopbackSymbolServer();
        using var good = new LoopbackSymbolServer();
        PdbIdentity id = StoreFixtures.IdentityA;
        good.Files[Name + "/" + id.Key + "/" + Name] = File.ReadAllBytes(StoreFixtures.PdbA);
        bad.Everything = ServedResponse.Redirect(Expand(location, counter, bad));

        string cache = Path.Combine(_sandbox, "cache");
        using var locator = new SymbolLocator(
            SymbolPath.Parse($"srv*{cache}*{bad.BaseUrl};srv*{cache}*{good.BaseUrl}"),
            new SymbolStoreOptions
            {
                DefaultCacheDirectory = cache,
                MaxRetries = 0,
                Timeout = TimeSpan.FromSeconds(10),
            }
        );
        PdbLookupResult r = locator.LocatePdb(Name, id);

        Assert.That(r.IsVerified, Is.True, string.Join("\n", r.Reasons));
        Assert.That(r.OriginLocation, Does.StartWith(good.BaseUrl.ToString()));
        Assert.That(r.Reasons, Has.Some.Contains(expected).And.Some.Contains("not followed"));
        Assert.That(locator.GetServerProblems(), Has.Some.Contains(expected));
        Assert.That(counter.Connections, Is.Zero, "no connection to a non-HTTP(S) target");
        Assert.That(bad.Requests, Has.Count.GreaterThanOrEqualTo(1));
    }

    [Test]
    public void LocatePdb_FollowsARelativeRedirect_OnTheSameServer()
    {
        using var server = new LoopbackSymbolServer();
        PdbIdentity id = StoreFixtures.IdentityA;
        string keyPath = Name + "/" + id.Key + "/" + Name;
        server.Overrides[keyPath] = ServedResponse.Redirect("/symbols/moved/" + keyPath, 301);
        server.Files["moved/" + keyPath] = File.ReadAllBytes(StoreFixtures.PdbA);
        string cache = Path.Combine(_sandbox, "cache");
        using var locator = new SymbolLocator(
            SymbolPath.Parse($"srv*{cache}*{server.BaseUrl}"),
            new SymbolStoreOptions { DefaultCacheDirectory = cache }
        );
        PdbLookupResult r = locator.LocatePdb(Name, id);
        Assert.That(r.IsVerified, Is.True, string.Join("\n", r.Reasons));
        Assert.That(
            server.Requests.Select(q => q.Path),
            Is.EqualTo(new[] { "/symbols/" + keyPath, "/symbols/moved/" + keyPath })
        );
        Assert.That(locator.GetServerProblems(), Is.Empty);
    }

    [Test]
    public void LocatePdb_FollowsAChainOfTenRedirects_ButNotEleven()
    {
        using var server = new LoopbackSymbolServer();
        PdbIdentity id = StoreFixtures.IdentityA;
        string keyPath = Name + "/" + id.Key + "/" + Name;
        server.Overrides[keyPath] = ServedResponse.Redirect("hop1", 307);
        for (int i = 1; i < 10; i++)
        {
            server.Overrides[Name + "/" + id.Key + "/hop" + i.ToString(CultureInfo.InvariantCulture)] =
                ServedResponse.Redirect("hop" + (i + 1).ToString(CultureInfo.InvariantCulture), 308);
        }

        server.Files[Name + "/" + id.Key + "/hop10"] = File.ReadAllBytes(StoreFixtures.PdbA);
        string cache = Path.Combine(_sandbox, "cache");
        using (
            var locator = new SymbolLocator(
                SymbolPath.Parse($"srv*{cache}*{server.BaseUrl}"),
                new SymbolStoreOptions { DefaultCacheDirectory = cache }
            )
        )
        {
            Assert.That(locator.LocatePdb(Name, id).IsVerified, Is.True, "10 redirects are within the limit");
        }

        StoreFixtures.DeleteScratch(cache);
        server.Overrides[Name + "/" + id.Key + "/hop10"] = ServedResponse.Redirect("hop11");
        server.Files[Name + "/" + id.Key + "/hop11"] = File.ReadAllBytes(StoreFixtures.PdbA);
        using (
            var locator = new SymbolLocator(
                SymbolPath.Parse($"srv*{cache}*{server.BaseUrl}"),
                new SymbolStoreOptions { DefaultCacheDirectory = cache }
            )
        )
        {
            PdbLookupResult r = locator.LocatePdb(Name, id);
            Assert.That(r.IsFound, Is.False);
            Assert.That(r.Reasons, Has.Some.Contains("redirected more than 10 times"));
        }
    }

    [TestCase("file:///etc/passwd")]
    [TestCase("ftp://127.0.0.1:{port}/sqlmin.pdb")]
    [TestCase("gopher://127.0.0.1:{port}/1")]
    [TestCase("http://exa mple.com/x.pdb")]
    [TestCase("http://[::1/x.pdb")]
    public void Cli_ResolveAndSymbolsFetch_SkipTheRedirectingServer_AndUseTheNextOne(string location)
    {
        using var counter = new ConnectionCounter();
        using var bad = new LoopbackSymbolServer();
        using LoopbackSymbolServer good = ServeStore(TestPaths.SymbolsCache);
        bad.Everything = ServedResponse.Redirect(Expand(location, counter, bad));
        string[] build = ["--sql-build", ResolutionFixtures.FixtureBuild, "--catalog", ResolutionFixtures.CatalogPath];

        string input = Path.Combine(_sandbox, "a.txt");
        File.WriteAllText(input, ResolutionFixtures.StackAModuleOffsetText());
        string cache = Path.Combine(_sandbox, "cache");
        string symbols = $"srv*{cache}*{bad.BaseUrl};srv*{cache}*{good.BaseUrl}";
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            symbols,
            "--symbol-timeout",
            "10",
            .. build,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(err, Does.Not.Contain("internal error"));
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(ResolutionFixtures.PublishedStackA),
            "every frame resolves from the second server"
        );
        Assert.That(err, Does.Contain("symbol server skipped: ").And.Contain("not followed"));

        StoreFixtures.DeleteScratch(cache);
        (exit, output, err) = CliRunner.Run([
            "symbols",
            "fetch",
            "--symbols",
            symbols,
            "--symbol-timeout",
            "10",
            .. build,
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(err, Does.Not.Contain("internal error"));
        Assert.That(Regex.Count(output, ": downloaded "), Is.EqualTo(4), output);
        Assert.That(err, Does.Contain("symbol server skipped: ").And.Contain("not followed"));
        Assert.That(counter.Connections, Is.Zero, "no connection to a non-HTTP(S) target");
    }

    [Test]
    public void Cli_SymbolsFetch_WithOnlyARedirectingServer_ExitsThreeWithTheReason()
    {
        using var bad = new LoopbackSymbolServer();
        bad.Everything = ServedResponse.Redirect("file:///etc/passwd");
        string cache = Path.Combine(_sandbox, "cache");
        (int exit, string output, string err) = CliRunner.Run(
            "symbols",
            "fetch",
            "--symbols",
            $"srv*{cache}*{bad.BaseUrl}",
            "--pdb",
            "sqlmin.pdb",
            "--guid",
            "9c072258-c838-1309-4c4c-44205044422e",
            "--age",
            "1"
        );
        Assert.That(exit, Is.EqualTo(3), err);
        Assert.That(output, Does.Contain("not found").And.Contain("file:///etc/passwd").And.Contain("not followed"));
        Assert.That(err, Does.Not.Contain("internal error"));
    }

    private static string Expand(string location, ConnectionCounter counter, LoopbackSymbolServer self) =>
        location == "{self}"
            ? self.BaseUrl + "/loop"
            : location.Replace("{port}", counter.Port.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal);

    private static LoopbackSymbolServer ServeStore(string storeRoot)
    {
        var server = new LoopbackSymbolServer();
        foreach (string file in Directory.GetFiles(storeRoot, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(storeRoot, file).Replace(Path.DirectorySeparatorChar, '/');
            if (relative.Count(c => c == '/') == 2)
            {
                server.Files[relative] = File.ReadAllBytes(file);
            }
        }

        return server;
    }
}

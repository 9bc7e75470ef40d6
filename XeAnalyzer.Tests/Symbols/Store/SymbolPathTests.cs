using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

public class SymbolPathTests
{
    private const string Msdl = "https://msdl.microsoft.com/download/symbols";

    [Test]
    public void Parse_ReadsCacheAndServer_ForSrvCacheUrl()
    {
        SymbolPath p = SymbolPath.Parse("srv*/var/sym*" + Msdl);
        SymbolPathElement e = p.Elements.Single();
        Assert.That(e.Kind, Is.EqualTo(SymbolPathElementKind.SymbolServer));
        Assert.That(e.Tiers.Select(t => t.ToString()), Is.EqualTo(new[] { "/var/sym", Msdl }));
        Assert.That(e.Tiers[1].Server, Is.EqualTo(new Uri(Msdl)));
        Assert.That(e.UsesNetwork, Is.True);
        Assert.That(p.Warnings, Is.Empty);
    }

    [TestCase("srv*" + Msdl)]
    [TestCase("SRV**" + Msdl)]
    [TestCase(Msdl)]
    public void Parse_UsesDefaultCache_WhenChainNamesNone(string text)
    {
        SymbolPathElement e = SymbolPath.Parse(text).Elements.Single();
        Assert.That(e.Tiers[0].IsDefaultCache, Is.True);
        Assert.That(e.Tiers[1].Server!.Host, Is.EqualTo("msdl.microsoft.com"));
    }

    [Test]
    public void Parse_AcceptsSymsrvDll_AndRejectsOtherDlls()
    {
        SymbolPath ok = SymbolPath.Parse("symsrv*symsrv.dll*/tmp/c*" + Msdl);
        Assert.That(ok.Elements.Single().Tiers.Select(t => t.ToString()), Is.EqualTo(new[] { "/tmp/c", Msdl }));
        SymbolPath bad = SymbolPath.Parse("symsrv*mysrv.dll*/tmp/c*" + Msdl);
        Assert.That(bad.IsEmpty, Is.True);
        Assert.That(bad.Warnings.Single(), Does.Contain("mysrv.dll"));
    }

    [Test]
    public void Parse_ReadsCacheElementsAndFolders_InOrder()
    {
        SymbolPath p = SymbolPath.Parse(" cache*/tmp/c ; ;/opt/pdbs;cache*;srv*/mnt/store ");
        Assert.That(
            p.Elements.Select(e => e.Kind),
            Is.EqualTo(
                new[]
                {
                    SymbolPathElementKind.Cache,
                    SymbolPathElementKind.Folder,
                    SymbolPathElementKind.Cache,
                    SymbolPathElementKind.SymbolServer,
                }
            )
        );
        Assert.That(p.Elements[0].Directory, Is.EqualTo(Path.GetFullPath("/tmp/c")));
        Assert.That(p.Elements[2].Directory, Is.Null);
        Assert.That(p.Elements[3].UsesNetwork, Is.False);
        Assert.That(p.ToString(), Is.EqualTo("cache*/tmp/c;/opt/pdbs;cache*;srv*/mnt/store"));
    }

    [Test]
    public void Parse_MakesRelativeFoldersAbsolute_AndStripsQuotes()
    {
        SymbolPath p = SymbolPath.Parse("\"my pdbs\";sub/dir");
        Assert.That(
            p.Elements.Select(e => e.Directory),
            Is.EqualTo(new[] { Path.GetFullPath("my pdbs"), Path.GetFullPath("sub/dir") })
        );
    }

    [Test]
    public void Parse_WarnsAndSkips_UnusableElements()
    {
        if (OperatingSystem.IsWindows())
        {
            Assert.Ignore("UNC and drive paths are usable on Windows");
        }

        SymbolPath p = SymbolPath.Parse(@"\\corp\symbols;C:\Symbols;ftp://x/y;srv*C:\Symbols*" + Msdl + ";srv*");
        Assert.That(p.Warnings, Has.Count.EqualTo(6));
        Assert.That(p.Warnings[0], Does.Contain("UNC"));
        Assert.That(p.Warnings[1], Does.Contain("Windows drive path"));
        Assert.That(p.Warnings[2], Does.Contain("only http and https"));
        Assert.That(p.Warnings[3], Does.Contain("Windows drive path"));
        Assert.That(p.Warnings[4], Does.Contain("default symbol cache instead"));
        Assert.That(p.Warnings[5], Does.Contain("names no usable store or server"));

        // srv*C:\Symbols*https://… on Linux keeps the server and caches in the default place.
        SymbolPathElement kept = p.Elements.Single();
        Assert.That(kept.Tiers[0].IsDefaultCache, Is.True);
        Assert.That(kept.Tiers[1].Server, Is.EqualTo(new Uri(Msdl)));

        SymbolPath chain = SymbolPath.Parse("srv*ftp://a*b:/x");
        Assert.That(chain.IsEmpty, Is.True);
        Assert.That(chain.Warnings, Has.Count.EqualTo(3));
        Assert.That(chain.Warnings[^1], Does.Contain("names no usable store or server"));
    }

    [TestCase(null)]
    [TestCase("")]
    [TestCase("  ;  ; ")]
    public void Parse_ReturnsEmpty_ForBlankText(string? text)
    {
        SymbolPath p = SymbolPath.Parse(text);
        Assert.That(p.IsEmpty, Is.True);
        Assert.That(p.Warnings, Is.Empty);
    }

    [Test]
    public void FromEnvironment_ReadsAltThenMainVariable()
    {
        string? main = Environment.GetEnvironmentVariable(SymbolPath.EnvironmentVariable);
        string? alt = Environment.GetEnvironmentVariable(SymbolPath.AlternateEnvironmentVariable);
        try
        {
            Environment.SetEnvironmentVariable(SymbolPath.EnvironmentVariable, "srv*/tmp/main*" + Msdl);
            Environment.SetEnvironmentVariable(SymbolPath.AlternateEnvironmentVariable, "/tmp/alt");
            SymbolPath p = SymbolPath.FromEnvironment();
            Assert.That(
                p.Elements.Select(e => e.Kind),
                Is.EqualTo(new[] { SymbolPathElementKind.Folder, SymbolPathElementKind.SymbolServer })
            );
            Environment.SetEnvironmentVariable(SymbolPath.EnvironmentVariable, null);
            Environment.SetEnvironmentVariable(SymbolPath.AlternateEnvironmentVariable, null);
            Assert.That(SymbolPath.FromEnvironment().IsEmpty, Is.True);
        }
        finally
        {
            Environment.SetEnvironmentVariable(SymbolPath.EnvironmentVariable, main);
            Environment.SetEnvironmentVariable(SymbolPath.AlternateEnvironmentVariable, alt);
        }
    }
}

using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Tests.Callstacks;

namespace XeAnalyzer.Tests.Symbols.Catalog;

/// <summary>The SQL Server build catalog (<c>sqlbuildinfo.json</c> format).</summary>
public class SqlBuildCatalogTests
{
    private static string Line(string buildNumber, string machineType, string url, string extra = "") =>
        $"{{\"ProductMajorVersion\":\"SQL Server "
        + $"2016\",\"ProductLevel\":\"SP1\",\"Label\":\"SP1\",\"BuildNumber\":\"{buildNumber}"
        + $"\",\"KBInfo\":\"KB1\",\"SymbolDetails\":[{{\"PDBName\":\"sqldk\",\"DownloadURL\":\"{url}"
        + $"\",\"DownloadVerified\":true,\"FileVersion\":\"v\"{extra}}}],\"MachineType\":\"{machineType}\"}}";

    private const string GoodUrl =
        "https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2/sqldk.pdb";

    [Test]
    public void Load_ReadsSampleFixture_WithHexAgeFromUrl()
    {
        SqlBuildCatalog catalog = SqlBuildCatalog.Load(StackTextReaderTests.Fixture("sqlbuildinfo_sample.json"));
        Assert.That(catalog.Builds, Has.Count.EqualTo(4));

        SqlBuildLookupResult r = catalog.Find("13.0.4001.0");
        Assert.That(r.Status, Is.EqualTo(SqlBuildLookupStatus.Found));
        SqlBuildInfo b = r.Build!;
        Assert.That(
            (b.ProductMajorVersion, b.ProductLevel, b.Label, b.KBInfo, b.MachineType),
            Is.EqualTo(("SQL Server 2016", "SP1", "SP1", "KB3182545", "x64"))
        );
        Assert.That(b.LineNumber, Is.EqualTo(1));
        Assert.That(b.DisplayName, Is.EqualTo("SQL Server 2016 SP1 SP1 - 13.0.4001.0 - x64"));
        Assert.That(b.Pdbs.Select(p => p.Name), Is.EqualTo(new[] { "sqldk", "sqlmin" }));

        SqlBuildPdb sqldk = b.Pdbs[0];
        Assert.That(sqldk.PdbFileName, Is.EqualTo("sqldk.pdb"));
        Assert.That(sqldk.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("01234567-89ab-cdef-0123-456789abcdef"), 2)));
        Assert.That(sqldk.DownloadVerified, Is.True);
        Assert.That(sqldk.FileVersion, Is.EqualTo("2015.0130.4001.00"));
        Assert.That(sqldk.StorePath, Is.EqualTo("sqldk.pdb/0123456789ABCDEF0123456789ABCDEF2/sqldk.pdb"));

        // The key's age is hex: "...1a" is age 26, not a decimal misread.
        SqlBuildPdb sqlmin = b.Pdbs[1];
        Assert.That(sqlmin.Identity.Age, Is.EqualTo(26));
        Assert.That(sqlmin.DownloadVerified, Is.False);
    }

    [Test]
    public void Find_ChoosesMachineType_AndReportsOthersOnMiss()
    {
        SqlBuildCatalog catalog = SqlBuildCatalog.Load(StackTextReaderTests.Fixture("sqlbuildinfo_sample.json"));
        Assert.That(
            catalog.Find("13.0.4001.0", "x86").Build!.Pdbs.Single().Identity.Guid,
            Is.EqualTo(Guid.Parse("11111111-2222-3333-4444-555555555555"))
        );
        Assert.That(catalog.Find("13.0.4001", "X64").Status, Is.EqualTo(SqlBuildLookupStatus.Found));

        SqlBuildLookupResult miss = catalog.Find("13.0.4001.0", "arm64");
        Assert.That(miss.Status, Is.EqualTo(SqlBuildLookupStatus.NotFound));
        Assert.That(miss.Build, Is.Null);
        Assert.That(miss.OtherMachineTypes, Is.EqualTo(new[] { "x64", "x86" }));

        Assert.That(catalog.Find("99.0.1.0").Status, Is.EqualTo(SqlBuildLookupStatus.NotFound));
        Assert.Throws<ArgumentException>(() => catalog.Find("not a build"));
    }

    [Test]
    public void Find_ReportsAmbiguity()
    {
        SqlBuildCatalog catalog = SqlBuildCatalog.Load(StackTextReaderTests.Fixture("sqlbuildinfo_sample.json"));
        SqlBuildLookupResult r = catalog.Find("15.0.4003.23");
        Assert.That(r.Status, Is.EqualTo(SqlBuildLookupStatus.Ambiguous));
        Assert.That(r.Matches.Select(m => m.Label), Is.EqualTo(new[] { "CU1", "CU1 (re-release)" }));
        Assert.That(r.Build, Is.Null);
    }

    [Test]
    public void Load_ReadsVectorCatalog_And13040010X64PdbList()
    {
        SqlBuildCatalog catalog = SqlBuildCatalog.Load(TestPaths.RequireVector("buildinfo", "sqlbuildinfo.json"));
        Assert.That(catalog.Builds, Has.Count.EqualTo(468));
        Assert.That(catalog.Builds.Count(b => b.MachineType == "x64"), Is.EqualTo(358));

        SqlBuildInfo b = catalog.Find("13.0.4001.0").Build!;
        Assert.That(b.ProductMajorVersion, Is.EqualTo("SQL Server 2016"));
        Assert.That(
            b.Pdbs.Select(p => p.Name),
            Is.EqualTo(
                new[]
                {
                    "sqldk",
                    "sqlmin",
                    "sqllang",
                    "sqltses",
                    "sqlaccess",
                    "qds",
                    "hkruntime",
                    "hkengine",
                    "hkcompile",
                    "SQLOS",
                    "sqlservr",
                    "SqlServerSpatial130",
                }
            )
        );
        SqlBuildPdb sqldk = b.Pdbs[0];
        Assert.That(sqldk.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("1d3fa75e-b355-40e2-87b2-e012d69785df"), 2)));
        Assert.That(
            b.Pdbs.Single(p => p.Name == "SQLOS").Identity,
            Is.EqualTo(new PdbIdentity(Guid.Parse("961e76a6-09b0-4a7c-935c-d8ad827f2338"), 1))
        );
        Assert.That(b.Pdbs.All(p => p.DownloadVerified), Is.True);
    }

    [TestCase("https://msdl.microsoft.com/download/symbols/../../etc/0123456789abcdef0123456789abcdef2/sqldk.pdb")]
    [TestCase(
        "https://msdl.microsoft.com/download/symbols/..%2F..%2Fsqldk.pdb/0123456789abcdef0123456789abcdef2/..%2F..%2F"
            + "sqldk.pdb"
    )]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2/..")]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/../sqldk.pdb")]
    [TestCase(
        "https://msdl.microsoft.com/download/symbols/a%5Csqldk.pdb/0123456789abcdef0123456789abcdef2/a%5Csqldk.pdb"
    )]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2/sqldk.pdb?x=1")]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2/sqlmin.pdb")]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcde/sqldk.pdb")]
    [TestCase(
        "https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdefFFFFFFFF/sqldk.pdb"
    )]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.exe/0123456789abcdef0123456789abcdef2/sqldk.exe")]
    [TestCase("file:///download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2/sqldk.pdb")]
    [TestCase("https://msdl.microsoft.com/download/symbols/sqldk.pdb/0123456789abcdef0123456789abcdef2//sqldk.pdb")]
    public void TryParsePdbUrl_RefusesUnsafeOrMalformedUrls(string url)
    {
        Assert.That(SqlBuildCatalog.TryParsePdbUrl(url, out _, out _, out string? error), Is.False);
        Assert.That(error, Is.Not.Null.And.Not.Empty);

        var ex = Assert.Throws<InvalidTextInputException>(() =>
            SqlBuildCatalog.Read(
                new StringReader(Line("13.0.4001.0", "x64", GoodUrl) + "\n" + Line("13.0.4002.0", "x64", url) + "\n")
            )
        );
        Assert.That(ex!.Line, Is.EqualTo(2));
        Assert.That(ex.Detail, Does.Contain("DownloadURL"));
    }

    [Test]
    public void TryParsePdbUrl_AcceptsUpperCaseKeyAndMixedCaseName()
    {
        Assert.That(
            SqlBuildCatalog.TryParsePdbUrl(
                "https://msdl.microsoft.com/download/symbols/SqlDK.pdb/A32ECBDDB336439994CC1BF8CA5612052/SqlDK.pdb",
                out string? name,
                out PdbIdentity id,
                out _
            ),
            Is.True
        );
        Assert.That(name, Is.EqualTo("SqlDK.pdb"));
        Assert.That(id, Is.EqualTo(new PdbIdentity(Guid.Parse("a32ecbdd-b336-4399-94cc-1bf8ca561205"), 2)));
    }

    [TestCase("{\"BuildNumber\":\"13.0.1.0\"", "JSON")]
    [TestCase("[1,2]", "object")]
    [TestCase("{\"MachineType\":\"x64\",\"SymbolDetails\":[]}", "BuildNumber")]
    [TestCase("{\"BuildNumber\":\"13.0.1.0\",\"MachineType\":\"x64\"}", "SymbolDetails")]
    [TestCase("{\"BuildNumber\":13,\"MachineType\":\"x64\",\"SymbolDetails\":[]}", "BuildNumber")]
    [TestCase(
        "{\"BuildNumber\":\"13.0.1.0\",\"MachineType\":\"x64\",\"SymbolDetails\":[{\"PDBName\":\"a\"}]}",
        "DownloadURL"
    )]
    [TestCase("{\"BuildNumber\":\"13.0.1.0\",\"MachineType\":\"x64\",\"SymbolDetails\":[7]}", "SymbolDetails")]
    [TestCase(
        "{\"BuildNumber\":\"13.0.1.0\",\"Label\":\"\\ud800\",\"MachineType\":\"x64\",\"SymbolDetails\":[]}",
        "valid text"
    )]
    [TestCase("{\"BuildNumber\":\"\\udc00\\ud800\",\"MachineType\":\"x64\",\"SymbolDetails\":[]}", "valid text")]
    [TestCase(
        "{\"BuildNumber\":\"13.0.1.0\",\"\\ud800\":1,\"MachineType\":\"x64\",\"SymbolDetails\":[]}",
        "valid text"
    )]
    public void Read_ThrowsWithLineNumber_ForBadLine(string badLine, string expectedPart)
    {
        string text = Line("13.0.4001.0", "x64", GoodUrl) + "\n\n" + badLine + "\n";
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            SqlBuildCatalog.Read(new StringReader(text), "catalog.json")
        );
        Assert.That(ex!.Line, Is.EqualTo(3));
        Assert.That(ex.FilePath, Is.EqualTo("catalog.json"));
        Assert.That(ex.Detail, Does.Contain(expectedPart));
    }

    [Test]
    public void Enumerate_Streams_BuildsBeforeABadLine()
    {
        string text = Line("13.0.4001.0", "x64", GoodUrl) + "\n" + Line("13.0.4002.0", "x64", GoodUrl) + "\nnot json\n";
        using IEnumerator<SqlBuildInfo> e = SqlBuildCatalog.Enumerate(new StringReader(text)).GetEnumerator();
        Assert.That(e.MoveNext(), Is.True);
        Assert.That(e.Current.BuildNumber, Is.EqualTo("13.0.4001.0"));
        Assert.That(e.MoveNext(), Is.True);
        Assert.That(e.Current.BuildNumber, Is.EqualTo("13.0.4002.0"));
        Assert.Throws<InvalidTextInputException>(() => e.MoveNext());
    }

    [Test]
    public void Read_RefusesOverLongLine()
    {
        string text = "{\"BuildNumber\":\"" + new string('1', 2_000_000) + "\"}";
        var ex = Assert.Throws<InvalidTextInputException>(() => SqlBuildCatalog.Read(new StringReader(text)));
        Assert.That(ex!.Line, Is.EqualTo(1));
    }

    [Test]
    [SetCulture("tr-TR")]
    public void Find_WorksUnderTurkishCulture()
    {
        Assert.That("i".ToUpper(System.Globalization.CultureInfo.CurrentCulture), Is.EqualTo("\u0130"));
        SqlBuildCatalog catalog = SqlBuildCatalog.Read(
            new StringReader(Line("13.0.4001.0", "X86", GoodUrl.Replace("sqldk", "SQLDIAG", StringComparison.Ordinal)))
        );
        SqlBuildInfo b = catalog.Find("13.0.4001.0", "x86").Build!;
        Assert.That(b.Pdbs.Single().PdbFileName, Is.EqualTo("SQLDIAG.pdb"));
        Assert.That(b.Pdbs.Single().Identity.Key, Is.EqualTo("0123456789ABCDEF0123456789ABCDEF2"));
    }
}

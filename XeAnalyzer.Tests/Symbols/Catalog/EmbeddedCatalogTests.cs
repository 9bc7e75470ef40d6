using System.Security.Cryptography;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pe;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Catalog;

/// <summary>The build catalog embedded in the library (tools/catalog/make-catalog.py), layering, nearest builds, and
/// recording a build from its DLLs.</summary>
public class EmbeddedCatalogTests
{
    [Test]
    public void Embedded_EqualsThePublishedFile_EntryByEntry()
    {
        string published = TestPaths.RequireVector("buildinfo", "sqlbuildinfo.json");
        SqlBuildCatalog file = SqlBuildCatalog.Load(published);
        SqlBuildCatalog embedded = SqlBuildCatalog.Embedded;
        Assert.That(
            SqlBuildCatalog.EmbeddedSourceSha256,
            Is.EqualTo(Convert.ToHexStringLower(SHA256.HashData(File.ReadAllBytes(published)))),
            "generated from this very file"
        );
        Assert.That(embedded.Builds, Has.Count.EqualTo(file.Builds.Count));
        int pdbs = 0;
        for (int i = 0; i < file.Builds.Count; i++)
        {
            SqlBuildInfo a = file.Builds[i],
                b = embedded.Builds[i];
            Assert.That(
                (
                    b.ProductMajorVersion,
                    b.ProductLevel,
                    b.Label,
                    b.BuildNumber,
                    b.Version,
                    b.KBInfo,
                    b.MachineType,
                    b.LineNumber
                ),
                Is.EqualTo(
                    (
                        a.ProductMajorVersion,
                        a.ProductLevel,
                        a.Label,
                        a.BuildNumber,
                        a.Version,
                        a.KBInfo,
                        a.MachineType,
                        a.LineNumber
                    )
                ),
                $"build {i}"
            );
            Assert.That(b.Pdbs, Has.Count.EqualTo(a.Pdbs.Count), $"build {i}");
            for (int k = 0; k < a.Pdbs.Count; k++)
            {
                SqlBuildPdb p = a.Pdbs[k],
                    q = b.Pdbs[k];
                Assert.That(
                    (q.Name, q.PdbFileName, q.Identity, q.DownloadUrl, q.DownloadVerified, q.FileVersion),
                    Is.EqualTo((p.Name, p.PdbFileName, p.Identity, p.DownloadUrl, p.DownloadVerified, p.FileVersion)),
                    $"build {i} PDB {k}"
                );
                pdbs++;
            }
        }

        TestContext.Out.WriteLine($"{embedded.Builds.Count} builds and {pdbs} PDB entries equal to {published}");
        Assert.That(embedded.Builds.All(b => b.Source == SqlBuildCatalog.EmbeddedSource), Is.True);
    }

    [Test]
    public void Embedded_KnowsTheBuildOfTheSeedCapture_WithTheIdentityTheResolverTestsDownload()
    {
        // SQLCallStackResolver's downloadsyms.ps1 fetches sqldk 1d3fa75eb35540e287b2e012d69785df / age 2 for
        // 13.0.4001.0 (SQL 2016 SP1).
        SqlBuildInfo b = SqlBuildCatalog.Embedded.Find("13.0.4001.0").Build!;
        Assert.That(b.ProductMajorVersion, Is.EqualTo("SQL Server 2016"));
        SqlBuildPdb sqldk = b.Pdbs.Single(p => p.Name == "sqldk");
        Assert.That(sqldk.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("1d3fa75e-b355-40e2-87b2-e012d69785df"), 2)));
        Assert.That(
            sqldk.DownloadUrl,
            Is.EqualTo(
                "https://msdl.microsoft.com/download/symbols/sqldk.pdb/1d3fa75eb35540e287b2e012d69785df2/sqldk.pdb"
            )
        );
        Assert.That(SqlBuildCatalog.Embedded.Builds, Has.Count.GreaterThanOrEqualTo(400));
        Assert.That(
            SqlBuildCatalog.Embedded.Builds.Select(x => x.MachineType).Distinct(),
            Is.EquivalentTo(new[] { "x64", "x86" })
        );
    }

    [Test]
    public void Overlay_ReplacesTheSameBuildAndMachine_AndAddsNewOnes()
    {
        string sqldkUrl(string key) => "https://msdl.microsoft.com/download/symbols/sqldk.pdb/" + key + "/sqldk.pdb";
        string line(string build, string machine, string key) =>
            $"{{\"ProductMajorVersion\":\"SQL Server "
            + $"2016\",\"ProductLevel\":\"SP1\",\"Label\":\"mine\",\"BuildNumber\":\"{build}"
            + $"\",\"KBInfo\":\"\",\"SymbolDetails\":[{{\"PDBName\":\"sqldk\",\"DownloadURL\":\"{sqldkUrl(key)}"
            + $"\",\"DownloadVerified\":false}}],\"MachineType\":\"{machine}\"}}";
        string text =
            line("13.0.4001.0", "x64", "0123456789abcdef0123456789abcdef3")
            + "\n"
            + line("13.0.9999.1", "x64", "fedcba9876543210fedcba98765432101")
            + "\n"
            + line("10.50.6542.0", "x64", "0123456789abcdef0123456789abcdef4")
            + "\n";
        SqlBuildCatalog user = SqlBuildCatalog.Read(new StringReader(text), "user.json");
        SqlBuildCatalog combined = SqlBuildCatalog.Embedded.Overlay(user);

        Assert.That(combined.Builds, Has.Count.EqualTo(SqlBuildCatalog.Embedded.Builds.Count + 1));
        SqlBuildInfo overridden = combined.Find("13.0.4001.0").Build!;
        Assert.That(
            (overridden.Label, overridden.Source, overridden.Pdbs.Single().Identity.Age),
            Is.EqualTo(("mine", "user.json", 3))
        );
        Assert.That(combined.Find("10.50.6542.0", "x64").Build!.Source, Is.EqualTo("user.json"));
        Assert.That(
            combined.Find("10.50.6542.0", "x86").Build!.Source,
            Is.EqualTo(SqlBuildCatalog.EmbeddedSource),
            "another machine type is not replaced"
        );
        Assert.That(combined.Find("13.0.9999.1").Build!.Source, Is.EqualTo("user.json"));
    }

    [Test]
    public void FindNearest_GivesTheClosestBuildsOfTheSameMajorVersion_InVersionOrder()
    {
        IReadOnlyList<SqlBuildInfo> near = SqlBuildCatalog.Embedded.FindNearest("13.0.4002.0", "x64");
        Assert.That(near, Has.Count.EqualTo(4));
        Assert.That(near.Select(b => b.Version!.Major), Has.All.EqualTo(13));
        Assert.That(near.Select(b => b.Version), Is.Ordered);
        Assert.That(near.Select(b => b.BuildNumber), Has.Member("13.0.4001.0"));
        var below = SqlBuildCatalog
            .Embedded.Builds.Where(b =>
                b.MachineType == "x64" && b.Version! < new Version(13, 0, 4002, 0) && b.Version!.Major == 13
            )
            .Max(b => b.Version);
        var above = SqlBuildCatalog
            .Embedded.Builds.Where(b =>
                b.MachineType == "x64" && b.Version! > new Version(13, 0, 4002, 0) && b.Version!.Major == 13
            )
            .Min(b => b.Version);
        Assert.That(near.Select(b => b.Version), Has.Member(below).And.Member(above));

        // A major version the catalog does not have: the nearest builds overall.
        Assert.That(SqlBuildCatalog.Embedded.FindNearest("99.0.1.0", "x64"), Is.Not.Empty);
    }

    [Test]
    public void Describe_RecordsEveryEngineModuleOfTheBinaries_WithItsRsdsIdentityAndFileVersion()
    {
        ModuleBinaries binaries = ModuleBinaries.Scan([
            TestPaths.SymbolsCache,
            Path.Combine(TestPaths.TestData, "lines"),
        ]);
        SqlBuildInfo engine = SqlBuildCatalog.Describe("16.0.4135.4", null, binaries.Images);
        Assert.That(
            engine.Pdbs.Select(p => p.PdbFileName),
            Is.EqualTo(new[] { "sqldk.pdb", "sqllang.pdb", "sqlmin.pdb", "sqlTsEs.pdb" })
        );
        Assert.That(
            (engine.ProductMajorVersion, engine.MachineType, engine.BuildNumber),
            Is.EqualTo(("SQL Server 2022", "x64", "16.0.4135.4"))
        );
        foreach (SqlBuildPdb p in engine.Pdbs)
        {
            ModuleBinary dll = binaries.Images.Single(i => i.CodeView!.PdbFileName == p.PdbFileName);
            Assert.That(p.Identity, Is.EqualTo(dll.CodeView!.Identity), p.PdbFileName);
            Assert.That(p.DownloadVerified, Is.False);
            Assert.That(p.FileVersion, Is.Null, "the synthetic engine DLLs have no version resource");
            Assert.That(
                SqlBuildCatalog.TryParsePdbUrl(p.DownloadUrl, out string? file, out PdbIdentity id, out _),
                Is.True
            );
            Assert.That((file, id), Is.EqualTo((p.PdbFileName, p.Identity)));
        }

        SqlBuildInfo all = SqlBuildCatalog.Describe(
            "16.0.4135.4",
            "x64",
            binaries.Images,
            allModules: true,
            label: "CU16"
        );
        SqlBuildPdb xelines = all.Pdbs.Single(p => p.Name == "xelines");
        Assert.That(
            xelines.FileVersion,
            Is.EqualTo("2099.0990.1000.01 ((xeanalyzer_fixture).000101-0000)"),
            "the fixture's version resource (tools/fixtures/src/lines/xelines.rc)"
        );
        Assert.That(all.Label, Is.EqualTo("CU16"));

        // The line round-trips through the catalog reader.
        SqlBuildInfo back = SqlBuildCatalog.Read(new StringReader(SqlBuildCatalog.ToJsonLine(all))).Builds.Single();
        Assert.That(
            back.Pdbs.Select(p => (p.Name, p.Identity, p.DownloadUrl, p.FileVersion)),
            Is.EqualTo(all.Pdbs.Select(p => (p.Name, p.Identity, p.DownloadUrl, p.FileVersion)))
        );
        Assert.That((back.BuildNumber, back.MachineType, back.Label), Is.EqualTo(("16.0.4135.4", "x64", "CU16")));
        Assert.Throws<ArgumentException>(
            () =>
                SqlBuildCatalog.Describe(
                    "16.0.4135.4",
                    null,
                    ModuleBinaries.Scan([Path.Combine(TestPaths.TestData, "lines")]).Images
                ),
            "no engine module there"
        );
    }

    [Test]
    public void AddToFile_AppendsAndReplacesTheSameBuild()
    {
        string dir = Path.Combine(Path.GetTempPath(), "xea-catalog-" + Guid.NewGuid().ToString("N"));
        try
        {
            string path = Path.Combine(dir, "sub", "catalog.json");
            ModuleBinaries binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]);
            Assert.That(
                SqlBuildCatalog.AddToFile(path, SqlBuildCatalog.Describe("16.0.1.0", null, binaries.Images)),
                Is.Zero
            );
            Assert.That(
                SqlBuildCatalog.AddToFile(path, SqlBuildCatalog.Describe("16.0.2.0", null, binaries.Images)),
                Is.Zero
            );
            Assert.That(
                SqlBuildCatalog.AddToFile(
                    path,
                    SqlBuildCatalog.Describe("16.0.1.0", null, binaries.Images, label: "again")
                ),
                Is.EqualTo(1)
            );
            SqlBuildCatalog c = SqlBuildCatalog.Load(path);
            Assert.That(
                c.Builds.Select(b => (b.BuildNumber, b.Label)),
                Is.EqualTo(new[] { ("16.0.2.0", "recorded by xeanalyze symbols catalog add"), ("16.0.1.0", "again") })
            );
            Assert.That(
                Directory.GetFiles(Path.GetDirectoryName(path)!),
                Has.Length.EqualTo(1),
                "no temporary file left"
            );
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Test]
    public void PeVersionResource_ReadsTheFixturesFileVersion_AndNeverThrowsOnDamage()
    {
        string dll = Path.Combine(TestPaths.TestData, "lines", "xelines.dll");
        Assert.That(
            PeVersionResource.TryReadFileVersion(dll),
            Is.EqualTo("2099.0990.1000.01 ((xeanalyzer_fixture).000101-0000)")
        );
        string noResource = Directory
            .EnumerateFiles(TestPaths.SymbolsCache, "sqlmin.dll", SearchOption.AllDirectories)
            .First();
        Assert.That(PeVersionResource.TryReadFileVersion(noResource), Is.Null);

        byte[] original = File.ReadAllBytes(dll);
        string damaged = Path.Combine(Path.GetTempPath(), "xea-version-" + Guid.NewGuid().ToString("N") + ".dll");
        var random = new Random(7);
        try
        {
            // Damage the resource section (the last 512 bytes of the file hold it) byte by byte.
            for (int i = 0; i < 600; i++)
            {
                byte[] data = (byte[])original.Clone();
                int at = data.Length - 1 - random.Next(512);
                data[at] ^= (byte)random.Next(1, 256);
                File.WriteAllBytes(damaged, data);
                string? v = PeVersionResource.TryReadFileVersion(damaged);
                Assert.That(v is null || !v.Any(char.IsControl), Is.True, v);
            }
        }
        finally
        {
            File.Delete(damaged);
        }
    }
}

using XeAnalyzer.Cli;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Cli;

/// <summary><c>--sql-build</c> with the embedded catalog, and <c>xeanalyze symbols catalog show|list|add</c>.</summary>
[NonParallelizable] // sets XEANALYZER_BUILD_CATALOG and XDG_CONFIG_HOME
public sealed class CatalogCliTests
{
    private TempFolder _tmp = null!;
    private string? _oldCatalog;
    private string? _oldConfig;

    [SetUp]
    public void SetUp()
    {
        _tmp = new TempFolder();
        _oldCatalog = Environment.GetEnvironmentVariable(SqlBuildCatalog.EnvironmentVariable);
        _oldConfig = Environment.GetEnvironmentVariable("XDG_CONFIG_HOME");
        Environment.SetEnvironmentVariable(SqlBuildCatalog.EnvironmentVariable, null);
        Environment.SetEnvironmentVariable("XDG_CONFIG_HOME", Path.Combine(_tmp.Path, "config"));
    }

    [TearDown]
    public void TearDown()
    {
        Environment.SetEnvironmentVariable(SqlBuildCatalog.EnvironmentVariable, _oldCatalog);
        Environment.SetEnvironmentVariable("XDG_CONFIG_HOME", _oldConfig);
        _tmp.Dispose();
    }

    [Test]
    public void Resolve_SqlBuild_WorksWithNoCatalogOption_ThroughTheEmbeddedCatalog()
    {
        string input = _tmp.File("in.txt");
        File.WriteAllText(input, "sqldk+0x40609\n");
        string empty = Directory.CreateDirectory(_tmp.File("empty")).FullName;
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--sql-build",
            "13.0.4001.0",
            "--symbols",
            empty,
            "--offline",
        ]);
        Assert.That(exit, Is.EqualTo(0), err);

        // No PDB is at hand, but the frame now asks for exactly the build's sqldk.pdb (SQL Server 2016 SP1).
        Assert.That(
            output,
            Is.EqualTo("sqldk+0x40609 -- unresolved: no PDB for sqldk.pdb 1D3FA75E-B355-40E2-87B2-E012D69785DF/2\n")
        );
    }

    [Test]
    public void SqlBuild_UnknownBuild_NamesTheNearestBuildsAndTheCatalogAddCommand()
    {
        string input = _tmp.File("in.txt");
        File.WriteAllText(input, "sqldk+0x40609\n");
        (int exit, _, string err) = CliRunner.Run(["resolve", input, "--sql-build", "13.0.4002.0", "--offline"]);
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.Contain("no x64 build 13.0.4002.0 in the catalog embedded in XeAnalyzer"));
        Assert.That(err, Does.Contain("Nearest known x64 builds: ").And.Contain("13.0.4001.0 (SQL Server 2016 SP1)"));
        Assert.That(
            err,
            Does.Contain("xeanalyze symbols catalog add --binaries <Binn folder> --sql-build 13.0.4002.0")
        );
    }

    [Test]
    public void CatalogShow_ListsTheModulesWithPdbNameGuidAgeAndFileVersion()
    {
        (int exit, string output, string err) = CliRunner.Run(["symbols", "catalog", "show", "13.0.4001.0"]);
        Assert.That(exit, Is.EqualTo(0), err);
        string[] lines = output.Split('\n');
        Assert.That(lines[0], Is.EqualTo("13.0.4001.0 x64: SQL Server 2016 SP1 (KB3182545)"));
        Assert.That(lines[1], Does.StartWith("source: embedded catalog"));
        Assert.That(
            lines.Single(l => l.StartsWith("sqldk.pdb ", StringComparison.Ordinal)),
            Does.Match(
                @"^sqldk\.pdb +1D3FA75E-B355-40E2-87B2-E012D69785DF +2 +yes +2015\.0130\.4001\.00 "
                    + @"\(\(SQL16_PCU_Main\)\.161028-1734\)$"
            )
        );
        SqlBuildInfo b = SqlBuildCatalog.Embedded.Find("13.0.4001.0").Build!;
        Assert.That(
            lines.Count(l =>
                l.Contains(".pdb ", StringComparison.Ordinal) && !l.StartsWith("PDB", StringComparison.Ordinal)
            ),
            Is.EqualTo(b.Pdbs.Count)
        );

        (exit, _, err) = CliRunner.Run(["symbols", "catalog", "show", "13.0.4002.0"]);
        Assert.That(exit, Is.EqualTo(2));
        Assert.That(err, Does.Contain("Nearest known x64 builds"));
    }

    [Test]
    public void CatalogList_ShowsEveryKnownBuild_AndTheFilesLaidOverTheEmbeddedCatalog()
    {
        (int exit, string output, string err) = CliRunner.Run(["symbols", "catalog", "list"]);
        Assert.That(exit, Is.EqualTo(0), err);
        int count = SqlBuildCatalog.Embedded.Builds.Count;
        Assert.That(output.Split('\n', StringSplitOptions.RemoveEmptyEntries), Has.Length.EqualTo(count + 1));
        Assert.That(output, Does.EndWith($"{count} build(s) listed; {count} from the embedded catalog\n"));

        string fixture = Path.Combine(TestPaths.TestData, "catalog", "fixture-buildinfo.json");
        (exit, output, err) = CliRunner.Run(["symbols", "catalog", "list", "--catalog", fixture, "--machine", "x64"]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(
            output,
            Does.Contain(
                "99.0.1000.1     x64     4 PDB(s)  SQL Server 2099 RTM XeAnalyzer synthetic fixture  [" + fixture + "]"
            )
        );
        Assert.That(output, Does.Not.Contain(" x86 "));
    }

    [Test]
    public void CatalogAdd_RecordsABuildFromItsDlls_ThatSqlBuildThenResolvesVerified()
    {
        string catalog = _tmp.File("mine.json");
        (int exit, string output, string err) = CliRunner.Run([
            "symbols",
            "catalog",
            "add",
            "--binaries",
            TestPaths.SymbolsCache,
            "--sql-build",
            "16.0.9999.1",
            "--catalog",
            catalog,
            "--label",
            "CU99",
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("recorded 16.0.9999.1 x64 (4 PDB(s)) in " + catalog));
        Assert.That(
            File.ReadAllText(catalog),
            Does.StartWith(
                "{\"ProductMajorVersion\":\"SQL Server "
                    + "2022\",\"ProductLevel\":\"\",\"Label\":\"CU99\",\"BuildNumber\":\"16.0.9999.1\""
            )
        );

        // The seed stack resolves through the recorded identities: verified frames, no DLLs needed any more.
        string input = _tmp.File("a.txt");
        File.WriteAllText(input, ResolutionFixtures.StackAModuleOffsetText() + "\n");
        (exit, output, err) = CliRunner.Run([
            "resolve",
            input,
            "--sql-build",
            "16.0.9999.1",
            "--catalog",
            catalog,
            "--symbols",
            TestPaths.SymbolsCache,
            "--offline",
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(err, Does.Contain("(0 unverified)").And.Contain("identity from the build catalog"));

        // The environment variable names the same file.
        Environment.SetEnvironmentVariable(SqlBuildCatalog.EnvironmentVariable, catalog);
        (exit, output, _) = CliRunner.Run(["symbols", "catalog", "show", "16.0.9999.1"]);
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Does.Contain("source: " + catalog + ", line 1"));
    }

    [Test]
    public void CatalogAdd_WithoutCatalogOption_WritesThePerUserCatalog_ThatEveryLookupReads()
    {
        (int exit, string output, string err) = CliRunner.Run([
            "symbols",
            "catalog",
            "add",
            "--binaries",
            TestPaths.SymbolsCache,
            "--sql-build",
            "16.0.9999.2",
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        string user = SqlBuildCatalog.GetUserCatalogPath();
        Assert.That(user, Does.StartWith(_tmp.Path));
        Assert.That(File.Exists(user), Is.True);

        (exit, output, err) = CliRunner.Run(["symbols", "catalog", "show", "16.0.9999.2"]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("sqlmin.pdb"));

        // Recording it again replaces the entry; an unknown option value is a usage error.
        (exit, output, _) = CliRunner.Run([
            "symbols",
            "catalog",
            "add",
            "--binaries",
            TestPaths.SymbolsCache,
            "--sql-build",
            "16.0.9999.2",
        ]);
        Assert.That(output, Does.Contain("replacing its earlier entry"));
        Assert.That(SqlBuildCatalog.Load(user).Builds, Has.Count.EqualTo(1));
        Assert.That(
            CliRunner.Run(["symbols", "catalog", "add", "--binaries", TestPaths.SymbolsCache]).Exit,
            Is.EqualTo(2)
        );
        Assert.That(CliRunner.Run(["symbols", "catalog", "add", "--sql-build", "16.0.1.0"]).Exit, Is.EqualTo(2));
    }

    [Test]
    public void CatalogAdd_RefusesADllWhoseRsdsNamesAnInvalidPdb_NamingTheDll()
    {
        // sqldk.dll's RSDS record names "sqldk.pdb"; a control character in it makes a name no symbol store can hold.
        string bin = Directory.CreateDirectory(_tmp.File("bin")).FullName;
        string dll = Path.Combine(bin, "sqldk.dll");
        byte[] image = File.ReadAllBytes(
            Directory
                .GetFiles(Path.Combine(TestPaths.SymbolsCache, "sqldk.dll"), "sqldk.dll", SearchOption.AllDirectories)
                .Single()
        );
        int rsds = image.AsSpan().IndexOf("RSDS"u8);
        Assert.That(image.AsSpan(rsds + 24, 10).ToArray(), Is.EqualTo("sqldk.pdb\0"u8.ToArray()));
        image[rsds + 24 + 2] = 0x01;
        File.WriteAllBytes(dll, image);
        string catalog = _tmp.File("mine.json");

        (int exit, string output, string err) = CliRunner.Run([
            "symbols",
            "catalog",
            "add",
            "--binaries",
            bin,
            "--sql-build",
            "16.0.9999.3",
            "--catalog",
            catalog,
        ]);
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError), err);
        Assert.That(output, Is.Empty);
        Assert.That(
            err,
            Is.EqualTo(
                "xeanalyze: "
                    + dll
                    + ": expected an RSDS (CodeView) record naming a PDB file a "
                    + "symbol store can hold: "
                    + "the PDB name 'sq\\u0001dk.pdb' contains control characters\n"
            )
        );
        Assert.That(File.Exists(catalog), Is.False, "nothing recorded");
    }

    [Test]
    public void CatalogShow_OfABuildWithoutPdbs_IsBadInput_NamingTheFileAndLine()
    {
        string catalog = _tmp.File("mine.json");
        File.WriteAllText(
            catalog,
            "\n{\"BuildNumber\":\"16.0.9999.4\",\"MachineType\":\"x64\",\"SymbolDetails\":[]}\n"
        );
        (int exit, string output, string err) = CliRunner.Run([
            "symbols",
            "catalog",
            "show",
            "16.0.9999.4",
            "--catalog",
            catalog,
        ]);
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError), err);
        Assert.That(output, Is.Empty);
        Assert.That(
            err,
            Is.EqualTo(
                "xeanalyze: "
                    + catalog
                    + ": line 2: SQL build catalog: expected at least one PDB "
                    + "in the \"SymbolDetails\" of 16.0.9999.4 x64, found none\n"
            )
        );

        // The published catalog lists such builds too (the embedded one keeps them, as published).
        SqlBuildInfo empty = SqlBuildCatalog.Embedded.Builds.First(b =>
            b.Pdbs.Count == 0
            && SqlBuildCatalog.Embedded.Find(b.BuildNumber, b.MachineType).Status == SqlBuildLookupStatus.Found
        );
        (exit, _, err) = CliRunner.Run([
            "symbols",
            "catalog",
            "show",
            empty.BuildNumber,
            "--machine",
            empty.MachineType,
        ]);
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError), err);
        Assert.That(
            err,
            Does.StartWith(
                "xeanalyze: the embedded build catalog: line "
                    + empty.LineNumber.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + ": "
            )
        );
    }

    [Test]
    public void ACatalogFileWithALoneSurrogate_IsBadInput_ForTheCommandsThatReadItExplicitly()
    {
        string catalog = _tmp.File("mine.json");
        File.WriteAllText(
            catalog,
            "{\"BuildNumber\":\"16.0.9999.5\",\"Label\":\"\\ud800\",\"MachineType\":\"x64\",\"SymbolDetails\":[]}\n"
        );
        foreach (
            string[] args in new[]
            {
                new[] { "symbols", "catalog", "list", "--catalog", catalog },
                ["symbols", "catalog", "show", "13.0.4001.0", "--catalog", catalog],
                ["resolve", catalog, "--sql-build", "13.0.4001.0", "--catalog", catalog, "--offline"],
            }
        )
        {
            (int exit, string output, string err) = CliRunner.Run(args);
            Assert.That(exit, Is.EqualTo(ExitCodes.InputError), string.Join(' ', args) + ": " + err);
            Assert.That(
                err,
                Does.StartWith(
                    "xeanalyze: " + catalog + ": line 1: SQL build catalog: expected JSON " + "strings of valid text"
                ),
                string.Join(' ', args)
            );
            Assert.That(err, Does.Not.Contain("internal error"));
        }
    }

    [Test]
    public void ABadPerUserCatalog_DoesNotBreakLookupsTheEmbeddedCatalogAnswers_ItIsAWarningOnce()
    {
        string user = SqlBuildCatalog.GetUserCatalogPath();
        Directory.CreateDirectory(Path.GetDirectoryName(user)!);
        File.WriteAllText(
            user,
            "{\"BuildNumber\":\"16.0.9999.6\",\"Label\":\"\\ud800\",\"MachineType\":\"x64\",\"SymbolDetails\":[]}\n"
        );
        string input = _tmp.File("in.txt");
        File.WriteAllText(input, "sqldk+0x40609\n");
        string empty = Directory.CreateDirectory(_tmp.File("empty")).FullName;

        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--sql-build",
            "13.0.4001.0",
            "--symbols",
            empty,
            "--offline",
        ]);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(
            output,
            Is.EqualTo(
                "sqldk+0x40609 -- unresolved: no PDB for sqldk.pdb " + "1D3FA75E-B355-40E2-87B2-E012D69785DF/2\n"
            )
        );
        string warning =
            "xeanalyze: warning: the per-user build catalog "
            + user
            + " is left out: it cannot be read: "
            + "line 1: SQL build catalog: expected JSON strings of valid text";
        Assert.That(err.Split('\n').Count(l => l.StartsWith(warning, StringComparison.Ordinal)), Is.EqualTo(1), err);

        // Reading the catalog in force on purpose still fails on it, naming it.
        (exit, _, err) = CliRunner.Run(["symbols", "catalog", "list"]);
        Assert.That(exit, Is.EqualTo(ExitCodes.InputError));
        Assert.That(err, Does.StartWith("xeanalyze: " + user + ": line 1: "));
    }
}

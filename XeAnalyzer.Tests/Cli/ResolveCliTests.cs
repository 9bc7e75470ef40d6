using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using XeAnalyzer.Cli;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Output;
using XeAnalyzer.Tests.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Store;

namespace XeAnalyzer.Tests.Cli;

/// <summary><c>xeanalyze resolve</c> and <c>xeanalyze symbols</c>, run in-process through
/// <see cref="Program.Run"/>.</summary>
public sealed class ResolveCliTests
{
    private string _scratch = null!;

    [SetUp]
    public void SetUp() => _scratch = ResolutionFixtures.NewScratch();

    [TearDown]
    public void TearDown() => ResolutionFixtures.DeleteScratch(_scratch);

    private string Write(string name, string text)
    {
        string path = Path.Combine(_scratch, name);
        File.WriteAllText(path, text);
        return path;
    }

    private static string[] FixtureBuildArgs() =>
        ["--sql-build", ResolutionFixtures.FixtureBuild, "--catalog", ResolutionFixtures.CatalogPath];

    [Test]
    public void Resolve_SeedStackA_WritesThePublishedStack_AndTheSummaryToStderr()
    {
        string input = Write("a.txt", ResolutionFixtures.StackAModuleOffsetText());
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            TestPaths.SymbolsCache,
            "--offline",
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(
            err,
            Does.Contain("24 frame(s): 0 symbolized in-engine, 24 resolved offline (0 unverified), 0 unresolved")
        );
    }

    [Test]
    public void Resolve_ResolverStyleToFile_WithJsonSummary()
    {
        string input = Write("a.txt", ResolutionFixtures.StackAModuleOffsetText());
        string outFile = Path.Combine(_scratch, "out.txt");
        string json = Path.Combine(_scratch, "summary.json");
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            TestPaths.SymbolsCache,
            "--frame-style",
            "resolver",
            "-o",
            outFile,
            "--summary-json",
            json,
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Is.Empty);
        string[] lines = File.ReadAllLines(outFile);
        Assert.That(lines[0], Is.EqualTo("sqlmin!XeSqlPkg::latch_acquired::Publish+425"));
        Assert.That(lines, Has.Length.EqualTo(24));
        Assert.That(DocumentJson.Value(DocumentJson.ParseFile(json), "resolved offline").GetInt64(), Is.EqualTo(24));
    }

    [Test]
    public void Resolve_StandardInput_FramesOnOneLine_AndResolverOutputAsInput()
    {
        TextReader saved = Console.In;
        try
        {
            Console.SetIn(new StringReader("sqlmin.dll+0x11e9 sqlmin.dll+0x1411\n"));
            (int exit, string output, string err) = CliRunner.Run([
                "resolve",
                "-",
                "--single-line",
                "--symbols",
                TestPaths.SymbolsCache,
                .. FixtureBuildArgs(),
            ]);
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA.Take(2)));
            Assert.That(err, Does.Contain("xeanalyze: -: 1 stack(s)"));

            // Re-reading a resolver's output: +425 is decimal there.
            Console.SetIn(new StringReader("sqlmin!XeSqlPkg::latch_acquired::Publish+425\n"));
            (exit, output, err) = CliRunner.Run(
                "resolve",
                "-",
                "--resolved-input",
                "--symbols",
                TestPaths.SymbolsCache
            );
            Assert.That(exit, Is.EqualTo(0), err);
            Assert.That(output, Is.EqualTo(ResolutionFixtures.PublishedStackA[0] + "\n"));
        }
        finally
        {
            Console.SetIn(saved);
        }
    }

    [Test]
    public void Resolve_OrdinalsWithBinaries_AndNoOffsets()
    {
        string input = Write("o.txt", "sqlmin.dll!Ordinal5+0x20\n");
        (int exit, string output, string err) = CliRunner.Run(
            "resolve",
            input,
            "--symbols",
            TestPaths.SymbolsCache,
            "--binaries",
            TestPaths.SymbolsCache,
            "--no-offsets"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Is.EqualTo("sqlmin.dll!FnProducerThread\n"));
        Assert.That(err, Does.Contain("hint: 1 frame(s) of sqlmin.dll are export ordinals"));
    }

    [Test]
    public void Resolve_FindsTheSidecarModuleList_BesideTheInput()
    {
        string input = Write("capture.txt", "0x00007FFAD08A11E9\n");
        Write("capture.modules.txt", "name\tbase_address\nC:\\Binn\\sqlmin.dll\t0x00007FFAD08A0000\n");
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            TestPaths.SymbolsCache,
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Is.EqualTo(ResolutionFixtures.PublishedStackA[0] + "\n"));
        Assert.That(err, Does.Contain("using the module list"));
    }

    [Test]
    public void Resolve_ExitCodes_MissingInputIs1_BadOptionIs2_MalformedInputIs1()
    {
        Assert.That(CliRunner.Run("resolve", Path.Combine(_scratch, "nope.txt")).Exit, Is.EqualTo(1));
        Assert.That(
            CliRunner.Run("resolve", Write("x.txt", "sqlmin.dll+0x1"), "--frame-style", "fancy").Exit,
            Is.EqualTo(2)
        );
        Assert.That(
            CliRunner.Run("resolve", Write("y.txt", "sqlmin.dll+0x1"), "--sql-build", "99.0.1000.1").Exit,
            Is.EqualTo(2),
            "--sql-build without a catalog"
        );
        Assert.That(
            CliRunner
                .Run(
                    "resolve",
                    Write("z.txt", "sqlmin.dll+0x1"),
                    "--sql-build",
                    "12.9.9.9",
                    "--catalog",
                    ResolutionFixtures.CatalogPath
                )
                .Exit,
            Is.EqualTo(2),
            "a build not in the catalog"
        );

        // A count beyond 64 bits is not a histogram SQL Server writes: the reader refuses it with the line, never
        // crashes.
        string huge = Write(
            "huge.xml",
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot "
                + "count=\"99999999999999999999999\"><value>sqlmin.dll+0x11e9</value></Slot></HistogramTarget>\n"
        );
        (int exit, _, string err) = CliRunner.Run("resolve", huge, "--symbols", TestPaths.SymbolsCache);
        Assert.That(exit, Is.EqualTo(1));
        Assert.That(err, Does.Contain("huge.xml").And.Contain("line 1").And.Contain("count"));
        Assert.That(
            err.Split('\n', StringSplitOptions.RemoveEmptyEntries),
            Has.Length.EqualTo(1),
            "one line, no stack trace"
        );
    }

    [Test]
    public void Resolve_UnresolvedFrames_StillExit0()
    {
        (int exit, string output, _) = CliRunner.Run(
            "resolve",
            Write("u.txt", "ntdll.dll+0x91735\n"),
            "--symbols",
            _scratch,
            "--offline"
        );
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Is.EqualTo("ntdll.dll+0x91735 -- unresolved: no PDB for ntdll.pdb (GUID/age unknown)\n"));
    }

    [Test]
    public void Resolve_LockHashHistogram_KeepsEverySlotAndCount_AndWarnsTheMapIsUnused()
    {
        string xml = TestPaths.RequireVector("target-xml", "lock_hash_histogram.xml");
        string map = TestPaths.RequireVector("target-xml", "lock_hash_base_addresses.txt");
        var slots = XDocument.Load(xml).Descendants("Slot").ToList();
        (int exit, string output, string err) = CliRunner.Run(
            "resolve",
            xml,
            "--modules",
            map,
            "--symbols",
            _scratch,
            "--offline"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        string[] headers = output.Split('\n').Where(l => l.StartsWith("Slot_", StringComparison.Ordinal)).ToArray();
        Assert.That(
            headers,
            Is.EqualTo(slots.Select((s, i) => $"Slot_{i}\t[count:{s.Attribute("count")!.Value}]:").ToArray())
        );
        int frames = slots.Sum(s =>
            s.Element("value")!.Value.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length
        );
        Assert.That(
            output.Split('\n').Count(l => l.Contains(".dll+0x", StringComparison.Ordinal)),
            Is.EqualTo(frames),
            "every frame is kept (raw)"
        );
        Assert.That(err, Does.Contain("warning: a module map was given but no frame is a raw address"));
    }

    [Test]
    public void Resolve_LockHashWithRealCatalogOffline_ReportsWhichPdbBuildsAreMissing()
    {
        string xml = TestPaths.RequireVector("target-xml", "lock_hash_histogram.xml");
        string catalog = TestPaths.RequireVector("buildinfo", "sqlbuildinfo.json");
        (int exit, string output, string err) = CliRunner.Run(
            "resolve",
            xml,
            "--sql-build",
            "13.0.4001.0",
            "--catalog",
            catalog,
            "--offline",
            "--symbols",
            _scratch
        );
        Assert.That(exit, Is.EqualTo(0), err);

        // 13.0.4001.0's sqldk.pdb is 1d3fa75eb35540e287b2e012d69785df / age 2 (PDB-AND-SYMBOLS.md §8; the catalog's
        // download URL).
        Assert.That(
            output,
            Does.Contain(
                "sqldk.dll+0x00000000000FD919 -- unresolved: no PDB for sqldk.pdb "
                    + "1D3FA75E-B355-40E2-87B2-E012D69785DF/2\n"
            )
        );
        string catalogLine = File.ReadLines(catalog)
            .First(l => l.Contains("\"13.0.4001.0\"", StringComparison.Ordinal));
        foreach (string module in new[] { "sqlmin", "sqllang" })
        {
            Match m = Regex.Match(catalogLine, "/" + module + @"\.pdb/([0-9a-fA-F]{32})([0-9a-fA-F]+)/");
            string expected =
                $"no PDB for {module}.pdb "
                + $"{Guid.ParseExact(m.Groups[1].Value, "N").ToString("D").ToUpperInvariant()}"
                + $"/{Convert.ToInt32(m.Groups[2].Value, 16)}";
            Assert.That(err, Does.Contain("unresolved: ").And.Contain(expected), module);
        }

        Assert.That(err, Does.Contain("searched: "));
    }

    [Test]
    public void Resolve_FromLoopbackSymbolServer_DownloadsIntoTheCacheAndResolves()
    {
        using LoopbackSymbolServer server = Serve(TestPaths.SymbolsCache);
        string cache = Path.Combine(_scratch, "cache");
        string input = Write("a.txt", ResolutionFixtures.StackAModuleOffsetText());
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            $"srv*{cache}*{server.BaseUrl}",
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(
            File.Exists(Path.Combine(cache, "sqlmin.pdb", "9C072258C83813094C4C44205044422E1", "sqlmin.pdb")),
            Is.True
        );
        Assert.That(
            server.Requests.Select(r => r.Path),
            Is.EquivalentTo(
                new[]
                {
                    "/symbols/sqlmin.pdb/9C072258C83813094C4C44205044422E1/sqlmin.pdb",
                    "/symbols/sqlTsEs.pdb/5E17738A556858D84C4C44205044422E1/sqlTsEs.pdb",
                }
            )
        );
        AssertNothingOutside(cache, "a.txt");
    }

    [Test]
    public void Resolve_FromHostileSymbolServer_KeepsFramesRawWithReasons()
    {
        using LoopbackSymbolServer server = Serve(TestPaths.SymbolsCache);

        // Wrong PDB: sqlmin's key serves sqldk's PDB. Errors: sqlTsEs answers 500. Slow: a ".ptr"-free third PDB never
        // answers in time.
        server.Files["sqlmin.pdb/9C072258C83813094C4C44205044422E1/sqlmin.pdb"] = File.ReadAllBytes(
            Fixtures.FixtureFiles.StrippedPdb("sqldk")
        );
        server.Overrides["sqlTsEs.pdb/5E17738A556858D84C4C44205044422E1/sqlTsEs.pdb"] = new ServedResponse
        {
            Status = 500,
            Body = "boom"u8.ToArray(),
        };
        server.Overrides["sqldk.pdb/F18DB68E06F3C95A4C4C44205044422E1/sqldk.pdb"] = new ServedResponse
        {
            DelayBeforeHeaders = TimeSpan.FromSeconds(30),
            Body = [1, 2, 3],
        };
        string cache = Path.Combine(_scratch, "cache");
        string input = Write("a.txt", ResolutionFixtures.StackAModuleOffsetText() + "\nsqldk.dll+0x11f5\n");
        (int exit, string output, string err) = CliRunner.Run([
            "resolve",
            input,
            "--symbols",
            $"srv*{cache}*{server.BaseUrl}",
            "--symbol-timeout",
            "1",
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(err, Does.Contain("timed out after 1 s"), "the slow server is cut off by --symbol-timeout");
        string[] lines = ResolutionFixtures.Lines(output);
        Assert.That(
            lines[0],
            Is.EqualTo("sqlmin.dll+0x11e9 -- unresolved: no PDB for sqlmin.pdb 9C072258-C838-1309-4C4C-44205044422E/1")
        );
        Assert.That(
            lines[19],
            Is.EqualTo(
                "sqlTsEs.dll+0x1267 -- unresolved: no PDB for sqlTsEs.pdb 5E17738A-5568-58D8-4C4C-44205044422E/1"
            )
        );
        Assert.That(
            lines[24],
            Is.EqualTo("sqldk.dll+0x11f5 -- unresolved: no PDB for sqldk.pdb F18DB68E-06F3-C95A-4C4C-44205044422E/1")
        );
        Assert.That(err, Does.Contain("500"));
        Assert.That(
            err,
            Does.Contain("F18DB68E-06F3-C95A-4C4C-44205044422E").Or.Contain("F18DB68E06F3C95A4C4C44205044422E")
        );
        Assert.That(
            Directory.Exists(cache) ? Directory.GetFiles(cache, "*.pdb", SearchOption.AllDirectories) : [],
            Is.Empty,
            "no bad download stays in the cache"
        );
        AssertNothingOutside(cache, "a.txt");
    }

    [Test]
    public void SymbolsFetchVerifyList_FillAndCheckACache()
    {
        using LoopbackSymbolServer server = Serve(TestPaths.SymbolsCache);
        string cache = Path.Combine(_scratch, "cache");
        (int exit, string output, string err) = CliRunner.Run([
            "symbols",
            "fetch",
            "--symbols",
            $"srv*{cache}*{server.BaseUrl}",
            .. FixtureBuildArgs(),
        ]);
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(Regex.Count(output, ": downloaded "), Is.EqualTo(4), output);

        (exit, output, _) = CliRunner.Run("symbols", "list", cache);
        Assert.That(exit, Is.EqualTo(0));
        Assert.That(output, Does.Contain("4 file(s)"));
        Assert.That(output, Does.Contain("sqllang.pdb"));

        (exit, output, _) = CliRunner.Run("symbols", "verify", cache);
        Assert.That(exit, Is.EqualTo(0), output);
        Assert.That(output, Does.Contain("4 PDB(s) ok, 0 invalid"));

        // A PDB in the wrong key folder is reported, then deleted on request.
        string wrong = Path.Combine(cache, "sqlmin.pdb", "9C072258C83813094C4C44205044422E1", "sqlmin.pdb");
        File.Copy(Fixtures.FixtureFiles.StrippedPdb("sqldk"), wrong, overwrite: true);
        (exit, output, _) = CliRunner.Run("symbols", "verify", cache);
        Assert.That(exit, Is.EqualTo(3));
        Assert.That(output, Does.Contain("mismatch"));
        (exit, _, _) = CliRunner.Run("symbols", "verify", cache, "--delete-invalid");
        Assert.That(exit, Is.EqualTo(3));
        Assert.That(File.Exists(wrong), Is.False);

        // One PDB by GUID and age.
        (exit, output, err) = CliRunner.Run(
            "symbols",
            "fetch",
            "--symbols",
            $"srv*{cache}*{server.BaseUrl}",
            "--pdb",
            "sqlmin.pdb",
            "--guid",
            "9c072258-c838-1309-4c4c-44205044422e",
            "--age",
            "1"
        );
        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(File.Exists(wrong), Is.True);

        // Not on the server: exit 3 with the reason.
        (exit, output, _) = CliRunner.Run(
            "symbols",
            "fetch",
            "--symbols",
            $"srv*{cache}*{server.BaseUrl}",
            "--pdb",
            "nothere.pdb",
            "--guid",
            Guid.NewGuid().ToString(),
            "--age",
            "0x2"
        );
        Assert.That(exit, Is.EqualTo(3));
        Assert.That(output, Does.Contain("nothere.pdb").And.Contain("not found"));
        AssertNothingOutside(cache);
    }

    [Test]
    public void SymbolsFetch_BadArguments_AreUsageErrors()
    {
        Assert.That(CliRunner.Run("symbols", "fetch").Exit, Is.EqualTo(2));
        Assert.That(
            CliRunner.Run("symbols", "fetch", "--pdb", "a.pdb", "--guid", "not-a-guid", "--age", "1").Exit,
            Is.EqualTo(2)
        );
        Assert.That(
            CliRunner
                .Run("symbols", "fetch", "--pdb", "a.pdb", "--guid", Guid.NewGuid().ToString(), "--age", "-1")
                .Exit,
            Is.EqualTo(2)
        );
        Assert.That(CliRunner.Run("symbols", "verify", Path.Combine(_scratch, "missing")).Exit, Is.EqualTo(1));
    }

    private static LoopbackSymbolServer Serve(string storeRoot)
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

    /// <summary>Nothing was written in the scratch folder except under <paramref name="cache"/> and the test's own
    /// inputs.</summary>
    private void AssertNothingOutside(string cache, params string[] inputs)
    {
        string[] outside = Directory
            .GetFiles(_scratch, "*", SearchOption.AllDirectories)
            .Where(f =>
                !f.StartsWith(cache + Path.DirectorySeparatorChar, StringComparison.Ordinal)
                && !inputs.Contains(Path.GetFileName(f))
            )
            .ToArray();
        Assert.That(outside, Is.Empty);
    }
}

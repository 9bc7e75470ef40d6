using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Fixtures;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// The committed symbol fixtures as the resolver tests use them, and the independent expected data (llvm-symbolizer,
/// llvm-pdbutil and the fixture manifest recorded by tools/fixtures/build.sh; the published seed stack A).
/// </summary>
internal static class ResolutionFixtures
{
    public const string FixtureBuild = "99.0.1000.1";

    /// <summary>Stack A as published (SEED-STACKS.md §1), leaf first.</summary>
    public static readonly string[] PublishedStackA =
    [
        "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
        "sqlmin.dll!LatchBase::RecordAcquire+0x191",
        "sqlmin.dll!LatchBase::AcquireInternal+0x499",
        "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
        "sqlmin.dll!PFSPageRef::ModifyPFSRow+0x68b",
        "sqlmin.dll!ChangeExtStateInPFS+0x2a9",
        "sqlmin.dll!AllocationReq::AllocateExtent+0x33e",
        "sqlmin.dll!AllocationReq::AllocatePages+0x123b",
        "sqlmin.dll!AllocationReq::Allocate+0xf3",
        "sqlmin.dll!ExtentAllocator::PreAllocateExtents+0x457",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::PreAllocate+0x72",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::AllocateExtents+0x26c",
        "sqlmin.dll!CBulkAllocator::AllocateExtent+0x226",
        "sqlmin.dll!CBulkAllocator::AllocatePageId+0xe4",
        "sqlmin.dll!CBulkAllocator::AllocateLinkedAndFormattedLeafPage+0xc1",
        "sqlmin.dll!CHeapBuild::AllocateNextHeapPage+0x1f",
        "sqlmin.dll!CHeapBuild::InsertRow+0x1b1",
        "sqlmin.dll!RowsetBulk::InsertRow+0x23a9",
        "sqlmin.dll!CValRow::SetDataX+0x5b",
        "sqlTsEs.dll!CDefaultCollation::IHashW+0x227",
        "sqlmin.dll!CQScanUpdateNew::GetRow+0x516",
        "sqlmin.dll!CQScanXProducerNew::GetRowHelper+0x386",
        "sqlmin.dll!CQScanXProducerNew::GetRow+0x15",
        "sqlmin.dll!FnProducerOpen+0x5b",
    ];

    public static string CatalogPath => Path.Combine(TestPaths.TestData, "catalog", "fixture-buildinfo.json");

    public static string PrivateSymbols => FixtureFiles.PrivateSymbols;

    public static SqlBuildInfo Build()
    {
        SqlBuildLookupResult r = SqlBuildCatalog.Load(CatalogPath).Find(FixtureBuild);
        Assert.That(
            r.Status,
            Is.EqualTo(SqlBuildLookupStatus.Found),
            "the fixture catalog holds build " + FixtureBuild
        );
        return r.Build!;
    }

    /// <summary>A resolver over the stripped PDBs of symbols-cache (or the full ones), offline, identities from the
    /// fixture build.</summary>
    public static CallstackResolver Resolver(
        bool fullPdbs = false,
        FrameStyle style = FrameStyle.Engine,
        bool offsets = true,
        bool withBuild = true,
        ModuleMap? map = null,
        ModuleBinaries? binaries = null,
        string? symbolPath = null
    ) =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(symbolPath ?? (fullPdbs ? PrivateSymbols : TestPaths.SymbolsCache)),
                Offline = true,
                SqlBuild = withBuild ? Build() : null,
                ModuleMap = map,
                Binaries = binaries,
                Style = style,
                IncludeOffsets = offsets,
            }
        );

    /// <summary>Rows of stacks.tsv for one seed stack, in frame order.</summary>
    public static List<IReadOnlyDictionary<string, string>> SeedFrames(string stack) =>
        FixtureFiles
            .ReadExpected("stacks.tsv")
            .Where(r => r["stack"] == stack)
            .OrderBy(r => int.Parse(r["frame"], CultureInfo.InvariantCulture))
            .ToList();

    /// <summary>Stack A as module+offset text built from stacks.tsv (the frame RVAs checked with
    /// llvm-objdump).</summary>
    public static string StackAModuleOffsetText() =>
        string.Join("\n", SeedFrames("A").Select(r => r["module"] + ".dll+" + r["frame_rva"]));

    /// <summary>Runs the text pipeline over <paramref name="text"/>, and checks that its stream overload writes the
    /// same text in UTF-8.</summary>
    public static (string Output, ResolutionSummary Summary) ResolveText(
        string text,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options = null
    )
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        ResolutionSummary summary = CallstackTextResolver.Resolve(new StringReader(text), output, resolver, options);
        using var bytes = new MemoryStream();
        CallstackTextResolver.Resolve(new StringReader(text), bytes, resolver, options);
        Assert.That(
            new UTF8Encoding(false, true).GetString(bytes.ToArray()),
            Is.EqualTo(output.ToString()),
            "the stream overload writes the same text"
        );
        return (output.ToString(), summary);
    }

    /// <summary>
    /// The reference <see cref="CallstackTextResolver"/> is checked against: the same reader, session, writer and
    /// summary, with no pipeline: the stacks read one by one, CSV symbol metadata applied before the first stack read
    /// after it, each stack resolved, written and counted on this thread before the next is read.
    /// </summary>
    public static (string Output, ResolutionSummary Summary) ResolveStackByStack(
        string text,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options = null
    )
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        ResolutionSummary summary = ResolveStackByStack(text, output, resolver, options);
        return (output.ToString(), summary);
    }

    /// <summary>
    /// As <see cref="ResolveStackByStack(string, CallstackResolver, CallstackTextResolverOptions?)"/>, into
    /// <paramref name="output"/>.
    /// </summary>
    public static ResolutionSummary ResolveStackByStack(
        string text,
        TextWriter output,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options = null
    )
    {
        options ??= CallstackTextResolverOptions.Default;
        ModuleMap? map = options.ModuleMap ?? resolver.Options.ModuleMap;
        ResolverSession session = resolver.CreateSession(map);
        var summary = new ResolutionSummaryBuilder(options.InputName, map is not null);
        var writer = new ResolvedCallstackWriter(output, options.WriteReasons);
        using var reader = new StackTextReader(new StringReader(text), options.ReaderOptions());
        int known = 0;
        try
        {
            foreach (Callstack stack in reader.ReadStacks())
            {
                if (reader.SymbolMetadata.Count != known)
                {
                    known = reader.SymbolMetadata.Count;
                    session.AddSymbolMetadata(reader.SymbolMetadata.Entries);
                }

                ResolvedCallstack resolved = session.Resolve(stack);
                writer.Write(resolved);
                summary.Add(resolved);
            }
        }
        finally
        {
            writer.Flush();
        }

        foreach (InputWarning w in reader.Warnings)
        {
            summary.AddWarning(CallstackTextResolver.WarningText(w));
        }

        return summary.Build(resolver);
    }

    /// <summary>The non-blank output lines.</summary>
    public static string[] Lines(string output) => output.Split('\n').Where(l => l.Length > 0).ToArray();

    /// <summary>A scratch folder under the temp directory.</summary>
    public static string NewScratch()
    {
        string dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-resolution-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        return dir;
    }

    public static void DeleteScratch(string dir)
    {
        try
        {
            Directory.Delete(dir, recursive: true);
        }
        catch (IOException) { }
    }

    /// <summary>Copies a file into a symbol-store layout under <paramref name="root"/>: name/KEY/name.</summary>
    public static string PlaceInStore(string root, string name, string key, byte[] bytes)
    {
        string dir = Path.Combine(root, name, key);
        Directory.CreateDirectory(dir);
        string path = Path.Combine(dir, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    public static string Hex(long value) => FixtureFiles.ToHex(value);
}

using System.Buffers.Binary;
using System.Globalization;
using System.Reflection.PortableExecutable;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Tests.Fixtures;

/// <summary>
/// The manifest, stacks and oracle answers recorded by tools/fixtures/build.sh agree with each other and with the
/// committed binaries. The expected data comes from LLVM tools, never from XeAnalyzer.
/// </summary>
public class ExpectedDataTests
{
    private static readonly string[] s_modules = FixtureFiles.Modules;

    /// <summary>Every distinct frame function of SEED-STACKS stacks A–H, the memory scenario and the other named
    /// frames.</summary>
    private static readonly (string Module, string Name)[] s_seedFunctions =
    [
        ("sqlmin", "XeSqlPkg::latch_acquired::Publish"),
        ("sqlmin", "LatchBase::RecordAcquire"),
        ("sqlmin", "LatchBase::AcquireInternal"),
        ("sqlmin", "ParNestedXdes::GenerateLogRec"),
        ("sqlmin", "PFSPageRef::ModifyPFSRow"),
        ("sqlmin", "ChangeExtStateInPFS"),
        ("sqlmin", "AllocationReq::AllocateExtent"),
        ("sqlmin", "AllocationReq::AllocatePages"),
        ("sqlmin", "AllocationReq::Allocate"),
        ("sqlmin", "ExtentAllocator::PreAllocateExtents"),
        ("sqlmin", "ExtentAllocatorSingleAlloc::PreAllocate"),
        ("sqlmin", "ExtentAllocatorSingleAlloc::AllocateExtents"),
        ("sqlmin", "CBulkAllocator::AllocateExtent"),
        ("sqlmin", "CBulkAllocator::AllocatePageId"),
        ("sqlmin", "CBulkAllocator::AllocateLinkedAndFormattedLeafPage"),
        ("sqlmin", "CHeapBuild::AllocateNextHeapPage"),
        ("sqlmin", "CHeapBuild::InsertRow"),
        ("sqlmin", "RowsetBulk::InsertRow"),
        ("sqlmin", "CValRow::SetDataX"),
        ("sqlmin", "CQScanUpdateNew::GetRow"),
        ("sqlmin", "CQScanXProducerNew::GetRowHelper"),
        ("sqlmin", "CQScanXProducerNew::GetRow"),
        ("sqlmin", "FnProducerOpen"),
        ("sqlmin", "FnProducerThread"),
        ("sqlmin", "PageRef::ModifyBits"),
        ("sqlmin", "ModifyGAMBitAfterNewExtentFound"),
        ("sqlmin", "AllocExtentFromGAMPage"),
        ("sqlmin", "ChangeExtStateInIAM"),
        ("sqlmin", "SOS_Task::AutoSwitchPreemptive::AutoSwitchPreemptive"),
        ("sqlmin", "SOS_Task::AutoSwitchPreemptive::~AutoSwitchPreemptive"),
        ("sqlmin", "SOS_ExternalAutoWait::~SOS_ExternalAutoWait"),
        ("sqlmin", "BlobAccess::AsyncHttpIOInternal"),
        ("sqlmin", "BlobAccess::AsyncIOInternal"),
        ("sqlmin", "XFCB2::ScatterReadInternal"),
        ("sqlmin", "XFCB2::AsyncWriteInternal"),
        ("sqlmin", "FCB::ScatterRead"),
        ("sqlmin", "FCB::AsyncWrite"),
        ("sqlmin", "RecoveryUnit::ScatterRead"),
        ("sqlmin", "BPool::GetFromDisk"),
        ("sqlmin", "BPool::Get"),
        ("sqlmin", "BlobBase::FixNode"),
        ("sqlmin", "BlobManager::LocateBlob"),
        ("sqlmin", "BlobManager::OpenInternal"),
        ("sqlmin", "BlobManager::Open"),
        ("sqlmin", "LockBytesSS::Open"),
        ("sqlmin", "OpenLockBytesNew"),
        ("sqlmin", "OpenIlbssWithSeLobHandleRO"),
        ("sqlmin", "IndexDataSetSession::OpenStreamWithSeLobHandle"),
        ("sqlmin", "RowsetNewSS::OpenWithSeLobHandle"),
        ("sqlmin", "CBlobHandleBaseTableFactory::PilbGet"),
        ("sqlmin", "CQScanStreamAggregateNew::GetRowHelper"),
        ("sqlmin", "Blob::RWBlob"),
        ("sqlmin", "Blob::ReadWriteAt"),
        ("sqlmin", "BlobManager::ReadAtInternal"),
        ("sqlmin", "BlobManager::ReadAt"),
        ("sqlmin", "LockBytesSS::ReadAt"),
        ("sqlmin", "SQLServerLogMgr::FlushLCOld"),
        ("sqlmin", "SQLServerLogMgr::LogWriter"),
        ("sqlmin", "LeaseRenewalManager2::RenewLeases"),
        ("sqlmin", "XStoreLeaseRenewalTask2"),
        ("sqlmin", "LatchBase::Suspend"),
        ("sqlmin", "BUF::AcquireLatch"),
        ("sqlmin", "CQScanProfileNew::GetRowImp"),
        ("sqlmin", "Spinlock<143,7,1>::SpinToAcquireWithExponentialBackoff"),
        ("sqlmin", "lck_lockInternal"),
        ("sqldk", "XeSosPkg::wait_info_external::Publish"),
        ("sqldk", "XeSosPkg::wait_info::Publish"),
        ("sqldk", "XeSosPkg::page_allocated::Publish"),
        ("sqldk", "XeSosPkg::page_freed::Publish"),
        ("sqldk", "XeSosPkg::spinlock_backoff::Publish"),
        ("sqldk", "SOS_Task::PushWait"),
        ("sqldk", "SOS_Task::PopWait"),
        ("sqldk", "SOS_Task::PreWait"),
        ("sqldk", "SOS_Scheduler::UpdateWaitTimeStats"),
        ("sqldk", "WaitableBase::Wait"),
        ("sqldk", "SOS_Task::Param::Execute"),
        ("sqldk", "SOS_Scheduler::RunTask"),
        ("sqldk", "SOS_Scheduler::ProcessTasks"),
        ("sqldk", "SchedulerManager::WorkerEntryPoint"),
        ("sqldk", "SystemThreadDispatcher::ProcessWorker"),
        ("sqldk", "SchedulerManager::ThreadEntryPoint"),
        ("sqldk", "SOS_MemoryWorkSpace::FreePage"),
        ("sqldk", "SOS_MemoryWorkSpace::DeCommitBlock"),
        ("sqldk", "MemoryClerkInternal::AllocatePagesWithFailureMode"),
        ("sqldk", "Spinlock<244,2,1>::SpinToAcquireWithExponentialBackoff"),
        ("sqllang", "write_LOB_chunked"),
        ("sqllang", "`anonymous namespace'::TSendRowClassNoCount<7,0>::TSendUnlimitedVartype<0>"),
        ("sqllang", "CTds74::SendRowImpl"),
        ("sqllang", "CXStmtQuery::ErsqExecuteQuery"),
        ("sqllang", "CXStmtSelect::XretExecute"),
        ("sqllang", "CMsqlExecContext::ExecuteStmts<1,1>"),
        ("sqllang", "TraceUtil::GetStatementInfoBase"),
        ("sqlTsEs", "CDefaultCollation::IHashW"),
        ("sqlTsEs", "CompareLegacyLobNull"),
        ("sqlTsEs", "CTEsCompare<35,35>::BlCompareXcArgArgImpl"),
        ("sqlTsEs", "CEsExec::GeneralEval4"),
        ("sqlTsEs", "CEsExec::GeneralEval"),
    ];

    /// <summary>Stack A exactly as published (SEED-STACKS 1).</summary>
    private static readonly string[] s_publishedStackA =
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

    private static IReadOnlyList<IReadOnlyDictionary<string, string>> Manifest =>
        FixtureFiles.ReadExpected("manifest.tsv");

    private static Dictionary<(long Rva, string Pdb), IReadOnlyDictionary<string, string>> Symbolizer(string module) =>
        FixtureFiles
            .ReadExpected(module + ".symbolizer.tsv")
            .ToDictionary(r => (FixtureFiles.Hex(r["rva"]), r["pdb"]), r => r);

    [Test]
    public void Manifest_ContainsEverySeedFunctionWithAPublic()
    {
        var manifest = Manifest;

        foreach ((string module, string name) in s_seedFunctions)
        {
            var rows = manifest.Where(r => r["module"] == module && r["name"] == name).ToList();
            Assert.That(rows, Is.Not.Empty, $"{module}!{name} missing from manifest.tsv");
            Assert.That(
                rows.Select(r => r["decorated"]),
                Has.None.EqualTo("-"),
                $"{module}!{name} needs a public so the stripped PDB resolves it"
            );
        }
    }

    [TestCaseSource(nameof(s_modules))]
    public void Symbolizer_NamesManifestFunction_AtStartAndSeedOffsets_WithFullPdb(string module)
    {
        var answers = Symbolizer(module);
        var functions = Manifest.Where(r => r["module"] == module).ToList();
        Assert.That(functions, Is.Not.Empty);

        foreach (var f in functions)
        {
            long rva = FixtureFiles.Hex(f["rva"]);
            // Folded duplicates share an address: the oracle names one of them.
            string[] namesHere = functions.Where(g => g["rva"] == f["rva"]).Select(g => g["name"]).ToArray();
            Assert.That(
                namesHere,
                Does.Contain(answers[(rva, "full")]["function_short"]),
                $"{module} {f["name"]} start"
            );
            foreach (long offset in Offsets(f))
            {
                Assert.That(
                    offset,
                    Is.LessThan(FixtureFiles.Hex(f["size"])),
                    $"{f["name"]}+{offset:x} lies inside the function"
                );
                Assert.That(
                    answers[(rva + offset, "full")]["function_short"],
                    Is.EqualTo(f["name"]),
                    $"{module} {f["name"]}+0x{offset:x}"
                );
                Assert.That(
                    answers[(rva + offset - 1, "full")]["function_short"],
                    Is.EqualTo(f["name"]),
                    $"{module} {f["name"]}+0x{offset - 1:x}"
                );
            }
        }
    }

    [TestCaseSource(nameof(s_modules))]
    public void Symbolizer_ChoosesManifestPublic_AtFunctionStarts_WithStrippedPdb(string module)
    {
        var answers = Symbolizer(module);
        var functions = Manifest.Where(r => r["module"] == module).ToList();

        foreach (var f in functions.Where(f => f["decorated"] != "-"))
        {
            long rva = FixtureFiles.Hex(f["rva"]);
            string[] publicsHere = functions.Where(g => g["rva"] == f["rva"]).Select(g => g["decorated"]).ToArray();
            Assert.That(
                publicsHere,
                Does.Contain(answers[(rva, "stripped")]["function_no_demangle"]),
                $"{module} {f["name"]}"
            );
            Assert.That(
                answers[(rva, "stripped")]["function_short"],
                Is.Empty,
                "no function symbols in the stripped twin"
            );
        }
    }

    [TestCaseSource(nameof(s_modules))]
    public void Symbolizer_FallsToPrecedingPublic_ForInternalFunctionsWithStrippedPdb(string module)
    {
        var answers = Symbolizer(module);
        var functions = Manifest.Where(r => r["module"] == module).OrderBy(r => FixtureFiles.Hex(r["rva"])).ToList();
        var internals = functions.Where(f => f["decorated"] == "-").ToList();

        foreach (var f in internals)
        {
            long rva = FixtureFiles.Hex(f["rva"]);
            var preceding = functions.Last(g => g["decorated"] != "-" && FixtureFiles.Hex(g["rva"]) < rva);
            Assert.That(answers[(rva, "full")]["function_short"], Is.EqualTo(f["name"]), "the full PDB names it");
            Assert.That(
                answers[(rva, "stripped")]["function_no_demangle"],
                Is.EqualTo(preceding["decorated"]),
                $"{f["name"]} has no public: the stripped PDB gives the preceding one"
            );
        }

        if (module is "sqlmin" or "sqllang")
        {
            Assert.That(internals, Is.Not.Empty, "static and anonymous-namespace functions are part of the fixture");
        }
    }

    [TestCaseSource(nameof(s_modules))]
    public void Symbolizer_ResolvesNothing_BeforeFirstSymbol(string module)
    {
        var answers = Symbolizer(module);
        long first = Manifest.Where(r => r["module"] == module).Min(r => FixtureFiles.Hex(r["rva"]));

        Assert.That(first, Is.GreaterThan(0x103F));
        foreach (long rva in new long[] { 0x800, 0x1000, 0x103F })
        {
            Assert.That(answers[(rva, "full")]["function"], Is.Empty, $"0x{rva:x} full");
            Assert.That(answers[(rva, "stripped")]["function"], Is.Empty, $"0x{rva:x} stripped");
        }
    }

    [Test]
    public void Manifest_HasFoldedDuplicates_InSqlminAndSqldk()
    {
        var folded = Manifest.GroupBy(r => (r["module"], r["rva"])).Where(g => g.Count() > 1).ToList();

        Assert.That(folded.Select(g => g.Key.Item1).Distinct(), Is.EquivalentTo(new[] { "sqlmin", "sqldk" }));
        Assert.That(folded.Max(g => g.Count()), Is.EqualTo(3));
        foreach (var group in folded)
        {
            var publics = FixtureFiles
                .ReadExpected(group.Key.Item1 + ".functions.tsv")
                .Where(r => r["pdb"] == "stripped" && r["kind"] == "public" && r["rva"] == group.Key.Item2)
                .Select(r => r["name"]);
            Assert.That(
                publics,
                Is.EquivalentTo(group.Select(r => r["decorated"])),
                "every folded name keeps its public"
            );
        }
    }

    [Test]
    public void Manifest_HasOverloadsAndTemplates()
    {
        var manifest = Manifest;

        Assert.That(manifest.Count(r => r["name"] == "CBulkAllocator::AllocatePageId"), Is.EqualTo(2));
        Assert.That(manifest.Count(r => r["name"] == "Blob::RWBlob"), Is.EqualTo(2));
        Assert.That(manifest.Select(r => r["name"]), Does.Contain("CMsqlExecContext::ExecuteStmts<1,0>"));
        Assert.That(manifest.Select(r => r["name"]), Does.Contain("CTEsCompare<36,36>::BlCompareXcArgArgImpl"));
    }

    [Test]
    public void Stacks_FrameRvasLieInsideManifestFunctions()
    {
        var manifest = Manifest;
        var stacks = FixtureFiles.ReadExpected("stacks.tsv");

        foreach (var frame in stacks.Where(f => FixtureFiles.Modules.Contains(f["module"])))
        {
            var function = manifest.Single(r =>
                r["module"] == frame["module"] && r["rva"] == frame["function_rva"] && r["name"] == frame["function"]
            );
            long offset = FixtureFiles.Hex(frame["offset"]);
            Assert.That(
                FixtureFiles.Hex(frame["frame_rva"]),
                Is.EqualTo(FixtureFiles.Hex(frame["function_rva"]) + offset)
            );
            Assert.That(offset, Is.LessThan(FixtureFiles.Hex(function["size"])));
            Assert.That(Offsets(function), Does.Contain(offset), $"manifest offsets of {frame["function"]}");
            Assert.That(frame["decorated"], Is.EqualTo(function["decorated"]));
        }
    }

    [Test]
    public void Stacks_ReproduceStackA_AsPublished()
    {
        var frames = FixtureFiles
            .ReadExpected("stacks.tsv")
            .Where(f => f["stack"] == "A")
            .Select(f => $"{f["module"]}.dll!{f["function"]}+{f["offset"]}");

        Assert.That(frames, Is.EqualTo(s_publishedStackA));
    }

    [Test]
    public void Stacks_CoverSeedStacksAThroughH()
    {
        var ids = FixtureFiles.ReadExpected("stacks.tsv").Select(f => f["stack"]).Distinct();

        Assert.That(ids, Is.SupersetOf(new[] { "A", "B", "C", "D", "E", "F", "G", "H" }));
    }

    [TestCaseSource(nameof(s_modules))]
    public void ExportTable_MatchesReadobjAndManifest(string module)
    {
        List<(int Ordinal, string Name, long Rva)> table = ReadExportTable(FixtureFiles.Dll(module));
        List<(int Ordinal, string Name, long Rva)> oracle = ParseReadobjExports(
            Path.Combine(FixtureFiles.Expected, module + ".exports.txt")
        );

        Assert.That(table, Is.EqualTo(oracle), "export table read with PEReader vs llvm-readobj");
        var live = table.Where(e => e.Rva != 0).ToList();
        Assert.That(live.Any(e => e.Name.Length == 0), Is.True, "at least one export by ordinal only");
        foreach (var f in Manifest.Where(r => r["module"] == module && r["exports"] != "-"))
        {
            foreach (string export in f["exports"].Split(','))
            {
                string[] parts = export.Split(':');
                var entry = live.Single(e => e.Ordinal == int.Parse(parts[1], CultureInfo.InvariantCulture));
                Assert.That(entry.Rva, Is.EqualTo(FixtureFiles.Hex(f["rva"])), export);
                Assert.That(entry.Name, Is.EqualTo(parts[0] == "name" ? f["decorated"] : string.Empty), export);
            }
        }

        Assert.That(
            live.Select(e => e.Rva)
                .All(rva => Manifest.Any(r => r["module"] == module && FixtureFiles.Hex(r["rva"]) == rva)),
            Is.True,
            "every export is a manifest function"
        );
    }

    private static IEnumerable<long> Offsets(IReadOnlyDictionary<string, string> function) =>
        function["offsets"] == "-" ? [] : function["offsets"].Split(',').Select(FixtureFiles.Hex);

    /// <summary>The export address table with ordinal = Base + index and names from the name table.</summary>
    private static List<(int Ordinal, string Name, long Rva)> ReadExportTable(string dll)
    {
        using FileStream stream = File.OpenRead(dll);
        using var pe = new PEReader(stream);
        DirectoryEntry dir = pe.PEHeaders.PEHeader!.ExportTableDirectory;
        Assert.That(dir.Size, Is.GreaterThan(0), "the DLL has an export table");
        ReadOnlySpan<byte> head = At(pe, dir.RelativeVirtualAddress, 40);
        int ordinalBase = BinaryPrimitives.ReadInt32LittleEndian(head[16..]);
        int functionCount = BinaryPrimitives.ReadInt32LittleEndian(head[20..]);
        int nameCount = BinaryPrimitives.ReadInt32LittleEndian(head[24..]);
        ReadOnlySpan<byte> functions = At(pe, BinaryPrimitives.ReadInt32LittleEndian(head[28..]), 4 * functionCount);
        ReadOnlySpan<byte> names = At(pe, BinaryPrimitives.ReadInt32LittleEndian(head[32..]), 4 * nameCount);
        ReadOnlySpan<byte> nameOrdinals = At(pe, BinaryPrimitives.ReadInt32LittleEndian(head[36..]), 2 * nameCount);
        var nameByIndex = new Dictionary<int, string>();
        for (int i = 0; i < nameCount; i++)
        {
            var content = pe.GetSectionData(BinaryPrimitives.ReadInt32LittleEndian(names[(4 * i)..])).GetContent();
            int end = content.IndexOf((byte)0);
            nameByIndex[BinaryPrimitives.ReadUInt16LittleEndian(nameOrdinals[(2 * i)..])] =
                System.Text.Encoding.ASCII.GetString(content.AsSpan(0, end));
        }

        var result = new List<(int, string, long)>();
        for (int i = 0; i < functionCount; i++)
        {
            result.Add(
                (
                    ordinalBase + i,
                    nameByIndex.GetValueOrDefault(i, string.Empty),
                    BinaryPrimitives.ReadUInt32LittleEndian(functions[(4 * i)..])
                )
            );
        }

        return result;
    }

    private static ReadOnlySpan<byte> At(PEReader pe, int rva, int length)
    {
        var content = pe.GetSectionData(rva).GetContent();
        Assert.That(content.Length, Is.GreaterThanOrEqualTo(length), $"RVA 0x{rva:x} + {length} inside a section");
        return content.AsSpan(0, length);
    }

    private static List<(int Ordinal, string Name, long Rva)> ParseReadobjExports(string path)
    {
        string text = File.ReadAllText(path);
        var result = new List<(int, string, long)>();
        foreach (
            Match m in Regex.Matches(
                text,
                @"Export \{\s*Ordinal: (\d+)\s*Name: ?([^\n]*)\n\s*RVA: 0x([0-9A-Fa-f]+)\s*\}"
            )
        )
        {
            result.Add(
                (
                    int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture),
                    m.Groups[2].Value.Trim(),
                    long.Parse(m.Groups[3].Value, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture)
                )
            );
        }

        Assert.That(result, Is.Not.Empty, $"{path}: no exports parsed");
        return result;
    }
}

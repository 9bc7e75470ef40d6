using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>Frame tokens: every verbatim example of XE-TEXT-SHAPES.md §3–§5 and §9.3, with values checked by hand from
/// the documents.</summary>
public class FrameParserTests
{
    private static StackFrame Single(string line, StackTextReaderOptions? options = null)
    {
        IReadOnlyList<StackFrame> frames = new FrameParser(options).ParseLine(line);
        Assert.That(frames, Has.Count.EqualTo(1), $"frames parsed from \"{line}\"");
        return frames[0];
    }

    [TestCase("sqldk.dll+0x00000000000FD919", "sqldk.dll", "sqldk", 0xFD919UL)]
    [TestCase("sqllang.dll+0x00000000003877FC", "sqllang.dll", "sqllang", 0x3877FCUL)]
    [TestCase("sqlTsEs.dll+0x0000000000012345", "sqlTsEs.dll", "sqltses", 0x12345UL)]
    [TestCase("hkengine.dll+0x0000000000030B0D", "hkengine.dll", "hkengine", 0x30B0DUL)]
    [TestCase(
        "xtp_p_5_597577167_185186125354548_1.dll+0x000000000000E9FC",
        "xtp_p_5_597577167_185186125354548_1.dll",
        "xtp_p_5_597577167_185186125354548_1",
        0xE9FCUL
    )]
    [TestCase("sqldk.dll+40609", "sqldk.dll", "sqldk", 0x40609UL)]
    [TestCase("Wdf01000+17f27", "Wdf01000", "wdf01000", 0x17F27UL)]
    [TestCase("sqldk +0x40609", "sqldk", "sqldk", 0x40609UL)]
    [TestCase("sqldk+40609", "sqldk", "sqldk", 0x40609UL)]
    [TestCase("KERNEL32.DLL+0x0000000000011FE4", "KERNEL32.DLL", "kernel32", 0x11FE4UL)]
    [TestCase("Wdf01000.sys+0x17F27", "Wdf01000.sys", "wdf01000", 0x17F27UL)]
    [TestCase("  sqldk.dll+0x00000000000FD919  ", "sqldk.dll", "sqldk", 0xFD919UL)]
    public void ParseLine_ReturnsModuleOffsetWithHexOffset_ForModuleOffsetShapes(
        string line,
        string module,
        string key,
        ulong offset
    )
    {
        var f = (ModuleOffsetFrame)Single(line);
        Assert.That(f.Kind, Is.EqualTo(FrameKind.ModuleOffset));
        Assert.That(f.ModuleName.Name, Is.EqualTo(module));
        Assert.That(f.ModuleName.Key, Is.EqualTo(key));
        Assert.That(f.Offset, Is.EqualTo(offset));
        Assert.That(f.Provenance, Is.EqualTo(FrameProvenance.ModuleOffsetText));
        Assert.That(f.FrameNumber, Is.Null);
        Assert.That(f.Raw, Is.EqualTo(line.Trim()));
    }

    [TestCase("00 sqldk+0x40609", 0x00, "sqldk", 0x40609UL)]
    [TestCase("01 Wdf01000+17f27", 0x01, "wdf01000", 0x17F27UL)]
    [TestCase("0a sqldk.dll+0x00000000000FD919", 0x0a, "sqldk", 0xFD919UL)]
    [TestCase("1f sqldk +0x40609", 0x1f, "sqldk", 0x40609UL)]
    public void ParseLine_ReadsLeadingFrameNumberAsHex(string line, int number, string key, ulong offset)
    {
        var f = (ModuleOffsetFrame)Single(line);
        Assert.That(f.FrameNumber, Is.EqualTo(number));
        Assert.That(f.ModuleName.Key, Is.EqualTo(key));
        Assert.That(f.Offset, Is.EqualTo(offset));
    }

    [TestCase("0x00007FFEABD0D919", 0x00007FFEABD0D919UL)]
    [TestCase("0x0000000001CD4F55", 0x0000000001CD4F55UL)]
    [TestCase("0x000000000113A310", 0x000000000113A310UL)]
    [TestCase("0x7ffeabd0d919", 0x7FFEABD0D919UL)]
    public void ParseLine_ReturnsVirtualAddress_ForRawAddresses(string line, ulong address)
    {
        var f = (VirtualAddressFrame)Single(line);
        Assert.That(f.Kind, Is.EqualTo(FrameKind.VirtualAddress));
        Assert.That(f.Address, Is.EqualTo(address));
        Assert.That(f.Module, Is.Null);
    }

    [TestCase(
        "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
        "sqlmin.dll",
        "XeSqlPkg::latch_acquired::Publish",
        0x1a9UL
    )]
    [TestCase("sqldk.dll!XeSosPkg::wait_info::Publish+0x138", "sqldk.dll", "XeSosPkg::wait_info::Publish", 0x138UL)]
    [TestCase(
        "hkengine.dll!CkptFilePair::CreateInstance+0x61b",
        "hkengine.dll",
        "CkptFilePair::CreateInstance",
        0x61bUL
    )]
    [TestCase("sqlTsEs.dll!CEsExec::GeneralEval+1a9", "sqlTsEs.dll", "CEsExec::GeneralEval", 0x1a9UL)]
    [TestCase("sqlmin.dll!LatchBase::RecordAcquire+0x191", "sqlmin.dll", "LatchBase::RecordAcquire", 0x191UL)]
    [TestCase("sqlTsEs.dll!CDefaultCollation::IHashW+0x227", "sqlTsEs.dll", "CDefaultCollation::IHashW", 0x227UL)]
    public void ParseLine_ReturnsSymbolizedWithHexDisplacement_ForTraceFlag3656Frames(
        string line,
        string module,
        string symbol,
        ulong displacement
    )
    {
        var f = (SymbolizedFrame)Single(line);
        Assert.That(f.Kind, Is.EqualTo(FrameKind.Symbolized));
        Assert.That(f.Module!.Name, Is.EqualTo(module));
        Assert.That(f.Symbol, Is.EqualTo(symbol));
        Assert.That(f.Displacement, Is.EqualTo(displacement));
        Assert.That(f.Provenance, Is.EqualTo(FrameProvenance.SymbolizedCapture));
    }

    [TestCase("XeSqlPkg::latch_suspend_end::Publish+138", "XeSqlPkg::latch_suspend_end::Publish", 0x138UL)]
    [TestCase("SpinlockBase::Sleep+c7 [ @ 0+0x0", "SpinlockBase::Sleep", 0xc7UL)]
    [TestCase("XeSosPkg::spinlock_backoff::Publish", "XeSosPkg::spinlock_backoff::Publish", null)]
    [TestCase("NTGroupInfo::`vector deleting destructor'", "NTGroupInfo::`vector deleting destructor'", null)]
    [TestCase("Spinlock<144,1,0>::SpinToAcquireOptimistic", "Spinlock<144,1,0>::SpinToAcquireOptimistic", null)]
    [TestCase("CMsqlExecContext::ExecuteStmts<1,1>+0x10", "CMsqlExecContext::ExecuteStmts<1,1>", 0x10UL)]
    [TestCase(
        "CTDelayedMapBase<unsigned short,CMemObjAlloc<1> >::CKeyDFNForMap+5",
        "CTDelayedMapBase<unsigned short,CMemObjAlloc<1> >::CKeyDFNForMap",
        0x5UL
    )]
    public void ParseLine_ReturnsModulelessSymbol_ForAbbreviatedAndOldFrames(
        string line,
        string symbol,
        ulong? displacement
    )
    {
        var f = (SymbolizedFrame)Single(line);
        Assert.That(f.Module, Is.Null);
        Assert.That(f.Symbol, Is.EqualTo(symbol));
        Assert.That(f.Displacement, Is.EqualTo(displacement));
    }

    [TestCase(
        "sqlmin!Spinlock<143,7,1>::SpinToAcquireWithExponentialBackoff+0x12",
        "Spinlock<143,7,1>::SpinToAcquireWithExponentialBackoff",
        0x12UL
    )]
    [TestCase(
        "sqlmin!SqlAutoReadOnlyXact::`scalar deleting destructor'+0x1",
        "SqlAutoReadOnlyXact::`scalar deleting destructor'",
        0x1UL
    )]
    [TestCase("sqlmin!Foo::operator<+0x8", "Foo::operator<", 0x8UL)]
    [TestCase("sqlmin!Foo::operator+=+0x8", "Foo::operator+=", 0x8UL)]
    [TestCase("sqlmin!Foo::operator!=+0x8", "Foo::operator!=", 0x8UL)]
    [TestCase("sqlmin!Foo::operator new+0x8", "Foo::operator new", 0x8UL)]
    [TestCase(
        "sqlmin!CTHashTable<Pair<unsigned short,CDbLockListBase::CDatabaseOptions>,CMemObjAlloc<1> >::Find+0x20",
        "CTHashTable<Pair<unsigned short,CDbLockListBase::CDatabaseOptions>,CMemObjAlloc<1> >::Find",
        0x20UL
    )]
    public void ParseLine_KeepsTemplateBacktickAndOperatorNames(string line, string symbol, ulong displacement)
    {
        var f = (SymbolizedFrame)Single(line);
        Assert.That(f.Module!.Key, Is.EqualTo("sqlmin"));
        Assert.That(f.Symbol, Is.EqualTo(symbol));
        Assert.That(f.Displacement, Is.EqualTo(displacement));
    }

    [TestCase("sqldk.dll!Ordinal947+0x25f", "sqldk.dll", 947, 0x25fUL)]
    [TestCase("ntdll!Ordinal298+00000000000004A5", "ntdll", 298, 0x4A5UL)]
    [TestCase("sqlmin.dll!Ordinal1634 + 0x76c", "sqlmin.dll", 1634, 0x76cUL)]
    public void ParseLine_ReturnsOrdinalDecimalWithHexOffset(string line, string module, int ordinal, ulong offset)
    {
        var f = (OrdinalFrame)Single(line);
        Assert.That(f.Kind, Is.EqualTo(FrameKind.Ordinal));
        Assert.That(f.ModuleName.Name, Is.EqualTo(module));
        Assert.That(f.Ordinal, Is.EqualTo(ordinal));
        Assert.That(f.Offset, Is.EqualTo(offset));
    }

    [Test]
    public void ParseLine_ReadsCaptureDisplacementAsHex_AndResolverOutputAsDecimal()
    {
        // XE-TEXT-SHAPES §4: sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9 is the peer's
        // sqlmin!XeSqlPkg::latch_acquired::Publish+425.
        var capture = (SymbolizedFrame)Single("sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9");
        var resolved = (SymbolizedFrame)Single(
            "sqlmin!XeSqlPkg::latch_acquired::Publish+425",
            new StackTextReaderOptions { SymbolizedOffsetRadix = OffsetRadix.Decimal }
        );
        Assert.That(capture.Displacement, Is.EqualTo(425UL));
        Assert.That(resolved.Displacement, Is.EqualTo(425UL));
        Assert.That(resolved.Provenance, Is.EqualTo(FrameProvenance.ResolvedOutput));
        Assert.That(capture.Module, Is.EqualTo(resolved.Module));

        // The same text read as a capture is hex: 0x425 = 1061.
        var asCapture = (SymbolizedFrame)Single("sqlmin!XeSqlPkg::latch_acquired::Publish+425");
        Assert.That(asCapture.Displacement, Is.EqualTo(0x425UL));
        Assert.That(asCapture.Provenance, Is.EqualTo(FrameProvenance.SymbolizedCapture));

        // Decimal mode still honours an explicit 0x, and never touches module+offset (always hex).
        var explicitHex = (SymbolizedFrame)Single(
            "sqldk!MemoryClerkInternal::AllocatePagesWithFailureMode+0x284",
            new StackTextReaderOptions { SymbolizedOffsetRadix = OffsetRadix.Decimal }
        );
        Assert.That(explicitHex.Displacement, Is.EqualTo(644UL));
        var moduleOffset = (ModuleOffsetFrame)Single(
            "sqldk+40609",
            new StackTextReaderOptions { SymbolizedOffsetRadix = OffsetRadix.Decimal }
        );
        Assert.That(moduleOffset.Offset, Is.EqualTo(0x40609UL));
    }

    [Test]
    public void ParseLine_SplitsSeveralFramesOnOneLine_AndDropsTheJunkSuffix()
    {
        IReadOnlyList<StackFrame> frames = new FrameParser().ParseLine(
            "      SpinlockBase::Sleep+c7 [ @ 0+0x0 SpinlockBase::Backoff Spinlock<144,1,0>::SpinToAcquireOptimistic"
        );
        Assert.That(
            frames.Select(f => ((SymbolizedFrame)f).Symbol),
            Is.EqualTo(
                new[] { "SpinlockBase::Sleep", "SpinlockBase::Backoff", "Spinlock<144,1,0>::SpinToAcquireOptimistic" }
            )
        );
        Assert.That(((SymbolizedFrame)frames[0]).Displacement, Is.EqualTo(0xc7UL));
    }

    [Test]
    public void ParseLine_SplitsSpaceSeparatedModuleOffsets()
    {
        IReadOnlyList<StackFrame> frames = new FrameParser().ParseLine("sqldk.dll+0x1 sqlmin.dll+0x2\tsqllang.dll+0x3");
        Assert.That(frames.Select(f => ((ModuleOffsetFrame)f).Offset), Is.EqualTo(new[] { 1UL, 2UL, 3UL }));
    }

    [TestCase("Return Addr: 00007FF830D4CDA4 Module(KERNELBASE+000000000009CDA4)", "KERNELBASE", 0x9CDA4UL)]
    [TestCase(
        "00007FF818405E70      Module(ntdll+0000000000091735) (Ordinal298 + 00000000000004A5)",
        "ntdll",
        0x91735UL
    )]
    [TestCase("… Module(KERNEL32+0000000000011FE4)", "KERNEL32", 0x11FE4UL)]
    [TestCase("Module(sqldk+0000000000011D96)", "sqldk", 0x11D96UL)]
    public void ParseLine_ReadsSqlDumperModuleFrames(string line, string module, ulong offset)
    {
        var f = (ModuleOffsetFrame)Single(line);
        Assert.That(f.ModuleName.Name, Is.EqualTo(module));
        Assert.That(f.Offset, Is.EqualTo(offset));
        Assert.That(f.Provenance, Is.EqualTo(FrameProvenance.SqlDumper));
    }

    [Test]
    public void ParseLine_ReadsWinDbgCallSite()
    {
        var f = (SymbolizedFrame)Single("00 00000000`0014f4b8 00000000`77a3c2b6 ntdll!ZwWaitForSingleObject+0xa");
        Assert.That(f.Module!.Name, Is.EqualTo("ntdll"));
        Assert.That(f.Symbol, Is.EqualTo("ZwWaitForSingleObject"));
        Assert.That(f.Displacement, Is.EqualTo(0xaUL));
        Assert.That(f.FrameNumber, Is.EqualTo(0));
        Assert.That(f.Provenance, Is.EqualTo(FrameProvenance.WinDbg));
    }

    [Test]
    public void ParseLine_ReadsFullCallstackRvaFrame()
    {
        var f = (RvaFrame)Single(
            "<frame id=\"02\" pdb=\"SqlDK.pdb\" age=\"2\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" "
                + "module=\"sqldk.dll\" rva=\"0x40609\" address=\"0x100440609\"/>"
        );
        Assert.That(f.Kind, Is.EqualTo(FrameKind.Rva));
        Assert.That(f.FrameNumber, Is.EqualTo(2));
        Assert.That(f.PdbName, Is.EqualTo("SqlDK.pdb"));
        Assert.That(f.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("6A193443-3512-464B-8B8E-D905AD930EE6"), 2)));
        Assert.That(f.Rva, Is.EqualTo(0x40609UL));
        Assert.That(f.Address, Is.EqualTo(0x100440609UL));
        Assert.That(f.Module!.Key, Is.EqualTo("sqldk"));
        Assert.That(f.CanResolve, Is.True);
        Assert.That(f.IsAbbreviated, Is.False);
        Assert.That(f.ToNormalString(), Is.EqualTo("02 6A1934433512464B8B8ED905AD930EE62+0x40609"));
    }

    [TestCase(
        "<frame id=\"00\" pdb=\"ntdll.pdb\" age=\"1\" guid=\"C374E059-5793-9B92-6525-386A66A2D3F5\" "
            + "module=\"ntdll.dll\" rva=\"0x9F7E4\" />",
        0,
        "ntdll.pdb",
        "C374E059-5793-9B92-6525-386A66A2D3F5",
        1,
        0x9F7E4UL,
        "ntdll"
    )]
    [TestCase(
        "<frame id=\"03\" pdb=\"vcruntime140.amd64.pdb\" age=\"1\" guid=\"AF138C3F-2933-4097-8883-C1071B13375E\" "
            + "module=\"VCRUNTIME140.dll\" rva=\"0xB8F0\" />",
        3,
        "vcruntime140.amd64.pdb",
        "AF138C3F-2933-4097-8883-C1071B13375E",
        1,
        0xB8F0UL,
        "vcruntime140"
    )]
    [TestCase(
        "<frame id=\"01\" pdb=\"Wdf01000.pdb\" age=\"1\" guid=\"C9EC2937-69A8-15AB-22B5-909C290FB963\" "
            + "module=\"Wdf01000.sys\" rva=\"0x17f27\" />",
        1,
        "Wdf01000.pdb",
        "C9EC2937-69A8-15AB-22B5-909C290FB963",
        1,
        0x17F27UL,
        "wdf01000"
    )]
    [TestCase(
        "<frame rva = \"0x9F7E4\" module=\"ntdll\" guid=\"{C374E059-5793-9B92-6525-386A66A2D3F5}\" age=\"1\" "
            + "pdb=\"NTDLL.PDB\" id=\"12\"/>",
        12,
        "NTDLL.PDB",
        "C374E059-5793-9B92-6525-386A66A2D3F5",
        1,
        0x9F7E4UL,
        "ntdll"
    )]
    public void ParseLine_ReadsCallstackRvaAttributes_InAnyOrderAndCase(
        string line,
        int id,
        string pdb,
        string guid,
        int age,
        ulong rva,
        string key
    )
    {
        var f = (RvaFrame)Single(line);
        Assert.That(f.FrameNumber, Is.EqualTo(id));
        Assert.That(f.PdbName, Is.EqualTo(pdb));
        Assert.That(f.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse(guid), age)));
        Assert.That(f.Rva, Is.EqualTo(rva));
        Assert.That(f.Module!.Key, Is.EqualTo(key));
    }

    [Test]
    public void ParseLine_DerivesAbbreviatedFrameFromEarlierFullFrameOfSameModule()
    {
        var parser = new FrameParser();
        parser.ParseLine(
            "<frame id=\"02\" pdb=\"SqlDK.pdb\" age=\"2\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" "
                + "module=\"sqldk.dll\" rva=\"0x40609\" address = \"0x100440609\"/>"
        );
        var f = (RvaFrame)parser.ParseLine("<frame id=\"04\" name=\"sqldk.dll\" address=\"0x10042249f\" />").Single();

        // base = 0x100440609 − 0x40609 = 0x100400000; rva = 0x10042249f − base = 0x2249f.
        Assert.That(f.IsAbbreviated, Is.True);
        Assert.That(f.Rva, Is.EqualTo(0x2249FUL));
        Assert.That(f.PdbName, Is.EqualTo("SqlDK.pdb"));
        Assert.That(f.Identity, Is.EqualTo(new PdbIdentity(Guid.Parse("6a193443-3512-464b-8b8e-d905ad930ee6"), 2)));
        Assert.That(f.CanResolve, Is.True);
    }

    [Test]
    public void ParseLine_KeepsAbbreviatedFrameUnresolved_WithoutEarlierFullFrame()
    {
        var f = (RvaFrame)Single("<frame id=\"04\" name=\"sqldk.dll\" address=\"0x10042249f\" />");
        Assert.That(f.CanResolve, Is.False);
        Assert.That(f.Rva, Is.Null);
        Assert.That(f.Address, Is.EqualTo(0x10042249FUL));
        Assert.That(f.Raw, Is.EqualTo("<frame id=\"04\" name=\"sqldk.dll\" address=\"0x10042249f\" />"));
    }

    [Test]
    public void ParseLine_KeepsUnresolvableAddressOnlyFrame()
    {
        var f = (RvaFrame)Single("<frame id=\"31\" address=\"0xA000\" />");
        Assert.That(f.Module, Is.Null);
        Assert.That(f.Address, Is.EqualTo(0xA000UL));
        Assert.That(f.FrameNumber, Is.EqualTo(31));
        Assert.That(f.CanResolve, Is.False);
    }

    [TestCase(
        "<frame id=\"00\" pdb=\"ntdll.pdb\" age=\"1\" guid=\"C374E059-5793-9B92-A6525-386A66A2D3F5\" "
            + "module=\"ntdll.dll\" rva=\"0x9F7E4\" />",
        "GUID"
    )]
    [TestCase("<frame id=\"02\" pdb=\"SqlDK.pdb\" age=\"2\" guid=\"6a193443-3512-464b", "truncated")]
    [TestCase(
        "<frame id=\"02\" pdb=\"SqlDK.pdb\" age=\"x\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" rva=\"0x1\"/>",
        "age"
    )]
    [TestCase(
        "<frame id=\"02\" pdb=\"SqlDK.pdb\" age=\"2\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" rva=\"0xZZ\"/>",
        "rva"
    )]
    [TestCase("<frame id=\"02\" module=\"sqldk.dll\"/>", "neither rva nor address")]
    [TestCase(
        "<frame id=\"02\" pdb=\"..\\..\\evil.pdb\" age=\"2\" guid=\"6a193443-3512-464b-8b8e-d905ad930ee6\" "
            + "rva=\"0x1\"/>",
        "not a PDB file name"
    )]
    [TestCase("<frame id=\"02\" module=\"..\" rva=\"0x1\"/>", "not a module file name")]
    [TestCase("<frame id=\"02\" name=\"../../etc/passwd\" address=\"0x1\"/>", "not a module file name")]
    [TestCase("<frame id=\"02\" module=\"a|b.dll\" rva=\"0x1\"/>", "not a module file name")]
    public void ParseLine_KeepsMalformedRvaFrameAsTextWithReason(string line, string reasonPart)
    {
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(line);
        StackLine l = stacks.Single().Lines.Single();
        Assert.That(l.HasFrames, Is.False);
        Assert.That(l.Text, Is.EqualTo(line));
        Assert.That(l.Diagnostic, Does.Contain(reasonPart));
        Assert.That(l.Unparsed.Single().Text, Is.EqualTo(line));
    }

    [TestCase("hello world")]
    [TestCase("Slot_0\t[count:5]:")]
    [TestCase("Event key: File: c:\\x.xel, UTC: 2024-01-01, UUID: 1")]
    [TestCase("see sqldk+0x40609 here")]
    [TestCase("!foo+0x1")]
    [TestCase("0x0xaaa")]
    [TestCase("Note: it failed")]
    [TestCase("(Inline Function) Wdf01000!Mx::MxLeaveCriticalRegion+12\t(minkernel\\wdf\\MxGeneralKm.h:198)")]
    public void ParseLine_ReturnsNoFrames_ForText(string line)
    {
        Assert.That(new FrameParser().ParseLine(line), Is.Empty);
    }

    [Test]
    public void ParseLine_ReportsOverflow_AsDiagnostic()
    {
        StackLine l = StackTextReader.Parse("sqldk.dll+0x1FFFFFFFFFFFFFFFFF").Single().Lines.Single();
        Assert.That(l.HasFrames, Is.False);
        Assert.That(l.Diagnostic, Does.Contain("64 bits"));
    }

    [Test]
    public void TryParseFrame_AcceptsSingleToken()
    {
        var parser = new FrameParser();
        Assert.That(parser.TryParseFrame("sqldk.dll+0x40609", out StackFrame? f), Is.True);
        Assert.That(((ModuleOffsetFrame)f!).Offset, Is.EqualTo(0x40609UL));
        Assert.That(parser.TryParseFrame("plain words", out _), Is.False);
    }

    [TestCase("sqldk.dll", "sqldk")]
    [TestCase("SqlDK.DLL", "sqldk")]
    [TestCase(@"C:\Program Files\Microsoft SQL Server\MSSQL13.SQL2016\MSSQL\Binn\sqlmin.dll", "sqlmin")]
    [TestCase("sqlservr.EXE", "sqlservr")]
    [TestCase("Wdf01000.sys", "wdf01000")]
    [TestCase("ntdll", "ntdll")]
    [TestCase("vcruntime140.amd64", "vcruntime140.amd64")]
    public void ModuleName_NormalisesKey_AndKeepsSpelling(string input, string key)
    {
        ModuleName m = ModuleName.Create(input);
        Assert.That(m.Key, Is.EqualTo(key));
        Assert.That(input, Does.EndWith(m.Name));
        Assert.That(m, Is.EqualTo(ModuleName.Create(key)));
    }

    [TestCase("")]
    [TestCase("..")]
    [TestCase("C:\\x\\.")]
    [TestCase("a:b.dll")]
    [TestCase("control-character")]
    public void ModuleName_RefusesNamesThatAreNotFileNames(string input)
    {
        if (input == "control-character")
        {
            input = "a" + (char)1 + ".dll";
        }

        Assert.That(ModuleName.TryCreate(input, out _), Is.False);
        Assert.Throws<ArgumentException>(() => ModuleName.Create(input));
    }

    [Test]
    public void ModuleName_FromPdbName_DropsPdbExtension()
    {
        Assert.That(ModuleName.FromPdbName("SqlDK.pdb").Key, Is.EqualTo("sqldk"));
        Assert.That(ModuleName.FromPdbName("SqlDK.pdb"), Is.EqualTo(ModuleName.Create("sqldk.dll")));
    }
}

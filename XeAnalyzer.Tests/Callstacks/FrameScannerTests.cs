using XeAnalyzer.Callstacks;
using XeAnalyzer.Callstacks.Scanning;
using XeAnalyzer.IO;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// The scanners one by one, and their typed failures: each failure names its reason and its position in the line, and
/// only a malformed frame (never plain text or a limit) becomes a line's diagnostic.
/// </summary>
public sealed class FrameScannerTests
{
    private static (LineScan Scan, List<StackFrame> Frames) ScanLine(
        string line,
        bool lenient = false,
        int maxFrames = 4096
    )
    {
        var frames = new List<StackFrame>();
        LineScan scan = new FrameLineScanner(OffsetRadix.Hex, lenient, maxFrames).ScanLine(line, frames);
        Assert.That(frames, Has.Count.EqualTo(scan.FrameCount));
        return (scan, frames);
    }

    [TestCase("sqldk.dll+0x1FFFFFFFFFFFFFFFFF", "OffsetOverflow", 0)]
    [TestCase("   sqldk.dll+1FFFFFFFFFFFFFFFFF", "OffsetOverflow", 3)]
    [TestCase("0x1FFFFFFFFFFFFFFFFF", "AddressOverflow", 0)]
    [TestCase("sqldk!Foo+0x1FFFFFFFFFFFFFFFFF", "DisplacementOverflow", 0)]
    [TestCase("Foo::Bar+1FFFFFFFFFFFFFFFFF", "DisplacementOverflow", 0)]
    [TestCase("ntdll!Ordinal12+1FFFFFFFFFFFFFFFFF", "OrdinalOffsetOverflow", 0)]
    [TestCase("x Module(sqldk+1FFFFFFFFFFFFFFFFF)", "DumperOffsetOverflow", 2)]
    [TestCase("x Module(bad)", "DumperNotModuleOffset", 2)]
    [TestCase("  Module(sqldk+11D96", "DumperTruncated", 2)]
    [TestCase(
        "Frame = <frame id=\"02\" guid=\"C374E059-5793-9B92-A6525-386A66A2D3F5\" age=\"1\" rva=\"0x1\"/>",
        "RvaBadGuid",
        8
    )]
    [TestCase("<frame id=\"02\" rva=0x1/>", "RvaQuotedValueExpected", 19)]
    [TestCase("<frame id=\"02\" rva\"0x1\"/>", "RvaEqualsExpected", 18)]
    [TestCase("<frameX id=\"02\"/>", "RvaNotAFrameElement", 6)]
    [TestCase("<frame id=\"02\" rva=\"0x1\"", "RvaTruncatedNoClose", 24)]
    [TestCase("<frame id=\"02\" module=\"sqldk.dll\"/>", "RvaNoRvaNorAddress", 0)]
    public void ScanLine_ReportsMalformedFrame_WithReasonAndPosition(string line, string reason, int position)
    {
        (LineScan scan, _) = ScanLine(line);
        Assert.That(scan.FrameCount, Is.Zero);
        Assert.That(scan.Diagnostic, Is.Not.Null);
        Assert.That(scan.Diagnostic!.Value.Reason, Is.EqualTo(Enum.Parse<FrameFailureReason>(reason)));
        Assert.That(scan.Diagnostic.Value.Position, Is.EqualTo(position));
        Assert.That(scan.Diagnostic.Value.IsMalformedFrame, Is.True);
    }

    [TestCase("hello world")]
    [TestCase("!foo+0x1")]
    [TestCase("plain")]
    // The first failed piece decides: plain text before a malformed frame keeps the line plain text.
    [TestCase("hello sqldk.dll+0x1FFFFFFFFFFFFFFFFF")]
    // A line with a frame and a malformed one is not a frame line, and has no diagnostic either.
    [TestCase("sqldk.dll+0x1FFFFFFFFFFFFFFFFF sqlmin.dll+0x2")]
    public void ScanLine_ReportsNoDiagnostic_ForText(string line)
    {
        (LineScan scan, _) = ScanLine(line);
        Assert.That(scan.FrameCount, Is.Zero);
        Assert.That(scan.Diagnostic, Is.Null);
    }

    [Test]
    public void ScanLine_NamesTheDetailTheMessageQuotes()
    {
        (LineScan scan, _) = ScanLine("<frame id=\"02\" pdb=\"a/b.pdb\" rva=\"0x1\"/>");
        FrameFailure f = scan.Diagnostic!.Value;
        Assert.That(f.Reason, Is.EqualTo(FrameFailureReason.RvaBadPdb));
        Assert.That(f.Detail, Is.EqualTo("a/b.pdb"));
        Assert.That(f.Message, Is.EqualTo("frame pdb \"a/b.pdb\" is not a PDB file name"));
    }

    [Test]
    public void ScanLine_KeepsFramesOverTheLimit_AsUnparsedPieces_WithoutDiagnostic()
    {
        (LineScan scan, List<StackFrame> frames) = ScanLine("sqldk+1 sqldk+2 sqldk+3", lenient: true, maxFrames: 2);
        Assert.That(frames, Has.Count.EqualTo(2));
        Assert.That(
            scan.Unparsed!.Single(),
            Is.EqualTo(new UnparsedToken("sqldk+3", 2, "more frames on one line than TextInputLimits.MaxFramesPerLine"))
        );
        Assert.That(scan.Diagnostic, Is.Null);
    }

    [Test]
    public void StackLine_CarriesTheTypedFailure_BesideItsMessage()
    {
        StackLine line = StackTextReader.Parse("sqldk.dll+0x1FFFFFFFFFFFFFFFFF").Single().Lines.Single();
        Assert.That(line.Failure!.Value.Reason, Is.EqualTo(FrameFailureReason.OffsetOverflow));
        Assert.That(line.Diagnostic, Is.EqualTo("offset does not fit in 64 bits"));
    }

    [Test]
    public void StackBuilder_ReportsUnexpectedChildElement_ByName()
    {
        const string Xml =
            "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"1\"><value><frame id=\"00\" "
            + "module=\"sqldk.dll\" rva=\"0x1\"/><other/></value></Slot></HistogramTarget>";
        StackLine other = StackTextReader.Parse(Xml).Single().Lines.Single(l => !l.HasFrames);
        Assert.That(other.Failure!.Value.Reason, Is.EqualTo(FrameFailureReason.UnexpectedElement));
        Assert.That(other.Diagnostic, Is.EqualTo("unexpected <other> element in a callstack value"));
    }

    [Test]
    public void ModuleOffsetScanner_LeavesOtherShapesToTheGeneralGrammar()
    {
        var scanner = new ModuleOffsetScanner(new ModuleNameCache());
        Assert.That(scanner.TryScanCompact("sqldk.dll+0x40609", 0, 17), Is.Not.Null);
        Assert.That(scanner.TryScanCompact("sqldk!Foo+0x1", 0, 13), Is.Null);
        Assert.That(scanner.TryScanCompact("0xsqldk+1", 0, 9), Is.Null);
        Assert.That(
            scanner.TryScanCompact("sqldk.dll+0x1FFFFFFFFFFFFFFFFF", 0, 30),
            Is.Null,
            "overflow is the general grammar's to report"
        );
        Assert.That(
            scanner.TryScan("Foo::Bar+1", 0, 10, NameAndDisplacement.Split("Foo::Bar+1"), null, null, out _),
            Is.False
        );
    }

    [TestCase("00 00000000`0014f4b8 00000000`77a3c2b6 ntdll!ZwWaitForSingleObject+0xa", true)]
    [TestCase("00 0014f4b8 77a3c2b6 : 00000000 00000001 : ntdll!ZwWaitForSingleObject+0xa", true)]
    [TestCase("00 0014f4b8 77a3c2b6", false)]
    [TestCase("00 sqldk+1 sqldk+2 sqldk+3", false)]
    public void WinDbgLineScanner_ClaimsOnlyKLines(string line, bool claimed)
    {
        var modules = new ModuleNameCache();
        var general = new GeneralFrameScanner(OffsetRadix.Decimal, modules, new ModuleOffsetScanner(modules));
        List<Range> pieces = new FramePieceSplitter().Split(line, 0, line.Length);
        TokenScan? scan = new WinDbgLineScanner(general).TryScan(line, pieces, 1, 0);
        Assert.That(scan.HasValue, Is.EqualTo(claimed));
        if (claimed)
        {
            var f = (SymbolizedFrame)scan!.Value.Frame!;
            Assert.That(f.Provenance, Is.EqualTo(FrameProvenance.WinDbg));
            Assert.That(
                f.Displacement,
                Is.EqualTo(0xaUL),
                "a k line's displacement is hex even when resolver output is read as decimal"
            );
        }
    }

    [Test]
    public void FramePieceSplitter_KeepsTemplatesTogether_DropsJunk_AndRejoinsOffsets()
    {
        const string Line =
            "SpinlockBase::Sleep+c7 [ @ 0+0x0 Spinlock<144, 1, 0>::Spin sqldk + 0x1 Foo::operator new+0x8";
        List<Range> pieces = new FramePieceSplitter().Split(Line, 0, Line.Length);
        Assert.That(
            pieces.Select(r => Line[r]),
            Is.EqualTo(
                new[] { "SpinlockBase::Sleep+c7", "Spinlock<144, 1, 0>::Spin", "sqldk + 0x1", "Foo::operator new+0x8" }
            )
        );
    }
}

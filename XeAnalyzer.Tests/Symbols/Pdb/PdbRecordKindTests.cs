using System.Buffers.Binary;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>Record kinds lld 14 does not write here, name classification, and the performance probe's
/// plumbing.</summary>
internal sealed class PdbRecordKindTests
{
    [TestCase((ushort)0x1147, (ushort)0x1146)] // S_GPROC32_ID, S_LPROC32_ID (written by newer lld and by MSVC)
    [TestCase((ushort)0x1110, (ushort)0x1155)] // S_GPROC32, S_LPROC32_DPC
    public void GetProcedures_ReadsOtherProcedureKinds_WithTheSameLayout(ushort globalKind, ushort localKind)
    {
        var msf = MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb("full")));
        int stream = msf.DbiU16(64 + 34); // module 0's symbol stream
        byte[] symbols = msf.Streams[stream]!;
        int end = BinaryPrimitives.ReadInt32LittleEndian(msf.Streams[3].AsSpan(64 + 36));
        int patched = 0;
        for (int at = 4; at < end; at += 2 + BinaryPrimitives.ReadUInt16LittleEndian(symbols.AsSpan(at)))
        {
            ushort kind = BinaryPrimitives.ReadUInt16LittleEndian(symbols.AsSpan(at + 2));
            if (kind is 0x1110 or 0x110F)
            {
                BinaryPrimitives.WriteUInt16LittleEndian(
                    symbols.AsSpan(at + 2),
                    kind == 0x1110 ? globalKind : localKind
                );
                patched++;
            }
        }

        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        Assert.That(patched, Is.EqualTo(oracle.Procedures.Count));
        using PdbFile pdb = PdbFile.Open(
            new MemoryRandomAccessSource(msf.Write(4096, scatter: false), "kinds.pdb"),
            ownsSource: true
        );
        Assert.That(
            pdb.GetProcedures().Select(p => (p.Name, (int)p.Segment, p.Offset, p.Size, p.IsGlobal)),
            Is.EqualTo(oracle.Procedures.Select(p => (p.Name, p.Segment, p.Offset, p.Size, p.Kind == "S_GPROC32")))
        );
    }

    [TestCase("?Publish@Widget@TinyPkg@@SAHPEAXH@Z", true, PdbNameDecoration.Msvc)]
    [TestCase("?Publish@Widget@TinyPkg@@SAHPEAXH@Z", false, PdbNameDecoration.Msvc)]
    [TestCase("_CloseHandle@4", true, PdbNameDecoration.CallingConvention)] // stdcall
    [TestCase("@__security_check_cookie@4", true, PdbNameDecoration.CallingConvention)] // fastcall
    [TestCase("_wcschr", true, PdbNameDecoration.CallingConvention)] // cdecl
    [TestCase("foo_vectorcall@@16", false, PdbNameDecoration.CallingConvention)] // vectorcall, any machine
    [TestCase("_CloseHandle@4", false, PdbNameDecoration.None)] // no x86 C decorations on x64
    [TestCase("__real@3ff0000000000000", true, PdbNameDecoration.None)]
    [TestCase("lock_internal", true, PdbNameDecoration.None)]
    [TestCase("@", true, PdbNameDecoration.None)]
    [TestCase("", true, PdbNameDecoration.None)]
    public void Classify_PublicNames(string name, bool isX86, PdbNameDecoration expected) =>
        Assert.That(
            PdbNames.Classify(System.Text.Encoding.UTF8.GetBytes(name), isPublic: true, isX86),
            Is.EqualTo(expected)
        );

    [Test]
    public void Classify_ProcedureNames_AreNeverCallingConventionDecorated() =>
        Assert.That(PdbNames.Classify("_initterm"u8, isPublic: false, isX86: true), Is.EqualTo(PdbNameDecoration.None));

    [Test]
    public void OpenAndLookup_ReportsCountsAndTheSymbol()
    {
        PdbProbeResult r = PdbPerformanceProbe.OpenAndLookup(TinyFixture.Pdb("full"), 0x11D9);
        Assert.That(
            (r.PublicCount, r.ProcedureCount, r.Symbol),
            Is.EqualTo((13, 14, "TinyPkg::Widget::Publish+0x1a9"))
        );
        Assert.That(r.FileBytes, Is.EqualTo(new FileInfo(TinyFixture.Pdb("full")).Length));
        Assert.That(r.Total, Is.EqualTo(r.Open + r.IndexBuild + r.FirstLookup));
    }
}

using System.Buffers.Binary;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// OMAP translation on a synthetic variant of the full fixture: the "source" layout puts .text at 0x10000, and the
/// image swaps the two halves of .text at offset <see cref="Split"/> (a function boundary). Expected addresses follow
/// from llvm-pdbutil's view of the unmodified PDB through the same (independently written) mapping.
/// </summary>
public class PdbOmapTests
{
    private const uint SourceText = 0x10000;
    private const uint ImageText = 0x1000;
    private const uint TextSize = 0xD70; // .text virtual size 0xD6B, rounded up

    // first byte of TinyPkg::Widget::Poke: the source range [0, Split) moves after the rest
    private const uint Split = 0x450;

    private static uint ExpectedImageRva(int segment, uint offset) =>
        segment != 1 ? TinyFixture.PdbUtil("full").Rva(segment, offset)
        : offset < Split ? ImageText + (TextSize - Split) + offset
        : ImageText + (offset - Split);

    [Test]
    public void GetProcedures_TranslateThroughOmapFromSource()
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        using PdbFile pdb = OpenOmapPdb();
        Assert.That(pdb.HasOmap(), Is.True);
        Assert.That(pdb.OriginalSections[0].VirtualAddress, Is.EqualTo(SourceText));
        Assert.That(
            pdb.GetProcedures().Select(p => (p.Name, p.Rva, p.Size)),
            Is.EqualTo(oracle.Procedures.Select(p => (p.Name, ExpectedImageRva(p.Segment, p.Offset), p.Size)))
        );
    }

    [Test]
    public void GetPublics_TranslateThroughOmapFromSource()
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        using PdbFile pdb = OpenOmapPdb();
        Assert.That(
            pdb.GetPublics().Select(p => (p.Name, p.Rva)).Order(),
            Is.EqualTo(oracle.Publics.Select(p => (p.Name, ExpectedImageRva(p.Segment, p.Offset))).Order())
        );
    }

    [Test]
    public void Lookup_MapsImageRvaToSourceBeforeSearching()
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        using PdbFile pdb = OpenOmapPdb();
        foreach (
            var p in oracle.Procedures.Where(p => p.Name is "TinyPkg::Widget::Publish" or "StaticHelper" or "call_all")
        )
        {
            uint image = ExpectedImageRva(p.Segment, p.Offset);
            foreach (uint d in new uint[] { 0, 1, p.Size / 2, p.Size - 1 })
            {
                PdbSymbolMatch m = pdb.Lookup(image + d)!;
                Assert.That(
                    (m.Name, m.SymbolRva, m.Displacement, m.Kind),
                    Is.EqualTo((p.Name, image, d, PdbSymbolKind.Procedure)),
                    $"{p.Name}+{d}"
                );
            }
        }
    }

    [Test]
    public void Lookup_ReturnsNull_ForImageRvasOmapLeavesUnmapped()
    {
        using PdbFile pdb = OpenOmapPdb();
        Assert.That(pdb.Lookup(0x800), Is.Null, "before the first to-source entry");
        Assert.That(pdb.Lookup(ImageText + TextSize + 0x10), Is.Null, "an entry whose target is 0");
        Assert.That(pdb.Lookup(0x3000)!.Name, Is.EqualTo("?g_sink@@3HC"), ".data maps to itself");
    }

    [Test]
    public void Open_ThrowsInvalidPdbData_WhenOmapStreamIsNotWholeEntries()
    {
        using PdbFile pdb = OpenOmapPdb(damageOmap: true);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.Lookup(0x1000));
        Assert.That(ex!.Message, Does.Contain("8-byte OMAP entries"));
    }

    [Test]
    public void Open_ThrowsInvalidPdbData_WhenOmapEntriesAreUnsorted()
    {
        using PdbFile pdb = OpenOmapPdb(unsorted: true);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("sorted"));
    }

    private static PdbFile OpenOmapPdb(bool damageOmap = false, bool unsorted = false)
    {
        var msf = MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb("full")));
        byte[] sections = (byte[])msf.Streams[msf.DbiU16(msf.DebugStreamSlotOffset(5))]!.Clone();
        // section 1 (.text) VirtualAddress in the source layout
        BinaryPrimitives.WriteUInt32LittleEndian(sections.AsSpan(12), SourceText);

        byte[] fromSource = Entries(
            (0x2000, 0x2000),
            (SourceText, ImageText + (TextSize - Split)),
            (SourceText + Split, ImageText),
            (SourceText + TextSize, 0)
        );
        byte[] toSource = Entries(
            (ImageText, SourceText + Split),
            (ImageText + (TextSize - Split), SourceText),
            (ImageText + TextSize, 0),
            (0x2000, 0x2000)
        );
        if (damageOmap)
        {
            fromSource = fromSource[..^3];
        }

        if (unsorted)
        {
            (fromSource[0], fromSource[8]) = (fromSource[8], fromSource[0]);
            (fromSource[1], fromSource[9]) = (fromSource[9], fromSource[1]);
            (fromSource[2], fromSource[10]) = (fromSource[10], fromSource[2]);
        }

        int first = msf.Streams.Count;
        msf.Streams.Add(toSource);
        msf.Streams.Add(fromSource);
        msf.Streams.Add(sections);
        byte[] dbi = msf.Streams[3]!;
        BinaryPrimitives.WriteUInt16LittleEndian(dbi.AsSpan(msf.DebugStreamSlotOffset(3)), (ushort)first);
        BinaryPrimitives.WriteUInt16LittleEndian(dbi.AsSpan(msf.DebugStreamSlotOffset(4)), (ushort)(first + 1));
        BinaryPrimitives.WriteUInt16LittleEndian(dbi.AsSpan(msf.DebugStreamSlotOffset(10)), (ushort)(first + 2));
        return PdbFile.Open(new MemoryRandomAccessSource(msf.Write(4096, scatter: true), "omap.pdb"), ownsSource: true);
    }

    private static byte[] Entries(params (uint From, uint To)[] entries)
    {
        byte[] data = new byte[entries.Length * 8];
        for (int i = 0; i < entries.Length; i++)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan(i * 8), entries[i].From);
            BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan((i * 8) + 4), entries[i].To);
        }

        return data;
    }
}

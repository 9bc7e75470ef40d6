using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// Non-4096 block sizes: lld writes only 4096 and up, so the fixture is re-blocked by the tests' own MSF writer (blocks
/// scattered in reverse order, so no stream is contiguous and fields straddle block boundaries); the real 1024-block
/// PDB is in the vector tests.
/// </summary>
public class PdbBlockSizeTests
{
    [TestCase("full", 512)]
    [TestCase("full", 1024)]
    [TestCase("full", 2048)]
    [TestCase("full", 4096)]
    [TestCase("full", 8192)]
    [TestCase("publics", 512)]
    [TestCase("stripped", 2048)]
    public void Open_ReblockedPdb_ReadsTheSameSymbolsAsTheOriginal(string flavor, int blockSize)
    {
        byte[] original = File.ReadAllBytes(TinyFixture.Pdb(flavor));
        byte[] reblocked = MsfTestFile.Read(original).Write(blockSize, scatter: true);
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);

        using PdbFile pdb = PdbFile.Open(new MemoryRandomAccessSource(reblocked, "reblocked.pdb"), ownsSource: true);
        using PdbFile reference = PdbFile.Open(TinyFixture.Pdb(flavor));
        Assert.That(pdb.BlockSize, Is.EqualTo(blockSize));
        Assert.That(pdb.Identity, Is.EqualTo(reference.Identity));
        Assert.That(pdb.Dbi!.Flags, Is.EqualTo(reference.Dbi!.Flags));
        Assert.That(pdb.Sections.Select(s => (s.Name, s.VirtualSize, s.VirtualAddress)), Is.EqualTo(oracle.Sections));
        Assert.That(
            pdb.GetPublics().Select(p => (p.Name, (int)p.Segment, p.Offset)).Order(),
            Is.EqualTo(oracle.Publics.Select(p => (p.Name, p.Segment, p.Offset)).Order())
        );
        Assert.That(
            pdb.GetProcedures().Select(p => (p.Name, (int)p.Segment, p.Offset, p.Size)),
            Is.EqualTo(oracle.Procedures.Select(p => (p.Name, p.Segment, p.Offset, p.Size)))
        );
        for (uint rva = 0xF00; rva < 0x3100; rva += 7)
        {
            Assert.That(pdb.Lookup(rva)?.ToString(), Is.EqualTo(reference.Lookup(rva)?.ToString()), $"0x{rva:X}");
        }
    }

    [TestCase(500)]
    [TestCase(4095)]
    [TestCase(65536)]
    [TestCase(0)]
    public void Open_ThrowsWithOffset32_ForUnsupportedBlockSize(int blockSize)
    {
        byte[] file = File.ReadAllBytes(TinyFixture.Pdb("publics"));
        BitConverter.TryWriteBytes(file.AsSpan(32), blockSize);
        var ex = Assert.Throws<InvalidPdbDataException>(() =>
            PdbFile.Open(new MemoryRandomAccessSource(file, "bad-block.pdb"), ownsSource: true)
        );
        Assert.That(ex!.Offset, Is.EqualTo(32));
        Assert.That(ex.Message, Does.Contain("bad-block.pdb").And.Contain("block size"));
    }
}

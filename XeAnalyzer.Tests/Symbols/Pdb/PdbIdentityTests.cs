using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

public class PdbIdentityTests
{
    [Test]
    public void ReadIdentity_MatchesPublishedGuidAndAge_ForStrippedMsvcPdb()
    {
        string path = TestPaths.RequireVector("pdb", "basic32-min.pdb");
        using PdbFile pdb = PdbFile.Open(path);
        Assert.That(pdb.Identity.Guid, Is.EqualTo(Guid.Parse("878E82E5-E282-481B-88FC-BBA2CFF8C7F1")));
        Assert.That(pdb.Identity.Age, Is.EqualTo(2));
        Assert.That(pdb.BlockSize, Is.EqualTo(4096));
        Assert.That(pdb.Identity.Key, Is.EqualTo("878E82E5E282481B88FCBBA2CFF8C7F12"));
    }

    [Test]
    public void ReadIdentity_ReadsBlockSize1024Pdb()
    {
        string path = TestPaths.RequireVector("pdb", "dump_syms_regtest64.pdb");
        using PdbFile pdb = PdbFile.Open(path);
        Assert.That(pdb.BlockSize, Is.EqualTo(1024));
        Assert.That(pdb.Identity.Age, Is.EqualTo(3));
    }

    [Test]
    public void Open_ThrowsClearError_ForCabCompressedPdb()
    {
        string path = TestPaths.RequireVector("pdb", "basic32.pd_");
        var ex = Assert.Throws<InvalidPdbDataException>(() => PdbFile.Open(path));
        Assert.That(ex!.Message, Does.Contain("CAB").And.Contain(path));
    }

    [Test]
    public void Open_ThrowsWithOffset_WhenTruncatedTo1000Bytes()
    {
        string src = TestPaths.RequireVector("pdb", "dump_syms_regtest64.pdb");
        string tmp = Path.Combine(Path.GetTempPath(), "xea-trunc-" + Guid.NewGuid().ToString("N") + ".pdb");
        try
        {
            File.WriteAllBytes(tmp, File.ReadAllBytes(src).AsSpan(0, 1000).ToArray());
            var ex = Assert.Throws<InvalidPdbDataException>(() => PdbFile.Open(tmp));
            Assert.That(ex!.Message, Does.Contain(tmp).And.Contain("truncated"));
        }
        finally
        {
            File.Delete(tmp);
        }
    }

    [Test]
    public void Open_ThrowsNotAPdb_ForPeImage()
    {
        string path = TestPaths.RequireVector("pdb", "basic32-min.dll");
        var ex = Assert.Throws<InvalidPdbDataException>(() => PdbFile.Open(path));
        Assert.That(ex!.Message, Does.Contain("not a PDB"));
        Assert.That(ex.Offset, Is.EqualTo(0));
    }
}

using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

public class SymbolCacheTests
{
    private string _root = null!;

    [SetUp]
    public void SetUp() => _root = StoreFixtures.NewScratch();

    [TearDown]
    public void TearDown() => StoreFixtures.DeleteScratch(_root);

    [Test]
    public void Verify_ClassifiesEveryEntry_AndDeletesOnlyBadOnes()
    {
        var a = StoreFixtures.IdentityA;
        var b = StoreFixtures.IdentityB;
        string good = Put(StoreFixtures.PdbA, "storea.pdb", a.Key, "storea.pdb");
        string wrong = Put(StoreFixtures.PdbB, "storea.pdb", a.Key.ToLowerInvariant(), "storea.pdb");
        string cab = Put(StoreFixtures.CabA, "storea.pdb", a.Key + "0", "storea.pd_");
        string partial = Path.Combine(_root, "storea.pdb", a.Key, ".storea.pdb.123.tmp");
        File.WriteAllBytes(partial, new byte[10]);
        string broken = Path.Combine(_root, "storeb.pdb", b.Key, "storeb.pdb");
        Directory.CreateDirectory(Path.GetDirectoryName(broken)!);
        File.WriteAllBytes(broken, File.ReadAllBytes(StoreFixtures.PdbB).AsSpan(0, 500).ToArray());
        string ptr = Path.Combine(_root, "storeb.pdb", b.Key + "1", "file.ptr");
        Directory.CreateDirectory(Path.GetDirectoryName(ptr)!);
        File.WriteAllText(ptr, "PATH:/x");
        File.WriteAllText(Path.Combine(_root, "pingme.txt"), string.Empty);

        IReadOnlyList<SymbolCacheEntry> entries = SymbolCache.Verify(_root, deleteInvalid: true);
        SymbolCacheEntry E(string p) => entries.Single(e => e.Path == p);
        Assert.That(E(good).Status, Is.EqualTo(SymbolCacheEntryStatus.Ok));
        Assert.That(E(good).FileIdentity, Is.EqualTo(a));
        Assert.That(E(wrong).Status, Is.EqualTo(SymbolCacheEntryStatus.Mismatch));
        Assert.That(E(wrong).Problem, Does.Contain(b.ToString()).And.Contain(a.ToString()));
        Assert.That(E(cab).Kind, Is.EqualTo(SymbolCacheEntryKind.CompressedPdb));
        Assert.That(E(partial).Kind, Is.EqualTo(SymbolCacheEntryKind.PartialDownload));
        Assert.That(E(broken).Status, Is.EqualTo(SymbolCacheEntryStatus.Unreadable));
        Assert.That(E(ptr).Kind, Is.EqualTo(SymbolCacheEntryKind.PointerFile));
        Assert.That(entries.Select(e => e.Path), Is.Ordered.Using((IComparer<string>)StringComparer.Ordinal));

        Assert.That(File.Exists(good), Is.True);
        Assert.That(File.Exists(cab), Is.True);
        Assert.That(File.Exists(ptr), Is.True);
        Assert.That(File.Exists(wrong), Is.False);
        Assert.That(File.Exists(partial), Is.False);
        Assert.That(File.Exists(broken), Is.False);
    }

    [Test]
    public void Enumerate_ReadsTwoTierLayout_WithoutReadingFiles()
    {
        var a = StoreFixtures.IdentityA;
        File.WriteAllText(Path.Combine(_root, "index2.txt"), string.Empty);
        string pdb = Put(StoreFixtures.PdbA, "st", "storea.pdb", a.Key, "storea.pdb");
        SymbolCacheEntry e = SymbolCache
            .Enumerate(_root, verify: false)
            .Single(x => x.Kind == SymbolCacheEntryKind.Pdb);
        Assert.That(e.Path, Is.EqualTo(pdb));
        Assert.That(e.Name, Is.EqualTo("storea.pdb"));
        Assert.That(e.KeyIdentity, Is.EqualTo(a));
        Assert.That(e.Status, Is.EqualTo(SymbolCacheEntryStatus.NotChecked));
    }

    [Test]
    public void Enumerate_Throws_WhenRootMissing()
    {
        Assert.Throws<DirectoryNotFoundException>(() =>
            SymbolCache.Enumerate(Path.Combine(_root, "nope"), verify: false)
        );
    }

    private string Put(string source, params string[] parts)
    {
        string target = Path.Combine([_root, .. parts]);
        Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        File.Copy(source, target);
        return target;
    }
}

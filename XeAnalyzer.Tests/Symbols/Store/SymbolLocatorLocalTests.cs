using System.Buffers.Binary;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

/// <summary>The locator over local folders, stores and caches (no network).</summary>
public class SymbolLocatorLocalTests
{
    private string _sandbox = null!;
    private string _cache = null!;
    private PdbIdentity _a;
    private PdbIdentity _b;

    [SetUp]
    public void SetUp()
    {
        _sandbox = StoreFixtures.NewScratch();
        _cache = Path.Combine(_sandbox, "default-cache");
        _a = StoreFixtures.IdentityA;
        _b = StoreFixtures.IdentityB;
    }

    [TearDown]
    public void TearDown() => StoreFixtures.DeleteScratch(_sandbox);

    [TestCase("storea.pdb", "storea.pdb", true)]
    [TestCase("STOREA.PDB", "StoreA.pdb", true)]
    [TestCase("StoreA.pdb", "storea.pdb", false)]
    public void LocatePdb_FindsStoreEntry_InAnyLetterCase(string folderName, string requested, bool upperKey)
    {
        string store = Path.Combine(_sandbox, "store");
        string key = upperKey ? _a.Key : SymbolStoreKey.FormatLower(_a);
        Place(StoreFixtures.PdbA, store, folderName, key, folderName);
        using var locator = Offline("srv*" + store);
        PdbLookupResult r = locator.LocatePdb(requested, _a);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Store));
        Assert.That(r.Path, Is.EqualTo(Path.Combine(store, folderName, key, folderName)));
    }

    [Test]
    public void LocatePdb_FindsTwoTierIndex2Layout()
    {
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.PdbA, store, "st", "storea.pdb", _a.Key, "storea.pdb");
        File.WriteAllText(Path.Combine(store, "index2.txt"), string.Empty);
        using var locator = Offline("srv*" + store);
        Assert.That(
            locator.LocatePdb("storea.pdb", _a).Path,
            Is.EqualTo(Path.Combine(store, "st", "storea.pdb", _a.Key, "storea.pdb"))
        );
    }

    [Test]
    public void LocatePdb_ReportsWhy_WhenStoreHoldsOtherBuildUnderKey()
    {
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.PdbB, store, "storea.pdb", _a.Key, "storea.pdb");
        using var locator = Offline("srv*" + store);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.IsFound, Is.False);
        Assert.That(
            r.Reasons,
            Has.Some.EqualTo(
                "storea.pdb in " + Path.Combine(store, "storea.pdb", _a.Key) + " has " + _b + ", wanted " + _a
            )
        );
    }

    [Test]
    public void LocatePdb_MatchesFolderFileByIdentity()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Place(StoreFixtures.PdbA, folder, "StoreA.pdb");
        using var locator = Offline(folder);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.Origin, Is.EqualTo(PdbOrigin.Folder));
        Assert.That(r.OriginLocation, Is.EqualTo(folder));
    }

    [Test]
    public void LocatePdb_NeverUsesWrongBuild_WhenFolderFileHasOtherIdentity()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Place(StoreFixtures.PdbB, folder, "storea.pdb");
        using var locator = Offline(folder);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.NotFound));
        Assert.That(r.Path, Is.Null);
        Assert.That(r.Reasons, Has.Some.EqualTo("storea.pdb in " + folder + " has " + _b + ", wanted " + _a));
    }

    [Test]
    public void LocatePdb_ReturnsUnverified_WhenIdentityUnknownAndNameUniqueInTheNamedFolders()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Place(StoreFixtures.PdbA, folder, "storea.pdb");
        // the same build twice (store layout inside) is still unique
        Place(StoreFixtures.PdbA, Path.Combine(folder, "sub"), "storea.pdb", _a.Key, "storea.pdb");
        using var locator = Offline(folder, nameOnly: [folder, Path.Combine(folder, "sub")]);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", null);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Unverified));
        Assert.That(r.IsVerified, Is.False);
        Assert.That(r.FileIdentity, Is.EqualTo(_a));
        Assert.That(r.Path, Is.EqualTo(Path.Combine(folder, "storea.pdb")));
    }

    [Test]
    public void LocatePdb_NeverMatchesByNameOnly_InACacheStoreOrUnnamedFolder()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Place(StoreFixtures.PdbA, folder, "storea.pdb");
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.PdbA, store, "storea.pdb", _a.Key, "storea.pdb");
        Place(StoreFixtures.PdbA, _cache, "storea.pdb", _a.Key, "storea.pdb");
        using var locator = Offline(folder + ";srv*" + store + ";cache*", nameOnly: []);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", null);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("no folder was named for matching a PDB by name only"));
        Assert.That(
            r.Reasons.Count(x => x.Contains("has that name but is not used", StringComparison.Ordinal)),
            Is.EqualTo(3)
        );

        // A folder named for name-only matching is searched even when it is not on the symbol path; the store still is
        // not.
        using var named = Offline("srv*" + store, nameOnly: [folder]);
        Assert.That(named.LocatePdb("storea.pdb", null).Path, Is.EqualTo(Path.Combine(folder, "storea.pdb")));
        using var storeOnly = Offline("srv*" + store, nameOnly: [Path.Combine(_sandbox, "empty")]);
        Assert.That(storeOnly.LocatePdb("storea.pdb", null).IsFound, Is.False);
    }

    [Test]
    public void LocatePdb_RefusesToGuess_WhenIdentityUnknownAndBuildsDiffer()
    {
        string one = Path.Combine(_sandbox, "one");
        string two = Path.Combine(_sandbox, "two");
        Place(StoreFixtures.PdbA, one, "storea.pdb");
        Place(StoreFixtures.PdbB, two, "storea.pdb");
        using var locator = Offline(one + ";" + two, nameOnly: [one, two]);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", null);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("2 different builds of storea.pdb"));
    }

    [Test]
    public void LocatePdb_SearchesSubfolders_OnlyWhenRecursive()
    {
        string folder = Path.Combine(_sandbox, "tree");
        Place(StoreFixtures.PdbA, folder, "x", "y", "storea.pdb");
        using (var flat = Offline(folder))
        {
            Assert.That(flat.LocatePdb("storea.pdb", _a).IsFound, Is.False);
        }

        using var deep = new SymbolLocator(
            SymbolPath.Parse(folder),
            new SymbolStoreOptions
            {
                Offline = true,
                DefaultCacheDirectory = _cache,
                SearchFoldersRecursively = true,
            }
        );
        Assert.That(deep.LocatePdb("storea.pdb", _a).Path, Is.EqualTo(Path.Combine(folder, "x", "y", "storea.pdb")));
    }

    [Test]
    public void LocatePdb_ExpandsStorePd_IntoChainCache()
    {
        string cache = Path.Combine(_sandbox, "cache");
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.CabA, store, "storea.pdb", _a.Key, "storea.pd_");
        using var locator = Offline("srv*" + cache + "*" + store);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.Status, Is.EqualTo(PdbLookupStatus.Verified));
        Assert.That(r.ExpandedFromCabinet, Is.True);
        Assert.That(r.Path, Is.EqualTo(Path.Combine(cache, "storea.pdb", _a.Key, "storea.pdb")));
        Assert.That(File.ReadAllBytes(r.Path!), Is.EqualTo(File.ReadAllBytes(StoreFixtures.PdbA)));
        Assert.That(StoreFixtures.FilesUnder(cache), Is.EqualTo(new[] { "storea.pdb/" + _a.Key + "/storea.pdb" }));
    }

    [Test]
    public void LocatePdb_LeavesCacheEmpty_WhenStorePd_IsDamaged()
    {
        string cache = Path.Combine(_sandbox, "cache");
        string store = Path.Combine(_sandbox, "store");
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        cab[^20] ^= 0xFF;
        string dir = Path.Combine(store, "storea.pdb", _a.Key);
        Directory.CreateDirectory(dir);
        File.WriteAllBytes(Path.Combine(dir, "storea.pd_"), cab);
        using var locator = Offline("srv*" + cache + "*" + store);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("cannot expand").And.Contains("checksum"));
        Assert.That(StoreFixtures.FilesUnder(cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_RefusesCabinetBomb_AboveExpansionCap()
    {
        string store = Path.Combine(_sandbox, "store");
        byte[] bomb = CabBuilder.Build(
            "storea.pdb",
            new byte[32768 * 64],
            System.IO.Compression.CompressionLevel.SmallestSize
        );
        string dir = Path.Combine(store, "storea.pdb", _a.Key);
        Directory.CreateDirectory(dir);
        File.WriteAllBytes(Path.Combine(dir, "storea.pd_"), bomb);
        using var locator = new SymbolLocator(
            SymbolPath.Parse("srv*" + store),
            new SymbolStoreOptions
            {
                Offline = true,
                DefaultCacheDirectory = _cache,
                MaxExpandedBytes = 1_000_000,
            }
        );
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("decompression bomb"));
        Assert.That(StoreFixtures.FilesUnder(_cache), Is.Empty);
    }

    [Test]
    public void LocatePdb_FollowsLocalPointer_WithRelativeOrAbsolutePath()
    {
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.PdbA, store, "files", "a-build.pdb");
        string keyDir = Path.Combine(store, "storea.pdb", _a.Key);
        Directory.CreateDirectory(keyDir);
        File.WriteAllText(Path.Combine(keyDir, "file.ptr"), "PATH:../../files/a-build.pdb");
        using (var locator = Offline("srv*" + store))
        {
            PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
            Assert.That(r.ViaPointerFile, Is.True);
            Assert.That(r.Path, Is.EqualTo(Path.Combine(store, "files", "a-build.pdb")));
        }

        File.WriteAllText(Path.Combine(keyDir, "file.ptr"), "PATH:" + Path.Combine(store, "files", "a-build.pdb"));
        using (var locator = Offline("srv*" + store))
        {
            Assert.That(locator.LocatePdb("storea.pdb", _a).IsVerified, Is.True);
        }
    }

    [Test]
    public void LocatePdb_RefusesLocalPointer_ThatLeavesSymbolPath()
    {
        string store = Path.Combine(_sandbox, "store");
        string elsewhere = Path.Combine(_sandbox, "elsewhere");
        Place(StoreFixtures.PdbA, elsewhere, "storea.pdb");
        string keyDir = Path.Combine(store, "storea.pdb", _a.Key);
        Directory.CreateDirectory(keyDir);
        File.WriteAllText(Path.Combine(keyDir, "file.ptr"), "PATH:../../../elsewhere/storea.pdb");
        using (var locator = Offline("srv*" + store))
        {
            PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
            Assert.That(r.IsFound, Is.False);
            Assert.That(r.Reasons, Has.Some.Contains("outside the symbol path"));
        }

        using var permissive = new SymbolLocator(
            SymbolPath.Parse("srv*" + store),
            new SymbolStoreOptions
            {
                Offline = true,
                DefaultCacheDirectory = _cache,
                AllowPointerTargetsOutsideSymbolPath = true,
            }
        );
        Assert.That(permissive.LocatePdb("storea.pdb", _a).IsVerified, Is.True);
    }

    [Test]
    public void LocatePdb_ReportsPointerMessage()
    {
        string store = Path.Combine(_sandbox, "store");
        string keyDir = Path.Combine(store, "storea.pdb", _a.Key);
        Directory.CreateDirectory(keyDir);
        File.WriteAllText(Path.Combine(keyDir, "file.ptr"), "MSG: removed by legal request");
        using var locator = Offline("srv*" + store);
        Assert.That(locator.LocatePdb("storea.pdb", _a).Reasons, Has.Some.EndsWith("says: removed by legal request"));
    }

    [Test]
    public void LocatePdb_ReportsMsfz_WhenFolderHoldsMsfzFile()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Directory.CreateDirectory(folder);
        File.WriteAllBytes(
            Path.Combine(folder, "storea.pdb"),
            [.. "Microsoft MSFZ Container\r\n\u001aALD\0\0\0"u8, .. new byte[512]]
        );
        using var locator = Offline(folder);
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.IsFound, Is.False);
        Assert.That(r.Reasons, Has.Some.Contains("MSFZ"));
    }

    [Test]
    public void LocatePdb_ReportsTruncatedPdb()
    {
        string folder = Path.Combine(_sandbox, "pdbs");
        Directory.CreateDirectory(folder);
        File.WriteAllBytes(
            Path.Combine(folder, "storea.pdb"),
            File.ReadAllBytes(StoreFixtures.PdbA).AsSpan(0, 1000).ToArray()
        );
        using var locator = Offline(folder);
        Assert.That(locator.LocatePdb("storea.pdb", _a).Reasons, Has.Some.Contains("truncated"));
    }

    [Test]
    public void LocatePdb_SaysPathIsEmpty_WhenNothingUsable()
    {
        using var locator = Offline(OperatingSystem.IsWindows() ? string.Empty : @"\\server\share");
        PdbLookupResult r = locator.LocatePdb("storea.pdb", _a);
        Assert.That(r.Reasons.Single(), Does.StartWith("the symbol path is empty"));
    }

    [Test]
    public void LocatePdb_SearchesCommittedSymbolsCache_WhenPresent()
    {
        // The repository's own symbols-cache/ (committed fixtures: sqlmin, sqldk, sqllang, sqlTsEs built by
        // tools/fixtures).
        string root = TestPaths.SymbolsCache;
        var pdbs = Directory.Exists(root)
            ? SymbolCache.Enumerate(root, verify: true).Where(e => e.Status == SymbolCacheEntryStatus.Ok).ToList()
            : [];
        Assert.That(pdbs, Has.Count.GreaterThanOrEqualTo(4), "symbols-cache/ should hold the committed fixture PDBs");

        using var locator = Offline("srv*" + root);
        foreach (SymbolCacheEntry e in pdbs)
        {
            Assert.That(locator.LocatePdb(e.Name!, e.KeyIdentity).Path, Is.EqualTo(e.Path));
        }
    }

    [Test]
    public void LocatePdb_IsThreadSafe_UnderParallelLookups()
    {
        string store = Path.Combine(_sandbox, "store");
        Place(StoreFixtures.PdbA, store, "storea.pdb", _a.Key, "storea.pdb");
        Place(StoreFixtures.PdbB, store, "storeb.pdb", _b.Key, "storeb.pdb");
        using var locator = Offline("srv*" + store);
        var results = new PdbLookupResult[200];
        Parallel.For(
            0,
            results.Length,
            i => results[i] = locator.LocatePdb(i % 2 == 0 ? "storea.pdb" : "STOREB.pdb", i % 2 == 0 ? _a : _b)
        );
        Assert.That(results.Where((r, i) => r.FileIdentity != (i % 2 == 0 ? _a : _b)), Is.Empty);
    }

    [Test]
    public void LocatePdb_KeyUsesHexAge_ForAgeAbove9()
    {
        // Make a copy of the fixture whose DBI age is 10: its key ends in 'A', not '10'.
        string folder = Path.Combine(_sandbox, "src");
        Place(StoreFixtures.PdbA, folder, "storea.pdb");
        string path = Path.Combine(folder, "storea.pdb");
        PatchDbiAge(path, 10);
        var aged = new PdbIdentity(_a.Guid, 10);
        Assert.That(aged.Key, Does.EndWith("A"));
        string store = Path.Combine(_sandbox, "store");
        Place(path, store, "storea.pdb", aged.Key, "storea.pdb");
        using var locator = Offline("srv*" + store);
        Assert.That(locator.LocatePdb("storea.pdb", aged).IsVerified, Is.True);
        Assert.That(locator.LocatePdb("storea.pdb", _a).IsFound, Is.False);
    }

    internal static void PatchDbiAge(string pdbPath, int age)
    {
        // Walk the MSF directory to stream 3 (DBI) and rewrite the age at offset 8 of its first block.
        byte[] bytes = File.ReadAllBytes(pdbPath);
        int blockSize = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(32));
        int directoryBytes = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(44));
        int blockMap = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(52));
        int directoryBlock = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(blockMap * blockSize));
        Assert.That(directoryBytes, Is.LessThanOrEqualTo(blockSize), "fixture directory fits one block");
        var dir = bytes.AsSpan(directoryBlock * blockSize);
        int streams = BinaryPrimitives.ReadInt32LittleEndian(dir);
        int blockListStart = 4 + (4 * streams);
        int skip = 0;
        for (int s = 0; s < 3; s++)
        {
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(dir[(4 + (4 * s))..]);
            skip += size == uint.MaxValue ? 0 : (int)((size + blockSize - 1) / blockSize);
        }

        int dbiFirstBlock = BinaryPrimitives.ReadInt32LittleEndian(dir[(blockListStart + (4 * skip))..]);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan((dbiFirstBlock * blockSize) + 8), age);
        File.WriteAllBytes(pdbPath, bytes);
    }

    private SymbolLocator Offline(string path, IReadOnlyList<string>? nameOnly = null) =>
        new(
            SymbolPath.Parse(path),
            new SymbolStoreOptions
            {
                Offline = true,
                DefaultCacheDirectory = _cache,
                NameOnlyFolders = nameOnly ?? [],
            }
        );

    private static void Place(string source, string root, params string[] parts)
    {
        string target = Path.Combine([root, .. parts]);
        Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        File.Copy(source, target);
    }
}

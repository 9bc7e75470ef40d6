using System.Buffers.Binary;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>Damaged PDBs: every failure is an <see cref="InvalidPdbDataException"/> naming the file, an offset and what
/// was expected.</summary>
public class PdbRobustnessTests
{
    private const string Name = "damaged.pdb";

    [Test]
    public void Open_ThrowsTruncated_WhenFixtureIsCutTo1000Bytes()
    {
        byte[] file = File.ReadAllBytes(TinyFixture.Pdb("full"))[..1000];
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.FilePath, Is.EqualTo(Name));
        Assert.That(ex.Offset, Is.Not.Null);
        Assert.That(ex.Message, Does.Contain("truncated"));
    }

    [TestCase(0, 0xFFFFFFFFu)]
    [TestCase(1, 0xFFFFFFFFu)]
    [TestCase(1, 0xFFFFFFFEu)]
    [TestCase(1, 0x7FFFFFFFu)]
    public void Open_Throws_WhenADirectoryBlockIndexOfAMultiBlockDirectoryIsOutOfRange(int entry, uint value)
    {
        // Reported: a directory spanning several blocks with one block index of 0xFFFFFFFF ended in an
        // OverflowException.
        var msf = MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb("full")));
        // an unused extra stream: 128 more block indices make the directory span blocks
        msf.Streams.Add(new byte[64 * 1024]);
        byte[] file = msf.Write(512, scatter: false);
        int dirBytes = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(44));
        Assert.That(dirBytes, Is.GreaterThan(512), "the directory spans several blocks");
        int mapBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(52));
        int at = (mapBlock * 512) + (entry * 4);
        BinaryPrimitives.WriteUInt32LittleEndian(file.AsSpan(at), value);
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.FilePath, Is.EqualTo(Name));
        Assert.That(ex.Offset, Is.EqualTo(at), "the offset of the bad block index");
        Assert.That(ex.Detail, Does.Contain("stream directory block " + entry).And.Contain("below the file's"));
    }

    [Test]
    public void Open_ReportsTheStoredGuid_EvenWhenItIsGarbage()
    {
        var msf = MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb("publics")));
        msf.Streams[1].AsSpan(12, 16).Fill(0xA5);
        using PdbFile pdb = Open(msf.Write(4096, scatter: false));
        Assert.That(pdb.Identity.Guid, Is.EqualTo(new Guid(Enumerable.Repeat((byte)0xA5, 16).ToArray())));
        Assert.That(pdb.Lookup(0x1000), Is.Not.Null);
    }

    [Test]
    public void Open_Throws_WhenDirectoryClaimsHugeStreamCount()
    {
        byte[] file = File.ReadAllBytes(TinyFixture.Pdb("publics"));
        int bs = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(32));
        int mapBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(52));
        int dirBlock = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(mapBlock * bs));
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(dirBlock * bs), 0x7FFFFFFF);
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.Message, Does.Contain("streams"));
    }

    [Test]
    public void GetPublics_Throws_WhenAddressMapSizeIsHuge()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) => BinaryPrimitives.WriteUInt32LittleEndian(PublicsStream(msf).AsSpan(4), 0x7FFFFFFC)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("address map").And.Contain("publics stream"));
        Assert.That(ex.Offset, Is.Not.Null);
    }

    [Test]
    public void GetPublics_Throws_WhenSymbolHashSizeIsHuge()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) => BinaryPrimitives.WriteUInt32LittleEndian(PublicsStream(msf).AsSpan(0), 0xFFFFFFF0)
        );
        using PdbFile pdb = Open(file);
        Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
    }

    [Test]
    public void GetPublics_Throws_WhenRecordLengthRunsPastTheStream()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
                BinaryPrimitives.WriteUInt16LittleEndian(SymbolRecords(msf).AsSpan((int)FirstPublicOffset(msf)), 0xFFFF)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("S_PUB32 record length").And.Contain("symbol record stream"));
        Assert.That(ex.Offset, Is.Not.Null);
    }

    [Test]
    public void GetPublics_Throws_WhenAddressMapPointsPastTheRecords()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
            {
                byte[] pub = PublicsStream(msf);
                int map = 28 + BinaryPrimitives.ReadInt32LittleEndian(pub);
                BinaryPrimitives.WriteUInt32LittleEndian(pub.AsSpan(map), 0x00FFFFF0);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("address-map entry 0"));
    }

    [Test]
    public void GetPublics_Throws_WhenAddressMapNamesAnotherRecordKind()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
                BinaryPrimitives.WriteUInt16LittleEndian(
                    SymbolRecords(msf).AsSpan((int)FirstPublicOffset(msf) + 2),
                    0x1108
                )
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("S_PUB32").And.Contain("0x1108"));
    }

    [Test]
    public void GetPublics_Throws_WhenNameHasNoTerminator()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
            {
                byte[] records = SymbolRecords(msf);
                int at = (int)FirstPublicOffset(msf);
                int length = BinaryPrimitives.ReadUInt16LittleEndian(records.AsSpan(at));
                records.AsSpan(at + 14, length + 2 - 14).Fill((byte)'A');
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("NUL-terminated S_PUB32 name"));
    }

    [Test]
    public void GetPublics_Throws_WhenAddressMapRepeatsOneRecordBeyondTheStreamsNameBytes()
    {
        // 5,000 extra address-map entries all naming the first record: unbounded name copies unless the reader notices
        // the overlap.
        byte[] file = Patch(
            "publics",
            (msf, _) =>
            {
                int index = msf.DbiU16(16);
                byte[] pub = msf.Streams[index]!;
                int map = 28 + BinaryPrimitives.ReadInt32LittleEndian(pub);
                int mapBytes = BinaryPrimitives.ReadInt32LittleEndian(pub.AsSpan(4));
                byte[] extra = new byte[5000 * 4];
                for (int i = 0; i < 5000; i++)
                {
                    pub.AsSpan(map, 4).CopyTo(extra.AsSpan(i * 4));
                }

                byte[] grown = [.. pub[..(map + mapBytes)], .. extra, .. pub[(map + mapBytes)..]];
                BinaryPrimitives.WriteInt32LittleEndian(grown.AsSpan(4), mapBytes + extra.Length);
                msf.Streams[index] = grown;
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("overlap"));
    }

    [Test]
    public void GetPublics_Throws_WhenCountExceedsLimit()
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("publics"), new PdbReaderLimits { MaxPublics = 5 });
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("MaxPublics"));
    }

    [Test]
    public void GetPublics_Throws_WhenPublicStreamIndexIsOutOfRange()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) => BinaryPrimitives.WriteUInt16LittleEndian(msf.Streams[3].AsSpan(16), 500)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetPublics());
        Assert.That(ex!.Message, Does.Contain("publics stream 500"));
    }

    [Test]
    public void Open_Throws_WhenSectionHeaderStreamIndexIsOutOfRange()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
                BinaryPrimitives.WriteUInt16LittleEndian(msf.Streams[3].AsSpan(msf.DebugStreamSlotOffset(5)), 999)
        );
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.Message, Does.Contain("stream 999"));
    }

    [Test]
    public void Open_Throws_WhenSectionHeaderStreamIsNotWholeHeaders()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
            {
                int index = msf.DbiU16(msf.DebugStreamSlotOffset(5));
                msf.Streams[index] = msf.Streams[index]![..^3];
            }
        );
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.Message, Does.Contain("40-byte section headers"));
    }

    [Test]
    public void Open_Throws_WhenDbiSubstreamSizesExceedTheStream()
    {
        byte[] file = Patch(
            "full",
            (msf, _) => BinaryPrimitives.WriteInt32LittleEndian(msf.Streams[3].AsSpan(24), 0x7FFFFFF0)
        );
        var ex = Assert.Throws<InvalidPdbDataException>(() => Open(file));
        Assert.That(ex!.Message, Does.Contain("DBI stream").And.Contain("substreams"));
        Assert.That(ex.Offset, Is.Not.Null);
    }

    [Test]
    public void GetProcedures_Throws_WhenModuleSymbolSizeIsHuge()
    {
        byte[] file = Patch(
            "full",
            (msf, _) => BinaryPrimitives.WriteUInt32LittleEndian(msf.Streams[3].AsSpan(64 + 36), 0x7FFFFFFF)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetProcedures());
        Assert.That(ex!.Message, Does.Contain("symbol byte size"));
    }

    [Test]
    public void GetProcedures_Throws_WhenModuleRecordRunsPastTheStream()
    {
        byte[] file = Patch(
            "full",
            (msf, _) =>
            {
                int stream = msf.DbiU16(64 + 34);
                BinaryPrimitives.WriteUInt16LittleEndian(msf.Streams[stream].AsSpan(4), 0xFFF0);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.Lookup(0x1000));
        Assert.That(ex!.Message, Does.Contain("record length").And.Contain("module 0"));
        Assert.That(ex.Offset, Is.Not.Null);
    }

    [Test]
    public void GetModules_Throws_WhenTwoModulesClaimOneSymbolStream()
    {
        byte[] file = Patch(
            "full",
            (msf, _) =>
            {
                byte[] dbi = msf.Streams[3]!;
                int second = 64 + 64 + ModuleNamesLength(dbi, 64);
                BinaryPrimitives.WriteUInt16LittleEndian(dbi.AsSpan(second + 34), msf.DbiU16(64 + 34));
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetModules());
        Assert.That(ex!.Message, Does.Contain("its own symbol stream"));
    }

    [Test]
    public void Lookup_Throws_WhenThePdbHasNoSectionHeaders()
    {
        byte[] file = Patch(
            "publics",
            (msf, _) =>
                BinaryPrimitives.WriteUInt16LittleEndian(msf.Streams[3].AsSpan(msf.DebugStreamSlotOffset(5)), 0xFFFF)
        );
        using PdbFile pdb = Open(file);
        Assert.That(pdb.Sections, Is.Empty);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.Lookup(0x1000));
        Assert.That(ex!.Message, Does.Contain("section headers"));
    }

    [TestCase("full", 2500)]
    [TestCase("publics", 2500)]
    [TestCase("stripped", 1000)]
    public void NeverCrash_TruncatedAndByteFlippedFixture_OnlyThrowsInvalidPdbData(string flavor, int flips) =>
        Sweep(File.ReadAllBytes(TinyFixture.Pdb(flavor)), flips, seed: flavor.Length);

    [TestCase("dump_syms_regtest64.pdb", 300)]
    [TestCase("CrashWithException.pdb", 300)]
    [TestCase("basic32-min.pdb", 200)]
    public void NeverCrash_TruncatedAndByteFlippedVector_OnlyThrowsInvalidPdbData(string vector, int flips) =>
        Sweep(File.ReadAllBytes(TestPaths.RequireVector("pdb", vector)), flips, seed: vector.Length);

    [Test]
    public void NeverCrash_ReblockedFixture512_OnlyThrowsInvalidPdbData() =>
        Sweep(MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb("full"))).Write(512, scatter: true), 1500, seed: 512);

    /// <summary>
    /// Truncates <paramref name="original"/> at many lengths and damages bytes inside its used blocks (superblock,
    /// directory, streams), then reads everything; only <see cref="InvalidPdbDataException"/> or a clean result is
    /// acceptable, quickly and with bounded allocation.
    /// </summary>
    private static void Sweep(byte[] original, int flips, int seed)
    {
        var failures = new List<string>();
        var cases = new List<(string What, byte[] Data)>();
        foreach (
            int n in new[] { 0, 1, 31, 32, 55, 56, 57, 1000, 4095, 4096, 4097 }.Concat(
                Enumerable.Range(1, 40).Select(k => original.Length * k / 41)
            )
        )
        {
            if (n < original.Length)
            {
                cases.Add(($"truncated to {n}", original[..n]));
            }
        }

        List<(long Offset, int Length)> extents = MsfTestFile.UsedExtents(original);
        var random = new Random(seed);
        for (int i = 0; i < flips; i++)
        {
            byte[] data = (byte[])original.Clone();
            (long start, int length) = extents[random.Next(extents.Count)];
            int at = (int)(start + random.Next(length));
            string what;
            switch (random.Next(4))
            {
                case 0:
                    data[at] ^= (byte)random.Next(1, 256);
                    what = $"byte {at} xor";
                    break;
                case 1:
                    data.AsSpan(at, Math.Min(4, data.Length - at)).Fill(0xFF);
                    what = $"bytes {at}.. = FF";
                    break;
                case 2:
                    data.AsSpan(at, Math.Min(4, data.Length - at)).Clear();
                    what = $"bytes {at}.. = 00";
                    break;
                default:
                    data[at] = (byte)(data[at] + 1);
                    what = $"byte {at} + 1";
                    break;
            }

            cases.Add((what, data));
        }

        foreach ((string what, byte[] data) in cases)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            try
            {
                using PdbFile pdb = Open(data);
                _ = pdb.Dbi?.IsStripped;
                _ = pdb.Sections.Count;
                _ = pdb.GetModules().Count;
                _ = pdb.GetPublics().Count;
                _ = pdb.GetProcedures().Count;
                foreach (uint rva in new uint[] { 0, 0x1000, 0x11D9, 0x1D00, 0x2000, 0x7FFFFFFF, uint.MaxValue })
                {
                    _ = pdb.Lookup(rva)?.ToString();
                }
            }
            catch (InvalidPdbDataException ex)
            {
                if (ex.FilePath != Name || ex.Message.Length < 20)
                {
                    failures.Add($"{what}: exception without file or detail: {ex.Message}");
                }
            }
#pragma warning disable CA1031 // the sweep records every other exception as a failure
            catch (Exception ex)
#pragma warning restore CA1031
            {
                failures.Add($"{what}: {ex.GetType().Name}: {ex.Message}");
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (allocated > (32L * original.Length) + (16 << 20))
            {
                failures.Add($"{what}: allocated {allocated} bytes for a {original.Length}-byte file");
            }
        }

        Assert.That(failures, Is.Empty, string.Join('\n', failures.Take(20)));
    }

    private static PdbFile Open(byte[] data, PdbReaderLimits? limits = null) =>
        PdbFile.Open(new MemoryRandomAccessSource(data, Name), ownsSource: true, limits);

    private static byte[] Patch(string flavor, Action<MsfTestFile, byte[]> change)
    {
        var msf = MsfTestFile.Read(File.ReadAllBytes(TinyFixture.Pdb(flavor)));
        change(msf, msf.Streams[3]!);
        return msf.Write(4096, scatter: false);
    }

    private static byte[] PublicsStream(MsfTestFile msf) => msf.Streams[msf.DbiU16(16)]!;

    private static byte[] SymbolRecords(MsfTestFile msf) => msf.Streams[msf.DbiU16(20)]!;

    private static uint FirstPublicOffset(MsfTestFile msf)
    {
        byte[] pub = PublicsStream(msf);
        return BinaryPrimitives.ReadUInt32LittleEndian(pub.AsSpan(28 + BinaryPrimitives.ReadInt32LittleEndian(pub)));
    }

    /// <summary>Bytes of the two NUL-terminated names after a 64-byte module header at <paramref name="header"/>,
    /// padded to 4.</summary>
    private static int ModuleNamesLength(byte[] dbi, int header)
    {
        int p = header + 64;
        p = Array.IndexOf(dbi, (byte)0, p) + 1;
        p = Array.IndexOf(dbi, (byte)0, p) + 1;
        return ((p + 3) & ~3) - (header + 64);
    }
}

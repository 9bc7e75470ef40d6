using System.Buffers.Binary;
using System.Globalization;
using System.Reflection.PortableExecutable;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pe;
using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pe;

/// <summary><see cref="PeImage"/> against llvm-readobj/llvm-objdump records of the tiny fixture DLLs and the shared
/// vectors.</summary>
public class PeImageTests
{
    public static IEnumerable<TestCaseData> Images()
    {
        yield return new TestCaseData(
            "fixture",
            "full/tiny.dll",
            "pdb/expected/full.readobj.txt",
            "pdb/expected/full.objdump-p.txt"
        ).SetArgDisplayNames("tiny full");
        yield return new TestCaseData(
            "fixture",
            "publics/tiny.dll",
            "pdb/expected/publics.readobj.txt",
            "pdb/expected/publics.objdump-p.txt"
        ).SetArgDisplayNames("tiny publics");
        foreach (string v in new[] { "basic32-min.dll", "dump_syms_regtest64.exe", "CrashWithException.exe" })
        {
            yield return new TestCaseData(
                "vector",
                v,
                $"pe/{v}.readobj.txt",
                $"pe/{v}.objdump-p.txt"
            ).SetArgDisplayNames(v);
        }
    }

    [TestCaseSource(nameof(Images))]
    public void Open_ReadsHeaders_MatchingReadObj(string kind, string image, string readobj, string objdump)
    {
        ReadObjOutput oracle = ReadObjOutput.Load(Path.Combine(TestPaths.TestData, readobj));
        PeImage pe = PeImage.Open(ImagePath(kind, image));

        Assert.That((ushort)pe.Machine, Is.EqualTo(oracle.Machine));
        Assert.That(pe.TimeDateStamp, Is.EqualTo(oracle.TimeDateStamp));
        Assert.That(pe.ImageBase, Is.EqualTo(oracle.ImageBase));
        Assert.That(pe.SizeOfImage, Is.EqualTo(oracle.SizeOfImage));
        Assert.That(
            pe.SymbolServerKey,
            Is.EqualTo(
                oracle.TimeDateStamp!.Value.ToString("X8", CultureInfo.InvariantCulture)
                    + oracle.SizeOfImage!.Value.ToString("x", CultureInfo.InvariantCulture)
            )
        );
        Assert.That(
            pe.Sections.Select(s => (s.Name, s.VirtualSize, s.VirtualAddress, s.SizeOfRawData, s.PointerToRawData)),
            Is.EqualTo(oracle.Sections)
        );
    }

    [TestCaseSource(nameof(Images))]
    public void Open_ReadsRsdsRecords_MatchingReadObj(string kind, string image, string readobj, string objdump)
    {
        ReadObjOutput oracle = ReadObjOutput.Load(Path.Combine(TestPaths.TestData, readobj));
        PeImage pe = PeImage.Open(ImagePath(kind, image));

        Assert.That(oracle.CodeViews, Is.Not.Empty);
        Assert.That(pe.CodeViewRecords.Select(c => (c.Guid, c.Age, c.Path)), Is.EqualTo(oracle.CodeViews));
        Assert.That(pe.CodeView, Is.EqualTo(pe.CodeViewRecords[^1]));
    }

    [TestCaseSource(nameof(Images))]
    public void Open_ReadsExports_MatchingReadObjAndObjdump(string kind, string image, string readobj, string objdump)
    {
        ReadObjOutput oracle = ReadObjOutput.Load(Path.Combine(TestPaths.TestData, readobj));
        string objdumpText = File.ReadAllText(Path.Combine(TestPaths.TestData, objdump));
        PeImage pe = PeImage.Open(ImagePath(kind, image));

        var expected = oracle
            .Exports.Where(e => e.Rva != 0)
            .Select(e => (e.Ordinal, e.Rva, e.Name.Length == 0 ? null : e.Name))
            .ToList();
        Assert.That(pe.Exports.Select(e => (e.Ordinal, e.Rva, e.Name)), Is.EqualTo(expected));
        Assert.That(
            pe.Exports.Where(e => e.IsForwarder).ToDictionary(e => e.Ordinal, e => e.ForwardedTo!),
            Is.EqualTo(ReadObjOutput.ObjdumpForwarders(objdumpText))
        );

        // objdump -p prints the same table (without forwarders' RVAs).
        var objdumpExports = ReadObjOutput.ObjdumpExports(objdumpText).Select(e => (e.Ordinal, e.Rva)).ToList();
        Assert.That(
            pe.Exports.Where(e => !e.IsForwarder).Select(e => (e.Ordinal, e.Rva)),
            Is.EqualTo(objdumpExports.Where(e => e.Rva != 0))
        );
    }

    [Test]
    public void Open_TinyDll_HasOrdinalOnlyExportAndForwarder_AndMatchesItsPdbIdentity()
    {
        PeImage pe = PeImage.Open(TinyFixture.Dll("full"));
        using var pdb = XeAnalyzer.Symbols.Pdb.PdbFile.Open(TinyFixture.Pdb("full"));
        Assert.That(pe.CodeView!.Identity, Is.EqualTo(pdb.Identity));
        Assert.That(pe.CodeView.PdbFileName, Is.EqualTo("tiny.pdb"));
        Assert.That(pe.ExportDllName, Is.EqualTo("tiny.dll"));
        Assert.That(
            pe.ExportOrdinalBase,
            Is.EqualTo(0u),
            "lld writes Base 0 when the smallest explicit ordinal is not 1"
        );

        PeExport noName = pe.FindExportByOrdinal(20)!;
        Assert.That(noName.Name, Is.Null, "/export:...,@20,NONAME");
        Assert.That(noName.Rva, Is.EqualTo(pdb.GetPublics().Single(p => p.Name == "?FoldSecond@@YAHH@Z").Rva));
        PeExport forwarder = pe.Exports.Single(e => e.Name == "TinySleep");
        Assert.That((forwarder.IsForwarder, forwarder.ForwardedTo), Is.EqualTo((true, "kernel32.Sleep")));
        Assert.That(pe.FindExportByOrdinal(19), Is.Null, "zero RVA slots are skipped");
        Assert.That(pe.FindExportByOrdinal(1000), Is.Null);
    }

    [Test]
    public void Open_X86Vector_HasOrdinalBase1_AndRsdsMatchingThePublishedIdentity()
    {
        PeImage pe = PeImage.Open(TestPaths.RequireVector("pdb", "basic32-min.dll"));
        Assert.That(pe.Machine, Is.EqualTo(Machine.I386));
        Assert.That(pe.Is64Bit, Is.False);
        Assert.That(pe.ExportOrdinalBase, Is.EqualTo(1u));
        Assert.That(pe.CodeView!.Identity.Guid, Is.EqualTo(Guid.Parse("878E82E5-E282-481B-88FC-BBA2CFF8C7F1")));
        Assert.That(pe.CodeView.Age, Is.EqualTo(2));
        Assert.That(pe.CodeView.PdbFileName, Is.EqualTo("basic32-min.pdb"));
    }

    [Test]
    public void CodeView_IsTheLastRsds_WhenTheImageHasSeveral_AndNb10IsSkipped()
    {
        byte[] dll = File.ReadAllBytes(TinyFixture.Dll("full"));
        ReadObjOutput oracle = ReadObjOutput.Load(TinyFixture.Expected("full.readobj.txt"));

        // The debug directory (RVA 0x2000, file 0x1200) has a CodeView and a Repro entry; turn the Repro entry into a
        // second CodeView entry whose RSDS record sits in the unused tail of .rdata's file data, and add a third, NB10,
        // one after it.
        var second = (Guid: Guid.Parse("01234567-89AB-CDEF-0123-456789ABCDEF"), Age: 7, Path: @"D:\other\second.pdb");
        int rsdsAt = 0x1200 + 0x300;
        WriteRsds(dll, rsdsAt, second.Guid, second.Age, second.Path);
        int entry = 0x1200 + 28;
        BinaryPrimitives.WriteInt32LittleEndian(dll.AsSpan(entry + 12), 2);
        BinaryPrimitives.WriteInt32LittleEndian(dll.AsSpan(entry + 16), 24 + second.Path.Length + 1);
        BinaryPrimitives.WriteInt32LittleEndian(dll.AsSpan(entry + 20), 0x2000 + 0x300);
        BinaryPrimitives.WriteInt32LittleEndian(dll.AsSpan(entry + 24), rsdsAt);

        PeImage pe = PeImage.Read(new MemoryRandomAccessSource(dll, "two-rsds.dll"));
        Assert.That(pe.CodeViewRecords, Has.Count.EqualTo(2));
        Assert.That(
            (pe.CodeViewRecords[0].Guid, pe.CodeViewRecords[0].Age, pe.CodeViewRecords[0].Path),
            Is.EqualTo(oracle.CodeViews[0])
        );
        Assert.That((pe.CodeView!.Guid, pe.CodeView.Age, pe.CodeView.Path), Is.EqualTo(second));
        Assert.That(pe.CodeView.PdbFileName, Is.EqualTo("second.pdb"));

        "NB10"u8.CopyTo(dll.AsSpan(rsdsAt));
        PeImage nb10 = PeImage.Read(new MemoryRandomAccessSource(dll, "nb10.dll"));
        Assert.That(nb10.CodeViewRecords, Has.Count.EqualTo(1));
    }

    [TestCase(0, "only 0 bytes")]
    [TestCase(1, "only 1 bytes")]
    [TestCase(40, "64-byte DOS header")]
    [TestCase(100, "e_lfanew")]
    [TestCase(0x100, "optional headers")]
    [TestCase(0x400, "truncated image")]
    public void Open_ThrowsInvalidPeData_WhenTruncated(int length, string expected)
    {
        byte[] dll = File.ReadAllBytes(TinyFixture.Dll("full"))[..length];
        var ex = Assert.Throws<InvalidPeDataException>(() =>
            PeImage.Read(new MemoryRandomAccessSource(dll, "cut.dll"))
        );
        Assert.That(ex!.FilePath, Is.EqualTo("cut.dll"));
        Assert.That(ex.Message, Does.Contain(expected));
    }

    [Test]
    public void Open_ThrowsInvalidPeData_ForRandomBytes_APdb_AndAnEmptyFile()
    {
        byte[] random = new byte[4096];
        new Random(7).NextBytes(random);
        random[0] = 0x12;
        var ex = Assert.Throws<InvalidPeDataException>(() =>
            PeImage.Read(new MemoryRandomAccessSource(random, "random.dll"))
        );
        Assert.That(
            (ex!.Offset, ex.Message),
            Is.EqualTo(
                (
                    (long?)0,
                    "random.dll: byte offset 0 (0x0): expected a PE image starting with the DOS signature 'MZ', "
                        + "found other bytes: not a DLL or EXE"
                )
            )
        );

        ex = Assert.Throws<InvalidPeDataException>(() => PeImage.Open(TinyFixture.Pdb("full")));
        Assert.That(ex!.Message, Does.Contain("MSF PDB").And.Contain(TinyFixture.Pdb("full")));

        string empty = Path.Combine(Path.GetTempPath(), "xea-empty-" + Guid.NewGuid().ToString("N") + ".dll");
        File.WriteAllBytes(empty, []);
        try
        {
            ex = Assert.Throws<InvalidPeDataException>(() => PeImage.Open(empty));
            Assert.That(ex!.FilePath, Is.EqualTo(empty));
        }
        finally
        {
            File.Delete(empty);
        }
    }

    [Test]
    public void Open_TranslatesPEReadersBadImageFormat_IntoInvalidPeData()
    {
        byte[] dll = File.ReadAllBytes(TinyFixture.Dll("full"));
        int lfanew = BinaryPrimitives.ReadInt32LittleEndian(dll.AsSpan(0x3C));
        // optional header Magic: neither PE32 nor PE32+
        BinaryPrimitives.WriteUInt16LittleEndian(dll.AsSpan(lfanew + 24), 0x0999);
        var ex = Assert.Throws<InvalidPeDataException>(() =>
            PeImage.Read(new MemoryRandomAccessSource(dll, "bad-header.dll"))
        );
        Assert.That(ex!.InnerException, Is.InstanceOf<BadImageFormatException>());
        Assert.That(ex.Offset, Is.EqualTo(lfanew));
    }

    [Test]
    public void Open_ThrowsInvalidPeData_WhenExportCountsAreHuge()
    {
        byte[] dll = File.ReadAllBytes(TinyFixture.Dll("full"));
        int exportDir = 0x1200 + (0x2059 - 0x2000); // export directory RVA 0x2059 in .rdata (file 0x1200 at RVA 0x2000)
        BinaryPrimitives.WriteUInt32LittleEndian(dll.AsSpan(exportDir + 20), 0x7FFFFFFF);
        var ex = Assert.Throws<InvalidPeDataException>(() =>
            PeImage.Read(new MemoryRandomAccessSource(dll, "exports.dll"))
        );
        Assert.That(ex!.Message, Does.Contain("MaxExports"));
        Assert.That(ex.Offset, Is.EqualTo(exportDir + 20));
    }

    [Test]
    public void NeverCrash_TruncatedAndDamagedImages_OnlyThrowInvalidPeData()
    {
        var failures = new List<string>();
        var inputs = new List<(string Name, byte[] Data)> { ("tiny.dll", File.ReadAllBytes(TinyFixture.Dll("full"))) };
        if (TestPaths.Vectors is not null)
        {
            inputs.Add(("basic32-min.dll", File.ReadAllBytes(TestPaths.RequireVector("pdb", "basic32-min.dll"))));
            inputs.Add(
                ("CrashWithException.exe", File.ReadAllBytes(TestPaths.RequireVector("pdb", "CrashWithException.exe")))
            );
        }

        var random = new Random(11);
        foreach ((string name, byte[] original) in inputs)
        {
            var cases = new List<(string, byte[])>();
            for (int n = 0; n < original.Length; n += n < 0x600 ? 1 : Math.Max(37, original.Length / 200))
            {
                cases.Add(($"{name} cut to {n}", original[..n]));
            }

            // Every header byte, then bytes of the export and debug directories and what they point at (found with
            // SRM's PEHeaders).
            var targets = Enumerable.Range(0, Math.Min(original.Length, 0x400)).ToList();
            using (var ms = new MemoryStream(original))
            {
                var headers = new PEHeaders(ms);
                foreach (
                    (DirectoryEntry d, bool debug) in new[]
                    {
                        (headers.PEHeader!.ExportTableDirectory, false),
                        (headers.PEHeader.DebugTableDirectory, true),
                    }
                )
                {
                    if (d.Size > 0 && headers.TryGetDirectoryOffset(d, out int offset))
                    {
                        int span = debug ? d.Size + 0x100 : Math.Min(d.Size, 0x800);
                        targets.AddRange(
                            Enumerable
                                .Range(offset, Math.Min(span, original.Length - offset))
                                .Where(i => i % 3 == 0 || i < offset + 64)
                        );
                    }
                }
            }

            foreach (int at in targets.Distinct())
            {
                byte[] data = (byte[])original.Clone();
                data[at] ^= (byte)random.Next(1, 256);
                cases.Add(($"{name} byte {at}", data));
                byte[] ff = (byte[])original.Clone();
                ff.AsSpan(at, Math.Min(4, ff.Length - at)).Fill(0xFF);
                cases.Add(($"{name} bytes {at}.. = FF", ff));
            }

            foreach ((string what, byte[] data) in cases)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                try
                {
                    PeImage pe = PeImage.Read(new MemoryRandomAccessSource(data, "damaged.dll"));
                    _ = pe.CodeView?.Identity.Key;
                    _ = pe.SymbolServerKey;
                    _ = pe.Exports.Count;
                }
                catch (InvalidPeDataException ex)
                {
                    if (ex.FilePath != "damaged.dll")
                    {
                        failures.Add($"{what}: no file name: {ex.Message}");
                    }
                }
#pragma warning disable CA1031 // the sweep records every other exception as a failure
                catch (Exception ex)
#pragma warning restore CA1031
                {
                    failures.Add($"{what}: {ex.GetType().Name}: {ex.Message}");
                }

                if (GC.GetAllocatedBytesForCurrentThread() - before > (64L * original.Length) + (16 << 20))
                {
                    failures.Add($"{what}: allocated {GC.GetAllocatedBytesForCurrentThread() - before} bytes");
                }
            }
        }

        Assert.That(failures, Is.Empty, string.Join('\n', failures.Take(20)));
    }

    private static string ImagePath(string kind, string image) =>
        kind == "fixture" ? Path.Combine(TinyFixture.Dir, image) : TestPaths.RequireVector("pdb", image);

    private static void WriteRsds(byte[] file, int at, Guid guid, int age, string path)
    {
        "RSDS"u8.CopyTo(file.AsSpan(at));
        guid.TryWriteBytes(file.AsSpan(at + 4));
        BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan(at + 20), age);
        System.Text.Encoding.UTF8.GetBytes(path).CopyTo(file.AsSpan(at + 24));
        file[at + 24 + path.Length] = 0;
    }
}

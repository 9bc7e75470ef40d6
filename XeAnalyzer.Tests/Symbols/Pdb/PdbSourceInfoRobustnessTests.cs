using System.Buffers.Binary;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// Damaged line and inline data (C13 subsections, inline site annotations, <c>/names</c>, IPI, section contributions)
/// of the xelines fixture: every failure is an <see cref="InvalidPdbDataException"/> naming the file, an offset and
/// what was expected.
/// </summary>
public class PdbSourceInfoRobustnessTests
{
    private const string Name = "damaged-lines.pdb";
    private const int FirstModule = 64;

    private static string Fixture => Path.Combine(TestPaths.TestData, "lines", "xelines.pdb");

    [Test]
    public void GetSourceInfo_Throws_WhenASubsectionRunsPastTheModuleStream()
    {
        byte[] file = Patch((msf, c13) => BinaryPrimitives.WriteUInt32LittleEndian(c13.Span(msf)[4..], 0x7FFFFFF0));
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1010));
        Assert.That(ex!.Message, Does.Contain("debug subsection").And.Contain("module 0"));
        Assert.That(ex.Offset, Is.Not.Null);
        Assert.That(ex.FilePath, Is.EqualTo(Name));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenTheC13SizePassesTheStreamEnd()
    {
        byte[] file = Patch(
            (msf, _) => BinaryPrimitives.WriteUInt32LittleEndian(msf.Streams[3].AsSpan(FirstModule + 44), 0x10000000)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1010));
        Assert.That(ex!.Message, Does.Contain("C13 lines"));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenALineBlockClaimsMoreLinesThanItHolds()
    {
        byte[] file = Patch(
            (msf, c13) =>
            {
                int lines = c13.Find(msf, 0xF2);
                BinaryPrimitives.WriteUInt32LittleEndian(c13.Span(msf)[(lines + 8 + 12 + 4)..], 0x00FFFFFF);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1010));
        Assert.That(ex!.Message, Does.Contain("line block"));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenALineBlockNamesNoFileChecksum()
    {
        byte[] file = Patch(
            (msf, c13) =>
            {
                int lines = c13.Find(msf, 0xF2);
                BinaryPrimitives.WriteUInt32LittleEndian(c13.Span(msf)[(lines + 8 + 12)..], 0x7777);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1000));
        Assert.That(ex!.Message, Does.Contain("file checksum entry at offset 30583"));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenAnAnnotationHasAnInvalidCompressedInteger()
    {
        byte[] file = Patch(
            (msf, c13) =>
            {
                byte[] symbols = msf.Streams[c13.Stream]!;
                int site = FindRecord(symbols, 0x114D);
                symbols[site + 4 + 12] = 0xE0;
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1020));
        Assert.That(ex!.Message, Does.Contain("binary annotations").And.Contain("0xE0"));
        Assert.That(ex.Offset, Is.Not.Null);
    }

    [Test]
    public void GetSourceInfo_Throws_WhenAnInlineSiteNamesAParentThatIsNoScope()
    {
        byte[] file = Patch(
            (msf, c13) =>
            {
                byte[] symbols = msf.Streams[c13.Stream]!;
                int site = FindRecord(symbols, 0x114D);
                BinaryPrimitives.WriteUInt32LittleEndian(symbols.AsSpan(site + 4), 8);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1020));
        Assert.That(ex!.Message, Does.Contain("inline site parent"));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenTheNamesStreamHasABadSignature()
    {
        byte[] file = Patch(
            (msf, _) =>
            {
                int names = msf.Streams.FindIndex(s =>
                    s is { Length: > 12 } && BinaryPrimitives.ReadUInt32LittleEndian(s) == 0xEFFEEFFE
                );
                msf.Streams[names]![0] ^= 0xFF;
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1010));
        Assert.That(ex!.Message, Does.Contain("/names").And.Contain("0xEFFEEFFE"));
    }

    [Test]
    public void GetSourceInfo_Throws_WhenASectionContributionNamesAMissingModule()
    {
        byte[] file = Patch(
            (msf, _) =>
            {
                byte[] dbi = msf.Streams[3]!;
                int moduleInfo = BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(24));
                BinaryPrimitives.WriteUInt16LittleEndian(dbi.AsSpan(64 + moduleInfo + 4 + 16), 999);
            }
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1010));
        Assert.That(ex!.Message, Does.Contain("module index below"));
    }

    [TestCase("lines")]
    [TestCase("sites")]
    [TestCase("depth")]
    public void GetSourceInfo_Throws_WhenALimitIsExceeded(string which)
    {
        PdbReaderLimits limits = which switch
        {
            "lines" => new PdbReaderLimits { MaxLineRecordsPerModule = 3 },
            "sites" => new PdbReaderLimits { MaxInlineSitesPerModule = 1 },
            _ => new PdbReaderLimits { MaxInlineDepth = 1 },
        };
        using PdbFile pdb = Open(File.ReadAllBytes(Fixture), limits);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1020));
        Assert.That(ex!.Message, Does.Contain("PdbReaderLimits.Max"));
    }

    [Test]
    public void GetTypeNames_Throw_WhenTheIpiClaimsMoreRecordsThanItsBytesHold()
    {
        byte[] file = Patch(
            (msf, _) => BinaryPrimitives.WriteUInt32LittleEndian(msf.Streams[4].AsSpan(12), 0x7FFFFFFF)
        );
        using PdbFile pdb = Open(file);
        var ex = Assert.Throws<InvalidPdbDataException>(() => pdb.GetSourceInfo(0x1020));
        Assert.That(ex!.Message, Does.Contain("IPI stream"));
    }

    [Test]
    public void NeverCrash_DamagedLineAndInlineData_OnlyThrowsInvalidPdbData()
    {
        var original = MsfTestFile.Read(File.ReadAllBytes(Fixture));
        int module = original.DbiU16(FirstModule + 34);
        int names = original.Streams.FindIndex(s =>
            s is { Length: > 12 } && BinaryPrimitives.ReadUInt32LittleEndian(s) == 0xEFFEEFFE
        );

        // Streams that hold what the line and inline readers parse: the module stream, /names, IPI, TPI and DBI
        // (contributions).
        Sweep(
            File.ReadAllBytes(Fixture),
            [module, module, module, names, 4, 2, 3, 1],
            0xFF0,
            0x1110,
            1,
            cases: 1500,
            seed: 14
        );
    }

    [TestCase("CrashWithException.pdb", 0x1000u, 0x20E2u)]
    [TestCase("dump_syms_regtest64.pdb", 0x1000u, 0xBC1Bu)]
    public void NeverCrash_DamagedMsvcVector_OnlyThrowsInvalidPdbData(string vector, uint from, uint to)
    {
        byte[] file = File.ReadAllBytes(TestPaths.RequireVector("pdb", vector));
        var msf = MsfTestFile.Read(file);

        // Every module stream that carries C13 data, plus /names, IPI, TPI, DBI and the info stream.
        byte[] dbi = msf.Streams[3]!;
        var targets = new List<int> { 1, 2, 3, 4 };
        int moduleInfo = BinaryPrimitives.ReadInt32LittleEndian(dbi.AsSpan(24));
        for (int p = 64; p < 64 + moduleInfo; )
        {
            ushort stream = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(p + 34));
            if (stream != 0xFFFF && BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(p + 44)) > 0)
            {
                targets.Add(stream);
            }

            p += 64;
            p = Array.IndexOf(dbi, (byte)0, p) + 1;
            p = Array.IndexOf(dbi, (byte)0, p) + 1;
            p = (p + 3) & ~3;
        }

        targets.Add(
            msf.Streams.FindIndex(s =>
                s is { Length: > 12 } && BinaryPrimitives.ReadUInt32LittleEndian(s) == 0xEFFEEFFE
            )
        );
        Sweep(file, [.. targets], from, to, Math.Max(1, (to - from) / 2000), cases: 300, seed: vector.Length);
    }

    /// <summary>
    /// Damages one byte range of one of <paramref name="targets"/> per case, then reads every module's line records and
    /// the source information of [<paramref name="from"/>, <paramref name="to"/>) every <paramref name="step"/> bytes;
    /// only
    /// <see cref="InvalidPdbDataException"/> (with file and detail) or a clean result is acceptable, quickly and with
    /// bounded allocation.
    /// </summary>
    private static void Sweep(byte[] file, int[] targets, uint from, uint to, uint step, int cases, int seed)
    {
        var random = new Random(seed);
        var failures = new List<string>();
        for (int i = 0; i < cases; i++)
        {
            var msf = MsfTestFile.Read(file);
            int stream = targets[random.Next(targets.Length)];
            byte[] data = msf.Streams[stream]!;
            int at = random.Next(data.Length);
            string what = $"stream {stream} byte {at}";
            switch (random.Next(4))
            {
                case 0:
                    data[at] ^= (byte)random.Next(1, 256);
                    break;
                case 1:
                    data.AsSpan(at, Math.Min(4, data.Length - at)).Fill(0xFF);
                    break;
                case 2:
                    data.AsSpan(at, Math.Min(4, data.Length - at)).Clear();
                    break;
                default:
                    data[at] = (byte)(data[at] + 1);
                    break;
            }

            long before = GC.GetAllocatedBytesForCurrentThread();
            try
            {
                using PdbFile pdb = Open(msf.Write(4096, scatter: false));
                for (int m = 0; m < pdb.GetModules().Count; m++)
                {
                    _ = pdb.GetLineRecords(m).Count;
                }

                for (uint rva = from; rva < to; rva += step)
                {
                    PdbSourceInfo s = pdb.GetSourceInfo(rva);
                    _ = s.InlineFrames.Sum(f => f.Name.Length);
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
            if (allocated > (16L * file.Length) + (64L << 20))
            {
                failures.Add($"{what}: allocated {allocated} bytes");
            }
        }

        Assert.That(failures, Is.Empty, string.Join('\n', failures.Take(20)));
    }

    private static PdbFile Open(byte[] data, PdbReaderLimits? limits = null) =>
        PdbFile.Open(new MemoryRandomAccessSource(data, Name), ownsSource: true, limits);

    private static byte[] Patch(Action<MsfTestFile, C13> change)
    {
        var msf = MsfTestFile.Read(File.ReadAllBytes(Fixture));
        int stream = msf.DbiU16(FirstModule + 34);
        byte[] dbi = msf.Streams[3]!;
        int start = (int)(
            BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(FirstModule + 36))
            + BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(FirstModule + 40))
        );
        int length = (int)BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(FirstModule + 44));
        change(msf, new C13(stream, start, length));
        return msf.Write(4096, scatter: false);
    }

    /// <summary>The offset of the first symbol record of <paramref name="kind"/> in a module symbol stream.</summary>
    private static int FindRecord(byte[] symbols, ushort kind)
    {
        int p = 4;
        while (p + 4 <= symbols.Length)
        {
            ushort length = BinaryPrimitives.ReadUInt16LittleEndian(symbols.AsSpan(p));
            if (BinaryPrimitives.ReadUInt16LittleEndian(symbols.AsSpan(p + 2)) == kind)
            {
                return p;
            }

            p += 2 + length;
        }

        throw new InvalidOperationException("no record of kind " + kind);
    }

    /// <summary>Where module 0's C13 subsections are: its stream, and their start and length in it.</summary>
    private sealed record C13(int Stream, int Start, int Length)
    {
        public Span<byte> Span(MsfTestFile msf) => msf.Streams[Stream].AsSpan(Start, Length);

        /// <summary>The offset (within the C13 bytes) of the first subsection of <paramref name="kind"/>.</summary>
        public int Find(MsfTestFile msf, uint kind)
        {
            Span<byte> s = Span(msf);
            int p = 0;
            while (p + 8 <= s.Length)
            {
                if (BinaryPrimitives.ReadUInt32LittleEndian(s[p..]) == kind)
                {
                    return p;
                }

                p += 8 + (int)BinaryPrimitives.ReadUInt32LittleEndian(s[(p + 4)..]);
                p = (p + 3) & ~3;
            }

            throw new InvalidOperationException("no subsection of kind " + kind);
        }
    }
}

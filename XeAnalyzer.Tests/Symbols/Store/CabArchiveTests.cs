using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Compression;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Store.Cab;

namespace XeAnalyzer.Tests.Symbols.Store;

public class CabArchiveTests
{
    [Test]
    public void Extract_ReproducesOriginalPdb_ForGcabFixture()
    {
        using CabArchive cab = CabArchive.Open(StoreFixtures.CabA);
        Assert.That(cab.Files, Has.Count.EqualTo(1));
        Assert.That(cab.Files[0].Name, Is.EqualTo("storea.pdb"));
        byte[] expanded = Expand(cab, cab.Files[0]);
        Assert.That(expanded, Is.EqualTo(File.ReadAllBytes(StoreFixtures.PdbA)));
    }

    [Test]
    public void Extract_MatchesCabextract_ForRealMsZipPdb()
    {
        string pd_ = TestPaths.RequireVector("pdb", "basic32.pd_");
        ToolRequirement.Require(
            File.Exists("/usr/bin/cabextract"),
            "cabextract is not installed (Debian package cabextract)."
        );

        string dir = StoreFixtures.NewScratch();
        try
        {
            using (
                var p = Process.Start(
                    new ProcessStartInfo("/usr/bin/cabextract", ["-q", "-d", dir, pd_])
                    {
                        RedirectStandardOutput = true,
                    }
                )!
            )
            {
                p.WaitForExit();
                Assert.That(p.ExitCode, Is.Zero);
            }

            string reference = Directory.GetFiles(dir).Single();
            using CabArchive cab = CabArchive.Open(pd_);
            byte[] ours = Expand(cab, cab.Files.Single());
            Assert.That(ours.Length, Is.EqualTo(new FileInfo(reference).Length));
            Assert.That(ours, Is.EqualTo(File.ReadAllBytes(reference)));

            string mine = Path.Combine(dir, "ours.pdb");
            File.WriteAllBytes(mine, ours);
            using PdbFile pdb = PdbFile.Open(mine);
            Assert.That(pdb.Identity.Guid.ToString("D"), Does.StartWith("34060d22-"));
            Assert.That(pdb.Identity.Age, Is.EqualTo(2));
        }
        finally
        {
            StoreFixtures.DeleteScratch(dir);
        }
    }

    [Test]
    public void Extract_ReproducesInput_ForGcabCabOfVariedData()
    {
        // gcab (an independent MSZIP encoder) over ~300 KB of mixed text and noise: many blocks, window carried across
        // them.
        ToolRequirement.Require(File.Exists("/usr/bin/gcab"), "gcab is not installed (Debian package gcab).");

        string dir = StoreFixtures.NewScratch();
        try
        {
            byte[] data = MixedData(300_000, seed: 7);
            string input = Path.Combine(dir, "mixed.bin");
            File.WriteAllBytes(input, data);
            string cabPath = Path.Combine(dir, "mixed.cab");
            using (
                var p = Process.Start(
                    new ProcessStartInfo("/usr/bin/gcab", ["-c", "-z", "-n", cabPath, input])
                    {
                        RedirectStandardOutput = true,
                    }
                )!
            )
            {
                p.WaitForExit();
                Assert.That(p.ExitCode, Is.Zero);
            }

            using CabArchive cab = CabArchive.Open(cabPath);
            Assert.That(Expand(cab, cab.Files.Single()), Is.EqualTo(data));
        }
        finally
        {
            StoreFixtures.DeleteScratch(dir);
        }
    }

    [TestCase(CompressionLevel.NoCompression)]
    [TestCase(CompressionLevel.Fastest)]
    [TestCase(CompressionLevel.SmallestSize)]
    public void Extract_ReproducesInput_ForCabBuiltFromDeflateStreamBlocks(CompressionLevel level)
    {
        // DeflateStream (zlib) as an independent encoder: stored, fixed and dynamic blocks, one stream per CFDATA.
        byte[] data = MixedData(100_000, seed: 3);
        byte[] cab = CabBuilder.Build("x.pdb", data, level);
        using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "built.cab"), ownsSource: true);
        Assert.That(Expand(archive, archive.Files[0]), Is.EqualTo(data));
    }

    [Test]
    public void Extract_Throws_WhenDeclaredSizeExceedsCap()
    {
        byte[] cab = CabBuilder.Build("bomb.pdb", new byte[32768 * 40], CompressionLevel.SmallestSize);
        using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "bomb.cab"), ownsSource: true);
        using var sink = new CountingStream();
        var ex = Assert.Throws<InvalidPdbDataException>(() =>
            archive.Extract(archive.Files[0], sink, maxBytes: 1_000_000, CancellationToken.None)
        );
        Assert.That(ex!.Message, Does.Contain("decompression bomb").And.Contain("bomb.cab"));
        Assert.That(sink.Written, Is.Zero);
    }

    [Test]
    public void Extract_Throws_WhenBlockExpandsBeyondDeclaredSize()
    {
        byte[] cab = CabBuilder.Build("x.pdb", new byte[32768], CompressionLevel.SmallestSize);
        // Declare 100 uncompressed bytes in the only CFDATA (offset: header 36 + folder 8 + file entry 16 + "x.pdb\0" 6
        // = 66; cbUncomp at +6).
        BinaryPrimitives.WriteUInt16LittleEndian(cab.AsSpan(66 + 6), 100);
        BinaryPrimitives.WriteUInt32LittleEndian(cab.AsSpan(66), 0); // no checksum
        BinaryPrimitives.WriteUInt32LittleEndian(cab.AsSpan(44), 100); // file size
        using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "big.cab"), ownsSource: true);
        var ex = Assert.Throws<InvalidPdbDataException>(() => Expand(archive, archive.Files[0]));
        Assert.That(ex!.Message, Does.Contain("beyond the declared size").Or.Contain("runs past it"));
    }

    [Test]
    public void Open_Throws_WhenFolderCountRunsPastFile()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        BinaryPrimitives.WriteUInt16LittleEndian(cab.AsSpan(26), 60000);
        var ex = Assert.Throws<InvalidPdbDataException>(() =>
            CabArchive.Open(new MemoryRandomAccessSource(cab, "h.cab"), ownsSource: true)
        );
        Assert.That(ex!.Offset, Is.EqualTo(16));
        Assert.That(ex.Message, Does.Contain("60000 folder entries"));
    }

    [Test]
    public void Open_Throws_WhenDataBlockCountExceedsFile()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        BinaryPrimitives.WriteUInt16LittleEndian(cab.AsSpan(36 + 4), 65535);
        var ex = Assert.Throws<InvalidPdbDataException>(() =>
            CabArchive.Open(new MemoryRandomAccessSource(cab, "h.cab"), ownsSource: true)
        );
        Assert.That(ex!.Message, Does.Contain("65535 data blocks"));
    }

    [Test]
    public void Open_Throws_WhenCabinetIsPartOfASet()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        BinaryPrimitives.WriteUInt16LittleEndian(cab.AsSpan(30), 2);
        var ex = Assert.Throws<InvalidPdbDataException>(() =>
            CabArchive.Open(new MemoryRandomAccessSource(cab, "h.cab"), ownsSource: true)
        );
        Assert.That(ex!.Message, Does.Contain("multi-cabinet"));
    }

    [Test]
    public void Extract_Throws_WhenChecksumDoesNotMatch()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        cab[^10] ^= 0x40; // inside the last data block
        using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "c.cab"), ownsSource: true);
        var ex = Assert.Throws<InvalidPdbDataException>(() => Expand(archive, archive.Files[0]));
        Assert.That(ex!.Message, Does.Contain("checksum"));
    }

    [Test]
    public void OpenAndExtract_ThrowOnlyInvalidPdbData_ForEveryTruncation()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        for (int len = 0; len < cab.Length; len += 7)
        {
            byte[] cut = cab.AsSpan(0, len).ToArray();
            Assert.Throws<InvalidPdbDataException>(
                () =>
                {
                    using var archive = CabArchive.Open(new MemoryRandomAccessSource(cut, "t.cab"), ownsSource: true);
                    Expand(archive, archive.Files[0]);
                },
                $"length {len}"
            );
        }
    }

    [Test]
    public void Extract_ThrowsOnlyInvalidPdbData_ForBitFlipsInCompressedData()
    {
        // Checksums off, so the damage reaches the DEFLATE decoder: it must fail cleanly or produce other bytes, never
        // crash or hang.
        byte[] original = CabBuilder.Build(
            "x.pdb",
            MixedData(70_000, seed: 11),
            CompressionLevel.SmallestSize,
            checksums: false
        );
        var rng = new Random(1234);
        int failures = 0;
        for (int i = 0; i < 400; i++)
        {
            byte[] cab = (byte[])original.Clone();
            int at = 66 + 8 + rng.Next(cab.Length - 74);
            cab[at] ^= (byte)(1 << rng.Next(8));
            try
            {
                using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "f.cab"), ownsSource: true);
                Expand(archive, archive.Files[0]);
            }
            catch (InvalidPdbDataException)
            {
                failures++;
            }
        }

        Assert.That(failures, Is.GreaterThan(100));
    }

    [Test]
    public void Extract_Throws_ForUnsupportedLzxCompression()
    {
        byte[] cab = File.ReadAllBytes(StoreFixtures.CabA);
        BinaryPrimitives.WriteUInt16LittleEndian(cab.AsSpan(36 + 6), 0x1503); // LZX, window 21
        using var archive = CabArchive.Open(new MemoryRandomAccessSource(cab, "l.cab"), ownsSource: true);
        var ex = Assert.Throws<InvalidPdbDataException>(() => Expand(archive, archive.Files[0]));
        Assert.That(ex!.Message, Does.Contain("LZX"));
    }

    internal static byte[] MixedData(int length, int seed)
    {
        var rng = new Random(seed);
        var ms = new MemoryStream();
        string[] words =
        [
            "Spinlock",
            "XeSosPkg",
            "::",
            "Publish",
            "latch",
            "sqlmin",
            "\0\0\0\0",
            "AcquireInternal",
            " ",
            "\n",
        ];
        while (ms.Length < length)
        {
            int mode = rng.Next(4);
            if (mode == 0)
            {
                byte[] noise = new byte[rng.Next(1, 300)];
                rng.NextBytes(noise);
                ms.Write(noise);
            }
            else if (mode == 1)
            {
                ms.Write(new byte[rng.Next(1, 5000)]);
            }
            else
            {
                for (int i = 0; i < 50; i++)
                {
                    ms.Write(System.Text.Encoding.ASCII.GetBytes(words[rng.Next(words.Length)]));
                }
            }
        }

        return ms.ToArray().AsSpan(0, length).ToArray();
    }

    private static byte[] Expand(CabArchive cab, CabFileEntry entry)
    {
        using var ms = new MemoryStream();
        cab.Extract(entry, ms, long.MaxValue, CancellationToken.None);
        return ms.ToArray();
    }

    private sealed class CountingStream : Stream
    {
        public long Written { get; private set; }

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => Written;

        public override long Position
        {
            get => Written;
            set => throw new NotSupportedException();
        }

        public override void Flush() { }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => Written += count;
    }
}

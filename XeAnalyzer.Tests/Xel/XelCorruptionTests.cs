using System.Buffers.Binary;
using XeAnalyzer.Events;
using XeAnalyzer.IO;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>Damaged input gives only <see cref="InvalidXelDataException"/> or a clean partial result: no crash, no
/// hang.</summary>
public sealed class XelCorruptionTests
{
    private static IEnumerable<string> Inputs()
    {
        foreach ((string name, _) in XelFixtures.All.Take(2))
        {
            yield return XelFixtures.PathOf(name);
        }

        foreach (string f in new[] { "sqlhealth.xel", "gatewaysample.xel", "sqltrace.xel" })
        {
            yield return TestPaths.VectorCase("xel", f);
        }
    }

    private static (List<string>? Events, InvalidXelDataException? Error, XelDiagnostics Diag) Read(
        byte[] bytes,
        XelIntegrityHandling mode
    )
    {
        var diag = new XelDiagnostics();
        using var src = new MemoryRandomAccessSource(bytes, "damaged.xel");
        try
        {
            // Describe touches every value, so lazily decoded values must be safe too.
            List<string> events =
            [
                .. XelReader
                    .ReadEvents(src, new XelReadOptions { Integrity = mode, Diagnostics = diag })
                    .Select(XelRoundTripTests.Describe),
            ];
            return (events, null, diag);
        }
        catch (InvalidXelDataException ex)
        {
            Assert.That(ex.FilePath, Is.EqualTo("damaged.xel"));
            Assert.That(ex.Message, Does.Contain("expected"));
            return (null, ex, diag);
        }
    }

    [TestCaseSource(nameof(Inputs))]
    public void ReadEvents_YieldsCompletePrefix_WhenTruncatedAnywhere(string input)
    {
        string path = TestPaths.ResolveCase(input);
        byte[] full = File.ReadAllBytes(path);
        string[] all = [.. XelReader.ReadEvents(path).Select(XelRoundTripTests.Describe)];
        int step = Math.Max(1, full.Length / 400);
        var boundaries = new HashSet<int>();
        for (int b = 512; b + 32 <= full.Length; b += BinaryPrimitives.ReadInt32LittleEndian(full.AsSpan(b + 16)))
        {
            boundaries.Add(b);
        }

        for (int cut = 0; cut < full.Length; cut += step)
        {
            foreach (
                XelIntegrityHandling mode in new[]
                {
                    XelIntegrityHandling.Strict,
                    XelIntegrityHandling.SkipCorruptBuffers,
                }
            )
            {
                (List<string>? events, InvalidXelDataException? error, XelDiagnostics diag) = Read(full[..cut], mode);
                if (events is null)
                {
                    // Only a file cut inside its 512-byte file header may throw (it is damaged, not an empty capture),
                    // at the cut.
                    Assert.That(cut, Is.LessThan(512), "a truncated file threw: " + error!.Message);
                    Assert.That(error.Offset, Is.EqualTo(cut), error.Message);
                    continue;
                }

                Assert.That(
                    cut,
                    Is.GreaterThanOrEqualTo(512),
                    "a file cut inside its header must not read as an empty capture"
                );

                Assert.That(events, Is.EqualTo(all.Take(events.Count)), "cut at " + cut);
                if (cut > 512 && events.Count < all.Length && !boundaries.Contains(cut))
                {
                    Assert.That(diag.IncompleteBuffers, Is.EqualTo(1), "cut at " + cut);
                    Assert.That(diag.Warnings, Is.Not.Empty);
                }
            }
        }
    }

    [TestCaseSource(nameof(Inputs))]
    public void ReadEvents_ThrowsOnlyOurException_WhenHeaderAndLengthBytesFlip(string input)
    {
        string path = TestPaths.ResolveCase(input);
        byte[] full = File.ReadAllBytes(path);
        var positions = new List<int>();
        int pos = 512;
        while (pos + 32 <= full.Length)
        {
            for (int i = 12; i < 32; i++)
            {
                positions.Add(pos + i);
            }

            if (BinaryPrimitives.ReadUInt16LittleEndian(full.AsSpan(pos + 14)) == 0)
            {
                int rec = pos + BinaryPrimitives.ReadUInt16LittleEndian(full.AsSpan(pos + 22));
                for (int i = 0; i < 24; i++)
                {
                    positions.Add(rec + i);
                }
            }

            pos += Math.Max(512, BinaryPrimitives.ReadInt32LittleEndian(full.AsSpan(pos + 16)));
        }

        foreach (int p in positions.Where(p => p < full.Length))
        {
            foreach (byte mask in new byte[] { 0x01, 0x80, 0xFF })
            {
                byte[] damaged = (byte[])full.Clone();
                damaged[p] ^= mask;
                Read(damaged, XelIntegrityHandling.Strict);
                Read(damaged, XelIntegrityHandling.SkipCorruptBuffers);
            }
        }
    }

    [TestCaseSource(nameof(Inputs))]
    public void ReadEvents_ThrowsOnlyOurException_WhenRandomBytesFlip(string input)
    {
        string path = TestPaths.ResolveCase(input);
        byte[] full = File.ReadAllBytes(path);
        var rng = new Random(12345);
        for (int n = 0; n < 300; n++)
        {
            byte[] damaged = (byte[])full.Clone();
            for (int k = 0; k < 4; k++)
            {
                damaged[rng.Next(8, damaged.Length)] = (byte)rng.Next(256);
            }

            Read(damaged, XelIntegrityHandling.Strict);
            Read(damaged, XelIntegrityHandling.SkipCorruptBuffers);
        }
    }

    [Test]
    public void ReadEvents_Throws_ForEmptyFileAndNonXel()
    {
        InvalidXelDataException? empty = Read([], XelIntegrityHandling.SkipCorruptBuffers).Error;
        Assert.That(empty, Is.Not.Null);
        Assert.That(empty!.Message, Does.Contain("empty"));
        InvalidXelDataException? text = Read(
            "this is plainly a text file, not a capture"u8.ToArray(),
            XelIntegrityHandling.Strict
        ).Error;
        Assert.That(text!.Message, Does.Contain("magic"));
        Assert.That(text.Offset, Is.Zero);
    }

    private static int FirstEventBuffer(byte[] b, out int dataStart)
    {
        int pos = 512;
        while (BinaryPrimitives.ReadUInt16LittleEndian(b.AsSpan(pos + 14)) != 0)
        {
            pos += BinaryPrimitives.ReadInt32LittleEndian(b.AsSpan(pos + 16));
        }

        dataStart = pos + BinaryPrimitives.ReadUInt16LittleEndian(b.AsSpan(pos + 22));
        return pos;
    }

    [Test]
    public void ReadEvents_NamesOffset_WhenPayloadLengthPointsPastBuffer()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        FirstEventBuffer(b, out int rec);
        BinaryPrimitives.WriteUInt32LittleEndian(b.AsSpan(rec + 20), 0x00FFFFFF);
        InvalidXelDataException? ex = Read(b, XelIntegrityHandling.Strict).Error;
        Assert.That(ex, Is.Not.Null);
        Assert.That(ex!.Offset, Is.EqualTo(rec));
        Assert.That(ex.Message, Does.Contain("payload length"));

        (List<string>? events, _, XelDiagnostics diag) = Read(b, XelIntegrityHandling.SkipCorruptBuffers);
        Assert.That(diag.SkippedBuffers, Is.EqualTo(1));
        Assert.That(events!.Count, Is.GreaterThan(0).And.LessThan(40));
        Assert.That(diag.Warnings[0].Offset, Is.EqualTo(rec));
    }

    [Test]
    public void ReadEvents_SkipsDamagedBufferHeader_AndReadsTheOthers()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        int buf = FirstEventBuffer(b, out _);
        b[buf + 12] = 0x77; // log version
        InvalidXelDataException? ex = Read(b, XelIntegrityHandling.Strict).Error;
        Assert.That(ex!.Offset, Is.EqualTo(buf));
        Assert.That(ex.Message, Does.Contain("log version"));
        (List<string>? events, _, XelDiagnostics diag) = Read(b, XelIntegrityHandling.SkipCorruptBuffers);
        Assert.That(diag.SkippedBuffers, Is.EqualTo(1));
        Assert.That(diag.IsPartial, Is.True);
        Assert.That(events!.Count, Is.GreaterThan(0).And.LessThan(40));
    }

    [Test]
    public void ReadEvents_Throws_WhenMetadataReferencesUnknownPackageOrType()
    {
        XeSchema s = XelFixtures.LatchSchema(out XeEventType latch, out _);
        byte[] good = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        // The 'duration' field's type RID (uint64 of package 0) is stored once in the metadata: point it at package 99,
        // then at base type 14.
        byte[] rid = BitConverter.GetBytes(latch.Fields[6].TypeRid);
        byte[] name = System.Text.Encoding.Unicode.GetBytes("duration\0");
        int at = good.AsSpan().IndexOf([.. rid, .. name]);
        Assert.That(at, Is.GreaterThan(0));
        Assert.That(s, Is.Not.Null);

        byte[] b = (byte[])good.Clone();
        BinaryPrimitives.WriteUInt32LittleEndian(b.AsSpan(at), XeRid.Make(99, 8, XeRid.TypeType));
        InvalidXelDataException? ex = Read(b, XelIntegrityHandling.Strict).Error;
        Assert.That(ex!.Message, Does.Contain("package 99"));
        Assert.That(ex.Message, Does.Contain("duration"));

        BinaryPrimitives.WriteUInt32LittleEndian(b.AsSpan(at), XeRid.Make(0, 14, XeRid.TypeType));
        ex = Read(b, XelIntegrityHandling.Strict).Error;
        Assert.That(ex!.Message, Does.Contain("base type 14"));

        (List<string>? events, _, XelDiagnostics diag) = Read(b, XelIntegrityHandling.SkipCorruptBuffers);
        Assert.That(events, Is.Empty);
        Assert.That(diag.UndecodableEvents, Is.EqualTo(40));
    }

    [Test]
    public void ReadEvents_ReturnsEveryCompleteEvent_WhenFinalBufferIsIncomplete()
    {
        byte[] full = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        int cut = full.Length - 700;
        var diag = new XelDiagnostics();
        using var src = new MemoryRandomAccessSource(full.AsMemory(0, cut), "live.xel");
        List<XEvent> events = [.. XelReader.ReadEvents(src, new XelReadOptions { Diagnostics = diag })];
        Assert.That(events.Count, Is.GreaterThan(20).And.LessThan(40));
        Assert.That(diag.IncompleteBuffers, Is.EqualTo(1));
        Assert.That(diag.Warnings.Single().Message, Does.Contain("incomplete"));
    }

    [Test]
    public void ReadEvents_RejectsHugeBuffers_ByLimit()
    {
        byte[] b = File.ReadAllBytes(XelFixtures.PathOf("latch.xel"));
        int buf = FirstEventBuffer(b, out _);
        InvalidXelDataException? ex = null;
        try
        {
            using var src = new MemoryRandomAccessSource(b, "limits.xel");
            _ = XelReader
                .ReadEvents(src, new XelReadOptions { Limits = new XeReaderLimits { MaxBufferSize = 1024 } })
                .ToList();
        }
        catch (InvalidXelDataException e)
        {
            ex = e;
        }

        Assert.That(ex, Is.Not.Null);
        Assert.That(ex!.Offset, Is.EqualTo(512).Or.EqualTo(buf));
        Assert.That(ex.Message, Does.Contain("MaxBufferSize"));
        Assert.That(() => new XeReaderLimits { MaxCallstackFrames = 0 }, Throws.TypeOf<ArgumentOutOfRangeException>());
    }
}

using XeAnalyzer.Cli;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>
/// A <c>.xel</c> cut inside its 512-byte file header (8 to 511 bytes long) is unreadable input, not an empty capture:
/// the reader throws naming the file and the offset, and every command exits 1 with that message.
/// </summary>
public sealed class XelTruncatedHeaderTests
{
    private string _dir = null!;

    [SetUp]
    public void SetUp()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xea-xelhead-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    private string Cut(int length)
    {
        byte[] sample = File.ReadAllBytes(SampleData.CapturePath(SampleData.Latch));
        string path = Path.Combine(_dir, "cut.xel");
        File.WriteAllBytes(path, sample.AsSpan(0, length).ToArray());
        return path;
    }

    [TestCase(8)]
    [TestCase(9)]
    [TestCase(100)]
    [TestCase(511)]
    public void Reader_Throws_NamingFileAndOffset(int length)
    {
        string path = Cut(length);
        var ex = Assert.Throws<InvalidXelDataException>(() => XelReader.ReadEvents(path).Count());
        Assert.That(ex!.FilePath, Is.EqualTo(path));
        Assert.That(ex.Offset, Is.EqualTo(length));
        Assert.That(ex.Detail, Does.Contain("512-byte .xel file header").And.Contain("truncated"));
        Assert.That(XelFile.Identify(path).IsXel, Is.False);
    }

    [Test]
    public void Reader_AcceptsAFileOfExactlyItsHeader_AsACaptureWithoutBuffers()
    {
        string path = Cut(512);
        Assert.That(XelReader.ReadEvents(path).Count(), Is.Zero);
    }

    [TestCase(8, "info")]
    [TestCase(511, "info")]
    [TestCase(100, "events")]
    [TestCase(100, "stacks")]
    [TestCase(100, "latches")]
    [TestCase(100, "memory")]
    [TestCase(100, "waits")]
    [TestCase(100, "report")]
    [TestCase(100, "export")]
    [TestCase(100, "slice")]
    [TestCase(100, "diff")]
    public void Command_ExitsOne_NamingFileAndOffset(int length, string command)
    {
        string path = Cut(length);
        string output = Path.Combine(_dir, "out");
        string[] args = command switch
        {
            "report" => ["report", path, "-o", output, "--offline"],
            "export" => ["export", path, "--format", "parquet", "-o", output],
            "slice" => ["slice", path, "--event", "sqlserver.latch_acquired", "-o", Path.Combine(_dir, "s.xel")],
            "diff" => ["diff", path, SampleData.CapturePath(SampleData.Latch), "--offline"],
            "stacks" => ["stacks", path, "--offline"],
            _ => [command, path],
        };
        (int exit, _, string err) = CliRunner.Run(args);
        Assert.That(exit, Is.EqualTo(1), err);
        Assert.That(
            err,
            Does.Contain(path + ": byte offset " + length.ToString(System.Globalization.CultureInfo.InvariantCulture))
                .And.Contain("512-byte .xel file header")
        );
        Assert.That(err, Does.Not.Contain("internal error"));
    }
}

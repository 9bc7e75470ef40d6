using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Tests.IO;

/// <summary><see cref="OutputFile"/>: the one way every output file is created, whether it exists or not.</summary>
public class OutputFileTests
{
    private string _dir = null!;

    [SetUp]
    public void SetUp() => _dir = Directory.CreateTempSubdirectory("xeanalyzer-outputfile-").FullName;

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    [TestCase(0)]
    [TestCase(1)]
    [TestCase(4096)]
    public void Create_MakesANewFile_WithWhatIsWritten(int bufferSize)
    {
        string path = Path.Combine(_dir, "new.txt");
        using (FileStream fs = OutputFile.Create(path, bufferSize))
        {
            Assert.That(fs.Position, Is.Zero);
            Assert.That(fs.Length, Is.Zero);
            fs.Write("resolved\n"u8);
        }

        Assert.That(File.ReadAllText(path, Encoding.UTF8), Is.EqualTo("resolved\n"));
    }

    [Test]
    public void Create_OverwritesAnExistingLongerFile_WholeAndNothingAfter()
    {
        string path = Path.Combine(_dir, "old.txt");
        File.WriteAllText(path, new string('x', 100_000));
        using (FileStream fs = OutputFile.Create(path))
        {
            Assert.That(fs.Length, Is.Zero, "an existing file starts empty");
            fs.Write("short"u8);
        }

        Assert.That(File.ReadAllText(path), Is.EqualTo("short"));
    }

    [Test]
    public void Create_SharesForReading_ByDefault_AndForNothingWhenAsked()
    {
        string shared = Path.Combine(_dir, "shared.txt");
        using (FileStream fs = OutputFile.Create(shared))
        {
            fs.Write("a"u8);
            fs.Flush();
            using var reader = new FileStream(shared, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            Assert.That(reader.ReadByte(), Is.EqualTo('a'));
        }

        string exclusive = Path.Combine(_dir, "exclusive.txt");
        using (OutputFile.Create(exclusive, share: FileShare.None))
        {
            Assert.Throws<IOException>(() =>
                new FileStream(exclusive, FileMode.Open, FileAccess.Read, FileShare.ReadWrite).Dispose()
            );
        }
    }

    [Test]
    public void Create_InAFolderThatDoesNotExist_FailsNamingThePath()
    {
        string path = Path.Combine(_dir, "missing", "out.txt");
        var ex = Assert.Throws<DirectoryNotFoundException>(() => OutputFile.Create(path).Dispose());
        Assert.That(ex!.Message, Does.Contain(path));
        Assert.That(Directory.Exists(Path.Combine(_dir, "missing")), Is.False);
    }

    [TestCase("")]
    [TestCase(null)]
    public void Create_RefusesAnEmptyPath(string? path) =>
        Assert.That(() => OutputFile.Create(path!), Throws.InstanceOf<ArgumentException>());
}

using System.Text.RegularExpressions;
using XeAnalyzer.Reporting;
using XeAnalyzer.Tests.Analysis;

namespace XeAnalyzer.Tests.Reporting;

/// <summary><see cref="BatchDiscovery"/>: what counts as a capture, rollover grouping, names, and safe, unique report
/// folder names.</summary>
public sealed partial class BatchDiscoveryTests
{
    private TempFolder _temp = null!;

    [SetUp]
    public void SetUp() => _temp = new TempFolder();

    [TearDown]
    public void TearDown() => _temp.Dispose();

    [GeneratedRegex("^[A-Za-z0-9_][A-Za-z0-9._-]*$")]
    private static partial Regex SafeName();

    private string Touch(string relative)
    {
        string path = Path.Combine(_temp.Path, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, "x");
        return path;
    }

    [Test]
    public void Discover_Folder_GroupsRolloverFiles_TakesXml_IgnoresOtherFiles_InPathOrder()
    {
        Touch("s/latch_0_133601526724170002.xel");
        Touch("s/latch_0_133601526724170001.xel");
        Touch("s/latch.modules.txt");
        Touch("t/u/single.xel");
        Touch("t/ring.XML");
        Touch("t/readme.txt");
        Touch("t/u/single.modules.txt");

        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover([_temp.Path]);

        Assert.That(
            captures.Select(c => c.Name),
            Is.EqualTo(new[] { "s/latch_0_*.xel", "t/ring.XML", "t/u/single.xel" })
        );
        Assert.That(
            captures[0].Files.Select(Path.GetFileName),
            Is.EqualTo(new[] { "latch_0_133601526724170001.xel", "latch_0_133601526724170002.xel" }),
            "rollover order by FILETIME"
        );
        Assert.That(captures[0].ModuleList, Is.EqualTo(Path.Combine(_temp.Path, "s", "latch.modules.txt")));
        Assert.That(captures[1].IsTargetData, Is.True);
        Assert.That(captures[1].ModuleList, Is.Null);
        Assert.That(captures[2].ModuleList, Does.EndWith("single.modules.txt"));
        Assert.That(captures.Select(c => c.Folder), Is.EqualTo(new[] { "s__latch_0", "t__ring.XML", "t__u__single" }));
        Assert.That(captures[2].DisplayPath(captures[2].Files[0]), Is.EqualTo("t/u/single.xel"));
    }

    [Test]
    public void Discover_SeveralInputs_NamesCarryTheInput_AndTheSameFileCountsOnce()
    {
        string a = Touch("a/x.xel");
        Touch("b/x.xel");
        string aDir = Path.Combine(_temp.Path, "a");
        string bDir = Path.Combine(_temp.Path, "b");

        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover([aDir, bDir, a]);

        Assert.That(
            captures.Select(c => c.Name),
            Is.EqualTo(new[] { aDir.Replace('\\', '/') + "/x.xel", bDir.Replace('\\', '/') + "/x.xel" })
        );
        Assert.That(captures.Select(c => c.Folder).Distinct(StringComparer.OrdinalIgnoreCase).Count(), Is.EqualTo(2));
    }

    [Test]
    public void Discover_MissingInput_Throws()
    {
        Assert.That(
            () => BatchDiscovery.Discover([Path.Combine(_temp.Path, "nope")]),
            Throws.InstanceOf<FileNotFoundException>()
        );
    }

    [TestCase("../../etc/passwd.xel")]
    [TestCase("..")]
    [TestCase("./.hidden.xel")]
    [TestCase("-rf.xel")]
    [TestCase("a/b/c.xel")]
    [TestCase("C:\\Windows\\System32\\config.xel")]
    [TestCase("CON.xel")]
    [TestCase("nul.txt.xml")]
    [TestCase("lpt1")]
    [TestCase("a b <c> | d ? * : \" e.xel")]
    [TestCase("ünïcødé_日本.xel")]
    [TestCase("trailing dot.")]
    [TestCase("")]
    [TestCase("%2e%2e%2fsecret.xel")]
    public void SanitizeFolderName_GivesASafeSingleSegment(string name)
    {
        (string folder, bool _) = BatchDiscovery.SanitizeFolderName(name);

        Assert.That(folder, Does.Match(SafeName()), "letters, digits, . _ - only; not starting with . or -");
        Assert.That(folder, Is.Not.EqualTo(".").And.Not.EqualTo(".."));
        Assert.That(folder.Length, Is.InRange(1, BatchDiscovery.MaxFolderLength));
        string root = Path.Combine(_temp.Path, "out");
        string full = Path.GetFullPath(Path.Combine(root, folder));
        Assert.That(Path.GetDirectoryName(full), Is.EqualTo(root), "one folder directly under the output");
        string device = folder.Split('.')[0].ToUpperInvariant();
        Assert.That(device, Is.Not.AnyOf("CON", "PRN", "AUX", "NUL", "COM1", "LPT1"));
    }

    [Test]
    public void Discover_CollidingAndHostileFileNames_GetUniqueSafeFolders_IndependentOfInputOrder()
    {
        string[] names =
        [
            "a b.xel",
            "a_b.xel",
            "A_B.xel",
            "CON.xel",
            "-x.xel",
            "ünï.xel",
            "__.xel",
            new string('l', 180) + ".xel",
            new string('l', 180) + "2.xel",
            "index.html.xml",
            "summary.json.xml",
            "sub/a_b.xel",
            "sub__a_b.xel",
        ];
        foreach (string n in names)
        {
            Touch(Path.Combine("in", n));
        }

        IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover([Path.Combine(_temp.Path, "in")]);

        Assert.That(captures, Has.Count.EqualTo(names.Length));
        string[] folders = [.. captures.Select(c => c.Folder)];
        Assert.That(
            folders.Distinct(StringComparer.OrdinalIgnoreCase).Count(),
            Is.EqualTo(folders.Length),
            "unique even ignoring case: " + string.Join(", ", folders)
        );
        Assert.That(folders, Has.All.Match(SafeName()));
        Assert.That(folders, Has.All.Length.LessThanOrEqualTo(BatchDiscovery.MaxFolderLength));
        Assert.That(folders, Has.None.EqualTo("index.html").IgnoreCase.And.None.EqualTo("summary.json").IgnoreCase);

        // The folder of a capture depends on its name and the set of names, not on discovery or processing order.
        IReadOnlyList<BatchCapture> again = BatchDiscovery.Discover([Path.Combine(_temp.Path, "in")]);
        Assert.That(again.Select(c => (c.Name, c.Folder)), Is.EqualTo(captures.Select(c => (c.Name, c.Folder))));
        var colliding = captures
            .Where(c => c.Name is "a b.xel" or "a_b.xel" or "A_B.xel")
            .Select(c => c.Folder)
            .ToArray();
        Assert.That(colliding, Has.All.Match("^a_b-[0-9a-f]{8}$").IgnoreCase);
    }
}

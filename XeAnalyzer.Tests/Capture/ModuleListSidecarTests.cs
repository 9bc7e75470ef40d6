using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Capture;

/// <summary>The <c>&lt;set-name&gt;.modules.txt</c> convention for a capture's module list.</summary>
public class ModuleListSidecarTests
{
    private string _dir = null!;

    [SetUp]
    public void SetUp() => _dir = ResolutionFixtures.NewScratch();

    [TearDown]
    public void TearDown() => ResolutionFixtures.DeleteScratch(_dir);

    [TestCase("latch_0_133612345678900000.xel", "latch")]
    [TestCase("xe_wait_completed_0_132345678901234567.XEL", "xe_wait_completed")]
    [TestCase("system_health_3_133612345678900000.xel", "system_health")]
    [TestCase("capture.xel", "capture")]
    [TestCase("lock_hash_histogram.xml", "lock_hash_histogram")]
    [TestCase("stacks", "stacks")]
    public void SetName_FollowsTheConvention(string file, string expected) =>
        Assert.That(ModuleListSidecar.SetName(Path.Combine("some", "dir", file)), Is.EqualTo(expected));

    [Test]
    public void Find_RolloverSet_FindsTheSharedList()
    {
        string a = Touch("latch_0_133612345678900000.xel");
        string b = Touch("latch_0_133612345778900000.xel");
        string list = Touch("latch.modules.txt", "name\tbase_address\nC:\\Binn\\sqlmin.dll\t0x00007FFAD08A0000\n");
        CaptureSet set = CaptureSet.Group([a, b]).Single();
        Assert.That(ModuleListSidecar.Find(set), Is.EqualTo(list));
        Assert.That(ModuleListSidecar.Find(b), Is.EqualTo(list));
        Assert.That(ModuleListSidecar.TryLoad(set)!.Modules.Single().Name.Name, Is.EqualTo("sqlmin.dll"));
    }

    [Test]
    public void Find_IgnoresLetterCase_WhenTheExactNameIsAbsent()
    {
        string capture = Touch("Capture.xel");
        string list = Touch("CAPTURE.Modules.TXT");
        Assert.That(ModuleListSidecar.Find(capture), Is.EqualTo(list));
        Assert.That(ModuleListSidecar.ExpectedPath(capture), Is.EqualTo(Path.Combine(_dir, "Capture.modules.txt")));
    }

    [Test]
    public void Find_ReturnsNull_WithoutList()
    {
        string capture = Touch("other.xel");
        Touch("latch.modules.txt");
        Assert.That(ModuleListSidecar.Find(capture), Is.Null);
        Assert.That(ModuleListSidecar.TryLoad(CaptureSet.FromFile(capture)), Is.Null);
    }

    private string Touch(string name, string text = "")
    {
        string path = Path.Combine(_dir, name);
        File.WriteAllText(path, text);
        return path;
    }
}

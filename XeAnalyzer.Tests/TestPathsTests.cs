namespace XeAnalyzer.Tests;

/// <summary>The external-tool rule of <see cref="ToolRequirement"/> and the shared-vector case arguments of
/// <see cref="TestPaths"/>, decided when a test runs.</summary>
public sealed class TestPathsTests
{
    [TestCase(true, "true", "Run")]
    [TestCase(false, "true", "Fail")]
    [TestCase(false, "TRUE", "Fail")]
    [TestCase(false, null, "Ignore")]
    [TestCase(false, "false", "Ignore")]
    public void MissingTools_FailUnderCi_AreIgnoredElsewhere(bool present, string? ci, string expected)
    {
        Assert.That(ToolRequirement.Decide(present, ci).ToString(), Is.EqualTo(expected));
    }

    [Test]
    public void VectorCase_IsResolvedInsideTheTest_OtherArgumentsAsTheyAre()
    {
        Assert.That(TestPaths.VectorCase("xel", "sqlhealth.xel"), Is.EqualTo("vectors/xel/sqlhealth.xel"));
        string fixture = Path.Combine(TestPaths.TestData, "xel", "latch.xel");
        Assert.That(TestPaths.ResolveCase(fixture), Is.EqualTo(fixture));
        if (TestPaths.Vectors is string root)
        {
            Assert.That(
                TestPaths.ResolveCase(TestPaths.VectorCase("xel", "sqlhealth.xel")),
                Is.EqualTo(Path.Combine(root, "xel", "sqlhealth.xel"))
            );
        }
    }
}

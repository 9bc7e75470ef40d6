using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pe;

/// <summary>
/// The oracle outputs recorded under TestData (so that tests run without LLVM) must still be what the installed LLVM 14
/// tools print. Ignored, with the reason, when the tools or the shared vectors are absent.
/// </summary>
public class RecordedOracleTests
{
    [TestCase("basic32-min.dll")]
    [TestCase("dump_syms_regtest64.exe")]
    [TestCase("CrashWithException.exe")]
    public void RecordedVectorFacts_MatchLiveLlvmTools(string image)
    {
        string path = TestPaths.RequireVector("pdb", image);
        string dir = Path.GetDirectoryName(path)!;
        string readobj = LlvmTools.Run(
            LlvmTools.Require("llvm-readobj-14"),
            dir,
            "--file-headers",
            "--sections",
            "--coff-debug-directory",
            "--coff-exports",
            image
        );
        string objdump = LlvmTools.Run(LlvmTools.Require("llvm-objdump-14"), dir, "-p", image);
        Assert.That(
            readobj,
            Is.EqualTo(WithoutCommandLine(Path.Combine(TestPaths.TestData, "pe", image + ".readobj.txt")))
        );
        Assert.That(
            objdump,
            Is.EqualTo(WithoutCommandLine(Path.Combine(TestPaths.TestData, "pe", image + ".objdump-p.txt")))
        );
    }

    [TestCase("full")]
    [TestCase("publics")]
    [TestCase("stripped")]
    public void RecordedFixtureDumps_MatchLiveLlvmPdbUtil(string flavor)
    {
        string live = LlvmTools.Run(
            LlvmTools.Require("llvm-pdbutil-14"),
            TinyFixture.Dir,
            "dump",
            "-summary",
            "-publics",
            "-section-headers",
            "-modules",
            "-symbols",
            flavor + "/tiny.pdb"
        );
        Assert.That(live, Is.EqualTo(File.ReadAllText(TinyFixture.Expected(flavor + ".pdbutil.txt"))));
    }

    [TestCase("full")]
    [TestCase("publics")]
    public void RecordedFixtureReadObj_MatchesLiveLlvmReadObj(string flavor)
    {
        string live = LlvmTools.Run(
            LlvmTools.Require("llvm-readobj-14"),
            TinyFixture.Dir,
            "--file-headers",
            "--sections",
            "--coff-debug-directory",
            "--coff-exports",
            flavor + "/tiny.dll"
        );
        Assert.That(live, Is.EqualTo(WithoutCommandLine(TinyFixture.Expected(flavor + ".readobj.txt"))));
    }

    private static string WithoutCommandLine(string recorded)
    {
        string text = File.ReadAllText(recorded);
        return text[(text.IndexOf('\n', StringComparison.Ordinal) + 1)..];
    }
}

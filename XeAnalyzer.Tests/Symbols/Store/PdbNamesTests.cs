using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Symbols.Store;

public class PdbNamesTests
{
    [TestCase("sqlmin.pdb")]
    [TestCase("SqlDK.pdb")]
    [TestCase("vcruntime140.amd64.pdb")]
    [TestCase("my lib#1%.pdb")]
    public void IsValid_AcceptsPlainPdbFileNames(string name)
    {
        Assert.That(PdbNames.IsValid(name, out string? problem), Is.True, problem);
    }

    [TestCase(null, "empty")]
    [TestCase("../../etc/passwd", "not a single file name")]
    [TestCase("a/b.pdb", "not a single file name")]
    [TestCase("a\\b.pdb", "not a single file name")]
    [TestCase("C:\\x.pdb", "not a single file name")]
    [TestCase("C:x.pdb", "not a single file name")]
    [TestCase("x\u0000.pdb", "control characters")]
    [TestCase("x\u001b[31m.pdb", "control characters")]
    [TestCase("..pdb", "'..'")]
    [TestCase(".hidden.pdb", "'..' or starts with '.'")]
    [TestCase("x.dll", "does not end in '.pdb'")]
    [TestCase(".pdb", "starts with '.'")]
    [TestCase(" x.pdb", "spaces")]
    [TestCase("x?.pdb", "wildcard")]
    public void IsValid_RejectsHostileNames(string? name, string expected)
    {
        Assert.That(PdbNames.IsValid(name, out string? problem), Is.False);
        Assert.That(problem, Does.Contain(expected));
        Assert.That(problem!.Any(char.IsControl), Is.False);
    }

    [Test]
    public void IsValid_RejectsAbsurdLength_WithShortMessage()
    {
        Assert.That(PdbNames.IsValid(new string('x', 1_000_000) + ".pdb", out string? problem), Is.False);
        Assert.That(problem!.Length, Is.LessThan(300));
    }

    [TestCase(@"d:\dbs\sh\sqlmin.pdb", "sqlmin.pdb")]
    [TestCase("/build/out/sqlmin.pdb", "sqlmin.pdb")]
    [TestCase("sqlmin.pdb", "sqlmin.pdb")]
    public void FileNameOf_TakesLastComponent_OfDebugPath(string path, string expected)
    {
        Assert.That(PdbNames.FileNameOf(path), Is.EqualTo(expected));
    }

    [Test]
    public void TryParse_ReadsKeyInEitherCase_WithHexAge()
    {
        var id = new PdbIdentity(Guid.Parse("6a193443-3512-464b-8b8e-d905ad930ee6"), 0x2A);
        Assert.That(SymbolStoreKey.Format(id), Is.EqualTo("6A1934433512464B8B8ED905AD930EE62A"));
        Assert.That(SymbolStoreKey.FormatLower(id), Is.EqualTo("6a1934433512464b8b8ed905ad930ee62a"));
        Assert.That(SymbolStoreKey.TryParse("6a1934433512464b8b8ed905ad930ee62A", out PdbIdentity parsed), Is.True);
        Assert.That(parsed, Is.EqualTo(id));
    }

    [TestCase("")]
    [TestCase("6A1934433512464B8B8ED905AD930EE6")]
    [TestCase("6A1934433512464B8B8ED905AD930EE6G")]
    [TestCase("57AE642E1ad000")]
    [TestCase("6A1934433512464B8B8ED905AD930EE6123456789")]
    public void TryParse_RejectsNonPdbKeys(string key)
    {
        Assert.That(SymbolStoreKey.TryParse(key, out _), Is.False);
    }
}

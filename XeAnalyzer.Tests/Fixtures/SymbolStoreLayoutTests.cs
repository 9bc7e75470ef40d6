using System.Globalization;
using System.Reflection.PortableExecutable;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Fixtures;

/// <summary>The committed fixtures sit in symbol-store layout and their identities agree (PDB, twin, DLL
/// RSDS).</summary>
public class SymbolStoreLayoutTests
{
    private static readonly string[] s_modules = FixtureFiles.Modules;

    [TestCaseSource(nameof(s_modules))]
    public void ReadIdentity_MatchesKeyFolder_ForStrippedPdb(string module)
    {
        (string key, string path) = FixtureFiles.SingleKeyedFile(
            Path.Combine(TestPaths.SymbolsCache, module + ".pdb"),
            module + ".pdb"
        );

        PdbIdentity identity = PdbFile.ReadIdentity(path);

        Assert.That(identity.Key, Is.EqualTo(key));
        Assert.That(key, Does.Match("^[0-9A-F]{32}[0-9a-fA-F]+$"), "upper-case GUID then the age in hex");
    }

    [TestCaseSource(nameof(s_modules))]
    public void ReadIdentity_MatchesKeyFolderAndStrippedTwin_ForFullPdb(string module)
    {
        (string key, string path) = FixtureFiles.SingleKeyedFile(
            Path.Combine(FixtureFiles.PrivateSymbols, module + ".pdb"),
            module + ".pdb"
        );

        PdbIdentity full = PdbFile.ReadIdentity(path);

        Assert.That(full.Key, Is.EqualTo(key));
        Assert.That(full, Is.EqualTo(PdbFile.ReadIdentity(FixtureFiles.StrippedPdb(module))));
    }

    [TestCaseSource(nameof(s_modules))]
    public void ReadCodeViewDebugDirectoryData_MatchesBothPdbs_ForDll(string module)
    {
        using FileStream stream = File.OpenRead(FixtureFiles.Dll(module));
        using var pe = new PEReader(stream);
        DebugDirectoryEntry[] codeView = pe.ReadDebugDirectory()
            .Where(e => e.Type == DebugDirectoryEntryType.CodeView)
            .ToArray();
        Assert.That(codeView, Has.Length.EqualTo(1));

        CodeViewDebugDirectoryData rsds = pe.ReadCodeViewDebugDirectoryData(codeView[0]);

        var fromImage = new PdbIdentity(rsds.Guid, rsds.Age);
        Assert.That(rsds.Path, Is.EqualTo(module + ".pdb"), "/pdbaltpath keeps build paths out of the RSDS record");
        Assert.That(fromImage, Is.EqualTo(PdbFile.ReadIdentity(FixtureFiles.StrippedPdb(module))));
        Assert.That(fromImage, Is.EqualTo(PdbFile.ReadIdentity(FixtureFiles.FullPdb(module))));
    }

    [TestCaseSource(nameof(s_modules))]
    public void PeKey_MatchesKeyFolder_ForDll(string module)
    {
        (string key, string path) = FixtureFiles.SingleKeyedFile(
            Path.Combine(TestPaths.SymbolsCache, module + ".dll"),
            module + ".dll"
        );
        using FileStream stream = File.OpenRead(path);
        using var pe = new PEReader(stream);

        PEHeaders headers = pe.PEHeaders;
        string expected =
            ((uint)headers.CoffHeader.TimeDateStamp).ToString("X8", CultureInfo.InvariantCulture)
            + headers.PEHeader!.SizeOfImage.ToString("x", CultureInfo.InvariantCulture);

        Assert.That(key, Is.EqualTo(expected));
        Assert.That(headers.CoffHeader.Machine, Is.EqualTo(Machine.Amd64));
        Assert.That(headers.IsDll, Is.True);
    }

    [TestCaseSource(nameof(s_modules))]
    public void StrippedTwin_HasStrippedFlagAndFullPdbIdentity_WhenReadIndependently(string module)
    {
        var full = new FixtureMsf(FixtureFiles.FullPdb(module)).Identity();
        var stripped = new FixtureMsf(FixtureFiles.StrippedPdb(module)).Identity();

        Assert.That(stripped.DbiFlags & 0x2, Is.EqualTo(0x2), "DBI flag 0x2: private symbols stripped");
        Assert.That(full.DbiFlags & 0x2, Is.Zero, "the full PDB is not stripped");
        Assert.That(stripped.Guid, Is.EqualTo(full.Guid));
        Assert.That(stripped.InfoAge, Is.EqualTo(full.InfoAge));
        Assert.That(stripped.DbiAge, Is.EqualTo(full.DbiAge));
        Assert.That(PdbFile.ReadIdentity(FixtureFiles.StrippedPdb(module)).Age, Is.EqualTo(stripped.DbiAge));
    }

    [TestCaseSource(nameof(s_modules))]
    public void StrippedTwin_IsSmallerThanFullPdb(string module)
    {
        long full = new FileInfo(FixtureFiles.FullPdb(module)).Length;
        long stripped = new FileInfo(FixtureFiles.StrippedPdb(module)).Length;

        Assert.That(stripped, Is.LessThan(full), "the publics-only PDB has no module symbols, types or lines");
    }

    [Test]
    public void Key_EndsInHexAge_ForSqllangWithAge16()
    {
        string path = FixtureFiles.StrippedPdb("sqllang");

        PdbIdentity identity = PdbFile.ReadIdentity(path);

        Assert.That(identity.Age, Is.EqualTo(16));
        Assert.That(Path.GetFileName(Path.GetDirectoryName(path)), Does.EndWith("10").And.Not.EndWith("16"));
    }

    [Test]
    public void Identities_MatchRecordedExpectedData_ForEveryModule()
    {
        var rows = FixtureFiles.ReadExpected("identities.tsv");

        Assert.That(rows.Select(r => r["module"]), Is.EqualTo(FixtureFiles.Modules));
        foreach (var row in rows)
        {
            string module = row["module"];
            PdbIdentity identity = PdbFile.ReadIdentity(FixtureFiles.StrippedPdb(module));
            Assert.That(identity.Key, Is.EqualTo(row["pdb_key"]), module);
            Assert.That(identity.Guid.ToString("N").ToUpperInvariant(), Is.EqualTo(row["guid"]), module);
            Assert.That(
                Path.GetFileName(Path.GetDirectoryName(FixtureFiles.Dll(module))),
                Is.EqualTo(row["pe_key"]),
                module
            );
            Assert.That(identity.Age.ToString(CultureInfo.InvariantCulture), Is.EqualTo(row["age"]), module);
            Assert.That(
                new FileInfo(FixtureFiles.Dll(module)).Length.ToString(CultureInfo.InvariantCulture),
                Is.EqualTo(row["dll_bytes"]),
                module
            );
            Assert.That(
                Sha256(FixtureFiles.Dll(module)),
                Is.EqualTo(row["dll_sha256"]),
                $"{module}.dll is the file the oracle data describes"
            );
            Assert.That(Sha256(FixtureFiles.FullPdb(module)), Is.EqualTo(row["full_pdb_sha256"]), $"{module} full PDB");
            Assert.That(
                Sha256(FixtureFiles.StrippedPdb(module)),
                Is.EqualTo(row["stripped_pdb_sha256"]),
                $"{module} stripped PDB"
            );
        }
    }

    private static string Sha256(string path) =>
        Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(path)));
}

using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Tests.Fixtures;

/// <summary>The CAB-compressed PDB (.pd_) and the fixture build catalog.</summary>
public class CabAndCatalogTests
{
    private static string CatalogPath => Path.Combine(TestPaths.TestData, "catalog", "fixture-buildinfo.json");

    [Test]
    public void CabHeader_DescribesOneMszipStrippedPdb_InKeyFolderOfThatPdb()
    {
        (string key, string cabPath) = FixtureFiles.SingleKeyedFile(
            Path.Combine(TestPaths.TestData, "cab", "sqldk.pdb"),
            "sqldk.pd_"
        );
        string strippedPath = FixtureFiles.StrippedPdb("sqldk");
        byte[] cab = File.ReadAllBytes(cabPath);

        Assert.That(Encoding.ASCII.GetString(cab, 0, 4), Is.EqualTo("MSCF"));
        Assert.That(BinaryPrimitives.ReadUInt32LittleEndian(cab.AsSpan(8)), Is.EqualTo((uint)cab.Length), "cbCabinet");
        int filesOffset = BinaryPrimitives.ReadInt32LittleEndian(cab.AsSpan(16));
        Assert.That(BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(26)), Is.EqualTo(1), "cFolders");
        Assert.That(BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(28)), Is.EqualTo(1), "cFiles");
        Assert.That(
            BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(30)),
            Is.Zero,
            "flags: no reserve, single cabinet"
        );
        int dataOffset = BinaryPrimitives.ReadInt32LittleEndian(cab.AsSpan(36));
        int blockCount = BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(40));
        Assert.That(BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(42)) & 0xF, Is.EqualTo(1), "typeCompress MSZIP");

        uint fileSize = BinaryPrimitives.ReadUInt32LittleEndian(cab.AsSpan(filesOffset));
        ushort dosDate = BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(filesOffset + 10));
        int nameEnd = Array.IndexOf(cab, (byte)0, filesOffset + 16);
        Assert.That(
            Encoding.ASCII.GetString(cab, filesOffset + 16, nameEnd - filesOffset - 16),
            Is.EqualTo("sqldk.pdb")
        );
        Assert.That(fileSize, Is.EqualTo((uint)new FileInfo(strippedPath).Length));
        Assert.That(
            dosDate,
            Is.EqualTo(((2000 - 1980) << 9) | (1 << 5) | 1),
            "fixed file date 2000-01-01 keeps the CAB reproducible"
        );
        Assert.That(key, Is.EqualTo(Path.GetFileName(Path.GetDirectoryName(strippedPath))));

        long uncompressed = 0;
        int pos = dataOffset;
        for (int i = 0; i < blockCount; i++)
        {
            int compressed = BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(pos + 4));
            uncompressed += BinaryPrimitives.ReadUInt16LittleEndian(cab.AsSpan(pos + 6));
            Assert.That(Encoding.ASCII.GetString(cab, pos + 8, 2), Is.EqualTo("CK"), $"MSZIP block {i} signature");
            pos += 8 + compressed;
        }

        Assert.That(pos, Is.EqualTo(cab.Length), "the CFDATA blocks fill the cabinet");
        Assert.That(uncompressed, Is.EqualTo(fileSize));
    }

    [Test]
    public void CabMember_HashRecordedAtBuild_MatchesStrippedPdb()
    {
        var row = FixtureFiles.ReadExpected("cab.tsv").Single();
        byte[] stripped = File.ReadAllBytes(FixtureFiles.StrippedPdb("sqldk"));

        Assert.That(row["member"], Is.EqualTo("sqldk.pdb"));
        Assert.That(
            row["member_sha256"],
            Is.EqualTo(Convert.ToHexStringLower(SHA256.HashData(stripped))),
            "build.sh expands the .pd_ with gcab (and cabextract) and records the hash of what came out"
        );
        Assert.That(File.Exists(Path.Combine(TestPaths.RepoRoot, row["cab"])), Is.True);
    }

    [Test]
    public void Catalog_HasOneLineInBuildInfoFormat_ForFictitiousBuild()
    {
        string[] lines = File.ReadAllLines(CatalogPath);
        Assert.That(lines, Has.Length.EqualTo(1));

        using JsonDocument doc = JsonDocument.Parse(lines[0]);
        JsonElement root = doc.RootElement;

        Assert.That(
            root.EnumerateObject().Select(p => p.Name),
            Is.EqualTo(
                new[]
                {
                    "ProductMajorVersion",
                    "ProductLevel",
                    "Label",
                    "BuildNumber",
                    "KBInfo",
                    "SymbolDetails",
                    "MachineType",
                }
            )
        );
        Assert.That(root.GetProperty("BuildNumber").GetString(), Is.EqualTo("99.0.1000.1"));
        Assert.That(root.GetProperty("MachineType").GetString(), Is.EqualTo("x64"));
        foreach (JsonElement detail in root.GetProperty("SymbolDetails").EnumerateArray())
        {
            Assert.That(
                detail.EnumerateObject().Select(p => p.Name),
                Is.EqualTo(new[] { "PDBName", "DownloadURL", "DownloadVerified", "FileVersion" })
            );
        }
    }

    [Test]
    public void Catalog_DownloadUrls_NameTheCommittedPdbIdentities()
    {
        using JsonDocument doc = JsonDocument.Parse(File.ReadAllText(CatalogPath));
        var details = doc.RootElement.GetProperty("SymbolDetails").EnumerateArray().ToList();

        Assert.That(details.Select(d => d.GetProperty("PDBName").GetString()), Is.EqualTo(FixtureFiles.Modules));
        foreach (JsonElement detail in details)
        {
            string name = detail.GetProperty("PDBName").GetString()!;
            Match m = Regex.Match(
                detail.GetProperty("DownloadURL").GetString()!,
                @"^https://msdl\.microsoft\.com/download/symbols/(?<pdb>[^/]+)/(?<key>[0-9a-f]{33,40})/(?<file>[^/]+)$"
            );
            Assert.That(m.Success, Is.True, $"{name}: msdl URL with a lower-case key, as in sqlbuildinfo.json");
            Assert.That(m.Groups["pdb"].Value, Is.EqualTo(name + ".pdb"));
            Assert.That(m.Groups["file"].Value, Is.EqualTo(name + ".pdb"));
            string committedKey = Path.GetFileName(Path.GetDirectoryName(FixtureFiles.StrippedPdb(name)))!;
            Assert.That(m.Groups["key"].Value, Is.EqualTo(committedKey).IgnoreCase);
        }
    }

    [Test]
    public void Catalog_UsesSamePropertyNamesAsRealCatalog()
    {
        string real = TestPaths.RequireVector("buildinfo", "sqlbuildinfo.json");
        using JsonDocument expected = JsonDocument.Parse(File.ReadLines(real).First());
        using JsonDocument ours = JsonDocument.Parse(File.ReadAllText(CatalogPath));

        Assert.That(
            ours.RootElement.EnumerateObject().Select(p => p.Name),
            Is.EqualTo(expected.RootElement.EnumerateObject().Select(p => p.Name))
        );
        Assert.That(
            ours.RootElement.GetProperty("SymbolDetails")[0].EnumerateObject().Select(p => p.Name),
            Is.EqualTo(expected.RootElement.GetProperty("SymbolDetails")[0].EnumerateObject().Select(p => p.Name))
        );
    }
}

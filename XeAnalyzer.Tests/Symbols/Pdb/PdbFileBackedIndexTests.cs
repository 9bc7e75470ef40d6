using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Fixtures;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// The index that leaves public names in the file (<see cref="PdbFile.GetFileBackedSymbolIndex"/>, what the resolver
/// uses) answers exactly as the in-memory index of <see cref="PdbFile.GetSymbolIndex"/>, needs the file open, and a
/// file damaged after loading makes frames unresolved with a reason instead of throwing.
/// </summary>
public class PdbFileBackedIndexTests
{
    private static IEnumerable<TestCaseData> Pdbs() =>
        FixtureFiles
            .Modules.SelectMany(m =>
                new[]
                {
                    new TestCaseData(FixtureFiles.StrippedPdb(m)).SetArgDisplayNames(m, "stripped"),
                    new TestCaseData(FixtureFiles.FullPdb(m)).SetArgDisplayNames(m, "full"),
                }
            )
            .Append(new TestCaseData(TinyFixture.Pdb("publics")).SetArgDisplayNames("tiny", "publics"));

    [TestCaseSource(nameof(Pdbs))]
    public void FileBackedIndex_AnswersAsTheInMemoryIndex_AtEveryRvaOfTheImage(string path)
    {
        using PdbFile pdb = PdbFile.Open(path);
        PdbSymbolIndex memory = pdb.GetSymbolIndex();
        PdbSymbolIndex file = pdb.GetFileBackedSymbolIndex();
        Assert.That(file, Is.Not.SameAs(memory));
        Assert.That(file.PublicCount, Is.EqualTo(memory.PublicCount).And.GreaterThan(0));
        Assert.That(file.ProcedureCount, Is.EqualTo(memory.ProcedureCount));
        uint end = pdb.Sections.Max(s => s.VirtualAddress + Math.Max(s.VirtualSize, s.SizeOfRawData));
        int found = 0;
        for (uint rva = 0; rva < end; rva += 3)
        {
            PdbSymbolMatch? a = memory.Lookup(rva),
                b = file.Lookup(rva);
            Assert.That(b?.ToString(), Is.EqualTo(a?.ToString()), $"0x{rva:X}");
            if (a is not null)
            {
                found++;
                Assert.That(b!.Kind, Is.EqualTo(a.Kind), $"0x{rva:X}");
                Assert.That(b.SymbolRva, Is.EqualTo(a.SymbolRva), $"0x{rva:X}");
                Assert.That(b.Decoration, Is.EqualTo(a.Decoration), $"0x{rva:X}");
                Assert.That(b.TiedNames, Is.EqualTo(a.TiedNames), $"0x{rva:X}");
            }
        }

        Assert.That(found, Is.GreaterThan(100), "the sweep lands in symbols");
        Assert.That(pdb.GetFileBackedSymbolIndex(), Is.SameAs(file), "built once");
    }

    [Test]
    public void FileBackedIndex_ThrowsObjectDisposed_AfterTheFileIsClosed_WhileTheInMemoryIndexKeepsWorking()
    {
        PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("publics"));
        PdbSymbolIndex memory = pdb.GetSymbolIndex();
        PdbSymbolIndex file = pdb.GetFileBackedSymbolIndex();
        string expected = memory.Lookup(0x11D9)!.ToString();
        Assert.That(file.Lookup(0x11D9)!.ToString(), Is.EqualTo(expected));
        pdb.Dispose();
        Assert.That(memory.Lookup(0x11D9)!.ToString(), Is.EqualTo(expected));
        Assert.Throws<ObjectDisposedException>(() => file.Lookup(0x11D9));
    }

    [Test]
    public void Resolver_PdbTruncatedAfterLoading_LeavesFramesUnresolvedAsDamaged()
    {
        string dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-tests-" + Guid.NewGuid().ToString("N"));
        try
        {
            foreach (string file in Directory.EnumerateFiles(TestPaths.SymbolsCache, "*", SearchOption.AllDirectories))
            {
                string target = Path.Combine(dir, Path.GetRelativePath(TestPaths.SymbolsCache, file));
                Directory.CreateDirectory(Path.GetDirectoryName(target)!);
                File.Copy(file, target);
            }

            using CallstackResolver resolver = ResolutionFixtures.Resolver(symbolPath: dir);
            ResolverSession session = resolver.CreateSession();
            var rows = FixtureFiles
                .ReadExpected("sqlmin.symbolizer.tsv")
                .Where(r => r["pdb"] == "stripped" && r["function_no_demangle"].Length > 0)
                .ToList();
            ModuleName sqlmin = ModuleName.Create("sqlmin.dll");
            FrameResolution first = session.ResolveModuleOffset(sqlmin, (ulong)FixtureFiles.Hex(rows[0]["rva"]));
            Assert.That(first.Status, Is.EqualTo(FrameResolutionStatus.ResolvedOffline), first.ReasonText);

            string pdb = Directory.GetFiles(dir, "sqlmin.pdb", SearchOption.AllDirectories).Single(File.Exists);
            using (
                var stream = new FileStream(
                    pdb,
                    FileMode.Open,
                    FileAccess.Write,
                    FileShare.ReadWrite | FileShare.Delete
                )
            )
            {
                stream.SetLength(4096);
            }

            FrameResolution later = session.ResolveModuleOffset(sqlmin, (ulong)FixtureFiles.Hex(rows[^1]["rva"]));
            Assert.That(later.Status, Is.EqualTo(FrameResolutionStatus.Unresolved));
            Assert.That(later.Reason, Is.EqualTo(UnresolvedReason.PdbDamaged));
            Assert.That(
                later.ReasonText,
                Does.StartWith("PDB damaged: sqlmin.pdb (" + pdb + ") cannot be read: ").And.Contain("truncated PDB")
            );
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}

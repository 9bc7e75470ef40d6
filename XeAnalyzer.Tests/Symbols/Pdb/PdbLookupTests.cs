using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>RVA → symbol lookups on the tiny fixture, checked against recorded llvm-symbolizer answers and llvm-pdbutil
/// addresses.</summary>
public class PdbLookupTests
{
    [TestCase("publics")]
    [TestCase("stripped")]
    public void Lookup_AgreesWithSymbolizer_OnPublicsOnlyPdb(string flavor)
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));
        foreach ((uint rva, string function) in TinyFixture.Symbolizer(flavor))
        {
            PdbSymbolMatch? m = pdb.Lookup(rva);
            if (function.Length == 0)
            {
                Assert.That(m, Is.Null, $"0x{rva:X}: llvm-symbolizer found nothing");
                continue;
            }

            Assert.That(m, Is.Not.Null, $"0x{rva:X}");
            Assert.That(m!.Kind, Is.EqualTo(PdbSymbolKind.Public), $"0x{rva:X}");
            Assert.That(m.TiedNames, Does.Contain(function), $"0x{rva:X}");
            (string _, int seg, uint off, string _) = oracle.Publics.Single(p => p.Name == function);
            Assert.That(m.SymbolRva, Is.EqualTo(oracle.Rva(seg, off)), $"0x{rva:X}");
            Assert.That(m.Displacement, Is.EqualTo(rva - oracle.Rva(seg, off)), $"0x{rva:X}");
        }
    }

    [Test]
    public void Lookup_AgreesWithSymbolizer_OnFullPdb()
    {
        PdbUtilDump oracle = TinyFixture.PdbUtil("full");
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        foreach ((uint rva, string function) in TinyFixture.Symbolizer("full"))
        {
            PdbSymbolMatch? m = pdb.Lookup(rva);
            if (function.Length == 0)
            {
                Assert.That(m, Is.Null, $"0x{rva:X}: llvm-symbolizer found nothing");
                continue;
            }

            Assert.That(m, Is.Not.Null, $"0x{rva:X}");

            // llvm-symbolizer names a function either by its procedure name (statics) or by the public at the same
            // address.
            var containing = oracle
                .Procedures.Where(p =>
                    oracle.Rva(p.Segment, p.Offset) <= rva && rva < oracle.Rva(p.Segment, p.Offset) + p.Size
                )
                .ToList();
            if (containing.Count > 0)
            {
                Assert.That(m!.Kind, Is.EqualTo(PdbSymbolKind.Procedure), $"0x{rva:X}");
                uint start = containing.Max(p => oracle.Rva(p.Segment, p.Offset));
                Assert.That(m.SymbolRva, Is.EqualTo(start), $"0x{rva:X}");
                Assert.That(m.Displacement, Is.EqualTo(rva - start), $"0x{rva:X}");
                bool namedByProcedure = m.TiedNames.Contains(function);
                bool namedByPublicHere = oracle.Publics.Any(p =>
                    p.Name == function && oracle.Rva(p.Segment, p.Offset) == start
                );
                Assert.That(
                    namedByProcedure || namedByPublicHere,
                    Is.True,
                    $"0x{rva:X}: llvm-symbolizer says {function}, we say {m}"
                );
            }
            else
            {
                Assert.That(m!.Kind, Is.EqualTo(PdbSymbolKind.Public), $"0x{rva:X}");
                Assert.That(m.TiedNames, Does.Contain(function), $"0x{rva:X}");
                (string _, int seg, uint off, string _) = oracle.Publics.Single(p => p.Name == function);
                Assert.That(m.Displacement, Is.EqualTo(rva - oracle.Rva(seg, off)), $"0x{rva:X}");
            }
        }
    }

    [TestCase("full")]
    [TestCase("publics")]
    [TestCase("stripped")]
    public void Lookup_MatchesBruteForceModelOfPdbUtilData_ForEveryRvaOfTheImage(string flavor)
    {
        // A linear-scan model of the documented rule over llvm-pdbutil's symbols: containing procedure with the
        // greatest start, else the nearest preceding public; ties broken by the ordinal-smallest name.
        PdbUtilDump oracle = TinyFixture.PdbUtil(flavor);
        var procs = oracle.Procedures.Select(p => (p.Name, Start: oracle.Rva(p.Segment, p.Offset), p.Size)).ToList();
        var pubs = oracle.Publics.Select(p => (p.Name, Start: oracle.Rva(p.Segment, p.Offset))).ToList();
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb(flavor));
        for (uint rva = 0; rva < 0x4100; rva++)
        {
            PdbSymbolMatch? m = pdb.Lookup(rva);
            var inside = procs.Where(p => p.Start <= rva && rva < p.Start + p.Size).ToList();
            if (inside.Count > 0)
            {
                uint start = inside.Max(p => p.Start);
                var names = inside
                    .Where(p => p.Start == start)
                    .Select(p => p.Name)
                    .Distinct()
                    .Order(StringComparer.Ordinal)
                    .ToList();
                Assert.That(
                    (m?.Kind, m?.SymbolRva, m?.TiedNames),
                    Is.EqualTo(((PdbSymbolKind?)PdbSymbolKind.Procedure, (uint?)start, names)),
                    $"0x{rva:X}"
                );
                Assert.That(m!.Name, Is.EqualTo(names[0]));
                continue;
            }

            var before = pubs.Where(p => p.Start <= rva).ToList();
            if (before.Count == 0)
            {
                Assert.That(m, Is.Null, $"0x{rva:X}");
                continue;
            }

            uint pubStart = before.Max(p => p.Start);
            var pubNames = before
                .Where(p => p.Start == pubStart)
                .Select(p => p.Name)
                .Distinct()
                .Order(StringComparer.Ordinal)
                .ToList();
            Assert.That(
                (m?.Kind, m?.SymbolRva, m?.Displacement, m?.TiedNames),
                Is.EqualTo(((PdbSymbolKind?)PdbSymbolKind.Public, (uint?)pubStart, (uint?)(rva - pubStart), pubNames)),
                $"0x{rva:X}"
            );
        }
    }

    [Test]
    public void Lookup_FoldedFunctions_PickOrdinalSmallestNameAndExposeAllTiedNames()
    {
        // llvm-pdbutil shows FoldFirst and FoldSecond (folded by /opt:icf) at the same address 0001:1664 in both PDBs.
        PdbUtilDump full = TinyFixture.PdbUtil("full");
        Assert.That(
            full.Procedures.Where(p => p.Offset == 1664 && p.Segment == 1).Select(p => p.Name),
            Is.EquivalentTo(new[] { "FoldFirst", "FoldSecond" })
        );
        uint at = full.Rva(1, 1664);

        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        PdbSymbolMatch m = pdb.Lookup(at + 0x10)!;
        Assert.That(m.Name, Is.EqualTo("FoldFirst"));
        Assert.That(m.Kind, Is.EqualTo(PdbSymbolKind.Procedure));
        Assert.That(m.TiedNames, Is.EqualTo(new[] { "FoldFirst", "FoldSecond" }));
        Assert.That(m.IsTied, Is.True);
        Assert.That(m.Displacement, Is.EqualTo(0x10u));
        Assert.That(m.Size, Is.EqualTo(full.Procedures.First(p => p.Name == "FoldFirst").Size));

        using PdbFile publics = PdbFile.Open(TinyFixture.Pdb("publics"));
        PdbSymbolMatch p = publics.Lookup(at)!;
        Assert.That(p.Name, Is.EqualTo("?FoldFirst@@YAHH@Z"));
        Assert.That(p.TiedNames, Is.EqualTo(new[] { "?FoldFirst@@YAHH@Z", "?FoldSecond@@YAHH@Z" }));
        Assert.That(p.IsDecorated, Is.True);
        Assert.That(p.Size, Is.Null);
    }

    [Test]
    public void Lookup_StaticFunction_ResolvesToItsProcedureInFullPdb_AndToPrecedingPublicWhenStripped()
    {
        PdbUtilDump full = TinyFixture.PdbUtil("full");
        var helper = full.Procedures.Single(p => p.Name == "StaticHelper");
        Assert.That(helper.Kind, Is.EqualTo("S_LPROC32"));
        uint rva = full.Rva(helper.Segment, helper.Offset) + 0x80;

        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        Assert.That(pdb.Lookup(rva)!.ToString(), Is.EqualTo("StaticHelper+0x80"));

        // Without private symbols the nearest public before it is lock_internal (0001:1808 in llvm-pdbutil).
        PdbUtilDump stripped = TinyFixture.PdbUtil("stripped");
        var lockInternal = stripped.Publics.Single(p => p.Name == "lock_internal");
        using PdbFile twin = PdbFile.Open(TinyFixture.Pdb("stripped"));
        PdbSymbolMatch m = twin.Lookup(rva)!;
        Assert.That(m.Name, Is.EqualTo("lock_internal"));
        Assert.That(m.Displacement, Is.EqualTo(rva - stripped.Rva(lockInternal.Segment, lockInternal.Offset)));
        Assert.That(m.Decoration, Is.EqualTo(PdbNameDecoration.None));
    }

    [Test]
    public void Lookup_ReturnsNull_BeforeTheFirstSymbol()
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        Assert.That(pdb.Lookup(0), Is.Null);
        Assert.That(pdb.Lookup(0x800), Is.Null);
        Assert.That(pdb.Lookup(0xFFF), Is.Null);
        Assert.That(pdb.Lookup(0x1000), Is.Not.Null);
    }

    [Test]
    public void Lookup_GivesSameAnswers_FromManyThreadsOnAFreshPdb()
    {
        uint[] rvas = Enumerable.Range(0, 0x3000).Select(i => (uint)(0x800 + i)).ToArray();
        string?[] expected;
        using (PdbFile first = PdbFile.Open(TinyFixture.Pdb("full")))
        {
            expected = rvas.Select(r => first.Lookup(r)?.ToString()).ToArray();
        }

        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        var results = new string?[8][];
        Parallel.For(
            0,
            8,
            t =>
            {
                var mine = new string?[rvas.Length];
                for (int i = 0; i < rvas.Length; i++)
                {
                    int k = (i + (t * 997)) % rvas.Length;
                    mine[k] = pdb.Lookup(rvas[k])?.ToString();
                }

                results[t] = mine;
            }
        );

        foreach (string?[] r in results)
        {
            Assert.That(r, Is.EqualTo(expected));
        }
    }

    [Test]
    public void SymbolIndex_KeepsWorkingAfterDispose_WhileUnbuiltQueriesThrowObjectDisposed()
    {
        PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        PdbSymbolIndex index = pdb.GetSymbolIndex();
        pdb.Dispose();
        Assert.That(index.Lookup(0x11D9)!.ToString(), Is.EqualTo("TinyPkg::Widget::Publish+0x1a9"));
        Assert.That(pdb.Lookup(0x11D9)!.Name, Is.EqualTo("TinyPkg::Widget::Publish"));

        PdbFile other = PdbFile.Open(TinyFixture.Pdb("full"));
        other.Dispose();
        Assert.Throws<ObjectDisposedException>(() => other.GetPublics());
    }

    [Test]
    public void GetSymbolIndex_ThrowsCanceled_AndALaterCallSucceeds()
    {
        using PdbFile pdb = PdbFile.Open(TinyFixture.Pdb("full"));
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        Assert.Throws<OperationCanceledException>(() => pdb.GetSymbolIndex(cts.Token));
        Assert.That(pdb.GetSymbolIndex().ProcedureCount, Is.EqualTo(14));
    }
}

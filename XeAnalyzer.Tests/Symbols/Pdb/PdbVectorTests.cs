using System.Reflection.PortableExecutable;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Pe;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>The real MSVC PDBs of ../shared/vectors against DIA's breakpad .sym output and (live)
/// llvm-pdbutil.</summary>
public class PdbVectorTests
{
    [Test]
    public void GetPublics_ContainsEveryDiaPublic_OfStrippedX86Pdb()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "basic32-min.pdb"));
        var ours = pdb.GetPublics().Select(p => p.Rva).ToHashSet();
        var dia = BreakpadSym.Publics(TestPaths.RequireVector("pdb", "basic32-min.old.sym"));

        Assert.That(dia, Has.Count.EqualTo(2451));
        Assert.That(dia.Where(p => !ours.Contains(p.Rva)).Select(p => $"{p.Rva:x} {p.Name}"), Is.Empty);
        Assert.That(pdb.Dbi!.IsStripped, Is.True);
        Assert.That(pdb.Dbi.Machine, Is.EqualTo(Machine.I386));
    }

    [Test]
    public void Lookup_ResolvesEveryDiaPublicAddress_ToAPublicOrProcedureStartingThere()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "basic32-min.pdb"));
        foreach (var p in BreakpadSym.Publics(TestPaths.RequireVector("pdb", "basic32-min.old.sym")))
        {
            PdbSymbolMatch? m = pdb.Lookup(p.Rva);
            Assert.That(m, Is.Not.Null, $"{p.Rva:x} {p.Name}");
            if (m!.Kind == PdbSymbolKind.Public)
            {
                Assert.That((m.SymbolRva, m.Displacement), Is.EqualTo((p.Rva, 0u)), $"{p.Rva:x} {p.Name}");
            }
        }
    }

    [Test]
    public void GetPublics_FlagsX86CallingConventionDecorations_AndKeepsThemRaw()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "basic32-min.pdb"));
        var byName = pdb.GetPublics()
            .GroupBy(p => p.Name, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => g.First(), StringComparer.Ordinal);

        // Names as llvm-pdbutil prints them for this PDB.
        Assert.That(byName["_CloseHandle@4"].Decoration, Is.EqualTo(PdbNameDecoration.CallingConvention));
        Assert.That(byName["_wcschr"].Decoration, Is.EqualTo(PdbNameDecoration.CallingConvention));
        Assert.That(byName["?meth1@A@@QAEXH@Z"].Decoration, Is.EqualTo(PdbNameDecoration.Msvc));
        Assert.That(byName["?meth1@A@@QAEXH@Z"].IsDecorated, Is.True);
        Assert.That(byName["@__security_check_cookie@4"].Decoration, Is.EqualTo(PdbNameDecoration.CallingConvention));
        Assert.That(byName["_CloseHandle@4"].IsDecorated, Is.False);
        Assert.That(
            byName["__real@3ff0000000000000"].Decoration,
            Is.EqualTo(PdbNameDecoration.None),
            "a compiler constant, not a calling convention"
        );
        Assert.That(
            pdb.GetPublics().Where(p => p.Decoration == PdbNameDecoration.None).Select(p => p.Name),
            Has.None.StartsWith("?")
        );
    }

    [Test]
    public void GetProcedures_MatchEveryDiaFunc_ByRvaAndSize_OnBlockSize1024Pdb()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "dump_syms_regtest64.pdb"));
        Assert.That(pdb.BlockSize, Is.EqualTo(1024));
        var dia = BreakpadSym.Funcs(TestPaths.RequireVector("pdb", "dump_syms_regtest64.old.sym"));
        var ours = pdb.GetProcedures();

        Assert.That(dia, Has.Count.EqualTo(246));
        Assert.That(ours.Select(p => (p.Rva, p.Size)).Order(), Is.EqualTo(dia.Select(f => (f.Rva, f.Size)).Order()));
        foreach (var f in dia)
        {
            PdbSymbolMatch m = pdb.Lookup(f.Rva + (f.Size / 2))!;
            Assert.That((m.Kind, m.SymbolRva), Is.EqualTo((PdbSymbolKind.Procedure, f.Rva)), f.Name);
        }
    }

    [Test]
    public void GetPublics_ContainEveryDiaPublic_OnBlockSize1024Pdb()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "dump_syms_regtest64.pdb"));
        var ours = pdb.GetPublics().Select(p => p.Rva).ToHashSet();
        var dia = BreakpadSym.Publics(TestPaths.RequireVector("pdb", "dump_syms_regtest64.old.sym"));
        Assert.That(dia, Is.Not.Empty);
        Assert.That(dia.Where(p => !ours.Contains(p.Rva)).Select(p => $"{p.Rva:x} {p.Name}"), Is.Empty);
    }

    [Test]
    public void GetProcedures_MatchEveryDiaFunc_OfCrashWithException()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "CrashWithException.pdb"));
        var ours = pdb.GetProcedures().Select(p => (p.Rva, p.Size)).ToHashSet();
        var dia = BreakpadSym.Funcs(TestPaths.RequireVector("pdb", "CrashWithException.pdb.sym"));
        Assert.That(dia, Is.Not.Empty);
        Assert.That(dia.Where(f => !ours.Contains((f.Rva, f.Size))).Select(f => $"{f.Rva:x} {f.Name}"), Is.Empty);
    }

    [Test]
    public void Identity_OfCrashWithExceptionPdb_MatchesTheExesLastRsds()
    {
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "CrashWithException.pdb"));
        PeImage exe = PeImage.Open(TestPaths.RequireVector("pdb", "CrashWithException.exe"));
        Assert.That(pdb.Identity, Is.EqualTo(exe.CodeView!.Identity));
        Assert.That(pdb.Identity.ToString(), Is.EqualTo("F535C5FB-2AE8-4BB8-AA20-6C30BE566C5A/1"));
    }

    [Test]
    public void Lookup_IcfTies_AgreeWithDiaOnEveryMultiNameFunc_AndExposeAllNames()
    {
        // DIA marks folded functions "FUNC m" and names one of them; breakpad also drops one leading underscore.
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", "CrashWithException.pdb"));
        var ties = BreakpadSym
            .Funcs(TestPaths.RequireVector("pdb", "CrashWithException.pdb.sym"))
            .Where(f => f.Multiple)
            .ToList();
        Assert.That(ties, Has.Count.EqualTo(5));
        foreach (var f in ties)
        {
            string dia = BreakpadSym.CutAtParameters(f.Name);
            PdbSymbolMatch m = pdb.Lookup(f.Rva)!;
            Assert.That(m.Kind, Is.EqualTo(PdbSymbolKind.Procedure), dia);
            Assert.That(m.IsTied, Is.True, dia);
            Assert.That(
                m.Name == dia || m.Name == "_" + dia,
                Is.True,
                $"DIA picked {dia}, we picked {m.Name} of {string.Join(", ", m.TiedNames)}"
            );
            Assert.That(m.TiedNames, Is.Ordered.Using((IComparer<string>)StringComparer.Ordinal));
        }

        // The pair the reference names (llvm-pdbutil: both S_GPROC32 at 0001:1832).
        Assert.That(
            pdb.Lookup(0x1728)!.TiedNames,
            Is.EqualTo(
                new[]
                {
                    "std::bad_alloc::`scalar deleting destructor'",
                    "std::bad_array_new_length::`scalar deleting destructor'",
                }
            )
        );
    }

    [Test]
    public void Lookup_IcfTies_AreTheSame_WhateverTheFileLayout()
    {
        byte[] original = File.ReadAllBytes(TestPaths.RequireVector("pdb", "CrashWithException.pdb"));
        byte[] reblocked = MsfTestFile.Read(original).Write(2048, scatter: true);
        using PdbFile a = PdbFile.Open(new MemoryRandomAccessSource(original, "a.pdb"), ownsSource: true);
        using PdbFile b = PdbFile.Open(new MemoryRandomAccessSource(reblocked, "b.pdb"), ownsSource: true);
        for (uint rva = 0x1000; rva < 0x2200; rva++)
        {
            PdbSymbolMatch? x = a.Lookup(rva);
            PdbSymbolMatch? y = b.Lookup(rva);
            Assert.That(
                (y?.Name, y?.Displacement, y?.TiedNames),
                Is.EqualTo((x?.Name, x?.Displacement, x?.TiedNames)),
                $"0x{rva:X}"
            );
        }
    }

    [TestCase("basic32-min.pdb")]
    [TestCase("dump_syms_regtest64.pdb")]
    [TestCase("CrashWithException.pdb")]
    public void Reader_MatchesLiveLlvmPdbUtil_OnVector(string vector)
    {
        string path = TestPaths.RequireVector("pdb", vector);
        PdbUtilDump oracle = PdbUtilDump.RunLive(path);
        using PdbFile pdb = PdbFile.Open(path);

        Assert.That(pdb.Sections.Select(s => (s.Name, s.VirtualSize, s.VirtualAddress)), Is.EqualTo(oracle.Sections));
        Assert.That(pdb.Dbi!.IsStripped, Is.EqualTo(oracle.Summary["Is stripped"] == "true"));
        var mappable = oracle.Publics.Where(p => p.Segment >= 1 && p.Segment <= oracle.Sections.Count).ToList();
        Assert.That(
            oracle.Publics.Count - mappable.Count,
            Is.LessThan(20),
            "only a few absolute publics lack a section"
        );
        Assert.That(
            pdb.GetPublics().Select(p => (p.Name, (int)p.Segment, p.Offset, p.Rva)).Order(),
            Is.EqualTo(mappable.Select(p => (p.Name, p.Segment, p.Offset, oracle.Rva(p.Segment, p.Offset))).Order())
        );
        Assert.That(
            pdb.GetProcedures().Select(p => (p.Name, (int)p.Segment, p.Offset, p.Size, p.ModuleIndex)),
            Is.EqualTo(oracle.Procedures.Select(p => (p.Name, p.Segment, p.Offset, p.Size, p.Module)))
        );
        Assert.That(pdb.GetModules().Select(m => m.ModuleName), Is.EqualTo(oracle.Modules.Select(m => m.Name)));
    }
}

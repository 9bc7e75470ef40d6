using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// C13 line records of a real MSVC-built private PDB against DIA: CrashWithException.pdb.sym (../shared/vectors) was
/// written by breakpad's dump_syms through DIA and holds 304 line records (address, size, line, file). Skipped when the
/// vectors are absent.
/// </summary>
public class PdbLineVectorTests
{
    private const string Pdb = "CrashWithException.pdb";

    [Test]
    public void GetLineRecords_HoldEveryDiaLineRecord_WithItsAddressSizeLineAndFile()
    {
        string sym = TestPaths.RequireVector("pdb", Pdb + ".sym");
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", Pdb));
        Dictionary<int, string> files = BreakpadSym.Files(sym);
        var dia = BreakpadSym.LineRecords(sym);
        Assert.That(dia, Has.Count.EqualTo(304));

        var ours = Enumerable
            .Range(0, pdb.GetModules().Count)
            .SelectMany(m => pdb.GetLineRecords(m))
            .Select(r => (r.Rva, r.Length, r.Line, r.File))
            .ToHashSet();
        var missing = dia.Where(d => !ours.Contains((d.Rva, d.Size, d.Line, files[d.File])))
            .Select(d => $"{d.Rva:x} {d.Size:x} {d.Line} {files[d.File]}")
            .ToList();
        TestContext.Out.WriteLine(
            $"{dia.Count - missing.Count} of {dia.Count} DIA line records found with the same address, size, line "
                + $"and file"
        );
        Assert.That(missing, Is.Empty);
    }

    [Test]
    public void GetSourceInfo_AnswersEveryDiaLineRecord_AtItsFirstAndLastByte()
    {
        string sym = TestPaths.RequireVector("pdb", Pdb + ".sym");
        using PdbFile pdb = PdbFile.Open(TestPaths.RequireVector("pdb", Pdb));
        Dictionary<int, string> files = BreakpadSym.Files(sym);
        var dia = BreakpadSym.LineRecords(sym);
        var wrong = new List<string>();
        int checkedRecords = 0;
        foreach (var d in dia.Distinct())
        {
            if (d.Size == 0)
            {
                // DIA gives a record of length 0 when a later record starts at the same address; it covers no byte, and
                // the later record's line is the answer there (checked as that record).
                Assert.That(
                    dia.Any(o => o.Rva == d.Rva && o.Size > 0),
                    Is.True,
                    $"{d.Rva:x}: a zero-length record is followed by one at the same address"
                );
                checkedRecords++;
                continue;
            }

            foreach (uint at in new[] { d.Rva, d.Rva + d.Size - 1 })
            {
                PdbSourceLocation? got = pdb.GetSourceInfo(at, includeInlineFrames: false).Location;
                if (got != new PdbSourceLocation(files[d.File], d.Line))
                {
                    wrong.Add($"0x{at:x}: DIA {files[d.File]}:{d.Line}, ours {got?.File ?? "-"}:{got?.Line}");
                }
            }

            checkedRecords++;
        }

        TestContext.Out.WriteLine(
            $"{checkedRecords - wrong.Count} of {checkedRecords} distinct DIA line records answered at both ends"
        );
        Assert.That(wrong, Is.Empty);
        Assert.That(checkedRecords, Is.EqualTo(dia.Distinct().Count()));
    }
}

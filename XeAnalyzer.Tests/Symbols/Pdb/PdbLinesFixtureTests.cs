using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// Source lines and inline frames of the clang/lld-built private PDB <c>TestData/lines/xelines.pdb</c>
/// (tools/fixtures/src/lines) against <c>llvm-symbolizer-14 --inlines</c>, whose answer for every byte of .text is
/// recorded in
/// <c>tools/fixtures/expected/xelines.symbolizer.tsv</c> by <c>tools/fixtures/build.sh</c>.
/// </summary>
/// <remarks>
/// Every frame is compared: the inline chain (depth, names, file and line of each inline frame, innermost first) and
/// the procedure's own line. llvm-symbolizer 14 reads the procedure's line table differently from DIA in one case,
/// which the test recognises from llvm-pdbutil's independent dump of the line table
/// (<c>expected/xelines.pdbutil.txt</c>) and counts separately: an address after the start of a line subsection but
/// before its first record (clang leaves inlined code at the start of a function out of the procedure's own table) has
/// no line record, so DIA and XeAnalyzer give no line; llvm-symbolizer gives the subsection's first record. Any other
/// difference fails the test.
/// </remarks>
public class PdbLinesFixtureTests
{
    private static string Dir => Path.Combine(TestPaths.TestData, "lines");

    private static string Expected(string file) =>
        Path.Combine(TestPaths.RepoRoot, "tools", "fixtures", "expected", file);

    [Test]
    public void GetSourceInfo_AgreesWithLlvmSymbolizerAndLlvmPdbutil_OnEveryByteOfText()
    {
        using PdbFile pdb = PdbFile.Open(Path.Combine(Dir, "xelines.pdb"));
        Dictionary<uint, List<(string Function, string File, int Line)>> oracle = ReadSymbolizer();
        List<Block> blocks = ReadLineBlocks();
        List<PdbutilSite> sites = ReadInlineSites();
        int llvmInlineLines = 0,
            procAgree = 0,
            procTie = 0,
            procBeforeFirst = 0,
            chainAgree = 0,
            inlineFrames = 0,
            inlineLinesPdbutil = 0,
            rangeStarts = 0,
            rangeStartsAgree = 0;
        var wrong = new List<string>();
        foreach ((uint rva, var llvm) in oracle.OrderBy(kv => kv.Key))
        {
            PdbSourceInfo ours = pdb.GetSourceInfo(rva);
            var llvmInline = llvm.Take(llvm.Count - 1).ToList();
            (string procFunction, string procFile, int procLine) = llvm[^1];

            // 1. The inline chain: depth and names, innermost first, as llvm-symbolizer gives them.
            if (!ours.InlineFrames.Select(f => f.Name).SequenceEqual(llvmInline.Select(f => f.Function)))
            {
                wrong.Add($"0x{rva:x}: chain: llvm {Describe(llvm)}; ours {Describe(ours)}");
                continue;
            }

            chainAgree++;

            // 2. Each inline frame's line: the ranges llvm-pdbutil decodes from the binary annotations (independently
            // of XeAnalyzer) at every byte; llvm-symbolizer at the first byte of each range (elsewhere LLVM 14 reports
            // the next range's line: its NativeInlineSiteSymbol::getLineOffset stops at the first annotation whose code
            // offset reaches the address).
            List<(PdbutilSite Site, PdbutilRange Range)> expected = PdbutilChain(sites, rva);
            if (expected.Count != ours.InlineFrames.Count)
            {
                wrong.Add(
                    $"0x{rva:x}: {ours.InlineFrames.Count} inline frames, llvm-pdbutil's annotations give "
                        + $"{expected.Count}"
                );
                continue;
            }

            for (int i = 0; i < expected.Count; i++)
            {
                inlineFrames++;
                PdbInlineFrame f = ours.InlineFrames[i];
                (PdbutilSite site, PdbutilRange range) = expected[expected.Count - 1 - i];
                if (
                    f.Location?.Line != site.BaseLine + range.LineOffset
                    || (range.FileChanged == false && f.Location?.File != site.BaseFile)
                )
                {
                    wrong.Add(
                        $"0x{rva:x}: inline frame {i} {f.Name} {f.Location}, llvm-pdbutil's annotations give "
                            + $"{site.BaseFile}:{site.BaseLine + range.LineOffset}"
                    );
                    continue;
                }

                inlineLinesPdbutil++;
                llvmInlineLines += f.Location == new PdbSourceLocation(llvmInline[i].File, llvmInline[i].Line) ? 1 : 0;
                if (rva == site.ProcedureRva + range.Start)
                {
                    rangeStarts++;
                    if (f.Location == new PdbSourceLocation(llvmInline[i].File, llvmInline[i].Line))
                    {
                        rangeStartsAgree++;
                    }
                    else
                    {
                        wrong.Add(
                            $"0x{rva:x}: first byte of a range of {f.Name}: llvm "
                                + $"{llvmInline[i].File}:{llvmInline[i].Line}, ours {f.Location}"
                        );
                    }
                }
            }

            // 3. The procedure's own line (and name) against llvm-symbolizer; two documented differences, recognised
            // from llvm-pdbutil's line dump.
            PdbSourceLocation? llvmLocation = procFile == "-" ? null : new PdbSourceLocation(procFile, procLine);
            string ourName = pdb.Lookup(rva)?.Name ?? "-";
            if (procFunction != "-" && procFunction != ourName)
            {
                wrong.Add($"0x{rva:x}: procedure llvm {procFunction}, ours {ourName}");
            }
            else if (ours.Location == llvmLocation)
            {
                procAgree++;
            }
            else if (ours.Location is PdbSourceLocation o && IsTieWhereLlvmTakesTheFirst(blocks, rva, procLine, o.Line))
            {
                procTie++;
            }
            else if (ours.Location is null && IsBeforeFirstRecord(blocks, rva, procLine))
            {
                procBeforeFirst++;
            }
            else
            {
                wrong.Add($"0x{rva:x}: procedure line llvm {procFile}:{procLine}, ours {ours.Location}");
            }
        }

        TestContext.Out.WriteLine(
            $"xelines.pdb, {oracle.Count} addresses (every byte of .text) against llvm-symbolizer-14 --inlines and "
                + $"llvm-pdbutil-14:"
        );
        TestContext.Out.WriteLine(
            $"  inline chains (depth and names): {chainAgree} of {oracle.Count} agree with llvm-symbolizer"
        );
        TestContext.Out.WriteLine(
            $"  inline frame lines: {inlineLinesPdbutil} of {inlineFrames} agree with llvm-pdbutil's decoded "
                + $"annotations; "
                + $"{rangeStartsAgree} of {rangeStarts} at the first byte of a range agree with llvm-symbolizer "
                + $"({llvmInlineLines} of {inlineFrames} at any byte)"
        );
        TestContext.Out.WriteLine(
            $"  procedure lines: {procAgree} agree with llvm-symbolizer; {procTie} at an address with two records "
                + $"(llvm takes the first, DIA and XeAnalyzer the last); {procBeforeFirst} before the first record of "
                + $"a line subsection (no record covers them: no line)"
        );
        Assert.That(wrong, Is.Empty);
        Assert.That(chainAgree, Is.EqualTo(oracle.Count));
        Assert.That(inlineLinesPdbutil, Is.EqualTo(inlineFrames));
        Assert.That(procAgree + procTie + procBeforeFirst, Is.EqualTo(oracle.Count));
        Assert.That(inlineFrames, Is.GreaterThan(100), "the fixture exercises inline frames");
        Assert.That(rangeStarts, Is.GreaterThan(10));
    }

    [Test]
    public void GetSourceInfo_FindsTheFunctionInlinedTwice_AtTwoSitesInOneCaller_AndOnceInAnother()
    {
        using PdbFile pdb = PdbFile.Open(Path.Combine(Dir, "xelines.pdb"));
        Dictionary<uint, List<(string Function, string File, int Line)>> oracle = ReadSymbolizer();
        var leafInMid = new HashSet<uint>();
        var leafInTop = new HashSet<uint>();
        foreach (uint rva in oracle.Keys)
        {
            PdbSourceInfo s = pdb.GetSourceInfo(rva);
            string chain = string.Join(" <- ", s.InlineFrames.Select(f => f.Name));
            if (chain == "xe::Leaf <- Mid")
            {
                leafInMid.Add(s.InlineFrames[0].BlockRva);
            }
            else if (chain == "xe::Leaf")
            {
                leafInTop.Add(s.InlineFrames[0].BlockRva);
            }
        }

        // Leaf's second site in Mid has two code blocks (a gap between them), so at least two distinct block starts
        // there.
        Assert.That(leafInMid, Has.Count.GreaterThanOrEqualTo(2), "Leaf inlined twice into Mid");
        Assert.That(leafInTop, Has.Count.EqualTo(1), "Leaf inlined once directly into Top");
        Assert.That(leafInMid.Intersect(leafInTop), Is.Empty);
    }

    [Test]
    public void GetSourceInfo_FollowsFileChanges_InsideAnInlineSite()
    {
        using PdbFile pdb = PdbFile.Open(Path.Combine(Dir, "xelines.pdb"));
        var files = new HashSet<string>();
        foreach (uint rva in ReadSymbolizer().Keys)
        {
            foreach (PdbInlineFrame f in pdb.GetSourceInfo(rva).InlineFrames.Where(f => f.Name == "xe::Split"))
            {
                files.Add(f.Location!.Value.File);
            }
        }

        Assert.That(files, Is.EquivalentTo(new[] { @"C:\src\xelines.h", @"C:\src\xelines.body.inc" }));
    }

    [Test]
    public void GetSourceInfo_WithoutInlineFrames_GivesOnlyTheProcedureLine()
    {
        using PdbFile pdb = PdbFile.Open(Path.Combine(Dir, "xelines.pdb"));
        foreach (uint rva in ReadSymbolizer().Keys)
        {
            PdbSourceInfo full = pdb.GetSourceInfo(rva);
            PdbSourceInfo lines = pdb.GetSourceInfo(rva, includeInlineFrames: false);
            Assert.That(lines.InlineFrames, Is.Empty);
            Assert.That(lines.Location, Is.EqualTo(full.Location), $"0x{rva:x}");
        }
    }

    [Test]
    public void GetSourceInfo_OfPublicOnlyPdbs_IsEmpty()
    {
        // The stripped twins of the seed modules carry no module streams.
        string store = TestPaths.SymbolsCache;
        foreach (string path in Directory.EnumerateFiles(store, "*.pdb", SearchOption.AllDirectories))
        {
            using PdbFile pdb = PdbFile.Open(path);
            Assert.That(pdb.HasLineInfo(), Is.False, path);
            for (uint rva = 0x1000; rva < 0x1400; rva += 7)
            {
                Assert.That(pdb.GetSourceInfo(rva).IsEmpty, Is.True, path);
            }
        }
    }

    private static string Describe(List<(string Function, string File, int Line)> frames) =>
        string.Join(" <- ", frames.Select(f => $"{f.Function} {f.File}:{f.Line}"));

    private static string Describe(PdbSourceInfo s) =>
        string.Join(" <- ", s.InlineFrames.Select(f => $"{f.Name} {f.Location}").Append($"(procedure) {s.Location}"));

    private static bool IsTieWhereLlvmTakesTheFirst(List<Block> blocks, uint rva, int llvmLine, int ourLine)
    {
        foreach (Block b in blocks.Where(b => rva >= b.Start && rva < b.End))
        {
            var at = b.Records.Where(r => r.Rva <= rva).ToList();
            if (at.Count == 0)
            {
                continue;
            }

            uint start = at.Max(r => r.Rva);
            var tied = b.Records.Where(r => r.Rva == start).ToList();
            if (tied.Count > 1 && tied[0].Line == llvmLine && tied[^1].Line == ourLine)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The inline sites containing <paramref name="rva"/> by llvm-pdbutil's decoded ranges, outermost
    /// first.</summary>
    private static List<(PdbutilSite Site, PdbutilRange Range)> PdbutilChain(List<PdbutilSite> sites, uint rva)
    {
        var chain = new List<(PdbutilSite, PdbutilRange)>();
        int parent = -1;
        while (true)
        {
            PdbutilSite? next = null;
            PdbutilRange? hit = null;
            foreach (PdbutilSite s in sites.Where(s => s.ParentSite == parent))
            {
                hit = s.Ranges.FirstOrDefault(r => rva >= s.ProcedureRva + r.Start && rva < s.ProcedureRva + r.End);
                if (hit is not null)
                {
                    next = s;
                    break;
                }
            }

            if (next is null)
            {
                return chain;
            }

            chain.Add((next, hit!));
            parent = next.Offset;
        }
    }

    /// <summary>
    /// The S_INLINESITE records of llvm-pdbutil's symbol dump with the code ranges its annotation decoding prints
    /// (<c>code 0xF (+0xF) line 2 (+2)</c>, <c>line 3 (+1)</c>, <c>code end 0x54 (+0x1D)</c>, <c>setfile …</c>), turned
    /// into ranges by the CodeView rule: a new code offset ends the open range and opens one with the current line; a
    /// code end closes it; a line or file change applies to the next range. Base lines and files come from the dump's
    /// inlinee-lines table.
    /// </summary>
    private static List<PdbutilSite> ReadInlineSites()
    {
        string[] lines = File.ReadAllLines(Expected("xelines.pdbutil.txt"));
        var bases = new Dictionary<string, (string File, int Line)>(StringComparer.Ordinal);
        var procedures = new Dictionary<int, (uint Rva, uint Size)>();
        var parents = new Dictionary<int, int>();
        var sites = new List<PdbutilSite>();
        for (int i = 0; i < lines.Length; i++)
        {
            Match inlinee = Regex.Match(lines[i], @"^\s+(0x[0-9A-F]+) \|\s+(\d+) \| (.*) \(MD5: [0-9A-F]+\)$");
            if (inlinee.Success)
            {
                bases[inlinee.Groups[1].Value] = (
                    inlinee.Groups[3].Value,
                    int.Parse(inlinee.Groups[2].Value, CultureInfo.InvariantCulture)
                );
                continue;
            }

            Match record = Regex.Match(lines[i], @"^\s+(\d+) \| (S_\w+) \[size = \d+\]");
            if (!record.Success)
            {
                continue;
            }

            int offset = int.Parse(record.Groups[1].Value, CultureInfo.InvariantCulture);
            string kind = record.Groups[2].Value;
            if (kind is "S_GPROC32" or "S_LPROC32")
            {
                Match m = Regex.Match(lines[i + 1], @"addr = 0001:(\d+), code size = (\d+)");
                procedures[offset] = (
                    0x1000 + uint.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture),
                    uint.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture)
                );
                continue;
            }

            Match scope = Regex.Match(lines[i + 1], @"parent = (\d+)");
            if (scope.Success)
            {
                parents[offset] = int.Parse(scope.Groups[1].Value, CultureInfo.InvariantCulture);
            }

            if (kind != "S_INLINESITE")
            {
                continue;
            }

            Match header = Regex.Match(lines[i + 1], @"inlinee = (0x[0-9A-F]+) \((\w+)\), parent = (\d+)");
            int parent = int.Parse(header.Groups[3].Value, CultureInfo.InvariantCulture);
            int procedure = parent;
            while (!procedures.ContainsKey(procedure))
            {
                procedure = parents[procedure];
            }

            (uint procRva, uint procSize) = procedures[procedure];
            var ranges = new List<PdbutilRange>();
            int line = 0;
            bool fileChanged = false;
            PdbutilRange? open = null;
            for (int k = i + 2; k < lines.Length && Regex.IsMatch(lines[k], @"^\s+[0-9A-F]{2,}\s"); k++)
            {
                string text = lines[k];
                if (text.Contains("setfile", StringComparison.Ordinal))
                {
                    fileChanged = true;
                }

                Match l = Regex.Match(text, @"line (-?\d+) \(");
                if (l.Success)
                {
                    line = int.Parse(l.Groups[1].Value, CultureInfo.InvariantCulture);
                }

                Match code = Regex.Match(text, @"(?<!end )code 0x([0-9A-F]+) \(");
                if (code.Success)
                {
                    uint at = Convert.ToUInt32(code.Groups[1].Value, 16);
                    if (open is not null)
                    {
                        ranges.Add(open with { End = at });
                    }

                    open = new PdbutilRange(at, 0, line, fileChanged);
                }

                Match end = Regex.Match(text, @"code end 0x([0-9A-F]+) \(");
                if (end.Success && open is not null)
                {
                    ranges.Add(open with { End = Convert.ToUInt32(end.Groups[1].Value, 16) });
                    open = null;
                }
            }

            if (open is not null)
            {
                ranges.Add(open with { End = procSize });
            }

            (string baseFile, int baseLine) = bases[header.Groups[1].Value];
            int parentSite = sites.Any(s => s.Offset == parent) ? parent : -1;
            sites.Add(new PdbutilSite(offset, parentSite, procRva, baseFile, baseLine, ranges));
        }

        Assert.That(sites, Has.Count.GreaterThanOrEqualTo(5), "S_INLINESITE records in llvm-pdbutil's dump");
        return sites;
    }

    private sealed record PdbutilSite(
        int Offset,
        int ParentSite,
        uint ProcedureRva,
        string BaseFile,
        int BaseLine,
        List<PdbutilRange> Ranges
    );

    private sealed record PdbutilRange(uint Start, uint End, int LineOffset, bool FileChanged);

    private static bool IsBeforeFirstRecord(List<Block> blocks, uint rva, int llvmLine)
    {
        Block? b = blocks.FirstOrDefault(b => rva >= b.Start && rva < b.End);
        return b is not null && rva < b.Records[0].Rva && llvmLine == b.Records[0].Line;
    }

    private static Dictionary<uint, List<(string Function, string File, int Line)>> ReadSymbolizer()
    {
        var result = new Dictionary<uint, List<(string, string, int)>>();
        foreach (string line in File.ReadLines(Expected("xelines.symbolizer.tsv")).Skip(1))
        {
            string[] f = line.Split('\t');
            uint rva = Convert.ToUInt32(f[0], 16);
            if (!result.TryGetValue(rva, out var frames))
            {
                result[rva] = frames = [];
            }

            Assert.That(int.Parse(f[1], CultureInfo.InvariantCulture), Is.EqualTo(frames.Count));
            frames.Add((f[2], f[3], int.Parse(f[4], CultureInfo.InvariantCulture)));
        }

        return result;
    }

    /// <summary>The line subsections of llvm-pdbutil's <c>dump -l</c>: section range and records (RVA = section 1's
    /// 0x1000 + offset).</summary>
    private static List<Block> ReadLineBlocks()
    {
        var blocks = new List<Block>();
        Block? current = null;
        bool inLines = false;
        foreach (string line in File.ReadLines(Expected("xelines.pdbutil.txt")))
        {
            if (line.Trim() == "Lines")
            {
                inLines = true;
                continue;
            }

            if (line.Trim() == "Inlinee Lines")
            {
                break;
            }

            if (!inLines)
            {
                continue;
            }

            Match m = Regex.Match(line, @"^\s+0001:([0-9A-F]{8})-([0-9A-F]{8}), line/addr entries = \d+");
            if (m.Success)
            {
                current = new Block(
                    0x1000 + Convert.ToUInt32(m.Groups[1].Value, 16),
                    0x1000 + Convert.ToUInt32(m.Groups[2].Value, 16),
                    []
                );
                blocks.Add(current);
                continue;
            }

            if (current is not null)
            {
                foreach (Match e in Regex.Matches(line, @"(\d+) ([0-9A-F]{8})"))
                {
                    current.Records.Add(
                        (
                            0x1000 + Convert.ToUInt32(e.Groups[2].Value, 16),
                            int.Parse(e.Groups[1].Value, CultureInfo.InvariantCulture)
                        )
                    );
                }
            }
        }

        Assert.That(blocks, Is.Not.Empty, "llvm-pdbutil's line dump");
        return blocks;
    }

    private sealed record Block(uint Start, uint End, List<(uint Rva, int Line)> Records);
}

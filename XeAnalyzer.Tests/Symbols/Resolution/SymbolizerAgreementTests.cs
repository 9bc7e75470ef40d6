using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Fixtures;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Resolves every probe RVA that llvm-symbolizer-14 answered for the fixture modules
/// (tools/fixtures/expected/&lt;m&gt;.symbolizer.tsv) and compares: procedures (full PDB) by llvm's short function
/// name; publics by the decorated name llvm chose, whose DIA name-only form is the manifest's name for that decorated
/// name; displacements against the symbol starts llvm-pdbutil listed (&lt;m&gt;.functions.tsv); RVAs llvm could not
/// name are "before the first symbol".
/// </summary>
public class SymbolizerAgreementTests
{
    private static IEnumerable<TestCaseData> Cases() =>
        FixtureFiles.Modules.SelectMany(m =>
            new[] { true, false }.Select(full =>
                new TestCaseData(m, full).SetArgDisplayNames(m, full ? "full" : "stripped")
            )
        );

    [TestCaseSource(nameof(Cases))]
    public void Resolve_AgreesWithLlvmSymbolizer_OnEveryProbe(string module, bool full)
    {
        string pdb = full ? "full" : "stripped";
        var rows = FixtureFiles.ReadExpected(module + ".symbolizer.tsv").Where(r => r["pdb"] == pdb).ToList();
        var functions = FixtureFiles.ReadExpected(module + ".functions.tsv").Where(r => r["pdb"] == pdb).ToList();
        var manifest = FixtureFiles.ReadExpected("manifest.tsv").Where(r => r["module"] == module).ToList();
        Assert.That(rows, Has.Count.GreaterThan(20), "the symbolizer answers are recorded");

        using CallstackResolver resolver = ResolutionFixtures.Resolver(fullPdbs: full);
        ResolverSession session = resolver.CreateSession();
        ModuleName dll = ModuleName.Create(module + ".dll");
        int procedures = 0,
            publics = 0,
            before = 0;
        foreach (var row in rows)
        {
            long rva = FixtureFiles.Hex(row["rva"]);
            string context = $"{module} {pdb} {row["rva"]} ({row["probe"]})";
            FrameResolution r = session.ResolveModuleOffset(dll, (ulong)rva);
            if (row["function"].Length == 0)
            {
                before++;
                Assert.That(r.Status, Is.EqualTo(FrameResolutionStatus.Unresolved), context);
                Assert.That(r.Reason, Is.EqualTo(UnresolvedReason.BeforeFirstSymbol), context);
                Assert.That(
                    r.ReasonText,
                    Is.EqualTo($"RVA {row["rva"]} before the first symbol of {module}.pdb"),
                    context
                );
                continue;
            }

            Assert.That(r.Status, Is.EqualTo(FrameResolutionStatus.ResolvedOffline), context + ": " + r.ReasonText);
            Assert.That(r.IsVerified, Is.True, context);
            string[] expectedNames;
            long start;
            if (row["function_short"].Length > 0)
            {
                procedures++;
                var containing = functions
                    .Where(f =>
                        f["kind"] is "proc" or "lproc"
                        && FixtureFiles.Hex(f["rva"]) <= rva
                        && rva < FixtureFiles.Hex(f["rva"]) + FixtureFiles.Hex(f["size"])
                    )
                    .ToList();
                Assert.That(
                    containing.Select(f => f["name"]),
                    Does.Contain(row["function_short"]),
                    context + ": llvm-pdbutil lists the procedure llvm-symbolizer named"
                );
                start = containing.Max(f => FixtureFiles.Hex(f["rva"]));
                expectedNames = containing
                    .Where(f => FixtureFiles.Hex(f["rva"]) == start)
                    .Select(f => f["name"])
                    .Distinct()
                    .ToArray();
            }
            else
            {
                publics++;
                var chosen = functions.Single(f => f["kind"] == "public" && f["name"] == row["function_no_demangle"]);
                start = FixtureFiles.Hex(chosen["rva"]);
                var decoratedAtStart = functions
                    .Where(f => f["kind"] == "public" && FixtureFiles.Hex(f["rva"]) == start)
                    .Select(f => f["name"])
                    .ToHashSet(StringComparer.Ordinal);
                expectedNames = manifest
                    .Where(m => decoratedAtStart.Contains(m["decorated"]))
                    .Select(m => m["name"])
                    .Distinct()
                    .ToArray();
                Assert.That(expectedNames, Is.Not.Empty, context + ": the manifest names the public");
            }

            if (expectedNames.Length == 1)
            {
                Assert.That(r.Function, Is.EqualTo(expectedNames[0]), context);
                Assert.That(r.TiedNames, Is.Empty, context);
                Assert.That(
                    r.Text,
                    Is.EqualTo($"{module}.dll!{expectedNames[0]}+{ResolutionFixtures.Hex(rva - start)}"),
                    context
                );
            }
            else
            {
                // Identical-code folding: one address, several names; DIA's pick is undocumented, so any of them, with
                // all listed.
                Assert.That(expectedNames, Does.Contain(r.Function), context);
                Assert.That(r.TiedNames, Is.EquivalentTo(expectedNames), context);
            }

            Assert.That(r.Displacement, Is.EqualTo((ulong)(rva - start)), context);
            Assert.That(r.Rva, Is.EqualTo((ulong)rva), context);
        }

        Assert.That(before, Is.GreaterThan(0), "RVAs before the first symbol are probed");
        Assert.That(publics, Is.GreaterThan(0), "publics are probed");
        if (full)
        {
            Assert.That(procedures, Is.GreaterThan(publics), "with the full PDB most probes land in procedures");
        }
        else
        {
            Assert.That(procedures, Is.Zero, "the stripped PDB has no procedures");
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void Resolve_OrdinalOnlyExports_AgreeWithTheSymbolizerAtTheExportRva(string module, bool full)
    {
        string pdb = full ? "full" : "stripped";
        var probes = FixtureFiles
            .ReadExpected(module + ".symbolizer.tsv")
            .Where(r => r["pdb"] == pdb && r["probe"].StartsWith("ordinal-only export ", StringComparison.Ordinal))
            .ToList();
        Assert.That(probes, Is.Not.Empty);
        using CallstackResolver resolver = ResolutionFixtures.Resolver(
            fullPdbs: full,
            binaries: ModuleBinaries.Scan([TestPaths.SymbolsCache])
        );
        ResolverSession session = resolver.CreateSession();
        foreach (var row in probes)
        {
            // "ordinal-only export 5 +0x20": the frame sqlmin.dll!Ordinal5+0x20 is the probe RVA (export RVA + 0x20 per
            // llvm-readobj).
            string[] parts = row["probe"]["ordinal-only export ".Length..].Split(' ');
            var frame = new OrdinalFrame(
                ModuleName.Create(module + ".dll"),
                int.Parse(parts[0], System.Globalization.CultureInfo.InvariantCulture),
                (ulong)FixtureFiles.Hex(parts[1][1..]),
                $"{module}.dll!Ordinal{parts[0]}{parts[1]}"
            );
            FrameResolution viaOrdinal = session.ResolveFrame(frame);
            FrameResolution viaRva = session.ResolveModuleOffset(
                ModuleName.Create(module + ".dll"),
                (ulong)FixtureFiles.Hex(row["rva"])
            );
            Assert.That(
                viaOrdinal.Status,
                Is.EqualTo(FrameResolutionStatus.ResolvedOffline),
                row["probe"] + ": " + viaOrdinal.ReasonText
            );
            Assert.That(viaOrdinal.Rva, Is.EqualTo((ulong)FixtureFiles.Hex(row["rva"])), row["probe"]);
            Assert.That(viaOrdinal.Text, Is.EqualTo(viaRva.Text), row["probe"]);
        }
    }
}

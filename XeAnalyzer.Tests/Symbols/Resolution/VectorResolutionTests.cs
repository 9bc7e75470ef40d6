using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Real MSVC x64 images and PDBs from the shared vectors, resolved through the image's RSDS identity and compared with
/// a live llvm-symbolizer-14 run (function names) and with the DIA-made breakpad .sym files (function starts, so
/// displacements). Ignored when the vectors or llvm-14 are absent.
/// </summary>
public class VectorResolutionTests
{
    [TestCase("dump_syms_regtest64.exe", "dump_syms_regtest64.old.sym")]
    [TestCase("CrashWithException.exe", "CrashWithException.pdb.sym")]
    public void Resolve_EveryDiaFunction_AgreesWithLiveLlvmSymbolizer(string exe, string sym)
    {
        string exePath = TestPaths.RequireVector("pdb", exe);
        string symPath = TestPaths.RequireVector("pdb", sym);
        string symbolizer = LlvmTools.Require("llvm-symbolizer-14");
        string folder = Path.GetDirectoryName(exePath)!;

        // FUNC [m] <rva> <size> <params> <name>: probe one byte into each function (a return address is never a
        // function's first byte).
        var funcs = File.ReadLines(symPath)
            .Where(l => l.StartsWith("FUNC ", StringComparison.Ordinal))
            .Select(l =>
            {
                string[] p = l.Split(' ');
                int i = p[1] == "m" ? 2 : 1;
                uint start = uint.Parse(p[i], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
                uint size = uint.Parse(p[i + 1], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
                return (Start: start, Probe: start + (size > 1 ? 1u : 0u));
            })
            .ToList();
        Assert.That(funcs, Has.Count.GreaterThan(50));

        string json = LlvmTools.Run(
            symbolizer,
            folder,
            [
                $"--obj={exe}",
                "--relative-address",
                "--functions=short",
                "--output-style=JSON",
                .. funcs.Select(f => "0x" + f.Probe.ToString("x", CultureInfo.InvariantCulture)),
            ]
        );
        var llvmNames = new List<string>();
        foreach (string line in json.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            using JsonDocument doc = JsonDocument.Parse(line);
            foreach (
                JsonElement answer in doc.RootElement.ValueKind == JsonValueKind.Array
                    ? doc.RootElement.EnumerateArray()
                    : Enumerable.Repeat(doc.RootElement, 1)
            )
            {
                // With inlining, the last entry is the function that holds the code (what DIA and the resolver name).
                llvmNames.Add(
                    answer.GetProperty("Symbol").EnumerateArray().Last().GetProperty("FunctionName").GetString()!
                );
            }
        }

        Assert.That(llvmNames, Has.Count.EqualTo(funcs.Count));
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(folder),
                Offline = true,
                Binaries = ModuleBinaries.Scan([exePath]),
            }
        );
        ResolverSession session = resolver.CreateSession();
        ModuleName module = ModuleName.Create(exe);
        var differences = new List<string>();
        for (int i = 0; i < funcs.Count; i++)
        {
            FrameResolution r = session.ResolveModuleOffset(module, funcs[i].Probe);
            Assert.That(r.Status, Is.EqualTo(FrameResolutionStatus.ResolvedOffline), r.ReasonText);
            Assert.That(r.IsVerified, Is.True, "identity from the image's RSDS record");
            bool same = r.Function == llvmNames[i] || r.TiedNames.Contains(llvmNames[i]);
            if (!same)
            {
                differences.Add($"0x{funcs[i].Probe:x}: ours '{r.Function}', llvm '{llvmNames[i]}'");
            }
            else if (r.TiedNames.Count == 0)
            {
                Assert.That(
                    r.Displacement,
                    Is.EqualTo((ulong)(funcs[i].Probe - funcs[i].Start)),
                    $"0x{funcs[i].Probe:x} {r.Function}"
                );
                Assert.That(r.Text, Is.EqualTo($"{exe}!{llvmNames[i]}+0x{funcs[i].Probe - funcs[i].Start:x}"));
            }
        }

        Assert.That(differences, Is.Empty, string.Join("\n", differences));
    }
}

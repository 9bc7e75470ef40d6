// Measures opening a PDB and answering the first lookup (cold, in a fresh process), using the library's
// PdbPerformanceProbe. dotnet run tools/bigpdb/measure.cs -- <file.pdb> [rva-hex]
// Make a ~50 MB publics-only PDB first with tools/bigpdb/make.sh.
#:project ../../XeAnalyzer/XeAnalyzer.csproj
#:property PublishAot=false
using System.Globalization;
using XeAnalyzer.Symbols.Pdb;

string path = args[0];
uint rva = args.Length > 1 ? uint.Parse(args[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture) : 0x12345;
PdbProbeResult r = PdbPerformanceProbe.OpenAndLookup(path, rva);
Console.WriteLine(
    string.Create(
        CultureInfo.InvariantCulture,
        $"{path}: {r.FileBytes / 1048576.0:F1} MB, {r.PublicCount} publics, {r.ProcedureCount} procedures; open "
            + $"{r.Open.TotalMilliseconds:F0} ms, index {r.IndexBuild.TotalMilliseconds:F0} ms, first lookup "
            + $"{r.FirstLookup.TotalMilliseconds:F3} ms, total {r.Total.TotalMilliseconds:F0} ms, allocated "
            + $"{r.AllocatedBytes / 1048576.0:F0} MB; 0x{rva:X} -> {r.Symbol ?? "(unresolved)"}"
    )
);

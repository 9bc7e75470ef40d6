using System.Diagnostics;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>What <see cref="PdbPerformanceProbe.OpenAndLookup"/> measured.</summary>
/// <param name="FileBytes">Size of the PDB file.</param>
/// <param name="Open">Time to open the PDB (superblock, directory, info stream, DBI header, section headers).</param>
/// <param name="IndexBuild">Time to read publics and module streams and build the sorted index.</param>
/// <param name="FirstLookup">Time of the first lookup on the built index.</param>
/// <param name="AllocatedBytes">Bytes allocated by the calling thread during the whole probe.</param>
/// <param name="PublicCount">Publics indexed.</param>
/// <param name="ProcedureCount">Procedures indexed.</param>
/// <param name="Symbol">The lookup's answer (<c>name+0xdisp</c>), or <see langword="null"/>.</param>
internal sealed record PdbProbeResult(
    long FileBytes,
    TimeSpan Open,
    TimeSpan IndexBuild,
    TimeSpan FirstLookup,
    long AllocatedBytes,
    int PublicCount,
    int ProcedureCount,
    string? Symbol
)
{
    /// <summary>Open + index build + first lookup: the cold cost of resolving the first frame against this
    /// PDB.</summary>
    public TimeSpan Total => Open + IndexBuild + FirstLookup;
}

/// <summary>
/// A timing entry point for benchmarks and manual measurements (not used by the library itself): opens a PDB cold,
/// builds its symbol index and answers one lookup, timing each step.
/// </summary>
internal static class PdbPerformanceProbe
{
    /// <summary>Opens <paramref name="path"/>, builds the index, looks up <paramref name="rva"/>, and reports the time
    /// of each step.</summary>
    /// <param name="path">The PDB to open.</param>
    /// <param name="rva">The RVA to look up.</param>
    /// <returns>The timings and counts.</returns>
    /// <exception cref="InvalidPdbDataException">The PDB is damaged.</exception>
    public static PdbProbeResult OpenAndLookup(string path, uint rva)
    {
        long allocated = GC.GetAllocatedBytesForCurrentThread();
        long t0 = Stopwatch.GetTimestamp();
        using PdbFile pdb = PdbFile.Open(path);
        long t1 = Stopwatch.GetTimestamp();
        PdbSymbolIndex index = pdb.GetSymbolIndex();
        long t2 = Stopwatch.GetTimestamp();
        PdbSymbolMatch? match = index.Lookup(rva);
        long t3 = Stopwatch.GetTimestamp();
        return new PdbProbeResult(
            new FileInfo(path).Length,
            Stopwatch.GetElapsedTime(t0, t1),
            Stopwatch.GetElapsedTime(t1, t2),
            Stopwatch.GetElapsedTime(t2, t3),
            GC.GetAllocatedBytesForCurrentThread() - allocated,
            index.PublicCount,
            index.ProcedureCount,
            match?.ToString()
        );
    }
}

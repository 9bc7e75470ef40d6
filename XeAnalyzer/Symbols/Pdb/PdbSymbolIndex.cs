namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// A sorted RVA → symbol index over one PDB's procedures and publics, built once by <see cref="PdbFile.GetSymbolIndex"/>.
/// Immutable and safe for concurrent lookups; it holds no file handle, so it keeps working after the <see cref="PdbFile"/> is disposed.
/// </summary>
/// <remarks>
/// <para><b>Lookup rule.</b> A procedure whose code range [start, start + size) contains the RVA wins (private PDBs, and the few
/// procedures stripped PDBs keep); when several do (nested or folded code), the one with the greatest start. Otherwise the nearest
/// public at or before the RVA, with no length bound (publics have no size), across sections, as <c>llvm-symbolizer</c> does. An RVA
/// before the first symbol is unresolved.</para>
/// <para><b>Ties</b> (identical-code folding puts several names at one address): procedures beat publics; among names of the chosen
/// kind at the chosen start, the ordinal-smallest name (byte-wise on the stored UTF-8 name) wins. All distinct tied names are returned
/// in <see cref="PdbSymbolMatch.TiedNames"/>. Which name DIA picks is not documented; <c>llvm-symbolizer</c> may pick another.</para>
/// <para><b>OMAP.</b> The RVA is first mapped to the source (pre-reordering) address space, where sizes and displacements are
/// meaningful; <see cref="PdbSymbolMatch.SymbolRva"/> is the symbol's start mapped back to the image.</para>
/// </remarks>
public sealed class PdbSymbolIndex
{
    private readonly PdbAddressMap _map;
    private readonly PdbSymbolTable _procedures;
    private readonly PdbSymbolTable _publics;

    // Procedures sorted by source start: start, exclusive end, running maximum of ends (to rule out containment fast), table index.
    private readonly uint[] _procStart;
    private readonly ulong[] _procEnd;
    private readonly ulong[] _procMaxEnd;
    private readonly int[] _procItem;

    // Publics sorted by source start.
    private readonly uint[] _pubStart;
    private readonly int[] _pubItem;

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    internal PdbSymbolIndex(PdbAddressMap map, PdbSymbolTable procedures, PdbSymbolTable publics)
    {
        _map = map;
        _procedures = procedures;
        _publics = publics;

        RawSymbol[] procs = procedures.Items;
        _procStart = new uint[procs.Length];
        _procItem = new int[procs.Length];
        for (int i = 0; i < procs.Length; i++)
        {
            _procStart[i] = procs[i].SourceRva;
            _procItem[i] = i;
        }

        Array.Sort(_procStart, _procItem);
        _procEnd = new ulong[procs.Length];
        _procMaxEnd = new ulong[procs.Length];
        ulong max = 0;
        for (int i = 0; i < procs.Length; i++)
        {
            RawSymbol p = procs[_procItem[i]];
            _procEnd[i] = (ulong)p.SourceRva + p.Size;
            max = Math.Max(max, _procEnd[i]);
            _procMaxEnd[i] = max;
        }

        RawSymbol[] pubs = publics.Items;
        _pubStart = new uint[pubs.Length];
        _pubItem = new int[pubs.Length];
        for (int i = 0; i < pubs.Length; i++)
        {
            _pubStart[i] = pubs[i].SourceRva;
            _pubItem[i] = i;
        }

        Array.Sort(_pubStart, _pubItem);
    }

    /// <summary>The number of procedures indexed.</summary>
    public int ProcedureCount => _procStart.Length;

    /// <summary>The number of publics indexed.</summary>
    public int PublicCount => _pubStart.Length;

    /// <summary>Finds the symbol containing or nearest before <paramref name="rva"/> (see the remarks on <see cref="PdbSymbolIndex"/>).</summary>
    /// <param name="rva">An image RVA (address minus module base).</param>
    /// <returns>The match, or <see langword="null"/> when the RVA precedes every symbol or falls in an OMAP hole.</returns>
    public PdbSymbolMatch? Lookup(uint rva)
    {
        if (!_map.TryImageToSource(rva, out uint source))
        {
            return null;
        }

        return LookupProcedure(source) ?? LookupPublic(source);
    }

    private PdbSymbolMatch? LookupProcedure(uint source)
    {
        int last = UpperBound(_procStart, source) - 1;
        if (last < 0 || _procMaxEnd[last] <= source)
        {
            return null;
        }

        // Walk back to the containing procedure with the greatest start; the running maximum of ends stops the walk early.
        for (int i = last; i >= 0 && _procMaxEnd[i] > source; i--)
        {
            if (_procEnd[i] <= source)
            {
                continue;
            }

            uint start = _procStart[i];
            var tied = new List<int>();
            for (int j = i; j >= 0 && _procStart[j] == start; j--)
            {
                if (_procEnd[j] > source)
                {
                    tied.Add(_procItem[j]);
                }
            }

            return Build(_procedures, tied, source, PdbSymbolKind.Procedure);
        }

        return null;
    }

    private PdbSymbolMatch? LookupPublic(uint source)
    {
        int last = UpperBound(_pubStart, source) - 1;
        if (last < 0)
        {
            return null;
        }

        uint start = _pubStart[last];
        var tied = new List<int>();
        for (int j = last; j >= 0 && _pubStart[j] == start; j--)
        {
            tied.Add(_pubItem[j]);
        }

        return Build(_publics, tied, source, PdbSymbolKind.Public);
    }

    private static PdbSymbolMatch Build(PdbSymbolTable table, List<int> tied, uint source, PdbSymbolKind kind)
    {
        // Deterministic order: ordinal on the UTF-8 bytes, then table position (for identical names with different records).
        tied.Sort((a, b) =>
        {
            int c = table.NameBytes(a).SequenceCompareTo(table.NameBytes(b));
            return c != 0 ? c : a.CompareTo(b);
        });

        var names = new List<string>(tied.Count);
        for (int k = 0; k < tied.Count; k++)
        {
            if (k == 0 || !table.NameBytes(tied[k]).SequenceEqual(table.NameBytes(tied[k - 1])))
            {
                names.Add(table.Name(tied[k]));
            }
        }

        RawSymbol best = table.Items[tied[0]];
        return new PdbSymbolMatch(
            names[0],
            best.Decoration,
            best.ImageRva,
            source - best.SourceRva,
            kind,
            kind == PdbSymbolKind.Procedure ? best.Size : null,
            names.AsReadOnly());
    }

    /// <summary>The index of the first element greater than <paramref name="value"/>.</summary>
    private static int UpperBound(uint[] sorted, uint value)
    {
        int lo = 0;
        int hi = sorted.Length;
        while (lo < hi)
        {
            int mid = lo + ((hi - lo) >> 1);
            if (sorted[mid] <= value)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }
}

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// A sorted RVA → symbol index over one PDB's procedures and publics, built once by
/// <see cref="PdbFile.GetSymbolIndex"/>. Immutable and safe for concurrent lookups; the index of
/// <see cref="PdbFile.GetSymbolIndex"/> holds no file handle, so it keeps working after the <see cref="PdbFile"/> is
/// disposed.
/// </summary>
/// <remarks>
/// <para><b>Lookup rule.</b> A procedure whose code range [start, start + size) contains the RVA wins (private PDBs,
/// and the few procedures stripped PDBs keep); when several do (nested or folded code), the one with the greatest
/// start. Otherwise the nearest public at or before the RVA, with no length bound (publics have no size), across
/// sections, as <c>llvm-symbolizer</c> does. An RVA before the first symbol is unresolved.</para>
/// <para><b>Ties</b> (identical-code folding puts several names at one address): procedures beat publics; among names
/// of the chosen kind at the chosen start, the ordinal-smallest name (byte-wise on the stored UTF-8 name) wins. All
/// distinct tied names are returned in <see cref="PdbSymbolMatch.TiedNames"/>. Which name DIA picks is not documented;
/// <c>llvm-symbolizer</c> may pick another.</para>
/// <para><b>OMAP.</b> The RVA is first mapped to the source (pre-reordering) address space, where sizes and
/// displacements are meaningful; <see cref="PdbSymbolMatch.SymbolRva"/> is the symbol's start mapped back to the
/// image.</para>
/// </remarks>
internal sealed class PdbSymbolIndex
{
    private readonly PdbAddressMap _map;
    private readonly PdbSymbolTable _procedures;
    private readonly PdbPublicTable _publics;

    // Procedures sorted by source start: start, exclusive end, running maximum of ends (to rule out containment fast),
    // table index.
    private readonly uint[] _procStart;
    private readonly ulong[] _procEnd;
    private readonly ulong[] _procMaxEnd;
    private readonly int[] _procItem;

    [System.Runtime.CompilerServices.MethodImpl(
        System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization
    )]
    internal PdbSymbolIndex(PdbAddressMap map, PdbSymbolTable procedures, PdbPublicTable publics)
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
    }

    /// <summary>The number of procedures indexed.</summary>
    public int ProcedureCount => _procStart.Length;

    /// <summary>The number of publics indexed.</summary>
    public int PublicCount => _publics.Count;

    internal bool IsX86 { get; init; }

    /// <summary>Finds the symbol containing or nearest before <paramref name="rva"/> (see the remarks on
    /// <see cref="PdbSymbolIndex"/>).</summary>
    /// <param name="rva">An image RVA (address minus module base).</param>
    /// <returns>The match, or <see langword="null"/> when the RVA precedes every symbol or falls in an OMAP
    /// hole.</returns>
    public PdbSymbolMatch? Lookup(uint rva)
    {
        if (!TryFind(rva, out PdbSymbolHit hit))
        {
            return null;
        }

        IReadOnlyList<string> names = TiedNames(hit);
        return new PdbSymbolMatch(
            names[0],
            GetDecoration(hit),
            SymbolRva(hit),
            hit.Displacement,
            hit.Kind,
            hit.Kind == PdbSymbolKind.Procedure ? _procedures.Items[hit.Entry].Size : null,
            names
        );
    }

    /// <summary>
    /// The allocation-free form of <see cref="Lookup"/>: which symbol wins (the ordinal-smallest name among ties), its
    /// displacement and how many names of the same kind share its start. Read the name with
    /// <see cref="NameBytes(in PdbSymbolHit, Span{byte})"/>.
    /// </summary>
    internal bool TryFind(uint rva, out PdbSymbolHit hit)
    {
        hit = default;
        if (!_map.TryImageToSource(rva, out uint source))
        {
            return false;
        }

        return TryFindProcedure(source, out hit) || TryFindPublic(source, out hit);
    }

    /// <summary>
    /// The stored name of the symbol found, as UTF-8: in memory, or read from the PDB into <paramref name="scratch"/>
    /// (a new array when it is too short) for an index whose public names stay in the file
    /// (<see cref="PdbFile.GetFileBackedSymbolIndex"/>).
    /// </summary>
    internal ReadOnlySpan<byte> NameBytes(in PdbSymbolHit hit, Span<byte> scratch) =>
        NameBytes(hit.Kind, hit.Entry, scratch);

    /// <summary>How the stored name of the symbol found is decorated.</summary>
    internal PdbNameDecoration GetDecoration(in PdbSymbolHit hit) =>
        hit.Kind == PdbSymbolKind.Procedure
            ? _procedures.Items[hit.Entry].Decoration
            : GetDecoration(hit, NameBytes(hit, stackalloc byte[256]));

    /// <summary>How the stored name of the symbol found is decorated, given that name
    /// (<see cref="NameBytes(in PdbSymbolHit, Span{byte})"/>).</summary>
    internal PdbNameDecoration GetDecoration(in PdbSymbolHit hit, ReadOnlySpan<byte> name) =>
        hit.Kind == PdbSymbolKind.Procedure
            ? _procedures.Items[hit.Entry].Decoration
            : PdbNames.Classify(name, isPublic: true, IsX86);

    /// <summary>The image RVA where the symbol found starts.</summary>
    internal uint SymbolRva(in PdbSymbolHit hit)
    {
        if (hit.Kind == PdbSymbolKind.Procedure)
        {
            return _procedures.Items[hit.Entry].ImageRva;
        }

        // Every indexed public maps to an image RVA (the reader leaves out those that do not).
        _map.TrySourceToImage(_publics.Start(hit.Entry), out uint image);
        return image;
    }

    /// <summary>The distinct stored names of the symbols tied with the one found, in tie order (that one
    /// first).</summary>
    internal IReadOnlyList<string> TiedNames(in PdbSymbolHit hit)
    {
        List<int> tied = TiedEntries(hit);
        var names = new List<string>(tied.Count);
        Span<byte> current = stackalloc byte[256],
            previous = stackalloc byte[256];
        for (int k = 0; k < tied.Count; k++)
        {
            if (
                k == 0
                || !NameBytes(hit.Kind, tied[k], current).SequenceEqual(NameBytes(hit.Kind, tied[k - 1], previous))
            )
            {
                names.Add(Name(hit.Kind, tied[k]));
            }
        }

        return names.AsReadOnly();
    }

    private ReadOnlySpan<byte> NameBytes(PdbSymbolKind kind, int entry, Span<byte> scratch) =>
        kind == PdbSymbolKind.Procedure ? _procedures.NameBytes(entry) : _publics.NameBytes(entry, scratch);

    private string Name(PdbSymbolKind kind, int entry) =>
        kind == PdbSymbolKind.Procedure ? _procedures.Name(entry) : _publics.Name(entry);

    private bool TryFindProcedure(uint source, out PdbSymbolHit hit)
    {
        hit = default;
        int last = UpperBound(_procStart, source) - 1;
        if (last < 0 || _procMaxEnd[last] <= source)
        {
            return false;
        }

        // Walk back to the containing procedure with the greatest start; the running maximum of ends stops the walk
        // early.
        for (int i = last; i >= 0 && _procMaxEnd[i] > source; i--)
        {
            if (_procEnd[i] <= source)
            {
                continue;
            }

            uint start = _procStart[i];
            int best = -1,
                ties = 0;
            for (int j = i; j >= 0 && _procStart[j] == start; j--)
            {
                if (_procEnd[j] > source)
                {
                    ties++;
                    if (best < 0 || Precedes(PdbSymbolKind.Procedure, _procItem[j], best))
                    {
                        best = _procItem[j];
                    }
                }
            }

            hit = new PdbSymbolHit(PdbSymbolKind.Procedure, best, source - start, i, ties);
            return true;
        }

        return false;
    }

    private bool TryFindPublic(uint source, out PdbSymbolHit hit)
    {
        hit = default;
        int last = _publics.LastAtOrBefore(source);
        if (last < 0)
        {
            return false;
        }

        uint start = _publics.Start(last);
        int best = last,
            ties = 1;
        for (int j = last - 1; j >= 0 && _publics.Start(j) == start; j--)
        {
            ties++;
            if (Precedes(PdbSymbolKind.Public, j, best))
            {
                best = j;
            }
        }

        hit = new PdbSymbolHit(PdbSymbolKind.Public, best, source - start, last, ties);
        return true;
    }

    /// <summary>The tie order: ordinal on the UTF-8 bytes, then table position (for identical names with different
    /// records).</summary>
    private bool Precedes(PdbSymbolKind kind, int a, int b)
    {
        int c = NameBytes(kind, a, stackalloc byte[256]).SequenceCompareTo(NameBytes(kind, b, stackalloc byte[256]));
        return c != 0 ? c < 0 : a < b;
    }

    /// <summary>The entries tied with the hit (same kind, same start, containing the address), in tie order.</summary>
    private List<int> TiedEntries(in PdbSymbolHit hit)
    {
        var tied = new List<int>(hit.Ties);
        uint start;
        if (hit.Kind == PdbSymbolKind.Procedure)
        {
            start = _procStart[hit.Last];
            uint source = start + hit.Displacement;
            for (int j = hit.Last; j >= 0 && _procStart[j] == start; j--)
            {
                if (_procEnd[j] > source)
                {
                    tied.Add(_procItem[j]);
                }
            }
        }
        else
        {
            start = _publics.Start(hit.Last);
            for (int j = hit.Last; j >= 0 && _publics.Start(j) == start; j--)
            {
                tied.Add(j);
            }
        }

        PdbSymbolKind kind = hit.Kind;
        tied.Sort(
            (a, b) =>
                a == b ? 0
                : Precedes(kind, a, b) ? -1
                : 1
        );
        return tied;
    }

    /// <summary>The index of the first element greater than <paramref name="value"/>.</summary>
    internal static int UpperBound(uint[] sorted, uint value)
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

/// <summary>
/// What <see cref="PdbSymbolIndex.TryFind"/> found: the winning symbol (a procedure table item or a sorted public
/// position), its displacement, the last sorted position at its start (where ties are walked back from) and how many
/// symbols tie.
/// </summary>
internal readonly record struct PdbSymbolHit(PdbSymbolKind Kind, int Entry, uint Displacement, int Last, int Ties)
{
    public bool IsTied => Ties > 1;
}

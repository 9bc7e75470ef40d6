namespace XeAnalyzer.Symbols.Pdb;

/// <summary>How a stored symbol name is decorated. Names are always returned raw; undecoration is the caller's
/// job.</summary>
internal enum PdbNameDecoration
{
    /// <summary>A plain name (procedure names in private PDBs are stored this way, e.g.
    /// <c>TinyPkg::Widget::Publish</c>).</summary>
    None = 0,

    /// <summary>An MSVC C++ decorated name: it starts with <c>?</c>
    /// (<c>?Publish@Widget@TinyPkg@@SAHPEAXH@Z</c>).</summary>
    Msvc = 1,

    /// <summary>
    /// A C name with a calling-convention decoration: on x86, <c>_f</c> (cdecl), <c>_f@12</c> (stdcall) and <c>@f@4</c>
    /// (fastcall); on any machine, <c>f@@8</c> (vectorcall). Only public names are classified this way.
    /// </summary>
    CallingConvention = 2,
}

/// <summary>The flags of an <c>S_PUB32</c> record.</summary>
[Flags]
internal enum PdbPublicAttributes
{
    /// <summary>No flag (typically data).</summary>
    None = 0,

    /// <summary>The symbol is code (0x1).</summary>
    Code = 0x1,

    /// <summary>The symbol is a function (0x2).</summary>
    Function = 0x2,

    /// <summary>The symbol is managed code (0x4).</summary>
    Managed = 0x4,

    /// <summary>The symbol is MSIL (0x8).</summary>
    Msil = 0x8,
}

/// <summary>Which kind of symbol a lookup matched.</summary>
internal enum PdbSymbolKind
{
    /// <summary>A procedure from a module symbol stream (<c>S_GPROC32</c>/<c>S_LPROC32</c> and their <c>_ID</c> forms):
    /// the RVA lies within its code.</summary>
    Procedure = 0,

    /// <summary>A public (<c>S_PUB32</c>): the nearest one at or before the RVA; publics carry no length.</summary>
    Public = 1,
}

/// <summary>A public symbol (<c>S_PUB32</c>) from the publics stream, with its image RVA.</summary>
/// <param name="Name">The stored (decorated) name, e.g. <c>?Publish@Widget@TinyPkg@@SAHPEAXH@Z</c> or
/// <c>_f@12</c>.</param>
/// <param name="Rva">The image RVA (after OMAP translation when the PDB has OMAP).</param>
/// <param name="Segment">The 1-based section number as stored.</param>
/// <param name="Offset">The offset within the section as stored.</param>
/// <param name="Flags">The record's flags.</param>
/// <param name="Decoration">How <paramref name="Name"/> is decorated.</param>
internal sealed record PdbPublicSymbol(
    string Name,
    uint Rva,
    ushort Segment,
    uint Offset,
    PdbPublicAttributes Flags,
    PdbNameDecoration Decoration
)
{
    /// <summary>Whether <see cref="Name"/> is an MSVC C++ decorated name (starts with <c>?</c>) that needs undecoration
    /// for display.</summary>
    public bool IsDecorated => Decoration == PdbNameDecoration.Msvc;
}

/// <summary>A procedure from a module symbol stream, with the RVA range of its code.</summary>
/// <param name="Name">The stored name (already undecorated by the compiler, e.g.
/// <c>TinyPkg::Widget::Publish</c>).</param>
/// <param name="Rva">The image RVA of the first byte of code (after OMAP translation when the PDB has OMAP).</param>
/// <param name="Size">The code size in bytes: the procedure covers [<paramref name="Rva"/>, <paramref name="Rva"/> +
/// <paramref name="Size"/>) (in source RVA space with OMAP).</param>
/// <param name="Segment">The 1-based section number as stored.</param>
/// <param name="Offset">The offset within the section as stored.</param>
/// <param name="IsGlobal">True for <c>S_GPROC32</c>/<c>S_GPROC32_ID</c>, false for the local (static) forms.</param>
/// <param name="ModuleIndex">The index of the module (see <see cref="PdbFile.GetModules"/>) whose stream holds the
/// record.</param>
internal sealed record PdbProcedure(
    string Name,
    uint Rva,
    uint Size,
    ushort Segment,
    uint Offset,
    bool IsGlobal,
    int ModuleIndex
);

/// <summary>A module (compiland) record from the DBI stream.</summary>
/// <param name="Index">0-based position in the DBI module list.</param>
/// <param name="ModuleName">The module name (often the object file path; <c>* Linker *</c> for the linker's
/// module).</param>
/// <param name="ObjectFileName">The object or library file the module came from.</param>
/// <param name="SymbolStreamIndex">The module's symbol stream, or <see langword="null"/> when it has none (as in
/// stripped PDBs).</param>
/// <param name="SymbolByteSize">Bytes of symbol records in that stream, including its 4-byte signature.</param>
/// <param name="SourceFileCount">The number of source files the module contributes.</param>
internal sealed record PdbModule(
    int Index,
    string ModuleName,
    string ObjectFileName,
    int? SymbolStreamIndex,
    uint SymbolByteSize,
    int SourceFileCount
)
{
    /// <summary>Bytes of old-style (C11) line information after the symbols in the module's stream (not read by
    /// XeAnalyzer).</summary>
    public uint C11LineByteSize { get; init; }

    /// <summary>Bytes of C13 debug subsections (lines, file checksums, inlinee lines) after the symbols and the C11
    /// lines.</summary>
    public uint C13LineByteSize { get; init; }
}

/// <summary>
/// The symbol found for an RVA by <see cref="PdbSymbolIndex.Lookup"/>: <c>Name + Displacement</c>.
/// With identical-code folding several names share an address; the choice among them is deterministic (see
/// <see cref="PdbSymbolIndex"/>) and all of them are in <see cref="TiedNames"/>.
/// </summary>
internal sealed class PdbSymbolMatch
{
    internal PdbSymbolMatch(
        string name,
        PdbNameDecoration decoration,
        uint symbolRva,
        uint displacement,
        PdbSymbolKind kind,
        uint? size,
        IReadOnlyList<string> tiedNames
    )
    {
        Name = name;
        Decoration = decoration;
        SymbolRva = symbolRva;
        Displacement = displacement;
        Kind = kind;
        Size = size;
        TiedNames = tiedNames;
    }

    /// <summary>The raw stored name: a procedure's name as the compiler wrote it, or a public's decorated
    /// name.</summary>
    public string Name { get; }

    /// <summary>How <see cref="Name"/> is decorated.</summary>
    public PdbNameDecoration Decoration { get; }

    /// <summary>Whether <see cref="Name"/> is an MSVC C++ decorated name (starts with <c>?</c>) that the caller should
    /// undecorate.</summary>
    public bool IsDecorated => Decoration == PdbNameDecoration.Msvc;

    /// <summary>The image RVA where the symbol starts.</summary>
    public uint SymbolRva { get; }

    /// <summary>Bytes from the symbol's start to the looked-up address (measured in source RVA space when the PDB has
    /// OMAP).</summary>
    public uint Displacement { get; }

    /// <summary>Whether a procedure or a public matched.</summary>
    public PdbSymbolKind Kind { get; }

    /// <summary>The procedure's code size; <see langword="null"/> for publics.</summary>
    public uint? Size { get; }

    /// <summary>Every distinct name of the same kind at the same start address, in tie order (ordinal),
    /// <see cref="Name"/> first. One entry unless code was folded.</summary>
    public IReadOnlyList<string> TiedNames { get; }

    /// <summary>Whether several names share this address (identical-code folding).</summary>
    public bool IsTied => TiedNames.Count > 1;

    /// <summary><c>Name+0xDisplacement</c>, for diagnostics.</summary>
    public override string ToString() =>
        Displacement == 0
            ? Name
            : Name + "+0x" + Displacement.ToString("x", System.Globalization.CultureInfo.InvariantCulture);
}

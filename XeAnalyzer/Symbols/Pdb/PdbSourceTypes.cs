namespace XeAnalyzer.Symbols.Pdb;

/// <summary>A source position: the file as the compiler recorded it (usually a full path) and a 1-based line.</summary>
/// <param name="File">The file name from the PDB's <c>/names</c> string table (for example
/// <c>c:\src\latch.cpp</c>).</param>
/// <param name="Line">The line number, as stored: MSVC marks code it generated with no source line as 0xFEEFEE
/// (16707566) or 0xF00F00, and these are answered as they are, as DIA answers them.</param>
internal readonly record struct PdbSourceLocation(string File, int Line);

/// <summary>
/// One record of a module's C13 line table (<c>DEBUG_S_LINES</c>): the code bytes [<paramref name="Rva"/>,
/// <paramref name="Rva"/> +
/// <paramref name="Length"/>) belong to <paramref name="Line"/> of <paramref name="File"/>. A record's length runs to
/// the next record of its subsection (in address order) or to the subsection's end; two records at one address give the
/// first a length of 0, as DIA does.
/// </summary>
/// <param name="Rva">The image RVA of the first byte (after OMAP translation when the PDB has OMAP).</param>
/// <param name="Length">The number of code bytes.</param>
/// <param name="Line">The line number (0xFEEFEE and 0xF00F00 mark compiler-generated code).</param>
/// <param name="File">The source file.</param>
/// <param name="ModuleIndex">The module (see <see cref="PdbFile.GetModules"/>) whose stream holds the record.</param>
/// <param name="IsStatement">Whether the record starts a statement (the <c>fStatement</c> bit).</param>
internal sealed record PdbLineRecord(uint Rva, uint Length, int Line, string File, int ModuleIndex, bool IsStatement);

/// <summary>One inline frame at an address: a function the compiler inlined, with the source position of the address
/// inside it.</summary>
/// <param name="Name">
/// The inlined function's name from the IPI stream: <c>LF_FUNC_ID</c> names with their scope (<c>ns::f</c>),
/// <c>LF_MFUNC_ID</c> names with their class from the TPI stream (<c>Widget::Poke</c>; MSVC's
/// <c>{ctor}</c>/<c>{dtor}</c> become <c>Widget::Widget</c>/<c>Widget::~Widget</c>).
/// </param>
/// <param name="BlockRva">The image RVA where the inline site's contiguous code containing the address starts (the
/// frame's displacement is measured from it).</param>
/// <param name="Location">The file and line of the address within the inlined function, or <see langword="null"/> when
/// the PDB does not say.</param>
internal sealed record PdbInlineFrame(string Name, uint BlockRva, PdbSourceLocation? Location);

/// <summary>
/// Source information for one address of a private PDB: the inline frames the address lies in (innermost first) and the
/// line of the procedure that contains them all (for an address in inlined code, the line of the outermost call site).
/// </summary>
internal sealed class PdbSourceInfo
{
    internal PdbSourceInfo(IReadOnlyList<PdbInlineFrame> inlineFrames, PdbSourceLocation? location)
    {
        InlineFrames = inlineFrames;
        Location = location;
    }

    /// <summary>No source information (a public-only PDB, or an address no line record covers).</summary>
    public static PdbSourceInfo None { get; } = new([], null);

    /// <summary>The inline frames, innermost first; empty when the address is not in inlined code (or inline sites were
    /// not asked for).</summary>
    public IReadOnlyList<PdbInlineFrame> InlineFrames { get; }

    /// <summary>The line of the procedure's own line table (<c>DEBUG_S_LINES</c>) at the address, or
    /// <see langword="null"/> when none covers it.</summary>
    public PdbSourceLocation? Location { get; }

    /// <summary>Whether there is nothing to show.</summary>
    public bool IsEmpty => InlineFrames.Count == 0 && Location is null;
}

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>One image section header (<c>IMAGE_SECTION_HEADER</c>) as stored in the PDB. A symbol's 1-based segment
/// <c>s</c> and offset <c>o</c> give RVA = <c>sections[s-1].VirtualAddress + o</c>.</summary>
/// <param name="Name">The section name (up to 8 bytes, e.g. <c>.text</c>).</param>
/// <param name="VirtualSize">Size of the section in memory.</param>
/// <param name="VirtualAddress">RVA of the section.</param>
/// <param name="SizeOfRawData">Size of the section's data in the file.</param>
/// <param name="PointerToRawData">File offset of the section's data.</param>
/// <param name="Characteristics">The <c>IMAGE_SCN_*</c> flags.</param>
internal sealed record PdbSection(
    string Name,
    uint VirtualSize,
    uint VirtualAddress,
    uint SizeOfRawData,
    uint PointerToRawData,
    uint Characteristics
)
{
    internal const int Size = 40;
}

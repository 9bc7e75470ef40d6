namespace XeAnalyzer.Symbols.Pe;

/// <summary>One section header of a PE image.</summary>
/// <param name="Name">The section name (up to 8 bytes, e.g. <c>.text</c>).</param>
/// <param name="VirtualAddress">RVA of the section.</param>
/// <param name="VirtualSize">Size of the section in memory.</param>
/// <param name="SizeOfRawData">Size of the section's data in the file.</param>
/// <param name="PointerToRawData">File offset of the section's data.</param>
/// <param name="Characteristics">The <c>IMAGE_SCN_*</c> flags.</param>
internal sealed record PeSection(
    string Name,
    uint VirtualAddress,
    uint VirtualSize,
    uint SizeOfRawData,
    uint PointerToRawData,
    uint Characteristics
);

/// <summary>An RSDS CodeView debug record: which PDB (GUID, age, path) the image was linked with.</summary>
/// <param name="Guid">The PDB signature GUID.</param>
/// <param name="Age">The PDB age.</param>
/// <param name="Path">The PDB path stored by the linker (may be a full build-machine path, or just a name with
/// <c>/pdbaltpath</c>).</param>
internal sealed record PeCodeViewRecord(Guid Guid, int Age, string Path)
{
    /// <summary>GUID and age as a <see cref="PdbIdentity"/> (its <c>Key</c> is the symbol-store directory
    /// key).</summary>
    public PdbIdentity Identity => new(Guid, Age);

    /// <summary>The file-name part of <see cref="Path"/>, splitting on both <c>\</c> and <c>/</c> (the PDB name a
    /// symbol store is keyed by).</summary>
    public string PdbFileName
    {
        get
        {
            int cut = Path.LastIndexOfAny(['\\', '/']);
            return cut >= 0 ? Path[(cut + 1)..] : Path;
        }
    }
}

/// <summary>One exported function.</summary>
/// <param name="Ordinal">The export ordinal: the export directory's <c>Base</c> + the index in
/// <c>AddressOfFunctions</c>.</param>
/// <param name="Rva">The RVA from <c>AddressOfFunctions</c> (for a forwarder, the RVA of its forwarder string).</param>
/// <param name="Name">The exported name, or <see langword="null"/> for an ordinal-only export (frames then read
/// <c>dll!OrdinalNNN</c>).</param>
/// <param name="ForwardedTo">For a forwarder (an RVA inside the export directory), the target such as
/// <c>kernel32.Sleep</c>; otherwise <see langword="null"/>.</param>
internal sealed record PeExport(int Ordinal, uint Rva, string? Name, string? ForwardedTo)
{
    /// <summary>Whether the export forwards to another DLL (no code of this image at <see cref="Rva"/>).</summary>
    public bool IsForwarder => ForwardedTo is not null;
}

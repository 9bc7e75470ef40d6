using System.Globalization;

namespace XeAnalyzer;

/// <summary>
/// The identity of one PDB build: the GUID and age that a PE image's RSDS record, a <c>callstack_rva</c> frame,
/// a build catalog or a symbol-server key name. Two PDBs match only if both are equal.
/// </summary>
/// <param name="Guid">The PDB signature GUID (PDB info stream).</param>
/// <param name="Age">The age (the DBI stream's age for a PDB file; the RSDS age for an image).</param>
public readonly record struct PdbIdentity(Guid Guid, int Age)
{
    /// <summary>The symbol-store directory key: 32 upper-case hex digits of the GUID, then the age in hex
    /// (<c>92902AE48DBB67D84C4C44205044422E1</c>).</summary>
    public string Key => Guid.ToString("N").ToUpperInvariant() + Age.ToString("X", CultureInfo.InvariantCulture);

    /// <summary>The GUID and age as people write them: <c>{GUID}/age</c> with the age in decimal.</summary>
    public override string ToString() =>
        Guid.ToString("D").ToUpperInvariant() + "/" + Age.ToString(CultureInfo.InvariantCulture);
}

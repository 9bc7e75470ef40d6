namespace XeAnalyzer.Callstacks;

/// <summary>A module → PDB mapping supplied by the input (CSV symbol metadata): which PDB build a module's frames must
/// be looked up in.</summary>
/// <param name="Module">The module.</param>
/// <param name="PdbName">The PDB file name (<c>ntdll.pdb</c>; the module name + <c>.pdb</c> when the metadata named
/// none).</param>
/// <param name="Identity">The PDB GUID and age.</param>
/// <param name="LineNumber">1-based input line it came from.</param>
internal sealed record ModulePdbInfo(ModuleName Module, string PdbName, PdbIdentity Identity, long LineNumber);

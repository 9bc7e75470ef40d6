using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis;

/// <summary>
/// The words a user reads for each enum value the documents show (a PDB's identity source, an unresolved reason, a
/// module map's source, a frame style): the one place an enum becomes text, so no output prints a member name. Stack
/// shapes have theirs where the resolver names them (<see cref="ResolutionSummary.ShapeText"/>).
/// </summary>
internal static class DisplayNames
{
    /// <summary>Where a PDB's identity (GUID/age) came from.</summary>
    public static string Of(PdbIdentitySource source) =>
        source switch
        {
            PdbIdentitySource.Frame => "the callstack_rva frames",
            PdbIdentitySource.SymbolMetadata => "CSV symbol metadata",
            PdbIdentitySource.Binary => "the DLL's RSDS record",
            PdbIdentitySource.BuildCatalog => "the build catalog",
            _ => "none",
        };

    /// <summary>Why a frame stayed unresolved, in a few words (the group's description says it in full).</summary>
    public static string Of(UnresolvedReason reason) =>
        reason switch
        {
            UnresolvedReason.NoPdb => "no PDB",
            UnresolvedReason.PdbDamaged => "PDB damaged",
            UnresolvedReason.BeforeFirstSymbol => "before the first symbol",
            UnresolvedReason.NoModuleMap => "no module map",
            UnresolvedReason.NoModuleForAddress => "no module for the address",
            UnresolvedReason.OrdinalNeedsDll => "ordinal without its DLL",
            UnresolvedReason.OrdinalNotExported => "ordinal not exported",
            UnresolvedReason.IncompleteFrame => "incomplete frame",
            UnresolvedReason.RvaOutOfRange => "RVA out of range",
            UnresolvedReason.BeyondImage => "beyond the image",
            _ => "resolved",
        };

    /// <summary>Where an input's module map came from.</summary>
    public static string Of(ModuleMapSource source) =>
        source switch
        {
            ModuleMapSource.Explicit => "--modules",
            ModuleMapSource.Sidecar => "sidecar (<set-name>.modules.txt)",
            _ => "none",
        };

    /// <summary>A frame style as <c>--frame-style</c> names it.</summary>
    public static string Of(FrameStyle style) =>
        style switch
        {
            FrameStyle.Resolver => "resolver",
            FrameStyle.WinDbg => "windbg",
            _ => "engine",
        };
}

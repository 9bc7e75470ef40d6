namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Unresolved frames that share a reason (<see cref="FrameResolution.ReasonGroup"/>), with the first one
/// met.</summary>
/// <param name="Reason">The reason kind.</param>
/// <param name="Description">The shared reason (<c>no PDB for sqldk.pdb
/// 1D3FA75E-B355-40E2-87B2-E012D69785DF/2</c>).</param>
/// <param name="Count">How many frames (occurrences, not distinct addresses).</param>
/// <param name="FirstExample">The first such frame as captured.</param>
/// <param name="FirstReason">The first frame's own reason (with its address, e.g. <c>no module for
/// 0x00007FF6E0000000</c>).</param>
/// <param name="FirstLine">The input line of the first frame (0 when unknown).</param>
/// <param name="SearchLog">For a missing or damaged PDB: what was searched and why each candidate was rejected;
/// otherwise empty.</param>
public sealed record UnresolvedGroup(
    UnresolvedReason Reason,
    string Description,
    long Count,
    string FirstExample,
    string FirstReason,
    long FirstLine,
    IReadOnlyList<string> SearchLog
);

/// <summary>
/// What resolving one input did: stacks by shape, frames by status, unresolved frames grouped by reason, the PDBs
/// searched and used, hints about trace flags 3656/2592, and warnings. Immutable; made by
/// <see cref="ResolutionSummaryBuilder"/>; shown through
/// <c>XeAnalyzer.Analysis.ResolutionSummaryDocument</c> (the symbol layer knows nothing of output).
/// </summary>
public sealed class ResolutionSummary
{
    internal ResolutionSummary(
        string? inputName,
        long stacks,
        IReadOnlyDictionary<StackShape, long> shapes,
        long frames,
        long inEngine,
        long resolvedOffline,
        long unresolved,
        long unverified,
        IReadOnlyList<UnresolvedGroup> groups,
        IReadOnlyList<PdbBinding> pdbs,
        IReadOnlyList<string> hints,
        IReadOnlyList<string> warnings
    )
    {
        InputName = inputName;
        Stacks = stacks;
        Shapes = shapes;
        Frames = frames;
        InEngine = inEngine;
        ResolvedOffline = resolvedOffline;
        Unresolved = unresolved;
        Unverified = unverified;
        UnresolvedGroups = groups;
        Pdbs = pdbs;
        Hints = hints;
        Warnings = warnings;
    }

    /// <summary>The input's name (file path, or <c>-</c> for standard input), or <see langword="null"/>.</summary>
    public string? InputName { get; }

    /// <summary>How many stacks (histogram slots, event callstacks, text stacks).</summary>
    public long Stacks { get; }

    /// <summary>Stacks by shape (shapes with no stack are left out), in <see cref="StackShape"/> order.</summary>
    public IReadOnlyDictionary<StackShape, long> Shapes { get; }

    /// <summary>How many frames (occurrences).</summary>
    public long Frames { get; }

    /// <summary>Frames the capture already held symbolized (normalised only).</summary>
    public long InEngine { get; }

    /// <summary>Frames resolved offline.</summary>
    public long ResolvedOffline { get; }

    /// <summary>Frames left unresolved (written as captured).</summary>
    public long Unresolved { get; }

    /// <summary>Frames resolved offline through a PDB matched by name only (nothing identified the build).</summary>
    public long Unverified { get; }

    /// <summary>Unresolved frames grouped by reason, most frequent first (ties by description, ordinal).</summary>
    public IReadOnlyList<UnresolvedGroup> UnresolvedGroups { get; }

    /// <summary>The PDBs looked up (found, damaged or missing).</summary>
    public IReadOnlyList<PdbBinding> Pdbs { get; }

    /// <summary>Advice drawn from the input's shape (trace flags 3656 and 2592, PDBs missing from Binn).</summary>
    public IReadOnlyList<string> Hints { get; }

    /// <summary>Problems with the input or the setup (raw addresses without module map, an unused module map, malformed
    /// frames, …).</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// How the module list placed the raw addresses, or <see langword="null"/> when none was placed through one.
    /// </summary>
    internal ModuleListFit? ModuleListFit { get; init; }

    /// <summary>How a shape reads in text (<c>module+offset</c>, <c>symbolized in-engine</c>).</summary>
    /// <param name="shape">The shape.</param>
    /// <returns>The text.</returns>
    public static string ShapeText(StackShape shape) =>
        shape switch
        {
            StackShape.NoFrames => "without frames",
            StackShape.SymbolizedInEngine => "symbolized in-engine",
            StackShape.ModuleOffset => "module+offset",
            StackShape.RawAddresses => "raw addresses",
            StackShape.Ordinals => "with ordinals",
            StackShape.CallstackRva => "callstack_rva",
            _ => "mixed",
        };
}

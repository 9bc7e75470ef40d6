using System.Globalization;
using XeAnalyzer.Output;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Unresolved frames that share a reason (<see cref="FrameResolution.ReasonGroup"/>), with the first one met.</summary>
/// <param name="Reason">The reason kind.</param>
/// <param name="Description">The shared reason (<c>no PDB for sqldk.pdb 1D3FA75E-B355-40E2-87B2-E012D69785DF/2</c>).</param>
/// <param name="Count">How many frames (occurrences, not distinct addresses).</param>
/// <param name="FirstExample">The first such frame as captured.</param>
/// <param name="FirstReason">The first frame's own reason (with its address, e.g. <c>no module for 0x00007FF6E0000000</c>).</param>
/// <param name="FirstLine">The input line of the first frame (0 when unknown).</param>
/// <param name="SearchLog">For a missing or damaged PDB: what was searched and why each candidate was rejected; otherwise empty.</param>
public sealed record UnresolvedGroup(UnresolvedReason Reason, string Description, long Count, string FirstExample, string FirstReason, long FirstLine, IReadOnlyList<string> SearchLog);

/// <summary>
/// What resolving one input did: stacks by shape, frames by status, unresolved frames grouped by reason, the PDBs searched and used,
/// hints about trace flags 3656/2592, and warnings. Immutable; made by <see cref="ResolutionSummaryBuilder"/>.
/// </summary>
public sealed class ResolutionSummary : IDocumentSource
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
        IReadOnlyList<string> warnings)
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

    /// <summary>Problems with the input or the setup (raw addresses without module map, an unused module map, malformed frames, …).</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// The summary as an outline, as a console shows it: stacks by shape and frames by status, each unresolved reason (with up to six
    /// lines of what was searched), each PDB loaded, the hints and the warnings.
    /// </summary>
    /// <returns>The block.</returns>
    public Outline ToOutline()
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var items = new List<OutlineItem>();
        string shapes = Shapes.Count == 0 ? string.Empty : " (" + string.Join(", ", Shapes.Select(kv => string.Create(ic, $"{kv.Value} {ShapeText(kv.Key)}"))) + ")";
        items.Add(new OutlineItem(0, string.Create(ic,
            $"{InputName ?? "input"}: {Stacks} stack(s){shapes}; {Frames} frame(s): {InEngine} symbolized in-engine, {ResolvedOffline} resolved offline ({Unverified} unverified), {Unresolved} unresolved")));
        foreach (UnresolvedGroup g in UnresolvedGroups)
        {
            string line = g.FirstLine > 0 ? string.Create(ic, $", line {g.FirstLine}") : string.Empty;
            items.Add(new OutlineItem(0, string.Create(ic, $"unresolved: {g.Count} frame(s): {g.Description} (first: {g.FirstExample}{line})")));
            foreach (string s in g.SearchLog.Take(6))
            {
                items.Add(new OutlineItem(1, "searched: " + s));
            }

            if (g.SearchLog.Count > 6)
            {
                items.Add(new OutlineItem(1, string.Create(ic, $"searched: … {g.SearchLog.Count - 6} more")));
            }
        }

        foreach (PdbBinding p in Pdbs.Where(p => p.IsLoaded))
        {
            items.Add(new OutlineItem(0, "pdb: " + p + " (" + SourceText(p.IdentitySource) + ") " + p.Path + (p.IsVerified ? string.Empty : " [unverified: matched by name only]")));
            if (p.SourceInfoProblem is string source)
            {
                items.Add(new OutlineItem(1, source));
            }
        }

        items.AddRange(Hints.Select(h => new OutlineItem(0, "hint: " + h)));
        items.AddRange(Warnings.Select(w => new OutlineItem(0, "warning: " + w)));
        return new Outline(items);
    }

    /// <inheritdoc/>
    /// <remarks>
    /// The listing (text) is <see cref="ToOutline"/>, untitled and without a generated-by line, for a console. Every other view is the
    /// summary as data: the counts, stacks by shape, unresolved frames by reason (with what was searched), the PDBs looked up, hints and
    /// warnings.
    /// </remarks>
    public ReportDocument ToDocument(DocumentView view)
    {
        if (view == DocumentView.Listing)
        {
            return new ReportDocument(string.Empty, [new ReportSection(string.Empty, ToOutline())]) { Generator = null };
        }

        var counts = new KeyValueList(
        [
            new("input", InputName ?? string.Empty),
            new("stacks", Stacks),
            new("frames", Frames),
            new("symbolized in-engine", InEngine),
            new("resolved offline", ResolvedOffline),
            new("of which unverified (PDB matched by name only)", Unverified),
            new("unresolved", Unresolved),
        ]);
        var shapes = new TableBuilder("Stacks by shape").AddColumn(TableColumn.Text("shape")).AddColumn(TableColumn.Integer("stacks"));
        foreach (KeyValuePair<StackShape, long> kv in Shapes)
        {
            shapes.AddRow(ShapeText(kv.Key), kv.Value);
        }

        var reasons = new TableBuilder("Unresolved frames by reason")
            .AddColumn(TableColumn.Text("reason"))
            .AddColumn(TableColumn.Text("description"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Text("first frame"))
            .AddColumn(TableColumn.Text("first frame's reason"))
            .AddColumn(TableColumn.Integer("first line"))
            .AddColumn(TableColumn.Text("searched"));
        foreach (UnresolvedGroup g in UnresolvedGroups)
        {
            reasons.AddRow(g.Reason.ToString(), g.Description, g.Count, g.FirstExample, g.FirstReason, g.FirstLine > 0 ? g.FirstLine : TableCell.Empty, string.Join("\n", g.SearchLog));
        }

        var pdbs = new TableBuilder("PDBs looked up")
            .AddColumn(TableColumn.Text("pdb"))
            .AddColumn(TableColumn.Text("identity (GUID/age)"))
            .AddColumn(TableColumn.Text("identity from"))
            .AddColumn(TableColumn.Text("loaded"))
            .AddColumn(TableColumn.Text("verified"))
            .AddColumn(TableColumn.Text("path"))
            .AddColumn(TableColumn.Text("problem"))
            .AddColumn(TableColumn.Text("source lines"));
        foreach (PdbBinding p in Pdbs)
        {
            pdbs.AddRow(p.PdbName, p.Identity?.ToString() ?? string.Empty, p.IdentitySource.ToString(), p.IsLoaded ? "yes" : "no", p.IsVerified ? "yes" : "no",
                p.Path ?? string.Empty, p.Problem ?? string.Empty, p.SourceInfoProblem ?? string.Empty);
        }

        var blocks = new List<ReportBlock> { counts, shapes.Build(), reasons.Build(), pdbs.Build() };
        blocks.AddRange(Hints.Select(h => new Paragraph("Hint: " + h)));
        blocks.AddRange(Warnings.Select(w => new Paragraph("Warning: " + w)));
        return new ReportDocument("Callstack resolution", [new ReportSection(InputName ?? "input", blocks)]);
    }

    /// <summary>How a shape reads in text (<c>module+offset</c>, <c>symbolized in-engine</c>).</summary>
    /// <param name="shape">The shape.</param>
    /// <returns>The text.</returns>
    public static string ShapeText(StackShape shape) => shape switch
    {
        StackShape.NoFrames => "without frames",
        StackShape.SymbolizedInEngine => "symbolized in-engine",
        StackShape.ModuleOffset => "module+offset",
        StackShape.RawAddresses => "raw addresses",
        StackShape.Ordinals => "with ordinals",
        StackShape.CallstackRva => "callstack_rva",
        _ => "mixed",
    };

    private static string SourceText(PdbIdentitySource s) => s switch
    {
        PdbIdentitySource.Frame => "identity from the callstack_rva frames",
        PdbIdentitySource.SymbolMetadata => "identity from CSV symbol metadata",
        PdbIdentitySource.Binary => "identity from the DLL's RSDS record",
        PdbIdentitySource.BuildCatalog => "identity from the build catalog",
        _ => "no identity",
    };
}

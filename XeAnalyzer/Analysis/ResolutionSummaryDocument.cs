using System.Globalization;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis;

/// <summary>
/// A <see cref="ResolutionSummary"/> as documents (the symbol layer below knows nothing of output): the console
/// outline, and the summary as data. Immutable.
/// </summary>
/// <param name="summary">The summary.</param>
internal sealed class ResolutionSummaryDocument(ResolutionSummary summary) : IDocumentSource
{
    /// <summary>The summary.</summary>
    public ResolutionSummary Summary { get; } = summary ?? throw new ArgumentNullException(nameof(summary));

    /// <summary>
    /// The summary as an outline, as a console shows it: stacks by shape and frames by status, each unresolved reason
    /// (with up to six lines of what was searched), each PDB loaded, the hints and the warnings.
    /// </summary>
    /// <returns>The block.</returns>
    public Outline ToOutline()
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var items = new List<OutlineItem>();
        string shapes =
            Summary.Shapes.Count == 0
                ? string.Empty
                : " ("
                    + string.Join(
                        ", ",
                        Summary.Shapes.Select(kv =>
                            string.Create(ic, $"{kv.Value} {ResolutionSummary.ShapeText(kv.Key)}")
                        )
                    )
                    + ")";
        items.Add(
            new OutlineItem(
                0,
                string.Create(
                    ic,
                    $"{Summary.InputName ?? "input"}: {Summary.Stacks} stack(s){shapes}; {Summary.Frames} frame(s): "
                        + $"{Summary.InEngine} symbolized in-engine, {Summary.ResolvedOffline} resolved offline "
                        + $"({Summary.Unverified} unverified), {Summary.Unresolved} unresolved"
                )
            )
        );
        foreach (UnresolvedGroup g in Summary.UnresolvedGroups)
        {
            string line = g.FirstLine > 0 ? string.Create(ic, $", line {g.FirstLine}") : string.Empty;
            items.Add(
                new OutlineItem(
                    0,
                    string.Create(
                        ic,
                        $"unresolved: {g.Count} frame(s): {g.Description} (first: {g.FirstExample}{line})"
                    )
                )
            );
            foreach (string s in g.SearchLog.Take(6))
            {
                items.Add(new OutlineItem(1, "searched: " + s));
            }

            if (g.SearchLog.Count > 6)
            {
                items.Add(new OutlineItem(1, string.Create(ic, $"searched: … {g.SearchLog.Count - 6} more")));
            }
        }

        foreach (PdbBinding p in Summary.Pdbs.Where(p => p.IsLoaded))
        {
            items.Add(
                new OutlineItem(
                    0,
                    "pdb: "
                        + p
                        + " ("
                        + SourceText(p.IdentitySource)
                        + ") "
                        + p.Path
                        + (p.IsVerified ? string.Empty : " [unverified: matched by name only]")
                )
            );
            if (p.SourceInfoProblem is string source)
            {
                items.Add(new OutlineItem(1, source));
            }
        }

        items.AddRange(Summary.Hints.Select(h => new OutlineItem(0, "hint: " + h)));
        items.AddRange(Summary.Warnings.Select(w => new OutlineItem(0, "warning: " + w)));
        return new Outline(items);
    }

    /// <inheritdoc/>
    /// <remarks>
    /// The listing (text) is <see cref="ToOutline"/>, untitled and without a generated-by line, for a console. Every
    /// other view is the summary as data: the counts, stacks by shape, unresolved frames by reason (with what was
    /// searched), the PDBs looked up, hints and warnings.
    /// </remarks>
    public ReportDocument ToDocument(DocumentView view)
    {
        if (view == DocumentView.Listing)
        {
            return new ReportDocument(string.Empty, [new ReportSection(string.Empty, ToOutline())])
            {
                Generator = null,
            };
        }

        var counts = new KeyValueList([
            new("input", Summary.InputName ?? string.Empty),
            new("stacks", Summary.Stacks),
            new("frames", Summary.Frames),
            new("symbolized in-engine", Summary.InEngine),
            new("resolved offline", Summary.ResolvedOffline),
            new("of which unverified (PDB matched by name only)", Summary.Unverified),
            new("unresolved", Summary.Unresolved),
        ]);
        var shapes = new TableBuilder("Stacks by shape")
            .AddColumn(TableColumn.Text("shape"))
            .AddColumn(TableColumn.Integer("stacks"));
        foreach (KeyValuePair<StackShape, long> kv in Summary.Shapes)
        {
            shapes.AddRow(ResolutionSummary.ShapeText(kv.Key), kv.Value);
        }

        var reasons = new TableBuilder("Unresolved frames by reason")
            .AddColumn(TableColumn.Text("reason"))
            .AddColumn(TableColumn.Text("description"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Text("first frame"))
            .AddColumn(TableColumn.Text("first frame's reason"))
            .AddColumn(TableColumn.Integer("first line"))
            .AddColumn(TableColumn.Text("searched"));
        foreach (UnresolvedGroup g in Summary.UnresolvedGroups)
        {
            reasons.AddRow(
                DisplayNames.Of(g.Reason),
                g.Description,
                g.Count,
                g.FirstExample,
                g.FirstReason,
                g.FirstLine > 0 ? g.FirstLine : TableCell.Empty,
                string.Join("\n", g.SearchLog)
            );
        }

        var blocks = new List<ReportBlock>
        {
            counts,
            shapes.Build(),
            reasons.Build(),
            PdbTable(Summary.Pdbs, withSourceLines: true),
        };
        blocks.AddRange(HintsAndWarnings(Summary));
        return new ReportDocument("Callstack resolution", [new ReportSection(Summary.InputName ?? "input", blocks)]);
    }

    /// <summary>
    /// The "PDBs looked up" table of a resolution (here, and in the report's symbolization section): name, identity and
    /// where it came from, loaded, verified, path and problem; with <paramref name="withSourceLines"/>, also why source
    /// lines could not be read.
    /// </summary>
    internal static ReportTable PdbTable(IEnumerable<PdbBinding> pdbs, bool withSourceLines)
    {
        var t = new TableBuilder("PDBs looked up")
            .AddColumn(TableColumn.Text("pdb"))
            .AddColumn(TableColumn.Text("identity (GUID/age)"))
            .AddColumn(TableColumn.Text("identity from"))
            .AddColumn(TableColumn.Text("loaded"))
            .AddColumn(TableColumn.Text("verified"))
            .AddColumn(TableColumn.Text("path"))
            .AddColumn(TableColumn.Text("problem"));
        if (withSourceLines)
        {
            t.AddColumn(TableColumn.Text("source lines"));
        }

        foreach (PdbBinding p in pdbs)
        {
            TableCell[] row =
            [
                p.PdbName,
                p.Identity?.ToString() ?? string.Empty,
                DisplayNames.Of(p.IdentitySource),
                p.IsLoaded ? "yes" : "no",
                p.IsVerified ? "yes" : "no",
                p.Path ?? string.Empty,
                p.Problem ?? string.Empty,
            ];
            t.AddRow(withSourceLines ? [.. row, p.SourceInfoProblem ?? string.Empty] : row);
        }

        return t.Build();
    }

    /// <summary>A resolution's hints and warnings, one paragraph each.</summary>
    internal static IEnumerable<ReportBlock> HintsAndWarnings(ResolutionSummary summary) =>
        summary
            .Hints.Select(h => (ReportBlock)new Paragraph("Hint: " + h))
            .Concat(summary.Warnings.Select(w => new Paragraph("Warning: " + w)));

    private static string SourceText(PdbIdentitySource s) =>
        s == PdbIdentitySource.None ? "no identity" : "identity from " + DisplayNames.Of(s);
}

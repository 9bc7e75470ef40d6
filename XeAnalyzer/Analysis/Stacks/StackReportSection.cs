using System.Globalization;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// The stack buckets as a section of a capture report (the first of <see cref="StackBucketResult.Sections"/>): the
/// summary, the
/// <see cref="Top"/> largest buckets with the flame graph, the frames of the <see cref="FramesShown"/> largest, how
/// each input was resolved, and a table of every frame of the <see cref="FramesTableBuckets"/> largest. Immutable.
/// </summary>
/// <remarks>
/// The resolution part lists the PDBs only through the symbolization section (<see cref="SymbolizationResult"/>): a
/// batch shares one resolver, whose PDB list spans every capture, so it is left out here to keep each report
/// independent of the others.
/// </remarks>
/// <param name="result">The stack analysis's result.</param>
internal sealed class StackReportSection(StackBucketResult result) : IAnalysisResult
{
    /// <summary>The buckets kept in the report's tables (the rest are counted in a note).</summary>
    public const int Top = 500;

    /// <summary>The buckets whose frames are printed in the page.</summary>
    public const int FramesShown = 10;

    /// <summary>The buckets of the "Bucket frames" table.</summary>
    public const int FramesTableBuckets = 100;

    /// <summary>The stack analysis's result the section shows.</summary>
    internal StackBucketResult Result => result;

    public string Key => result.Key;

    public string Title => result.Title;

    public MissingData? MissingData => result.MissingData;

    public IReadOnlyList<AnalysisWarning> Warnings => result.Warnings;

    public long EventsUsed => result.EventsUsed;

    public AnalysisStatus Status => ((IAnalysisResult)result).Status;

    /// <summary>The section's document, the same in every view.</summary>
    public ReportDocument ToDocument(DocumentView view) => ToReport(result.Filter(Top, 0));

    private static ReportDocument ToReport(StackBucketResult shown)
    {
        // The parts of the stack document, for one page: the summary; the bucket table with the flame graph; the frames
        // of the largest buckets; the resolution without the resolver's PDB list; then every frame of the top buckets
        // as a table.
        var stacks = new StackBucketDocument(shown);
        var sections = new List<ReportSection>
        {
            new("Summary", stacks.SummaryList(), stacks.CountsParagraph()),
            new("Buckets", stacks.OverviewTable(), stacks.FlameGraph()),
        };
        if (FramesShown > 0 && shown.Buckets.Count > 0)
        {
            var frames = new List<ReportBlock> { stacks.Stacks(FramesShown) };
            if (shown.Buckets.Count > FramesShown)
            {
                frames.Add(
                    new Paragraph(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"The frames of the {FramesShown} largest of {shown.Buckets.Count:N0} buckets are shown; "
                                + $"the Bucket frames table (and its CSV file) has every frame of the "
                                + $"{Math.Min(FramesTableBuckets, shown.Buckets.Count)} largest."
                        )
                    )
                );
            }

            sections.Add(new ReportSection("Largest buckets, frames leaf first", frames));
        }

        sections.Add(new ReportSection("Resolution", ResolutionBlocks(shown)));
        sections.Add(
            new ReportSection(
                "Bucket frames",
                new StackBucketDocument(shown.Filter(FramesTableBuckets, 0)).FramesTable()
            )
        );
        return new ReportDocument("Stack buckets", sections);
    }

    private static List<ReportBlock> ResolutionBlocks(StackBucketResult shown)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var t = new TableBuilder("Resolution per input")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Text("kind"))
            .AddColumn(TableColumn.Text("module list"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Integer("histogram slots"))
            .AddColumn(TableColumn.Integer("distinct raw stacks"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Integer("in-engine"))
            .AddColumn(TableColumn.Integer("resolved offline"))
            .AddColumn(TableColumn.Integer("unverified"))
            .AddColumn(TableColumn.Integer("unresolved"));
        var reasons = new TableBuilder("Unresolved frames by reason")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Text("reason"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Text("first frame"));
        var notes = new List<ReportBlock>();
        foreach (StackInputSummary i in shown.Inputs)
        {
            ResolutionSummary r = i.Resolution;
            t.AddRow(
                i.Name,
                i.Kind,
                i.ModuleMapPath ?? "(none)",
                i.Events,
                i.HistogramSlots,
                i.DistinctRawStacks,
                r.Frames,
                r.InEngine,
                r.ResolvedOffline,
                r.Unverified,
                r.Unresolved
            );
            foreach (UnresolvedGroup g in r.UnresolvedGroups)
            {
                reasons.AddRow(i.Name, g.Description, g.Count, g.FirstExample);
            }

            foreach (string h in r.Hints)
            {
                notes.Add(new Paragraph("Hint (" + i.Name + "): " + h));
            }

            foreach (string w in r.Warnings.Concat(i.Warnings).Distinct(StringComparer.Ordinal))
            {
                notes.Add(new Paragraph("Warning (" + i.Name + "): " + w));
            }
        }

        t.AddNote(
            string.Create(
                ic,
                $"Frames of each distinct raw stack, counted once. {shown.DistinctRawStacks:N0} distinct raw "
                    + $"stack(s) gave {shown.TotalBuckets:N0} bucket(s) after symbolization. The PDBs used, and the "
                    + $"frames "
                    + $"counted per event, are under Symbolization."
            )
        );
        reasons.AddNote("Frames of each distinct raw stack, counted once.");
        ReportTable? files = new StackBucketDocument(shown).FilesTable();
        return files is null ? [t.Build(), reasons.Build(), .. notes] : [t.Build(), files, reasons.Build(), .. notes];
    }
}

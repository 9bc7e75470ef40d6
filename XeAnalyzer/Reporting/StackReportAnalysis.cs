using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The stack buckets (<see cref="StackBucketAnalysis"/>: events and callstack histogram slots bucketed by callstack after
/// symbolization) as a report section: the top buckets with their frames, the flame graph, how each input was resolved, and a table of
/// every frame of the 100 largest buckets.
/// </summary>
/// <remarks>
/// The resolution part lists the PDBs only through the symbolization section (<see cref="SymbolizationReportAnalysis"/>): a batch shares
/// one resolver, whose PDB list spans every capture, so it is left out here to keep each report independent of the others.
/// </remarks>
/// <param name="analysis">The stack analysis (share one instance with <see cref="SymbolizationReportAnalysis"/> so the stacks are bucketed once); <see langword="null"/> for the defaults.</param>
/// <param name="top">The buckets kept in the report's tables (1 to 100,000; default 500; the rest are counted in a note).</param>
/// <param name="framesShown">The buckets whose frames are printed in the page (0 to 1,000; default 10).</param>
public sealed class StackReportAnalysis(StackBucketAnalysis? analysis = null, int top = 500, int framesShown = 10) : IReportAnalysis
{
    /// <summary>The buckets of the "Bucket frames" table.</summary>
    public const int FramesTableBuckets = 100;

    /// <summary>The most buckets kept in the report's tables.</summary>
    public int Top { get; } = top is >= 1 and <= 100_000 ? top : throw new ArgumentOutOfRangeException(nameof(top), top, "expected 1 to 100,000");

    /// <summary>The buckets whose frames are printed in the page.</summary>
    public int FramesShown { get; } = framesShown is >= 0 and <= 1000 ? framesShown : throw new ArgumentOutOfRangeException(nameof(framesShown), framesShown, "expected 0 to 1,000");

    /// <inheritdoc/>
    public string Key => "stacks";

    /// <inheritdoc/>
    public string Title => "Stacks";

    /// <inheritdoc/>
    public ICaptureAnalysis Analysis { get; } = analysis ?? new StackBucketAnalysis();

    /// <inheritdoc/>
    public ReportAnalysisOutcome Describe(IAnalysisResult result, CaptureSummary read, AnalysisContext context)
    {
        var all = (StackBucketResult)result;
        if (all.MissingData is MissingData m)
        {
            return ReportAnalysisOutcome.NotPossible(m, all.EventsRead, all);
        }

        StackBucketResult shown = all.Filter(Top, 0);
        return ReportAnalysisOutcome.Completed(ToReport(shown), all.TotalCount, all.Warnings, all);
    }

    private ReportDocument ToReport(StackBucketResult result)
    {
        // The parts of the stack document, for one page: the summary; the bucket table with the flame graph; the frames of the largest
        // buckets; the resolution without the resolver's PDB list; then every frame of the top buckets as a table.
        var stacks = new StackBucketDocument(result);
        var sections = new List<ReportSection>
        {
            new("Summary", stacks.SummaryList(), stacks.CountsParagraph()),
            new("Buckets", stacks.OverviewTable(), stacks.FlameGraph()),
        };
        if (FramesShown > 0 && result.Buckets.Count > 0)
        {
            var frames = new List<ReportBlock> { stacks.Stacks(FramesShown) };
            if (result.Buckets.Count > FramesShown)
            {
                frames.Add(new Paragraph(string.Create(CultureInfo.InvariantCulture,
                    $"The frames of the {FramesShown} largest of {result.Buckets.Count:N0} buckets are shown; the Bucket frames table (and its CSV file) has every frame of the {Math.Min(FramesTableBuckets, result.Buckets.Count)} largest.")));
            }

            sections.Add(new ReportSection("Largest buckets, frames leaf first", frames));
        }

        sections.Add(new ReportSection("Resolution", ResolutionBlocks(result)));
        sections.Add(new ReportSection("Bucket frames", new StackBucketDocument(result.Filter(FramesTableBuckets, 0)).FramesTable()));
        return new ReportDocument("Stack buckets", sections);
    }

    private static List<ReportBlock> ResolutionBlocks(StackBucketResult result)
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
        foreach (StackInputSummary i in result.Inputs)
        {
            ResolutionSummary r = i.Resolution;
            t.AddRow(i.Name, i.Kind, i.ModuleMapPath ?? "(none)", i.Events, i.HistogramSlots, i.DistinctRawStacks, r.Frames, r.InEngine, r.ResolvedOffline, r.Unverified, r.Unresolved);
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

        t.AddNote(string.Create(ic, $"Frames of each distinct raw stack, counted once. {result.DistinctRawStacks:N0} distinct raw stack(s) gave {result.TotalBuckets:N0} bucket(s) after symbolization. The PDBs used, and the frames counted per event, are under Symbolization."));
        reasons.AddNote("Frames of each distinct raw stack, counted once.");
        return [t.Build(), reasons.Build(), .. notes];
    }
}

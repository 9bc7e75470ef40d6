using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The stack buckets (<see cref="StackBucketBuilder"/>: events bucketed by callstack after symbolization) as a report analysis:
/// the top buckets with their frames, the flame graph, how each input was resolved, and a table of every frame of the 100 largest buckets. The
/// events of <c>.xel</c> captures come from the report's one pass (one input per capture, with its module list); target-data XML
/// files are read by the stack reader itself (histogram slots become buckets with their counts).
/// </summary>
/// <remarks>
/// The resolution section lists the PDBs only through <see cref="CallstackSymbolization"/>'s section: a batch shares one resolver,
/// whose PDB list spans every capture, so it is left out here to keep each report independent of the others.
/// </remarks>
/// <param name="options">Bucketing options; <see langword="null"/> for the defaults.</param>
/// <param name="top">The buckets kept in the report's tables (1 to 100,000; default 500; the rest are counted in a note).</param>
/// <param name="framesShown">The buckets whose frames are printed in the page (0 to 1,000; default 10).</param>
public sealed class StackReportAnalysis(StackBucketOptions? options = null, int top = 500, int framesShown = 10) : IReportAnalysis
{
    /// <summary>The bucketing options.</summary>
    public StackBucketOptions Options { get; } = options ?? StackBucketOptions.Default;

    /// <summary>The buckets kept in the report's tables.</summary>
    public int Top { get; } = top is >= 1 and <= 100_000 ? top : throw new ArgumentOutOfRangeException(nameof(top), top, "expected 1 to 100,000");

    /// <summary>The buckets whose frames are printed in the page.</summary>
    public int FramesShown { get; } = framesShown is >= 0 and <= 1000 ? framesShown : throw new ArgumentOutOfRangeException(nameof(framesShown), framesShown, "expected 0 to 1,000");

    /// <summary>The buckets whose frames are listed in the frames table (one row per frame): the 100 largest.</summary>
    public const int FramesTableBuckets = 100;

    /// <inheritdoc/>
    public string Key => "stacks";

    /// <inheritdoc/>
    public string Title => "Stacks";

    /// <inheritdoc/>
    public IReadOnlyCollection<string>? EventNames => null;

    /// <inheritdoc/>
    public bool Accepts(XeEventType eventType, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(eventType);
        ArgumentNullException.ThrowIfNull(actions);
        return Options.StackSource is string source
            ? EventFilter.FindColumn(eventType, actions, source, source.Contains('.', StringComparison.Ordinal)) != int.MinValue
            : actions.IndexOf("callstack") >= 0 || actions.IndexOf("callstack_rva") >= 0;
    }

    /// <inheritdoc/>
    public ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(events);
        ArgumentNullException.ThrowIfNull(context);
        var builder = new StackBucketBuilder(Options);
        var targetFiles = new HashSet<string>(context.TargetDataFiles, StringComparer.Ordinal);

        // One input per run of events that share a resolver session (a capture set and its module list); events of target-data
        // files are skipped here and read below with their histogram slots.
        using (IEnumerator<XEvent> e = events.GetEnumerator())
        {
            bool more = e.MoveNext();
            while (more)
            {
                string? file = e.Current.Source.FilePath;
                if (file is not null && targetFiles.Contains(file))
                {
                    more = e.MoveNext();
                    continue;
                }

                ResolverSession session = context.SessionFor(file);
                var run = new Run(e, session, context, targetFiles);
                builder.AddEvents(run, session, Describe(context, file), cancellationToken);
                more = run.More;
            }
        }

        foreach (string xml in context.TargetDataFiles)
        {
            using StackTextReader reader = StackTextReader.OpenFile(xml, new StackTextReaderOptions { FilePath = xml, Limits = context.InputOptions.TextLimits });
            StackInputInfo info = Describe(context, xml);
            builder.AddTargetData(reader, context.SessionFor(xml), info with { Kind = "target-xml" }, context.Filter, cancellationToken);
        }

        StackBucketResult all = builder.Build(cancellationToken);
        if (all.MissingData is MissingData m)
        {
            return ReportAnalysisOutcome.NotPossible(m, all.EventsRead, all);
        }

        StackBucketResult shown = all.Filter(Top, 0);
        return ReportAnalysisOutcome.Completed(ToReport(shown), all.EventsWithStack, all.Warnings, all);
    }

    private static StackInputInfo Describe(ReportAnalysisContext context, string? file)
    {
        if (file is null)
        {
            return new StackInputInfo("events");
        }

        string name = context.Captures.FirstOrDefault(c => c.Files.Contains(file, StringComparer.Ordinal))?.Files[0] ?? file;
        string? list = context.ModuleLists.GetValueOrDefault(file);
        return new StackInputInfo(context.DisplayPath(name), "xel", list is null ? null : context.DisplayPath(list),
            list is null ? ModuleMapSource.None : context.ModuleListIsExplicit ? ModuleMapSource.Explicit : ModuleMapSource.Sidecar);
    }

    private ReportDocument ToReport(StackBucketResult result)
    {
        // The writer's sections, rearranged for one page: the bucket table with the flame graph, then the frames of the largest
        // buckets; the resolution without the resolver's PDB list; then every frame of the top buckets as a table.
        ReportDocument full = result.ToReport(FramesShown);
        ReportSection? Find(string title) => full.Sections.FirstOrDefault(s => string.Equals(s.Title, title, StringComparison.Ordinal));
        var sections = new List<ReportSection>();
        if (Find("Summary") is ReportSection summary)
        {
            sections.Add(summary);
        }

        ReportSection? buckets = Find("Buckets");
        var top = new List<ReportBlock>();
        if (buckets is not null && buckets.Blocks.Count > 0)
        {
            top.Add(buckets.Blocks[0]);
        }

        top.AddRange(Find("Flame graph")?.Blocks ?? []);
        sections.Add(new ReportSection("Buckets", top));
        if (buckets is not null && buckets.Blocks.Count > 1)
        {
            var frames = new List<ReportBlock>(buckets.Blocks.Skip(1));
            if (result.Buckets.Count > FramesShown)
            {
                frames.Add(new Paragraph(string.Create(CultureInfo.InvariantCulture,
                    $"The frames of the {FramesShown} largest of {result.Buckets.Count:N0} buckets are shown; the Bucket frames table (and its CSV file) has every frame of the {Math.Min(FramesTableBuckets, result.Buckets.Count)} largest.")));
            }

            sections.Add(new ReportSection("Largest buckets, frames leaf first", frames));
        }

        sections.Add(new ReportSection("Resolution", ResolutionBlocks(result)));
        sections.Add(new ReportSection("Bucket frames", StackBucketWriter.ToFramesTable(result.Filter(FramesTableBuckets, 0))));
        return new ReportDocument(full.Title, sections);
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

    /// <summary>The events of one input: from the enumerator's current event while the session stays the same.</summary>
    private sealed class Run(IEnumerator<XEvent> e, ResolverSession session, ReportAnalysisContext context, HashSet<string> skip) : IEnumerable<XEvent>
    {
        private bool _used;

        /// <summary>Whether the enumerator holds an event after the run ended (the first event of the next run).</summary>
        public bool More { get; private set; }

        public IEnumerator<XEvent> GetEnumerator()
        {
            if (_used)
            {
                throw new InvalidOperationException("a run is enumerated once");
            }

            _used = true;
            string? lastFile = e.Current.Source.FilePath;
            bool same = true;
            while (true)
            {
                yield return e.Current;
                if (!e.MoveNext())
                {
                    More = false;
                    yield break;
                }

                string? file = e.Current.Source.FilePath;
                if (!ReferenceEquals(file, lastFile))
                {
                    lastFile = file;
                    same = (file is null || !skip.Contains(file)) && ReferenceEquals(context.SessionFor(file), session);
                }

                if (!same)
                {
                    More = true;
                    yield break;
                }
            }
        }

        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
    }
}

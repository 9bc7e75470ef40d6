using System.Globalization;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>Frames by resolution status, counted once per event that carries them.</summary>
/// <param name="Stacks">Callstacks counted (events with a stack, less those beyond the distinct-stack cap).</param>
/// <param name="Frames">Frames of those stacks.</param>
/// <param name="InEngine">Frames the capture held symbolized.</param>
/// <param name="ResolvedOffline">Frames resolved offline.</param>
/// <param name="Unverified">Of those, frames resolved through a PDB matched by name only.</param>
/// <param name="Unresolved">Frames left unresolved.</param>
public sealed record SymbolizationCounts(
    long Stacks,
    long Frames,
    long InEngine,
    long ResolvedOffline,
    long Unverified,
    long Unresolved
)
{
    /// <summary>Creates the counts of a resolution summary (its stacks and frames as it counted them).</summary>
    /// <param name="summary">The summary.</param>
    /// <returns>The counts.</returns>
    public static SymbolizationCounts From(ResolutionSummary summary)
    {
        ArgumentNullException.ThrowIfNull(summary);
        return new(
            summary.Stacks,
            summary.Frames,
            summary.InEngine,
            summary.ResolvedOffline,
            summary.Unverified,
            summary.Unresolved
        );
    }
}

/// <summary>
/// The symbolization of one capture's stacks, counted per event: how the frames resolved, which PDBs they used and why
/// the others did not resolve. It is a per-event view of the same raw-stack table the stack buckets come from
/// (<see cref="StackBucketResult.Symbolization"/>), not a second symbolization: a report shows it as the section after
/// the buckets (<see cref="StackBucketResult.Sections"/>). Immutable.
/// </summary>
internal sealed class SymbolizationResult : IAnalysisResult
{
    internal SymbolizationResult(ResolutionSummary summary)
    {
        Summary = summary;
    }

    /// <inheritdoc/>
    public string Key => "symbols";

    /// <inheritdoc/>
    public string Title => "Symbolization";

    /// <summary>What the capture lacks (no stacks to symbolize: the stack buckets'
    /// <see cref="StackBucketResult.MissingData"/>), or <see langword="null"/>.</summary>
    public MissingData? MissingData { get; internal init; }

    /// <inheritdoc/>
    public IReadOnlyList<AnalysisWarning> Warnings => [];

    /// <summary>The events with a non-empty callstack (0 when data is missing).</summary>
    public long EventsUsed => MissingData is null ? EventsWithCallstacks : 0;

    /// <summary>The per-event counts (<see cref="Counts"/>), or <see langword="null"/> when there were no stacks to
    /// symbolize.</summary>
    public SymbolizationCounts? FrameCounts => MissingData is null ? Counts : null;

    /// <summary>
    /// The resolution summary with each distinct stack counted once (as <c>xeanalyze resolve</c> counts stacks it is
    /// given): the hints, warnings, and the search logs of missing PDBs. Its <see cref="ResolutionSummary.Pdbs"/> is
    /// empty: the PDBs this capture used are in <see cref="Pdbs"/>. The per-event figures are <see cref="Counts"/> and
    /// <see cref="UnresolvedByReason"/>.
    /// </summary>
    public ResolutionSummary Summary { get; }

    /// <summary>Frames by status, counted once per event that carries them.</summary>
    public SymbolizationCounts Counts { get; internal init; } = new(0, 0, 0, 0, 0, 0);

    /// <summary>Unresolved frames by reason, counted once per event that carries them (most first; search logs from
    /// <see cref="Summary"/>).</summary>
    public IReadOnlyList<UnresolvedGroup> UnresolvedByReason { get; internal init; } = [];

    /// <summary>The PDBs this capture's frames were looked up in (found, damaged or missing), by name then
    /// identity.</summary>
    public IReadOnlyList<PdbBinding> Pdbs { get; internal init; } = [];

    /// <summary>Events with a non-empty callstack.</summary>
    public long EventsWithCallstacks { get; internal init; }

    /// <summary>Distinct raw address lists (per module list).</summary>
    public long DistinctStacks { get; internal init; }

    /// <summary>Events whose stack was not kept because <see cref="StackBucketOptions.MaxDistinctStacks"/> was
    /// reached.</summary>
    public long EventsBeyondCap { get; internal init; }

    /// <summary>Events whose callstack value was empty.</summary>
    public long EmptyStacks { get; internal init; }

    /// <summary>The module list used for each group of inputs (display paths; <c>(none)</c> when an input had
    /// none).</summary>
    public IReadOnlyList<string> ModuleLists { get; internal init; } = [];

    /// <summary>Events with callstacks by full event name (ordinal order).</summary>
    public IReadOnlyDictionary<string, long> EventsByName { get; internal init; } = new Dictionary<string, long>();

    /// <summary>The per-event view of a stack analysis's symbolization.</summary>
    /// <param name="stacks">The stack analysis's result (with <see cref="StackBucketResult.Symbolization"/>).</param>
    /// <returns>The result.</returns>
    public static SymbolizationResult From(StackBucketResult stacks)
    {
        ArgumentNullException.ThrowIfNull(stacks);
        StackSymbolization s =
            stacks.Symbolization
            ?? throw new ArgumentException(
                "the result has no symbolization (it was not built by StackBucketBuilder)",
                nameof(stacks)
            );
        var byEvent = new SortedDictionary<string, long>(StringComparer.Ordinal);
        long empty = 0;
        var buckets = new BucketPositions(stacks.Buckets);
        for (int i = 0; i < buckets.Count; i++)
        {
            IReadOnlyList<string> names = buckets.EventNamesAt(i);
            string name =
                buckets.EventNameAt(i) ?? (names.Count == 1 ? names[0] : "(histogram slots and merged events)");
            long count = buckets.CountAt(i);
            byEvent[name] = byEvent.GetValueOrDefault(name) + count;
            if (buckets.FrameCountAt(i) == 0)
            {
                empty += count;
            }
        }

        return new SymbolizationResult(s.Resolution)
        {
            MissingData = stacks.MissingData,
            Counts = new SymbolizationCounts(
                s.Stacks,
                s.Frames,
                s.InEngine,
                s.ResolvedOffline,
                s.Unverified,
                s.Unresolved
            ),
            UnresolvedByReason = s.UnresolvedByReason,
            Pdbs = s.Pdbs,
            EventsWithCallstacks = s.Stacks,
            DistinctStacks = stacks.DistinctRawStacks,
            EventsBeyondCap = stacks.UntrackedEvents,
            EmptyStacks = empty,
            ModuleLists = [.. stacks.Inputs.Select(i => i.ModuleMapPath ?? "(none)")],
            EventsByName = byEvent,
        };
    }

    /// <summary>The result as a document: the same in every view (<see cref="ToReport"/>).</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => ToReport();

    /// <summary>The result as a report section: counts, unresolved frames by reason, PDBs looked up, hints and
    /// warnings.</summary>
    /// <returns>The report.</returns>
    public ReportDocument ToReport()
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        ResolutionSummary s = Summary;
        SymbolizationCounts n = Counts;
        var items = new List<KeyValuePair<string, TableCell>>
        {
            new("events with callstacks", EventsWithCallstacks),
            new(
                "events with callstacks, by event",
                string.Join(", ", EventsByName.Select(kv => kv.Key + " (" + kv.Value.ToString("N0", ic) + ")"))
            ),
            new("distinct stacks", DistinctStacks),
            new("frames (per event)", n.Frames),
            new("symbolized in-engine", n.InEngine),
            new("resolved offline", n.ResolvedOffline),
            new("of which unverified (PDB matched by name only)", n.Unverified),
            new("unresolved", n.Unresolved),
            new(
                "resolved share",
                n.Frames == 0
                    ? TableCell.Empty
                    : TableCell.FromPercentage((double)(n.InEngine + n.ResolvedOffline) / n.Frames)
            ),
            new(
                "frames of the distinct stacks (each once)",
                string.Create(
                    ic,
                    $"{s.Frames:N0}: {s.InEngine:N0} in-engine, {s.ResolvedOffline:N0} offline, {s.Unresolved:N0} "
                        + $"unresolved"
                )
            ),
            new("module list", string.Join(", ", ModuleLists.Distinct(StringComparer.Ordinal))),
        };
        if (EventsBeyondCap > 0)
        {
            items.Add(new("events beyond the distinct-stack cap (not counted)", EventsBeyondCap));
        }

        if (EmptyStacks > 0)
        {
            items.Add(new("events with an empty callstack", EmptyStacks));
        }

        var blocks = new List<ReportBlock>
        {
            new KeyValueList(items),
            new Paragraph(
                "Each event's raw callstack (return addresses, leaf first) is placed in a module with the capture's "
                    + "module list (sys.dm_os_loaded_modules, the <set-name>.modules.txt sidecar) and resolved through "
                    + "the "
                    + "PDBs found on the symbol path; frames are counted once per event. Unverified frames were "
                    + "resolved "
                    + "through a PDB matched by name only: nothing identified the module's build (give --binaries or "
                    + "--sql-build)."
            ),
        };

        var reasons = new TableBuilder("Unresolved frames by reason")
            .AddColumn(TableColumn.Text("reason"))
            .AddColumn(TableColumn.Text("description"))
            .AddColumn(TableColumn.Integer("frames (per event)"))
            .AddColumn(TableColumn.Text("first frame"))
            .AddColumn(TableColumn.Text("first frame's reason"));
        foreach (UnresolvedGroup g in UnresolvedByReason)
        {
            reasons.AddRow(DisplayNames.Of(g.Reason), g.Description, g.Count, g.FirstExample, g.FirstReason);
        }

        foreach (UnresolvedGroup g in UnresolvedByReason.Where(g => g.SearchLog.Count > 0).Take(8))
        {
            reasons.AddNote(
                "searched for "
                    + g.Description
                    + ": "
                    + string.Join("; ", g.SearchLog.Take(6))
                    + (g.SearchLog.Count > 6 ? "; …" : string.Empty)
            );
        }

        blocks.Add(reasons.Build());

        blocks.Add(ResolutionSummaryDocument.PdbTable(Pdbs, withSourceLines: false));
        blocks.AddRange(ResolutionSummaryDocument.HintsAndWarnings(s));
        return new ReportDocument("Symbolization", [new ReportSection("Callstacks", blocks)]);
    }
}

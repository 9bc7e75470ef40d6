using XeAnalyzer.Output;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>How a <see cref="StackDiffDocument"/> is made. Immutable.</summary>
public sealed record StackDiffDocumentOptions
{
    /// <summary>How the base inputs are named (for example the command-line argument).</summary>
    public string BaseLabel { get; init; } = "base";

    /// <summary>How the new inputs are named.</summary>
    public string NewLabel { get; init; } = "new";

    /// <summary>The most stacks the listing shows (0: all; the other views show all).</summary>
    public int Top
    {
        get;
        init =>
            field =
                value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "expected 0 or more");
    }

    /// <summary>The results of the regression gates (<see cref="StackDiff.Check"/>), or <see langword="null"/> when
    /// none were asked for.</summary>
    public StackDiffGate? Gate { get; init; }
}

/// <summary>
/// A <see cref="StackDiff"/> as documents.
/// <list type="bullet">
/// <item><see cref="DocumentView.Listing"/> (text): the totals under the title, then each stack (up to
/// <see cref="StackDiffDocumentOptions.Top"/>) headed with its weights, shares and deltas, its frames, and the gate
/// results.</item>
/// <item><see cref="DocumentView.Page"/> (HTML): totals, the table of every stack, a differential flame graph.</item>
/// <item><see cref="DocumentView.Table"/> (CSV): the one table of the stacks.</item>
/// <item><see cref="DocumentView.Data"/> (JSON): the totals, one row per stack (kind, event, base/new count,
/// weight and share, deltas, leaf and frames <c>\n</c>-separated), the gate results.</item>
/// <item><see cref="DocumentView.Figure"/> (SVG, folded): the differential flame graph (new weights, base weights as
/// the baseline).</item>
/// </list>
/// Immutable.
/// </summary>
public sealed class StackDiffDocument : IDocumentSource
{
    private const string Title = "Stack diff";

    /// <summary>Creates the documents of a comparison.</summary>
    /// <param name="diff">The comparison.</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    public StackDiffDocument(StackDiff diff, StackDiffDocumentOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(diff);
        Diff = diff;
        Options = options ?? new StackDiffDocumentOptions();
    }

    /// <summary>The comparison.</summary>
    public StackDiff Diff { get; }

    /// <summary>The options.</summary>
    public StackDiffDocumentOptions Options { get; }

    /// <inheritdoc/>
    public ReportDocument ToDocument(DocumentView view) =>
        view switch
        {
            DocumentView.Listing => Listing(),
            DocumentView.Data => Data(),
            DocumentView.Table => ReportDocument.Of(Title, Table()),
            DocumentView.Figure => new ReportDocument(
                Title,
                [
                    new ReportSection(
                        "Differential flame graph",
                        new FlameGraph(
                            Diff.ToCallTree(),
                            new FlameGraphOptions
                            {
                                Title = "Stack diff: " + Options.NewLabel + " vs " + Options.BaseLabel,
                                CountName = Diff.Weight == StackWeight.Duration ? null : "events",
                                Differential = true,
                            }
                        )
                    ),
                ]
            ),
            _ => Page(),
        };

    /// <summary>One row per stack: kind, event, base/new count, weight and share, deltas, leaf and frames
    /// (<c>\n</c>-separated).</summary>
    /// <returns>The table.</returns>
    public ReportTable Table()
    {
        var t = new TableBuilder(Title)
            .AddColumn(TableColumn.Text("change"))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("base_count"))
            .AddColumn(TableColumn.Integer("new_count"))
            .AddColumn(TableColumn.Integer("base_weight"))
            .AddColumn(TableColumn.Integer("new_weight"))
            .AddColumn(TableColumn.Percentage("base_share", 4))
            .AddColumn(TableColumn.Percentage("new_share", 4))
            .AddColumn(TableColumn.Integer("delta"))
            .AddColumn(TableColumn.Percentage("share_delta", 4))
            .AddColumn(TableColumn.Text("leaf"))
            .AddColumn(TableColumn.Text("distinguishing_frames"))
            .AddColumn(TableColumn.Text("frames"));
        t.AddNote(
            "weight: "
                + (
                    Diff.Weight == StackWeight.Duration
                        ? "summed duration field (" + Diff.DurationLabel + ")"
                        : "event count"
                )
                + "; shares are fractions of each side's total; frames leaf first; distinguishing frames: from the "
                + "leaf, the first frame where the stack leaves every other stack, after the frame before it."
        );
        IReadOnlyList<StackBucketChange> changes = Diff.Changes;
        return t.BuildWithRowsOnRead(
            changes.Count,
            i =>
            {
                StackBucketResult.CollectYoungEvery(i, changes.Count);
                StackBucketChange c = changes[i];
                return
                [
                    StackDiff.KindText(c.Kind),
                    c.EventName,
                    c.BaseCount,
                    c.NewCount,
                    c.BaseWeight,
                    c.NewWeight,
                    TableCell.FromPercentage(c.BaseShare),
                    TableCell.FromPercentage(c.NewShare),
                    c.Delta,
                    TableCell.FromPercentage(c.ShareDelta),
                    c.Frames.Count > 0 ? c.Frames[0] : string.Empty,
                    c.Frames.Count > 0 ? Diff.NameOf(c) : string.Empty,
                    string.Join("\n", c.Frames),
                ];
            }
        );
    }

    private List<KeyValuePair<string, TableCell>> Totals() =>
        [
            Kv("base total", Diff.BaseTotal),
            Kv("new total", Diff.NewTotal),
            Kv(
                "growth",
                double.IsFinite(Diff.TotalGrowth) ? TableCell.FromPercentage(Diff.TotalGrowth) : TableCell.Empty
            ),
            Kv("stacks in both", Diff.CommonCount),
            Kv("new stacks", Diff.NewStacks.Count),
            Kv("vanished stacks", Diff.VanishedStacks.Count),
        ];

    /// <summary>The totals, then the comparison's warnings.</summary>
    private List<ReportBlock> SummaryBlocks(List<KeyValuePair<string, TableCell>> totals)
    {
        var blocks = new List<ReportBlock> { new KeyValueList(totals) };
        blocks.AddRange(Diff.Warnings.Select(w => new Paragraph("Warning: " + w)));
        return blocks;
    }

    private string Description() => "Base: " + Options.BaseLabel + ". New: " + Options.NewLabel + ".";

    private ReportDocument Page() =>
        new(
            Title,
            [
                new ReportSection("Summary", SummaryBlocks(Totals())),
                new ReportSection("Stacks", Table()),
                new ReportSection(
                    "Differential flame graph",
                    new FlameGraph(
                        Diff.ToCallTree(),
                        new FlameGraphOptions { Title = "Stack diff (width = new; red = share grew, blue = shrank)" }
                    )
                ),
            ]
        )
        {
            Description = Description(),
        };

    private ReportDocument Data()
    {
        List<KeyValuePair<string, TableCell>> totals = Totals();
        totals.Add(Kv("weight", Diff.Weight == StackWeight.Duration ? "duration" : "count"));
        if (Diff.Weight == StackWeight.Duration)
        {
            totals.Add(Kv("duration unit", Diff.DurationLabel));
        }

        totals.Add(Kv("matched by", Diff.MatchedByEvent ? "event name and frames" : "frames"));
        var sections = new List<ReportSection> { new("Summary", SummaryBlocks(totals)), new("Stacks", Table()) };
        if (Options.Gate is StackDiffGate gate)
        {
            sections.Add(
                new ReportSection("Gates", new KeyValueList([Kv("tripped", gate.Tripped ? "yes" : "no")]), Gates(gate))
            );
        }

        return new ReportDocument(Title, sections) { Description = Description() };
    }

    private ReportDocument Listing()
    {
        string unit =
            Diff.Weight == StackWeight.Duration ? "summed duration (" + Diff.DurationLabel + ")" : "event count";
        var lines = new List<string>
        {
            "base: " + Options.BaseLabel + string.Create(Ic, $" ({Diff.Base.TotalBuckets:N0} buckets)"),
            "new:  " + Options.NewLabel + string.Create(Ic, $" ({Diff.New.TotalBuckets:N0} buckets)"),
            "weight: " + unit + string.Create(Ic, $"; total {Diff.BaseTotal:N0} -> {Diff.NewTotal:N0} ({Growth()})"),
            string.Create(Ic, $"stacks: {Diff.CommonCount:N0} in both, {Diff.NewStacks.Count:N0} new, ")
                + string.Create(Ic, $"{Diff.VanishedStacks.Count:N0} vanished; matched by ")
                + (Diff.MatchedByEvent ? "event name and frames" : "frames"),
            "order: share delta, biggest growth first.",
        };
        lines.AddRange(Diff.Warnings.Select(w => "warning: " + w));
        string description = string.Join('\n', lines);
        int shown = Options.Top > 0 ? Math.Min(Options.Top, Diff.Changes.Count) : Diff.Changes.Count;
        var items = new List<StackListItem>(shown);
        for (int i = 0; i < shown; i++)
        {
            StackBucketChange c = Diff.Changes[i];
            string heading =
                string.Create(
                    Ic,
                    $"#{i + 1} {StackDiff.KindText(c.Kind)}: base {c.BaseWeight:N0} ({Percent(c.BaseShare, 2)}), new "
                        + $"{c.NewWeight:N0} ({Percent(c.NewShare, 2)}), delta "
                        + $"{(c.Delta >= 0 ? "+" : string.Empty)}{c.Delta:N0} "
                        + $"({(c.ShareDelta >= 0 ? "+" : "-")}{Math.Abs(c.ShareDelta * 100):F2} points)"
                )
                + (c.EventName is string en ? " " + en : string.Empty)
                + (
                    Diff.Weight == StackWeight.Duration
                        ? string.Create(Ic, $"; events {c.BaseCount:N0} -> {c.NewCount:N0}")
                        : string.Empty
                );
            int at = Diff.DistinguishingFrame(c);
            string[] details =
                at > 0
                    ?
                    [
                        string.Create(Ic, $"told apart by frame {at + 1}")
                            + ", where it leaves every other stack: "
                            + Diff.NameOf(c),
                    ]
                    : [];
            items.Add(new StackListItem(heading, c.Frames.Select(f => new StackListFrame(f)), details));
        }

        string[] notes =
            shown < Diff.Changes.Count
                ? [string.Create(Ic, $"{Diff.Changes.Count - shown:N0} more stack(s) not shown (--top).")]
                : [];
        var sections = new List<ReportSection> { new(string.Empty, new StackList(items, notes)) };
        if (Options.Gate is StackDiffGate gate)
        {
            sections.Add(new ReportSection("Gates", Gates(gate)));
        }

        return new ReportDocument(Title, sections) { Description = description, Generator = null };
    }

    private static Outline Gates(StackDiffGate gate) =>
        new([
            .. gate.Reasons.Select(r => new OutlineItem(0, r)),
            new OutlineItem(0, gate.Tripped ? "result: FAILED" : "result: passed"),
        ]);

    private string Growth() =>
        double.IsPositiveInfinity(Diff.TotalGrowth) ? "new from 0" : SignedPercent(Diff.TotalGrowth, 2);
}

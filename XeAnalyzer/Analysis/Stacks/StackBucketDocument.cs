using System.Globalization;
using System.Text;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// The stack buckets of a <see cref="StackBucketResult"/> as documents, and the parts a capture report composes.
/// <list type="bullet">
/// <item><see cref="DocumentView.Listing"/> (text, as the seed write-ups show stacks): the counts under the title, then
/// per bucket a heading <c>Bucket N of M: C events (S %) event</c>, its detail lines (durations, first/last seen, raw
/// stacks merged, unverified frames), its frames leaf first (an unresolved frame followed by <c> -- unresolved:
/// reason</c>), then the resolution of each input (module map used, frames in-engine/offline/unresolved by reason,
/// unverified, PDBs, hints) and the warnings.</item>
/// <item><see cref="DocumentView.Page"/> (HTML, JSON): a summary, the bucket table (with each bucket's distinguishing
/// frame), the frames of the first <see cref="StackDocumentOptions.StacksShown"/> buckets with each frame's status, a
/// flame graph and the resolution.</item>
/// <item><see cref="DocumentView.Data"/> (JSON): the counts; one row per bucket (the <c>frames</c> field holds the
/// frames leaf first separated by <c>\n</c>, since <c>;</c> and <c>,</c> occur in C++ names) and, in the same order,
/// every bucket's frames with their status, module, function and reason; the flame graph; the resolution of each input
/// as tables (inputs, unresolved frames by reason, PDBs looked up).</item>
/// <item><see cref="DocumentView.Table"/> (CSV): the one bucket table of the data view.</item>
/// <item><see cref="DocumentView.Figure"/> (SVG, folded, speedscope): the flame graph, weighed by
/// <see cref="StackDocumentOptions.Weight"/>.</item>
/// </list>
/// Immutable.
/// </summary>
public sealed partial class StackBucketDocument : IDocumentSource
{
    private const string Title = "Stack buckets";
    private const string FigureName = "xeanalyze stacks";

    /// <summary>Creates the documents of a result.</summary>
    /// <param name="result">The result (filter it first with <see cref="StackBucketResult.Filter"/>).</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    public StackBucketDocument(StackBucketResult result, StackDocumentOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(result);
        Result = result;
        Options = options ?? new StackDocumentOptions();
    }

    /// <summary>The result.</summary>
    public StackBucketResult Result { get; }

    /// <summary>The options.</summary>
    public StackDocumentOptions Options { get; }

    /// <inheritdoc/>
    public ReportDocument ToDocument(DocumentView view)
    {
        if (Result.MissingData is MissingData m)
        {
            return new ReportDocument(Title, [new ReportSection("Missing data", new Preformatted(m.Describe()))])
            {
                Description = Options.InputsLabel,
            };
        }

        return view switch
        {
            DocumentView.Listing => Listing(),
            DocumentView.Data => Data(),
            DocumentView.Table => ReportDocument.Of(Title, BucketTable()),
            // The figure is named for the command that drew it: speedscope shows the document title as the profile's
            // name.
            DocumentView.Figure => new ReportDocument(
                FigureName,
                [new ReportSection("Flame graph", FigureFlameGraph())]
            ),
            _ => Page(),
        };
    }

    /// <summary>The summary: counts as a key/value list.</summary>
    /// <returns>The block.</returns>
    public KeyValueList SummaryList() =>
        new([
            Kv("buckets", Result.TotalBuckets),
            Kv("total count", Result.TotalCount),
            Kv("events with a stack", Result.EventsWithStack),
            Kv("events without a stack", Result.EventsWithoutStack),
            Kv("histogram slots", Result.HistogramSlots),
            Kv("distinct raw stacks", Result.DistinctRawStacks),
            Kv("merged after symbolization", Result.MergedRawStacks),
        ]);

    /// <summary>The counts in words: events with a stack, histogram slots, raw stacks and buckets, how buckets were
    /// formed.</summary>
    /// <returns>The block.</returns>
    public Paragraph CountsParagraph() => new(Counts());

    /// <summary>
    /// The bucket table of a page: rank, count, share, event, durations, frame count and the <em>distinguishing
    /// frame</em> (buckets of one event share their leaf frames, so the table names, per bucket, the first frame from
    /// the leaf where it parts from the larger buckets).
    /// </summary>
    /// <returns>The table.</returns>
    public ReportTable OverviewTable()
    {
        int[] depth = DistinguishingFrames(Result.Buckets);

        string? unit = UnitOf(
            Result.Buckets.Where(b => b.Durations is not null).SelectMany(b => b.EventNames),
            "duration"
        );
        string suffix = unit is null ? string.Empty : " (" + unit + ")";
        var t = new TableBuilder("Buckets")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("total duration" + suffix))
            .AddColumn(TableColumn.Integer("max duration" + suffix))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Integer("distinguishing frame #"))
            .AddColumn(TableColumn.Text("distinguishing frame"));
        for (int i = 0; i < Result.Buckets.Count; i++)
        {
            StackBucket b = Result.Buckets[i];
            int d = depth[i];
            string frame =
                b.Frames.Count == 0 ? "(no frames)"
                : d < b.Frames.Count ? b.Frames[d]
                : "(all its frames begin a larger stack)";
            t.AddRow(
                b.Rank,
                b.Count,
                TableCell.FromPercentage(b.Share),
                string.Join(", ", b.EventNames),
                b.Durations is null ? TableCell.Empty : b.Durations.TotalDuration,
                b.Durations is null ? TableCell.Empty : b.Durations.MaxDuration,
                b.Frames.Count,
                d < b.Frames.Count ? d + 1 : TableCell.Empty,
                frame
            );
        }

        t.AddNote(
            "distinguishing frame: the first frame, counted from the leaf (frame 1), where the bucket's stack parts "
                + "from every larger bucket's stack (bucket 1: from bucket 2's); the leaf frame when the table has one "
                + "bucket."
        );
        if (Result.OmittedBuckets > 0)
        {
            t.AddNote(
                string.Create(Ic, $"{Result.OmittedBuckets:N0} more bucket(s) with {Result.OmittedCount:N0} not shown.")
            );
        }

        return t.Build();
    }

    /// <summary>The frames of the first <paramref name="count"/> buckets, each headed <c>Bucket N: C events (S %)
    /// event</c>.</summary>
    /// <param name="count">How many buckets.</param>
    /// <returns>The block.</returns>
    internal StackList Stacks(int count) =>
        new(
            Result
                .Buckets.Take(Math.Max(0, count))
                .Select(b => new StackListItem(
                    string.Create(Ic, $"Bucket {b.Rank}: {b.Count:N0} {Unit(b.Count)} ({Percent(b.Share, 2)})")
                        + (b.EventNames.Count > 0 ? " " + string.Join(", ", b.EventNames) : string.Empty),
                    Frames(b)
                ))
        )
        {
            ShowReasons = Options.ShowUnresolvedReasons,
        };

    /// <summary>The flame graph of the buckets by event count, titled "Stack buckets".</summary>
    /// <returns>The block.</returns>
    internal FlameGraph FlameGraph() =>
        new(
            Result.ToCallTree(),
            new FlameGraphOptions
            {
                Title = Title,
                CountName = "events",
                Root = Options.FlameRoot,
            }
        );

    /// <summary>
    /// One row per bucket: rank, count, share, event(s), raw stacks, first/last seen, durations, frame counts, leaf and
    /// all frames (<c>\n</c>-separated, leaf first).
    /// </summary>
    /// <returns>The table.</returns>
    public ReportTable BucketTable()
    {
        var t = new TableBuilder(Title)
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("raw_stacks"))
            .AddColumn(TableColumn.Timestamp("first_seen"))
            .AddColumn(TableColumn.Timestamp("last_seen"))
            .AddColumn(TableColumn.Integer("duration_events"))
            .AddColumn(TableColumn.Integer("total_duration"))
            .AddColumn(TableColumn.Integer("max_duration"))
            .AddColumn(TableColumn.Integer("total_signal_duration"))
            .AddColumn(TableColumn.Integer("max_signal_duration"))
            .AddColumn(TableColumn.Text("duration_unit"))
            .AddColumn(TableColumn.Integer("frame_count"))
            .AddColumn(TableColumn.Integer("unresolved_frames"))
            .AddColumn(TableColumn.Text("leaf"))
            .AddColumn(TableColumn.Text("frames"));
        t.AddNote(
            "share: count / all buckets' total; frames: leaf first, separated by line feeds; durations: the "
                + "events' duration and signal_duration fields (ms for wait events)."
        );
        IReadOnlyList<StackBucket> buckets = Result.Buckets;
        return t.BuildWithRowsOnRead(
            buckets.Count,
            i =>
            {
                StackBucketResult.CollectYoungEvery(i, buckets.Count);
                StackBucket b = buckets[i];
                StackDurations? d = b.Durations;
                return
                [
                    b.Rank,
                    b.Count,
                    TableCell.FromPercentage(b.Share),
                    string.Join(";", b.EventNames),
                    b.RawStacks,
                    b.FirstSeen is DateTime f ? TableCell.FromDateTime(f) : TableCell.Empty,
                    b.LastSeen is DateTime l ? TableCell.FromDateTime(l) : TableCell.Empty,
                    d is null ? TableCell.Empty : d.EventsWithDuration,
                    d is null ? TableCell.Empty : d.TotalDuration,
                    d is null ? TableCell.Empty : d.MaxDuration,
                    d?.TotalSignalDuration is long ts ? ts : TableCell.Empty,
                    d?.MaxSignalDuration is long ms ? ms : TableCell.Empty,
                    d is null ? TableCell.Empty : UnitOf(b.EventNames, "duration"),
                    b.Frames.Count,
                    b.UnresolvedFrames,
                    b.Frames.Count > 0 ? b.Frames[0] : string.Empty,
                    string.Join("\n", b.Frames),
                ];
            }
        );
    }

    /// <summary>One row per (bucket, frame): rank, count, event, frame index (0 = leaf), frame, status, verified,
    /// module, function, unresolved reason.</summary>
    /// <returns>The table.</returns>
    public ReportTable FramesTable()
    {
        var t = new TableBuilder("Stack bucket frames")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("frame"))
            .AddColumn(TableColumn.Text("text"))
            .AddColumn(TableColumn.Text("status"))
            .AddColumn(TableColumn.Text("verified"))
            .AddColumn(TableColumn.Text("module"))
            .AddColumn(TableColumn.Text("function"))
            .AddColumn(TableColumn.Text("unresolved_reason"));
        foreach (StackBucket b in Result.Buckets)
        {
            for (int i = 0; i < b.FrameDetails.Count; i++)
            {
                BucketFrame f = b.FrameDetails[i];
                t.AddRow(
                    b.Rank,
                    b.Count,
                    string.Join(";", b.EventNames),
                    i,
                    f.Text,
                    StatusName(f.Status),
                    f.IsVerified ? "true" : "false",
                    f.Module,
                    f.Function,
                    f.UnresolvedReason
                );
            }
        }

        return t.Build();
    }

    /// <summary>
    /// For each bucket, the index (0 = leaf) of its first frame not shared with any larger bucket (the longest common
    /// leaf-first prefix with a bucket ranked above it); for the first bucket, with the second. 0 for a single bucket.
    /// </summary>
    internal static int[] DistinguishingFrames(IReadOnlyList<StackBucket> buckets)
    {
        // Per bucket, the longest run of leaf frames it shares with a larger (earlier) bucket; the largest with the
        // second. One trie of the frame lists seen so far answers each in the length of the bucket's own frames, where
        // comparing every pair took quadratic time (hours for a page of 250,000 buckets).
        var depth = new int[buckets.Count];
        var root = new FramePrefix();
        for (int i = 0; i < buckets.Count; i++)
        {
            IReadOnlyList<string> frames = buckets[i].Frames;
            FramePrefix node = root;
            int n = 0;
            while (n < frames.Count && node.Next.TryGetValue(frames[n], out FramePrefix? next))
            {
                node = next;
                n++;
            }

            depth[i] = n;
            for (int k = n; k < frames.Count; k++)
            {
                var added = new FramePrefix();
                node.Next.Add(frames[k], added);
                node = added;
            }
        }

        if (buckets.Count > 1)
        {
            IReadOnlyList<string> a = buckets[0].Frames,
                b = buckets[1].Frames;
            int common = 0;
            while (
                common < a.Count && common < b.Count && string.Equals(a[common], b[common], StringComparison.Ordinal)
            )
            {
                common++;
            }

            depth[0] = common;
        }

        return depth;
    }

    private sealed class FramePrefix
    {
        public Dictionary<string, FramePrefix> Next { get; } = new(StringComparer.Ordinal);
    }

    private ReportDocument Page()
    {
        var sections = new List<ReportSection> { new("Summary", SummaryList(), CountsParagraph()) };
        var buckets = new List<ReportBlock> { OverviewTable() };
        if (Options.StacksShown > 0 && Result.Buckets.Count > 0)
        {
            buckets.Add(Stacks(Options.StacksShown));
        }

        sections.Add(new ReportSection("Buckets", buckets));
        sections.Add(new ReportSection("Flame graph", FlameGraph()));
        sections.Add(new ReportSection("Resolution", ResolutionOutline()));
        return new ReportDocument(Title, sections) { Description = Options.InputsLabel };
    }

    private ReportDocument Data()
    {
        KeyValueList summary = SummaryList();
        var items = new List<KeyValuePair<string, TableCell>>(summary.Items)
        {
            Kv("events read", Result.EventsRead),
            Kv("events beyond the distinct-stack cap", Result.UntrackedEvents),
            Kv("grouped by event", Result.GroupedByEvent ? "yes" : "no"),
            Kv("frame style", DisplayNames.Of(Result.Style)),
            Kv("offsets", Result.IncludeOffsets ? "yes" : "no"),
            Kv("a histogram used all its slots", Result.MayHaveMergedHistogramValues ? "yes" : "no"),
        };
        return new ReportDocument(
            Title,
            [
                new ReportSection("Summary", new KeyValueList(items), CountsParagraph()),
                new ReportSection("Buckets", BucketTable(), ListingStacks()),
                new ReportSection("Flame graph", FlameGraph()),
                new ReportSection("Resolution", ResolutionData()),
            ]
        )
        {
            Description = Options.InputsLabel,
        };
    }

    private StackList ListingStacks()
    {
        IReadOnlyList<StackBucket> buckets = Result.Buckets;
        string[] notes =
            Result.OmittedBuckets > 0
                ?
                [
                    string.Create(
                        Ic,
                        $"{Result.OmittedBuckets:N0} more bucket(s) with {Result.OmittedCount:N0} "
                            + $"{Unit(Result.OmittedCount)} not shown (--top, --min-count)."
                    ),
                ]
                : [];
        return new StackList(
            buckets.Count,
            i =>
            {
                StackBucketResult.CollectYoungEvery(i, buckets.Count);
                return ListingItem(buckets[i]);
            },
            notes
        )
        {
            ShowReasons = Options.ShowUnresolvedReasons,
        };
    }

    /// <summary>The unit of a field of these events per the one unit rule, as decided when their schema was read
    /// (<see cref="StackBucketResult.DescribeUnit"/>).</summary>
    private string? UnitOf(IEnumerable<string> eventNames, string field) => Result.DescribeUnit(eventNames, field);

    /// <summary>A bucket as listed: its heading, detail lines and frames.</summary>
    private StackListItem ListingItem(StackBucket b)
    {
        string heading =
            string.Create(
                Ic,
                $"Bucket {b.Rank} of {Result.TotalBuckets}: {b.Count:N0} {Unit(b.Count)} ({Percent(b.Share, 2)})"
            )
            + (
                b.EventName is string en ? " " + en
                : b.EventNames.Count > 0 ? " " + string.Join(", ", b.EventNames)
                : string.Empty
            );
        var details = new List<string>();
        if (b.Durations is StackDurations d)
        {
            double mean = d.EventsWithDuration > 0 ? (double)d.TotalDuration / d.EventsWithDuration : 0;
            string signal = d.TotalSignalDuration is long ts
                ? string.Create(Ic, $"total {ts:N0}, max {d.MaxSignalDuration:N0}")
                : "n/a (not in the events' schema)";
            string unit = UnitOf(b.EventNames, "duration") ?? "unit unknown";
            details.Add(
                string.Create(
                    Ic,
                    $"duration ({unit}): total {d.TotalDuration:N0}, max {d.MaxDuration:N0}, mean {mean:N2}; "
                )
                    + "signal_duration ("
                    + (UnitOf(b.EventNames, "signal_duration") ?? unit)
                    + "): "
                    + signal
            );
        }

        if (b.FirstSeen is DateTime first && b.LastSeen is DateTime last)
        {
            details.Add("seen " + CellFormatter.IsoUtc(first) + " to " + CellFormatter.IsoUtc(last));
        }

        if (b.RawStacks > 1)
        {
            details.Add(string.Create(Ic, $"{b.RawStacks} distinct raw stacks merged after symbolization"));
        }

        if (b.UnverifiedFrames > 0)
        {
            details.Add(
                string.Create(
                    Ic,
                    $"{b.UnverifiedFrames} frame(s) resolved through a PDB matched by name only (unverified: give "
                        + $"--sql-build or --binaries)"
                )
            );
        }

        return new StackListItem(heading, Frames(b), details);
    }

    private ReportDocument Listing()
    {
        return new ReportDocument(
            Title,
            [new ReportSection(string.Empty, ListingStacks()), new ReportSection(string.Empty, ResolutionOutline())]
        )
        {
            Description = (Options.InputsLabel is string label ? label + "\n" : string.Empty) + Counts(),
            Generator = null,
        };
    }

    private FlameGraph FigureFlameGraph() =>
        new(
            Result.ToCallTree(Options.Weight),
            new FlameGraphOptions
            {
                Title = Title,
                Subtitle = Options.InputsLabel,
                // A duration's unit comes from the tree (the one unit rule); counts are events.
                CountName = Options.Weight == StackWeight.Duration ? null : "events",
                Root = Options.FlameRoot,
            }
        );

    private static IEnumerable<StackListFrame> Frames(StackBucket b) =>
        b.FrameDetails.Select(f => new StackListFrame(f.Text)
        {
            Status = f.Status switch
            {
                FrameResolutionStatus.InEngine => StackFrameStatus.InEngine,
                FrameResolutionStatus.ResolvedOffline => StackFrameStatus.ResolvedOffline,
                _ => StackFrameStatus.Unresolved,
            },
            Verified = f.IsVerified,
            Module = f.Module,
            Function = f.Function,
            UnresolvedReason = f.UnresolvedReason,
        });

    private string Counts()
    {
        var sb = new StringBuilder();
        if (Result.EventsRead > 0)
        {
            sb.Append(string.Create(Ic, $"{Result.EventsWithStack:N0} event(s) with a callstack"));
            IReadOnlyList<string> names = Result.EventNames;
            if (names.Count > 0)
            {
                sb.Append(" (")
                    .Append(string.Join(", ", names.Take(10)))
                    .Append(names.Count > 10 ? ", …" : string.Empty)
                    .Append(')');
            }

            if (Result.EventsWithoutStack > 0)
            {
                sb.Append(string.Create(Ic, $", {Result.EventsWithoutStack:N0} without"));
            }

            sb.Append(".\n");
        }

        if (Result.HistogramSlots > 0)
        {
            long slotCount = Result.Inputs.Sum(i => i.HistogramCount);
            sb.Append(
                string.Create(Ic, $"{Result.HistogramSlots:N0} histogram slot(s) counting {slotCount:N0} event(s).\n")
            );
        }

        sb.Append(
            string.Create(
                Ic,
                $"{Result.DistinctRawStacks:N0} distinct raw stack(s) -> {Result.TotalBuckets:N0} bucket(s) after "
                    + $"symbolization ({Result.MergedRawStacks:N0} merged); total {Result.TotalCount:N0}.\n"
            )
        );
        sb.Append(
            Result.GroupedByEvent ? "Buckets per event name and stack" : "Buckets per stack (event names merged)"
        );
        sb.Append("; frames leaf first, ")
            .Append(DisplayNames.Of(Result.Style))
            .Append(" style, ")
            .Append(
                Result.IncludeOffsets
                    ? "with offsets"
                    : "without offsets (stacks differing only by offsets share a bucket)"
            )
            .Append('.');
        if (Result.MayHaveMergedHistogramValues)
        {
            sb.Append(
                "\nWarning: a histogram used all its slots (slots = buckets): hash collisions may have merged "
                    + "different stacks into one slot."
            );
        }

        return sb.ToString();
    }

    private string Unit(long count) =>
        Result.HistogramSlots > 0 && Result.EventsRead == 0
            ? (count == 1 ? "event (slot count)" : "events (slot count)")
        : count == 1 ? "event"
        : "events";

    private static string StatusName(FrameResolutionStatus s) =>
        s switch
        {
            FrameResolutionStatus.InEngine => "inEngine",
            FrameResolutionStatus.ResolvedOffline => "resolvedOffline",
            _ => "unresolved",
        };
}

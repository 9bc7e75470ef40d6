using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// The result of bucketing stacks (<see cref="StackBucketBuilder.Build"/>, <see cref="StackBucketAnalysis"/>): the
/// buckets ordered by count (descending), then frames (ordinal), then event name; what each input contributed and how
/// its frames were resolved; warnings. Immutable. Its documents (<see cref="StackBucketDocument"/>) give the same bytes
/// for the same result whatever the current culture.
/// </summary>
public sealed record StackBucketResult : IAnalysisResult
{
    internal StackBucketResult() { }

    /// <summary>What the input lacks (no events, no callstack action), or <see langword="null"/> when there are
    /// buckets.</summary>
    public MissingData? MissingData { get; internal init; }

    /// <summary>Whether there are buckets.</summary>
    public bool IsComplete => MissingData is null;

    /// <summary>The buckets (after <see cref="Filter"/>, the ones kept), in rank order.</summary>
    public IReadOnlyList<StackBucket> Buckets { get; internal init; } = [];

    /// <summary>The number of buckets before <see cref="Filter"/>.</summary>
    public int TotalBuckets { get; internal init; }

    /// <summary>The buckets left out by <see cref="Filter"/>.</summary>
    public int OmittedBuckets => TotalBuckets - Buckets.Count;

    /// <summary>The sum of the counts of all buckets (before <see cref="Filter"/>): the denominator of every
    /// <see cref="StackBucket.Share"/>.</summary>
    public long TotalCount { get; internal init; }

    /// <summary>The sum of the counts of the buckets left out by <see cref="Filter"/>.</summary>
    public long OmittedCount { get; internal init; }

    /// <summary>Events that passed the filter (with or without a stack); histogram slots are not events and are not
    /// counted here.</summary>
    public long EventsRead { get; internal init; }

    /// <summary>Events whose stack was bucketed (or counted as untracked).</summary>
    public long EventsWithStack { get; internal init; }

    /// <summary>Events that passed the filter but carry no stack.</summary>
    public long EventsWithoutStack { get; internal init; }

    /// <summary>Histogram slots read (each a bucket of its own before symbolization, with its count).</summary>
    public long HistogramSlots { get; internal init; }

    /// <summary>Events of distinct stacks beyond <see cref="StackBucketOptions.MaxDistinctStacks"/>: counted, not
    /// bucketed.</summary>
    public long UntrackedEvents { get; internal init; }

    /// <summary>Distinct raw stacks (address arrays, slot or event texts, per event name) before
    /// symbolization.</summary>
    public int DistinctRawStacks { get; internal init; }

    /// <summary>
    /// Raw stacks that joined a bucket another raw stack had started: <see cref="DistinctRawStacks"/> −
    /// <see cref="TotalBuckets"/>. For a histogram, slots that resolved to the same stack (a slot count equals a bucket
    /// count unless this is above 0).
    /// </summary>
    public int MergedRawStacks => DistinctRawStacks - TotalBuckets;

    /// <summary>Whether buckets are per (event name, stack) (<see cref="StackBucketOptions.GroupByEvent"/>).</summary>
    public bool GroupedByEvent { get; internal init; }

    /// <summary>Whether a histogram used all its <c>buckets</c>: hash collisions may have merged different stacks into
    /// one slot.</summary>
    public bool MayHaveMergedHistogramValues { get; internal init; }

    /// <summary>The frame style of the resolver that rendered the frames.</summary>
    public FrameStyle Style { get; internal init; }

    /// <summary>Whether frames carry their displacement (without it, stacks differing only by offsets share a
    /// bucket).</summary>
    public bool IncludeOffsets { get; internal init; }

    /// <summary>The inputs, in the order read, with their resolution summaries.</summary>
    public IReadOnlyList<StackInputSummary> Inputs { get; internal init; } = [];

    /// <summary>Warnings (events without a stack, histograms that may hold merged values, cut stacks, the
    /// distinct-stack cap).</summary>
    public IReadOnlyList<AnalysisWarning> Warnings { get; internal init; } = [];

    /// <inheritdoc/>
    public string Key => "stacks";

    /// <inheritdoc/>
    public string Title => "Stacks";

    /// <summary>The buckets' total count (events and histogram slot counts); the events read when there are no
    /// buckets.</summary>
    public long EventsUsed => MissingData is null ? TotalCount : EventsRead;

    /// <summary>
    /// A report shows two sections of one stack analysis: the buckets (<see cref="StackReportSection"/>: the largest,
    /// their frames, the flame graph, the resolution per input) and the symbolization of the same stacks counted per
    /// event (<see cref="SymbolizationResult"/>).
    /// </summary>
    public IReadOnlyList<IAnalysisResult> Sections => [new StackReportSection(this), SymbolizationResult.From(this)];

    /// <summary>The documents of <see cref="StackBucketDocument"/> with its default options.</summary>
    /// <param name="view">The view.</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => new StackBucketDocument(this).ToDocument(view);

    /// <summary>How the frames resolved, counted per event (each distinct stack's frames weighted by its events), and
    /// the PDBs used.</summary>
    internal StackSymbolization? Symbolization { get; init; }

    /// <summary>Slots of histograms on an event field or action (not stacks: see <c>xeanalyze histogram</c>), which
    /// were not bucketed.</summary>
    public long ValueHistogramSlots { get; internal init; }

    /// <summary>Whether any bucket has <c>duration</c> totals (wait events).</summary>
    public bool HasDurations =>
        Buckets is StackBucketList list ? list.HasDurations : Buckets.Any(b => b.Durations is not null);

    /// <summary>
    /// The distinct event names of every bucket the analysis made, ordinal order: the events it used, also those of the
    /// buckets <see cref="Filter"/> leaves out.
    /// </summary>
    public IReadOnlyList<string> EventNames { get; internal init; } = [];

    /// <summary>
    /// The unit of each summed field (<c>duration</c>, <c>signal_duration</c>) by event name (full) and field name, as
    /// the one unit rule (<see cref="DurationUnits"/>) decided it when the event's schema was read: the buckets keep no
    /// schema.
    /// </summary>
    internal IReadOnlyDictionary<(string EventName, string Field), FieldUnit> FieldUnits { get; init; } =
        new Dictionary<(string EventName, string Field), FieldUnit>();

    /// <summary>The unit of a summed field of an event: as decided from its schema (<see cref="FieldUnits"/>), else by
    /// the event's name (<see cref="DurationUnits"/> without metadata).</summary>
    /// <param name="eventName">The event's full name.</param>
    /// <param name="field">The field's name.</param>
    /// <returns>The unit.</returns>
    internal FieldUnit UnitOf(string eventName, string field) =>
        FieldUnits.TryGetValue((eventName, field), out FieldUnit? unit)
            ? unit
            : DurationUnits.Of(eventName, field, null);

    /// <summary>The unit label of a field of these events (<see cref="DurationUnits.Describe"/> of
    /// <see cref="UnitOf"/>), or <see langword="null"/> when there are no events.</summary>
    /// <param name="eventNames">The event names (full).</param>
    /// <param name="field">The field's name.</param>
    /// <returns>The label.</returns>
    internal string? DescribeUnit(IEnumerable<string> eventNames, string field) =>
        DurationUnits.Describe(eventNames.Select(n => (n, UnitOf(n, field))));

    /// <summary>The unit of the summed <c>duration</c> fields of <see cref="EventNames"/>
    /// (<see cref="DurationWeightUnit(IEnumerable{FieldUnit})"/>).</summary>
    /// <returns>The unit.</returns>
    internal WeightUnit DurationWeightUnit() => DurationWeightUnit(EventNames.Select(n => UnitOf(n, "duration")));

    /// <summary>
    /// The weight unit of summed durations in these units: <see cref="WeightUnit.Duration"/> when they differ or are
    /// unknown.
    /// </summary>
    /// <param name="units">The units of the summed fields.</param>
    /// <returns>The unit.</returns>
    internal static WeightUnit DurationWeightUnit(IEnumerable<FieldUnit> units)
    {
        FieldTimeUnit?[] distinct = [.. units.Select(u => u.Unit).Distinct()];
        return distinct switch
        {
            [FieldTimeUnit.Milliseconds] => WeightUnit.Milliseconds,
            [FieldTimeUnit.Microseconds] => WeightUnit.Microseconds,
            _ => WeightUnit.Duration,
        };
    }

    /// <summary>The distinct event names of buckets, ordinal order.</summary>
    internal static IReadOnlyList<string> NamesOf(IEnumerable<StackBucket> buckets) =>
        [
            .. (
                buckets is StackBucketList list
                    ? list.EventNameLists.SelectMany(n => n)
                    : buckets.SelectMany(b => b.EventNames)
            )
                .Distinct(StringComparer.Ordinal)
                .Order(StringComparer.Ordinal),
        ];

    /// <summary>
    /// Keeps the <paramref name="top"/> highest-ranked buckets whose count is at least <paramref name="minCount"/>.
    /// Shares stay relative to <see cref="TotalCount"/>; <see cref="OmittedBuckets"/> and <see cref="OmittedCount"/>
    /// say what was left out.
    /// </summary>
    /// <param name="top">The most buckets kept; 0 or less keeps all.</param>
    /// <param name="minCount">The smallest count kept (0 keeps all).</param>
    /// <returns>The filtered result (this instance when nothing is left out).</returns>
    public StackBucketResult Filter(int top, long minCount)
    {
        int limit = top > 0 ? top : int.MaxValue;
        if (Buckets.Count <= limit && (minCount <= 0 || Buckets.All(b => b.Count >= minCount)))
        {
            return this;
        }

        // Buckets may be made when read (StackBucketList): they are told apart by position, not by reference, and
        // only the kept ones are made.
        var buckets = new BucketPositions(Buckets);
        var kept = new List<StackBucket>();
        long omitted = OmittedCount;
        for (int i = 0; i < buckets.Count; i++)
        {
            long count = buckets.CountAt(i);
            if (kept.Count < limit && count >= minCount)
            {
                kept.Add(Buckets[i]);
            }
            else
            {
                omitted += count;
            }
        }

        return this with
        {
            Buckets = kept.AsReadOnly(),
            OmittedCount = omitted,
        };
    }

    /// <summary>
    /// The call tree of the buckets (root first inside the tree; frames are added leaf first). When buckets of several
    /// event names are present and grouped by event, each stack hangs under its event name, so a flame graph's first
    /// level is the event.
    /// </summary>
    /// <param name="weight">Event counts (the default) or summed <c>duration</c>, in its unit
    /// (<see cref="DurationWeightUnit()"/>).</param>
    /// <returns>The tree, from which folded stacks, speedscope and SVG flame graphs are written.</returns>
    internal CallTree ToCallTree(StackWeight weight = StackWeight.Count)
    {
        var builder = new CallTreeBuilder(weight == StackWeight.Duration ? DurationWeightUnit() : WeightUnit.Count);
        bool byEvent =
            GroupedByEvent
            && Buckets
                .Select(b => b.EventName)
                .Where(n => n is not null)
                .Distinct(StringComparer.Ordinal)
                .Skip(1)
                .Any();
        for (int i = 0; i < Buckets.Count; i++)
        {
            StackBucket b = Buckets[i];
            builder.AddStack(TreeFrames(b, byEvent), b.WeightOf(weight));
            CollectYoungEvery(i, Buckets.Count);
        }

        return builder.Build();
    }

    /// <summary>
    /// Over very many buckets, collects the young generation every <see cref="StackBucketBuilder.CollectEvery"/> of
    /// them, as the build and the listing do: each bucket read leaves short-lived objects (the bucket made on read, its
    /// row or frame list) that the runtime would otherwise let pile up.
    /// </summary>
    /// <param name="i">The position of the bucket just read.</param>
    /// <param name="count">How many buckets are read.</param>
    internal static void CollectYoungEvery(int i, int count)
    {
        if (i > 0 && (i & (StackBucketBuilder.CollectEvery - 1)) == 0)
        {
            StackBucketBuilder.CollectYoung(count);
        }
    }

    /// <summary>The frames of a bucket as added to a call tree: leaf first, the event name outermost when
    /// <paramref name="byEvent"/>.</summary>
    internal static List<string> TreeFrames(StackBucket b, bool byEvent)
    {
        var frames = new List<string>(b.Frames.Count + 1);
        frames.AddRange(b.Frames.Count > 0 ? b.Frames : ["(no frames)"]);
        if (byEvent)
        {
            frames.Add(b.EventName ?? "(histogram)");
        }

        return frames;
    }
}

using System.Globalization;
using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Stack buckets of two captures compared (<c>xeanalyze diff</c>): per stack the weight and share in each, the delta
/// and share delta, new and vanished stacks, and a differential call tree for folded (<c>path base new</c>, as
/// FlameGraph's <c>difffolded.pl</c> writes) and SVG diff flame graphs. Immutable.
/// </summary>
/// <remarks>
/// <para><b>Matching.</b> Stacks are matched by their symbolized frames (ordinal), so captures of different process
/// lifetimes (other module bases) or of different shapes (raw addresses resolved offline, a histogram symbolized
/// in-engine) compare. When both sides group buckets by event and every bucket has an event name, the event name is
/// part of the match; otherwise (a histogram on either side, or
/// <c>--group-by-event false</c>) buckets with the same frames are summed per side and matched by frames alone.</para>
/// <para><b>Naming a stack.</b> A stack is named by the frames that tell it apart from the others
/// (<see cref="DistinguishingFrame"/>): read from the leaf, the first frame where it leaves every other compared stack
/// (of either side; the frames before it are a path some other stack shares), after the frame before it,
/// <c>callee &lt;- frame</c>. Frames the stacks share, such as the latch or wait machinery at the leaf, say nothing
/// about which code path grew. A stack that leaves the others at its leaf is named by its leaf and caller; one whose
/// frames all begin another stack, by its outermost frame.</para>
/// <para><b>Raw addresses.</b> A frame no module list placed stays a raw address, which means the same code only within
/// one process lifetime (ASLR moves every module on each start). When new or vanished stacks hold such frames and the
/// two sides were not placed with the same module list, <see cref="Warnings"/> says the stacks are incomparable without
/// symbols: the same code can show as new and vanished stacks.</para>
/// <para><b>Order.</b> Changes are ordered by share delta (descending: the biggest relative growth first, the biggest
/// shrink last), then weight delta (descending), then the larger of the two weights (descending), then frames
/// (ordinal), then event name.</para>
/// </remarks>
public sealed class StackDiff
{
    // Each stack of either side is one entry, held compactly: where its bucket stands on each side (its frames are read
    // from there, not copied) and its counts and weights; the shares are made from the weights, and Changes, NewStacks
    // and VanishedStacks make their records when read. With hundreds of thousands of distinct stacks a record, a copied
    // frame array and a dictionary entry per stack were most of the comparison's memory.
    private readonly BucketPositions _base;
    private readonly BucketPositions _new;
    private readonly List<Entry> _entries;
    private readonly int[] _distinguishing;

    private StackDiff(
        StackBucketResult baseline,
        StackBucketResult current,
        StackWeight weight,
        bool byEvent,
        long baseTotal,
        long newTotal,
        BucketPositions b,
        BucketPositions n,
        List<Entry> entries
    )
    {
        _base = b;
        _new = n;
        _entries = entries;
        Base = baseline;
        New = current;
        Weight = weight;
        MatchedByEvent = byEvent;
        BaseTotal = baseTotal;
        NewTotal = newTotal;
        _distinguishing = DistinguishingFrames();
        Changes = new ItemsOnRead<StackBucketChange>(entries.Count, ChangeAt);
        NewStacks = Of(StackChangeKind.New);
        VanishedStacks = Of(StackChangeKind.Vanished);
        CommonCount = entries.Count - NewStacks.Count - VanishedStacks.Count;
        Warnings = Array.AsReadOnly(RawAddressWarnings(baseline, current));
    }

    /// <summary>The base capture's buckets.</summary>
    public StackBucketResult Base { get; }

    /// <summary>
    /// What limits the comparison (raw addresses of two process lifetimes, see the class remarks); empty when nothing
    /// does.
    /// </summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>The new capture's buckets.</summary>
    public StackBucketResult New { get; }

    /// <summary>What the stacks are weighed by.</summary>
    public StackWeight Weight { get; }

    /// <summary>Whether the event name is part of the match (see the class remarks).</summary>
    public bool MatchedByEvent { get; }

    /// <summary>The base total weight.</summary>
    public long BaseTotal { get; }

    /// <summary>The new total weight.</summary>
    public long NewTotal { get; }

    /// <summary>(NewTotal − BaseTotal) / BaseTotal as a fraction; +∞ when the base total is 0 and the new one is not, 0
    /// when both are 0.</summary>
    public double TotalGrowth =>
        BaseTotal == 0 ? (NewTotal == 0 ? 0 : double.PositiveInfinity) : (NewTotal - (double)BaseTotal) / BaseTotal;

    /// <summary>Every stack of either side, in the order of the class remarks.</summary>
    public IReadOnlyList<StackBucketChange> Changes { get; }

    /// <summary>Stacks only in the new capture.</summary>
    public IReadOnlyList<StackBucketChange> NewStacks { get; }

    /// <summary>Stacks only in the base capture.</summary>
    public IReadOnlyList<StackBucketChange> VanishedStacks { get; }

    /// <summary>Stacks in both captures.</summary>
    internal int CommonCount { get; }

    /// <summary>Compares two bucket results (both unfiltered, from resolvers with the same frame style and
    /// offsets).</summary>
    /// <param name="baseline">The base capture.</param>
    /// <param name="current">The new capture.</param>
    /// <param name="weight">Event counts (default) or summed durations.</param>
    /// <returns>The comparison.</returns>
    /// <exception cref="ArgumentException">A result is incomplete (no buckets), or <paramref name="weight"/> is
    /// duration and neither side has durations.</exception>
    public static StackDiff Compare(
        StackBucketResult baseline,
        StackBucketResult current,
        StackWeight weight = StackWeight.Count
    )
    {
        ArgumentNullException.ThrowIfNull(baseline);
        ArgumentNullException.ThrowIfNull(current);
        if (!baseline.IsComplete || !current.IsComplete)
        {
            throw new ArgumentException("both results need buckets (check MissingData first)");
        }

        if (weight == StackWeight.Duration && !baseline.HasDurations && !current.HasDurations)
        {
            throw new ArgumentException(
                "weighing by duration needs events with a duration field (wait events) on at least one side"
            );
        }

        var b = new BucketPositions(baseline.Buckets);
        var n = new BucketPositions(current.Buckets);
        bool byEvent =
            baseline.GroupedByEvent && current.GroupedByEvent && b.AllHaveEventNames() && n.AllHaveEventNames();
        List<Entry> entries = Join(b, n, weight, byEvent);
        long bt = 0,
            nt = 0;
        foreach (Entry e in entries)
        {
            bt += e.BaseWeight;
            nt += e.NewWeight;
        }

        CollectionsMarshal.AsSpan(entries).Sort((x, y) => Order(x, y, bt, nt, b, n));
        return new StackDiff(baseline, current, weight, byEvent, bt, nt, b, n, entries);
    }

    /// <summary>
    /// Every stack of either side once, keyed by the event name (when matched by event) and the frames' text: the
    /// buckets with the same key are summed per side.
    /// </summary>
    private static List<Entry> Join(BucketPositions b, BucketPositions n, StackWeight weight, bool byEvent)
    {
        // Sized for two sides that mostly share their stacks; a list of every bucket of both would be half empty.
        int most = Math.Max(b.Buckets.Count, n.Buckets.Count);
        var entries = new List<Entry>(most + (most / 8));
        var index = new HashSet<int>(entries.Capacity, new EntryComparer(entries, b, n));
        foreach ((BucketPositions side, bool isBase) in new[] { (b, true), (n, false) })
        {
            for (int i = 0; i < side.Buckets.Count; i++)
            {
                // The candidate is appended to be compared, and taken back when its stack is there already.
                int at = entries.Count;
                entries.Add(new Entry(byEvent ? side.EventNameAt(i) : null, isBase ? i : -1, isBase ? -1 : i));
                if (index.TryGetValue(at, out int known))
                {
                    entries.RemoveAt(at);
                    at = known;
                }
                else
                {
                    index.Add(at);
                }

                Entry e = entries[at];
                if (isBase)
                {
                    e.BaseIndex = e.BaseIndex < 0 ? i : e.BaseIndex;
                    e.BaseCount += side.CountAt(i);
                    e.BaseWeight += side.WeightAt(i, weight);
                }
                else
                {
                    e.NewIndex = e.NewIndex < 0 ? i : e.NewIndex;
                    e.NewCount += side.CountAt(i);
                    e.NewWeight += side.WeightAt(i, weight);
                }

                entries[at] = e;
            }
        }

        return entries;
    }

    private static double Share(long weight, long total) => total == 0 ? 0 : (double)weight / total;

    /// <summary>The order of the class remarks.</summary>
    private static int Order(
        in Entry x,
        in Entry y,
        long baseTotal,
        long newTotal,
        BucketPositions b,
        BucketPositions n
    )
    {
        double dx = Share(x.NewWeight, newTotal) - Share(x.BaseWeight, baseTotal);
        double dy = Share(y.NewWeight, newTotal) - Share(y.BaseWeight, baseTotal);

        // Shares are rounded for ordering, so float noise between equal deltas does not decide it.
        int c = Math.Round(dy, 12).CompareTo(Math.Round(dx, 12));
        if (c == 0)
        {
            c = y.Delta.CompareTo(x.Delta);
        }

        if (c == 0)
        {
            c = Math.Max(y.NewWeight, y.BaseWeight).CompareTo(Math.Max(x.NewWeight, x.BaseWeight));
        }

        if (c == 0)
        {
            c = StackMerger.CompareFrames(x.FramesIn(b, n), y.FramesIn(b, n));
        }

        return c != 0 ? c : string.CompareOrdinal(x.EventName, y.EventName);
    }

    private ReadOnlySpan<BucketFrame> FramesOf(int entry) => _entries[entry].FramesIn(_base, _new);

    /// <summary>The record of the stack at a position of <see cref="Changes"/>, made when read.</summary>
    private StackBucketChange ChangeAt(int i)
    {
        Entry e = _entries[i];
        ArraySegment<BucketFrame> frames = e.BaseIndex >= 0 ? _base.FramesAt(e.BaseIndex) : _new.FramesAt(e.NewIndex);
        return new StackBucketChange(
            e.Kind,
            e.EventName,
            new FrameTextList(frames),
            e.BaseCount,
            e.NewCount,
            e.BaseWeight,
            e.NewWeight,
            Share(e.BaseWeight, BaseTotal),
            Share(e.NewWeight, NewTotal)
        )
        {
            Position = i,
        };
    }

    /// <summary>The stacks of one kind, in the order of <see cref="Changes"/>, made when read.</summary>
    private ItemsOnRead<StackBucketChange> Of(StackChangeKind kind)
    {
        int[] at = [.. Enumerable.Range(0, _entries.Count).Where(i => _entries[i].Kind == kind)];
        return new ItemsOnRead<StackBucketChange>(at.Length, i => ChangeAt(at[i]));
    }

    /// <summary>
    /// Evaluates the regression gates. <paramref name="totalGrowthPercent"/>: trips when the new total weight exceeds
    /// the base total by more than this many percent ((new − base) / base × 100 &gt; PCT; any growth from a base of 0).
    /// <paramref name="bucketShareGrowthPoints"/>: trips when any stack's share of its side's total grew by more than
    /// this many percentage points (new stacks count from 0 %).
    /// </summary>
    /// <param name="totalGrowthPercent">The total-growth limit in percent, or <see langword="null"/> for no such
    /// gate.</param>
    /// <param name="bucketShareGrowthPoints">The per-stack share-growth limit in percentage points, or
    /// <see langword="null"/>.</param>
    /// <returns>What tripped.</returns>
    public StackDiffGate Check(double? totalGrowthPercent, double? bucketShareGrowthPoints)
    {
        var reasons = new List<string>();
        bool tripped = false;
        string unit = Weight == StackWeight.Duration ? "duration (" + DurationLabel + ")" : "event count";
        if (totalGrowthPercent is double pct)
        {
            double growth = TotalGrowth * 100;
            bool t = growth > pct;
            tripped |= t;
            reasons.Add(
                string.Create(
                    Ic,
                    $"total {unit} {BaseTotal:N0} -> {NewTotal:N0} "
                        + $"({(double.IsPositiveInfinity(growth) ? "new from 0" : SignedPercent(TotalGrowth, 2))}): "
                        + $"{(t ? "grew by more than" : "within")} {pct:0.##} % (--fail-if-grows)"
                )
            );
        }

        if (bucketShareGrowthPoints is double pp)
        {
            StackBucketChange? worst = Changes.Count > 0 ? Changes[0] : null;
            bool t = worst is not null && worst.ShareDelta * 100 > pp;
            tripped |= t;
            if (worst is null)
            {
                reasons.Add("no stacks to compare (--fail-if-bucket-grows)");
            }
            else
            {
                string what = (worst.Kind == StackChangeKind.New ? "new stack " : "stack ") + Describe(worst);
                reasons.Add(
                    string.Create(
                        Ic,
                        $"largest share growth: {what}: {Percent(worst.BaseShare, 2)} -> "
                            + $"{Percent(worst.NewShare, 2)} "
                            + $"({(worst.ShareDelta >= 0 ? "+" : "-")}{Math.Abs(worst.ShareDelta * 100):F2} points): "
                            + $"{(t ? "grew by more than" : "within")} {pp:0.##} points (--fail-if-bucket-grows)"
                    )
                );
            }
        }

        return new StackDiffGate(tripped, reasons.AsReadOnly());
    }

    /// <summary>The unit of the summed <c>duration</c> fields of both sides' events, per the one unit rule
    /// (<see cref="DurationUnits"/>): <c>ms</c>, <c>µs</c>, each unit with its events, or <c>unit
    /// unknown</c>.</summary>
    internal string DurationLabel => DurationUnits.Describe(DurationUnitsOfBoth()) ?? "unit unknown";

    /// <summary>The unit of <c>duration</c> of each event name of each side, as that side decided it.</summary>
    private IEnumerable<(string EventName, FieldUnit Unit)> DurationUnitsOfBoth() =>
        Base
            .EventNames.Select(n => (n, Base.UnitOf(n, "duration")))
            .Concat(New.EventNames.Select(n => (n, New.UnitOf(n, "duration"))));

    /// <summary>The differential call tree: the new capture's weights as <see cref="CallTreeNode.Weight"/>, the base
    /// capture's as baseline.</summary>
    /// <returns>The tree (written as <c>path base new</c> folded lines, or a red/blue SVG).</returns>
    internal CallTree ToCallTree()
    {
        WeightUnit unit =
            Weight == StackWeight.Duration
                ? StackBucketResult.DurationWeightUnit(DurationUnitsOfBoth().Select(x => x.Unit))
                : WeightUnit.Count;
        bool byEventRoot =
            MatchedByEvent && Changes.Select(c => c.EventName).Distinct(StringComparer.Ordinal).Skip(1).Any();
        var b = new CallTreeBuilder(unit);
        var n = new CallTreeBuilder(unit);
        foreach (StackBucketChange c in Changes)
        {
            var frames = new List<string>(c.Frames.Count > 0 ? c.Frames : ["(no frames)"]);
            if (byEventRoot)
            {
                frames.Add(c.EventName ?? "(histogram)");
            }

            if (c.BaseWeight > 0 || c.Kind != StackChangeKind.New)
            {
                b.AddStack(frames, Math.Max(0, c.BaseWeight));
            }

            if (c.NewWeight > 0 || c.Kind != StackChangeKind.Vanished)
            {
                n.AddStack(frames, Math.Max(0, c.NewWeight));
            }
        }

        return CallTree.Diff(b.Build(), n.Build());
    }

    /// <summary>
    /// The index of the frame where a stack leaves every other compared stack (see the class remarks): the length of
    /// the longest run of leaf frames it shares with another stack, or its last frame when all its frames begin another
    /// stack; −1 for a stack without frames.
    /// </summary>
    /// <param name="change">A stack of <see cref="Changes"/>.</param>
    /// <returns>The frame index, leaf first.</returns>
    internal int DistinguishingFrame(StackBucketChange change)
    {
        if (change.Frames.Count == 0)
        {
            return -1;
        }

        if ((uint)change.Position < (uint)_entries.Count && SameTexts(FramesOf(change.Position), change.Frames))
        {
            return _distinguishing[change.Position];
        }

        // A record made elsewhere: the stack with the same frames.
        for (int i = 0; i < _entries.Count; i++)
        {
            if (SameTexts(FramesOf(i), change.Frames))
            {
                return _distinguishing[i];
            }
        }

        return 0;
    }

    private static bool SameTexts(ReadOnlySpan<BucketFrame> frames, IReadOnlyList<string> texts)
    {
        if (frames.Length != texts.Count)
        {
            return false;
        }

        for (int i = 0; i < frames.Length; i++)
        {
            if (!string.Equals(frames[i].Text, texts[i], StringComparison.Ordinal))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The frames that name a stack: the frame before its <see cref="DistinguishingFrame"/> and that frame,
    /// <c>callee &lt;- frame</c>; at the leaf, the leaf and its caller.
    /// </summary>
    /// <param name="change">A stack of <see cref="Changes"/>.</param>
    /// <returns>The name, or <c>(no frames)</c>.</returns>
    internal string NameOf(StackBucketChange change)
    {
        int i = DistinguishingFrame(change);
        IReadOnlyList<string> f = change.Frames;
        return i < 0 ? "(no frames)"
            : i > 0 ? f[i - 1] + " <- " + f[i]
            : f[0] + (f.Count > 1 ? " <- " + f[1] : string.Empty);
    }

    internal static string KindText(StackChangeKind k) =>
        k switch
        {
            StackChangeKind.New => "new",
            StackChangeKind.Vanished => "vanished",
            _ => "common",
        };

    private string Describe(StackBucketChange c)
    {
        int i = DistinguishingFrame(c);
        string where =
            i > 0
                ? string.Create(CultureInfo.InvariantCulture, $"frame {i + 1} of {c.Frames.Count}")
                    + ", where it leaves every other stack"
                : string.Create(CultureInfo.InvariantCulture, $"{c.Frames.Count} frames");
        return (c.EventName is null ? string.Empty : c.EventName + " ") + NameOf(c) + " (" + where + ")";
    }

    /// <summary>
    /// The <see cref="DistinguishingFrame"/> of each stack, by position: in lexicographic order, the longest run of
    /// leaf frames a frame list shares with any other is the one it shares with a neighbouring distinct list, so one
    /// sort finds them all. Stacks with the same frames (of other events) share the value.
    /// </summary>
    private int[] DistinguishingFrames()
    {
        var result = new int[_entries.Count];
        int[] order = [.. Enumerable.Range(0, _entries.Count).Where(i => !FramesOf(i).IsEmpty)];
        Array.Sort(order, (x, y) => StackMerger.CompareFrames(FramesOf(x), FramesOf(y)));
        int previousStart = -1;
        for (int start = 0; start < order.Length; )
        {
            ReadOnlySpan<BucketFrame> frames = FramesOf(order[start]);
            int end = start + 1;
            while (end < order.Length && StackMerger.CompareFrames(FramesOf(order[end]), frames) == 0)
            {
                end++;
            }

            int before = previousStart >= 0 ? Common(FramesOf(order[previousStart]), frames) : 0;
            int after = end < order.Length ? Common(frames, FramesOf(order[end])) : 0;
            int at = Math.Min(Math.Max(before, after), frames.Length - 1);
            for (int k = start; k < end; k++)
            {
                result[order[k]] = at;
            }

            previousStart = start;
            start = end;
        }

        return result;
    }

    /// <summary>How many leaf frames two frame lists share.</summary>
    private static int Common(ReadOnlySpan<BucketFrame> a, ReadOnlySpan<BucketFrame> b)
    {
        int n = Math.Min(a.Length, b.Length),
            i = 0;
        while (i < n && string.Equals(a[i].Text, b[i].Text, StringComparison.Ordinal))
        {
            i++;
        }

        return i;
    }

    /// <summary>
    /// The warning that raw addresses kept stacks from matching: when new or vanished stacks hold frames no module
    /// list placed (raw addresses), and the two sides were not placed with the same module list (the same modules at
    /// the same bases). Raw frames of stacks that matched anyway say nothing.
    /// </summary>
    private string[] RawAddressWarnings(StackBucketResult baseline, StackBucketResult current)
    {
        // Frames of the same text are raw alike (a raw address reads 0x and its digits; a placed one names its module).
        int b = 0,
            n = 0;
        for (int i = 0; i < _entries.Count; i++)
        {
            StackChangeKind kind = _entries[i].Kind;
            if (kind != StackChangeKind.Common && HasRawAddress(FramesOf(i)))
            {
                if (kind == StackChangeKind.New)
                {
                    n++;
                }
                else
                {
                    b++;
                }
            }
        }

        if ((b == 0 && n == 0) || SameModuleList(baseline, current))
        {
            return [];
        }

        return
        [
            "raw addresses are incomparable without symbols: "
                + string.Create(CultureInfo.InvariantCulture, $"{n:N0} new and {b:N0} vanished stack(s) hold raw ")
                + "addresses "
                + "(frames no module list placed), and the two sides were not placed with one module list, so they may "
                + "come from two process lifetimes (modules at other bases): the same code can show as new and "
                + "vanished "
                + "stacks. Give each capture the module list of its own process lifetime (--modules, "
                + "<set-name>.modules.txt) and symbols (--symbols, --sql-build) so frames compare by function",
        ];
    }

    /// <summary>Whether a frame is left as a raw address: unresolved, and no module list placed it.</summary>
    private static bool HasRawAddress(ReadOnlySpan<BucketFrame> frames)
    {
        foreach (BucketFrame f in frames)
        {
            if (f.Status == FrameResolutionStatus.Unresolved && f.Module is null)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Whether every input of both sides was placed with the same module list (the same module names at the same
    /// bases).
    /// </summary>
    private static bool SameModuleList(StackBucketResult baseline, StackBucketResult current)
    {
        ModuleMap?[] maps = [.. baseline.Inputs.Concat(current.Inputs).Select(i => i.ModuleMap)];
        return maps.Length > 0 && maps[0] is ModuleMap first && maps.All(m => m is not null && SameModules(first, m));
    }

    private static bool SameModules(ModuleMap a, ModuleMap b) =>
        ReferenceEquals(a, b)
        || a.Modules.Select(m => (m.Name.Key, m.BaseAddress))
            .SequenceEqual(b.Modules.Select(m => (m.Name.Key, m.BaseAddress)));

    /// <summary>Two entries as matched: the event name (when matched by event) and the frames' text.</summary>
    private sealed class EntryComparer(List<Entry> entries, BucketPositions b, BucketPositions n)
        : IEqualityComparer<int>
    {
        public bool Equals(int x, int y)
        {
            Entry ex = entries[x],
                ey = entries[y];
            return string.Equals(ex.EventName, ey.EventName, StringComparison.Ordinal)
                && StackMerger.CompareFrames(ex.FramesIn(b, n), ey.FramesIn(b, n)) == 0;
        }

        public int GetHashCode(int obj)
        {
            Entry e = entries[obj];
            var h = new HashCode();
            h.Add(e.EventName, StringComparer.Ordinal);
            foreach (BucketFrame f in e.FramesIn(b, n))
            {
                h.Add(f.Text, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }

    /// <summary>
    /// One stack of either side: where its (first) bucket stands on each side (−1: not there), and its events and
    /// weight in each.
    /// </summary>
    private struct Entry(string? eventName, int baseIndex, int newIndex)
    {
        public readonly string? EventName = eventName;
        public int BaseIndex = baseIndex;
        public int NewIndex = newIndex;
        public long BaseCount;
        public long NewCount;
        public long BaseWeight;
        public long NewWeight;

        public readonly StackChangeKind Kind =>
            BaseIndex >= 0 && NewIndex >= 0 ? StackChangeKind.Common
            : NewIndex >= 0 ? StackChangeKind.New
            : StackChangeKind.Vanished;

        /// <summary>As <see cref="StackBucketChange.Delta"/>.</summary>
        public readonly long Delta => NewWeight >= 0 && BaseWeight >= 0 ? NewWeight - BaseWeight : 0;

        public readonly ReadOnlySpan<BucketFrame> FramesIn(BucketPositions b, BucketPositions n) =>
            BaseIndex >= 0 ? b.FramesAt(BaseIndex) : n.FramesAt(NewIndex);
    }
}

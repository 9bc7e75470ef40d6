using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>How a stack bucket changed between two captures.</summary>
public enum StackChangeKind
{
    /// <summary>In both captures.</summary>
    Common,

    /// <summary>Only in the new capture.</summary>
    New,

    /// <summary>Only in the base capture.</summary>
    Vanished,
}

/// <summary>One stack compared between a base and a new capture. Shares are fractions of each side's total weight.</summary>
/// <param name="Kind">Common, new or vanished.</param>
/// <param name="EventName">The event name when buckets are matched by event, else <see langword="null"/>.</param>
/// <param name="Frames">The frames, leaf first.</param>
/// <param name="BaseCount">Events in the base capture.</param>
/// <param name="NewCount">Events in the new capture.</param>
/// <param name="BaseWeight">The weight in the base capture (the count, or the summed duration).</param>
/// <param name="NewWeight">The weight in the new capture.</param>
/// <param name="BaseShare">BaseWeight / the base total weight.</param>
/// <param name="NewShare">NewWeight / the new total weight.</param>
public sealed record StackBucketChange(StackChangeKind Kind, string? EventName, IReadOnlyList<string> Frames, long BaseCount, long NewCount, long BaseWeight, long NewWeight, double BaseShare, double NewShare)
{
    /// <summary>NewWeight − BaseWeight (saturating).</summary>
    public long Delta => NewWeight >= 0 && BaseWeight >= 0 ? NewWeight - BaseWeight : 0;

    /// <summary>NewShare − BaseShare, as a fraction (0.05 = 5 percentage points).</summary>
    public double ShareDelta => NewShare - BaseShare;
}

/// <summary>What a regression gate of <see cref="StackDiff.Check"/> found.</summary>
/// <param name="Tripped">Whether a gate tripped.</param>
/// <param name="Reasons">What tripped (one sentence each), or what was checked when nothing did.</param>
public sealed record StackDiffGate(bool Tripped, IReadOnlyList<string> Reasons);

/// <summary>
/// Stack buckets of two captures compared (<c>xeanalyze diff</c>): per stack the weight and share in each, the delta and share delta, new
/// and vanished stacks, and a differential call tree for folded (<c>path base new</c>, as FlameGraph's <c>difffolded.pl</c> writes) and
/// SVG diff flame graphs. Immutable.
/// </summary>
/// <remarks>
/// <para><b>Matching.</b> Stacks are matched by their symbolized frames (ordinal), so captures of different process lifetimes (other module
/// bases) or of different shapes (raw addresses resolved offline, a histogram symbolized in-engine) compare. When both sides group buckets
/// by event and every bucket has an event name, the event name is part of the match; otherwise (a histogram on either side, or
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
/// <para><b>Order.</b> Changes are ordered by share delta (descending: the biggest relative growth first, the biggest shrink last), then
/// weight delta (descending), then the larger of the two weights (descending), then frames (ordinal), then event name.</para>
/// </remarks>
public sealed class StackDiff
{
    private StackDiff(StackBucketResult baseline, StackBucketResult current, StackWeight weight, bool byEvent, long baseTotal, long newTotal, IReadOnlyList<StackBucketChange> changes)
    {
        _distinguishing = DistinguishingFrames(changes);
        Warnings = Array.AsReadOnly(RawAddressWarnings(baseline, current, changes));
        Base = baseline;
        New = current;
        Weight = weight;
        MatchedByEvent = byEvent;
        BaseTotal = baseTotal;
        NewTotal = newTotal;
        Changes = changes;
        NewStacks = Array.AsReadOnly(changes.Where(c => c.Kind == StackChangeKind.New).ToArray());
        VanishedStacks = Array.AsReadOnly(changes.Where(c => c.Kind == StackChangeKind.Vanished).ToArray());
    }

    /// <summary>The index of each stack's <see cref="DistinguishingFrame"/>, by its frames.</summary>
    private readonly Dictionary<IReadOnlyList<string>, int> _distinguishing;

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

    /// <summary>(NewTotal − BaseTotal) / BaseTotal as a fraction; +∞ when the base total is 0 and the new one is not, 0 when both are 0.</summary>
    public double TotalGrowth => BaseTotal == 0 ? (NewTotal == 0 ? 0 : double.PositiveInfinity) : (NewTotal - (double)BaseTotal) / BaseTotal;

    /// <summary>Every stack of either side, in the order of the class remarks.</summary>
    public IReadOnlyList<StackBucketChange> Changes { get; }

    /// <summary>Stacks only in the new capture.</summary>
    public IReadOnlyList<StackBucketChange> NewStacks { get; }

    /// <summary>Stacks only in the base capture.</summary>
    public IReadOnlyList<StackBucketChange> VanishedStacks { get; }

    /// <summary>Compares two bucket results (both unfiltered, from resolvers with the same frame style and offsets).</summary>
    /// <param name="baseline">The base capture.</param>
    /// <param name="current">The new capture.</param>
    /// <param name="weight">Event counts (default) or summed durations.</param>
    /// <returns>The comparison.</returns>
    /// <exception cref="ArgumentException">A result is incomplete (no buckets), or <paramref name="weight"/> is duration and neither side has durations.</exception>
    public static StackDiff Compare(StackBucketResult baseline, StackBucketResult current, StackWeight weight = StackWeight.Count)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        ArgumentNullException.ThrowIfNull(current);
        if (!baseline.IsComplete || !current.IsComplete)
        {
            throw new ArgumentException("both results need buckets (check MissingData first)");
        }

        if (weight == StackWeight.Duration && !baseline.HasDurations && !current.HasDurations)
        {
            throw new ArgumentException("weighing by duration needs events with a duration field (wait events) on at least one side");
        }

        bool byEvent = baseline.GroupedByEvent && current.GroupedByEvent &&
            baseline.Buckets.All(b => b.EventName is not null) && current.Buckets.All(b => b.EventName is not null);
        Dictionary<Key, (long Count, long Weight)> b = Collapse(baseline, weight, byEvent);
        Dictionary<Key, (long Count, long Weight)> n = Collapse(current, weight, byEvent);
        long bt = b.Values.Sum(v => v.Weight);
        long nt = n.Values.Sum(v => v.Weight);
        var changes = new List<StackBucketChange>(b.Count + n.Count);
        foreach (Key k in b.Keys.Union(n.Keys))
        {
            bool inBase = b.TryGetValue(k, out (long Count, long Weight) bv);
            bool inNew = n.TryGetValue(k, out (long Count, long Weight) nv);
            StackChangeKind kind = inBase && inNew ? StackChangeKind.Common : inNew ? StackChangeKind.New : StackChangeKind.Vanished;
            changes.Add(new StackBucketChange(kind, k.EventName, Array.AsReadOnly(k.Frames), bv.Count, nv.Count, bv.Weight, nv.Weight,
                bt == 0 ? 0 : (double)bv.Weight / bt, nt == 0 ? 0 : (double)nv.Weight / nt));
        }

        changes.Sort(static (x, y) =>
        {
            // Shares are rounded for ordering, so float noise between equal deltas does not decide it.
            int c = Math.Round(y.ShareDelta, 12).CompareTo(Math.Round(x.ShareDelta, 12));
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
                c = StackMerger.CompareFrames(x.Frames, y.Frames);
            }

            return c != 0 ? c : string.CompareOrdinal(x.EventName, y.EventName);
        });
        return new StackDiff(baseline, current, weight, byEvent, bt, nt, changes.AsReadOnly());
    }

    /// <summary>
    /// Evaluates the regression gates. <paramref name="totalGrowthPercent"/>: trips when the new total weight exceeds the base total by
    /// more than this many percent ((new − base) / base × 100 &gt; PCT; any growth from a base of 0). <paramref name="bucketShareGrowthPoints"/>:
    /// trips when any stack's share of its side's total grew by more than this many percentage points (new stacks count from 0 %).
    /// </summary>
    /// <param name="totalGrowthPercent">The total-growth limit in percent, or <see langword="null"/> for no such gate.</param>
    /// <param name="bucketShareGrowthPoints">The per-stack share-growth limit in percentage points, or <see langword="null"/>.</param>
    /// <returns>What tripped.</returns>
    public StackDiffGate Check(double? totalGrowthPercent, double? bucketShareGrowthPoints)
    {
        var reasons = new List<string>();
        bool tripped = false;
        string unit = Weight == StackWeight.Duration ? "duration" : "event count";
        if (totalGrowthPercent is double pct)
        {
            double growth = TotalGrowth * 100;
            bool t = growth > pct;
            tripped |= t;
            reasons.Add(string.Create(Ic,
                $"total {unit} {BaseTotal:N0} -> {NewTotal:N0} ({(double.IsPositiveInfinity(growth) ? "new from 0" : SignedPercent(TotalGrowth, 2))}): {(t ? "grew by more than" : "within")} {pct:0.##} % (--fail-if-grows)"));
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
                reasons.Add(string.Create(Ic,
                    $"largest share growth: {what}: {Percent(worst.BaseShare, 2)} -> {Percent(worst.NewShare, 2)} ({(worst.ShareDelta >= 0 ? "+" : "-")}{Math.Abs(worst.ShareDelta * 100):F2} points): {(t ? "grew by more than" : "within")} {pp:0.##} points (--fail-if-bucket-grows)"));
            }
        }

        return new StackDiffGate(tripped, reasons.AsReadOnly());
    }

    /// <summary>The differential call tree: the new capture's weights as <see cref="CallTreeNode.Weight"/>, the base capture's as baseline.</summary>
    /// <returns>The tree (written as <c>path base new</c> folded lines, or a red/blue SVG).</returns>
    internal CallTree ToCallTree()
    {
        WeightUnit unit = Weight == StackWeight.Duration ? WeightUnit.Milliseconds : WeightUnit.Count;
        bool byEventRoot = MatchedByEvent && Changes.Select(c => c.EventName).Distinct(StringComparer.Ordinal).Skip(1).Any();
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
    internal int DistinguishingFrame(StackBucketChange change) =>
        change.Frames.Count == 0 ? -1 : _distinguishing.GetValueOrDefault(change.Frames, 0);

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

    internal static string KindText(StackChangeKind k) => k switch
    {
        StackChangeKind.New => "new",
        StackChangeKind.Vanished => "vanished",
        _ => "common",
    };

    private string Describe(StackBucketChange c)
    {
        int i = DistinguishingFrame(c);
        string where = i > 0
            ? string.Create(CultureInfo.InvariantCulture, $"frame {i + 1} of {c.Frames.Count}")
                + ", where it leaves every other stack"
            : string.Create(CultureInfo.InvariantCulture, $"{c.Frames.Count} frames");
        return (c.EventName is null ? string.Empty : c.EventName + " ") + NameOf(c) + " (" + where + ")";
    }

    /// <summary>
    /// The <see cref="DistinguishingFrame"/> of each distinct frame list: in lexicographic order, the longest run of
    /// leaf frames a list shares with any other is the one it shares with a neighbour, so one sort finds them all.
    /// </summary>
    private static Dictionary<IReadOnlyList<string>, int> DistinguishingFrames(IReadOnlyList<StackBucketChange> changes)
    {
        FramesComparer comparer = FramesComparer.Instance;
        IReadOnlyList<string>[] lists = [.. changes.Select(c => c.Frames).Where(f => f.Count > 0).Distinct(comparer)];
        Array.Sort(lists, StackMerger.CompareFrames);
        var result = new Dictionary<IReadOnlyList<string>, int>(lists.Length, comparer);
        for (int k = 0; k < lists.Length; k++)
        {
            int before = k > 0 ? Common(lists[k - 1], lists[k]) : 0;
            int after = k + 1 < lists.Length ? Common(lists[k], lists[k + 1]) : 0;
            result.Add(lists[k], Math.Min(Math.Max(before, after), lists[k].Count - 1));
        }

        return result;
    }

    /// <summary>How many leaf frames two frame lists share.</summary>
    private static int Common(IReadOnlyList<string> a, IReadOnlyList<string> b)
    {
        int n = Math.Min(a.Count, b.Count), i = 0;
        while (i < n && string.Equals(a[i], b[i], StringComparison.Ordinal))
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
    private static string[] RawAddressWarnings(StackBucketResult baseline, StackBucketResult current,
        IReadOnlyList<StackBucketChange> changes)
    {
        var raw = new HashSet<IReadOnlyList<string>>(FramesComparer.Instance);
        foreach (StackBucket bucket in baseline.Buckets.Concat(current.Buckets))
        {
            if (bucket.FrameDetails.Any(IsRawAddress))
            {
                raw.Add(bucket.Frames);
            }
        }

        int b = changes.Count(c => c.Kind == StackChangeKind.Vanished && raw.Contains(c.Frames));
        int n = changes.Count(c => c.Kind == StackChangeKind.New && raw.Contains(c.Frames));
        if ((b == 0 && n == 0) || SameModuleList(baseline, current))
        {
            return [];
        }

        return ["raw addresses are incomparable without symbols: "
            + string.Create(CultureInfo.InvariantCulture, $"{n:N0} new and {b:N0} vanished stack(s) hold raw ")
            + "addresses "
            + "(frames no module list placed), and the two sides were not placed with one module list, so they may "
            + "come from two process lifetimes (modules at other bases): the same code can show as new and vanished "
            + "stacks. Give each capture the module list of its own process lifetime (--modules, "
            + "<set-name>.modules.txt) and symbols (--symbols, --sql-build) so frames compare by function"];
    }

    /// <summary>A frame left as a raw address: unresolved, and no module list placed it in a module.</summary>
    private static bool IsRawAddress(BucketFrame f) => f.Status == FrameResolutionStatus.Unresolved && f.Module is null;

    /// <summary>
    /// Whether every input of both sides was placed with the same module list (the same module names at the same
    /// bases).
    /// </summary>
    private static bool SameModuleList(StackBucketResult baseline, StackBucketResult current)
    {
        ModuleMap?[] maps = [.. baseline.Inputs.Concat(current.Inputs).Select(i => i.ModuleMap)];
        return maps.Length > 0 && maps[0] is ModuleMap first && maps.All(m => m is not null && SameModules(first, m));
    }

    private static bool SameModules(ModuleMap a, ModuleMap b) => ReferenceEquals(a, b) ||
        a.Modules.Select(m => (m.Name.Key, m.BaseAddress))
            .SequenceEqual(b.Modules.Select(m => (m.Name.Key, m.BaseAddress)));

    private static Dictionary<Key, (long Count, long Weight)> Collapse(StackBucketResult r, StackWeight weight, bool byEvent)
    {
        var d = new Dictionary<Key, (long Count, long Weight)>();
        foreach (StackBucket b in r.Buckets)
        {
            var k = new Key(byEvent ? b.EventName : null, [.. b.Frames]);
            (long c, long w) = d.GetValueOrDefault(k);
            d[k] = (c + b.Count, w + b.WeightOf(weight));
        }

        return d;
    }

    /// <summary>Frame lists compared by content (ordinal).</summary>
    private sealed class FramesComparer : IEqualityComparer<IReadOnlyList<string>>
    {
        public static readonly FramesComparer Instance = new();

        public bool Equals(IReadOnlyList<string>? x, IReadOnlyList<string>? y) =>
            ReferenceEquals(x, y) || (x is not null && y is not null && x.SequenceEqual(y, StringComparer.Ordinal));

        public int GetHashCode(IReadOnlyList<string> obj)
        {
            var h = new HashCode();
            foreach (string f in obj)
            {
                h.Add(f, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }

    private readonly struct Key(string? eventName, string[] frames) : IEquatable<Key>
    {
        public string? EventName { get; } = eventName;

        public string[] Frames { get; } = frames;

        public bool Equals(Key other) => string.Equals(EventName, other.EventName, StringComparison.Ordinal) && Frames.AsSpan().SequenceEqual(other.Frames);

        public override bool Equals(object? obj) => obj is Key k && Equals(k);

        public override int GetHashCode()
        {
            var h = new HashCode();
            h.Add(EventName, StringComparer.Ordinal);
            foreach (string f in Frames)
            {
                h.Add(f, StringComparer.Ordinal);
            }

            return h.ToHashCode();
        }
    }
}

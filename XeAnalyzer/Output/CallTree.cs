using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>The unit of the weights of a <see cref="CallTree"/>; writers use it for labels and the speedscope
/// unit.</summary>
internal enum WeightUnit
{
    /// <summary>Counts (events, samples, latch acquires); speedscope unit <c>none</c>.</summary>
    Count,

    /// <summary>Bytes (memory); speedscope unit <c>bytes</c>.</summary>
    Bytes,

    /// <summary>Milliseconds (wait or hold time); speedscope unit <c>milliseconds</c>.</summary>
    Milliseconds,

    /// <summary>Microseconds (latch hold or query time); speedscope unit <c>microseconds</c>.</summary>
    Microseconds,

    /// <summary>A duration whose unit is unknown or differs between the events summed; speedscope unit
    /// <c>none</c>.</summary>
    Duration,
}

/// <summary>
/// A view of one node of a <see cref="CallTree"/>: a frame reached by one path from the root, made on request (the
/// tree keeps its nodes as arrays, not objects). <see cref="Weight"/> is inclusive (this frame and everything it
/// called); <see cref="SelfWeight"/> is the weight of stacks that end here. The baseline weights are the second weight
/// of a differential tree (0 otherwise).
/// </summary>
internal sealed class CallTreeNode
{
    private readonly CallTree _tree;

    internal CallTreeNode(CallTree tree, int index)
    {
        _tree = tree;
        Index = index;
    }

    /// <summary>The node's position in the tree's depth-first order (the root is 0).</summary>
    public int Index { get; }

    /// <summary>The frame name exactly as added (the root is named <see cref="CallTree.RootName"/>).</summary>
    public string Name => _tree.NameOf(Index);

    /// <summary>The inclusive weight: stacks through this node.</summary>
    public long Weight => _tree.WeightOf(Index);

    /// <summary>The weight of stacks whose leaf is this node.</summary>
    public long SelfWeight => _tree.SelfWeightOf(Index);

    /// <summary>The inclusive baseline (second) weight; 0 unless the tree is differential.</summary>
    public long BaselineWeight => _tree.BaselineWeightOf(Index);

    /// <summary>The baseline weight of stacks whose leaf is this node.</summary>
    public long SelfBaselineWeight => _tree.SelfBaselineWeightOf(Index);

    /// <summary><see cref="Weight"/> minus <see cref="BaselineWeight"/> (growth is positive).</summary>
    public long Delta => checked(Weight - BaselineWeight);

    /// <summary>The callees, ordered by name (ordinal), each name once.</summary>
    public IReadOnlyList<CallTreeNode> Children => [.. _tree.ChildrenOf(Index).Select(c => new CallTreeNode(_tree, c))];

    /// <summary>The caller, or <see langword="null"/> for the root.</summary>
    public CallTreeNode? Parent => Index == 0 ? null : new CallTreeNode(_tree, _tree.ParentOf(Index));

    /// <summary>The depth: 0 for the root, 1 for outermost frames.</summary>
    public int Depth => _tree.DepthOf(Index);

    /// <summary>The frame names from the outermost frame (after the root) down to this node.</summary>
    /// <returns>The path, root first; empty for the root.</returns>
    public IReadOnlyList<string> GetPath() => _tree.PathOf(Index);
}

/// <summary>
/// A call tree merged from stacks: identical paths are merged and weights summed. Flame outputs (folded stacks,
/// speedscope, SVG flame graphs) are all written from one tree. A tree with baseline weights is differential (see
/// <see cref="Diff"/>). Immutable and safe to share between threads. Build one with <see cref="CallTreeBuilder"/>.
/// </summary>
/// <remarks>
/// Nodes are numbered in depth-first order (the root 0, children by name) and held as parallel arrays, one entry per
/// node, so a tree of many distinct stacks costs a few dozen bytes a node. A node's subtree is the range from its index
/// to <see cref="SubtreeEndOf"/>: its first child follows it, and each child's subtree end is its next sibling.
/// </remarks>
internal sealed class CallTree
{
    /// <summary>The name of the synthetic root node.</summary>
    public const string RootName = "all";

    private readonly string[] _names;
    private readonly long[] _self;
    private readonly long[] _weight;
    private readonly long[]? _selfBaseline;
    private readonly long[]? _baseline;
    private readonly int[] _parent;
    private readonly int[] _depth;
    private readonly int[] _end;

    /// <summary>Makes a tree from nodes in depth-first order (children by name) with their self weights; sums the
    /// inclusive weights and the subtree ranges.</summary>
    internal CallTree(
        string[] names,
        int[] parents,
        long[] self,
        long[]? selfBaseline,
        WeightUnit unit,
        long stackCount,
        bool hasBaseline
    )
    {
        int count = names.Length;
        _names = names;
        _parent = parents;
        _self = self;
        _selfBaseline = selfBaseline;
        Unit = unit;
        StackCount = stackCount;
        HasBaseline = hasBaseline;
        _weight = (long[])self.Clone();
        _baseline = (long[]?)selfBaseline?.Clone();
        _end = new int[count];
        _depth = new int[count];
        int maxDepth = 0;
        for (int i = 1; i < count; i++)
        {
            _depth[i] = _depth[parents[i]] + 1;
            maxDepth = Math.Max(maxDepth, _depth[i]);
        }

        // Children follow their parent, so a reverse walk has every subtree summed before its parent reads it.
        for (int i = count - 1; i >= 0; i--)
        {
            _end[i] = Math.Max(_end[i], i + 1);
            if (i > 0)
            {
                int p = parents[i];
                _weight[p] = checked(_weight[p] + _weight[i]);
                if (_baseline is not null)
                {
                    _baseline[p] = checked(_baseline[p] + _baseline[i]);
                }

                _end[p] = Math.Max(_end[p], _end[i]);
            }
        }

        MaxDepth = maxDepth;
    }

    /// <summary>The synthetic root (named <see cref="RootName"/>, depth 0); its weight is the total.</summary>
    public CallTreeNode Root => new(this, 0);

    /// <summary>The unit of the weights.</summary>
    public WeightUnit Unit { get; }

    /// <summary>The total weight (the root's inclusive weight).</summary>
    public long TotalWeight => _weight[0];

    /// <summary>The total baseline weight (0 unless differential).</summary>
    public long TotalBaselineWeight => BaselineWeightOf(0);

    /// <summary>Whether the tree carries a second (baseline) weight, making flame graphs differential.</summary>
    public bool HasBaseline { get; }

    /// <summary>The number of stacks added to the builder (not merged).</summary>
    public long StackCount { get; }

    /// <summary>The number of nodes including the root.</summary>
    public int NodeCount => _names.Length;

    /// <summary>The depth of the deepest node (0 for an empty tree).</summary>
    public int MaxDepth { get; }

    /// <summary>The name of node <paramref name="i"/>.</summary>
    public string NameOf(int i) => _names[i];

    /// <summary>The inclusive weight of node <paramref name="i"/>.</summary>
    public long WeightOf(int i) => _weight[i];

    /// <summary>The self weight of node <paramref name="i"/>.</summary>
    public long SelfWeightOf(int i) => _self[i];

    /// <summary>The inclusive baseline weight of node <paramref name="i"/>.</summary>
    public long BaselineWeightOf(int i) => _baseline?[i] ?? 0;

    /// <summary>The self baseline weight of node <paramref name="i"/>.</summary>
    public long SelfBaselineWeightOf(int i) => _selfBaseline?[i] ?? 0;

    /// <summary>The parent of node <paramref name="i"/>, or -1 for the root.</summary>
    public int ParentOf(int i) => i == 0 ? -1 : _parent[i];

    /// <summary>The depth of node <paramref name="i"/> (0 for the root).</summary>
    public int DepthOf(int i) => _depth[i];

    /// <summary>The index after the last node of <paramref name="i"/>'s subtree.</summary>
    public int SubtreeEndOf(int i) => _end[i];

    /// <summary>The children of node <paramref name="i"/> in order (by name).</summary>
    public IEnumerable<int> ChildrenOf(int i)
    {
        for (int c = i + 1; c < _end[i]; c = _end[c])
        {
            yield return c;
        }
    }

    /// <summary>The names from the outermost frame (after the root) down to node <paramref name="i"/>.</summary>
    public string[] PathOf(int i)
    {
        var names = new string[_depth[i]];
        for (int n = i, k = names.Length - 1; k >= 0; n = _parent[n], k--)
        {
            names[k] = _names[n];
        }

        return names;
    }

    /// <summary>The nodes, the root included, that <paramref name="include"/> accepts, in depth-first order.</summary>
    /// <param name="include">Which nodes to take.</param>
    /// <returns>The node indices.</returns>
    public int[] NodesWhere(Func<int, bool> include)
    {
        int count = 0;
        for (int i = 0; i < _names.Length; i++)
        {
            count += include(i) ? 1 : 0;
        }

        var nodes = new int[count];
        for (int i = 0, k = 0; i < _names.Length; i++)
        {
            if (include(i))
            {
                nodes[k++] = i;
            }
        }

        return nodes;
    }

    /// <summary>
    /// The nodes below the root that <paramref name="include"/> accepts, ordered by <paramref name="key"/> (ordinal),
    /// equal keys by index: nodes that share a name sit side by side, the first visited first, without a table of the
    /// names (a tree of many distinct stacks would need one entry per node).
    /// </summary>
    /// <param name="key">A node's name as compared (a writer's escaped form, or <see cref="NameOf"/>).</param>
    /// <param name="include">Which nodes to take.</param>
    /// <returns>The node indices in that order.</returns>
    public int[] NodesByName(Func<int, string> key, Func<int, bool> include)
    {
        int[] nodes = NodesWhere(i => i > 0 && include(i));
        Array.Sort(
            nodes,
            (a, b) =>
            {
                int c = string.CompareOrdinal(key(a), key(b));
                return c != 0 ? c : a.CompareTo(b);
            }
        );
        return nodes;
    }

    /// <summary>Enumerates every node, the root first, depth first, children in order.</summary>
    /// <returns>The nodes in pre-order.</returns>
    public IEnumerable<CallTreeNode> EnumerateDepthFirst()
    {
        for (int i = 0; i < _names.Length; i++)
        {
            yield return new CallTreeNode(this, i);
        }
    }

    /// <summary>
    /// Merges two trees into a differential tree: the weights of <paramref name="current"/> become
    /// <see cref="CallTreeNode.Weight"/> and those of <paramref name="baseline"/> become
    /// <see cref="CallTreeNode.BaselineWeight"/>. Baseline weights of the inputs are ignored.
    /// </summary>
    /// <param name="baseline">The "before" tree.</param>
    /// <param name="current">The "after" tree.</param>
    /// <returns>The differential tree, in the unit of <paramref name="current"/>.</returns>
    /// <exception cref="ArgumentException">The trees have different units.</exception>
    public static CallTree Diff(CallTree baseline, CallTree current)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        ArgumentNullException.ThrowIfNull(current);
        if (baseline.Unit != current.Unit)
        {
            throw new ArgumentException(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Cannot diff a {baseline.Unit} tree against a {current.Unit} tree."
                ),
                nameof(current)
            );
        }

        var builder = new CallTreeBuilder(current.Unit);
        for (int i = 0; i < current.NodeCount; i++)
        {
            if (current._self[i] != 0)
            {
                builder.AddRootFirst(current.PathOf(i), current._self[i], 0);
            }
        }

        for (int i = 0; i < baseline.NodeCount; i++)
        {
            if (baseline._self[i] != 0)
            {
                builder.AddRootFirst(baseline.PathOf(i), 0, baseline._self[i]);
            }
        }

        builder.MarkDifferential();
        return builder.Build(checked(baseline.StackCount + current.StackCount));
    }
}

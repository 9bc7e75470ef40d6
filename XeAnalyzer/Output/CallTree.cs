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
/// One node of a <see cref="CallTree"/>: a frame reached by one path from the root. Immutable.
/// <see cref="Weight"/> is inclusive (this frame and everything it called); <see cref="SelfWeight"/> is the weight of
/// stacks that end here. The baseline weights are the second weight of a differential tree (0 otherwise).
/// </summary>
internal sealed class CallTreeNode
{
    internal CallTreeNode(string name, long selfWeight, long selfBaselineWeight, CallTreeNode[] children)
    {
        Name = name;
        SelfWeight = selfWeight;
        SelfBaselineWeight = selfBaselineWeight;
        long weight = selfWeight;
        long baseline = selfBaselineWeight;
        foreach (CallTreeNode child in children)
        {
            weight = checked(weight + child.Weight);
            baseline = checked(baseline + child.BaselineWeight);
        }

        Weight = weight;
        BaselineWeight = baseline;
        // Most nodes of a wide tree are leaves: they share one empty list.
        Children =
            children.Length == 0
                ? System.Collections.ObjectModel.ReadOnlyCollection<CallTreeNode>.Empty
                : Array.AsReadOnly(children);
    }

    /// <summary>The frame name exactly as added (the root is named <see cref="CallTree.RootName"/>).</summary>
    public string Name { get; }

    /// <summary>The inclusive weight: stacks through this node.</summary>
    public long Weight { get; }

    /// <summary>The weight of stacks whose leaf is this node.</summary>
    public long SelfWeight { get; }

    /// <summary>The inclusive baseline (second) weight; 0 unless the tree is differential.</summary>
    public long BaselineWeight { get; }

    /// <summary>The baseline weight of stacks whose leaf is this node.</summary>
    public long SelfBaselineWeight { get; }

    /// <summary><see cref="Weight"/> minus <see cref="BaselineWeight"/> (growth is positive).</summary>
    public long Delta => checked(Weight - BaselineWeight);

    /// <summary>The callees, ordered by name (ordinal), each name once.</summary>
    public IReadOnlyList<CallTreeNode> Children { get; }

    /// <summary>The caller, or <see langword="null"/> for the root.</summary>
    public CallTreeNode? Parent { get; private set; }

    /// <summary>The depth: 0 for the root, 1 for outermost frames.</summary>
    public int Depth { get; private set; }

    /// <summary>The frame names from the outermost frame (after the root) down to this node.</summary>
    /// <returns>The path, root first; empty for the root.</returns>
    public IReadOnlyList<string> GetPath()
    {
        var names = new string[Depth];
        CallTreeNode? n = this;
        for (int i = Depth - 1; i >= 0; i--)
        {
            names[i] = n!.Name;
            n = n.Parent;
        }

        return names;
    }

    internal void Attach(CallTreeNode parent)
    {
        Parent = parent;
        Depth = checked(parent.Depth + 1);
    }

    /// <summary>Sets depths of a subtree top-down once the whole tree exists (children are built before
    /// parents).</summary>
    internal static void AssignDepths(CallTreeNode root)
    {
        var stack = new Stack<CallTreeNode>();
        stack.Push(root);
        while (stack.Count > 0)
        {
            CallTreeNode n = stack.Pop();
            foreach (CallTreeNode c in n.Children)
            {
                c.Attach(n);
                stack.Push(c);
            }
        }
    }
}

/// <summary>
/// A call tree merged from stacks: identical paths are merged and weights summed. Flame outputs (folded stacks,
/// speedscope, SVG flame graphs) are all written from one tree. A tree with baseline weights is differential (see
/// <see cref="Diff"/>). Immutable and safe to share between threads. Build one with <see cref="CallTreeBuilder"/>.
/// </summary>
internal sealed class CallTree
{
    /// <summary>The name of the synthetic root node.</summary>
    public const string RootName = "all";

    internal CallTree(CallTreeNode root, WeightUnit unit, long stackCount, bool hasBaseline)
    {
        Root = root;
        Unit = unit;
        StackCount = stackCount;
        HasBaseline = hasBaseline;
        int nodes = 0;
        int maxDepth = 0;
        foreach (CallTreeNode n in EnumerateDepthFirst())
        {
            nodes++;
            maxDepth = Math.Max(maxDepth, n.Depth);
        }

        NodeCount = nodes;
        MaxDepth = maxDepth;
    }

    /// <summary>The synthetic root (named <see cref="RootName"/>, depth 0); its weight is the total.</summary>
    public CallTreeNode Root { get; }

    /// <summary>The unit of the weights.</summary>
    public WeightUnit Unit { get; }

    /// <summary>The total weight (the root's inclusive weight).</summary>
    public long TotalWeight => Root.Weight;

    /// <summary>The total baseline weight (0 unless differential).</summary>
    public long TotalBaselineWeight => Root.BaselineWeight;

    /// <summary>Whether the tree carries a second (baseline) weight, making flame graphs differential.</summary>
    public bool HasBaseline { get; }

    /// <summary>The number of stacks added to the builder (not merged).</summary>
    public long StackCount { get; }

    /// <summary>The number of nodes including the root.</summary>
    public int NodeCount { get; }

    /// <summary>The depth of the deepest node (0 for an empty tree).</summary>
    public int MaxDepth { get; }

    /// <summary>Enumerates every node, the root first, depth first, children in order (no recursion, any
    /// depth).</summary>
    /// <returns>The nodes in pre-order.</returns>
    public IEnumerable<CallTreeNode> EnumerateDepthFirst()
    {
        var stack = new Stack<CallTreeNode>();
        stack.Push(Root);
        while (stack.Count > 0)
        {
            CallTreeNode n = stack.Pop();
            yield return n;
            for (int i = n.Children.Count - 1; i >= 0; i--)
            {
                stack.Push(n.Children[i]);
            }
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
        foreach (CallTreeNode n in current.EnumerateDepthFirst())
        {
            if (n.SelfWeight != 0)
            {
                builder.AddRootFirst(n.GetPath(), n.SelfWeight, 0);
            }
        }

        foreach (CallTreeNode n in baseline.EnumerateDepthFirst())
        {
            if (n.SelfWeight != 0)
            {
                builder.AddRootFirst(n.GetPath(), 0, n.SelfWeight);
            }
        }

        builder.MarkDifferential();
        return builder.Build(checked(baseline.StackCount + current.StackCount));
    }
}

/// <summary>
/// Builds a <see cref="CallTree"/> from stacks given leaf first, as Extended Events reports them. Identical paths are
/// merged (frame names compared ordinally) and weights summed with overflow checks. Not thread-safe; the builder can
/// keep collecting after <see cref="Build()"/>.
/// </summary>
internal sealed class CallTreeBuilder
{
    private readonly MutableNode _root = new(CallTree.RootName);
    private long _stackCount;
    private bool _hasBaseline;

    /// <summary>Creates a builder.</summary>
    /// <param name="unit">The unit of the weights.</param>
    public CallTreeBuilder(WeightUnit unit = WeightUnit.Count)
    {
        Unit = unit;
    }

    /// <summary>The unit of the weights.</summary>
    public WeightUnit Unit { get; }

    /// <summary>The number of stacks added so far.</summary>
    public long StackCount => _stackCount;

    /// <summary>Adds a stack.</summary>
    /// <param name="framesLeafFirst">
    /// The frame names, innermost (leaf) first as Extended Events gives them; any text, including empty names. An empty
    /// list adds the weight to the root itself.
    /// </param>
    /// <param name="weight">The weight (count, bytes or milliseconds), 0 or more.</param>
    /// <param name="baselineWeight">The second weight for a differential tree (0 or more); any non-zero value makes the
    /// tree differential.</param>
    /// <exception cref="ArgumentNullException"><paramref name="framesLeafFirst"/> or a frame is
    /// <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A weight is negative.</exception>
    /// <exception cref="OverflowException">A total exceeds <see cref="long.MaxValue"/>.</exception>
    public void AddStack(IReadOnlyList<string> framesLeafFirst, long weight, long baselineWeight = 0)
    {
        ArgumentNullException.ThrowIfNull(framesLeafFirst);
        ArgumentOutOfRangeException.ThrowIfNegative(weight);
        ArgumentOutOfRangeException.ThrowIfNegative(baselineWeight);
        for (int i = 0; i < framesLeafFirst.Count; i++)
        {
            if (framesLeafFirst[i] is null)
            {
                throw new ArgumentNullException(
                    nameof(framesLeafFirst),
                    string.Create(CultureInfo.InvariantCulture, $"Frame {i} is null.")
                );
            }
        }

        MutableNode node = _root;
        for (int i = framesLeafFirst.Count - 1; i >= 0; i--)
        {
            node = node.Child(framesLeafFirst[i]);
        }

        node.Self = checked(node.Self + weight);
        node.SelfBaseline = checked(node.SelfBaseline + baselineWeight);
        _hasBaseline |= baselineWeight != 0;
        _stackCount++;
    }

    /// <summary>Builds the immutable tree from the stacks added so far.</summary>
    /// <returns>The tree.</returns>
    /// <exception cref="OverflowException">An inclusive total exceeds <see cref="long.MaxValue"/>.</exception>
    public CallTree Build() => Build(_stackCount);

    internal void AddRootFirst(IReadOnlyList<string> pathRootFirst, long weight, long baselineWeight)
    {
        MutableNode node = _root;
        foreach (string name in pathRootFirst)
        {
            node = node.Child(name);
        }

        node.Self = checked(node.Self + weight);
        node.SelfBaseline = checked(node.SelfBaseline + baselineWeight);
        _hasBaseline |= baselineWeight != 0;
        _stackCount++;
    }

    internal void MarkDifferential() => _hasBaseline = true;

    internal CallTree Build(long stackCount)
    {
        // Post-order without recursion: children are frozen before their parent, which takes them from them (a node
        // holds its frozen form only until then: no table of every node).
        var stack = new Stack<(MutableNode Node, bool Expanded)>();
        stack.Push((_root, false));
        while (stack.Count > 0)
        {
            (MutableNode node, bool expanded) = stack.Pop();
            if (!expanded)
            {
                stack.Push((node, true));
                foreach (MutableNode child in node.Children)
                {
                    stack.Push((child, false));
                }

                continue;
            }

            MutableNode[] ordered = [.. node.Children];
            Array.Sort(ordered, static (a, b) => string.CompareOrdinal(a.Name, b.Name));
            CallTreeNode[] children = ordered.Length == 0 ? [] : new CallTreeNode[ordered.Length];
            for (int i = 0; i < ordered.Length; i++)
            {
                children[i] = ordered[i].Frozen!;
                ordered[i].Frozen = null;
            }

            node.Frozen = new CallTreeNode(node.Name, node.Self, node.SelfBaseline, children);
        }

        CallTreeNode root = _root.Frozen!;
        _root.Frozen = null;
        CallTreeNode.AssignDepths(root);
        return new CallTree(root, Unit, stackCount, _hasBaseline);
    }

    private sealed class MutableNode(string name)
    {
        private const int ListLimit = 8;
        private List<MutableNode>? _list;
        private Dictionary<string, MutableNode>? _map;

        public string Name { get; } = name;

        public long Self { get; set; }

        public long SelfBaseline { get; set; }

        /// <summary>The node as built, between its freezing and its parent's (see <see cref="Build(long)"/>).</summary>
        public CallTreeNode? Frozen { get; set; }

        /// <summary>The children in no particular order (Build sorts them).</summary>
        public IEnumerable<MutableNode> Children => (IEnumerable<MutableNode>?)_map?.Values ?? _list ?? [];

        /// <summary>
        /// Finds or adds a child. Most frames have a few callees, so a short list is searched first (a reference
        /// comparison hits when the symbolizer shares frame strings); wide nodes switch to a dictionary.
        /// </summary>
        public MutableNode Child(string childName)
        {
            if (_map is not null)
            {
                if (!_map.TryGetValue(childName, out MutableNode? found))
                {
                    found = new MutableNode(childName);
                    _map.Add(childName, found);
                }

                return found;
            }

            _list ??= new List<MutableNode>(2);
            foreach (MutableNode c in _list)
            {
                if (ReferenceEquals(c.Name, childName) || string.Equals(c.Name, childName, StringComparison.Ordinal))
                {
                    return c;
                }
            }

            var child = new MutableNode(childName);
            if (_list.Count < ListLimit)
            {
                _list.Add(child);
                return child;
            }

            _map = new Dictionary<string, MutableNode>(ListLimit * 2, StringComparer.Ordinal);
            foreach (MutableNode c in _list)
            {
                _map.Add(c.Name, c);
            }

            _map.Add(childName, child);
            _list = null;
            return child;
        }
    }
}

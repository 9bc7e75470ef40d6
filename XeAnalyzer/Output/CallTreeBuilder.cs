using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>
/// Builds a <see cref="CallTree"/> from stacks given leaf first, as Extended Events reports them. Identical paths are
/// merged (frame names compared ordinally) and weights summed with overflow checks. Not thread-safe; the builder can
/// keep collecting after <see cref="Build()"/>.
/// </summary>
/// <remarks>
/// The nodes being merged are parallel arrays in the order they were first reached, each holding its first child and
/// next sibling, so the builder makes no object per node; <see cref="Build(long)"/> lays them out in the tree's
/// depth-first order.
/// </remarks>
internal sealed class CallTreeBuilder
{
    /// <summary>Most frames have a few callees, searched in a list; a node with more looks them up by name.</summary>
    private const int ListLimit = 8;

    private readonly Dictionary<int, Dictionary<string, int>> _wide = [];
    private string[] _names = new string[16];
    private long[] _self = new long[16];
    private long[]? _selfBaseline;
    private int[] _firstChild = new int[16];
    private int[] _nextSibling = new int[16];
    private int[] _childCount = new int[16];
    private int _count;
    private long _stackCount;
    private bool _hasBaseline;

    /// <summary>Creates a builder.</summary>
    /// <param name="unit">The unit of the weights.</param>
    public CallTreeBuilder(WeightUnit unit = WeightUnit.Count)
    {
        Unit = unit;
        Add(CallTree.RootName);
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

        int node = 0;
        for (int i = framesLeafFirst.Count - 1; i >= 0; i--)
        {
            node = Child(node, framesLeafFirst[i]);
        }

        AddWeights(node, weight, baselineWeight);
    }

    /// <summary>Builds the immutable tree from the stacks added so far.</summary>
    /// <returns>The tree.</returns>
    /// <exception cref="OverflowException">An inclusive total exceeds <see cref="long.MaxValue"/>.</exception>
    public CallTree Build() => Build(_stackCount);

    internal void AddRootFirst(IReadOnlyList<string> pathRootFirst, long weight, long baselineWeight)
    {
        int node = 0;
        foreach (string name in pathRootFirst)
        {
            node = Child(node, name);
        }

        AddWeights(node, weight, baselineWeight);
    }

    internal void MarkDifferential() => _hasBaseline = true;

    internal CallTree Build(long stackCount)
    {
        var names = new string[_count];
        var parents = new int[_count];
        var self = new long[_count];
        long[]? selfBaseline = _selfBaseline is null ? null : new long[_count];
        // Depth first without recursion: a node takes the next index when popped, then its children are pushed in
        // reverse name order, each with its parent's new index.
        var pending = new Stack<(int Node, int Parent)>();
        pending.Push((0, -1));
        var children = new List<int>();
        var keys = new List<string>();
        int next = 0;
        while (pending.Count > 0)
        {
            (int node, int parent) = pending.Pop();
            int index = next++;
            names[index] = _names[node];
            parents[index] = parent;
            self[index] = _self[node];
            if (selfBaseline is not null)
            {
                selfBaseline[index] = _selfBaseline![node];
            }

            children.Clear();
            keys.Clear();
            for (int c = _firstChild[node]; c != 0; c = _nextSibling[c])
            {
                children.Add(c);
                keys.Add(_names[c]);
            }

            if (children.Count == 0)
            {
                continue;
            }

            int[] ordered = [.. children];
            Array.Sort([.. keys], ordered, StringComparer.Ordinal);
            for (int i = ordered.Length - 1; i >= 0; i--)
            {
                pending.Push((ordered[i], index));
            }
        }

        return new CallTree(names, parents, self, selfBaseline, Unit, stackCount, _hasBaseline);
    }

    private void AddWeights(int node, long weight, long baselineWeight)
    {
        _self[node] = checked(_self[node] + weight);
        if (baselineWeight != 0)
        {
            _selfBaseline ??= new long[_names.Length];
            _selfBaseline[node] = checked(_selfBaseline[node] + baselineWeight);
            _hasBaseline = true;
        }

        _stackCount++;
    }

    /// <summary>
    /// Finds or adds a child of <paramref name="parent"/>. A short list is searched first (a reference comparison hits
    /// when the symbolizer shares frame strings); wide nodes keep a dictionary by name.
    /// </summary>
    private int Child(int parent, string childName)
    {
        if (_wide.TryGetValue(parent, out Dictionary<string, int>? byName))
        {
            if (!byName.TryGetValue(childName, out int found))
            {
                found = AddChild(parent, childName);
                byName.Add(childName, found);
            }

            return found;
        }

        for (int c = _firstChild[parent]; c != 0; c = _nextSibling[c])
        {
            string name = _names[c];
            if (ReferenceEquals(name, childName) || string.Equals(name, childName, StringComparison.Ordinal))
            {
                return c;
            }
        }

        int child = AddChild(parent, childName);
        if (_childCount[parent] > ListLimit)
        {
            byName = new Dictionary<string, int>(ListLimit * 2, StringComparer.Ordinal);
            for (int c = _firstChild[parent]; c != 0; c = _nextSibling[c])
            {
                byName.Add(_names[c], c);
            }

            _wide.Add(parent, byName);
        }

        return child;
    }

    private int AddChild(int parent, string name)
    {
        int child = Add(name);
        _nextSibling[child] = _firstChild[parent];
        _firstChild[parent] = child;
        _childCount[parent]++;
        return child;
    }

    private int Add(string name)
    {
        if (_count == _names.Length)
        {
            int size = checked(_count * 2);
            Array.Resize(ref _names, size);
            Array.Resize(ref _self, size);
            Array.Resize(ref _firstChild, size);
            Array.Resize(ref _nextSibling, size);
            Array.Resize(ref _childCount, size);
            if (_selfBaseline is not null)
            {
                Array.Resize(ref _selfBaseline, size);
            }
        }

        _names[_count] = name;
        return _count++;
    }
}

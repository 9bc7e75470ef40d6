namespace XeAnalyzer.Output;

/// <summary>Which end of the stacks an SVG flame graph grows from.</summary>
public enum FlameRoot
{
    /// <summary>
    /// Chosen from the stacks: from the leaf when more weight ends in the most common leaf frame than starts under the
    /// most common outermost frame (a wait histogram: every stack ends in the same wait, callers differ), otherwise
    /// from the caller. A differential graph grows from the caller.
    /// </summary>
    Auto,

    /// <summary>From the outermost caller (the classic flame graph; <see cref="FlameGraphOptions.Inverted"/>
    /// applies).</summary>
    Caller,

    /// <summary>From the leaf frame: an icicle with the leaves at the top and their callers below.</summary>
    Leaf,
}

/// <summary>The one rule for which end a flame graph grows from, and the leaf-rooted tree it then draws.</summary>
internal static class FlameOrientation
{
    /// <summary>The words the chart's title gets when it is drawn from the leaf.</summary>
    public const string LeafTitle = " (icicle from the leaf frame: the stacks share their leaf, not their root)";

    /// <summary>Whether <paramref name="tree"/> is drawn from the leaf under <paramref name="root"/>.</summary>
    public static bool IsLeafRooted(CallTree tree, FlameRoot root) =>
        root switch
        {
            FlameRoot.Leaf => true,
            FlameRoot.Caller => false,
            _ => !tree.HasBaseline && HeaviestLeafWeight(tree) > HeaviestRootWeight(tree),
        };

    /// <summary>The weight under the heaviest outermost frame (a child of the tree's root).</summary>
    public static long HeaviestRootWeight(CallTree tree)
    {
        long heaviest = 0;
        foreach (int c in tree.ChildrenOf(0))
        {
            heaviest = Math.Max(heaviest, tree.WeightOf(c));
        }

        return heaviest;
    }

    /// <summary>The weight of the stacks that end in the most common leaf frame (self weights summed by frame
    /// name).</summary>
    public static long HeaviestLeafWeight(CallTree tree)
    {
        long heaviest = 0;
        int[] leaves = tree.NodesByName(tree.NameOf, i => tree.SelfWeightOf(i) > 0);
        for (int k = 0; k < leaves.Length; )
        {
            string name = tree.NameOf(leaves[k]);
            long sum = 0;
            for (; k < leaves.Length && string.Equals(tree.NameOf(leaves[k]), name, StringComparison.Ordinal); k++)
            {
                sum += tree.SelfWeightOf(leaves[k]);
            }

            heaviest = Math.Max(heaviest, sum);
        }

        return heaviest;
    }

    /// <summary>
    /// The same stacks with the leaf outermost: each stack's frames from its leaf to its outermost caller, so the first
    /// level below the root holds the leaf frames. Weights (and baseline weights) are kept.
    /// </summary>
    public static CallTree LeafRooted(CallTree tree)
    {
        var builder = new CallTreeBuilder(tree.Unit);
        var path = new List<string>();
        for (int i = 0; i < tree.NodeCount; i++)
        {
            if (tree.SelfWeightOf(i) == 0 && tree.SelfBaselineWeightOf(i) == 0)
            {
                continue;
            }

            path.Clear();
            for (int p = i; p > 0; p = tree.ParentOf(p))
            {
                path.Add(tree.NameOf(p));
            }

            builder.AddRootFirst(path, tree.SelfWeightOf(i), tree.SelfBaselineWeightOf(i));
        }

        if (tree.HasBaseline)
        {
            builder.MarkDifferential();
        }

        return builder.Build(tree.StackCount);
    }
}

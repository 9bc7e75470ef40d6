using XeAnalyzer.Output;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>How a <see cref="StackBucketDocument"/> is made. Immutable.</summary>
public sealed record StackDocumentOptions
{
    /// <summary>What was read (for example <c>Input: capture.xel.</c>), shown under the title; <see langword="null"/>
    /// for nothing.</summary>
    public string? InputsLabel { get; init; }

    /// <summary>What the flame graph of the figure view weighs: event counts (default) or summed durations.</summary>
    public StackWeight Weight { get; init; } = StackWeight.Count;

    /// <summary>Whether listed frames end in <c> -- unresolved: reason</c> (default <see langword="true"/>;
    /// <c>--no-reasons</c>).</summary>
    public bool ShowUnresolvedReasons { get; init; } = true;

    /// <summary>Which end of the stacks the SVG flame graph grows from (default <see
    /// cref="FlameRoot.Auto"/>).</summary>
    public FlameRoot FlameRoot { get; init; } = FlameRoot.Auto;

    /// <summary>The buckets whose frames the page shows (0 to 100,000; default 50); the listing shows every bucket's
    /// frames.</summary>
    public int StacksShown
    {
        get;
        init =>
            field = value is >= 0 and <= 100_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "expected 0 to 100,000");
    } = 50;
}

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

/// <summary>One stack compared between a base and a new capture. Shares are fractions of each side's total
/// weight.</summary>
/// <param name="Kind">Common, new or vanished.</param>
/// <param name="EventName">The event name when buckets are matched by event, else <see langword="null"/>.</param>
/// <param name="Frames">The frames, leaf first.</param>
/// <param name="BaseCount">Events in the base capture.</param>
/// <param name="NewCount">Events in the new capture.</param>
/// <param name="BaseWeight">The weight in the base capture (the count, or the summed duration).</param>
/// <param name="NewWeight">The weight in the new capture.</param>
/// <param name="BaseShare">BaseWeight / the base total weight.</param>
/// <param name="NewShare">NewWeight / the new total weight.</param>
public sealed record StackBucketChange(
    StackChangeKind Kind,
    string? EventName,
    IReadOnlyList<string> Frames,
    long BaseCount,
    long NewCount,
    long BaseWeight,
    long NewWeight,
    double BaseShare,
    double NewShare
)
{
    /// <summary>Where it stands in the <see cref="StackDiff.Changes"/> that made it; −1 if made elsewhere.</summary>
    internal int Position { get; init; } = -1;

    /// <summary>NewWeight − BaseWeight (saturating).</summary>
    public long Delta => NewWeight >= 0 && BaseWeight >= 0 ? NewWeight - BaseWeight : 0;

    /// <summary>NewShare − BaseShare, as a fraction (0.05 = 5 percentage points).</summary>
    public double ShareDelta => NewShare - BaseShare;
}

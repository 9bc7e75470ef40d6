namespace XeAnalyzer.Analysis.Stacks;

/// <summary>What a regression gate of <see cref="StackDiff.Check"/> found.</summary>
/// <param name="Tripped">Whether a gate tripped.</param>
/// <param name="Reasons">What tripped (one sentence each), or what was checked when nothing did.</param>
public sealed record StackDiffGate(bool Tripped, IReadOnlyList<string> Reasons);

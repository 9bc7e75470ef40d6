namespace XeAnalyzer.Analysis;

/// <summary>What an analysis warns about.</summary>
public enum AnalysisWarningKind
{
    /// <summary>A limit of the analysis was reached (<see cref="AnalysisWarning.Limit"/>,
    /// <see cref="AnalysisWarning.LimitValue"/>).</summary>
    LimitReached,

    /// <summary>A value was out of the range the analysis can count (a duration or count that would carry a total past
    /// 2^63 − 1).</summary>
    ValueOutOfRange,

    /// <summary>Events arrived later than the reorder window allows and were processed out of time order.</summary>
    LateEvents,

    /// <summary>Events the analysis read but could not use, or use in part (without the action a table needs, without a
    /// stack).</summary>
    EventsNotUsed,

    /// <summary>Anything else about how the result was made.</summary>
    Note,
}

/// <summary>
/// A warning about an analysis's result, as a value: what it is about, one line for people, and, for a limit, the
/// limit's name and value and how many events it left out (events left out make the result partial). Immutable.
/// </summary>
/// <param name="Kind">What it is about.</param>
/// <param name="Text">One line for people, naming the input, the limit or the value where it can.</param>
public sealed record AnalysisWarning(AnalysisWarningKind Kind, string Text)
{
    /// <summary>The limit the warning is about (for example <c>StackBucketOptions.MaxDistinctStacks</c>), or
    /// <see langword="null"/>.</summary>
    public string? Limit { get; init; }

    /// <summary>The value of <see cref="Limit"/>, or <see langword="null"/>.</summary>
    public long? LimitValue { get; init; }

    /// <summary>Events (or histogram slots) counted but left out of the result; more than 0 makes the result
    /// partial.</summary>
    public long EventsLeftOut { get; init; }

    /// <inheritdoc/>
    public override string ToString() => Text;
}

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>What a stack bucket or a stack comparison is weighed by.</summary>
public enum StackWeight
{
    /// <summary>The number of events (histogram slots: their counts). The default.</summary>
    Count,

    /// <summary>
    /// The summed <c>duration</c> field of the events (milliseconds for wait events). Events without the field weigh 0.
    /// Note that
    /// <c>wait_info</c>/<c>wait_info_external</c> Begin events carry a duration of 0: filter them out with <c>--where
    /// opcode=End</c>.
    /// </summary>
    Duration,
}

/// <summary>Options of <see cref="StackBucketBuilder"/> and <see cref="StackBucketAnalysis"/>.</summary>
/// <remarks>
/// Immutable. How frames are rendered (<c>engine</c>/<c>resolver</c>/<c>windbg</c> style, with or without offsets) is a
/// setting of the
/// <see cref="Symbols.Resolution.CallstackResolver"/> whose sessions symbolize the stacks, not of these options.
/// </remarks>
public sealed class StackBucketOptions
{
    /// <summary>The defaults: the <c>package0.callstack</c> action, one bucket per (event name, stack), at most
    /// 1,000,000 distinct raw stacks.</summary>
    public static StackBucketOptions Default { get; } = new();

    /// <summary>
    /// The field or action holding the stack, or <see langword="null"/> for the default: the <c>callstack</c> action
    /// (<c>package0.callstack</c>), else a <c>callstack_rva</c> action. A short name is looked up among the event's
    /// fields first, then among its actions (exact, then ignoring case); a <c>package.name</c> only among actions. Any
    /// callstack-typed value (raw return addresses) or text value holding frames (module+offset, symbolized frames,
    /// <c>callstack_rva</c> markup) is accepted, for example system_health's <c>call_stack</c> field. In target-data
    /// XML, the field must be one the reader takes for a stack (a name containing
    /// <c>callstack</c>, starting with <c>call_stack</c> or <c>stack_frames</c>, or of type <c>callstack</c>).
    /// </summary>
    public string? StackSource { get; init; }

    /// <summary>
    /// Whether buckets are per (event name, symbolized stack) — the default — rather than per stack alone.
    /// microsoft/SQLCallStackResolver ignores the event name, which mixes unrelated events (a <c>page_allocated</c> and
    /// a <c>page_freed</c> stack share most frames but mean opposite things); with <see langword="false"/> events that
    /// share a stack are counted in one bucket that lists every event name. Histogram slots carry no event name and are
    /// bucketed by stack alone either way.
    /// </summary>
    public bool GroupByEvent { get; init; } = true;

    /// <summary>
    /// The most distinct raw stacks (per (event, raw stack) key) kept (1 to 50,000,000; default 1,000,000). Events of
    /// further distinct stacks are counted in <see cref="StackBucketResult.UntrackedEvents"/> (with a warning) instead
    /// of using unbounded memory.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..50,000,000.</exception>
    public int MaxDistinctStacks
    {
        get;
        init =>
            field = value is >= 1 and <= 50_000_000
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(value),
                    value,
                    "MaxDistinctStacks must be 1..50,000,000."
                );
    } = 1_000_000;

    /// <summary>The most frames read from one stack (1 to 65,536; default 4,096); longer stacks are cut (outermost
    /// frames dropped) with a warning.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..65,536.</exception>
    public int MaxFramesPerStack
    {
        get;
        init =>
            field = value is >= 1 and <= 65_536
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxFramesPerStack must be 1..65,536.");
    } = 4096;

    /// <summary>
    /// Frames shared with the other analyses of one run (the two sides of <c>diff</c>), or <see langword="null"/>:
    /// a frame that reads as one already kept is the kept one, so two results of mostly the same stacks hold their
    /// frames once.
    /// </summary>
    internal BucketFramePool? FramePool { get; init; }
}

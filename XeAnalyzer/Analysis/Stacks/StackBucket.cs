using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>One frame of a bucket's stack: its text and how it was symbolized.</summary>
/// <param name="Text">
/// The frame as the bucket identifies it: the symbol in the resolver's style
/// (<c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>); for an unresolved frame whose module and RVA are known,
/// the module+offset form SQL Server writes (<c>sqlmin.dll+0x00000000000011E9</c>); for a raw address outside every
/// module (or without module map), <c>0x</c> + 16 hex digits; otherwise the frame as captured.
/// </param>
/// <param name="Status">In-engine, resolved offline, or unresolved.</param>
/// <param name="IsVerified">Whether the frame is in-engine or was resolved through a PDB whose GUID/age matched the
/// build (false for a PDB matched by name only, and for unresolved frames).</param>
/// <param name="Module">The module file name (<c>sqlmin.dll</c>), or <see langword="null"/> when unknown.</param>
/// <param name="Function">The function, or <see langword="null"/> when unresolved.</param>
/// <param name="UnresolvedReason">Why the frame is unresolved (<c>no module for 0x000002A61C3D8F10</c>), or
/// <see langword="null"/> when resolved.</param>
public sealed record BucketFrame(
    string Text,
    FrameResolutionStatus Status,
    bool IsVerified,
    string? Module,
    string? Function,
    string? UnresolvedReason
)
{
    // A reason that names the frame's RVA (an RVA past the end of the image) is made when read: with very many
    // distinct such frames, a sentence each was most of a bucket's memory.
    private readonly RvaReasonText? _reasonOfRva;
    private readonly ulong _rva;

    /// <summary>A frame as the resolution renders it, its texts shared with other frames where they can be.</summary>
    internal BucketFrame(string text, FrameResolution resolution, Func<string, string> intern)
        : this(
            text,
            resolution.Status,
            resolution.IsVerified,
            resolution.ModuleDisplayName,
            resolution.Function is string f ? intern(f) : null,
            resolution.ReasonOfRva is null ? resolution.ReasonText : null
        )
    {
        if (resolution.ReasonOfRva is RvaReasonText reason && resolution.Rva is ulong rva)
        {
            _reasonOfRva = reason;
            _rva = rva;
        }
    }

    /// <summary>Why the frame is unresolved, or <see langword="null"/> when resolved.</summary>
    public string? UnresolvedReason
    {
        get => field ?? _reasonOfRva?.Text(_rva);
        init;
    } = UnresolvedReason;

    /// <summary>Whether two frames read the same: text, status, verification, module, function and reason.</summary>
    /// <param name="other">The other frame.</param>
    /// <returns>Whether they are equal.</returns>
    public bool Equals(BucketFrame? other) =>
        other is not null
        && (
            ReferenceEquals(this, other)
            || (
                string.Equals(Text, other.Text, StringComparison.Ordinal)
                && Status == other.Status
                && IsVerified == other.IsVerified
                && string.Equals(Module, other.Module, StringComparison.Ordinal)
                && string.Equals(Function, other.Function, StringComparison.Ordinal)
                && string.Equals(UnresolvedReason, other.UnresolvedReason, StringComparison.Ordinal)
            )
        );

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(Text, Status, IsVerified, Module, Function, UnresolvedReason);

    /// <summary>
    /// Whether two frames read the same (as <see cref="Equals(BucketFrame?)"/>), without making the sentence of a
    /// reason that names the frame's RVA.
    /// </summary>
    internal bool ReadsAs(BucketFrame other) =>
        ReferenceEquals(this, other)
        || (
            string.Equals(Text, other.Text, StringComparison.Ordinal)
            && Status == other.Status
            && IsVerified == other.IsVerified
            && string.Equals(Module, other.Module, StringComparison.Ordinal)
            && string.Equals(Function, other.Function, StringComparison.Ordinal)
            && (
                _reasonOfRva is not null && other._reasonOfRva is not null
                    ? _rva == other._rva && _reasonOfRva.Equals(other._reasonOfRva)
                    : string.Equals(UnresolvedReason, other.UnresolvedReason, StringComparison.Ordinal)
            )
        );
}

/// <summary>
/// The frames of the analyses of one run (the two sides of <c>diff</c>): each frame that reads as one kept already
/// (<see cref="BucketFrame.ReadsAs"/>) is replaced by the kept one. Not thread-safe.
/// </summary>
internal sealed class BucketFramePool
{
    private readonly HashSet<BucketFrame> _frames = new(new ReadAlike());

    /// <summary>The kept frame that reads as <paramref name="frame"/>, or the frame, kept from now on.</summary>
    /// <param name="frame">A frame.</param>
    /// <returns>The frame to hold.</returns>
    public BucketFrame Share(BucketFrame frame)
    {
        if (_frames.TryGetValue(frame, out BucketFrame? kept))
        {
            return kept;
        }

        _frames.Add(frame);
        return frame;
    }

    private sealed class ReadAlike : IEqualityComparer<BucketFrame>
    {
        public bool Equals(BucketFrame? x, BucketFrame? y) =>
            ReferenceEquals(x, y) || (x is not null && y is not null && x.ReadsAs(y));

        public int GetHashCode(BucketFrame obj) =>
            HashCode.Combine(
                StringComparer.Ordinal.GetHashCode(obj.Text),
                obj.Status,
                obj.Module is null ? 0 : StringComparer.Ordinal.GetHashCode(obj.Module)
            );
    }
}

/// <summary>Wait-time totals of a bucket, from the events' <c>duration</c> and <c>signal_duration</c> fields
/// (milliseconds for wait events).</summary>
/// <param name="EventsWithDuration">How many of the bucket's events had a <c>duration</c> field.</param>
/// <param name="TotalDuration">The sum of <c>duration</c> (saturating at <see cref="long.MaxValue"/>).</param>
/// <param name="MaxDuration">The largest <c>duration</c>.</param>
/// <param name="TotalSignalDuration">The sum of <c>signal_duration</c>, or <see langword="null"/> (n/a) when none of
/// the events has that field (<c>wait_info_external</c>).</param>
/// <param name="MaxSignalDuration">The largest <c>signal_duration</c>, or <see langword="null"/> (n/a).</param>
public sealed record StackDurations(
    long EventsWithDuration,
    long TotalDuration,
    long MaxDuration,
    long? TotalSignalDuration,
    long? MaxSignalDuration
);

/// <summary>
/// One bucket: events whose stacks read the same after symbolization (and, by default, of the same event). Immutable.
/// </summary>
public sealed class StackBucket
{
    internal StackBucket(
        int rank,
        string? eventName,
        IReadOnlyList<string> eventNames,
        IReadOnlyList<BucketFrame> frames,
        long count,
        double share,
        StackDurations? durations,
        DateTime? firstSeen,
        DateTime? lastSeen,
        int rawStacks
    )
    {
        Rank = rank;
        EventName = eventName;
        EventNames = eventNames;
        FrameDetails = frames;
        Count = count;
        Share = share;
        Durations = durations;
        FirstSeen = firstSeen;
        LastSeen = lastSeen;
        RawStacks = rawStacks;
    }

    /// <summary>The 1-based rank: buckets are ordered by count (descending), then frames (ordinal), then event
    /// name.</summary>
    public int Rank { get; }

    /// <summary>
    /// The event (<c>package.event</c>) when buckets are grouped by event; <see langword="null"/> for histogram slots
    /// (they carry no event) and when events are not grouped (see <see cref="EventNames"/>).
    /// </summary>
    public string? EventName { get; }

    /// <summary>Every event name counted in the bucket, ordinal order (empty for histogram slots).</summary>
    public IReadOnlyList<string> EventNames { get; }

    /// <summary>The frames, leaf first, as text (see <see cref="BucketFrame.Text"/>); empty for an empty
    /// callstack.</summary>
    public IReadOnlyList<string> Frames => field ??= new FrameTextList(FrameDetails);

    /// <summary>The frames with how each was symbolized (the details are those of the bucket's most frequent raw
    /// stack).</summary>
    public IReadOnlyList<BucketFrame> FrameDetails { get; }

    /// <summary>The number of events (for a histogram slot: its count; slots count events, not pages or
    /// time).</summary>
    public long Count { get; }

    /// <summary>Count / the total of all buckets, as a fraction (0.25 = 25 %).</summary>
    public double Share { get; }

    /// <summary>Wait-time totals when the bucket's events have a <c>duration</c> field; otherwise
    /// <see langword="null"/>.</summary>
    public StackDurations? Durations { get; }

    /// <summary>The earliest event time (UTC), or <see langword="null"/> when unknown (histogram slots).</summary>
    public DateTime? FirstSeen { get; }

    /// <summary>The latest event time (UTC), or <see langword="null"/> when unknown.</summary>
    public DateTime? LastSeen { get; }

    /// <summary>How many distinct raw stacks (address arrays, slot or event texts) were merged into the bucket after
    /// symbolization.</summary>
    public int RawStacks { get; }

    /// <summary>How many frames are unresolved.</summary>
    public int UnresolvedFrames => FrameDetails.Count(f => f.Status == FrameResolutionStatus.Unresolved);

    /// <summary>How many frames were resolved through a PDB matched by name only.</summary>
    public int UnverifiedFrames =>
        FrameDetails.Count(f => f.Status == FrameResolutionStatus.ResolvedOffline && !f.IsVerified);

    /// <summary>The weight of the bucket: <see cref="Count"/>, or the summed <c>duration</c> (0 without
    /// durations).</summary>
    /// <param name="weight">The weight.</param>
    /// <returns>The value.</returns>
    public long WeightOf(StackWeight weight) => weight == StackWeight.Duration ? Durations?.TotalDuration ?? 0 : Count;

    /// <summary>Returns <c>#rank count leaf-frame</c>.</summary>
    public override string ToString() =>
        "#"
        + Rank.ToString(System.Globalization.CultureInfo.InvariantCulture)
        + " "
        + Count.ToString(System.Globalization.CultureInfo.InvariantCulture)
        + " "
        + (Frames.Count > 0 ? Frames[0] : "(no frames)");
}

/// <summary>What one input (a capture set, a target-data file) contributed, and how its frames were resolved.
/// Immutable.</summary>
public sealed class StackInputSummary
{
    internal StackInputSummary(
        string name,
        string kind,
        string? moduleMapPath,
        ModuleMapSource moduleMapSource,
        long events,
        long eventsWithoutStack,
        long histogramSlots,
        long histogramCount,
        int distinctRawStacks,
        ResolutionSummary resolution,
        IReadOnlyList<string> warnings
    )
    {
        Name = name;
        Kind = kind;
        ModuleMapPath = moduleMapPath;
        ModuleMapSource = moduleMapSource;
        Events = events;
        EventsWithoutStack = eventsWithoutStack;
        HistogramSlots = histogramSlots;
        HistogramCount = histogramCount;
        DistinctRawStacks = distinctRawStacks;
        Resolution = resolution;
        Warnings = warnings;
    }

    /// <summary>The input's name (a capture set's first file, a target-data file, or the caller's name).</summary>
    public string Name { get; }

    /// <summary>What the input is: <c>xel</c>, <c>target-xml</c>, <c>events</c> or <c>stacks</c>.</summary>
    public string Kind { get; }

    /// <summary>The module map used for raw addresses, or <see langword="null"/>.</summary>
    public string? ModuleMapPath { get; }

    /// <summary>Where the module map came from.</summary>
    internal ModuleMapSource ModuleMapSource { get; }

    /// <summary>Events with a stack that passed the filter.</summary>
    public long Events { get; }

    /// <summary>Events that passed the filter but carry no stack (no callstack action or field).</summary>
    public long EventsWithoutStack { get; }

    /// <summary>Histogram slots read.</summary>
    public long HistogramSlots { get; }

    /// <summary>The sum of the histogram slots' counts.</summary>
    public long HistogramCount { get; }

    /// <summary>Distinct raw stacks of the input (each symbolized once).</summary>
    public int DistinctRawStacks { get; }

    /// <summary>
    /// How the input's frames were resolved: frames in-engine, offline, unverified and unresolved by reason, PDBs used,
    /// and hints (trace flags 3656/2592, missing module map). It counts each distinct raw stack once (not each event).
    /// </summary>
    public ResolutionSummary Resolution { get; }

    /// <summary>Warnings about the input (histograms that may hold merged values, truncated targets, cut
    /// stacks).</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// For an input of several files (a rollover set), the events of each file this part counted, in the order read;
    /// empty for an input of one file. The events of a set are attributed to the file that holds them, not to the set's
    /// first file.
    /// </summary>
    internal IReadOnlyList<StackFileCount> Files { get; init; } = [];

    /// <summary>
    /// The module list that placed the input's raw addresses (to tell whether two results share a process lifetime), or
    /// <see langword="null"/>.
    /// </summary>
    internal Callstacks.ModuleMap? ModuleMap { get; init; }

    /// <summary>How the module map is described in summaries (<c>sidecar beside the capture: …</c>).</summary>
    public string ModuleMapDescription =>
        ModuleMapSource switch
        {
            ModuleMapSource.Explicit => "module map " + ModuleMapPath + " (--modules)",
            ModuleMapSource.Sidecar => "module map " + ModuleMapPath + " (sidecar beside the capture)",
            _ => "no module map",
        };
}

/// <summary>The events of one file of a multi-file input, with a stack and without one.</summary>
/// <param name="Name">The file (display path).</param>
/// <param name="Events">Events with a stack that passed the filter.</param>
/// <param name="EventsWithoutStack">Events that passed the filter without a stack (or with an empty one).</param>
internal sealed record StackFileCount(string Name, long Events, long EventsWithoutStack);

/// <summary>
/// The texts of a bucket's frames, read through from the frames (no copy per bucket). Two lists are equal when their
/// texts are: a list is made again each time a bucket or a change is read, and records holding it compare by value.
/// </summary>
internal sealed class FrameTextList(IReadOnlyList<BucketFrame> frames)
    : IReadOnlyList<string>,
        IEquatable<FrameTextList>
{
    public bool Equals(FrameTextList? other)
    {
        if (other is null || other.Count != Count)
        {
            return false;
        }

        for (int i = 0; i < Count; i++)
        {
            if (!string.Equals(this[i], other[i], StringComparison.Ordinal))
            {
                return false;
            }
        }

        return true;
    }

    public override bool Equals(object? obj) => obj is FrameTextList other && Equals(other);

    public override int GetHashCode()
    {
        var h = new HashCode();
        for (int i = 0; i < Count; i++)
        {
            h.Add(this[i], StringComparer.Ordinal);
        }

        return h.ToHashCode();
    }

    public int Count => frames.Count;

    public string this[int index] => frames[index].Text;

    public IEnumerator<string> GetEnumerator()
    {
        for (int i = 0; i < frames.Count; i++)
        {
            yield return frames[i].Text;
        }
    }

    System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
}

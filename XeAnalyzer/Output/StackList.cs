namespace XeAnalyzer.Output;

/// <summary>How a frame of a <see cref="StackList"/> was resolved.</summary>
internal enum StackFrameStatus
{
    /// <summary>The capture held it symbolized (SQL Server resolved it in-engine).</summary>
    InEngine,

    /// <summary>Resolved offline through a PDB.</summary>
    ResolvedOffline,

    /// <summary>Left as captured; <see cref="StackListFrame.UnresolvedReason"/> says why.</summary>
    Unresolved,
}

/// <summary>One frame of a <see cref="StackListItem"/>. Immutable.</summary>
/// <param name="Text">The frame as shown (for example <c>sqlmin.dll!LatchBase::AcquireInternal+0x499</c>).</param>
internal sealed record StackListFrame(string Text)
{
    /// <summary>How it was resolved, or <see langword="null"/> when not known (frames compared as text).</summary>
    public StackFrameStatus? Status { get; init; }

    /// <summary>Whether the PDB it was resolved through was verified (GUID/age), or <see langword="null"/> when not
    /// known.</summary>
    public bool? Verified { get; init; }

    /// <summary>The module, or <see langword="null"/>.</summary>
    public string? Module { get; init; }

    /// <summary>The function, or <see langword="null"/>.</summary>
    public string? Function { get; init; }

    /// <summary>Why an unresolved frame was not resolved, or <see langword="null"/>.</summary>
    public string? UnresolvedReason { get; init; }

    /// <summary>The frame as listed in text and HTML: its text, followed by <c> -- unresolved: reason</c> when it is
    /// unresolved.</summary>
    public string Line =>
        Status == StackFrameStatus.Unresolved && UnresolvedReason is string why
            ? Text + " -- unresolved: " + why
            : Text;
}

/// <summary>One stack of a <see cref="StackList"/>: a heading, detail lines, and the frames leaf first.
/// Immutable.</summary>
internal sealed class StackListItem
{
    /// <summary>Creates an item.</summary>
    /// <param name="heading">The heading (for example <c>Bucket 1 of 14: 2,005 events (33.18 %)
    /// sqlserver.latch_acquired</c>).</param>
    /// <param name="frames">The frames, leaf first.</param>
    /// <param name="details">Detail lines shown under the heading (times seen, durations), or
    /// <see langword="null"/>.</param>
    /// <exception cref="ArgumentNullException">An argument, a frame or a detail is <see langword="null"/>.</exception>
    public StackListItem(string heading, IEnumerable<StackListFrame> frames, IEnumerable<string>? details = null)
    {
        ArgumentNullException.ThrowIfNull(heading);
        ArgumentNullException.ThrowIfNull(frames);
        StackListFrame[] copy = [.. frames];
        if (Array.Exists(copy, f => f is null || f.Text is null))
        {
            throw new ArgumentNullException(nameof(frames), "A frame is null.");
        }

        Heading = heading;
        Frames = Array.AsReadOnly(copy);
        Details = ReportTable.CopyStrings(details, nameof(details));
    }

    /// <summary>The heading.</summary>
    public string Heading { get; }

    /// <summary>Detail lines shown under the heading.</summary>
    public IReadOnlyList<string> Details { get; }

    /// <summary>The frames, leaf first (none: shown as <c>(no frames)</c>).</summary>
    public IReadOnlyList<StackListFrame> Frames { get; }
}

/// <summary>
/// Callstacks with their frames and each frame's status (stack buckets, the stacks of a diff). Text lists each stack as
/// its heading, its detail lines indented, its frames one per line leaf first and a blank line, then the notes; HTML
/// shows each stack as a captioned preformatted block; JSON writes every frame with its status, module, function and
/// reason. Immutable.
/// </summary>
internal sealed class StackList : ReportBlock
{
    /// <summary>Creates the list.</summary>
    /// <param name="items">The stacks in display order.</param>
    /// <param name="notes">Notes shown after the stacks (for example how many were left out).</param>
    /// <exception cref="ArgumentNullException">An argument, item or note is <see langword="null"/>.</exception>
    public StackList(IEnumerable<StackListItem> items, IEnumerable<string>? notes = null)
    {
        ArgumentNullException.ThrowIfNull(items);
        StackListItem[] copy = [.. items];
        if (Array.Exists(copy, i => i is null))
        {
            throw new ArgumentNullException(nameof(items), "An item is null.");
        }

        Items = Array.AsReadOnly(copy);
        Notes = ReportTable.CopyStrings(notes, nameof(notes));
    }

    /// <summary>
    /// Creates a list whose items are made when a writer reads them, so a list of very many stacks is never held whole;
    /// each read of an item makes it again.
    /// </summary>
    /// <param name="count">The number of stacks.</param>
    /// <param name="item">Makes the stack at a position (display order).</param>
    /// <param name="notes">Notes shown after the stacks.</param>
    internal StackList(int count, Func<int, StackListItem> item, IEnumerable<string>? notes = null)
    {
        Items = new ItemsOnRead<StackListItem>(count, item);
        Notes = ReportTable.CopyStrings(notes, nameof(notes));
    }

    /// <summary>The stacks in display order.</summary>
    public IReadOnlyList<StackListItem> Items { get; }

    /// <summary>Notes shown after the stacks.</summary>
    public IReadOnlyList<string> Notes { get; }

    /// <summary>
    /// Whether text and HTML follow an unresolved frame with <c> -- unresolved: reason</c> (default <see
    /// langword="true"/>; <c>--no-reasons</c> turns it off). JSON writes the reason as its own field either way.
    /// </summary>
    public bool ShowReasons { get; init; } = true;

    /// <summary>A frame as text and HTML list it: <see cref="StackListFrame.Line"/>, or its text alone without
    /// reasons.</summary>
    internal string LineOf(StackListFrame frame) => ShowReasons ? frame.Line : frame.Text;

    /// <summary>The frames of an item as one text: one <see cref="LineOf"/> per line, or <c>(no frames)</c>.</summary>
    internal string FramesText(StackListItem item) =>
        item.Frames.Count == 0 ? "(no frames)" : string.Join("\n", item.Frames.Select(LineOf));
}

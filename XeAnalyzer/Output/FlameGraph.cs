namespace XeAnalyzer.Output;

/// <summary>The order of sibling frames in an SVG flame graph.</summary>
internal enum FlameChildOrder
{
    /// <summary>By name, ordinal (the classic flame graph order: x position carries no meaning).</summary>
    Alphabetical,

    /// <summary>Heaviest first, ties by name (easier to read as an icicle).</summary>
    HeaviestFirst,
}

/// <summary>Which weight sets frame widths in a differential flame graph.</summary>
internal enum DifferentialWidth
{
    /// <summary>The current ("after") weight; frames that vanished have no width.</summary>
    Current,

    /// <summary>The baseline ("before") weight; new frames have no width.</summary>
    Baseline,
}

/// <summary>Settings of an SVG flame graph. Immutable; use <c>with</c>-style <c>init</c> properties.</summary>
internal sealed record FlameGraphOptions
{
    /// <summary>The title drawn at the top (default "Flame graph").</summary>
    public string Title { get; init; } = "Flame graph";

    /// <summary>An optional second line under the title.</summary>
    public string? Subtitle { get; init; }

    /// <summary>The word for the weight in tooltips (for example "events"); <see langword="null"/> picks it from the
    /// tree's unit.</summary>
    public string? CountName { get; init; }

    /// <summary>The total width in pixels (200 to 20,000; default 1200).</summary>
    public int Width
    {
        get;
        init =>
            field = value is >= 200 and <= 20_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Width must be 200..20000 px.");
    } = 1200;

    /// <summary>The height of one frame in pixels (10 to 40; default 17).</summary>
    public int FrameHeight
    {
        get;
        init =>
            field = value is >= 10 and <= 40
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Frame height must be 10..40 px.");
    } = 17;

    /// <summary>The font size of frame labels in pixels (default 11; at most <see cref="FrameHeight"/> - 3).</summary>
    public double FontSize
    {
        get;
        init =>
            field = value is >= 6 and <= 37
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Font size must be 6..37 px.");
    } = 11;

    /// <summary>
    /// Frames narrower than this many pixels are not drawn (nor anything they called); their weight is reported in the
    /// subtitle and in <see cref="FlameGraphStats"/>. Default 0.1 px; 0 draws everything.
    /// </summary>
    public double MinWidthPixels
    {
        get;
        init =>
            field = value is >= 0 and <= 100
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Minimum width must be 0..100 px.");
    } = 0.1;

    /// <summary>Draw an icicle graph (root at the top, callees below) instead of a flame graph (root at the
    /// bottom).</summary>
    public bool Inverted { get; init; }

    /// <summary>
    /// Which end of the stacks the graph grows from (default <see cref="FlameRoot.Auto"/>: from the leaf when the
    /// stacks share their leaf more than their root). A graph drawn from the leaf is an icicle and says so in its
    /// title.
    /// </summary>
    public FlameRoot Root { get; init; } = FlameRoot.Auto;

    /// <summary>The order of sibling frames (default <see cref="FlameChildOrder.Alphabetical"/>).</summary>
    public FlameChildOrder ChildOrder { get; init; } = FlameChildOrder.Alphabetical;

    /// <summary>
    /// Whether to draw a differential graph (colour by growth red / shrink blue). <see langword="null"/> (default)
    /// means "when the tree has baseline weights".
    /// </summary>
    public bool? Differential { get; init; }

    /// <summary>Which weight sets widths in a differential graph (default
    /// <see cref="DifferentialWidth.Current"/>).</summary>
    public DifferentialWidth DifferentialWidth { get; init; } = DifferentialWidth.Current;

    /// <summary>
    /// Whether differential colours compare shares of each total (default <see langword="true"/>, so a baseline with
    /// twice as many events does not paint everything blue) instead of raw weights.
    /// </summary>
    public bool NormalizeDifferential { get; init; } = true;
}

/// <summary>A flame graph of a <see cref="CallTree"/> inside a report. Immutable.</summary>
internal sealed class FlameGraph : ReportBlock
{
    /// <summary>Creates the block.</summary>
    /// <param name="tree">The call tree.</param>
    /// <param name="options">Drawing settings; <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="tree"/> is <see langword="null"/>.</exception>
    public FlameGraph(CallTree tree, FlameGraphOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(tree);
        Tree = tree;
        Options = options ?? new FlameGraphOptions();
    }

    /// <summary>The call tree.</summary>
    public CallTree Tree { get; }

    /// <summary>The drawing settings (the title is <see cref="FlameGraphOptions.Title"/>).</summary>
    public FlameGraphOptions Options { get; }

    /// <summary>The first flame graph of a document, which the flame formats write.</summary>
    /// <param name="document">The document.</param>
    /// <returns>The block.</returns>
    /// <exception cref="ArgumentException">The document has no flame graph.</exception>
    internal static FlameGraph Find(ReportDocument document) =>
        document.Blocks.OfType<FlameGraph>().FirstOrDefault()
        ?? throw new ArgumentException("'" + document.Title + "' has no flame graph", nameof(document));
}

/// <summary>What an SVG flame graph drew and what it left out.</summary>
/// <param name="DrawnFrames">Frames drawn, including the root.</param>
/// <param name="HiddenFrames">Frames not drawn because they (or a caller) were narrower than the minimum width.</param>
/// <param name="HiddenWeight">The weight of the outermost hidden frames (the width basis' weight).</param>
/// <param name="DrawnDepth">The depth of the deepest drawn frame.</param>
internal readonly record struct FlameGraphStats(int DrawnFrames, int HiddenFrames, long HiddenWeight, int DrawnDepth);

using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes the flame graph of a document (format <c>folded</c>, the <see cref="DocumentView.Figure"/> view: its first
/// <see cref="FlameGraph"/>'s <see cref="CallTree"/>) as folded stacks, the input format of FlameGraph's
/// <c>flamegraph.pl</c>, inferno and speedscope: one line per distinct path that has self weight, <c>outermost;…;leaf
/// weight</c> (root first, the synthetic root omitted), lines sorted ordinally, <c>\n</c> line endings. A differential
/// tree is written with two counts,
/// <c>path baseline current</c>, as <c>difffolded.pl</c> produces. Frame names are made safe for the format:
/// <c>;</c> (the separator) becomes <see cref="SemicolonSubstitute"/> (<c>:</c>), tab, CR and LF become spaces, and
/// other control characters become U+FFFD. A path that would be empty (weight on the root itself) is written as
/// <c>[root]</c>.
/// </summary>
internal sealed class FoldedStackWriter : IReportWriter
{
    /// <summary>The character that replaces <c>;</c> inside frame names.</summary>
    public const char SemicolonSubstitute = ':';

    /// <summary>Creates the writer.</summary>
    /// <param name="includeBaseline">
    /// Whether to write the baseline count before the current count. <see langword="null"/> (default) means "when the
    /// tree is differential".
    /// </param>
    public FoldedStackWriter(bool? includeBaseline = null)
    {
        IncludeBaseline = includeBaseline;
    }

    /// <summary>Whether the baseline count is written (<see langword="null"/>: when the tree is
    /// differential).</summary>
    public bool? IncludeBaseline { get; }

    /// <inheritdoc/>
    public string Format => "folded";

    /// <inheritdoc/>
    public string FileExtension => ".folded";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Figure;

    /// <summary>Makes a frame name safe for a folded line.</summary>
    /// <param name="frame">The frame name.</param>
    /// <returns>The name with <c>;</c>, line breaks and control characters replaced.</returns>
    public static string EscapeFrame(string frame)
    {
        ArgumentNullException.ThrowIfNull(frame);
        return TextEscaping.Terminal(frame).Replace(';', SemicolonSubstitute);
    }

    /// <summary>Returns the folded lines (without line endings) in output order.</summary>
    /// <param name="tree">The tree.</param>
    /// <param name="includeBaseline">Whether to write two counts; <see langword="null"/>: when the tree is
    /// differential.</param>
    /// <returns>The lines, sorted ordinally.</returns>
    public static IReadOnlyList<string> GetLines(CallTree tree, bool? includeBaseline = null)
    {
        ArgumentNullException.ThrowIfNull(tree);
        var lines = new List<string>();
        var folded = new FoldedLines(tree, includeBaseline ?? tree.HasBaseline);
        var sb = new StringBuilder();
        foreach (int node in folded.Sorted())
        {
            sb.Clear();
            folded.Append(sb, node);
            lines.Add(sb.ToString());
        }

        return lines;
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The document has no flame graph.</exception>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        CallTree tree = FlameGraph.Find(document).Tree;
        var folded = new FoldedLines(tree, IncludeBaseline ?? tree.HasBaseline);
        int[] sorted = folded.Sorted();
        cancellationToken.ThrowIfCancellationRequested();
        using (StreamWriter writer = OutputText.CreateWriter(output))
        {
            var line = new StringBuilder();
            for (int n = 0; n < sorted.Length; n++)
            {
                if ((n & 0xFFF) == 0xFFF)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                line.Clear();
                folded.Append(line, sorted[n]);
                writer.Write(line.Append('\n'));
            }
        }

        output.Flush();
    }
}

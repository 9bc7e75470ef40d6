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
        bool two = includeBaseline ?? tree.HasBaseline;
        var lines = new List<string>();
        var path = new List<string>();
        var stack = new Stack<(CallTreeNode Node, bool Exit)>();
        stack.Push((tree.Root, false));
        while (stack.Count > 0)
        {
            (CallTreeNode node, bool exit) = stack.Pop();
            if (exit)
            {
                path.RemoveAt(path.Count - 1);
                continue;
            }

            if (node.Depth > 0)
            {
                path.Add(EscapeFrame(node.Name));
            }

            if (node.SelfWeight != 0 || (two && node.SelfBaselineWeight != 0))
            {
                var sb = new StringBuilder();
                sb.AppendJoin(';', path);
                if (path.Count == 0)
                {
                    sb.Append("[root]");
                }

                sb.Append(' ');
                if (two)
                {
                    sb.Append(node.SelfBaselineWeight.ToString(CultureInfo.InvariantCulture)).Append(' ');
                }

                sb.Append(node.SelfWeight.ToString(CultureInfo.InvariantCulture));
                lines.Add(sb.ToString());
            }

            if (node.Depth > 0)
            {
                stack.Push((node, true));
            }

            for (int i = node.Children.Count - 1; i >= 0; i--)
            {
                stack.Push((node.Children[i], false));
            }
        }

        lines.Sort(StringComparer.Ordinal);
        return lines;
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The document has no flame graph.</exception>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        CallTree tree = FlameGraph.Find(document).Tree;
        using (StreamWriter writer = OutputText.CreateWriter(output))
        {
            int n = 0;
            foreach (string line in GetLines(tree, IncludeBaseline))
            {
                if ((++n & 0xFFF) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                writer.Write(line);
                writer.Write('\n');
            }
        }

        output.Flush();
    }
}

using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>An SVG flame graph and what it drew.</summary>
/// <param name="Svg">The SVG text.</param>
/// <param name="Stats">Drawn and hidden frame counts.</param>
internal sealed record FlameGraphRendering(string Svg, FlameGraphStats Stats);

/// <summary>
/// Draws a <see cref="CallTree"/> as a self-contained SVG flame graph (for the <c>svg</c> format,
/// <see cref="SvgReportWriter"/>, and inline in HTML pages) (or icicle graph): one <c>&lt;g&gt;</c> per frame
/// holding a <c>&lt;title&gt;</c> tooltip (name, weight, share), a <c>&lt;rect&gt;</c> whose width is proportional to
/// the frame's weight, and a label clipped with an ellipsis to the frame's width. Frames are coloured per module (the
/// text before <c>!</c> or <c>.dll</c>) from a stable hash, so a module has the same colour in every graph; frames
/// without a module are grey. A differential tree is coloured by change instead: red where a frame's share grew, blue
/// where it shrank, near-white where it did not change; its tooltip shows both weights and the delta. Frames narrower
/// than
/// <see cref="FlameGraphOptions.MinWidthPixels"/> are left out and their total weight is reported in the subtitle.
/// No scripts, ids, style sheets or external references; deterministic bytes.
/// </summary>
internal static class FlameGraphSvg
{
    private const double Pad = 10;
    private const double TitleFont = 16;
    private const double InfoFont = 12;

    /// <summary>Renders a standalone SVG document (with an XML declaration).</summary>
    /// <param name="tree">The call tree.</param>
    /// <param name="options">Drawing settings; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Cancels rendering of large trees.</param>
    /// <returns>The SVG and what was drawn.</returns>
    public static FlameGraphRendering Render(
        CallTree tree,
        FlameGraphOptions? options = null,
        CancellationToken cancellationToken = default
    ) => Render(tree, options ?? new FlameGraphOptions(), standalone: true, cancellationToken);

    internal static FlameGraphRendering Render(
        CallTree tree,
        FlameGraphOptions o,
        bool standalone,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(tree);
        if (FlameOrientation.IsLeafRooted(tree, o.Root))
        {
            tree = FlameOrientation.LeafRooted(tree);
            o = o with { Title = o.Title + FlameOrientation.LeafTitle, Inverted = true };
        }

        bool diff = o.Differential ?? tree.HasBaseline;
        bool byBaseline = diff && o.DifferentialWidth == DifferentialWidth.Baseline;
        Func<int, long> basis = byBaseline ? n => tree.BaselineWeightOf(n) : n => tree.WeightOf(n);
        string countName =
            o.CountName
            ?? tree.Unit switch
            {
                WeightUnit.Bytes => "bytes",
                WeightUnit.Milliseconds => "ms",
                WeightUnit.Microseconds => "\u00B5s",
                WeightUnit.Duration => "duration (unit unknown)",
                _ => "samples",
            };
        double width = o.Width;
        double frameH = o.FrameHeight;
        long total = basis(0);
        double plotW = width - (2 * Pad);
        double scale = total > 0 ? plotW / total : 0;

        // Layout: which frames are drawn and where.
        var drawn = new List<(int Node, double X, double W)>();
        int hiddenFrames = 0;
        long hiddenWeight = 0;
        int drawnDepth = 0;
        if (total > 0)
        {
            var stack = new Stack<(int Node, double X)>();
            stack.Push((0, Pad));
            while (stack.Count > 0)
            {
                if ((drawn.Count & 0x3FFF) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                (int node, double x) = stack.Pop();
                double w = basis(node) * scale;
                drawn.Add((node, x, w));
                drawnDepth = Math.Max(drawnDepth, tree.DepthOf(node));
                double cx = x;
                var next = new List<(int, double)>();
                foreach (int child in Ordered(tree, node, o.ChildOrder, basis))
                {
                    double cw = basis(child) * scale;
                    if (cw < o.MinWidthPixels || basis(child) == 0)
                    {
                        hiddenFrames = checked(hiddenFrames + (tree.SubtreeEndOf(child) - child));
                        hiddenWeight = checked(hiddenWeight + basis(child));
                    }
                    else
                    {
                        next.Add((child, cx));
                    }

                    cx += cw;
                }

                for (int i = next.Count - 1; i >= 0; i--)
                {
                    stack.Push(next[i]);
                }
            }
        }

        // Differential colour scale: the largest change among drawn frames (the root excluded) is full intensity.
        double totalW = tree.TotalWeight;
        double totalB = tree.TotalBaselineWeight;
        double Change(int n) =>
            o.NormalizeDifferential
                ? (totalW > 0 ? tree.WeightOf(n) / totalW : 0) - (totalB > 0 ? tree.BaselineWeightOf(n) / totalB : 0)
                : tree.WeightOf(n) - (double)tree.BaselineWeightOf(n);
        double maxChange = 0;
        if (diff)
        {
            foreach ((int n, _, _) in drawn)
            {
                if (n > 0)
                {
                    maxChange = Math.Max(maxChange, Math.Abs(Change(n)));
                }
            }
        }

        var info = new List<string>();
        if (o.Subtitle is not null)
        {
            info.Add(o.Subtitle);
        }

        if (diff)
        {
            info.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Differential: width = {(byBaseline ? "baseline" : "current")} {countName}; red = share grew, "
                        + $"blue = share shrank. Total {totalB:N0} \u2192 {totalW:N0} {countName}."
                )
            );
        }

        if (hiddenFrames > 0)
        {
            double share = total > 0 ? 100.0 * hiddenWeight / total : 0;
            info.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{hiddenFrames:N0} frames narrower than {o.MinWidthPixels:0.##} px not drawn ({hiddenWeight:N0} "
                        + $"{countName}, {share:F2}% of the total)."
                )
            );
        }

        double framesTop = 34 + (info.Count * 18) + 8;
        int levels = total > 0 ? drawnDepth + 1 : 1;
        double height = framesTop + (levels * frameH) + Pad;
        var sb = new StringBuilder(4096 + (drawn.Count * 220));
        Svg.Open(sb, width, height, standalone, o.Title);
        sb.Append("<rect class=\"background\" x=\"0.00\" y=\"0.00\" width=\"")
            .Append(Svg.N(width))
            .Append("\" height=\"")
            .Append(Svg.N(height))
            .Append("\" fill=\"#fbfbf8\"/>\n");
        sb.Append("<text class=\"title\" x=\"")
            .Append(Svg.N(width / 2))
            .Append("\" y=\"24.00\" text-anchor=\"middle\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(TitleFont))
            .Append("\" font-weight=\"600\" fill=\"#1a1a1a\">")
            .Append(TextEscaping.Xml(TextEscaping.Ellipsize(o.Title, (int)(plotW / (TitleFont * Svg.SansAdvance)))))
            .Append("</text>\n");
        for (int i = 0; i < info.Count; i++)
        {
            sb.Append("<text class=\"info\" x=\"")
                .Append(Svg.N(Pad))
                .Append("\" y=\"")
                .Append(Svg.N(46 + (i * 18)))
                .Append("\" font-family=\"")
                .Append(Svg.SansFont)
                .Append("\" font-size=\"")
                .Append(Svg.N(InfoFont))
                .Append("\" fill=\"#555555\">")
                .Append(TextEscaping.Xml(TextEscaping.Ellipsize(info[i], (int)(plotW / (InfoFont * Svg.SansAdvance)))))
                .Append("</text>\n");
        }

        if (total == 0)
        {
            sb.Append("<text class=\"no-data\" x=\"")
                .Append(Svg.N(width / 2))
                .Append("\" y=\"")
                .Append(Svg.N(framesTop + frameH - 4))
                .Append("\" text-anchor=\"middle\" font-family=\"")
                .Append(Svg.SansFont)
                .Append("\" font-size=\"13.00\" fill=\"#888888\">no data</text>\n");
        }

        sb.Append("<g class=\"frames\" font-family=\"")
            .Append(Svg.MonoFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(o.FontSize))
            .Append("\">\n");
        double charW = o.FontSize * Svg.MonoAdvance;
        foreach ((int n, double x, double w) in drawn)
        {
            int depth = tree.DepthOf(n);
            double y = o.Inverted ? framesTop + (depth * frameH) : framesTop + ((drawnDepth - depth) * frameH);
            string name = depth == 0 ? CallTree.RootName : tree.NameOf(n);
            long weight = tree.WeightOf(n);
            long baseline = tree.BaselineWeightOf(n);
            long delta = checked(weight - baseline);
            string fill;
            string tip;
            if (diff)
            {
                fill = depth == 0 ? "#e4e4e4" : ModulePalette.DiffColour(maxChange > 0 ? Change(n) / maxChange : 0);
                double shareB = totalB > 0 ? 100.0 * baseline / totalB : 0;
                double shareW = totalW > 0 ? 100.0 * weight / totalW : 0;
                tip = string.Create(
                    CultureInfo.InvariantCulture,
                    $"{name} (current {weight:N0}, baseline {baseline:N0}, delta "
                        + $"{(delta > 0 ? "+" : string.Empty)}{delta:N0} {countName}; share {shareB:F2}% \u2192 "
                        + $"{shareW:F2}%)"
                );
            }
            else
            {
                fill = depth == 0 ? "#e4e4e4" : ModulePalette.ColourOf(name);
                double share = total > 0 ? 100.0 * basis(n) / total : 0;
                tip = string.Create(CultureInfo.InvariantCulture, $"{name} ({basis(n):N0} {countName}, {share:F2}%)");
            }

            sb.Append("<g class=\"frame\"><title>")
                .Append(TextEscaping.Xml(tip))
                .Append("</title><rect x=\"")
                .Append(Svg.N(x))
                .Append("\" y=\"")
                .Append(Svg.N(y))
                .Append("\" width=\"")
                .Append(Svg.N(w))
                .Append("\" height=\"")
                .Append(Svg.N(frameH - 1))
                .Append("\" rx=\"2.00\" fill=\"")
                .Append(fill)
                .Append("\"/>");
            int chars = (int)Math.Floor((w - 6) / charW);
            if (chars >= 3)
            {
                string label = TextEscaping.Ellipsize(TextEscaping.Terminal(name), chars);
                sb.Append("<text x=\"")
                    .Append(Svg.N(x + 3))
                    .Append("\" y=\"")
                    .Append(Svg.N(y + frameH - 5))
                    .Append("\" fill=\"#111111\">")
                    .Append(TextEscaping.Xml(label))
                    .Append("</text>");
            }

            sb.Append("</g>\n");
        }

        sb.Append("</g>\n</svg>\n");
        return new FlameGraphRendering(
            sb.ToString(),
            new FlameGraphStats(drawn.Count, hiddenFrames, hiddenWeight, drawnDepth)
        );
    }

    private static IEnumerable<int> Ordered(CallTree tree, int node, FlameChildOrder order, Func<int, long> basis) =>
        order == FlameChildOrder.HeaviestFirst
            ? tree.ChildrenOf(node).OrderByDescending(basis).ThenBy(tree.NameOf, StringComparer.Ordinal)
            : tree.ChildrenOf(node);
}

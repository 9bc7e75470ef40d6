using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>Size of an SVG chart. Immutable.</summary>
internal sealed record ChartSvgOptions
{
    /// <summary>The width in pixels (300 to 10,000; default 900).</summary>
    public int Width
    {
        get;
        init =>
            field = value is >= 300 and <= 10_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Width must be 300..10000 px.");
    } = 900;

    /// <summary>The height in pixels (200 to 5,000; default 380).</summary>
    public int Height
    {
        get;
        init =>
            field = value is >= 200 and <= 5_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Height must be 200..5000 px.");
    } = 380;
}

/// <summary>
/// Draws <see cref="BarChart"/> and <see cref="LineChart"/> data as self-contained SVG (for the <c>svg</c> format,
/// <see cref="SvgReportWriter"/>, and inline in HTML pages): no scripts, fonts or external
/// references; presentation attributes only (no ids or style sheets, so several charts can be inlined in one HTML
/// page); every number with two fixed decimals in the invariant culture; the same input always gives the same bytes.
/// Bars and series carry a <c>&lt;title&gt;</c> tooltip with the exact value.
/// </summary>
internal static class ChartSvg
{
    private const double TitleFont = 15;
    private const double LabelFont = 11;
    private const string HighlightColour = "#e15759";
    private const string BarColour = "#4e79a7";
    private const string GridColour = "#e6e6e6";
    private const string AxisColour = "#666666";
    private const string TextColour = "#333333";

    /// <summary>Renders a bar chart as an SVG document.</summary>
    /// <param name="chart">The chart.</param>
    /// <param name="options">The size; <see langword="null"/> for the defaults.</param>
    /// <returns>The SVG text, starting with an XML declaration.</returns>
    public static string ToSvg(BarChart chart, ChartSvgOptions? options = null) =>
        RenderBar(chart, options ?? new(), standalone: true);

    /// <summary>Renders a line chart as an SVG document, downsampling long series per pixel column (peaks are
    /// kept).</summary>
    /// <param name="chart">The chart.</param>
    /// <param name="options">The size; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Cancels downsampling of long series.</param>
    /// <returns>The SVG text, starting with an XML declaration.</returns>
    public static string ToSvg(
        LineChart chart,
        ChartSvgOptions? options = null,
        CancellationToken cancellationToken = default
    ) => RenderLine(chart, options ?? new(), standalone: true, cancellationToken);

    internal static string RenderBar(BarChart chart, ChartSvgOptions options, bool standalone)
    {
        ArgumentNullException.ThrowIfNull(chart);
        double w = options.Width;
        double h = options.Height;
        int n = chart.Values.Count;
        double vMin = 0,
            vMax = 0;
        foreach (double v in chart.Values)
        {
            vMin = Math.Min(vMin, v);
            vMax = Math.Max(vMax, v);
        }

        if (chart.ReferenceLine is { } rl)
        {
            vMin = Math.Min(vMin, rl.Value);
            vMax = Math.Max(vMax, rl.Value);
        }

        AxisScale y = AxisScale.Numeric(vMin, vMax, 6);
        double left = LeftMargin(y, chart.ValueAxisLabel);
        double right = chart.ReferenceLine is null
            ? 16
            : 16 + Math.Min(160, TextWidth(ReferenceLabel(chart), LabelFont));
        double top = 44;
        double plotW = Math.Max(10, w - left - right);
        double band = n == 0 ? plotW : plotW / n;
        int maxLabel = n == 0 ? 0 : chart.Categories.Max(c => c.Length);
        bool rotate = maxLabel * LabelFont * Svg.SansAdvance > band - 4;
        int labelChars = rotate ? 22 : maxLabel;
        double rotatedDepth = rotate ? (Math.Min(maxLabel, labelChars) * LabelFont * Svg.SansAdvance * 0.72) + 14 : 0;
        double bottom = (rotate ? rotatedDepth + 12 : 30) + (chart.CategoryAxisLabel is null ? 0 : 20);
        double plotH = Math.Max(20, h - top - bottom);
        double y0 = top + plotH;
        int labelEvery = Math.Max(
            1,
            (int)
                Math.Ceiling(
                    (rotate ? LabelFont * 1.4 : (maxLabel * LabelFont * Svg.SansAdvance) + 6) / Math.Max(0.001, band)
                )
        );

        var sb = new StringBuilder(4096 + (n * 160));
        Svg.Open(sb, w, h, standalone, chart.Title);
        sb.Append("<rect class=\"background\" x=\"0.00\" y=\"0.00\" width=\"")
            .Append(Svg.N(w))
            .Append("\" height=\"")
            .Append(Svg.N(h))
            .Append("\" fill=\"#ffffff\"/>\n");
        Title(sb, chart.Title, w);
        ValueAxis(sb, y, left, top, plotW, plotH, chart.ValueAxisLabel);

        sb.Append("<g class=\"bars\">\n");
        double zero = y.Map(0, y0, top);
        for (int i = 0; i < n; i++)
        {
            double v = chart.Values[i];
            double bx = left + (i * band) + (band * 0.1);
            double bw = Math.Max(0.5, band * 0.8);
            double vy = y.Map(v, y0, top);
            double ry = Math.Min(vy, zero);
            double rh = Math.Abs(zero - vy);
            string fill = chart.IsHighlighted[i] ? HighlightColour : BarColour;
            sb.Append("<rect class=\"")
                .Append(chart.IsHighlighted[i] ? "bar highlighted" : "bar")
                .Append("\" x=\"")
                .Append(Svg.N(bx))
                .Append("\" y=\"")
                .Append(Svg.N(ry))
                .Append("\" width=\"")
                .Append(Svg.N(bw))
                .Append("\" height=\"")
                .Append(Svg.N(rh))
                .Append("\" fill=\"")
                .Append(fill)
                .Append("\"><title>")
                .Append(TextEscaping.Xml(chart.Categories[i]))
                .Append(": ")
                .Append(CellFormatter.Fixed(v, chart.ValueDecimalPlaces))
                .Append("</title></rect>\n");
        }

        sb.Append("</g>\n");
        AppendValueLabels(sb, chart, left, band, y, y0, top, zero);
        sb.Append("<g class=\"category-labels\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(LabelFont))
            .Append("\" fill=\"")
            .Append(TextColour)
            .Append("\">\n");
        for (int i = 0; i < n; i += labelEvery)
        {
            double cx = left + ((i + 0.5) * band);
            string label = TextEscaping.Xml(TextEscaping.Ellipsize(chart.Categories[i], labelChars));
            if (rotate)
            {
                sb.Append("<text x=\"")
                    .Append(Svg.N(cx))
                    .Append("\" y=\"")
                    .Append(Svg.N(y0 + 12))
                    .Append("\" text-anchor=\"end\" transform=\"rotate(-45 ")
                    .Append(Svg.N(cx))
                    .Append(' ')
                    .Append(Svg.N(y0 + 12))
                    .Append(")\">")
                    .Append(label)
                    .Append("</text>\n");
            }
            else
            {
                sb.Append("<text x=\"")
                    .Append(Svg.N(cx))
                    .Append("\" y=\"")
                    .Append(Svg.N(y0 + 16))
                    .Append("\" text-anchor=\"middle\">")
                    .Append(label)
                    .Append("</text>\n");
            }
        }

        sb.Append("</g>\n");
        Line(sb, left, zero, left + plotW, zero, AxisColour, 1, null, "axis");
        if (chart.ReferenceLine is { } line)
        {
            double ly = y.Map(line.Value, y0, top);
            Line(sb, left, ly, left + plotW, ly, "#222222", 1.5, "6 4", "reference-line");
            sb.Append("<text class=\"reference-label\" x=\"")
                .Append(Svg.N(left + plotW + 4))
                .Append("\" y=\"")
                .Append(Svg.N(ly + 4))
                .Append("\" font-family=\"")
                .Append(Svg.SansFont)
                .Append("\" font-size=\"")
                .Append(Svg.N(LabelFont))
                .Append("\" fill=\"#222222\">")
                .Append(TextEscaping.Xml(ReferenceLabel(chart)))
                .Append("</text>\n");
        }

        if (n == 0)
        {
            NoData(sb, left + (plotW / 2), top + (plotH / 2));
        }

        if (chart.CategoryAxisLabel is { } cal)
        {
            AxisTitle(sb, cal, left + (plotW / 2), h - 8, rotate: false);
        }

        sb.Append("</svg>\n");
        return sb.ToString();
    }

    internal static string RenderLine(
        LineChart chart,
        ChartSvgOptions options,
        bool standalone,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(chart);
        double w = options.Width;
        double h = options.Height;
        double xMin = double.PositiveInfinity,
            xMax = double.NegativeInfinity;
        double yMin = double.PositiveInfinity,
            yMax = double.NegativeInfinity;
        foreach (LineSeries s in chart.Series)
        {
            if (s.Count == 0)
            {
                continue;
            }

            ReadOnlySpan<double> xs = s.X.Span;
            xMin = Math.Min(xMin, xs[0]);
            xMax = Math.Max(xMax, xs[^1]);
            foreach (double v in s.Y.Span)
            {
                if (v < yMin)
                {
                    yMin = v;
                }

                if (v > yMax)
                {
                    yMax = v;
                }
            }
        }

        bool empty = double.IsInfinity(xMin);
        if (empty)
        {
            xMin = 0;
            xMax = 1;
            yMin = 0;
            yMax = 1;
        }

        if (chart.YAxisIncludesZero)
        {
            yMin = Math.Min(0, yMin);
            yMax = Math.Max(0, yMax);
        }

        AxisScale y = AxisScale.Numeric(yMin, yMax, 6);
        double left = LeftMargin(y, chart.YAxisLabel);
        double right = 24;
        double top = chart.Series.Count > 0 ? 66 : 44;
        double bottom = 52;
        double plotW = Math.Max(10, w - left - right);
        double plotH = Math.Max(20, h - top - bottom);
        double y0 = top + plotH;
        int targetXTicks = Math.Max(2, (int)(plotW / 110));
        AxisScale x =
            chart.XAxis == XAxisKind.Time && !empty
                ? AxisScale.Time(xMin, xMax, targetXTicks)
                : AxisScale.Numeric(xMin, xMax, targetXTicks);

        var sb = new StringBuilder(16384);
        Svg.Open(sb, w, h, standalone, chart.Title);
        sb.Append("<rect class=\"background\" x=\"0.00\" y=\"0.00\" width=\"")
            .Append(Svg.N(w))
            .Append("\" height=\"")
            .Append(Svg.N(h))
            .Append("\" fill=\"#ffffff\"/>\n");
        Title(sb, chart.Title, w);
        ValueAxis(sb, y, left, top, plotW, plotH, chart.YAxisLabel);

        sb.Append("<g class=\"x-ticks\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(LabelFont))
            .Append("\" fill=\"")
            .Append(TextColour)
            .Append("\" text-anchor=\"middle\">\n");
        foreach (AxisTick t in x.Ticks)
        {
            double tx = x.Map(t.Value, left, left + plotW);
            Line(sb, tx, y0, tx, y0 + 5, AxisColour, 1, null, null);
            sb.Append("<text x=\"")
                .Append(Svg.N(tx))
                .Append("\" y=\"")
                .Append(Svg.N(y0 + 18))
                .Append("\">")
                .Append(TextEscaping.Xml(t.Label))
                .Append("</text>\n");
        }

        sb.Append("</g>\n");
        Line(sb, left, y0, left + plotW, y0, AxisColour, 1, null, "axis");
        string xTitle = chart.XAxisLabel ?? (chart.XAxis == XAxisKind.Time ? "time (UTC)" : string.Empty);
        if (chart.XAxis == XAxisKind.Time && x.Caption is not null)
        {
            xTitle = xTitle.Length == 0 ? x.Caption : xTitle + ", " + x.Caption;
        }

        if (xTitle.Length > 0)
        {
            AxisTitle(sb, xTitle, left + (plotW / 2), h - 10, rotate: false);
        }

        int columns = Math.Max(1, (int)Math.Floor(plotW));
        for (int si = 0; si < chart.Series.Count; si++)
        {
            LineSeries s = chart.Series[si];
            if (s.Count == 0)
            {
                continue;
            }

            string colour = Svg.SeriesColours[si % Svg.SeriesColours.Length];
            ReadOnlySpan<double> xs = s.X.Span;
            ReadOnlySpan<double> ys = s.Y.Span;
            List<int> picks = Downsampler.Select(xs, ys, x.Min, x.Max, columns, cancellationToken);
            sb.Append("<polyline class=\"series\" data-series=\"")
                .Append(si.ToString(CultureInfo.InvariantCulture))
                .Append("\" data-points=\"")
                .Append(s.Count.ToString(CultureInfo.InvariantCulture))
                .Append("\" fill=\"none\" stroke=\"")
                .Append(colour)
                .Append("\" stroke-width=\"1.50\" stroke-linejoin=\"round\" points=\"");
            for (int k = 0; k < picks.Count; k++)
            {
                int i = picks[k];
                if (k > 0)
                {
                    sb.Append(' ');
                }

                sb.Append(Svg.N(x.Map(xs[i], left, left + plotW))).Append(',').Append(Svg.N(y.Map(ys[i], y0, top)));
            }

            sb.Append("\"><title>")
                .Append(TextEscaping.Xml(s.Name))
                .Append(" (")
                .Append(s.Count.ToString("N0", CultureInfo.InvariantCulture))
                .Append(" points)</title></polyline>\n");
            if (s.Count == 1)
            {
                sb.Append("<circle class=\"point\" cx=\"")
                    .Append(Svg.N(x.Map(xs[0], left, left + plotW)))
                    .Append("\" cy=\"")
                    .Append(Svg.N(y.Map(ys[0], y0, top)))
                    .Append("\" r=\"2.50\" fill=\"")
                    .Append(colour)
                    .Append("\"/>\n");
            }
        }

        if (empty)
        {
            NoData(sb, left + (plotW / 2), top + (plotH / 2));
        }

        Legend(sb, chart, left, 50);
        sb.Append("</svg>\n");
        return sb.ToString();
    }

    /// <summary>Writes each bar's value above it (below for negative values) when every label fits its bar's
    /// band.</summary>
    private static void AppendValueLabels(
        StringBuilder sb,
        BarChart chart,
        double left,
        double band,
        AxisScale y,
        double y0,
        double top,
        double zero
    )
    {
        const double font = 10;
        string[] labels = [.. chart.Values.Select(v => CellFormatter.Fixed(v, chart.ValueDecimalPlaces))];
        if (labels.Length == 0 || labels.Max(l => l.Length) * font * Svg.SansAdvance > band - 2)
        {
            return;
        }

        sb.Append("<g class=\"value-labels\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(font))
            .Append("\" fill=\"#444444\" text-anchor=\"middle\">\n");
        for (int i = 0; i < labels.Length; i++)
        {
            double vy = y.Map(chart.Values[i], y0, top);
            double ty = chart.Values[i] >= 0 ? Math.Min(vy, zero) - 3 : Math.Max(vy, zero) + font + 1;
            sb.Append("<text x=\"")
                .Append(Svg.N(left + ((i + 0.5) * band)))
                .Append("\" y=\"")
                .Append(Svg.N(ty))
                .Append("\">")
                .Append(labels[i])
                .Append("</text>\n");
        }

        sb.Append("</g>\n");
    }

    private static string ReferenceLabel(BarChart chart) =>
        chart.ReferenceLine is { } r
            ? r.Label + " " + CellFormatter.Fixed(r.Value, Math.Max(1, chart.ValueDecimalPlaces))
            : string.Empty;

    private static double LeftMargin(AxisScale y, string? axisLabel)
    {
        int longest = y.Ticks.Count == 0 ? 1 : y.Ticks.Max(t => t.Label.Length);
        return 14 + (longest * LabelFont * Svg.SansAdvance) + (axisLabel is null ? 0 : 20);
    }

    private static double TextWidth(string text, double font) => text.Length * font * Svg.SansAdvance;

    private static void Title(StringBuilder sb, string title, double width)
    {
        int chars = (int)((width - 20) / (TitleFont * Svg.SansAdvance));
        sb.Append("<text class=\"title\" x=\"")
            .Append(Svg.N(width / 2))
            .Append("\" y=\"24.00\" text-anchor=\"middle\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(TitleFont))
            .Append("\" font-weight=\"600\" fill=\"#1a1a1a\">")
            .Append(TextEscaping.Xml(TextEscaping.Ellipsize(title, chars)))
            .Append("</text>\n");
    }

    private static void ValueAxis(
        StringBuilder sb,
        AxisScale y,
        double left,
        double top,
        double plotW,
        double plotH,
        string? label
    )
    {
        double y0 = top + plotH;
        sb.Append("<g class=\"grid\">\n");
        foreach (AxisTick t in y.Ticks)
        {
            double ty = y.Map(t.Value, y0, top);
            Line(sb, left, ty, left + plotW, ty, GridColour, 1, null, null);
        }

        sb.Append("</g>\n<g class=\"y-ticks\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(LabelFont))
            .Append("\" fill=\"")
            .Append(TextColour)
            .Append("\" text-anchor=\"end\">\n");
        foreach (AxisTick t in y.Ticks)
        {
            double ty = y.Map(t.Value, y0, top);
            sb.Append("<text x=\"")
                .Append(Svg.N(left - 6))
                .Append("\" y=\"")
                .Append(Svg.N(ty + 4))
                .Append("\">")
                .Append(TextEscaping.Xml(t.Label))
                .Append("</text>\n");
        }

        sb.Append("</g>\n");
        Line(sb, left, top, left, y0, AxisColour, 1, null, "axis");
        if (label is not null)
        {
            AxisTitle(sb, label, 14, top + (plotH / 2), rotate: true);
        }
    }

    private static void AxisTitle(StringBuilder sb, string text, double x, double y, bool rotate)
    {
        sb.Append("<text class=\"axis-title\" x=\"")
            .Append(Svg.N(x))
            .Append("\" y=\"")
            .Append(Svg.N(y))
            .Append("\" text-anchor=\"middle\"");
        if (rotate)
        {
            sb.Append(" transform=\"rotate(-90 ").Append(Svg.N(x)).Append(' ').Append(Svg.N(y)).Append(")\"");
        }

        sb.Append(" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"12.00\" fill=\"#444444\">")
            .Append(TextEscaping.Xml(TextEscaping.Ellipsize(text, 90)))
            .Append("</text>\n");
    }

    private static void Line(
        StringBuilder sb,
        double x1,
        double y1,
        double x2,
        double y2,
        string colour,
        double width,
        string? dash,
        string? cls
    )
    {
        sb.Append("<line");
        if (cls is not null)
        {
            sb.Append(" class=\"").Append(cls).Append('"');
        }

        sb.Append(" x1=\"")
            .Append(Svg.N(x1))
            .Append("\" y1=\"")
            .Append(Svg.N(y1))
            .Append("\" x2=\"")
            .Append(Svg.N(x2))
            .Append("\" y2=\"")
            .Append(Svg.N(y2))
            .Append("\" stroke=\"")
            .Append(colour)
            .Append("\" stroke-width=\"")
            .Append(Svg.N(width))
            .Append('"');
        if (dash is not null)
        {
            sb.Append(" stroke-dasharray=\"").Append(dash).Append('"');
        }

        sb.Append("/>\n");
    }

    private static void NoData(StringBuilder sb, double x, double y) =>
        sb.Append("<text class=\"no-data\" x=\"")
            .Append(Svg.N(x))
            .Append("\" y=\"")
            .Append(Svg.N(y))
            .Append("\" text-anchor=\"middle\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"13.00\" fill=\"#888888\">no data</text>\n");

    private static void Legend(StringBuilder sb, LineChart chart, double x, double y)
    {
        if (chart.Series.Count == 0)
        {
            return;
        }

        sb.Append("<g class=\"legend\" font-family=\"")
            .Append(Svg.SansFont)
            .Append("\" font-size=\"")
            .Append(Svg.N(LabelFont))
            .Append("\" fill=\"")
            .Append(TextColour)
            .Append("\">\n");
        double cx = x;
        for (int i = 0; i < chart.Series.Count; i++)
        {
            LineSeries s = chart.Series[i];
            string name = TextEscaping.Ellipsize(s.Name, 40) + (s.Count == 0 ? " (no data)" : string.Empty);
            string colour = Svg.SeriesColours[i % Svg.SeriesColours.Length];
            sb.Append("<rect class=\"legend-swatch\" x=\"")
                .Append(Svg.N(cx))
                .Append("\" y=\"")
                .Append(Svg.N(y - 9))
                .Append("\" width=\"14.00\" height=\"4.00\" fill=\"")
                .Append(colour)
                .Append("\"/>\n");
            sb.Append("<text x=\"")
                .Append(Svg.N(cx + 19))
                .Append("\" y=\"")
                .Append(Svg.N(y - 3))
                .Append("\">")
                .Append(TextEscaping.Xml(name))
                .Append("</text>\n");
            cx += 19 + TextWidth(name, LabelFont) + 18;
        }

        sb.Append("</g>\n");
    }
}

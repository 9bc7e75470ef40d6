using System.Globalization;

namespace XeAnalyzer.Output;

/// <summary>A horizontal reference line drawn across a <see cref="BarChart"/>, such as the mean. Immutable.</summary>
internal sealed class ReferenceLine
{
    /// <summary>Creates a reference line.</summary>
    /// <param name="value">The value where the line is drawn; must be finite.</param>
    /// <param name="label">The label drawn next to the line (for example "mean").</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or infinite.</exception>
    public ReferenceLine(double value, string label)
    {
        ArgumentNullException.ThrowIfNull(label);
        if (!double.IsFinite(value))
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "A reference line needs a finite value.");
        }

        Value = value;
        Label = label;
    }

    /// <summary>The value where the line is drawn.</summary>
    public double Value { get; }

    /// <summary>The label.</summary>
    public string Label { get; }

    /// <summary>A line at the arithmetic mean of <paramref name="values"/>, labelled "mean".</summary>
    /// <param name="values">The values; at least one.</param>
    /// <returns>The line.</returns>
    /// <exception cref="ArgumentException"><paramref name="values"/> is empty.</exception>
    public static ReferenceLine Mean(IEnumerable<double> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        double sum = 0;
        long n = 0;
        foreach (double v in values)
        {
            sum += v;
            n++;
        }

        if (n == 0)
        {
            throw new ArgumentException("The mean of no values is undefined.", nameof(values));
        }

        return new ReferenceLine(sum / n, "mean");
    }
}

/// <summary>
/// Bar chart data: one bar per category, some optionally highlighted, with an optional reference line (such as the
/// mean). A histogram is a bar chart whose categories are bins; see <see cref="Histogram"/>. Immutable.
/// </summary>
internal sealed class BarChart : ReportBlock
{
    /// <summary>Creates a bar chart.</summary>
    /// <param name="title">The title.</param>
    /// <param name="categories">The category labels, one per bar, in display order.</param>
    /// <param name="values">The bar values; same count as <paramref name="categories"/>, all finite.</param>
    /// <param name="highlightedCategories">Categories drawn in the highlight colour (every bar with a matching label,
    /// ordinal comparison).</param>
    /// <param name="referenceLine">An optional horizontal line, such as <see cref="ReferenceLine.Mean"/>.</param>
    /// <exception cref="ArgumentNullException">An argument or category is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The counts differ or a value is not finite.</exception>
    public BarChart(
        string title,
        IEnumerable<string> categories,
        IEnumerable<double> values,
        IEnumerable<string>? highlightedCategories = null,
        ReferenceLine? referenceLine = null
    )
    {
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(categories);
        ArgumentNullException.ThrowIfNull(values);
        string[] cats = [.. categories];
        double[] vals = [.. values];
        if (Array.Exists(cats, c => c is null))
        {
            throw new ArgumentNullException(nameof(categories), "A category is null.");
        }

        if (cats.Length != vals.Length)
        {
            throw new ArgumentException(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Bar chart '{title}' has {cats.Length} categories but {vals.Length} values."
                ),
                nameof(values)
            );
        }

        int bad = Array.FindIndex(vals, v => !double.IsFinite(v));
        if (bad >= 0)
        {
            throw new ArgumentException(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"Bar chart '{title}': the value of category {bad} is not finite."
                ),
                nameof(values)
            );
        }

        var highlighted = new HashSet<string>(highlightedCategories ?? [], StringComparer.Ordinal);
        Title = title;
        Categories = Array.AsReadOnly(cats);
        Values = Array.AsReadOnly(vals);
        IsHighlighted = Array.AsReadOnly(Array.ConvertAll(cats, highlighted.Contains));
        ReferenceLine = referenceLine;
    }

    /// <summary>The title.</summary>
    public string Title { get; }

    /// <summary>The category labels in display order.</summary>
    public IReadOnlyList<string> Categories { get; }

    /// <summary>The bar values, parallel to <see cref="Categories"/>.</summary>
    public IReadOnlyList<double> Values { get; }

    /// <summary>Whether each bar is highlighted, parallel to <see cref="Categories"/>.</summary>
    public IReadOnlyList<bool> IsHighlighted { get; }

    /// <summary>The reference line, or <see langword="null"/>.</summary>
    public ReferenceLine? ReferenceLine { get; }

    /// <summary>The label of the category axis (for example "scheduler_id"), or <see langword="null"/>.</summary>
    public string? CategoryAxisLabel { get; init; }

    /// <summary>The label of the value axis (for example "latch acquires"), or <see langword="null"/>.</summary>
    public string? ValueAxisLabel { get; init; }

    /// <summary>Decimals of the values shown in bar tooltips and text output (default 0).</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 0..9.</exception>
    public int ValueDecimalPlaces
    {
        get;
        init =>
            field = value is >= 0 and <= 9
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(value),
                    value,
                    "Decimal places must be between 0 and 9."
                );
    }

    /// <summary>
    /// Builds a histogram: <paramref name="binCount"/> equal-width bins from the minimum to the maximum sample, each
    /// bar counting the samples in [low, high) (the last bin also holds the maximum). Labels are the bin's lower bound.
    /// </summary>
    /// <param name="title">The title.</param>
    /// <param name="samples">The samples; non-finite ones are ignored.</param>
    /// <param name="binCount">The number of bins, 1 to 10,000.</param>
    /// <param name="labelDecimals">Decimals of the bin labels.</param>
    /// <returns>The chart; with no finite samples it has no bars.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="binCount"/> is outside 1..10,000.</exception>
    public static BarChart Histogram(string title, IEnumerable<double> samples, int binCount, int labelDecimals = 0)
    {
        ArgumentNullException.ThrowIfNull(samples);
        ArgumentOutOfRangeException.ThrowIfLessThan(binCount, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(binCount, 10_000);
        ArgumentOutOfRangeException.ThrowIfLessThan(labelDecimals, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(labelDecimals, 9);
        double[] data = [.. samples.Where(double.IsFinite)];
        if (data.Length == 0)
        {
            return new BarChart(title, [], []);
        }

        double min = data.Min();
        double max = data.Max();
        double width = (max - min) / binCount;
        var counts = new double[binCount];
        foreach (double v in data)
        {
            int bin = width > 0 ? (int)Math.Min(binCount - 1, Math.Floor((v - min) / width)) : 0;
            counts[bin]++;
        }

        string format = "N" + labelDecimals.ToString(CultureInfo.InvariantCulture);
        string[] labels = new string[binCount];
        for (int i = 0; i < binCount; i++)
        {
            labels[i] = (min + (i * width)).ToString(format, CultureInfo.InvariantCulture);
        }

        return new BarChart(title, labels, counts) { ValueAxisLabel = "count" };
    }
}

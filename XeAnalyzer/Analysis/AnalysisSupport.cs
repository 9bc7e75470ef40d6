using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;

namespace XeAnalyzer.Analysis;

/// <summary>A count per category (a latch class, a latch mode, a wait type…) with its share of the total.</summary>
/// <param name="Name">The category (map text, or the value's text).</param>
/// <param name="Count">How many events.</param>
/// <param name="Share">Count / total, as a fraction (0.25 = 25 %).</param>
public sealed record CategoryTally(string Name, long Count, double Share);

/// <summary>
/// A count per group (a scheduler, a worker, a session) compared with the other groups: its share, its deviation from
/// the mean of all groups, from the mean of its peers (all groups but itself) and from the median of all groups, and
/// whether it is an outlier.
/// </summary>
/// <param name="Key">The group: a scheduler id or session id in decimal, a worker address as <c>0x</c> + 16 hex
/// digits.</param>
/// <param name="Count">How many events.</param>
/// <param name="Share">Count / total of all groups, as a fraction.</param>
/// <param name="DeviationFromMean">(Count − mean of all groups) / that mean, as a fraction (−0.1 = 10 % below).</param>
/// <param name="DeviationFromPeerMean">(Count − mean of the other groups) / that mean, or NaN when there is no other
/// group.</param>
/// <param name="DeviationFromMedian">(Count − median of all groups) / that median, or NaN when the median is 0.</param>
/// <param name="IsOutlier">
/// Whether there are at least two groups and |<paramref name="DeviationFromMedian"/>| is at least the analysis's
/// outlier threshold. The median (not the mean) is the reference so that one low group does not make all its peers look
/// high.
/// </param>
public sealed record GroupTally(
    string Key,
    long Count,
    double Share,
    double DeviationFromMean,
    double DeviationFromPeerMean,
    double DeviationFromMedian,
    bool IsOutlier
);

/// <summary>Small shared helpers of the analyses.</summary>
internal static class AnalysisSupport
{
    public static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    /// <summary>Whether a type's short name is one of <paramref name="names"/>.</summary>
    public static bool NameIn(IReadOnlyList<string> names, XeEventType type)
    {
        foreach (string n in names)
        {
            if (string.Equals(n, type.Name, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The warnings that are there, as a list.</summary>
    public static IReadOnlyList<AnalysisWarning> Warnings(params AnalysisWarning?[] warnings) =>
        Array.AsReadOnly(warnings.OfType<AnalysisWarning>().ToArray());

    /// <summary>The warning for events that arrived later than the reorder window, or <see langword="null"/>.</summary>
    public static AnalysisWarning? LateWarning(OrderingStatistics o) =>
        o.LateEvents > 0
            ? new AnalysisWarning(
                AnalysisWarningKind.LateEvents,
                o.LateEvents.ToString("N0", CultureInfo.InvariantCulture)
                    + " events arrived later than the reorder window allows (--reorder-window/--reorder-max) and were "
                    + "processed out of time order"
            )
            : null;

    public static string Hex(ulong v) => "0x" + v.ToString("X16", CultureInfo.InvariantCulture);

    public static string N0(long v) => v.ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>A count with its noun in the right number: <c>1 other wait type</c>, <c>2 other wait types</c>.
    /// </summary>
    public static string Counted(long v, string one, string many) => N0(v) + " " + (v == 1 ? one : many);

    public static string Percent(double fraction, int decimals = 1) =>
        double.IsFinite(fraction)
            ? (fraction * 100).ToString(
                "F" + decimals.ToString(CultureInfo.InvariantCulture),
                CultureInfo.InvariantCulture
            ) + " %"
            : "n/a";

    public static string SignedPercent(double fraction, int decimals = 1) =>
        double.IsFinite(fraction)
            ? (fraction >= 0 ? "+" : "-")
                + Math.Abs(fraction * 100)
                    .ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture)
                + " %"
            : "n/a";

    public static TableCell PercentCell(double fraction) =>
        double.IsFinite(fraction) ? TableCell.FromPercentage(fraction) : TableCell.Empty;

    public static TableCell DecimalCell(double value) =>
        double.IsFinite(value) ? TableCell.FromDouble(value) : TableCell.Empty;

    public static KeyValuePair<string, TableCell> Kv(string key, TableCell value) => new(key, value);

    /// <summary>Tallies sorted by count (descending), then name (ordinal).</summary>
    public static IReadOnlyList<CategoryTally> Categories(IEnumerable<(string Name, long Count)> counts)
    {
        (string Name, long Count)[] list = [.. counts.Where(c => c.Count > 0)];
        long total = list.Sum(c => c.Count);
        return Array.AsReadOnly(
            list.OrderByDescending(c => c.Count)
                .ThenBy(c => c.Name, StringComparer.Ordinal)
                .Select(c => new CategoryTally(c.Name, c.Count, total == 0 ? 0 : (double)c.Count / total))
                .ToArray()
        );
    }

    /// <summary>Group tallies in the given key order, with shares, deviations and outlier flags.</summary>
    public static IReadOnlyList<GroupTally> Groups(IEnumerable<(string Key, long Count)> counts, double threshold)
    {
        (string Key, long Count)[] list = [.. counts];
        long total = list.Sum(c => c.Count);
        int n = list.Length;
        double mean = n == 0 ? 0 : (double)total / n;
        long[] sorted = [.. list.Select(c => c.Count).Order()];
        double median =
            n == 0 ? 0
            : n % 2 == 1 ? sorted[n / 2]
            : (sorted[(n / 2) - 1] + (double)sorted[n / 2]) / 2;
        var result = new GroupTally[n];
        for (int i = 0; i < n; i++)
        {
            long c = list[i].Count;
            double share = total == 0 ? 0 : (double)c / total;
            double devMean = mean > 0 ? (c - mean) / mean : double.NaN;
            double peerMean = n >= 2 ? (double)(total - c) / (n - 1) : double.NaN;
            double devPeers = peerMean > 0 ? (c - peerMean) / peerMean : double.NaN;
            double devMedian = median > 0 ? (c - median) / median : double.NaN;
            bool outlier = n >= 2 && double.IsFinite(devMedian) && Math.Abs(devMedian) >= threshold;
            result[i] = new GroupTally(list[i].Key, c, share, devMean, devPeers, devMedian, outlier);
        }

        return Array.AsReadOnly(result);
    }

    public static ReportTable CategoryTable(
        string title,
        string header,
        IReadOnlyList<CategoryTally> rows,
        string countHeader
    )
    {
        var t = new TableBuilder(title)
            .AddColumn(TableColumn.Text(header))
            .AddColumn(TableColumn.Integer(countHeader))
            .AddColumn(TableColumn.Percentage("share", 2));
        foreach (CategoryTally r in rows)
        {
            t.AddRow(r.Name, r.Count, TableCell.FromPercentage(r.Share));
        }

        return t.Build();
    }

    public static ReportTable GroupTable(
        string title,
        string header,
        IReadOnlyList<GroupTally> rows,
        string countHeader,
        double threshold,
        IEnumerable<string>? notes = null
    )
    {
        var t = new TableBuilder(title)
            .AddColumn(TableColumn.Text(header))
            .AddColumn(TableColumn.Integer(countHeader))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(
                new TableColumn("vs mean of all", ColumnKind.Percentage)
                {
                    DecimalPlaces = 2,
                    Description = "(count − mean of all groups) / mean of all groups",
                }
            )
            .AddColumn(
                new TableColumn("vs mean of peers", ColumnKind.Percentage)
                {
                    DecimalPlaces = 2,
                    Description = "(count − mean of the other groups) / mean of the other groups",
                }
            )
            .AddColumn(
                new TableColumn("vs median", ColumnKind.Percentage)
                {
                    DecimalPlaces = 2,
                    Description = "(count − median of all groups) / median of all groups",
                }
            )
            .AddColumn(TableColumn.Text("outlier"));
        foreach (GroupTally r in rows)
        {
            t.AddRow(
                r.Key,
                r.Count,
                TableCell.FromPercentage(r.Share),
                PercentCell(r.DeviationFromMean),
                PercentCell(r.DeviationFromPeerMean),
                PercentCell(r.DeviationFromMedian),
                r.IsOutlier ? "yes" : string.Empty
            );
        }

        t.AddNote(
            "An outlier deviates from the median of all groups by at least "
                + Percent(threshold, 1)
                + " (the median, so that one low group does not make its peers look high)."
        );
        foreach (string n in notes ?? [])
        {
            t.AddNote(n);
        }

        return t.Build();
    }
}

/// <summary>
/// The one range rule of what the analyses add up (event and slot counts, durations, pages): every total stays at most
/// <see cref="long.MaxValue"/>. A run keeps one <see cref="WeightTotal"/> per kind of value over everything it counts;
/// an item whose value would carry it past the limit is left out and counted (<see cref="ValuesOutOfRange"/>), so the
/// sum of any part of it (a bucket, a wait type, a session) fits too, and the result says what it left out instead of
/// wrapping or saturating.
/// </summary>
internal struct WeightTotal
{
    /// <summary>The total so far.</summary>
    public long Value { get; private set; }

    /// <summary>Whether <paramref name="value"/> can be added without passing <see cref="long.MaxValue"/>.</summary>
    public readonly bool Fits(ulong value) => value <= (ulong)(long.MaxValue - Value);

    /// <summary>Adds a value that <see cref="Fits"/>.</summary>
    public void Add(ulong value) => Value = checked(Value + (long)value);
}

/// <summary>The items a run left out because a value would carry a total past <see cref="long.MaxValue"/>
/// (<see cref="WeightTotal"/>).</summary>
internal sealed class ValuesOutOfRange
{
    private string? _first;

    /// <summary>Items left out.</summary>
    public long Count { get; private set; }

    /// <summary>Counts an item left out.</summary>
    /// <param name="item">Where it is and what its value is (kept for the first).</param>
    public void Add(string item)
    {
        if (Count++ == 0)
        {
            _first = item;
        }
    }

    /// <summary>The warning, or <see langword="null"/> when nothing was left out.</summary>
    /// <param name="what">What the items are (<c>wait event(s)</c>, <c>duration value(s)</c>).</param>
    /// <param name="eventsLeftOut">Whether the items are events or slots left out (which makes the result partial), not
    /// only values of theirs.</param>
    public AnalysisWarning? Warning(string what, bool eventsLeftOut = true) =>
        Count == 0
            ? null
            : new AnalysisWarning(
                AnalysisWarningKind.ValueOutOfRange,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{Count:N0} {what} left out: a value above {long.MaxValue:N0}, or one carrying a total past it "
                        + $"(the first: {_first})"
                )
            )
            {
                EventsLeftOut = eventsLeftOut ? Count : 0,
            };

    /// <summary>Where an event is and the value of one of its columns, for <see cref="Add"/>.</summary>
    public static string Describe(XEvent e, string column, ulong value) =>
        (e.Source.FilePath ?? "(events)")
        + (
            e.Source.Offset >= 0
                ? ": byte offset " + e.Source.Offset.ToString(CultureInfo.InvariantCulture)
                : string.Empty
        )
        + ": "
        + e.FullName
        + " at "
        + CellFormatter.IsoUtc(e.Timestamp)
        + ", "
        + column
        + " "
        + value.ToString("N0", CultureInfo.InvariantCulture);
}

/// <summary>
/// Interns category names (map text or value text) to small ids, caching map keys per map; at most <c>maxNames</c>
/// distinct names, later ones become <c>overflowName</c>.
/// </summary>
internal sealed class NameTable(int maxNames = 65_536, string overflowName = "(other)")
{
    /// <summary>The most distinct groups (schedulers, sessions, workers) an analysis keeps; further ones are counted as
    /// untracked.</summary>
    public const int MaxGroups = 65_536;

    private readonly List<string> _names = [];
    private readonly Dictionary<string, int> _ids = new(StringComparer.Ordinal);
    private const int DenseKeys = 1024;
    private readonly Dictionary<(XeMap Map, ulong Key), int> _mapKeys = [];
    private XeMap? _denseMap;
    private int[] _dense = [];

    public int Count => _names.Count;

    public string this[int id] => _names[id];

    public int Intern(string name)
    {
        if (_ids.TryGetValue(name, out int id))
        {
            return id;
        }

        if (_names.Count >= maxNames)
        {
            name = overflowName;
            if (_ids.TryGetValue(name, out id))
            {
                return id;
            }
        }

        id = _names.Count;
        _names.Add(name);
        _ids.Add(name, id);
        return id;
    }

    /// <summary>The id of a value's text: its map text for a map value, else its rendering.</summary>
    public int Intern(XeValue value)
    {
        if (value.Map is XeMap map)
        {
            ulong key = value.MapKey;

            // Map keys are mostly small: ids of keys below 1,024 of the last map are kept in an array (id + 1; 0 = not
            // yet known).
            if (key < DenseKeys)
            {
                if (!ReferenceEquals(map, _denseMap))
                {
                    _denseMap = map;
                    _dense = new int[DenseKeys];
                }

                int known = _dense[(int)key];
                if (known > 0)
                {
                    return known - 1;
                }
            }

            if (!_mapKeys.TryGetValue((map, key), out int id))
            {
                id = Intern(map.GetText(key));
                if (_mapKeys.Count < maxNames)
                {
                    _mapKeys.Add((map, key), id);
                }
                else
                {
                    return id;
                }
            }

            if (key < DenseKeys)
            {
                _dense[(int)key] = id + 1;
            }

            return id;
        }

        return Intern(value.ToString());
    }
}

/// <summary>A per-key cache by reference (event types, action sets), with a shortcut for the last two keys (captures
/// often alternate two event types).</summary>
internal sealed class ReferenceCache<TKey, TValue>(Func<TKey, TValue> create)
    where TKey : class
{
    private readonly Dictionary<TKey, TValue> _map = new(ReferenceEqualityComparer.Instance);
    private TKey? _lastKey;
    private TValue _lastValue = default!;
    private TKey? _otherKey;
    private TValue _otherValue = default!;

    public TValue Get(TKey key)
    {
        if (ReferenceEquals(key, _lastKey))
        {
            return _lastValue;
        }

        if (ReferenceEquals(key, _otherKey))
        {
            (_otherKey, _lastKey) = (_lastKey, _otherKey);
            (_otherValue, _lastValue) = (_lastValue, _otherValue);
            return _lastValue;
        }

        if (!_map.TryGetValue(key, out TValue? value))
        {
            value = create(key);
            if (_map.Count < 100_000)
            {
                _map.Add(key, value);
            }
        }

        _otherKey = _lastKey;
        _otherValue = _lastValue;
        _lastKey = key;
        _lastValue = value;
        return value;
    }
}

/// <summary>Counts events by full name that an analysis did not use (bounded), for "events found instead"
/// messages.</summary>
internal sealed class IgnoredEvents
{
    private readonly Dictionary<string, long> _counts = new(StringComparer.Ordinal);

    public void Add(XEvent e)
    {
        string name = e.FullName;
        if (_counts.TryGetValue(name, out long c))
        {
            _counts[name] = c + 1;
        }
        else if (_counts.Count < 1000)
        {
            _counts.Add(name, 1);
        }
    }

    public IReadOnlyList<EventNameCount> ToList() =>
        [
            .. _counts
                .OrderByDescending(kv => kv.Value)
                .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Select(kv => new EventNameCount(kv.Key, kv.Value)),
        ];
}

/// <summary>
/// The units (<see cref="DurationUnits"/>) of the duration fields an analysis summed, per event type it met, so its
/// labels say the unit the capture's fields have rather than one assumed.
/// </summary>
internal sealed class FieldUnitsSeen(string eventName, string fieldName)
{
    private readonly List<(string EventName, FieldUnit Unit)> _units = [];

    /// <summary>Notes the unit of the field in an event type that has it (called once per event type).</summary>
    public void Add(XeEventType type)
    {
        int i = type.GetFieldIndex(fieldName);
        if (i >= 0 && DurationUnits.Of(type.Name, type.Fields[i]) is FieldUnit u)
        {
            _units.Add((type.FullName, u));
        }
    }

    /// <summary>The unit: the one every event type seen agrees on, else the reference's unit for the analysis's event
    /// (no event type seen); <see langword="null"/> when event types disagree.</summary>
    public FieldUnit? Unit =>
        _units.Count == 0 ? DurationUnits.Of(eventName, fieldName, null)
        : _units.TrueForAll(u => u.Unit.Label == _units[0].Unit.Label) ? _units[0].Unit
        : null;

    /// <summary>The unit as a label shows it; units that differ between event types are given per event.</summary>
    public string Label => Unit?.Label ?? DurationUnits.Describe(_units)!;
}

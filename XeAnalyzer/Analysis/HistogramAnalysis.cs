using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis;

/// <summary>Options of <see cref="HistogramAnalysis"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class HistogramAnalysisOptions
{
    /// <summary>The defaults: no map values, at most 1,000,000 slots kept.</summary>
    public static HistogramAnalysisOptions Default { get; } = new();

    /// <summary>Map keys and their text (<c>--map-values FILE</c>), or <see langword="null"/>.</summary>
    internal MapValueTable? MapValues { get; init; }

    /// <summary>
    /// The map whose text the slot values are keys of (<c>--map NAME</c>, for example <c>wait_types</c>);
    /// <see langword="null"/> to use the only map of <see cref="MapValues"/> when it holds one.
    /// </summary>
    public string? MapName { get; init; }

    /// <summary>
    /// The event of the histogram's source as the session defines it (<c>filtering_event_name</c>, for example
    /// <c>sqlos.wait_info</c>), or <see langword="null"/>: the target XML does not name its source. With
    /// <see cref="SourceField"/>, it gives a duration field's values their unit
    /// (<see cref="HistogramTable.ValueUnit"/>).
    /// </summary>
    public string? SourceEvent { get; init; }

    /// <summary>The field of the histogram's source (<c>source</c>, for example <c>duration</c>), or
    /// <see langword="null"/>; see <see cref="SourceEvent"/>.</summary>
    public string? SourceField { get; init; }

    /// <summary>The most slots kept over all histograms (1 to 50,000,000; default 1,000,000); further slots are counted
    /// and make the result partial.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..50,000,000.</exception>
    public int MaxSlots
    {
        get;
        init =>
            field = value is >= 1 and <= 50_000_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxSlots must be 1..50,000,000.");
    } = 1_000_000;
}

/// <summary>One slot of a histogram on an event field or action: its value, the value's map text when known, its count
/// and share.</summary>
/// <param name="Value">The slot's value as written (text, a number, or a map key).</param>
/// <param name="Text">The map text of a key (from <see cref="HistogramAnalysisOptions.MapValues"/>), or
/// <see langword="null"/>.</param>
/// <param name="Count">Events counted in the slot.</param>
/// <param name="Share">Count / the histogram's total, as a fraction.</param>
public sealed record HistogramRow(string Value, string? Text, long Count, double Share);

/// <summary>One histogram target on an event field or action, its slots largest first. Immutable.</summary>
public sealed class HistogramTable
{
    internal HistogramTable(
        HistogramTarget target,
        string name,
        IReadOnlyList<HistogramRow> rows,
        long total,
        string? mapName,
        IReadOnlyList<string> notes,
        (string Name, FieldUnit? Unit)? source = null
    )
    {
        Target = target;
        Name = name;
        Rows = rows;
        Total = total;
        MapName = mapName;
        Notes = notes;
        Source = source?.Name;
        Unit = source?.Unit;
    }

    /// <summary>The histogram as read (size, truncation, whether slots reached <c>buckets</c>).</summary>
    public HistogramTarget Target { get; }

    /// <summary>The histogram's name as shown: its input (as the run shows paths) and line.</summary>
    public string Name { get; }

    /// <summary>The slots, largest count first (ties by value, ordinal).</summary>
    public IReadOnlyList<HistogramRow> Rows { get; }

    /// <summary>The sum of the slots' counts.</summary>
    public long Total { get; }

    /// <summary>The map whose text the values were given, or <see langword="null"/>.</summary>
    public string? MapName { get; }

    /// <summary>Notes about the values (map keys without text, merged slots, truncation).</summary>
    public IReadOnlyList<string> Notes { get; }

    /// <summary>The source as given (<c>event.field</c>: the target XML does not name it), or
    /// <see langword="null"/>.</summary>
    public string? Source { get; }

    /// <summary>
    /// The unit of the slot values when the given source is a duration field, per the one unit rule
    /// (<c>ms</c>, <c>µs</c>, <c>µs, unit unverified</c> or <c>unit unknown</c>); <see langword="null"/> when no source
    /// is given or it is no duration.
    /// </summary>
    public string? ValueUnit => Unit?.Label;

    /// <summary>The unit of the slot values and where it comes from (<see cref="ValueUnit"/>).</summary>
    internal FieldUnit? Unit { get; }

    /// <summary>The value column's name: <c>value</c>, with the unit of the values when they have one.</summary>
    private string ValueColumn => ValueUnit is string u ? "value (" + u + ")" : "value";

    /// <summary>The table as a report table: value, text (when a map was given), count, share.</summary>
    /// <returns>The table.</returns>
    public ReportTable ToTable()
    {
        var t = new TableBuilder("Histogram " + Name).AddColumn(TableColumn.Text(ValueColumn));
        if (MapName is not null)
        {
            t.AddColumn(TableColumn.Text(MapName));
        }

        t.AddColumn(TableColumn.Integer("count")).AddColumn(TableColumn.Percentage("share", 2));
        foreach (HistogramRow r in Rows)
        {
            if (MapName is not null)
            {
                t.AddRow(r.Value, r.Text ?? string.Empty, r.Count, TableCell.FromPercentage(r.Share));
            }
            else
            {
                t.AddRow(r.Value, r.Count, TableCell.FromPercentage(r.Share));
            }
        }

        foreach (string n in Notes)
        {
            t.AddNote(n);
        }

        return t.Build();
    }

    /// <summary>The 20 largest slots as a bar chart.</summary>
    /// <returns>The chart.</returns>
    internal BarChart ToBarChart()
    {
        HistogramRow[] top = [.. Rows.Take(20)];
        return new BarChart(
            "Histogram " + Name + ": events per value",
            top.Select(r => r.Text ?? r.Value),
            top.Select(r => (double)r.Count)
        )
        {
            CategoryAxisLabel = MapName ?? ValueColumn,
            ValueAxisLabel = "events",
        };
    }
}

/// <summary>The result of <see cref="HistogramAnalysis"/>: each histogram on an event field or action, or what is
/// missing. Immutable.</summary>
public sealed class HistogramAnalysisResult : IAnalysisResult, IDocumentSource
{
    internal HistogramAnalysisResult() { }

    /// <summary>The histograms on event fields or actions, in input order.</summary>
    public IReadOnlyList<HistogramTable> Histograms { get; internal init; } = [];

    /// <summary>Histograms on callstacks that were read (they belong to <c>xeanalyze stacks</c>).</summary>
    public long CallstackHistograms { get; internal init; }

    /// <summary>Slots beyond <see cref="HistogramAnalysisOptions.MaxSlots"/>, counted but not kept.</summary>
    public long SlotsLeftOut { get; internal init; }

    /// <inheritdoc/>
    public MissingData? MissingData { get; internal init; }

    /// <summary>Warnings about the result: slots beyond <see cref="HistogramAnalysisOptions.MaxSlots"/>, counted but
    /// not kept.</summary>
    public IReadOnlyList<AnalysisWarning> Warnings { get; internal init; } = [];

    /// <inheritdoc/>
    public string Key => "histogram";

    /// <inheritdoc/>
    public string Title => "Histograms";

    /// <summary>The events the histograms on fields and actions counted (the sum of their slot counts).</summary>
    public long EventsUsed => Histograms.Sum(h => h.Total);

    /// <summary>The result as a document: the same in every view (<see cref="ToReport"/>; the first histogram's bar
    /// chart is its figure).</summary>
    /// <param name="view">The view (every view gives the same document).</param>
    /// <returns>The document.</returns>
    public ReportDocument ToDocument(DocumentView view) => ToReport();

    /// <summary>The result as a report: per histogram its size, table and chart.</summary>
    /// <returns>The report.</returns>
    public ReportDocument ToReport()
    {
        var sections = new List<ReportSection>();
        foreach (HistogramTable h in Histograms)
        {
            HistogramTarget t = h.Target;
            var items = new List<KeyValuePair<string, TableCell>>
            {
                new("input", h.Name[..h.Name.LastIndexOf(':')]),
                new("line", t.LineNumber),
                new(
                    "source",
                    h.Source is string s ? s + " (as given: the target XML does not name its source)"
                        : t.ValuesAreIntegers ? "an event field or action (numbers or map keys)"
                        : "an event field or action (text)"
                ),
            };
            if (h.Unit is FieldUnit u)
            {
                items.Add(new("unit of the values", u.Label + " (from " + u.Source + ")"));
            }

            var kv = new KeyValueList([
                .. items,
                new("slots", t.SlotCount),
                new("buckets", t.Buckets is int b ? TableCell.FromInt32(b) : TableCell.Empty),
                new("slots reached buckets", t.SlotsReachedBuckets ? "yes: values may have been merged" : "no"),
                new("truncated", t.Truncated ? "yes" : "no"),
                new("events counted", h.Total),
            ]);
            sections.Add(new ReportSection("Histogram " + h.Name, kv, h.ToTable(), h.ToBarChart()));
        }

        return new ReportDocument("Histograms", sections);
    }
}

/// <summary>
/// Histogram targets on an event field or action (not a callstack): one row per slot with its value, count and share,
/// largest first; map keys shown with their text when the map is given
/// (<see cref="HistogramAnalysisOptions.MapValues"/>). <c>xeanalyze histogram</c>. Callstack histograms are left to
/// <see cref="Stacks.StackBucketAnalysis"/>.
/// </summary>
/// <param name="options">Options; <see langword="null"/> for <see cref="HistogramAnalysisOptions.Default"/>.</param>
public sealed class HistogramAnalysis(HistogramAnalysisOptions? options = null) : ICaptureAnalysis
{
    /// <summary>The options.</summary>
    public HistogramAnalysisOptions Options { get; } = options ?? HistogramAnalysisOptions.Default;

    /// <summary>Histograms are target data, not events: the reader decodes no event for this analysis.</summary>
    public IReadOnlyCollection<string>? EventNames { get; } = [];

    /// <inheritdoc/>
    public IAnalysisRun Start(AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new Run(this, context);
    }

    /// <summary>Starts a run whose result is typed (for an analysis that shows histograms among other
    /// things).</summary>
    internal AnalysisRun<HistogramAnalysisResult> StartRun(AnalysisContext context) => new Run(this, context);

    /// <summary>Reads the inputs once and tabulates their histograms on fields and actions.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="context">The diagnostics; <see langword="null"/> for a new collector.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The outcome.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public AnalysisOutcome<HistogramAnalysisResult> Analyze(
        CaptureSource source,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    ) => AnalysisOutcome.Run<HistogramAnalysisResult>(source, this, context, cancellationToken);

    private sealed class Run(HistogramAnalysis owner, AnalysisContext context)
        : AnalysisRun<HistogramAnalysisResult>(context)
    {
        private readonly List<(HistogramTarget Target, List<(string Value, long Count)> Slots)> _histograms = [];
        private readonly ValuesOutOfRange _outOfRange = new();
        private WeightTotal _counted;
        private readonly HashSet<HistogramTarget> _callstack = new(ReferenceEqualityComparer.Instance);
        private long _kept;
        private long _leftOut;

        public override bool Accepts(XeEventType eventType, XeActionSet actions) => false;

        public override void Add(XEvent e) { }

        public override void AddHistogramSlot(HistogramTarget target, HistogramSlot slot)
        {
            if (target.SourceKind == HistogramSourceKind.Callstack)
            {
                _callstack.Add(target);
                return;
            }

            if (target.SourceKind != HistogramSourceKind.Value)
            {
                return;
            }

            if (_histograms.Count == 0 || !ReferenceEquals(_histograms[^1].Target, target))
            {
                _histograms.Add((target, []));
            }

            if (_kept >= owner.Options.MaxSlots)
            {
                _leftOut++;
                return;
            }

            // Every slot count is part of the run's total (one histogram's counts fit, the read saw to it; several may
            // not).
            if (!_counted.Fits(slot.Count))
            {
                _outOfRange.Add(
                    Context.DisplayPath(target.Input.Name)
                        + ": line "
                        + slot.LineNumber.ToString(CultureInfo.InvariantCulture)
                        + ": slot count "
                        + slot.Count.ToString("N0", CultureInfo.InvariantCulture)
                );
                return;
            }

            _counted.Add(slot.Count);

            string value = slot.Value?.Text.Trim() ?? string.Empty;
            if (HistogramTarget.ClassifyValue(slot.Value) != HistogramSourceKind.Value)
            {
                // A slot without a value, or one that looks like a stack in a histogram of values: kept with its count,
                // as written.
                value = slot.Value is null ? "(no value)" : value;
            }

            _histograms[^1].Slots.Add((value, (long)slot.Count));
            _kept++;
        }

        protected override HistogramAnalysisResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            HistogramAnalysisOptions o = owner.Options;
            string? mapName = o.MapName;
            if (o.MapValues is MapValueTable mv && mapName is null && mv.MapNames.Count == 1)
            {
                mapName = mv.MapNames[0];
            }

            // The unit rule without metadata: the target data has none, and names neither event nor field.
            (string Name, FieldUnit? Unit)? source =
                o.SourceEvent is string ev && o.SourceField is string field
                    ? (ev + "." + field, DurationUnits.IsDurationName(field) ? DurationUnits.Of(ev, field, null) : null)
                    : null;
            var tables = new List<HistogramTable>();
            foreach ((HistogramTarget target, List<(string Value, long Count)> slots) in _histograms)
            {
                cancellationToken.ThrowIfCancellationRequested();
                string name =
                    Context.DisplayPath(target.Input.Name)
                    + ":"
                    + target.LineNumber.ToString(CultureInfo.InvariantCulture);
                tables.Add(Table(target, name, slots, o.MapValues, mapName, source));
            }

            MissingData? missing = null;
            if (tables.Count == 0)
            {
                missing =
                    _callstack.Count > 0
                        ? new MissingData(
                            MissingDataKind.TargetData,
                            ["histogram on a field"],
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"The input's {_callstack.Count:N0} histogram(s) count callstacks, not the values of "
                                    + $"a field or action: bucket them with xeanalyze stacks <input>."
                            ),
                            string.Empty
                        )
                        : new MissingData(
                            MissingDataKind.TargetData,
                            ["histogram target"],
                            "The input holds no histogram target (saved target data of package0.histogram).",
                            SessionChange
                        );
            }

            return new HistogramAnalysisResult
            {
                Histograms = tables.AsReadOnly(),
                CallstackHistograms = _callstack.Count,
                SlotsLeftOut = _leftOut,
                MissingData = missing,
                Warnings = AnalysisSupport.Warnings(
                    _leftOut > 0
                        ? new AnalysisWarning(
                            AnalysisWarningKind.LimitReached,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"more than {o.MaxSlots:N0} slots (HistogramAnalysisOptions.MaxSlots): {_leftOut:N0} "
                                    + $"further slot(s) were counted but not shown"
                            )
                        )
                        {
                            Limit = "HistogramAnalysisOptions.MaxSlots",
                            LimitValue = o.MaxSlots,
                            EventsLeftOut = _leftOut,
                        }
                        : null,
                    _outOfRange.Warning("histogram slot(s)")
                ),
            };
        }

        private static HistogramTable Table(
            HistogramTarget target,
            string name,
            List<(string Value, long Count)> slots,
            MapValueTable? map,
            string? mapName,
            (string Name, FieldUnit? Unit)? source
        )
        {
            long total = slots.Sum(s => s.Count);

            var notes = new List<string>();
            bool useMap = map is not null && mapName is not null && target.ValuesAreIntegers;
            long unknownKeys = 0;
            var rows = new HistogramRow[slots.Count];
            for (int i = 0; i < rows.Length; i++)
            {
                (string value, long count) = slots[i];
                string? text = null;
                if (useMap && ulong.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out ulong key))
                {
                    text = map!.GetText(mapName!, key);
                    if (text is null)
                    {
                        unknownKeys++;
                    }
                }

                rows[i] = new HistogramRow(value, text, count, total == 0 ? 0 : (double)count / total);
            }

            Array.Sort(
                rows,
                (a, b) =>
                {
                    int c = b.Count.CompareTo(a.Count);
                    return c != 0 ? c : string.CompareOrdinal(a.Value, b.Value);
                }
            );

            if (useMap && unknownKeys > 0)
            {
                notes.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{unknownKeys:N0} key(s) are not in map {mapName} of {map!.FilePath ?? "the map values"}: "
                            + $"map keys change between builds; take sys.dm_xe_map_values from the build that was "
                            + $"captured."
                    )
                );
            }
            else if (target.ValuesAreIntegers && !useMap && source?.Unit is null)
            {
                notes.Add(
                    "The values are numbers. When the histogram's source is a map field (wait_type, class, mode, …) "
                        + "they are map keys, which change between builds: "
                        + "save select name, map_key, map_value from sys.dm_xe_map_values (on the captured build) as a "
                        + "tab-separated file and give it with --map-values FILE (and --map NAME, e.g. wait_types)."
                        + (
                            source is null
                                ? " When it is a duration field, name it (--source EVENT.FIELD, e.g. "
                                    + "sqlos.wait_info.duration) for the values' unit: the target XML does not name it."
                                : string.Empty
                        )
                );
            }

            if (target.SlotsReachedBuckets)
            {
                notes.Add(
                    "Every slot is in use (the slot count reached buckets): SQL Server may have counted different "
                        + "values in one slot without saying so; give the histogram more slots than the square of the "
                        + "expected distinct values."
                );
            }

            if (target.Truncated)
            {
                notes.Add("The target says truncated=\"1\": the server left data out of the XML.");
            }

            if (target.SlotsOfOtherKind > 0)
            {
                notes.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{target.SlotsOfOtherKind:N0} slot value(s) look like callstack frames; they are shown as "
                            + $"written."
                    )
                );
            }

            return new HistogramTable(
                target,
                name,
                Array.AsReadOnly(rows),
                total,
                useMap ? mapName : null,
                notes.AsReadOnly(),
                source
            );
        }

        private const string SessionChange =
            "ALTER EVENT SESSION [your_session] ON SERVER ADD TARGET package0.histogram\n"
            + "    (SET filtering_event_name = N'sqlos.page_freed', source_type = 0, source = N'memory_clerk_name');  "
            + "-- source_type 0: an event field, 1: an action";
    }
}

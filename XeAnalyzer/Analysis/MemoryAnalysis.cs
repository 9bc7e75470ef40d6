using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>Options of <see cref="MemoryAnalysis"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class MemoryAnalysisOptions
{
    /// <summary>The defaults: page count in <c>number_pages</c>, no per-clerk totals, default reorder window.</summary>
    public static MemoryAnalysisOptions Default { get; } = new();

    /// <summary>
    /// The field holding the number of pages an event allocates or frees. Default <c>number_pages</c>: the name is not
    /// verified on real SQL Server builds (XE-TEXT-SHAPES.md §12); when the events lack it the result is
    /// <see cref="MissingData"/> listing the fields they have.
    /// </summary>
    public string PagesField
    {
        get;
        init =>
            field = !string.IsNullOrWhiteSpace(value)
                ? value.Trim()
                : throw new ArgumentException("The pages field name is empty.", nameof(value));
    } = "number_pages";

    /// <summary>Whether to keep running totals per memory clerk (the <c>memory_clerk_name</c> field).</summary>
    public bool ByClerk { get; init; }

    /// <summary>The reorder window that puts events in (timestamp, event_sequence) order before the running
    /// totals.</summary>
    internal ReorderOptions Reorder { get; init; } = ReorderOptions.Default;

    /// <summary>Time buckets of each reduced series (16 to 1,000,000; default 2,048; four points each).</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 16..1,000,000.</exception>
    public int SeriesBuckets
    {
        get;
        init =>
            field = value is >= 16 and <= 1_000_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "SeriesBuckets must be 16..1,000,000.");
    } = 2048;

    /// <summary>Sessions (and clerks) that get a reduced series of their own: the first this many seen (0 to 10,000;
    /// default 64). Totals and peaks are kept for all.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 0..10,000.</exception>
    public int MaxSeriesPerGroup
    {
        get;
        init =>
            field = value is >= 0 and <= 10_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxSeriesPerGroup must be 0..10,000.");
    } = 64;
}

/// <summary>One step of the running total, in time order (for writing the full series while the analysis
/// streams).</summary>
/// <param name="Time">The event time (UTC).</param>
/// <param name="EventSequence">The event's <c>package0.event_sequence</c>, or <see langword="null"/>.</param>
/// <param name="IsAllocation">Whether the event is <c>page_allocated</c> (else <c>page_freed</c>).</param>
/// <param name="Pages">The event's page count.</param>
/// <param name="SessionId">The <c>sqlserver.session_id</c> action, or <see langword="null"/>.</param>
/// <param name="Clerk">The memory clerk (with <see cref="MemoryAnalysisOptions.ByClerk"/>), or
/// <see langword="null"/>.</param>
/// <param name="SessionTotal">The session's running total after the event (the overall total when there is no
/// session).</param>
/// <param name="Total">The overall running total after the event.</param>
internal readonly record struct MemoryPoint(
    DateTime Time,
    ulong? EventSequence,
    bool IsAllocation,
    long Pages,
    long? SessionId,
    string? Clerk,
    long SessionTotal,
    long Total
);

/// <summary>
/// Pages currently allocated over time from <c>page_allocated</c>/<c>page_freed</c> events (the seed question: does
/// memory rise and fall per rowgroup, and how much is returned?): a running total (allocations add, frees subtract) in
/// (timestamp, <c>event_sequence</c>) order, overall, per session and optionally per memory clerk, with peaks, totals
/// in pages and bytes (8 KB a page), and the distribution of pages per event.
/// </summary>
/// <remarks>
/// <para>Reads <c>page_allocated</c> and <c>page_freed</c> (any package; SQL Server's are <c>sqlos.*</c>). Running
/// totals start at 0 at the first event: pages allocated before the capture are unknown, so a total can go below 0.
/// Events pass through a bounded
/// <see cref="ReorderBuffer{T}"/>; series are reduced on the fly by <see cref="PeakPreservingSeries"/>, so memory does
/// not grow with the capture. Use the point callback of
/// <see cref="Analyze(IEnumerable{XEvent}, Action{MemoryPoint}?, CancellationToken)"/> to write every step.</para>
/// </remarks>
public sealed class MemoryAnalysis : ICaptureAnalysis
{
    /// <summary>Bytes per page (SQL Server pages are 8 KB).</summary>
    public const int PageSize = 8192;

    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="MemoryAnalysisOptions.Default"/>.</param>
    public MemoryAnalysis(MemoryAnalysisOptions? options = null)
        : this(options, null) { }

    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="MemoryAnalysisOptions.Default"/>.</param>
    /// <param name="onPoint">
    /// Called for each allocation or free of a run started by <see cref="Start"/>, in (timestamp, event_sequence) order
    /// (for example to write the series); <see langword="null"/> for none.
    /// </param>
    internal MemoryAnalysis(MemoryAnalysisOptions? options, Action<MemoryPoint>? onPoint)
    {
        Options = options ?? MemoryAnalysisOptions.Default;
        _onPoint = onPoint;
    }

    private readonly Action<MemoryPoint>? _onPoint;

    /// <summary>The events this analysis reads (short names), for the reader's name filter.</summary>
    public static IReadOnlyList<string> EventNames { get; } = ["page_allocated", "page_freed"];

    /// <summary>The options.</summary>
    public MemoryAnalysisOptions Options { get; }

    /// <inheritdoc/>
    IReadOnlyCollection<string>? ICaptureAnalysis.EventNames => EventNames;

    /// <inheritdoc/>
    public IAnalysisRun Start(AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new State(Options, _onPoint, context);
    }

    /// <summary>Reads the inputs once and runs the analysis over them.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="context">The filter and diagnostics; <see langword="null"/> for no filter.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The outcome: the result, its status and the explanation of missing data.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public AnalysisOutcome<MemoryAnalysisResult> Analyze(
        CaptureSource source,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    ) => AnalysisOutcome.Run<MemoryAnalysisResult>(source, this, context, cancellationToken);

    /// <summary>Runs the analysis.</summary>
    /// <param name="events">The events (any order; other events are ignored).</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <returns>The result.</returns>
    public MemoryAnalysisResult Analyze(IEnumerable<XEvent> events, CancellationToken cancellationToken = default) =>
        Analyze(events, null, cancellationToken);

    /// <summary>Runs the analysis, reporting every step of the running total in time order.</summary>
    /// <param name="events">The events (any order; other events are ignored).</param>
    /// <param name="onPoint">Called for each allocation or free, in (timestamp, event_sequence) order;
    /// <see langword="null"/> for none.</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <returns>The result.</returns>
    internal MemoryAnalysisResult Analyze(
        IEnumerable<XEvent> events,
        Action<MemoryPoint>? onPoint,
        CancellationToken cancellationToken = default
    ) => new State(Options, onPoint, new AnalysisContext()).Analyze(events, cancellationToken);

    /// <summary>Whether <paramref name="pages"/> is one plus a power of two (2, 3, 5, 9, 17, …).</summary>
    /// <param name="pages">A page count.</param>
    /// <returns>Whether it is 1 + 2^k for some k ≥ 0.</returns>
    public static bool IsOnePlusPowerOfTwo(long pages) => pages >= 2 && BitOperations.IsPow2(pages - 1);

    private sealed class FieldLayout
    {
        public int Sign; // +1 allocated, -1 freed, 0 other
        public int Pages = -1;
        public int Clerk = -1;
        public XeEventType? Type;
    }

    // Held by the reorder window (up to its cap of records): the kind is folded into the page count (an allocation
    // keeps it, a free stores its complement, always negative; page counts are never negative), so a record takes 16
    // bytes instead of 24.
    private readonly struct Record(bool alloc, long pages, int session, int clerk)
    {
        private readonly long _pagesOrComplement = alloc ? pages : ~pages;

        public int Session { get; } = session; // -1 none (session ids are 16-bit)

        public int Clerk { get; } = clerk; // -1 none

        public bool Alloc => _pagesOrComplement >= 0;

        public long Pages => _pagesOrComplement >= 0 ? _pagesOrComplement : ~_pagesOrComplement;

        public long Delta => _pagesOrComplement >= 0 ? _pagesOrComplement : -~_pagesOrComplement;
    }

    private sealed class Group
    {
        public long AllocEvents;
        public long FreeEvents;
        public long PagesAllocated;
        public long PagesFreed;
        public long Total;
        public long Peak;
        public long PeakTicks = -1;
        public PeakPreservingSeries? Series;
    }

    /// <summary>One run: the running totals, the reorder window and the reduced series.</summary>
    private sealed class State : AnalysisRun<MemoryAnalysisResult>
    {
        private readonly MemoryAnalysisOptions _options;
        private readonly Action<MemoryPoint>? _onPoint;
        private readonly ReferenceCache<XeEventType, FieldLayout> _fields;
        private readonly ReferenceCache<XeActionSet, int> _session = new(s =>
            LatchAnalysis.NumericAction(s, "session_id")
        );
        private readonly ReorderBuffer<Record> _reorder;
        private readonly NameTable _clerks = new(10_000);
        private readonly Dictionary<int, Group> _sessions = [];

        // Sessions below DenseSessions by id (null = look in _sessions), so the usual small session ids need no
        // dictionary lookup.
        private const int DenseSessions = 4096;
        private Group?[] _denseSessions = new Group?[64];
        private readonly List<Group> _clerkGroups = [];
        private readonly Dictionary<long, long> _pageCounts = [];
        private readonly IgnoredEvents _ignored = new();
        private readonly PeakPreservingSeries _series;
        private XeEventType? _missingPages;
        private XeEventType? _missingClerk;
        private long _allocEvents;
        private long _freeEvents;
        private readonly ValuesOutOfRange _outOfRange = new();
        private WeightTotal _pagesAllocated;
        private WeightTotal _pagesFreed;
        private long _onePlusPow2;
        private long _exactlyOne;
        private long _otherPageCounts;
        private long _withoutSession;
        private long _untrackedSessions;
        private long _total;
        private long _peak;
        private long _peakTicks = -1;
        private long _min;
        private long _minTicks = -1;
        private long _firstTicks = long.MaxValue;
        private long _lastTicks = long.MinValue;
        private int _sessionSeries;
        private int _clerkSeries;

        public State(MemoryAnalysisOptions options, Action<MemoryPoint>? onPoint, AnalysisContext context)
            : base(context)
        {
            _options = options;
            _onPoint = onPoint;
            _fields = new ReferenceCache<XeEventType, FieldLayout>(Resolve);
            _reorder = new ReorderBuffer<Record>(options.Reorder);
            _series = new PeakPreservingSeries(options.SeriesBuckets);
        }

        public override bool Accepts(XeEventType eventType, XeActionSet actions) =>
            AnalysisSupport.NameIn(EventNames, eventType);

        public override void Add(XEvent e)
        {
            FieldLayout f = _fields.Get(e.EventType);
            if (f.Sign == 0)
            {
                _ignored.Add(e);
                return;
            }

            if (f.Pages < 0)
            {
                _missingPages ??= f.Type;
                return;
            }

            // Every page count is part of the run's allocated or freed total: an event that would carry one past the
            // range is left out and counted, so no running total, session or clerk sum can pass it.
            XeValue pv = e.GetField(f.Pages);
            ulong count = XeBaseTypes.IsSigned(pv.BaseType) ? (ulong)Math.Max(0, pv.AsInt64()) : pv.AsUInt64();
            if (!(f.Sign > 0 ? _pagesAllocated : _pagesFreed).Fits(count))
            {
                _outOfRange.Add(ValuesOutOfRange.Describe(e, _options.PagesField, count));
                return;
            }

            long pages = (long)count;
            int clerk = -1;
            if (_options.ByClerk)
            {
                if (f.Clerk >= 0)
                {
                    clerk = _clerks.Intern(e.GetField(f.Clerk));
                    while (_clerkGroups.Count <= clerk)
                    {
                        _clerkGroups.Add(new Group());
                    }
                }
                else
                {
                    _missingClerk ??= f.Type;
                }
            }

            int si = _session.Get(e.ActionSet);
            int session = si >= 0 ? (int)Math.Min(int.MaxValue, e.GetAction(si).AsUInt64()) : -1;
            if (session < 0)
            {
                _withoutSession++;
            }

            if (f.Sign > 0)
            {
                _allocEvents++;
                _pagesAllocated.Add(count);
            }
            else
            {
                _freeEvents++;
                _pagesFreed.Add(count);
            }

            if (pages == 1)
            {
                _exactlyOne++;
            }
            else if (IsOnePlusPowerOfTwo(pages))
            {
                _onePlusPow2++;
            }

            ref long c = ref CollectionsMarshal.GetValueRefOrNullRef(_pageCounts, pages);
            if (!Unsafe.IsNullRef(ref c))
            {
                c++;
            }
            else if (_pageCounts.Count < 65_536)
            {
                _pageCounts.Add(pages, 1);
            }
            else
            {
                _otherPageCounts++;
            }

            _reorder.Add(e.Timestamp, e.EventSequence, new Record(f.Sign > 0, pages, session, clerk));
            Drain();
        }

        protected override MemoryAnalysisResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            _reorder.Complete();
            Drain();
            MissingData? missing = null;
            long events = _allocEvents + _freeEvents;
            if (_missingPages is XeEventType mt)
            {
                string[] fields = [.. mt.Fields.Select(c => c.Name + " (" + c.TypeName + ")")];
                missing = new MissingData(
                    MissingDataKind.Field,
                    [_options.PagesField],
                    mt.FullName
                        + " has no numeric field '"
                        + _options.PagesField
                        + "' holding the page count (the field name is not verified on real builds). Its fields are: "
                        + (fields.Length == 0 ? "(none)" : string.Join(", ", fields))
                        + ". Name the page-count field with --pages-field NAME.",
                    "-- The event's columns on your build (pick the page count one and pass it with "
                        + "--pages-field):\nSELECT name, type_name FROM sys.dm_xe_object_columns\n WHERE object_name "
                        + "IN "
                        + "(N'page_allocated', N'page_freed') AND column_type = N'data';",
                    availableFields: mt.Fields.Select(c => c.Name)
                );
            }
            else if (events == 0)
            {
                missing = new MissingData(
                    MissingDataKind.Events,
                    ["sqlos.page_allocated", "sqlos.page_freed"],
                    "No page_allocated or page_freed events were found; the memory analysis keeps a running total of "
                        + "pages allocated minus pages freed.",
                    "ALTER EVENT SESSION [your_session] ON SERVER\n    ADD EVENT sqlos.page_allocated (ACTION "
                        + "(sqlserver.session_id, package0.event_sequence)),\n    ADD EVENT sqlos.page_freed (ACTION "
                        + "(sqlserver.session_id, package0.event_sequence));",
                    eventsSeen: _ignored.ToList()
                );
            }
            else if (_missingClerk is XeEventType ct)
            {
                missing = new MissingData(
                    MissingDataKind.Field,
                    ["memory_clerk_name"],
                    ct.FullName
                        + " has no memory_clerk_name field, needed for per-clerk totals. Its fields are: "
                        + string.Join(", ", ct.Fields.Select(c => c.Name))
                        + ".",
                    "-- The event's columns on your build:\nSELECT name, type_name FROM sys.dm_xe_object_columns\n "
                        + "WHERE object_name IN (N'page_allocated', N'page_freed') AND column_type = N'data';",
                    availableFields: ct.Fields.Select(c => c.Name)
                );
            }

            DateTime? T(long ticks) => ticks >= 0 ? new DateTime(ticks, DateTimeKind.Utc) : null;
            GroupMemory ToGroup(string key, Group g) =>
                new(key, g.AllocEvents, g.FreeEvents, g.PagesAllocated, g.PagesFreed, g.Total, g.Peak, T(g.PeakTicks));

            GroupMemory[] sessions =
            [
                .. _sessions
                    .Select(kv => (kv.Key, G: kv.Value))
                    .OrderByDescending(x => x.G.Peak)
                    .ThenBy(x => x.Key)
                    .Select(x => ToGroup(x.Key.ToString(AnalysisSupport.Ic), x.G)),
            ];
            GroupMemory[] clerks =
            [
                .. Enumerable
                    .Range(0, _clerkGroups.Count)
                    .OrderByDescending(i => _clerkGroups[i].Peak)
                    .ThenBy(i => _clerks[i], StringComparer.Ordinal)
                    .Select(i => ToGroup(_clerks[i], _clerkGroups[i])),
            ];

            long totalEvents = events;
            PageCountFrequency[] top =
            [
                .. _pageCounts
                    .OrderByDescending(kv => kv.Value)
                    .ThenBy(kv => kv.Key)
                    .Take(15)
                    .Select(kv => new PageCountFrequency(
                        kv.Key,
                        kv.Value,
                        totalEvents == 0 ? 0 : (double)kv.Value / totalEvents,
                        IsOnePlusPowerOfTwo(kv.Key)
                    )),
            ];

            var sessionSeries = _sessions
                .Where(kv => kv.Value.Series is not null)
                .OrderByDescending(kv => kv.Value.Peak)
                .ThenBy(kv => kv.Key)
                .Select(kv => new RunningTotalSeries(
                    "session " + kv.Key.ToString(AnalysisSupport.Ic),
                    kv.Value.Series!.ToPoints(),
                    kv.Value.Series!.Count
                ))
                .ToArray();
            var clerkSeries = Enumerable
                .Range(0, _clerkGroups.Count)
                .Where(i => _clerkGroups[i].Series is not null)
                .OrderByDescending(i => _clerkGroups[i].Peak)
                .ThenBy(i => _clerks[i], StringComparer.Ordinal)
                .Select(i => new RunningTotalSeries(
                    _clerks[i],
                    _clerkGroups[i].Series!.ToPoints(),
                    _clerkGroups[i].Series!.Count
                ))
                .ToArray();

            OrderingStatistics ordering = _reorder.GetStatistics();
            return new MemoryAnalysisResult
            {
                MissingData = missing,
                PagesField = _options.PagesField,
                AllocationEvents = _allocEvents,
                FreeEvents = _freeEvents,
                PagesAllocated = _pagesAllocated.Value,
                PagesFreed = _pagesFreed.Value,
                FinalPages = _total,
                PeakPages = _peak,
                PeakTime = T(_peakTicks),
                MinimumPages = _min,
                MinimumTime = T(_minTicks),
                FirstEvent = _firstTicks == long.MaxValue ? null : new DateTime(_firstTicks, DateTimeKind.Utc),
                LastEvent = _lastTicks == long.MinValue ? null : new DateTime(_lastTicks, DateTimeKind.Utc),
                Sessions = sessions,
                EventsWithoutSession = _withoutSession + _untrackedSessions,
                ByClerk = _options.ByClerk,
                Clerks = clerks,
                TopPageCounts = top,
                DistinctPageCounts = _pageCounts.Count,
                EventsWithUncountedPageCounts = _otherPageCounts,
                OnePlusPowerOfTwoShare = totalEvents == 0 ? 0 : (double)_onePlusPow2 / totalEvents,
                ExactlyOneShare = totalEvents == 0 ? 0 : (double)_exactlyOne / totalEvents,
                Total = new RunningTotalSeries("all sessions", _series.ToPoints(), _series.Count),
                SessionSeries = sessionSeries,
                ClerkSeries = clerkSeries,
                Ordering = ordering,
                Warnings = AnalysisSupport.Warnings(
                    AnalysisSupport.LateWarning(ordering),
                    ordering.EventsWithoutSequence > 0
                        ? new AnalysisWarning(
                            AnalysisWarningKind.Note,
                            AnalysisSupport.N0(ordering.EventsWithoutSequence)
                                + " events lack package0.event_sequence: ties on timestamp follow file order (add "
                                + "ACTION (package0.event_sequence) to the session)"
                        )
                        : null,
                    _outOfRange.Warning("page event(s)")
                ),
            };
        }

        private void Drain()
        {
            while (_reorder.TryTake(out Record r, out DateTime t, out ulong? sequence))
            {
                long ticks = t.Ticks;
                _firstTicks = Math.Min(_firstTicks, ticks);
                _lastTicks = Math.Max(_lastTicks, ticks);
                _total += r.Delta;
                if (_peakTicks < 0 || _total > _peak)
                {
                    _peak = _total;
                    _peakTicks = ticks;
                }

                if (_minTicks < 0 || _total < _min)
                {
                    _min = _total;
                    _minTicks = ticks;
                }

                _series.Add(t, _total);
                long sessionTotal = _total;
                if (r.Session >= 0)
                {
                    Group? g = r.Session < _denseSessions.Length ? _denseSessions[r.Session] : null;
                    if (g is null)
                    {
                        g = FindSession(r.Session);
                    }

                    if (g is not null)
                    {
                        Apply(g, r, t);
                        sessionTotal = g.Total;
                    }
                }

                if (r.Clerk >= 0)
                {
                    Group g = _clerkGroups[r.Clerk];
                    if (g.Series is null && g.PeakTicks < 0 && _clerkSeries < _options.MaxSeriesPerGroup)
                    {
                        g.Series = new PeakPreservingSeries(_options.SeriesBuckets);
                        _clerkSeries++;
                    }

                    Apply(g, r, t);
                }

                _onPoint?.Invoke(
                    new MemoryPoint(
                        t,
                        sequence,
                        r.Alloc,
                        r.Pages,
                        r.Session >= 0 ? r.Session : null,
                        r.Clerk >= 0 ? _clerks[r.Clerk] : null,
                        sessionTotal,
                        _total
                    )
                );
            }
        }

        /// <summary>The group of a session (created when new and the cap allows), or <see langword="null"/> when
        /// untracked; small ids are remembered in an array.</summary>
        private Group? FindSession(int session)
        {
            if (!_sessions.TryGetValue(session, out Group? g) && _sessions.Count >= NameTable.MaxGroups)
            {
                _untrackedSessions++;
            }
            else if (g is null)
            {
                g = new Group();
                if (_sessionSeries < _options.MaxSeriesPerGroup)
                {
                    g.Series = new PeakPreservingSeries(_options.SeriesBuckets);
                    _sessionSeries++;
                }

                _sessions.Add(session, g);
            }

            if (g is not null && session < DenseSessions)
            {
                if (session >= _denseSessions.Length)
                {
                    Array.Resize(
                        ref _denseSessions,
                        Math.Min(DenseSessions, Math.Max(session + 1, 2 * _denseSessions.Length))
                    );
                }

                _denseSessions[session] = g;
            }

            return g;
        }

        private static void Apply(Group g, in Record r, DateTime t)
        {
            if (r.Alloc)
            {
                g.AllocEvents++;
                g.PagesAllocated += r.Pages;
            }
            else
            {
                g.FreeEvents++;
                g.PagesFreed += r.Pages;
            }

            g.Total += r.Delta;
            if (g.PeakTicks < 0 || g.Total > g.Peak)
            {
                g.Peak = g.Total;
                g.PeakTicks = t.Ticks;
            }

            g.Series?.Add(t, g.Total);
        }

        private FieldLayout Resolve(XeEventType t)
        {
            var f = new FieldLayout { Type = t };
            if (string.Equals(t.Name, "page_allocated", StringComparison.Ordinal))
            {
                f.Sign = 1;
            }
            else if (string.Equals(t.Name, "page_freed", StringComparison.Ordinal))
            {
                f.Sign = -1;
            }
            else
            {
                return f;
            }

            f.Pages = LatchAnalysis.NumericField(t, _options.PagesField);
            if (f.Pages >= 0 && t.Fields[f.Pages].IsMap)
            {
                f.Pages = -1;
            }

            f.Clerk = t.GetFieldIndex("memory_clerk_name");
            return f;
        }
    }
}

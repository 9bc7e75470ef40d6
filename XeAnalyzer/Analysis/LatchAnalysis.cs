using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>An optional second grouping of latch acquires.</summary>
public enum LatchGrouping
{
    /// <summary>No second grouping.</summary>
    None,

    /// <summary>By worker: the <c>sqlos.worker_address</c> action.</summary>
    Worker,

    /// <summary>By session: the <c>sqlserver.session_id</c> action.</summary>
    Session,
}

/// <summary>Options of <see cref="LatchAnalysis"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class LatchAnalysisOptions
{
    /// <summary>The defaults: no second grouping, 5 % outlier threshold, default reorder window, 1,000,000 pending
    /// acquires.</summary>
    public static LatchAnalysisOptions Default { get; } = new();

    /// <summary>An optional second grouping (by worker or by session).</summary>
    public LatchGrouping GroupBy { get; init; } = LatchGrouping.None;

    /// <summary>
    /// A group (scheduler, worker, session) is an outlier when its count deviates from the median of all groups by at
    /// least this fraction (default 0.05 = 5 %; the seed scenario's busy scheduler got about 10 % fewer acquires).
    /// Between 0 and 10.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 0..10.</exception>
    public double OutlierThreshold
    {
        get;
        init =>
            field = value is >= 0 and <= 10
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(value),
                    value,
                    "The outlier threshold must be between 0 and 10."
                );
    } = 0.05;

    /// <summary>The reorder window that puts acquires and releases in time order before pairing them.</summary>
    internal ReorderOptions Reorder { get; init; } = ReorderOptions.Default;

    /// <summary>The most acquires waiting for their release (1 to 50,000,000; default 1,000,000); beyond it the oldest
    /// is dropped and counted as unpaired.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..50,000,000.</exception>
    public int MaxPendingAcquires
    {
        get;
        init =>
            field = value is >= 1 and <= 50_000_000
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(value),
                    value,
                    "MaxPendingAcquires must be 1..50,000,000."
                );
    } = 1_000_000;
}

/// <summary>
/// Latch acquires per scheduler (the seed question: which scheduler's worker got fewer latches?), per latch class and
/// mode, optionally per worker or session, and latch hold times from <c>latch_acquired</c>/<c>latch_released</c> pairs.
/// </summary>
/// <remarks>
/// <para>Reads <c>latch_acquired</c> and <c>latch_released</c> events (any package; SQL Server's are
/// <c>sqlserver.*</c>, in the Debug channel) and ignores others. Tallies count <c>latch_acquired</c> events: per
/// scheduler by the <c>sqlos.scheduler_id</c> action (no latch event has a scheduler column, so without the action the
/// result is <see cref="MissingData"/>), per class and mode by the <c>class</c> and <c>mode</c> fields' map
/// text.</para>
/// <para>Hold times: events go through a bounded <see cref="ReorderBuffer{T}"/> (per-CPU buffers can deliver a release
/// before its acquire in file order), then each <c>latch_released</c> is paired with the most recent unreleased
/// <c>latch_acquired</c> of the same <c>address</c> field and the same worker: the <c>sqlos.worker_address</c> action,
/// or when an event lacks it the
/// <c>sqlos.system_thread_id</c> action (both events of a pair must use the same one). The hold time is the time
/// between the two events' timestamps, in microseconds (100 ns resolution); when <c>latch_released</c> has a
/// <c>duration</c> field its values are summarised too, in the unit the event reports (unverified). Percentiles come
/// from a <see cref="LogLinearHistogram"/> (within 0.4 %). Acquires never released and releases with no acquire are
/// counted as unpaired.</para>
/// <para>Memory is bounded: the reorder window, the pending acquires
/// (<see cref="LatchAnalysisOptions.MaxPendingAcquires"/>), and one histogram per latch class.</para>
/// </remarks>
public sealed class LatchAnalysis : ICaptureAnalysis
{
    private const ulong NoScheduler = ulong.MaxValue;

    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="LatchAnalysisOptions.Default"/>.</param>
    public LatchAnalysis(LatchAnalysisOptions? options = null)
    {
        Options = options ?? LatchAnalysisOptions.Default;
    }

    /// <summary>The events this analysis reads (short names), for the reader's name filter.</summary>
    public static IReadOnlyList<string> EventNames { get; } = ["latch_acquired", "latch_released"];

    /// <summary>The options.</summary>
    public LatchAnalysisOptions Options { get; }

    /// <inheritdoc/>
    IReadOnlyCollection<string>? ICaptureAnalysis.EventNames => EventNames;

    /// <inheritdoc/>
    public IAnalysisRun Start(AnalysisContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return new State(Options, context);
    }

    /// <summary>Reads the inputs once and runs the analysis over them.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="context">The filter and diagnostics; <see langword="null"/> for no filter.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The outcome: the result, its status and the explanation of missing data.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public AnalysisOutcome<LatchAnalysisResult> Analyze(
        CaptureSource source,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    ) => AnalysisOutcome.Run<LatchAnalysisResult>(source, this, context, cancellationToken);

    /// <summary>Runs the analysis over a stream of events.</summary>
    /// <param name="events">The events (any order; other events are ignored).</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <returns>The result; <see cref="LatchAnalysisResult.MissingData"/> says when the capture lacks what is
    /// needed.</returns>
    public LatchAnalysisResult Analyze(IEnumerable<XEvent> events, CancellationToken cancellationToken = default) =>
        new State(Options, new AnalysisContext()).Analyze(events, cancellationToken);

    private sealed class FieldLayout
    {
        public int Kind; // 0 other, 1 acquire, 2 release
        public int Class = -1;
        public int Mode = -1;
        public int Address = -1;
        public int Duration = -1;
        public string FullName = string.Empty;
    }

    private sealed class ActionLayout
    {
        public int Scheduler = -1;
        public int Worker = -1;
        public int Thread = -1;
        public int Session = -1;
        public IReadOnlyList<XeColumn> Columns = [];
        public bool CountedOnAcquire;
    }

    // Held by the reorder window (up to its cap of records): the pair key's parts are laid out flat, widest first, so a
    // record takes 32 bytes instead of 40.
    private struct Record
    {
        public ulong Address;
        public ulong Worker;
        public long Duration; // -1 when the release has no duration field
        public int Class;
        public byte WorkerKind;
        public bool Release;

        public Record(bool release, int cls, PairKey key, long duration)
        {
            Address = key.Address;
            Worker = key.Worker;
            WorkerKind = key.WorkerKind;
            Release = release;
            Class = cls;
            Duration = duration;
        }

        public readonly PairKey Key => new(Address, Worker, WorkerKind);
    }

    private sealed class ClassStats
    {
        public long Acquires;
        public long Releases;
        public long UnpairedAcquires;
        public long UnpairedReleases;
        public LogLinearHistogram Elapsed { get; } = new();

        public LogLinearHistogram? DurationField { get; set; }
    }

    /// <summary>One run: the tallies, the reorder window and the pending acquires.</summary>
    private sealed class State : AnalysisRun<LatchAnalysisResult>
    {
        private readonly LatchAnalysisOptions _options;
        private readonly ReferenceCache<XeEventType, FieldLayout> _fields;
        private readonly ReferenceCache<XeActionSet, ActionLayout> _actions = new(ResolveActions);
        private readonly NameTable _classes = new();
        private readonly NameTable _modes = new();
        private readonly List<ClassStats> _classStats = [];
        private readonly List<long> _modeCounts = [];
        private readonly Dictionary<ulong, long> _schedulers = [];
        private readonly Dictionary<ulong, long> _groups = [];
        private readonly ReorderBuffer<Record> _reorder;
        private readonly PendingAcquires _pending;
        private readonly IgnoredEvents _ignored = new();
        private readonly ValuesOutOfRange _outOfRange = new();
        private readonly FieldUnitsSeen _durationUnits = new("latch_released", "duration");
        private readonly HashSet<string> _acquireActions = new(StringComparer.Ordinal);
        private string _acquireName = "sqlserver.latch_acquired";
        private long _acquired;
        private long _released;
        private long _withoutScheduler;
        private long _withoutGroup;
        private long _acquiresWithoutKey;
        private long _releasesWithoutKey;
        private long _paired;
        private bool _anyWorkerAddress;
        private bool _anyThreadId;
        private bool _anyAddress = true;

        public State(LatchAnalysisOptions options, AnalysisContext context)
            : base(context)
        {
            _options = options;
            _fields = new ReferenceCache<XeEventType, FieldLayout>(t =>
            {
                FieldLayout f = ResolveFields(t);
                if (f.Duration >= 0)
                {
                    _durationUnits.Add(t);
                }

                return f;
            });
            _reorder = new ReorderBuffer<Record>(options.Reorder);
            _pending = new PendingAcquires(options.MaxPendingAcquires);
            _pending.OnEvicted = c => _classStats[c].UnpairedAcquires++;
        }

        public override bool Accepts(XeEventType eventType, XeActionSet actions) =>
            AnalysisSupport.NameIn(EventNames, eventType);

        public override void Add(XEvent e)
        {
            FieldLayout f = _fields.Get(e.EventType);
            if (f.Kind == 0)
            {
                _ignored.Add(e);
                return;
            }

            ActionLayout a = _actions.Get(e.ActionSet);
            int cls = f.Class >= 0 ? _classes.Intern(e.GetField(f.Class)) : _classes.Intern("(no class field)");
            while (_classStats.Count <= cls)
            {
                _classStats.Add(new ClassStats());
            }

            PairKey key = default;
            bool hasKey = false;
            if (f.Address >= 0)
            {
                ulong address = e.GetField(f.Address).AsUInt64();
                if (a.Worker >= 0)
                {
                    key = new PairKey(address, e.GetAction(a.Worker).AsUInt64(), 1);
                    hasKey = true;
                    _anyWorkerAddress = true;
                }
                else if (a.Thread >= 0)
                {
                    key = new PairKey(address, e.GetAction(a.Thread).AsUInt64(), 2);
                    hasKey = true;
                    _anyThreadId = true;
                }
            }
            else
            {
                _anyAddress = false;
            }

            if (f.Kind == 1)
            {
                _acquired++;
                _acquireName = f.FullName;
                if (!a.CountedOnAcquire)
                {
                    // Once per action set (the set of names is the same for every event carrying it).
                    if (_acquireActions.Count < 64)
                    {
                        foreach (XeColumn c in a.Columns)
                        {
                            _acquireActions.Add(c.FullName);
                        }

                        a.CountedOnAcquire = true;
                    }
                }

                _classStats[cls].Acquires++;
                int mode = f.Mode >= 0 ? _modes.Intern(e.GetField(f.Mode)) : _modes.Intern("(no mode field)");
                while (_modeCounts.Count <= mode)
                {
                    _modeCounts.Add(0);
                }

                _modeCounts[mode]++;
                if (a.Scheduler >= 0)
                {
                    ulong s = e.GetAction(a.Scheduler).AsUInt64();
                    ref long sc = ref CollectionsMarshal.GetValueRefOrNullRef(_schedulers, s);
                    if (!Unsafe.IsNullRef(ref sc))
                    {
                        sc++;
                    }
                    else if (_schedulers.Count < NameTable.MaxGroups)
                    {
                        _schedulers.Add(s, 1);
                    }
                    else
                    {
                        _withoutScheduler++;
                    }
                }
                else
                {
                    _withoutScheduler++;
                }

                if (_options.GroupBy != LatchGrouping.None)
                {
                    int g = _options.GroupBy == LatchGrouping.Worker ? a.Worker : a.Session;
                    if (g >= 0)
                    {
                        ulong gk = e.GetAction(g).AsUInt64();
                        if (_groups.TryGetValue(gk, out long c))
                        {
                            _groups[gk] = c + 1;
                        }
                        else if (_groups.Count < NameTable.MaxGroups)
                        {
                            _groups.Add(gk, 1);
                        }
                        else
                        {
                            _withoutGroup++;
                        }
                    }
                    else
                    {
                        _withoutGroup++;
                    }
                }

                if (!hasKey)
                {
                    _acquiresWithoutKey++;
                    return;
                }

                _reorder.Add(e.Timestamp, e.EventSequence, new Record(false, cls, key, -1));
            }
            else
            {
                long duration = -1;
                if (f.Duration >= 0)
                {
                    ulong d = e.GetField(f.Duration).AsUInt64();
                    if (d > long.MaxValue)
                    {
                        _outOfRange.Add(ValuesOutOfRange.Describe(e, "duration", d));
                        return;
                    }

                    duration = (long)d;
                }

                _released++;
                _classStats[cls].Releases++;
                if (!hasKey)
                {
                    _releasesWithoutKey++;
                    return;
                }

                _reorder.Add(e.Timestamp, e.EventSequence, new Record(true, cls, key, duration));
            }

            Drain();
        }

        protected override LatchAnalysisResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            _reorder.Complete();
            Drain();
            bool pairing = _released > 0;
            if (pairing)
            {
                foreach (int cls in _pending.Remaining())
                {
                    _classStats[cls].UnpairedAcquires++;
                }
            }

            MissingData? missing = null;
            if (_acquired == 0)
            {
                missing = new MissingData(
                    MissingDataKind.Events,
                    ["sqlserver.latch_acquired"],
                    _released > 0
                        ? "No latch_acquired events were found (only "
                            + AnalysisSupport.N0(_released)
                            + " latch_released events); the latch analysis counts latch_acquired events."
                        : "No latch_acquired events were found; the latch analysis counts latch_acquired events per "
                            + "scheduler (a Debug-channel event).",
                    MissingData.AlterSession(
                        "sqlserver.latch_acquired",
                        [
                            "sqlos.scheduler_id",
                            "sqlos.worker_address",
                            "sqlserver.session_id",
                            "package0.event_sequence",
                        ],
                        "([class] = N'NESTING_TRANSACTION_FULL')",
                        dropFirst: false
                    ),
                    eventsSeen: _ignored.ToList()
                );
            }
            else if (_schedulers.Count == 0)
            {
                missing = MissingAction(
                    "sqlos.scheduler_id",
                    "no latch_acquired event carries the sqlos.scheduler_id action, so acquires cannot be counted "
                        + "per scheduler (no latch event has a scheduler column)"
                );
            }
            else if (_options.GroupBy != LatchGrouping.None && _groups.Count == 0)
            {
                string action =
                    _options.GroupBy == LatchGrouping.Worker ? "sqlos.worker_address" : "sqlserver.session_id";
                missing = MissingAction(
                    action,
                    "no latch_acquired event carries the "
                        + action
                        + " action needed for --by "
                        + (_options.GroupBy == LatchGrouping.Worker ? "worker" : "session")
                );
            }

            var schedulerCounts = _schedulers
                .OrderBy(kv => kv.Key)
                .Select(kv => (kv.Key.ToString(AnalysisSupport.Ic), kv.Value));
            IReadOnlyList<GroupTally> schedulers = AnalysisSupport.Groups(schedulerCounts, _options.OutlierThreshold);
            IReadOnlyList<GroupTally> groups =
                _options.GroupBy == LatchGrouping.None
                    ? []
                    : AnalysisSupport.Groups(
                        _groups
                            .OrderBy(kv => kv.Key)
                            .Select(kv =>
                                (
                                    _options.GroupBy == LatchGrouping.Worker
                                        ? AnalysisSupport.Hex(kv.Key)
                                        : kv.Key.ToString(AnalysisSupport.Ic),
                                    kv.Value
                                )
                            ),
                        _options.OutlierThreshold
                    );

            IReadOnlyList<CategoryTally> classes = AnalysisSupport.Categories(
                Enumerable.Range(0, _classStats.Count).Select(i => (_classes[i], _classStats[i].Acquires))
            );
            IReadOnlyList<CategoryTally> modes = AnalysisSupport.Categories(
                Enumerable.Range(0, _modeCounts.Count).Select(i => (_modes[i], _modeCounts[i]))
            );

            var hold = new List<LatchHoldTimes>();
            string? holdNote = null;
            if (!pairing)
            {
                holdNote =
                    "No latch_released events: hold times need latch_released events captured with latch_acquired "
                    + "(same session, same worker action).";
            }
            else if (!_anyAddress)
            {
                holdNote = "The latch events have no address field: acquires and releases cannot be paired.";
            }
            else if (!_anyWorkerAddress && !_anyThreadId)
            {
                holdNote =
                    "The latch events carry neither sqlos.worker_address nor sqlos.system_thread_id: acquires and "
                    + "releases cannot be paired. Add ACTION (sqlos.worker_address) to both events.";
            }
            else
            {
                for (int i = 0; i < _classStats.Count; i++)
                {
                    ClassStats c = _classStats[i];
                    if (c.Elapsed.Count == 0 && c.UnpairedAcquires == 0 && c.UnpairedReleases == 0)
                    {
                        continue;
                    }

                    hold.Add(
                        new LatchHoldTimes(
                            _classes[i],
                            c.Elapsed.Summarize(0.1),
                            c.DurationField?.Summarize(),
                            c.UnpairedAcquires,
                            c.UnpairedReleases
                        )
                    );
                }

                hold.Sort(
                    (x, y) =>
                        y.Elapsed.Count != x.Elapsed.Count
                            ? y.Elapsed.Count.CompareTo(x.Elapsed.Count)
                            : string.CompareOrdinal(x.LatchClass, y.LatchClass)
                );
            }

            OrderingStatistics ordering = _reorder.GetStatistics();
            return new LatchAnalysisResult
            {
                MissingData = missing,
                AcquiredEvents = _acquired,
                ReleasedEvents = _released,
                AcquiresWithoutScheduler = _withoutScheduler,
                Schedulers = schedulers,
                Classes = classes,
                Modes = modes,
                GroupBy = _options.GroupBy,
                Groups = groups,
                AcquiresWithoutGroup = _withoutGroup,
                HasHoldTimes = pairing && holdNote is null,
                HoldTimes = hold,
                HoldTimeNote = holdNote,
                DurationFieldUnit = _durationUnits.Unit,
                DurationFieldUnitLabel = _durationUnits.Label,
                PairedReleases = _paired,
                UnpairedAcquires = pairing ? _classStats.Sum(c => c.UnpairedAcquires) : 0,
                UnpairedReleases = pairing ? _classStats.Sum(c => c.UnpairedReleases) : 0,
                EvictedAcquires = _pending.Evicted,
                AcquiresWithoutPairingKey = _acquiresWithoutKey,
                ReleasesWithoutPairingKey = _releasesWithoutKey,
                PairingKey = _anyWorkerAddress
                    ? "address field + sqlos.worker_address action"
                    : "address field + sqlos.system_thread_id action",
                Ordering = ordering,
                OutlierThreshold = _options.OutlierThreshold,
                Warnings = AnalysisSupport.Warnings(
                    AnalysisSupport.LateWarning(ordering),
                    _withoutScheduler > 0
                        ? new AnalysisWarning(
                            AnalysisWarningKind.EventsNotUsed,
                            AnalysisSupport.N0(_withoutScheduler)
                                + " latch_acquired events lack sqlos.scheduler_id and are not in the per-scheduler "
                                + "tally"
                        )
                        : null,
                    _outOfRange.Warning("latch_released event(s)")
                ),
            };
        }

        private MissingData MissingAction(string action, string why)
        {
            var actions = new List<string>();
            actions.AddRange(_acquireActions.Order(StringComparer.Ordinal));
            actions.Add(action);
            if (!actions.Contains("package0.event_sequence"))
            {
                actions.Add("package0.event_sequence");
            }

            return new MissingData(
                MissingDataKind.Action,
                [action],
                "The capture lacks what the latch analysis needs: "
                    + why
                    + " ("
                    + AnalysisSupport.N0(_acquired)
                    + " latch_acquired events read). Add the "
                    + action
                    + " action to "
                    + _acquireName
                    + ".",
                MissingData.AlterSession(
                    _acquireName,
                    actions,
                    "([class] = N'NESTING_TRANSACTION_FULL')",
                    dropFirst: true
                ),
                eventsSeen: [new EventNameCount(_acquireName, _acquired)]
            );
        }

        private void Drain()
        {
            while (_reorder.TryTake(out Record r, out DateTime t))
            {
                if (!r.Release)
                {
                    _pending.Add(r.Key, t.Ticks, r.Class);
                    continue;
                }

                ClassStats cs = _classStats[r.Class];
                if (_pending.TryTake(r.Key, out long acquiredAt, out int acquireClass))
                {
                    _paired++;
                    ClassStats target = _classStats[acquireClass];
                    target.Elapsed.Add(Math.Max(0, t.Ticks - acquiredAt));
                    if (r.Duration >= 0)
                    {
                        (target.DurationField ??= new LogLinearHistogram()).Add(r.Duration);
                    }
                }
                else
                {
                    cs.UnpairedReleases++;
                }
            }
        }

        private static FieldLayout ResolveFields(XeEventType t)
        {
            var f = new FieldLayout { FullName = t.FullName };
            if (string.Equals(t.Name, "latch_acquired", StringComparison.Ordinal))
            {
                f.Kind = 1;
            }
            else if (string.Equals(t.Name, "latch_released", StringComparison.Ordinal))
            {
                f.Kind = 2;
            }
            else
            {
                return f;
            }

            f.Class = t.GetFieldIndex("class");
            f.Mode = t.GetFieldIndex("mode");
            f.Address = t.GetFieldIndex("address");
            f.Duration = f.Kind == 2 ? NumericField(t, "duration") : -1;
            if (f.Address >= 0 && !IsNumeric(t.Fields[f.Address]))
            {
                f.Address = -1;
            }

            return f;
        }

        private static ActionLayout ResolveActions(XeActionSet s) =>
            new()
            {
                Scheduler = NumericAction(s, "scheduler_id"),
                Worker = NumericAction(s, "worker_address"),
                Thread = NumericAction(s, "system_thread_id"),
                Session = NumericAction(s, "session_id"),
                Columns = s.Columns,
            };
    }

    internal static bool IsNumeric(XeColumn c) =>
        c.IsMap
        || c.Size is 1 or 2 or 4 or 8
            && !XeBaseTypes.IsText(c.BaseType)
            && c.BaseType is not (XeBaseType.Float32 or XeBaseType.Float64);

    internal static int NumericField(XeEventType t, string name)
    {
        int i = t.GetFieldIndex(name);
        return i >= 0 && IsNumeric(t.Fields[i]) ? i : -1;
    }

    internal static int NumericAction(XeActionSet s, string name)
    {
        int i = s.IndexOf(name);
        return i >= 0 && IsNumeric(s[i]) ? i : -1;
    }
}

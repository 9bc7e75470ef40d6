using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>Options of <see cref="WaitAnalysis"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class WaitAnalysisOptions
{
    /// <summary>The defaults.</summary>
    public static WaitAnalysisOptions Default { get; } = new();

    /// <summary>The reorder window that puts waits in (timestamp, event_sequence) order before pairing and the
    /// preceded-by table.</summary>
    internal ReorderOptions Reorder { get; init; } = ReorderOptions.Default;

    /// <summary>The most workers tracked for pairing and the preceded-by table (1 to 10,000,000; default 262,144);
    /// waits of further workers are counted as untracked.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..10,000,000.</exception>
    public int MaxWorkers
    {
        get;
        init =>
            field = value is >= 1 and <= 10_000_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxWorkers must be 1..10,000,000.");
    } = 262_144;

    /// <summary>
    /// When a wait has no Begin event, its start is its End time minus its <c>duration</c> (whole milliseconds); the
    /// wait that ended on the same worker at most this long after that computed start still counts as the one that
    /// preceded it. Default 1 ms.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public TimeSpan StartTolerance
    {
        get;
        init =>
            field =
                value >= TimeSpan.Zero
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "The tolerance cannot be negative.");
    } = TimeSpan.FromMilliseconds(1);
}

/// <summary>
/// Wait summaries from <c>sqlos.wait_info</c>, <c>sqlos.wait_info_external</c> and <c>sqlos.wait_completed</c>: per
/// wait type (count, total/mean/max <c>duration</c>, total <c>signal_duration</c>), per scheduler, Begin/End pairs per
/// worker, and for each wait type the wait type that ended immediately before it began on the same worker (the seed
/// question: was every PAGEIOLATCH_SH wait right after a PREEMPTIVE_HTTP_REQUEST wait on the same worker?).
/// </summary>
/// <remarks>
/// <para>Durations are in milliseconds, as Extended Events reports them. For wait_info and wait_info_external only End
/// events (<c>opcode</c> map text <c>End</c>, or key 1 when the map has no text) carry durations and count as waits;
/// Begin events (text
/// <c>Begin</c> / key 0) are counted separately and used for pairing. Events without an <c>opcode</c> field
/// (wait_completed) each count as one wait. Per-scheduler totals need the <c>sqlos.scheduler_id</c> action; pairing and
/// the preceded-by table need a worker: the <c>sqlos.worker_address</c> action, or else
/// <c>sqlos.system_thread_id</c>.</para>
/// <para>Waits are put in time order by a bounded <see cref="ReorderBuffer{T}"/>. An End is paired with the most recent
/// unpaired Begin of the same wait type on the same worker. A wait's start is its Begin time when paired, else its End
/// time minus its duration; the wait that "immediately preceded" it is the latest wait on the same worker that ended at
/// or before that start (within <see cref="WaitAnalysisOptions.StartTolerance"/> for computed starts), or none.</para>
/// </remarks>
public sealed class WaitAnalysis : ICaptureAnalysis
{
    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="WaitAnalysisOptions.Default"/>.</param>
    public WaitAnalysis(WaitAnalysisOptions? options = null)
    {
        Options = options ?? WaitAnalysisOptions.Default;
    }

    /// <summary>The events this analysis reads (short names), for the reader's name filter.</summary>
    public static IReadOnlyList<string> EventNames { get; } = ["wait_info", "wait_info_external", "wait_completed"];

    /// <summary>The options.</summary>
    public WaitAnalysisOptions Options { get; }

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
    public AnalysisOutcome<WaitAnalysisResult> Analyze(
        CaptureSource source,
        AnalysisContext? context = null,
        CancellationToken cancellationToken = default
    ) => AnalysisOutcome.Run<WaitAnalysisResult>(source, this, context, cancellationToken);

    /// <summary>Runs the analysis.</summary>
    /// <param name="events">The events (any order; other events are ignored).</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <returns>The result.</returns>
    public WaitAnalysisResult Analyze(IEnumerable<XEvent> events, CancellationToken cancellationToken = default) =>
        new State(Options, new AnalysisContext()).Analyze(events, cancellationToken);

    /// <summary>The wait resources listed per wait type (the rest are summed in one row).</summary>
    public const int TopResourcesPerType = 5;

    private const int OpcodeCacheKeys = 64;

    private sealed class FieldLayout
    {
        public int EventKind = -1; // 0 wait_info, 1 wait_info_external, 2 wait_completed
        public int WaitType = -1;
        public int Opcode = -1;
        public int Duration = -1;
        public int Signal = -1;
        public int Resource = -1;
        public bool ResourceIsPointer;
        public int Result = -1;
        public XeEventType? Type;
    }

    private sealed class ActionLayout
    {
        public int Scheduler = -1;
        public int Worker = -1;
        public int Thread = -1;
    }

    /// <summary>
    /// One run: reads each wait event (its layout, whether it is a Begin, its worker), counts it in the tallies per
    /// wait type and scheduler (<see cref="WaitTallies"/>) and hands it, through the reorder window, to the worker
    /// timeline (<see cref="WaitWorkers"/>).
    /// </summary>
    private sealed class State : AnalysisRun<WaitAnalysisResult>
    {
        private readonly ReferenceCache<XeEventType, FieldLayout> _fields;
        private readonly FieldUnitsSeen _durationUnits = new("wait_info", "duration");
        private readonly FieldUnitsSeen _signalUnits = new("wait_info", "signal_duration");
        private readonly ReferenceCache<XeActionSet, ActionLayout> _actions = new(s => new ActionLayout
        {
            Scheduler = LatchAnalysis.NumericAction(s, "scheduler_id"),
            Worker = LatchAnalysis.NumericAction(s, "worker_address"),
            Thread = LatchAnalysis.NumericAction(s, "system_thread_id"),
        });
        private readonly WaitTallies _tallies = new();
        private readonly WaitWorkers _workers;
        private XeMap? _opcodeMap;
        private readonly byte[] _opcodeKinds = new byte[OpcodeCacheKeys];
        private readonly ReorderBuffer<WaitRecord> _reorder;
        private readonly IgnoredEvents _ignored = new();
        private readonly long[] _eventCounts = new long[3];
        private readonly ValuesOutOfRange _outOfRange = new();
        private WeightTotal _durations;
        private WeightTotal _signals;
        private XeEventType? _missingWaitType;
        private long _withoutWorker;
        private bool _anyWorkerAddress;
        private bool _resourceFieldSeen;

        public State(WaitAnalysisOptions options, AnalysisContext context)
            : base(context)
        {
            _fields = new(t =>
            {
                FieldLayout f = Resolve(t);
                if (f.EventKind >= 0)
                {
                    _durationUnits.Add(t);
                    _signalUnits.Add(t);
                }

                return f;
            });
            _reorder = new ReorderBuffer<WaitRecord>(options.Reorder);
            _workers = new WaitWorkers(options.MaxWorkers, options.StartTolerance.Ticks, _tallies);
        }

        public override bool Accepts(XeEventType eventType, XeActionSet actions) =>
            AnalysisSupport.NameIn(EventNames, eventType);

        public override void Add(XEvent e)
        {
            FieldLayout f = _fields.Get(e.EventType);
            if (f.EventKind < 0)
            {
                _ignored.Add(e);
                return;
            }

            _eventCounts[f.EventKind]++;
            _resourceFieldSeen |= f.Resource >= 0;
            if (f.WaitType < 0)
            {
                _missingWaitType ??= f.Type;
                return;
            }

            int type = _tallies.TypeOf(e.GetField(f.WaitType));
            byte kind = WaitRecord.Completed;
            if (f.Opcode >= 0)
            {
                kind = IsBeginCached(e.GetField(f.Opcode)) ? WaitRecord.Begin : WaitRecord.End;
            }

            ActionLayout a = _actions.Get(e.ActionSet);
            var r = new WaitRecord { Kind = kind, Type = type };
            bool hasWorker = false;
            if (a.Worker >= 0)
            {
                hasWorker = true;
                r.Worker = e.GetAction(a.Worker).AsUInt64();
                r.WorkerKind = 1;
                _anyWorkerAddress = true;
            }
            else if (a.Thread >= 0)
            {
                hasWorker = true;
                r.Worker = e.GetAction(a.Thread).AsUInt64();
                r.WorkerKind = 2;
            }

            if (kind == WaitRecord.Begin)
            {
                _tallies.AddBegin(type);
            }
            else
            {
                // Every duration and signal duration is part of its total over the run: a wait that would carry one
                // past the range is left out and counted, so no per-type or per-scheduler sum can pass it.
                ulong duration = f.Duration >= 0 ? e.GetField(f.Duration).AsUInt64() : 0;
                ulong signal = f.Signal >= 0 ? e.GetField(f.Signal).AsUInt64() : 0;
                if (!_durations.Fits(duration) || !_signals.Fits(signal))
                {
                    _outOfRange.Add(
                        _durations.Fits(duration)
                            ? ValuesOutOfRange.Describe(e, "signal_duration", signal)
                            : ValuesOutOfRange.Describe(e, "duration", duration)
                    );
                    return;
                }

                _durations.Add(duration);
                _signals.Add(signal);
                r.Duration = (long)duration;
                _tallies.AddWait(type, r.Duration);

                // Fields the event's own schema lacks stay n/a (wait_info_external has no signal_duration on real
                // builds).
                if (f.Signal >= 0)
                {
                    _tallies.AddSignal(type, (long)signal);
                }

                if (f.Resource >= 0)
                {
                    _tallies.AddResource(type, e.GetField(f.Resource), f.ResourceIsPointer);
                }

                if (f.Result >= 0)
                {
                    _tallies.AddResult(type, e.GetField(f.Result));
                }

                if (a.Scheduler >= 0)
                {
                    _tallies.AddToScheduler(e.GetAction(a.Scheduler).AsUInt64(), type, r.Duration);
                }
                else
                {
                    _tallies.AddWithoutScheduler();
                }
            }

            if (!hasWorker)
            {
                _withoutWorker++;
            }

            // Every wait goes through the window, so its ordering line counts the events compared in file order; only a
            // wait with a worker joins a worker's timeline (Drain).
            _reorder.Add(e.Timestamp, e.EventSequence, r);
            Drain();
        }

        protected override WaitAnalysisResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            _reorder.Complete();
            Drain();
            _tallies.Complete();
            _workers.Complete();

            MissingData? missing = null;
            long events = _eventCounts.Sum();
            if (_missingWaitType is XeEventType mt)
            {
                missing = new MissingData(
                    MissingDataKind.Field,
                    ["wait_type"],
                    mt.FullName
                        + " has no wait_type field. Its fields are: "
                        + string.Join(", ", mt.Fields.Select(c => c.Name))
                        + ".",
                    "-- The event's columns on your build:\nSELECT name, type_name FROM sys.dm_xe_object_columns\n "
                        + "WHERE object_name = N'"
                        + mt.Name
                        + "' AND column_type = N'data';",
                    availableFields: mt.Fields.Select(c => c.Name)
                );
            }
            else if (events == 0)
            {
                missing = new MissingData(
                    MissingDataKind.Events,
                    ["sqlos.wait_info", "sqlos.wait_info_external", "sqlos.wait_completed"],
                    "No wait_info, wait_info_external or wait_completed events were found; the wait analysis "
                        + "summarises them.",
                    "ALTER EVENT SESSION [your_session] ON SERVER\n    ADD EVENT sqlos.wait_info (ACTION "
                        + "(sqlos.scheduler_id, sqlos.worker_address, package0.event_sequence)),\n    ADD EVENT "
                        + "sqlos.wait_info_external (ACTION (sqlos.scheduler_id, sqlos.worker_address, "
                        + "package0.event_sequence));",
                    eventsSeen: _ignored.ToList()
                );
            }

            int[] order = _tallies.Order();
            string? schedulerNote =
                !_tallies.HasSchedulers
                    ? "No wait event carries the sqlos.scheduler_id action, so there are no per-scheduler totals. Add "
                        + "ACTION (sqlos.scheduler_id) to the wait events."
                : _tallies.WithoutScheduler > 0
                    ? AnalysisSupport.N0(_tallies.WithoutScheduler)
                        + " waits without sqlos.scheduler_id are not in this table."
                : null;

            bool hasWorkers = _workers.Any;
            string? workerNote = hasWorkers
                ? null
                : "No wait event carries sqlos.worker_address (or sqlos.system_thread_id), so waits cannot be followed "
                    + "per worker. Add ACTION (sqlos.worker_address) to the wait events.";
            bool hasPairs = hasWorkers && _tallies.Begins > 0;
            OrderingStatistics ordering = _reorder.GetStatistics();
            string? pairNote =
                workerNote
                ?? (
                    _tallies.Begins == 0
                        ? "The capture has no Begin events (opcode = Begin), only End events: Begin/End pairs need "
                            + "both (the session may filter on opcode = End)."
                        : null
                );
            return new WaitAnalysisResult
            {
                MissingData = missing,
                WaitInfoEvents = _eventCounts[0],
                WaitInfoExternalEvents = _eventCounts[1],
                WaitCompletedEvents = _eventCounts[2],
                Waits = _tallies.Waits,
                Begins = _tallies.Begins,
                ByWaitType = _tallies.ByWaitType(order),
                BySchedulers = _tallies.BySchedulers(),
                SchedulerNote = schedulerNote,
                HasPairs = hasPairs,
                Pairs = hasPairs ? _tallies.Pairs() : [],
                PairNote = pairNote,
                HasPrecedence = hasWorkers,
                PrecededBy = _tallies.PrecededBy(order),
                PrecedenceNote = workerNote,
                WaitsWithoutWorker = _withoutWorker,
                WaitsOfUntrackedWorkers = _workers.Untracked,
                WorkerAction = _anyWorkerAddress ? "sqlos.worker_address" : "sqlos.system_thread_id",
                Ordering = ordering,
                Warnings = AnalysisSupport.Warnings(
                    AnalysisSupport.LateWarning(ordering),
                    _outOfRange.Warning("wait event(s)")
                ),
                TopResources = _tallies.Resources(order),
                Results = _tallies.Results(order),
                HasWaitResource = _resourceFieldSeen,
                DurationUnit = _durationUnits.Unit,
                DurationUnitLabel = _durationUnits.Label,
                SignalUnitLabel = _signalUnits.Label,
            };
        }

        private void Drain()
        {
            while (_reorder.TryTake(out WaitRecord r, out DateTime t))
            {
                if (r.WorkerKind != 0)
                {
                    _workers.Take(r, t.Ticks);
                }
            }
        }

        /// <summary><see cref="IsBegin"/>, remembered per key of the last opcode map (maps are immutable), so no text
        /// is compared per event.</summary>
        private bool IsBeginCached(XeValue opcode)
        {
            if (opcode.Map is XeMap map)
            {
                ulong key = opcode.MapKey;
                if (key < OpcodeCacheKeys)
                {
                    if (!ReferenceEquals(map, _opcodeMap))
                    {
                        _opcodeMap = map;
                        Array.Clear(_opcodeKinds);
                    }

                    byte known = _opcodeKinds[(int)key];
                    if (known == 0)
                    {
                        known = IsBegin(opcode) ? (byte)1 : (byte)2;
                        _opcodeKinds[(int)key] = known;
                    }

                    return known == 1;
                }
            }

            return IsBegin(opcode);
        }

        private static bool IsBegin(XeValue opcode)
        {
            ulong key = opcode.MapKey;
            if (opcode.Map is XeMap map && map.TryGetName(key, out string text))
            {
                return string.Equals(text, "Begin", StringComparison.OrdinalIgnoreCase);
            }

            return key == 0;
        }

        private static FieldLayout Resolve(XeEventType t)
        {
            var f = new FieldLayout { Type = t };
            f.EventKind = t.Name switch
            {
                "wait_info" => 0,
                "wait_info_external" => 1,
                "wait_completed" => 2,
                _ => -1,
            };
            if (f.EventKind < 0)
            {
                return f;
            }

            f.WaitType = t.GetFieldIndex("wait_type");
            f.Opcode = t.GetFieldIndex("opcode");
            if (f.Opcode >= 0 && !LatchAnalysis.IsNumeric(t.Fields[f.Opcode]))
            {
                f.Opcode = -1;
            }

            f.Duration = LatchAnalysis.NumericField(t, "duration");
            f.Signal = LatchAnalysis.NumericField(t, "signal_duration");
            f.Resource = t.GetFieldIndex("wait_resource");
            f.ResourceIsPointer =
                f.Resource >= 0
                && t.Fields[f.Resource]
                    is { IsMap: false, BaseType: XeBaseType.Pointer, Size: 4 or 8, IsVariableLength: false };
            f.Result = t.GetFieldIndex(WaitResults.FieldName);
            return f;
        }
    }
}

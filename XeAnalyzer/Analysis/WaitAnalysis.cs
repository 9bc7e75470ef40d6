using System.Globalization;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>Options of <see cref="WaitAnalysis"/>.</summary>
/// <remarks>Immutable.</remarks>
public sealed class WaitAnalysisOptions
{
    /// <summary>The defaults.</summary>
    public static WaitAnalysisOptions Default { get; } = new();

    /// <summary>The reorder window that puts waits in (timestamp, event_sequence) order before pairing and the preceded-by table.</summary>
    public ReorderOptions Reorder { get; init; } = ReorderOptions.Default;

    /// <summary>The most workers tracked for pairing and the preceded-by table (1 to 10,000,000; default 262,144); waits of further workers are counted as untracked.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..10,000,000.</exception>
    public int MaxWorkers
    {
        get;
        init => field = value is >= 1 and <= 10_000_000 ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxWorkers must be 1..10,000,000.");
    }

    = 262_144;

    /// <summary>
    /// When a wait has no Begin event, its start is its End time minus its <c>duration</c> (whole milliseconds); the wait that
    /// ended on the same worker at most this long after that computed start still counts as the one that preceded it. Default 1 ms.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public TimeSpan StartTolerance
    {
        get;
        init => field = value >= TimeSpan.Zero ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "The tolerance cannot be negative.");
    }

    = TimeSpan.FromMilliseconds(1);
}

/// <summary>
/// Wait summaries from <c>sqlos.wait_info</c>, <c>sqlos.wait_info_external</c> and <c>sqlos.wait_completed</c>: per wait type (count,
/// total/mean/max <c>duration</c>, total <c>signal_duration</c>), per scheduler, Begin/End pairs per worker, and for each wait type
/// the wait type that ended immediately before it began on the same worker (the seed question: was every PAGEIOLATCH_SH wait
/// right after a PREEMPTIVE_HTTP_REQUEST wait on the same worker?).
/// </summary>
/// <remarks>
/// <para>Durations are in milliseconds, as Extended Events reports them. For wait_info and wait_info_external only End events
/// (<c>opcode</c> map text <c>End</c>, or key 1 when the map has no text) carry durations and count as waits; Begin events (text
/// <c>Begin</c> / key 0) are counted separately and used for pairing. Events without an <c>opcode</c> field (wait_completed) each
/// count as one wait. Per-scheduler totals need the <c>sqlos.scheduler_id</c> action; pairing and the preceded-by table need a worker:
/// the <c>sqlos.worker_address</c> action, or else <c>sqlos.system_thread_id</c>.</para>
/// <para>Waits are put in time order by a bounded <see cref="ReorderBuffer{T}"/>. An End is paired with the most recent unpaired
/// Begin of the same wait type on the same worker. A wait's start is its Begin time when paired, else its End time minus its
/// duration; the wait that "immediately preceded" it is the latest wait on the same worker that ended at or before that start
/// (within <see cref="WaitAnalysisOptions.StartTolerance"/> for computed starts), or none.</para>
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
    public AnalysisOutcome<WaitAnalysisResult> Analyze(CaptureSource source, AnalysisContext? context = null, CancellationToken cancellationToken = default) =>
        AnalysisOutcome.Run<WaitAnalysisResult>(source, this, context, cancellationToken);

    /// <summary>Runs the analysis.</summary>
    /// <param name="events">The events (any order; other events are ignored).</param>
    /// <param name="cancellationToken">Checked every 4,096 events.</param>
    /// <returns>The result.</returns>
    public WaitAnalysisResult Analyze(IEnumerable<XEvent> events, CancellationToken cancellationToken = default) =>
        new State(Options, new AnalysisContext()).Analyze(events, cancellationToken);

    /// <summary>The wait resources listed per wait type (the rest are summed in one row).</summary>
    public const int TopResourcesPerType = 5;

    private const byte KindBegin = 0;
    private const byte KindEnd = 1;
    private const byte KindCompleted = 2;
    private const int OpcodeCacheKeys = 64;
    private const int DenseTypes = 64;
    private const int DenseSchedulers = 1024;

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

    // Held by the reorder window (up to its cap of records): widest fields first, so a record takes 24 bytes instead of 40.
    private struct Record
    {
        public ulong Worker;
        public long Duration;
        public int Type;
        public byte Kind;
        public byte WorkerKind;
    }

    private sealed class TypeStats
    {
        public long Waits;
        public long Begins;
        public long TotalDuration;
        public long MaxDuration;
        public long TotalSignal;
        public long SignalEvents;
        public long Pairs;
        public Dictionary<string, long>? Resources;

        /// <summary>
        /// Pointer resources counted by value until a resource of another kind comes (then they move, in order, to <see cref="Resources"/>
        /// under their text, 0x%016X, as they would have been counted): no text is made per event.
        /// </summary>
        public Dictionary<ulong, long>? ResourcePointers;
        public long ResourcesOverflow;
        public Dictionary<string, long>? Results;
        public long EndsWithoutBegin;
        public long BeginsWithoutEnd;
        public Dictionary<int, long> PrecededBy { get; } = [];
    }

    private sealed class SchedulerStats
    {
        public long Waits;
        public long TotalDuration;
        /// <summary>Total duration per wait type id below <see cref="DenseTypes"/> (present when its bit is set in <see cref="DensePresent"/>).</summary>
        public long[] DenseDuration { get; } = new long[DenseTypes];

        public ulong DensePresent;

        /// <summary>Total duration per wait type id of the other types.</summary>
        public Dictionary<int, long> DurationByType { get; } = [];

        /// <summary>The wait types with a total (at most 1,024).</summary>
        public int TypeCount => BitOperations.PopCount(DensePresent) + DurationByType.Count;

        /// <summary>Every (wait type id, total duration).</summary>
        public IEnumerable<KeyValuePair<int, long>> Durations()
        {
            for (int t = 0; t < DenseTypes; t++)
            {
                if ((DensePresent & (1UL << t)) != 0)
                {
                    yield return new KeyValuePair<int, long>(t, DenseDuration[t]);
                }
            }

            foreach (KeyValuePair<int, long> kv in DurationByType)
            {
                yield return kv;
            }
        }
    }

    private sealed class WorkerState
    {
        public const int Ring = 8;
        public readonly int[] EndedType = new int[Ring];
        public readonly long[] EndedTicks = new long[Ring];
        public int EndedCount;
        public int EndedNext;
        public List<(int Type, long Ticks)>? Pending;
    }

    /// <summary>One run: the tallies per wait type and scheduler, the reorder window and the workers.</summary>
    private sealed class State : AnalysisRun<WaitAnalysisResult>
    {
        private readonly WaitAnalysisOptions _options;
        private readonly ReferenceCache<XeEventType, FieldLayout> _fields = new(Resolve);
        private readonly ReferenceCache<XeActionSet, ActionLayout> _actions = new(s => new ActionLayout
        {
            Scheduler = LatchAnalysis.NumericAction(s, "scheduler_id"),
            Worker = LatchAnalysis.NumericAction(s, "worker_address"),
            Thread = LatchAnalysis.NumericAction(s, "system_thread_id"),
        });
        private readonly NameTable _types = new();
        private readonly List<TypeStats> _stats = [];
        private readonly Dictionary<ulong, SchedulerStats> _schedulers = [];

        // Schedulers below DenseSchedulers by id (null = look in _schedulers): scheduler ids are small, so most waits need no dictionary lookup.
        private SchedulerStats?[] _denseSchedulers = new SchedulerStats?[64];
        // Workers by sqlos.worker_address (kind 1) and by sqlos.system_thread_id (kind 2): one dictionary per kind, keyed by the number alone.
        private readonly Dictionary<ulong, WorkerState> _workersByAddress = [];
        private readonly Dictionary<ulong, WorkerState> _workersByThread = [];
        private XeMap? _opcodeMap;
        private readonly byte[] _opcodeKinds = new byte[OpcodeCacheKeys];
        private readonly ReorderBuffer<Record> _reorder;
        private readonly IgnoredEvents _ignored = new();
        private readonly long[] _eventCounts = new long[3];
        private readonly long _tolerance;
        private XeEventType? _missingWaitType;
        private long _begins;
        private long _waits;
        private long _withoutScheduler;
        private long _withoutWorker;
        private long _untrackedWorkers;
        private bool _anyWorkerAddress;
        private bool _resourceFieldSeen;

        public State(WaitAnalysisOptions options, AnalysisContext context)
            : base(context)
        {
            _options = options;
            _reorder = new ReorderBuffer<Record>(options.Reorder);
            _tolerance = options.StartTolerance.Ticks;
        }

        public override bool Accepts(XeEventType eventType, XeActionSet actions) => AnalysisSupport.NameIn(EventNames, eventType);

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

            int type = _types.Intern(e.GetField(f.WaitType));
            while (_stats.Count <= type)
            {
                _stats.Add(new TypeStats());
            }

            byte kind = KindCompleted;
            if (f.Opcode >= 0)
            {
                kind = IsBeginCached(e.GetField(f.Opcode)) ? KindBegin : KindEnd;
            }

            ActionLayout a = _actions.Get(e.ActionSet);
            var r = new Record { Kind = kind, Type = type };
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

            TypeStats ts = _stats[type];
            if (kind == KindBegin)
            {
                _begins++;
                ts.Begins++;
            }
            else
            {
                long duration = f.Duration >= 0 ? Clamp(e.GetField(f.Duration).AsUInt64()) : 0;
                r.Duration = duration;
                _waits++;
                ts.Waits++;
                ts.TotalDuration = Sat(ts.TotalDuration, duration);
                ts.MaxDuration = Math.Max(ts.MaxDuration, duration);

                // Fields the event's own schema lacks stay n/a (wait_info_external has no signal_duration on real builds).
                if (f.Signal >= 0)
                {
                    ts.SignalEvents++;
                    ts.TotalSignal = Sat(ts.TotalSignal, Clamp(e.GetField(f.Signal).AsUInt64()));
                }

                if (f.Resource >= 0)
                {
                    if (f.ResourceIsPointer && ts.Resources is null)
                    {
                        CountPointer(ts, e.GetField(f.Resource).AsUInt64());
                    }
                    else
                    {
                        FoldPointers(ts);
                        string resource = e.GetField(f.Resource).ToString();
                        Count(ref ts.Resources, resource.Length == 0 ? "(empty)" : resource, ref ts.ResourcesOverflow);
                    }
                }

                if (f.Result >= 0)
                {
                    long ignored = 0;
                    Count(ref ts.Results, e.GetField(f.Result).ToString(), ref ignored);
                }
                if (a.Scheduler >= 0)
                {
                    ulong s = e.GetAction(a.Scheduler).AsUInt64();
                    SchedulerStats? ss = s < (ulong)_denseSchedulers.Length ? _denseSchedulers[s] : null;
                    if (ss is null)
                    {
                        if (!_schedulers.TryGetValue(s, out ss) && _schedulers.Count < NameTable.MaxGroups)
                        {
                            ss = new SchedulerStats();
                            _schedulers.Add(s, ss);
                        }

                        if (ss is not null && s < DenseSchedulers)
                        {
                            if (s >= (ulong)_denseSchedulers.Length)
                            {
                                Array.Resize(ref _denseSchedulers, (int)Math.Min(DenseSchedulers, Math.Max(s + 1, 2UL * (ulong)_denseSchedulers.Length)));
                            }

                            _denseSchedulers[s] = ss;
                        }
                    }

                    if (ss is null)
                    {
                        _withoutScheduler++;
                    }
                    else
                    {
                        ss.Waits++;
                        ss.TotalDuration = Sat(ss.TotalDuration, duration);
                        AddDuration(ss, type, duration);
                    }
                }
                else
                {
                    _withoutScheduler++;
                }
            }

            if (!hasWorker)
            {
                _withoutWorker++;
                return;
            }

            _reorder.Add(e.Timestamp, e.EventSequence, r);
            Drain();
        }

        protected override WaitAnalysisResult Finish(CaptureSummary? capture, CancellationToken cancellationToken)
        {
            _reorder.Complete();
            Drain();
            foreach (TypeStats ts in _stats)
            {
                FoldPointers(ts);
            }

            foreach (WorkerState w in _workersByAddress.Values.Concat(_workersByThread.Values))
            {
                if (w.Pending is not null)
                {
                    foreach ((int type, _) in w.Pending)
                    {
                        _stats[type].BeginsWithoutEnd++;
                    }
                }
            }

            MissingData? missing = null;
            long events = _eventCounts.Sum();
            if (_missingWaitType is XeEventType mt)
            {
                missing = new MissingData(
                    MissingDataKind.Field,
                    ["wait_type"],
                    mt.FullName + " has no wait_type field. Its fields are: " + string.Join(", ", mt.Fields.Select(c => c.Name)) + ".",
                    "-- The event's columns on your build:\nSELECT name, type_name FROM sys.dm_xe_object_columns\n WHERE object_name = N'" + mt.Name + "' AND column_type = N'data';",
                    availableFields: mt.Fields.Select(c => c.Name));
            }
            else if (events == 0)
            {
                missing = new MissingData(
                    MissingDataKind.Events,
                    ["sqlos.wait_info", "sqlos.wait_info_external", "sqlos.wait_completed"],
                    "No wait_info, wait_info_external or wait_completed events were found; the wait analysis summarises them.",
                    "ALTER EVENT SESSION [your_session] ON SERVER\n    ADD EVENT sqlos.wait_info (ACTION (sqlos.scheduler_id, sqlos.worker_address, package0.event_sequence)),\n    ADD EVENT sqlos.wait_info_external (ACTION (sqlos.scheduler_id, sqlos.worker_address, package0.event_sequence));",
                    eventsSeen: _ignored.ToList());
            }

            long totalDuration = _stats.Aggregate(0L, (acc, s) => Sat(acc, s.TotalDuration));
            int[] order = [.. Enumerable.Range(0, _stats.Count)
                .Where(i => _stats[i].Waits + _stats[i].Begins > 0)
                .OrderByDescending(i => _stats[i].TotalDuration).ThenByDescending(i => _stats[i].Waits).ThenBy(i => _types[i], StringComparer.Ordinal)];
            WaitTypeStats[] byType = [.. order.Select(i => new WaitTypeStats(
                _types[i],
                _stats[i].Waits,
                _stats[i].Begins,
                _stats[i].TotalDuration,
                _stats[i].Waits == 0 ? 0 : (double)_stats[i].TotalDuration / _stats[i].Waits,
                _stats[i].MaxDuration,
                _stats[i].SignalEvents > 0 ? _stats[i].TotalSignal : null,
                totalDuration == 0 ? 0 : (double)_stats[i].TotalDuration / totalDuration))];

            SchedulerWaits[] bySched = [.. _schedulers.OrderBy(kv => kv.Key).Select(kv => new SchedulerWaits(
                kv.Key.ToString(AnalysisSupport.Ic),
                kv.Value.Waits,
                kv.Value.TotalDuration,
                kv.Value.TypeCount == 0 ? string.Empty : _types[kv.Value.Durations().OrderByDescending(x => x.Value).ThenBy(x => _types[x.Key], StringComparer.Ordinal).First().Key]))];
            string? schedulerNote = _schedulers.Count == 0
                ? "No wait event carries the sqlos.scheduler_id action, so there are no per-scheduler totals. Add ACTION (sqlos.scheduler_id) to the wait events."
                : _withoutScheduler > 0 ? AnalysisSupport.N0(_withoutScheduler) + " waits without sqlos.scheduler_id are not in this table." : null;

            bool hasWorkers = _workersByAddress.Count + _workersByThread.Count > 0;
            string? workerNote = hasWorkers ? null : "No wait event carries sqlos.worker_address (or sqlos.system_thread_id), so waits cannot be followed per worker. Add ACTION (sqlos.worker_address) to the wait events.";
            bool hasPairs = hasWorkers && _begins > 0;
            WaitPairing[] pairs = hasPairs
                ? [.. Enumerable.Range(0, _stats.Count)
                    .Where(i => _stats[i].Begins > 0 || _stats[i].Pairs > 0)
                    .Select(i => new WaitPairing(_types[i], _stats[i].Pairs, _stats[i].BeginsWithoutEnd, _stats[i].EndsWithoutBegin))
                    .OrderByDescending(p => p.Pairs).ThenBy(p => p.WaitType, StringComparer.Ordinal)]
                : [];
            string? pairNote = workerNote ?? (_begins == 0 ? "The capture has no Begin events (opcode = Begin), only End events: Begin/End pairs need both (the session may filter on opcode = End)." : null);

            var preceded = new List<PrecedingWait>();
            foreach (int i in order)
            {
                TypeStats s = _stats[i];
                if (s.Waits == 0)
                {
                    continue;
                }

                foreach (KeyValuePair<int, long> kv in s.PrecededBy.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key < 0 ? "\uFFFF" : _types[kv.Key], StringComparer.Ordinal))
                {
                    preceded.Add(new PrecedingWait(_types[i], kv.Key < 0 ? null : _types[kv.Key], kv.Value, (double)kv.Value / s.Waits));
                }
            }

            return new WaitAnalysisResult
            {
                MissingData = missing,
                WaitInfoEvents = _eventCounts[0],
                WaitInfoExternalEvents = _eventCounts[1],
                WaitCompletedEvents = _eventCounts[2],
                Waits = _waits,
                Begins = _begins,
                ByWaitType = byType,
                BySchedulers = bySched,
                SchedulerNote = schedulerNote,
                HasPairs = hasPairs,
                Pairs = pairs,
                PairNote = pairNote,
                HasPrecedence = hasWorkers,
                PrecededBy = preceded,
                PrecedenceNote = workerNote,
                WaitsWithoutWorker = _withoutWorker,
                WaitsOfUntrackedWorkers = _untrackedWorkers,
                WorkerAction = _anyWorkerAddress ? "sqlos.worker_address" : "sqlos.system_thread_id",
                Ordering = _reorder.GetStatistics(),
                TopResources = Resources(order),
                Results = Results(order),
                HasWaitResource = _resourceFieldSeen,
            };
        }

        private const int MaxKeysPerType = 1000;

        /// <summary>Adds a wait's duration to its type's total on a scheduler (at most 1,024 types per scheduler; further types are not kept).</summary>
        private static void AddDuration(SchedulerStats ss, int type, long duration)
        {
            if (type < DenseTypes)
            {
                ulong bit = 1UL << type;
                if ((ss.DensePresent & bit) != 0)
                {
                    ss.DenseDuration[type] = Sat(ss.DenseDuration[type], duration);
                }
                else if (ss.TypeCount < 1024)
                {
                    ss.DensePresent |= bit;
                    ss.DenseDuration[type] = Sat(0, duration);
                }

                return;
            }

            ref long d = ref CollectionsMarshal.GetValueRefOrNullRef(ss.DurationByType, type);
            if (!Unsafe.IsNullRef(ref d))
            {
                d = Sat(d, duration);
            }
            else if (ss.TypeCount < 1024)
            {
                ss.DurationByType.Add(type, Sat(0, duration));
            }
        }

        /// <summary>Counts a pointer resource as <see cref="Count"/> counts its text (same cap, same order).</summary>
        private static void CountPointer(TypeStats ts, ulong pointer)
        {
            Dictionary<ulong, long> counts = ts.ResourcePointers ??= [];
            ref long n = ref System.Runtime.InteropServices.CollectionsMarshal.GetValueRefOrNullRef(counts, pointer);
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref n))
            {
                n++;
            }
            else if (counts.Count < MaxKeysPerType)
            {
                counts.Add(pointer, 1);
            }
            else
            {
                ts.ResourcesOverflow++;
            }
        }

        /// <summary>Moves the pointer resources counted by value to the text-keyed counts, in the order they were first met.</summary>
        private static void FoldPointers(TypeStats ts)
        {
            if (ts.ResourcePointers is not Dictionary<ulong, long> pointers)
            {
                return;
            }

            ts.Resources ??= new Dictionary<string, long>(StringComparer.Ordinal);
            foreach (KeyValuePair<ulong, long> kv in pointers)
            {
                ts.Resources.Add("0x" + kv.Key.ToString("X16", CultureInfo.InvariantCulture), kv.Value);
            }

            ts.ResourcePointers = null;
        }

        private static void Count(ref Dictionary<string, long>? counts, string key, ref long overflow)
        {
            counts ??= new Dictionary<string, long>(StringComparer.Ordinal);
            if (counts.TryGetValue(key, out long n))
            {
                counts[key] = n + 1;
            }
            else if (counts.Count < MaxKeysPerType)
            {
                counts.Add(key, 1);
            }
            else
            {
                overflow++;
            }
        }

        private System.Collections.ObjectModel.ReadOnlyCollection<WaitResourceCount> Resources(int[] order)
        {
            var list = new List<WaitResourceCount>();
            foreach (int i in order)
            {
                TypeStats s = _stats[i];
                if (s.Resources is null || s.Waits == 0)
                {
                    continue;
                }

                foreach (KeyValuePair<string, long> kv in s.Resources.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Take(TopResourcesPerType))
                {
                    list.Add(new WaitResourceCount(_types[i], kv.Key, kv.Value, (double)kv.Value / s.Waits));
                }

                long shown = s.Resources.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Take(TopResourcesPerType).Sum(kv => kv.Value);
                long rest = s.Resources.Values.Sum() + s.ResourcesOverflow - shown;
                if (rest > 0)
                {
                    list.Add(new WaitResourceCount(_types[i], null, rest, (double)rest / s.Waits));
                }
            }

            return list.AsReadOnly();
        }

        private System.Collections.ObjectModel.ReadOnlyCollection<WaitResultCount> Results(int[] order)
        {
            var list = new List<WaitResultCount>();
            foreach (int i in order)
            {
                if (_stats[i].Results is Dictionary<string, long> r)
                {
                    foreach (KeyValuePair<string, long> kv in r.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal))
                    {
                        list.Add(new WaitResultCount(_types[i], kv.Key, kv.Value));
                    }
                }
            }

            return list.AsReadOnly();
        }

        private void Drain()
        {
            while (_reorder.TryTake(out Record r, out DateTime t))
            {
                Dictionary<ulong, WorkerState> workers = r.WorkerKind == 1 ? _workersByAddress : _workersByThread;
                if (!workers.TryGetValue(r.Worker, out WorkerState? w))
                {
                    if (_workersByAddress.Count + _workersByThread.Count >= _options.MaxWorkers)
                    {
                        _untrackedWorkers++;
                        continue;
                    }

                    w = new WorkerState();
                    workers.Add(r.Worker, w);
                }

                TypeStats ts = _stats[r.Type];
                long ticks = t.Ticks;
                if (r.Kind == KindBegin)
                {
                    w.Pending ??= [];
                    if (w.Pending.Count >= 16)
                    {
                        _stats[w.Pending[0].Type].BeginsWithoutEnd++;
                        w.Pending.RemoveAt(0);
                    }

                    w.Pending.Add((r.Type, ticks));
                    continue;
                }

                long start;
                long tolerance;
                int pendingIndex = -1;
                if (r.Kind == KindEnd && w.Pending is { Count: > 0 })
                {
                    for (int i = w.Pending.Count - 1; i >= 0; i--)
                    {
                        if (w.Pending[i].Type == r.Type)
                        {
                            pendingIndex = i;
                            break;
                        }
                    }
                }

                if (pendingIndex >= 0)
                {
                    start = w.Pending![pendingIndex].Ticks;
                    tolerance = 0;
                    w.Pending.RemoveAt(pendingIndex);
                    ts.Pairs++;
                }
                else
                {
                    if (r.Kind == KindEnd)
                    {
                        ts.EndsWithoutBegin++;
                    }

                    long durTicks = r.Duration > long.MaxValue / TimeSpan.TicksPerMillisecond ? long.MaxValue : r.Duration * TimeSpan.TicksPerMillisecond;
                    start = durTicks > ticks ? 0 : ticks - durTicks;
                    tolerance = _tolerance;
                }

                int previous = -1;
                long limit = start > long.MaxValue - tolerance ? long.MaxValue : start + tolerance;
                for (int k = 0; k < w.EndedCount; k++)
                {
                    int slot = (w.EndedNext - 1 - k + WorkerState.Ring) % WorkerState.Ring;
                    if (w.EndedTicks[slot] <= limit)
                    {
                        previous = w.EndedType[slot];
                        break;
                    }
                }

                ref long c = ref CollectionsMarshal.GetValueRefOrNullRef(ts.PrecededBy, previous);
                if (!Unsafe.IsNullRef(ref c))
                {
                    c++;
                }
                else if (ts.PrecededBy.Count < 10_000)
                {
                    ts.PrecededBy.Add(previous, 1);
                }

                w.EndedType[w.EndedNext] = r.Type;
                w.EndedTicks[w.EndedNext] = ticks;
                w.EndedNext = (w.EndedNext + 1) % WorkerState.Ring;
                w.EndedCount = Math.Min(WorkerState.Ring, w.EndedCount + 1);
            }
        }

        /// <summary><see cref="IsBegin"/>, remembered per key of the last opcode map (maps are immutable), so no text is compared per event.</summary>
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
            f.ResourceIsPointer = f.Resource >= 0 && t.Fields[f.Resource] is { IsMap: false, BaseType: XeBaseType.Pointer, Size: 4 or 8, IsVariableLength: false };
            f.Result = t.GetFieldIndex("wait_result");
            return f;
        }

        private static long Clamp(ulong v) => v > long.MaxValue ? long.MaxValue : (long)v;

        private static long Sat(long a, long b)
        {
            long r = unchecked(a + b);
            return ((a ^ r) & (b ^ r)) < 0 ? long.MaxValue : r;
        }
    }
}

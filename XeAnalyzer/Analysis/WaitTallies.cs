using System.Globalization;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>
/// The counts of a wait analysis per wait type (waits, Begin events, durations, signal durations, resources, results,
/// and what the worker timeline adds: pairs and preceding waits) and per scheduler, and the tables of the result made
/// from them. Bounded: at most
/// <see cref="NameTable.MaxGroups"/> schedulers, 1,024 wait types per scheduler, 1,000 resources and results per wait
/// type. Every duration added is part of the run's total (<see cref="WeightTotal"/>), so the sums here cannot pass the
/// range.
/// </summary>
internal sealed class WaitTallies
{
    private const int MaxKeysPerType = 1000;
    private const int DenseTypes = 64;
    private const int DenseSchedulers = 1024;

    private readonly NameTable _types = new();
    private readonly List<WaitTypeTally> _stats = [];
    private readonly Dictionary<ulong, SchedulerTally> _schedulers = [];

    // Schedulers below DenseSchedulers by id (null = look in _schedulers): scheduler ids are small, so most waits need
    // no dictionary lookup.
    private SchedulerTally?[] _denseSchedulers = new SchedulerTally?[64];

    /// <summary>Begin events.</summary>
    public long Begins { get; private set; }

    /// <summary>Completed waits (End events and wait_completed events).</summary>
    public long Waits { get; private set; }

    /// <summary>Completed waits without the scheduler action, or of schedulers beyond the limit.</summary>
    public long WithoutScheduler { get; private set; }

    /// <summary>The tally of a wait type.</summary>
    public WaitTypeTally this[int type] => _stats[type];

    /// <summary>The id of a wait type (its map text or value text), creating its tally when new.</summary>
    public int TypeOf(XeValue waitType)
    {
        int type = _types.Intern(waitType);
        while (_stats.Count <= type)
        {
            _stats.Add(new WaitTypeTally());
        }

        return type;
    }

    /// <summary>Counts a Begin event.</summary>
    public void AddBegin(int type)
    {
        Begins++;
        _stats[type].Begins++;
    }

    /// <summary>Counts a completed wait of a type and its duration (ms).</summary>
    public void AddWait(int type, long duration)
    {
        Waits++;
        WaitTypeTally ts = _stats[type];
        ts.Waits++;
        ts.TotalDuration += duration;
        ts.MaxDuration = Math.Max(ts.MaxDuration, duration);
    }

    /// <summary>Adds a completed wait's signal duration (ms), where the event's schema has the field.</summary>
    public void AddSignal(int type, long signal)
    {
        WaitTypeTally ts = _stats[type];
        ts.SignalEvents++;
        ts.TotalSignal += signal;
    }

    /// <summary>Counts a completed wait's resource: a pointer by its value, anything else by its text.</summary>
    public void AddResource(int type, XeValue resource, bool isPointer)
    {
        WaitTypeTally ts = _stats[type];
        if (isPointer && ts.Resources is null)
        {
            CountPointer(ts, resource.AsUInt64());
        }
        else
        {
            FoldPointers(ts);
            string text = resource.ToString();
            Count(ref ts.Resources, text.Length == 0 ? "(empty)" : text, ref ts.ResourcesOverflow);
        }
    }

    /// <summary>Counts a wait_completed event's <c>wait_result</c>.</summary>
    public void AddResult(int type, XeValue result)
    {
        long ignored = 0;
        Count(ref _stats[type].Results, result.ToString(), ref ignored);
    }

    /// <summary>Adds a completed wait to its scheduler's totals (or counts it without scheduler beyond the
    /// limit).</summary>
    public void AddToScheduler(ulong scheduler, int type, long duration)
    {
        SchedulerTally? ss = scheduler < (ulong)_denseSchedulers.Length ? _denseSchedulers[scheduler] : null;
        if (ss is null)
        {
            if (!_schedulers.TryGetValue(scheduler, out ss) && _schedulers.Count < NameTable.MaxGroups)
            {
                ss = new SchedulerTally();
                _schedulers.Add(scheduler, ss);
            }

            if (ss is not null && scheduler < DenseSchedulers)
            {
                if (scheduler >= (ulong)_denseSchedulers.Length)
                {
                    Array.Resize(
                        ref _denseSchedulers,
                        (int)Math.Min(DenseSchedulers, Math.Max(scheduler + 1, 2UL * (ulong)_denseSchedulers.Length))
                    );
                }

                _denseSchedulers[scheduler] = ss;
            }
        }

        if (ss is null)
        {
            WithoutScheduler++;
            return;
        }

        ss.Waits++;
        ss.TotalDuration += duration;
        AddDuration(ss, type, duration);
    }

    /// <summary>Counts a completed wait without the scheduler action.</summary>
    public void AddWithoutScheduler() => WithoutScheduler++;

    /// <summary>Ends the counting: pointer resources join the text-keyed ones.</summary>
    public void Complete()
    {
        foreach (WaitTypeTally ts in _stats)
        {
            FoldPointers(ts);
        }
    }

    /// <summary>The wait types with a wait or a Begin: most total wait time first, then most waits, then by
    /// name.</summary>
    public int[] Order() =>
        [
            .. Enumerable
                .Range(0, _stats.Count)
                .Where(i => _stats[i].Waits + _stats[i].Begins > 0)
                .OrderByDescending(i => _stats[i].TotalDuration)
                .ThenByDescending(i => _stats[i].Waits)
                .ThenBy(i => _types[i], StringComparer.Ordinal),
        ];

    /// <summary>Per wait type, in <paramref name="order"/>.</summary>
    public WaitTypeStats[] ByWaitType(int[] order)
    {
        long totalDuration = _stats.Sum(s => s.TotalDuration);
        return
        [
            .. order.Select(i => new WaitTypeStats(
                _types[i],
                _stats[i].Waits,
                _stats[i].Begins,
                _stats[i].TotalDuration,
                _stats[i].Waits == 0 ? 0 : (double)_stats[i].TotalDuration / _stats[i].Waits,
                _stats[i].MaxDuration,
                _stats[i].SignalEvents > 0 ? _stats[i].TotalSignal : null,
                totalDuration == 0 ? 0 : (double)_stats[i].TotalDuration / totalDuration
            )),
        ];
    }

    /// <summary>Whether any wait carried a scheduler.</summary>
    public bool HasSchedulers => _schedulers.Count > 0;

    /// <summary>Per scheduler, in scheduler id order, with the wait type of the most wait time.</summary>
    public SchedulerWaits[] BySchedulers() =>
        [
            .. _schedulers
                .OrderBy(kv => kv.Key)
                .Select(kv => new SchedulerWaits(
                    kv.Key.ToString(AnalysisSupport.Ic),
                    kv.Value.Waits,
                    kv.Value.TotalDuration,
                    kv.Value.TypeCount == 0
                        ? string.Empty
                        : _types[
                            kv.Value.Durations()
                                .OrderByDescending(x => x.Value)
                                .ThenBy(x => _types[x.Key], StringComparer.Ordinal)
                                .First()
                                .Key
                        ]
                )),
        ];

    /// <summary>Begin/End pairing per wait type that had a Begin or a pair, most pairs first.</summary>
    public WaitPairing[] Pairs() =>
        [
            .. Enumerable
                .Range(0, _stats.Count)
                .Where(i => _stats[i].Begins > 0 || _stats[i].Pairs > 0)
                .Select(i => new WaitPairing(
                    _types[i],
                    _stats[i].Pairs,
                    _stats[i].BeginsWithoutEnd,
                    _stats[i].EndsWithoutBegin
                ))
                .OrderByDescending(p => p.Pairs)
                .ThenBy(p => p.WaitType, StringComparer.Ordinal),
        ];

    /// <summary>For each wait type in <paramref name="order"/> with waits, the wait types that preceded it, most
    /// frequent first.</summary>
    public List<PrecedingWait> PrecededBy(int[] order)
    {
        var preceded = new List<PrecedingWait>();
        foreach (int i in order)
        {
            WaitTypeTally s = _stats[i];
            if (s.Waits == 0)
            {
                continue;
            }

            foreach (
                KeyValuePair<int, long> kv in s
                    .PrecededBy.OrderByDescending(kv => kv.Value)
                    .ThenBy(kv => kv.Key < 0 ? "\uFFFF" : _types[kv.Key], StringComparer.Ordinal)
            )
            {
                preceded.Add(
                    new PrecedingWait(
                        _types[i],
                        kv.Key < 0 ? null : _types[kv.Key],
                        kv.Value,
                        (double)kv.Value / s.Waits
                    )
                );
            }
        }

        return preceded;
    }

    /// <summary>Per wait type in <paramref name="order"/>, its <see cref="WaitAnalysis.TopResourcesPerType"/> largest
    /// resources and one row for the rest.</summary>
    public System.Collections.ObjectModel.ReadOnlyCollection<WaitResourceCount> Resources(int[] order)
    {
        var list = new List<WaitResourceCount>();
        foreach (int i in order)
        {
            WaitTypeTally s = _stats[i];
            if (s.Resources is null || s.Waits == 0)
            {
                continue;
            }

            foreach (
                KeyValuePair<string, long> kv in s
                    .Resources.OrderByDescending(kv => kv.Value)
                    .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                    .Take(WaitAnalysis.TopResourcesPerType)
            )
            {
                list.Add(new WaitResourceCount(_types[i], kv.Key, kv.Value, (double)kv.Value / s.Waits));
            }

            long shown = s
                .Resources.OrderByDescending(kv => kv.Value)
                .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Take(WaitAnalysis.TopResourcesPerType)
                .Sum(kv => kv.Value);
            long rest = s.Resources.Values.Sum() + s.ResourcesOverflow - shown;
            if (rest > 0)
            {
                list.Add(new WaitResourceCount(_types[i], null, rest, (double)rest / s.Waits));
            }
        }

        return list.AsReadOnly();
    }

    /// <summary>Per wait type in <paramref name="order"/>, its wait_completed events by <c>wait_result</c>.</summary>
    public System.Collections.ObjectModel.ReadOnlyCollection<WaitResultCount> Results(int[] order)
    {
        var list = new List<WaitResultCount>();
        foreach (int i in order)
        {
            if (_stats[i].Results is Dictionary<string, long> r)
            {
                foreach (
                    KeyValuePair<string, long> kv in r.OrderByDescending(kv => kv.Value)
                        .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                )
                {
                    list.Add(new WaitResultCount(_types[i], kv.Key, kv.Value));
                }
            }
        }

        return list.AsReadOnly();
    }

    /// <summary>Adds a wait's duration to its type's total on a scheduler (at most 1,024 types per scheduler; further
    /// types are not kept).</summary>
    private static void AddDuration(SchedulerTally ss, int type, long duration)
    {
        if (type < DenseTypes)
        {
            ulong bit = 1UL << type;
            if ((ss.DensePresent & bit) != 0)
            {
                ss.DenseDuration[type] += duration;
            }
            else if (ss.TypeCount < 1024)
            {
                ss.DensePresent |= bit;
                ss.DenseDuration[type] = duration;
            }

            return;
        }

        ref long d = ref CollectionsMarshal.GetValueRefOrNullRef(ss.DurationByType, type);
        if (!Unsafe.IsNullRef(ref d))
        {
            d += duration;
        }
        else if (ss.TypeCount < 1024)
        {
            ss.DurationByType.Add(type, duration);
        }
    }

    /// <summary>Counts a pointer resource as <see cref="Count"/> counts its text (same cap, same order).</summary>
    private static void CountPointer(WaitTypeTally ts, ulong pointer)
    {
        Dictionary<ulong, long> counts = ts.ResourcePointers ??= [];
        ref long n = ref CollectionsMarshal.GetValueRefOrNullRef(counts, pointer);
        if (!Unsafe.IsNullRef(ref n))
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

    /// <summary>Moves the pointer resources counted by value to the text-keyed counts, in the order they were first
    /// met.</summary>
    private static void FoldPointers(WaitTypeTally ts)
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

    /// <summary>Waits per scheduler: completed waits, their total duration, and the total per wait type.</summary>
    private sealed class SchedulerTally
    {
        public long Waits;
        public long TotalDuration;

        /// <summary>Total duration per wait type id below <see cref="DenseTypes"/> (present when its bit is set in
        /// <see cref="DensePresent"/>).</summary>
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
}

/// <summary>The counts of one wait type.</summary>
internal sealed class WaitTypeTally
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
    /// Pointer resources counted by value until a resource of another kind comes (then they move, in order, to
    /// <see cref="Resources"/> under their text, 0x%016X, as they would have been counted): no text is made per event.
    /// </summary>
    public Dictionary<ulong, long>? ResourcePointers;
    public long ResourcesOverflow;
    public Dictionary<string, long>? Results;
    public long EndsWithoutBegin;
    public long BeginsWithoutEnd;

    /// <summary>Waits of this type by the wait type that ended last on the same worker before each began (-1: none
    /// known).</summary>
    public Dictionary<int, long> PrecededBy { get; } = [];
}

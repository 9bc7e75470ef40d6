using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace XeAnalyzer.Analysis;

/// <summary>
/// One wait event as the reorder window holds it (up to its cap of records): widest fields first, so a record takes 24
/// bytes instead of 40.
/// </summary>
internal struct WaitRecord
{
    /// <summary>A wait_info or wait_info_external Begin event (it carries no duration).</summary>
    public const byte Begin = 0;

    /// <summary>A wait_info or wait_info_external End event.</summary>
    public const byte End = 1;

    /// <summary>A wait_completed event (one event per wait).</summary>
    public const byte Completed = 2;

    public ulong Worker;
    public long Duration;
    public int Type;
    public byte Kind;

    /// <summary>
    /// 1: <see cref="Worker"/> is a <c>sqlos.worker_address</c>; 2: a <c>sqlos.system_thread_id</c>; 0: the event
    /// carries neither (it is only ordered, for the ordering count, and follows no worker).
    /// </summary>
    public byte WorkerKind;
}

/// <summary>
/// The waits of each worker in time order (<see cref="WaitRecord"/>s as the reorder window gives them): pairs each End
/// with the most recent unpaired Begin of the same wait type on the same worker, and finds the wait type that ended
/// last on the worker before each wait began (its Begin time when paired, else its End time minus its duration, within
/// a tolerance). The counts go to the wait types' tallies. Bounded: at most <c>maxWorkers</c> workers (waits of further
/// ones are counted as untracked), 16 pending Begins and the last 8 ended waits per worker.
/// </summary>
/// <param name="maxWorkers">The most workers followed.</param>
/// <param name="tolerance">How much later than a computed start (End minus duration) a preceding wait may have ended,
/// in ticks.</param>
/// <param name="tallies">The wait types' tallies.</param>
internal sealed class WaitWorkers(int maxWorkers, long tolerance, WaitTallies tallies)
{
    // Workers by sqlos.worker_address (kind 1) and by sqlos.system_thread_id (kind 2): one dictionary per kind, keyed
    // by the number alone.
    private readonly Dictionary<ulong, WorkerState> _byAddress = [];
    private readonly Dictionary<ulong, WorkerState> _byThread = [];

    /// <summary>Waits of workers beyond the limit.</summary>
    public long Untracked { get; private set; }

    /// <summary>Whether any worker was followed.</summary>
    public bool Any => _byAddress.Count + _byThread.Count > 0;

    /// <summary>Takes the next wait in time order.</summary>
    /// <param name="r">The wait.</param>
    /// <param name="ticks">Its timestamp.</param>
    public void Take(in WaitRecord r, long ticks)
    {
        Dictionary<ulong, WorkerState> workers = r.WorkerKind == 1 ? _byAddress : _byThread;
        if (!workers.TryGetValue(r.Worker, out WorkerState? w))
        {
            if (_byAddress.Count + _byThread.Count >= maxWorkers)
            {
                Untracked++;
                return;
            }

            w = new WorkerState();
            workers.Add(r.Worker, w);
        }

        WaitTypeTally ts = tallies[r.Type];
        if (r.Kind == WaitRecord.Begin)
        {
            w.Pending ??= [];
            if (w.Pending.Count >= 16)
            {
                tallies[w.Pending[0].Type].BeginsWithoutEnd++;
                w.Pending.RemoveAt(0);
            }

            w.Pending.Add((r.Type, ticks));
            return;
        }

        long start;
        long startTolerance;
        int pendingIndex = -1;
        if (r.Kind == WaitRecord.End && w.Pending is { Count: > 0 })
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
            startTolerance = 0;
            w.Pending.RemoveAt(pendingIndex);
            ts.Pairs++;
        }
        else
        {
            if (r.Kind == WaitRecord.End)
            {
                ts.EndsWithoutBegin++;
            }

            long durTicks =
                r.Duration > long.MaxValue / TimeSpan.TicksPerMillisecond
                    ? long.MaxValue
                    : r.Duration * TimeSpan.TicksPerMillisecond;
            start = durTicks > ticks ? 0 : ticks - durTicks;
            startTolerance = tolerance;
        }

        int previous = -1;
        long limit = start > long.MaxValue - startTolerance ? long.MaxValue : start + startTolerance;
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

    /// <summary>Ends the timeline: Begins still pending never ended in the capture.</summary>
    public void Complete()
    {
        foreach (WorkerState w in _byAddress.Values.Concat(_byThread.Values))
        {
            if (w.Pending is not null)
            {
                foreach ((int type, _) in w.Pending)
                {
                    tallies[type].BeginsWithoutEnd++;
                }
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
}

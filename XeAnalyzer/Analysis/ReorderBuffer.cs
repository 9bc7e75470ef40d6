using System.Globalization;

namespace XeAnalyzer.Analysis;

/// <summary>
/// Settings of the bounded reorder window that puts events back in time order: records of a <c>.xel</c> file are not
/// time-ordered (per-CPU buffers are written as they fill), so analyses that pair events or keep running totals sort
/// them by (timestamp, <c>package0.event_sequence</c>, arrival) within a window instead of buffering the whole capture.
/// </summary>
/// <remarks>Immutable.</remarks>
internal sealed class ReorderOptions
{
    /// <summary>The defaults: a 30-second window (SQL Server's default <c>MAX_DISPATCH_LATENCY</c>) and at most
    /// 1,000,000 pending events.</summary>
    public static ReorderOptions Default { get; } = new();

    /// <summary>
    /// How far behind the newest timestamp seen an event may arrive and still be put in order. An event is released
    /// once it is older than the newest seen minus this window. Default 30 seconds; zero releases events in arrival
    /// order.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public TimeSpan Window
    {
        get;
        init =>
            field =
                value >= TimeSpan.Zero
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(value),
                        value,
                        "The reorder window cannot be negative."
                    );
    } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The most events held at once (1 to 50,000,000; default 1,000,000). When more are pending, the oldest is released
    /// even if it is inside the window, so memory stays bounded whatever the capture size.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..50,000,000.</exception>
    public int MaxPending
    {
        get;
        init =>
            field = value is >= 1 and <= 50_000_000
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "MaxPending must be 1..50,000,000.");
    } = 1_000_000;
}

/// <summary>What the reorder window saw: how disordered the input was and whether every event could be put in
/// order.</summary>
/// <param name="Events">Events that went through the window.</param>
/// <param name="ArrivedOutOfOrder">Events that arrived earlier in (timestamp, event_sequence) order than the event
/// before them (inversions in the input, all of which the window corrects unless they are also late).</param>
/// <param name="LateEvents">Events that arrived after a later event had already been released (farther out of order
/// than the window allows); they are processed at once, out of order.</param>
/// <param name="MaxPending">The most events held at once.</param>
/// <param name="EventsWithoutSequence">Events without <c>package0.event_sequence</c> (ties on timestamp are then broken
/// by arrival order).</param>
/// <param name="Window">The window used.</param>
/// <param name="MaxPendingLimit">The cap on pending events used.</param>
internal sealed record OrderingStatistics(
    long Events,
    long ArrivedOutOfOrder,
    long LateEvents,
    int MaxPending,
    long EventsWithoutSequence,
    TimeSpan Window,
    int MaxPendingLimit
)
{
    /// <summary>No event ordered (the statistics of a result made before any was).</summary>
    internal static OrderingStatistics None { get; } = new(0, 0, 0, 0, 0, TimeSpan.Zero, 0);

    /// <summary>A one-line description for reports.</summary>
    /// <returns>The text.</returns>
    public string Describe() =>
        string.Create(
            CultureInfo.InvariantCulture,
            $"{ArrivedOutOfOrder:N0} of {Events:N0} events arrived out of time order and were re-ordered by "
                + $"(timestamp, event_sequence) within a {Window.TotalSeconds:0.###}-second window (at most "
                + $"{MaxPendingLimit:N0} events held; {MaxPending:N0} at most were held); {LateEvents:N0} arrived "
                + $"later "
                + $"than the window allows and were processed out of order."
        );
}

/// <summary>The sort key of the reorder window: timestamp ticks, then event_sequence (absent sorts last), then
/// arrival.</summary>
internal readonly struct OrderKey(long ticks, ulong sequence, long arrival) : IComparable<OrderKey>
{
    public long Ticks { get; } = ticks;

    public ulong Sequence { get; } = sequence;

    public long Arrival { get; } = arrival;

    public int CompareTo(OrderKey other)
    {
        int c = Ticks.CompareTo(other.Ticks);
        if (c != 0)
        {
            return c;
        }

        c = Sequence.CompareTo(other.Sequence);
        return c != 0 ? c : Arrival.CompareTo(other.Arrival);
    }
}

/// <summary>
/// A bounded reorder window over compact records: add records as they arrive, take them back in (timestamp,
/// event_sequence, arrival) order. A record is released once it is older than the newest timestamp seen minus
/// <see cref="ReorderOptions.Window"/>, or when more than <see cref="ReorderOptions.MaxPending"/> are held; after the
/// input ends,
/// <see cref="Complete"/> releases the rest. Records arriving after a later one was released are counted as late and
/// released next (out of order). Memory is bounded by <see cref="ReorderOptions.MaxPending"/>.
/// </summary>
/// <remarks>
/// <para>Captures are nearly sorted (each per-CPU buffer is in order), so records are collected in chunks of 8,192,
/// each chunk is sorted once, and released by merging the sorted chunks (the run with the oldest head apart, a small
/// heap over the other runs' heads, touched only when the oldest record moves to another run): a few comparisons per
/// record instead of a heap over every held record.</para>
/// <para>Not thread-safe.</para>
/// </remarks>
/// <typeparam name="T">The record type (keep it small: it is held, not the event).</typeparam>
internal sealed class ReorderBuffer<T>
{
    private const int ChunkSize = 8192;

    // Chunks start small and double up to ChunkSize, so a window over a small capture never allocates chunk-sized
    // arrays (hundreds of KB, on the large object heap: a batch of many small captures would otherwise churn it and run
    // a full collection every few captures).
    private const int FirstChunkSize = 256;
    private const int MaxMergedRuns = 64;

    private readonly RunHeap _runs = new();

    // The sorted run holding the oldest record (not in _runs; every run in _runs has a later head), or null when none
    // is sorted.
    private Run? _top;
    private readonly Stack<Entry[]> _pool = new();
    private readonly long _windowTicks;
    private readonly int _maxPending;
    private readonly TimeSpan _window;
    private Entry[] _incoming = new Entry[FirstChunkSize];
    private Entry[] _scratch = [];
    private int _incomingCount;
    private OrderKey _incomingMin;
    private int _count;
    private long _arrival;
    private long _newestTicks = long.MinValue;
    private OrderKey _lastReleased;
    private bool _released;
    private OrderKey _lastArrived;
    private bool _arrived;
    private bool _completed;
    private long _outOfOrder;
    private long _late;
    private long _withoutSequence;
    private int _maxHeld;

    /// <summary>Creates a window.</summary>
    /// <param name="options">The window and cap; <see langword="null"/> for
    /// <see cref="ReorderOptions.Default"/>.</param>
    public ReorderBuffer(ReorderOptions? options = null)
    {
        options ??= ReorderOptions.Default;
        _window = options.Window;
        _windowTicks = options.Window.Ticks;
        _maxPending = options.MaxPending;
    }

    /// <summary>Records held now.</summary>
    public int Count => _count;

    /// <summary>Adds a record.</summary>
    /// <param name="timestamp">The event time.</param>
    /// <param name="sequence">The event's <c>package0.event_sequence</c>, or <see langword="null"/>.</param>
    /// <param name="item">The record.</param>
    /// <exception cref="InvalidOperationException"><see cref="Complete"/> was called.</exception>
    public void Add(DateTime timestamp, ulong? sequence, T item)
    {
        if (_completed)
        {
            throw new InvalidOperationException("The reorder buffer is complete.");
        }

        long ticks = timestamp.Ticks;
        if (sequence is null)
        {
            _withoutSequence++;
        }

        var key = new OrderKey(ticks, sequence ?? ulong.MaxValue, _arrival++);
        if (_arrived && Less(key, _lastArrived))
        {
            _outOfOrder++;
        }

        _arrived = true;
        _lastArrived = key;
        if (_released && Less(key, _lastReleased))
        {
            _late++;
        }

        if (ticks > _newestTicks)
        {
            _newestTicks = ticks;
        }

        if (_incomingCount == _incoming.Length)
        {
            Seal();
        }

        if (_incomingCount == 0 || Less(key, _incomingMin))
        {
            _incomingMin = key;
        }

        _incoming[_incomingCount++] = new Entry(key, item);
        _count++;
        if (_count > _maxHeld)
        {
            _maxHeld = _count;
        }
    }

    /// <summary>Takes the oldest record if it may be released now (outside the window, over the cap, or after
    /// <see cref="Complete"/>).</summary>
    /// <param name="item">The record.</param>
    /// <param name="timestamp">Its time (UTC).</param>
    /// <returns>Whether a record was taken.</returns>
    public bool TryTake(out T item, out DateTime timestamp) => TryTake(out item, out timestamp, out _);

    /// <summary>Takes the oldest record if it may be released now, with its event_sequence.</summary>
    /// <param name="item">The record.</param>
    /// <param name="timestamp">Its time (UTC).</param>
    /// <param name="sequence">Its <c>package0.event_sequence</c>, or <see langword="null"/>.</param>
    /// <returns>Whether a record was taken.</returns>
    public bool TryTake(out T item, out DateTime timestamp, out ulong? sequence)
    {
        item = default!;
        timestamp = default;
        sequence = null;
        if (_count == 0)
        {
            return false;
        }

        bool must = _completed || _count > _maxPending;
        if (_incomingCount > 0 && (_top is null || Less(_incomingMin, _top.Items[_top.Position].Key)))
        {
            // The oldest record has not been sorted yet.
            if (!must && !Releasable(_incomingMin))
            {
                return false;
            }

            Seal();
        }

        Run run = _top!;
        OrderKey key = run.Items[run.Position].Key;
        if (!must && !Releasable(key))
        {
            return false;
        }

        Entry e = run.Items[run.Position++];
        if (run.Position < run.Count)
        {
            // The head run usually stays the oldest for a stretch (chunks are long sorted runs): the heap is touched
            // only when another run's head becomes older.
            OrderKey next = run.Items[run.Position].Key;
            if (_runs.TryPeek(out OrderKey other) && Less(other, next))
            {
                _top = _runs.DequeueEnqueue(run, next);
            }
        }
        else
        {
            _top = _runs.TryDequeue(out Run? following) ? following : null;
            if (_pool.Count <= (_maxPending / ChunkSize) + 1)
            {
                // Keep emptied chunks for reuse (as many as the cap can fill), so chunks are not reallocated on the
                // large object heap.
                if (System.Runtime.CompilerServices.RuntimeHelpers.IsReferenceOrContainsReferences<Entry>())
                {
                    Array.Clear(run.Items, 0, run.Count);
                }

                _pool.Push(run.Items);
            }
        }

        _count--;
        if (!_released || Less(_lastReleased, key))
        {
            _lastReleased = key;
        }

        _released = true;
        item = e.Item;
        timestamp = new DateTime(key.Ticks, DateTimeKind.Utc);
        sequence = key.Sequence == ulong.MaxValue ? null : key.Sequence;
        return true;
    }

    /// <summary>Marks the end of the input: every held record may now be taken.</summary>
    public void Complete() => _completed = true;

    /// <summary>The statistics so far.</summary>
    /// <returns>The statistics.</returns>
    public OrderingStatistics GetStatistics() =>
        new(_arrival, _outOfOrder, _late, _maxHeld, _withoutSequence, _window, _maxPending);

    /// <summary>Whether <paramref name="a"/> sorts before <paramref name="b"/> (<see cref="OrderKey.CompareTo"/> &lt;
    /// 0).</summary>
    private static bool Less(in OrderKey a, in OrderKey b) =>
        a.Ticks != b.Ticks ? a.Ticks < b.Ticks
        : a.Sequence != b.Sequence ? a.Sequence < b.Sequence
        : a.Arrival < b.Arrival;

    private bool Releasable(OrderKey key) =>
        key.Ticks < _newestTicks - _windowTicks || (_released && Less(key, _lastReleased));

    private void Seal()
    {
        if (_incomingCount == 0)
        {
            return;
        }

        SortIncoming();
        var run = new Run(_incoming, _incomingCount);
        OrderKey first = _incoming[0].Key;
        if (_top is null)
        {
            _top = run;
        }
        else if (Less(first, _top.Items[_top.Position].Key))
        {
            _runs.Enqueue(_top, _top.Items[_top.Position].Key);
            _top = run;
        }
        else
        {
            _runs.Enqueue(run, first);
        }
        _incoming = _pool.Count > 0 ? _pool.Pop() : new Entry[Math.Min(ChunkSize, run.Items.Length * 2)];
        _incomingCount = 0;
    }

    /// <summary>
    /// Sorts the incoming chunk. A chunk is a few ascending runs (each per-CPU buffer is in order), so the runs are
    /// merged (a natural merge sort, linear for a sorted chunk); a chunk of many short runs is sorted by
    /// <see cref="Array.Sort{T}(T[], int, int)"/>. Keys are unique (arrival breaks ties), so both give the same order.
    /// </summary>
    private void SortIncoming()
    {
        int n = _incomingCount;
        Span<int> starts = stackalloc int[MaxMergedRuns + 1];
        int runs = 0;
        starts[runs++] = 0;
        for (int i = 1; i < n; i++)
        {
            if (Less(_incoming[i].Key, _incoming[i - 1].Key))
            {
                if (runs == MaxMergedRuns)
                {
                    Array.Sort(_incoming, 0, n);
                    return;
                }

                starts[runs++] = i;
            }
        }

        if (runs == 1)
        {
            return;
        }

        starts[runs] = n;
        if (_scratch.Length < n)
        {
            _scratch = new Entry[_incoming.Length];
        }

        Entry[] from = _incoming,
            to = _scratch;
        while (runs > 1)
        {
            int merged = 0;
            for (int r = 0; r < runs; r += 2)
            {
                int lo = starts[r],
                    mid = starts[Math.Min(r + 1, runs)],
                    hi = starts[Math.Min(r + 2, runs)];
                int a = lo,
                    b = mid,
                    o = lo;
                while (a < mid && b < hi)
                {
                    to[o++] = Less(from[b].Key, from[a].Key) ? from[b++] : from[a++];
                }

                while (a < mid)
                {
                    to[o++] = from[a++];
                }

                while (b < hi)
                {
                    to[o++] = from[b++];
                }

                starts[merged++] = lo;
            }

            starts[merged] = n;
            runs = merged;
            (from, to) = (to, from);
        }

        if (!ReferenceEquals(from, _incoming))
        {
            // The sorted chunk is in the scratch array: swap the two (the scratch array holds at least the chunk's
            // records).
            _scratch = _incoming;
            _incoming = from;
        }

        if (System.Runtime.CompilerServices.RuntimeHelpers.IsReferenceOrContainsReferences<Entry>())
        {
            Array.Clear(_scratch, 0, n);
        }
    }

    private readonly struct Entry(OrderKey key, T item) : IComparable<Entry>
    {
        public OrderKey Key { get; } = key;

        public T Item { get; } = item;

        public int CompareTo(Entry other) => Key.CompareTo(other.Key);
    }

    /// <summary>
    /// A binary min-heap of sorted runs keyed by their head record (what
    /// <see cref="PriorityQueue{TElement, TPriority}"/> did here, with the key comparison inlined). Keys are unique
    /// (arrival breaks ties), so the order runs are taken in does not depend on the heap's shape.
    /// </summary>
    private sealed class RunHeap
    {
        private (OrderKey Key, Run Run)[] _items = new (OrderKey, Run)[16];
        private int _count;

        public bool TryPeek(out OrderKey key)
        {
            if (_count == 0)
            {
                key = default;
                return false;
            }

            key = _items[0].Key;
            return true;
        }

        public void Enqueue(Run run, OrderKey key)
        {
            if (_count == _items.Length)
            {
                Array.Resize(ref _items, _items.Length * 2);
            }

            int i = _count++;
            while (i > 0)
            {
                int parent = (i - 1) >> 1;
                if (!Less(key, _items[parent].Key))
                {
                    break;
                }

                _items[i] = _items[parent];
                i = parent;
            }

            _items[i] = (key, run);
        }

        public bool TryDequeue(out Run? run)
        {
            if (_count == 0)
            {
                run = null;
                return false;
            }

            run = _items[0].Run;
            int last = --_count;
            (OrderKey Key, Run Run) moved = _items[last];
            _items[last] = default;
            if (last > 0)
            {
                SiftDown(moved);
            }

            return true;
        }

        /// <summary>Takes the run with the oldest head and adds <paramref name="run"/> in one step.</summary>
        public Run DequeueEnqueue(Run run, OrderKey key)
        {
            Run top = _items[0].Run;
            SiftDown((key, run));
            return top;
        }

        /// <summary>Puts <paramref name="item"/> at the root and moves it down to its place.</summary>
        private void SiftDown((OrderKey Key, Run Run) item)
        {
            (OrderKey Key, Run Run)[] items = _items;
            int n = _count;
            int i = 0;
            while (true)
            {
                int child = (2 * i) + 1;
                if (child >= n)
                {
                    break;
                }

                if (child + 1 < n && Less(items[child + 1].Key, items[child].Key))
                {
                    child++;
                }

                if (!Less(items[child].Key, item.Key))
                {
                    break;
                }

                items[i] = items[child];
                i = child;
            }

            items[i] = item;
        }
    }

    private sealed class Run(Entry[] items, int count)
    {
        public Entry[] Items { get; } = items;

        public int Count { get; } = count;

        public int Position { get; set; }
    }
}

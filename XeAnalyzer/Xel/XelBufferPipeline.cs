using XeAnalyzer.Events;

namespace XeAnalyzer.Xel;

/// <summary>
/// One event buffer of a <c>.xel</c> file, read and walked by a decode worker: its bytes, its records, and what the walk found
/// (undecodable records, damage, record counts per event type) for the reading thread to report in file order.
/// </summary>
/// <remarks>
/// A pooled buffer (<see cref="XelBufferPipeline"/> with <c>pooled: true</c>) keeps its arrays from one use to the next, so a read
/// allocates nothing per buffer once the window is full; an unpooled one gives every use new data and action-start arrays, which the
/// events made from it own.
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "ManualResetEventSlim holds no kernel handle unless its WaitHandle is asked for, which this class never does.")]
internal sealed class XelEventBuffer(bool pooled)
{
    private const int Claimable = 0;
    private const int Claimed = 1;
    private const int Finished = 2;

    private readonly ManualResetEventSlim _done = new(true);
    private int _state = Finished;
    private XelFileReader? _reader;

    public long Position { get; private set; }

    /// <summary>The file the buffer belongs to (while it is being delivered).</summary>
    public string FilePath => _reader!.FilePath;

    public int DataOffset { get; private set; }

    public int DataEnd { get; private set; }

    public int PaddedLength { get; private set; }

    /// <summary>The bytes the file holds of the buffer (less than <see cref="DataEnd"/> when it is cut short).</summary>
    public int Readable { get; set; }

    /// <summary>The buffer's bytes from its start (<see cref="Position"/>); valid up to <see cref="Readable"/>.</summary>
    public byte[] Data { get; private set; } = [];

    /// <summary>The records, in buffer order.</summary>
    public XelFileReader.Record[] Records { get; private set; } = new XelFileReader.Record[256];

    /// <summary>Number of records.</summary>
    public int Count { get; private set; }

    /// <summary>Where each action of each record starts (indexed by <see cref="XelFileReader.Record.ActionStarts"/>).</summary>
    public int[] ActionStarts { get; private set; } = new int[1024];

    /// <summary>The RIDs of the actions (same index as <see cref="ActionStarts"/>; used while walking).</summary>
    public uint[] ActionRids { get; private set; } = new uint[1024];

    /// <summary>The lengths of the actions (same index as <see cref="ActionStarts"/>; used while walking).</summary>
    public int[] ActionLengths { get; private set; } = new int[1024];

    /// <summary>Action starts used so far.</summary>
    public int ActionStartCount { get; set; }

    /// <summary>Records met per event type of the reader's metadata (its state index), including records skipped by name.</summary>
    public long[] Counts { get; private set; } = [];

    /// <summary>The action set last used per event type (a lookup shortcut).</summary>
    public XeActionSet?[] LastActions { get; private set; } = [];

    /// <summary>Records of event types whose metadata could not be decoded.</summary>
    public int Undecodable { get; set; }

    /// <summary>The warning for a damaged record (the rest of the buffer was skipped), or <see langword="null"/>.</summary>
    public string? Damage { get; set; }

    /// <summary>The file offset of the damaged record.</summary>
    public long DamageOffset { get; set; }

    /// <summary>Whether the read ends with this buffer (its data is cut short, or the file shrank while it was read).</summary>
    public bool CutShort { get; set; }

    /// <summary>What the walk threw (strict-mode damage, an I/O error), thrown again when the buffer is delivered.</summary>
    public Exception? Error { get; private set; }

    /// <summary>Prepares the buffer for a new use; it becomes claimable last, so a stale work item never sees half-set fields.</summary>
    public void Reset(XelFileReader reader, long position, int dataOffset, int dataEnd, int readable, int paddedLength)
    {
        _reader = reader;
        Position = position;
        DataOffset = dataOffset;
        DataEnd = dataEnd;
        Readable = readable;
        PaddedLength = paddedLength;
        Count = 0;
        ActionStartCount = 0;
        Undecodable = 0;
        Damage = null;
        DamageOffset = 0;
        CutShort = false;
        Error = null;
        _done.Reset();
        Volatile.Write(ref _state, Claimable);
    }

    /// <summary>Sizes the arrays for a buffer of <paramref name="bytes"/> bytes and a metadata of <paramref name="states"/> event types.</summary>
    public void EnsureCapacity(int bytes, int states)
    {
        if (!pooled)
        {
            Data = GC.AllocateUninitializedArray<byte>(bytes);
            ActionStarts = new int[ActionStarts.Length];
        }
        else if (Data.Length < bytes)
        {
            Data = GC.AllocateUninitializedArray<byte>(Math.Max(bytes, 64 * 1024));
        }

        if (Counts.Length < states)
        {
            Counts = new long[states];
            LastActions = new XeActionSet?[states];
        }
        else
        {
            Array.Clear(Counts);
            Array.Clear(LastActions);
        }
    }

    public void AddRecord(in XelFileReader.Record record)
    {
        if (Count == Records.Length)
        {
            XelFileReader.Record[] bigger = new XelFileReader.Record[Count * 2];
            Array.Copy(Records, bigger, Count);
            Records = bigger;
        }

        Records[Count++] = record;
    }

    public void AddAction(int index, uint rid, int length, int start)
    {
        if (index >= ActionStarts.Length)
        {
            int size = Math.Max(index + 1, ActionStarts.Length * 2);
            int[] starts = new int[size];
            Array.Copy(ActionStarts, starts, ActionStarts.Length);
            ActionStarts = starts;
            uint[] rids = new uint[size];
            Array.Copy(ActionRids, rids, ActionRids.Length);
            ActionRids = rids;
            int[] lengths = new int[size];
            Array.Copy(ActionLengths, lengths, ActionLengths.Length);
            ActionLengths = lengths;
        }

        ActionStarts[index] = start;
        ActionRids[index] = rid;
        ActionLengths[index] = length;
    }

    /// <summary>Runs the decode if no one has claimed it yet (a decode thread).</summary>
    public void RunIfUnclaimed()
    {
        if (Interlocked.CompareExchange(ref _state, Claimed, Claimable) == Claimable)
        {
            Run();
        }
    }

    /// <summary>Whether no thread has started the decode yet.</summary>
    public bool IsClaimable => Volatile.Read(ref _state) == Claimable;

    /// <summary>Whether the decode has ended.</summary>
    public bool IsFinished => Volatile.Read(ref _state) == Finished;

    /// <summary>Decodes the buffer here if no one has claimed it yet; returns whether it did.</summary>
    public bool TryRunHere()
    {
        if (Interlocked.CompareExchange(ref _state, Claimed, Claimable) == Claimable)
        {
            Run();
            return true;
        }

        return false;
    }

    /// <summary>Waits until a worker has finished decoding the buffer.</summary>
    public void Wait() => _done.Wait();

    /// <summary>Makes sure no worker runs or will run the buffer's decode (the read stopped before it was needed).</summary>
    public void Cancel()
    {
        if (Interlocked.CompareExchange(ref _state, Finished, Claimable) == Claimable)
        {
            _done.Set();
            return;
        }

        _done.Wait();
    }

    /// <summary>Lets go of what a delivered buffer refers to (the file reader; the data too when it is not pooled).</summary>
    public void Clear()
    {
        _reader = null;
        if (!pooled)
        {
            Data = [];
        }

        Array.Clear(Records, 0, Count);
        Count = 0;
    }

    private void Run()
    {
        try
        {
            _reader!.Decode(this);
        }
        catch (Exception ex)
        {
            // Thrown again on the reading thread when this buffer's turn comes (never lost on a worker).
            Error = ex;
        }
        finally
        {
            Volatile.Write(ref _state, Finished);
            _done.Set();
        }
    }
}

/// <summary>
/// Decodes the event buffers of a read ahead of the reading thread, on decode threads of its own and on the reading thread itself, and hands
/// them back in file order: a window of at most eight times <see cref="XelReadOptions.DecodeThreads"/> buffers, 64 at most (so memory does not grow
/// with the file), handed to the decode threads a quarter of a window at a time and each claimed by whichever thread gets to it first. The reading
/// thread never waits for a buffer no one has started: it decodes it itself, so the read progresses even when the decode threads get no
/// processor (batch mode, a busy machine).
/// </summary>
/// <remarks>
/// <para>Used from one reading thread. A pooled pipeline reuses each buffer once its events are delivered.</para>
/// <para>The decode threads are dedicated background threads, started on the first hand-over and ended by <see cref="Close"/> (or after a
/// second without work, should a reader be abandoned unclosed): unlike thread-pool work items they block while the window is full instead of
/// spinning for work, which on two cores takes processor time from the reading thread and its consumers.</para>
/// </remarks>
internal sealed class XelBufferPipeline
{
    private const int IdleExitMilliseconds = 1000;

    private readonly Queue<XelEventBuffer> _window = new();
    private readonly Stack<XelEventBuffer> _free = new();
    private readonly List<XelEventBuffer> _batch = [];
    private readonly Queue<XelEventBuffer> _handed = new();
    private readonly object _gate = new();
    private readonly bool _pooled;
    private readonly int _workers;
    private readonly int _maxAhead;
    private readonly int _batchSize;
    private int _running;
    private int _idle;
    private bool _closed;

    private static int s_liveDecodeThreads;

    /// <summary>Decode threads started and not yet ended in the process (every pipeline's), for tests that check they end.</summary>
    internal static int LiveDecodeThreads => Volatile.Read(ref s_liveDecodeThreads);

    /// <summary>Creates a pipeline.</summary>
    /// <param name="threads">Threads that decode (the reading thread included); 1 decodes on the reading thread only.</param>
    /// <param name="pooled">Whether buffers are reused once delivered (events are then transient views).</param>
    public XelBufferPipeline(int threads, bool pooled)
    {
        _pooled = pooled;
        _workers = threads - 1;
        _maxAhead = threads > 1 ? Math.Min(threads * 8, 64) : 1;
        _batchSize = Math.Max(1, _maxAhead / 4);
    }

    /// <summary>Whether another buffer may be dispatched now.</summary>
    public bool CanDispatch => _window.Count < _maxAhead;

    /// <summary>Buffers dispatched and not yet taken.</summary>
    public int InFlight => _window.Count;

    /// <summary>Queues one event buffer for decoding.</summary>
    public void Dispatch(XelFileReader reader, long position, int dataOffset, int dataEnd, int readable, int paddedLength, bool inline = false)
    {
        XelEventBuffer b = _free.Count > 0 ? _free.Pop() : new XelEventBuffer(_pooled);
        b.Reset(reader, position, dataOffset, dataEnd, readable, paddedLength);
        _window.Enqueue(b);
        if (_workers > 0 && !inline)
        {
            _batch.Add(b);
            if (_batch.Count >= _batchSize)
            {
                Flush();
            }
        }
    }

    /// <summary>
    /// Hands the buffers dispatched since the last flush to the decode threads, which take them in file order. Buffers go over in batches of
    /// a quarter of the window (not one by one; small enough that a decode thread is not left idle while the window has room), so a decode thread wakes once per batch and a read does not pay for a wake-up on every buffer.
    /// </summary>
    public void Flush()
    {
        if (_batch.Count == 0)
        {
            return;
        }

        bool start;
        lock (_gate)
        {
            foreach (XelEventBuffer b in _batch)
            {
                _handed.Enqueue(b);
            }

            start = !_closed && _running < _workers && _idle == 0;
            if (start)
            {
                _running++;
            }
            else if (_idle > 0)
            {
                Monitor.PulseAll(_gate);
            }
        }

        _batch.Clear();
        if (start)
        {
            Interlocked.Increment(ref s_liveDecodeThreads);
            try
            {
                new Thread(DecodeLoop) { IsBackground = true, Name = "xel decode" }.Start();
            }
            catch (OutOfMemoryException)
            {
                // No thread to be had: the reading thread decodes every buffer itself (it never waits for one no thread has started).
                Interlocked.Decrement(ref s_liveDecodeThreads);
                lock (_gate)
                {
                    _running--;
                }
            }
        }
    }

    /// <summary>A decode thread: decodes the handed buffers no one has claimed, in file order; waits while there are none.</summary>
    private void DecodeLoop()
    {
        try
        {
            DecodeUntilIdleOrClosed();
        }
        finally
        {
            Interlocked.Decrement(ref s_liveDecodeThreads);
        }
    }

    private void DecodeUntilIdleOrClosed()
    {
        var taken = new List<XelEventBuffer>();
        while (true)
        {
            lock (_gate)
            {
                while (_handed.Count == 0)
                {
                    if (_closed)
                    {
                        _running--;
                        return;
                    }

                    _idle++;
                    bool signalled = Monitor.Wait(_gate, IdleExitMilliseconds);
                    _idle--;
                    if (!signalled && _handed.Count == 0)
                    {
                        _running--;
                        return;
                    }
                }

                // A whole batch at once: one lock per batch, not per buffer.
                int n = Math.Min(_handed.Count, _batchSize);
                for (int i = 0; i < n; i++)
                {
                    taken.Add(_handed.Dequeue());
                }
            }

            foreach (XelEventBuffer b in taken)
            {
                b.RunIfUnclaimed();
            }

            taken.Clear();
        }
    }

    /// <summary>The next buffer in file order, decoded.</summary>
    public XelEventBuffer TakeNext()
    {
        if (_batch.Count > 0 && ReferenceEquals(_batch[0], _window.Peek()))
        {
            // The dispatching stopped short of a full batch (end of the file): the rest goes to the decode threads now.
            Flush();
        }

        XelEventBuffer b = _window.Dequeue();
        if (!b.TryRunHere() && !b.IsFinished)
        {
            // A decode thread is on it: decode a later buffer here meanwhile rather than wait idle (when consumers take events faster than a
            // decode thread walks buffers, or the decode thread gets no processor for a while). The furthest one no thread has started, so the
            // decode threads, which go in file order, reach the next buffers the reading thread needs first.
            while (!b.IsFinished && LastUnclaimed() is XelEventBuffer later)
            {
                later.TryRunHere();
            }

            b.Wait();
        }

        return b;
    }

    private XelEventBuffer? LastUnclaimed()
    {
        XelEventBuffer? last = null;
        foreach (XelEventBuffer later in _window)
        {
            if (later.IsClaimable)
            {
                last = later;
            }
        }

        return last;
    }

    /// <summary>Gives back a delivered buffer.</summary>
    public void Release(XelEventBuffer b)
    {
        b.Clear();
        if (_free.Count <= _maxAhead)
        {
            _free.Push(b);
        }
    }

    /// <summary>Stops every buffer still in the window (the read ended early or failed) and waits for the ones being decoded.</summary>
    public void Abandon()
    {
        _batch.Clear();
        lock (_gate)
        {
            _handed.Clear();
        }

        while (_window.Count > 0)
        {
            XelEventBuffer b = _window.Dequeue();
            b.Cancel();
            Release(b);
        }
    }

    /// <summary>Ends the read: abandons what is left and lets the decode threads end.</summary>
    public void Close()
    {
        Abandon();
        lock (_gate)
        {
            _closed = true;
            Monitor.PulseAll(_gate);
        }
    }
}

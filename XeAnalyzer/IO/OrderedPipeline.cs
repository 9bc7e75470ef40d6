using System.Diagnostics.CodeAnalysis;
using System.Runtime.ExceptionServices;

namespace XeAnalyzer.IO;

/// <summary>
/// Runs an <see cref="OrderedPipeline{T}"/> fed by a producer thread of its own; counts the pipelines' worker threads.
/// </summary>
internal static class OrderedPipeline
{
    private static int s_liveWorkers;

    /// <summary>
    /// Worker threads started and not yet ended in the process (every pipeline's), for tests that check they end.
    /// </summary>
    internal static int LiveWorkers => Volatile.Read(ref s_liveWorkers);

    /// <summary>
    /// Enumerates <paramref name="source"/> on a producer thread, runs <paramref name="work"/> on each item on
    /// <paramref name="threads"/> threads (the enumerating thread included), and yields the items in source order once
    /// their work is done. An exception of the work of an item is thrown when that item's turn comes; one of the source
    /// after every item it produced. Leaving the enumeration early stops the producer and the workers and waits for
    /// them.
    /// </summary>
    /// <param name="source">The items; enumerated on the producer thread.</param>
    /// <param name="work">What is done to each item, on any of the threads.</param>
    /// <param name="threads">Threads that run <paramref name="work"/>, the enumerating thread included (at least
    /// 1).</param>
    /// <param name="window">The most items produced and not yet yielded.</param>
    /// <param name="name">The name of the threads.</param>
    /// <param name="runsAlone">Items whose work must not overlap any other: such an item starts only once every earlier
    /// item is done, and no later item is added before it is done; or <see langword="null"/>.</param>
    /// <param name="cancellationToken">Checked before each item is yielded.</param>
    public static IEnumerable<T> Run<T>(
        IEnumerable<T> source,
        Action<T> work,
        int threads,
        int window,
        string name,
        Func<T, bool>? runsAlone,
        CancellationToken cancellationToken
    )
        where T : class
    {
        var pipeline = new OrderedPipeline<T>(work, threads, window, name);
        ExceptionDispatchInfo? producerError = null;
        var producer = new Thread(() =>
        {
            try
            {
                Produce(source, pipeline, runsAlone);
            }
#pragma warning disable CA1031 // Every failure of the producer is thrown again on the enumerating thread.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                producerError = ExceptionDispatchInfo.Capture(ex);
            }
            finally
            {
                pipeline.Complete();
            }
        })
        {
            IsBackground = true,
            Name = name + " producer",
        };

        producer.Start();
        try
        {
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (!pipeline.TryTake(out T? item))
                {
                    break;
                }

                yield return item;
            }
        }
        finally
        {
            // Wakes a producer waiting for room; the producer is joined so nothing touches the source after this
            // returns.
            pipeline.Close();
            producer.Join();
        }

        producerError?.Throw();
    }

    internal static void WorkerStarted() => Interlocked.Increment(ref s_liveWorkers);

    internal static void WorkerEnded() => Interlocked.Decrement(ref s_liveWorkers);

    private static void Produce<T>(IEnumerable<T> source, OrderedPipeline<T> pipeline, Func<T, bool>? runsAlone)
        where T : class
    {
        foreach (T item in source)
        {
            bool alone = runsAlone?.Invoke(item) == true;
            if ((alone && !pipeline.WaitUntilDone()) || !pipeline.Add(item) || (alone && !pipeline.WaitUntilDone()))
            {
                return;
            }
        }
    }
}

/// <summary>
/// Work items done on worker threads and taken back in the order they were added: at most a window of items is in
/// flight, the thread that takes them does the work of an item no thread has started rather than wait for it (so one
/// thread runs the same code with no worker threads at all, and a busy machine never leaves the taker waiting for a
/// thread that gets no processor).
/// </summary>
/// <remarks>
/// <para>One thread adds (<see cref="Add"/>), one takes (<see cref="TryTake"/>); it may be the same thread when it adds
/// only while <see cref="HasRoom"/>. Workers are dedicated background threads, started as items arrive and ended by
/// <see cref="Close"/> (or after a second without work, should a pipeline be abandoned unclosed): they block while
/// there is nothing to do instead of spinning, which on two cores would take processor time from the producer and the
/// taker.</para>
/// <para>Every state change happens under one lock; the work runs outside it. What a worker writes into an item is
/// visible to the taker, which reads the item's state under the same lock.</para>
/// </remarks>
/// <typeparam name="T">The work item (the work writes its result into it).</typeparam>
internal sealed class OrderedPipeline<T>
    where T : class
{
    private const int IdleExitMilliseconds = 1000;

    private readonly Action<T> _work;
    private readonly int _maxWorkers;
    private readonly string _name;
    private readonly Slot[] _slots;
    private readonly object _gate = new(); // Monitor.Wait/PulseAll: every wait of the pipeline
    private readonly List<Thread> _threads = [];
    private long _head; // the oldest item not taken
    private long _tail; // the number the next item gets
    private int _unfinished; // items added whose work is not done
    private int _workers; // worker threads running
    private int _idleWorkers;
    private int _waiting; // threads in Monitor.Wait: a change pulses only when someone waits
    private bool _completed;
    private bool _closed;

    /// <summary>Creates a pipeline.</summary>
    /// <param name="work">What is done to each item, on any of the threads.</param>
    /// <param name="threads">Threads that do the work, the taking thread included: 1 starts no worker thread.</param>
    /// <param name="window">The most items added and not yet taken.</param>
    /// <param name="name">The name of the worker threads.</param>
    public OrderedPipeline(Action<T> work, int threads, int window, string name)
    {
        ArgumentNullException.ThrowIfNull(work);
        ArgumentOutOfRangeException.ThrowIfLessThan(threads, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(window, 1);
        _work = work;
        _maxWorkers = threads - 1;
        _name = name;
        _slots = new Slot[window];
        for (int i = 0; i < window; i++)
        {
            _slots[i] = new Slot();
        }
    }

    private enum State
    {
        Waiting,
        Running,
        Done,
    }

    /// <summary>Items added and not yet taken.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return (int)(_tail - _head);
            }
        }
    }

    /// <summary>Whether <see cref="Add"/> would not wait.</summary>
    public bool HasRoom => Count < _slots.Length;

    /// <summary>Adds an item, waiting while the window is full; false when the pipeline was closed.</summary>
    /// <param name="item">The item.</param>
    public bool Add(T item)
    {
        bool startWorker;
        lock (_gate)
        {
            while (_tail - _head >= _slots.Length && !_closed)
            {
                Wait();
            }

            if (_closed || _completed)
            {
                return false;
            }

            Slot slot = SlotOf(_tail++);
            slot.Item = item;
            slot.State = State.Waiting;
            _unfinished++;
            startWorker = _workers < _maxWorkers && _idleWorkers == 0;
            if (startWorker)
            {
                _workers++;
            }

            Pulse();
        }

        if (startWorker)
        {
            StartWorker();
        }

        return true;
    }

    /// <summary>Says that no item follows: <see cref="TryTake"/> returns false once the last one is taken.</summary>
    public void Complete()
    {
        lock (_gate)
        {
            _completed = true;
            Pulse();
        }
    }

    /// <summary>Waits until the work of every item added so far is done; false when the pipeline was closed.</summary>
    public bool WaitUntilDone()
    {
        lock (_gate)
        {
            while (_unfinished > 0 && !_closed)
            {
                Wait();
            }

            return !_closed;
        }
    }

    /// <summary>
    /// Takes the oldest item once its work is done, doing work here meanwhile: that item's when no thread has started
    /// it, else the last item no thread has started (worker threads go in order, so they reach the next items first).
    /// Waits while no item is in flight, unless the pipeline is complete or closed; then false.
    /// </summary>
    /// <param name="item">The item.</param>
    /// <exception cref="Exception">What the work of the item threw.</exception>
    public bool TryTake([MaybeNullWhen(false)] out T item)
    {
        while (true)
        {
            long run = -1;
            T? taken = null;
            ExceptionDispatchInfo? error = null;
            lock (_gate)
            {
                while (true)
                {
                    if (_closed || (_head == _tail && _completed))
                    {
                        item = null;
                        return false;
                    }

                    if (_head == _tail)
                    {
                        Wait();
                        continue;
                    }

                    Slot head = SlotOf(_head);
                    if (head.State == State.Done)
                    {
                        taken = head.Item!;
                        error = head.Error;
                        head.Item = null;
                        head.Error = null;
                        _head++;
                        Pulse(); // a producer may wait for room
                        break;
                    }

                    run = head.State == State.Waiting ? _head : LastWaiting();
                    if (run >= 0)
                    {
                        SlotOf(run).State = State.Running;
                        break;
                    }

                    Wait();
                }
            }

            if (run >= 0)
            {
                Execute(run);
                continue;
            }

            error?.Throw();
            item = taken!;
            return true;
        }
    }

    /// <summary>
    /// Drops the items not taken: those no thread has started are not run, those running are waited for;
    /// <paramref name="release"/> gets each of them, in order. The pipeline can be used again afterwards.
    /// </summary>
    /// <param name="release">What becomes of a dropped item.</param>
    public void Discard(Action<T> release)
    {
        var dropped = new List<T>();
        lock (_gate)
        {
            for (long seq = _head; seq < _tail; seq++)
            {
                Slot slot = SlotOf(seq);
                if (slot.State == State.Waiting)
                {
                    slot.State = State.Done;
                    _unfinished--;
                }
            }

            while (_unfinished > 0)
            {
                Wait();
            }

            for (; _head < _tail; _head++)
            {
                Slot slot = SlotOf(_head);
                dropped.Add(slot.Item!);
                slot.Item = null;
                slot.Error = null;
            }

            Pulse();
        }

        foreach (T item in dropped)
        {
            release(item);
        }
    }

    /// <summary>Stops the pipeline: wakes every thread waiting in it and waits for the worker threads to end.</summary>
    public void Close()
    {
        Thread[] threads;
        lock (_gate)
        {
            _closed = true;
            Monitor.PulseAll(_gate);
            threads = [.. _threads];
            _threads.Clear();
        }

        foreach (Thread t in threads)
        {
            t.Join();
        }
    }

    private Slot SlotOf(long seq) => _slots[(int)(seq % _slots.Length)];

    // Under _gate.
    private void Wait()
    {
        _waiting++;
        try
        {
            Monitor.Wait(_gate);
        }
        finally
        {
            _waiting--;
        }
    }

    // Under _gate.
    private void Pulse()
    {
        if (_waiting > 0)
        {
            Monitor.PulseAll(_gate);
        }
    }

    // Under _gate.
    private long FirstWaiting()
    {
        for (long seq = _head; seq < _tail; seq++)
        {
            if (SlotOf(seq).State == State.Waiting)
            {
                return seq;
            }
        }

        return -1;
    }

    // Under _gate.
    private long LastWaiting()
    {
        for (long seq = _tail - 1; seq >= _head; seq--)
        {
            if (SlotOf(seq).State == State.Waiting)
            {
                return seq;
            }
        }

        return -1;
    }

    /// <summary>
    /// Does the work of an item claimed under the lock (its state <see cref="State.Running"/>); keeps what it throws.
    /// </summary>
    private void Execute(long seq)
    {
        Slot slot = SlotOf(seq);
        ExceptionDispatchInfo? error = null;
        try
        {
            _work(slot.Item!);
        }
#pragma warning disable CA1031 // Kept with the item and thrown on the taking thread when the item's turn comes.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            error = ExceptionDispatchInfo.Capture(ex);
        }

        lock (_gate)
        {
            slot.Error = error;
            slot.State = State.Done;
            _unfinished--;
            Pulse();
        }
    }

    private void StartWorker()
    {
        var thread = new Thread(WorkerLoop) { IsBackground = true, Name = _name };
        OrderedPipeline.WorkerStarted();
        try
        {
            thread.Start();
        }
        catch (OutOfMemoryException)
        {
            // No thread to be had: the taking thread does the work itself (it never waits for an item no thread has
            // started).
            OrderedPipeline.WorkerEnded();
            lock (_gate)
            {
                _workers--;
            }

            return;
        }

        lock (_gate)
        {
            _threads.RemoveAll(t => !t.IsAlive);
            _threads.Add(thread);
        }
    }

    /// <summary>
    /// A worker thread: does the work of the oldest item no thread has started; waits while there is none.
    /// </summary>
    private void WorkerLoop()
    {
        try
        {
            while (true)
            {
                long run;
                lock (_gate)
                {
                    while (true)
                    {
                        // A closed pipeline's items are not taken any more: they are left undone.
                        if (_closed)
                        {
                            _workers--;
                            return;
                        }

                        if ((run = FirstWaiting()) >= 0)
                        {
                            break;
                        }

                        _idleWorkers++;
                        _waiting++;
                        bool signalled = Monitor.Wait(_gate, IdleExitMilliseconds);
                        _waiting--;
                        _idleWorkers--;
                        if (!signalled && FirstWaiting() < 0)
                        {
                            _workers--;
                            return;
                        }
                    }

                    SlotOf(run).State = State.Running;
                }

                Execute(run);
            }
        }
        finally
        {
            OrderedPipeline.WorkerEnded();
        }
    }

    /// <summary>
    /// One place of the window: the item there, whether its work was started or is done, and what it threw.
    /// </summary>
    private sealed class Slot
    {
        public T? Item { get; set; }

        public State State { get; set; } = State.Done;

        public ExceptionDispatchInfo? Error { get; set; }
    }
}

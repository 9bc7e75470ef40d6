using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Events;

namespace XeAnalyzer.Reporting;

/// <summary>
/// One pass over an event stream feeding several pull-style consumers (analyses that take an <see cref="IEnumerable{T}"/>):
/// the calling thread reads the events, shows each to an observer, and routes it (by its event type and action set, decided
/// once per distinct pair) into bounded batches for the consumers that accept it. Each consumer runs on its own thread,
/// started when its first batch is ready; a consumer that never gets an event runs afterwards over an empty stream on the
/// calling thread. Memory is bounded by <see cref="BatchSize"/> × <see cref="QueueBatches"/> events per consumer.
/// </summary>
internal static class EventFanOut
{
    public const int BatchSize = 2048;
    public const int QueueBatches = 8;

    /// <summary>A consumer: which events it takes, and what it does with them.</summary>
    public sealed record Consumer(Func<XeEventType, XeActionSet, bool> Accepts, Action<IEnumerable<XEvent>, CancellationToken> Consume);

    /// <summary>Reads <paramref name="source"/> once and runs every consumer over the events it accepts.</summary>
    /// <exception cref="Exception">The first failure: the reader's, else a consumer's (consumers are stopped either way).</exception>
    public static void Run(IEnumerable<XEvent> source, Action<XEvent> observe, IReadOnlyList<Consumer> consumers, CancellationToken cancellationToken)
    {
        if (consumers.Count > 64)
        {
            throw new ArgumentException("at most 64 consumers", nameof(consumers));
        }

        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        CancellationToken token = cts.Token;
        int n = consumers.Count;
        var queues = new BlockingCollection<ArraySegment<XEvent>>?[n];
        var tasks = new Task?[n];
        var batches = new XEvent[n][];
        int[] fill = new int[n];
        var routes = new Dictionary<(XeEventType, XeActionSet), ulong>(RouteComparer.Instance);
        XeEventType? lastType = null;
        XeActionSet? lastActions = null;
        ulong lastMask = 0;
        Exception? readFailure = null;
        try
        {
            foreach (XEvent e in source)
            {
                observe(e);
                if (!ReferenceEquals(e.EventType, lastType) || !ReferenceEquals(e.ActionSet, lastActions))
                {
                    lastType = e.EventType;
                    lastActions = e.ActionSet;
                    if (!routes.TryGetValue((lastType, lastActions), out lastMask))
                    {
                        lastMask = 0;
                        for (int i = 0; i < n; i++)
                        {
                            if (consumers[i].Accepts(lastType, lastActions))
                            {
                                lastMask |= 1UL << i;
                            }
                        }

                        if (routes.Count < 100_000)
                        {
                            routes.Add((lastType, lastActions), lastMask);
                        }
                    }
                }

                for (ulong mask = lastMask; mask != 0; mask &= mask - 1)
                {
                    int i = System.Numerics.BitOperations.TrailingZeroCount(mask);
                    XEvent[] batch = batches[i] ??= new XEvent[BatchSize];
                    batch[fill[i]++] = e;
                    if (fill[i] == BatchSize)
                    {
                        Post(i, new ArraySegment<XEvent>(batch));
                        batches[i] = new XEvent[BatchSize];
                        fill[i] = 0;
                    }
                }
            }

            for (int i = 0; i < n; i++)
            {
                if (fill[i] > 0)
                {
                    Post(i, new ArraySegment<XEvent>(batches[i], 0, fill[i]));
                }
            }
        }
        catch (Exception ex)
        {
            readFailure = ex;
            cts.Cancel();
        }
        finally
        {
            foreach (BlockingCollection<ArraySegment<XEvent>>? q in queues)
            {
                q?.CompleteAdding();
            }
        }

        // Consumers that never got an event see an empty stream (so they can say what is missing).
        Exception? consumerFailure = null;
        if (readFailure is null)
        {
            for (int i = 0; i < n; i++)
            {
                if (tasks[i] is null)
                {
                    try
                    {
                        consumers[i].Consume([], token);
                    }
                    catch (Exception ex)
                    {
                        consumerFailure ??= ex;
                        cts.Cancel();
                    }
                }
            }
        }

        foreach (Task? t in tasks)
        {
            if (t is null)
            {
                continue;
            }

            try
            {
                t.GetAwaiter().GetResult();
            }
            catch (Exception ex)
            {
                if (ex is not OperationCanceledException || !token.IsCancellationRequested || cancellationToken.IsCancellationRequested)
                {
                    consumerFailure ??= ex;
                }
            }
            finally
            {
                t.Dispose();
            }
        }

        foreach (BlockingCollection<ArraySegment<XEvent>>? q in queues)
        {
            q?.Dispose();
        }

        // The reader's failure comes first: a consumer stopped by it only reports the cancellation.
        if (readFailure is not null)
        {
            if (readFailure is OperationCanceledException && consumerFailure is not null && !cancellationToken.IsCancellationRequested)
            {
                ExceptionDispatchInfo.Capture(consumerFailure).Throw();
            }

            ExceptionDispatchInfo.Capture(readFailure).Throw();
        }

        if (consumerFailure is not null)
        {
            ExceptionDispatchInfo.Capture(consumerFailure).Throw();
        }

        cancellationToken.ThrowIfCancellationRequested();

        void Post(int i, ArraySegment<XEvent> segment)
        {
            if (queues[i] is null)
            {
                var q = new BlockingCollection<ArraySegment<XEvent>>(QueueBatches);
                queues[i] = q;
                Consumer c = consumers[i];
                tasks[i] = Task.Factory.StartNew(
                    () =>
                    {
                        try
                        {
                            c.Consume(Drain(q, token), token);

                            // A consumer that stops early must not block the reader.
                            foreach (ArraySegment<XEvent> unused in q.GetConsumingEnumerable(token))
                            {
                                _ = unused;
                            }
                        }
                        catch
                        {
                            cts.Cancel();
                            throw;
                        }
                    },
                    CancellationToken.None,
                    TaskCreationOptions.LongRunning,
                    TaskScheduler.Default);
            }

            queues[i]!.Add(segment, token);
        }
    }

    private static IEnumerable<XEvent> Drain(BlockingCollection<ArraySegment<XEvent>> queue, CancellationToken token)
    {
        foreach (ArraySegment<XEvent> segment in queue.GetConsumingEnumerable(token))
        {
            XEvent[] array = segment.Array!;
            int end = segment.Offset + segment.Count;
            for (int i = segment.Offset; i < end; i++)
            {
                yield return array[i];
            }
        }
    }

    private sealed class RouteComparer : IEqualityComparer<(XeEventType, XeActionSet)>
    {
        public static readonly RouteComparer Instance = new();

        public bool Equals((XeEventType, XeActionSet) x, (XeEventType, XeActionSet) y) => ReferenceEquals(x.Item1, y.Item1) && ReferenceEquals(x.Item2, y.Item2);

        public int GetHashCode((XeEventType, XeActionSet) obj) =>
            HashCode.Combine(System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item1), System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item2));
    }
}

using XeAnalyzer.IO;

namespace XeAnalyzer.Tests.IO;

/// <summary>
/// The one ordered pipeline behind <c>resolve</c> and the <c>.xel</c> decoder: items come back in the order they went
/// in, what is in flight stays within the window, failures of the producer and of the work arrive where a one-thread
/// run would meet them, and stopping (cancellation, a consumer that leaves early, a discard) ends every thread without
/// a deadlock.
/// </summary>
public class OrderedPipelineTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [TestCase(1)]
    [TestCase(2)]
    [TestCase(4)]
    public void Run_YieldsEveryItemInSourceOrder_WithItsWorkDone(int threads)
    {
        // Uneven work, so later items often finish before earlier ones.
        var results = new List<Item>();
        foreach (Item item in OrderedPipeline.Run(Items(500), Square, threads, 8, "test", null, CancellationToken.None))
        {
            results.Add(item);
        }

        Assert.That(results.Select(r => r.Number), Is.EqualTo(Enumerable.Range(0, 500)));
        Assert.That(results.Select(r => r.Result), Is.EqualTo(Enumerable.Range(0, 500).Select(n => (long)n * n)));
        Assert.That(WaitForNoWorkers(), Is.True, "the worker threads ended");
    }

    [TestCase(1, 1)]
    [TestCase(2, 4)]
    [TestCase(4, 8)]
    public void Run_KeepsAtMostTheWindowInFlight_AndAtMostThreadsWorking(int threads, int window)
    {
        int produced = 0,
            taken = 0,
            maxAhead = 0,
            working = 0,
            maxWorking = 0;
        IEnumerable<Item> Source()
        {
            foreach (Item item in Items(300))
            {
                // Produced and not yet counted as taken: the window, the item the producer holds while it waits for
                // room, and the one the consumer has just taken.
                int ahead = Interlocked.Increment(ref produced) - Volatile.Read(ref taken);
                InterlockedMax(ref maxAhead, ahead);
                yield return item;
            }
        }

        void Work(Item item)
        {
            InterlockedMax(ref maxWorking, Interlocked.Increment(ref working));
            Square(item);
            Interlocked.Decrement(ref working);
        }

        foreach (
            Item item in OrderedPipeline.Run(Source(), Work, threads, window, "test", null, CancellationToken.None)
        )
        {
            Interlocked.Increment(ref taken);
        }

        Assert.That(taken, Is.EqualTo(300));
        Assert.That(maxAhead, Is.InRange(1, window + 2));
        Assert.That(maxWorking, Is.InRange(1, threads));
    }

    [TestCase(1)]
    [TestCase(3)]
    public void Run_ThrowsTheExceptionOfAnItemsWork_WhenThatItemsTurnComes(int threads)
    {
        var seen = new List<int>();
        void Work(Item item)
        {
            if (item.Number == 37)
            {
                throw new InvalidDataException("item 37");
            }

            Square(item);
        }

        InvalidDataException? error = Assert.Throws<InvalidDataException>(() =>
        {
            foreach (
                Item item in OrderedPipeline.Run(Items(200), Work, threads, 8, "test", null, CancellationToken.None)
            )
            {
                seen.Add(item.Number);
            }
        });
        Assert.That(error!.Message, Is.EqualTo("item 37"));
        Assert.That(seen, Is.EqualTo(Enumerable.Range(0, 37)), "every item before the failing one, in order");
        Assert.That(WaitForNoWorkers(), Is.True, "the worker threads ended");
    }

    [TestCase(1)]
    [TestCase(3)]
    public void Run_ThrowsTheSourcesException_AfterEveryItemItProduced(int threads)
    {
        IEnumerable<Item> Failing()
        {
            foreach (Item item in Items(50))
            {
                yield return item;
            }

            throw new FormatException("bad input after item 49");
        }

        var seen = new List<int>();
        FormatException? error = Assert.Throws<FormatException>(() =>
        {
            foreach (
                Item item in OrderedPipeline.Run(Failing(), Square, threads, 4, "test", null, CancellationToken.None)
            )
            {
                seen.Add(item.Number);
            }
        });
        Assert.That(error!.Message, Is.EqualTo("bad input after item 49"));
        Assert.That(seen, Is.EqualTo(Enumerable.Range(0, 50)));
    }

    [TestCase(1)]
    [TestCase(3)]
    public void Run_StopsWithOperationCanceled_WhenTheTokenIsCanceled(int threads)
    {
        using var cts = new CancellationTokenSource();
        int seen = 0;
        Assert.Throws<OperationCanceledException>(() =>
        {
            foreach (Item item in OrderedPipeline.Run(Endless(), Square, threads, 8, "test", null, cts.Token))
            {
                if (++seen == 100)
                {
                    cts.Cancel();
                }
            }
        });
        Assert.That(seen, Is.EqualTo(100));
        Assert.That(WaitForNoWorkers(), Is.True, "the worker threads ended");
    }

    [TestCase(1)]
    [TestCase(3)]
    public void Run_LeftEarly_StopsTheProducerAndTheWorkers(int threads)
    {
        // An endless source: leaving the enumeration must wake the producer waiting for room, and end the workers.
        var done = Task.Run(() =>
        {
            int seen = 0;
            foreach (
                Item item in OrderedPipeline.Run(Endless(), Square, threads, 4, "test", null, CancellationToken.None)
            )
            {
                if (++seen == 20)
                {
                    break;
                }
            }

            return seen;
        });
        Assert.That(done.Wait(Patience), Is.True, "no deadlock");
        Assert.That(done.Result, Is.EqualTo(20));
        Assert.That(WaitForNoWorkers(), Is.True, "the worker threads ended");
    }

    [TestCase(1)]
    [TestCase(4)]
    public void Run_AnItemThatRunsAlone_StartsAfterEveryEarlierItemIsDone_AndBeforeAnyLaterItemStarts(int threads)
    {
        // Every tenth item runs alone: while it works nothing else does, every earlier item is done and no later one
        // started.
        int working = 0,
            started = 0;
        var done = new bool[300];
        var violations = new List<string>();
        void Work(Item item)
        {
            int now = Interlocked.Increment(ref working);
            int startedBefore = Interlocked.Increment(ref started) - 1;
            if (item.Number % 10 == 0)
            {
                lock (violations)
                {
                    if (now != 1)
                    {
                        violations.Add($"item {item.Number} ran beside {now - 1} other(s)");
                    }

                    if (startedBefore != item.Number || Array.IndexOf(done, false) != item.Number)
                    {
                        violations.Add($"item {item.Number}: {startedBefore} started before it");
                    }
                }
            }

            Square(item);
            Volatile.Write(ref done[item.Number], true);
            Interlocked.Decrement(ref working);
        }

        var seen = new List<int>();
        foreach (
            Item item in OrderedPipeline.Run(
                Items(300),
                Work,
                threads,
                8,
                "test",
                i => i.Number % 10 == 0,
                CancellationToken.None
            )
        )
        {
            seen.Add(item.Number);
        }

        Assert.That(seen, Is.EqualTo(Enumerable.Range(0, 300)));
        Assert.That(violations, Is.Empty);
    }

    [Test]
    public void TryTake_OnTheAddingThread_DoesTheWorkItselfWhenNoWorkerThreadIsThere()
    {
        // The .xel reader's use: one thread adds while there is room and takes; with one thread there are no workers at
        // all.
        var pipeline = new OrderedPipeline<Item>(Square, threads: 1, window: 3, "test");
        int next = 0;
        var seen = new List<long>();
        while (seen.Count < 20)
        {
            while (next < 20 && pipeline.HasRoom)
            {
                Assert.That(pipeline.Add(new Item(next++)), Is.True);
            }

            Assert.That(pipeline.Count, Is.InRange(1, 3));
            Assert.That(pipeline.TryTake(out Item? item), Is.True);
            Assert.That(item!.WorkThread, Is.EqualTo(Environment.CurrentManagedThreadId));
            seen.Add(item.Result);
        }

        Assert.That(seen, Is.EqualTo(Enumerable.Range(0, 20).Select(n => (long)n * n)));
        Assert.That(pipeline.Count, Is.Zero);
        pipeline.Close();
        Assert.That(pipeline.TryTake(out _), Is.False, "a closed pipeline hands out nothing");
    }

    [Test]
    public void Discard_DropsTheItemsNotStarted_WaitsForTheRunningOne_AndLeavesThePipelineUsable()
    {
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var ran = new List<int>();
        bool firstEnded = false;
        void Work(Item item)
        {
            lock (ran)
            {
                ran.Add(item.Number);
            }

            if (item.Number == 0)
            {
                started.Set();
                release.Wait(Patience);
            }

            Square(item);
            Volatile.Write(ref firstEnded, item.Number == 0 || firstEnded);
        }

        var pipeline = new OrderedPipeline<Item>(Work, threads: 2, window: 4, "test");
        for (int i = 0; i < 4; i++)
        {
            Assert.That(pipeline.Add(new Item(i)), Is.True);
        }

        // The worker thread holds item 0 (it takes the oldest first); the discard must wait for it and drop 1 to 3.
        Assert.That(started.Wait(Patience), Is.True);
        Task releaser = Task.Run(() =>
        {
            Thread.Sleep(500);
            release.Set();
        });
        var dropped = new List<Item>();
        pipeline.Discard(dropped.Add);
        Assert.That(Volatile.Read(ref firstEnded), Is.True, "the discard waited for the running item");
        Assert.That(releaser.Wait(Patience), Is.True);
        Assert.That(dropped.Select(d => d.Number), Is.EqualTo(new[] { 0, 1, 2, 3 }));
        Assert.That(ran, Is.EqualTo(new[] { 0 }), "the items no thread had started were not run");
        Assert.That(dropped[1].Result, Is.Zero);
        Assert.That(pipeline.Count, Is.Zero);

        Assert.That(pipeline.Add(new Item(9)), Is.True);
        Assert.That(pipeline.TryTake(out Item? again), Is.True);
        Assert.That(again!.Result, Is.EqualTo(81));
        pipeline.Close();
        Assert.That(WaitForNoWorkers(), Is.True, "the worker thread ended");
    }

    private static IEnumerable<Item> Items(int count)
    {
        for (int i = 0; i < count; i++)
        {
            yield return new Item(i);
        }
    }

    private static IEnumerable<Item> Endless()
    {
        for (int i = 0; ; i++)
        {
            yield return new Item(i);
        }
    }

    private static void Square(Item item)
    {
        // Uneven: every seventh item takes a little longer.
        if (item.Number % 7 == 3)
        {
            Thread.SpinWait(20_000);
        }

        item.Result = (long)item.Number * item.Number;
        item.WorkThread = Environment.CurrentManagedThreadId;
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while (
            value > (seen = Volatile.Read(ref target)) && Interlocked.CompareExchange(ref target, value, seen) != seen
        ) { }
    }

    private static bool WaitForNoWorkers()
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (OrderedPipeline.LiveWorkers > 0)
        {
            if (sw.Elapsed > Patience)
            {
                return false;
            }

            Thread.Sleep(20);
        }

        return true;
    }

    private sealed class Item(int number)
    {
        public int Number { get; } = number;

        public long Result { get; set; }

        public int WorkThread { get; set; }
    }
}

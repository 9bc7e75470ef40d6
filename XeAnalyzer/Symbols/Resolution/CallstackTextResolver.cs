using System.Globalization;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Options of <see cref="CallstackTextResolver.Resolve(TextReader, TextWriter, CallstackResolver, CallstackTextResolverOptions?, CancellationToken)"/> (and its stream overload).</summary>
public sealed class CallstackTextResolverOptions
{
    /// <summary>The defaults.</summary>
    public static CallstackTextResolverOptions Default { get; } = new();

    /// <summary>The input's name (file path, or <c>-</c>): used in error messages and the summary.</summary>
    public string? InputName { get; init; }

    /// <summary>The input's module list for raw addresses; <see cref="CallstackResolverOptions.ModuleMap"/> when <see langword="null"/>.</summary>
    public ModuleMap? ModuleMap { get; init; }

    /// <summary>Frames written on one line separated by blanks (see <see cref="StackTextReaderOptions.FramesOnSingleLine"/>).</summary>
    public bool FramesOnSingleLine { get; init; }

    /// <summary>
    /// The radix of already-symbolized displacements written without <c>0x</c>: <see cref="OffsetRadix.Hex"/> for captures (the default);
    /// <see cref="OffsetRadix.Decimal"/> only to re-read microsoft/SQLCallStackResolver output (<c>sqlmin!Name+425</c>).
    /// </summary>
    public OffsetRadix SymbolizedOffsetRadix { get; init; } = OffsetRadix.Hex;

    /// <summary>Caps on the text input; <see cref="TextInputLimits.Default"/> when <see langword="null"/>.</summary>
    public TextInputLimits? Limits { get; init; }

    /// <summary>Whether unresolved frames get <c> -- unresolved: {reason}</c> appended; <see langword="true"/> by default.</summary>
    public bool WriteReasons { get; init; } = true;

    /// <summary>
    /// Whether to parse on one thread while the others (one fewer than the processors) resolve batches of stacks and write them in input
    /// order; by default when the machine has more than one processor. The output is the same either way.
    /// </summary>
    public bool Pipelined { get; init; } = Environment.ProcessorCount > 1;

    /// <summary>See <see cref="StackTextReaderOptions.InternLines"/> (tests only).</summary>
    internal bool InternLines { get; init; } = true;

    /// <summary>See <see cref="StackTextReaderOptions.LiftValues"/> (tests only).</summary>
    internal bool LiftValues { get; init; } = true;

    /// <summary>
    /// How many threads resolve and write when pipelined, besides the parser thread: by default one fewer than the processors, at
    /// least one, so the pipeline's busy threads are no more than the cores (on two cores two resolving workers and the parser
    /// time-share and evict each other's caches: measured 5–15 % slower than one worker). Tests set it to run several workers anywhere.
    /// </summary>
    internal int Workers { get; init; } = Math.Max(1, Environment.ProcessorCount - 1);
}

/// <summary>
/// Resolves a callstack text input of any shape into resolved text: reads it with <see cref="StackTextReader"/>, resolves each stack in
/// one <see cref="ResolverSession"/> (the input's CSV symbol metadata is applied to the stacks after it), writes it with
/// <see cref="ResolvedCallstackWriter"/>, and summarises. This is exactly what <c>xeanalyze resolve</c> runs.
/// </summary>
public static class CallstackTextResolver
{
    // A batch closes at 64 stacks or 2,048 frames, and at most 4 batches wait to be resolved and 4 to be written: what is in flight
    // stays small (a plain-text input is one stack handed out in pieces of 2,000 lines, and 200,000 distinct addresses must not
    // cost more memory than llvm-symbolizer), while hand-overs stay rare enough: a waiting thread blocks, and a hand-over pulses
    // only when a thread waits.
    private const int BatchStacks = 64;
    private const int BatchFrames = 2048;
    private const int QueuedBatches = 4;

    /// <summary>Resolves <paramref name="input"/> into <paramref name="output"/>.</summary>
    /// <param name="input">The text input (not disposed).</param>
    /// <param name="output">The destination (not disposed; flushed at the end).</param>
    /// <param name="resolver">The resolver.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The summary of the input.</returns>
    /// <exception cref="InvalidTextInputException">The input is malformed (bad XML, an over-long line, one module with two PDB builds in CSV metadata); what was resolved before is written.</exception>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    public static ResolutionSummary Resolve(TextReader input, TextWriter output, CallstackResolver resolver, CallstackTextResolverOptions? options = null, CancellationToken cancellationToken = default) =>
        Resolve(input, new ResolvedCallstackWriter(output, (options ?? CallstackTextResolverOptions.Default).WriteReasons), resolver, options, cancellationToken);

    /// <summary>
    /// Resolves <paramref name="input"/> into <paramref name="output"/> as UTF-8 (no byte order mark): the same text as the
    /// <see cref="TextWriter"/> overload, faster for big outputs (each distinct resolved frame is encoded once).
    /// </summary>
    /// <param name="input">The text input (not disposed).</param>
    /// <param name="output">The destination (not disposed; flushed at the end).</param>
    /// <param name="resolver">The resolver.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The summary of the input.</returns>
    /// <exception cref="InvalidTextInputException">The input is malformed (bad XML, an over-long line, one module with two PDB builds in CSV metadata); what was resolved before is written.</exception>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    /// <exception cref="ArgumentException"><paramref name="output"/> is not writable.</exception>
    public static ResolutionSummary Resolve(TextReader input, Stream output, CallstackResolver resolver, CallstackTextResolverOptions? options = null, CancellationToken cancellationToken = default) =>
        Resolve(input, new ResolvedCallstackWriter(output, (options ?? CallstackTextResolverOptions.Default).WriteReasons), resolver, options, cancellationToken);

    // The output is checked by the writer's constructor.
    private static ResolutionSummary Resolve(TextReader input, ResolvedCallstackWriter writer, CallstackResolver resolver, CallstackTextResolverOptions? options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(resolver);
        options ??= CallstackTextResolverOptions.Default;
        var readerOptions = new StackTextReaderOptions
        {
            FilePath = options.InputName,
            FramesOnSingleLine = options.FramesOnSingleLine,
            SymbolizedOffsetRadix = options.SymbolizedOffsetRadix,
            Limits = options.Limits ?? TextInputLimits.Default,
            InternLines = options.InternLines,
            LiftValues = options.LiftValues,
        };
        ModuleMap? map = options.ModuleMap ?? resolver.Options.ModuleMap;
        ResolverSession session = resolver.CreateSession(map);
        var summary = new ResolutionSummaryBuilder(options.InputName, map is not null);
        using var reader = new StackTextReader(input, readerOptions);
        try
        {
            if (options.Pipelined)
            {
                RunPipelined(reader, session, writer, summary, Math.Max(1, options.Workers), cancellationToken);
            }
            else
            {
                int known = 0;
                foreach (Callstack stack in reader.ReadStacks(cancellationToken))
                {
                    if (reader.SymbolMetadata.Count != known)
                    {
                        known = reader.SymbolMetadata.Count;
                        session.AddSymbolMetadata(reader.SymbolMetadata.Entries);
                    }

                    ResolvedCallstack resolved = session.Resolve(stack, cancellationToken);
                    writer.Write(resolved);
                    summary.Add(resolved);
                }
            }
        }
        finally
        {
            writer.Flush();
        }

        foreach (InputWarning w in reader.Warnings)
        {
            summary.AddWarning(string.Create(CultureInfo.InvariantCulture, $"line {w.LineNumber}: {w.Message}"));
        }

        return summary.Build(resolver);
    }

    /// <summary>
    /// The pipeline: a parser thread groups stacks in batches; the workers (this thread and <paramref name="workers"/> − 1 helpers)
    /// take batches in input order, resolve them, and whichever finishes the oldest unwritten batch writes every finished batch from
    /// there on (outside the lock, so the other workers keep resolving), so the output and the summary follow the input order. A batch carrying CSV symbol metadata waits until
    /// every earlier batch is written, applies the metadata, and only then may later batches be resolved: each stack sees exactly the
    /// metadata it would see in a sequential run. Threads that wait block on the lock's monitor rather than spin, so on two cores a
    /// waiting worker leaves the processor to the parser.
    /// </summary>
    private static void RunPipelined(StackTextReader reader, ResolverSession session, ResolvedCallstackWriter writer, ResolutionSummaryBuilder summary, int workers, CancellationToken ct)
    {
        var order = new OrderedBatches(session, writer, summary);
        using CancellationTokenRegistration registration = ct.Register(order.Abort);
        ExceptionDispatchInfo? producerError = null;
        var producer = new Thread(() =>
        {
            try
            {
                foreach (Batch batch in Batches(reader, ct))
                {
                    if (!order.Add(batch))
                    {
                        break;
                    }
                }
            }
            catch (OperationCanceledException) when (order.Aborted)
            {
                // The consumers stopped (or the caller canceled): nothing more to hand over.
            }
#pragma warning disable CA1031 // Every failure of the parser is handed to the consumer thread and rethrown there.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                producerError = ExceptionDispatchInfo.Capture(ex);
            }
            finally
            {
                order.CompleteAdding();
            }
        })
        {
            IsBackground = true,
            Name = "xeanalyzer-resolve-parser",
        };

        ExceptionDispatchInfo? helperError = null;
        var helpers = new Thread[Math.Max(0, workers - 1)];
        for (int h = 0; h < helpers.Length; h++)
        {
            helpers[h] = new Thread(() =>
            {
                try
                {
                    order.Work(ct);
                }
                catch (OperationCanceledException) when (order.Aborted)
                {
                    // Another worker failed or the caller canceled.
                }
#pragma warning disable CA1031 // A failure of a helper is rethrown on the calling thread.
                catch (Exception ex)
#pragma warning restore CA1031
                {
                    Interlocked.CompareExchange(ref helperError, ExceptionDispatchInfo.Capture(ex), null);
                    order.Abort();
                }
            })
            {
                IsBackground = true,
                Name = "xeanalyzer-resolve-worker",
            };
        }

        producer.Start();
        foreach (Thread helper in helpers)
        {
            helper.Start();
        }

        try
        {
            order.Work(ct);
            JoinAll(helpers); // a helper may still be resolving the last batch it took
        }
        catch (OperationCanceledException) when (order.Aborted && !ct.IsCancellationRequested && Volatile.Read(ref helperError) is not null)
        {
            // A helper failed: its exception is rethrown below.
        }
        catch
        {
            order.Abort();
            throw;
        }
        finally
        {
            order.Abort();
            JoinAll(helpers);
            producer.Join();
        }

        ct.ThrowIfCancellationRequested();
        helperError?.Throw();
        producerError?.Throw();
    }

    private static void JoinAll(Thread[] threads)
    {
        foreach (Thread t in threads)
        {
            t.Join();
        }
    }

    /// <summary>
    /// The shared state of the pipeline (see <see cref="RunPipelined"/>): the bounded queue of parsed batches, their numbering, the
    /// resolved batches waiting to be written, and the metadata barrier. Every field is guarded by <c>_gate</c>; writing happens
    /// outside it, by one worker at a time (<c>_writing</c>).
    /// </summary>
    private sealed class OrderedBatches(ResolverSession session, ResolvedCallstackWriter writer, ResolutionSummaryBuilder summary)
    {
        private readonly object _gate = new(); // Monitor.Wait/PulseAll: every wait of the pipeline
        private readonly Queue<Batch> _queue = new(QueuedBatches);
        private readonly Dictionary<long, ResolvedCallstack[]> _done = [];
        private long _taken;
        private long _written;
        private long _lastMetadataTaken = -1; // the number of the last batch taken that carries metadata
        private long _lastMetadataApplied = -1; // the number of the last metadata batch applied (they are applied in order)
        private bool _completed;
        private bool _writing;
        private int _waiting; // threads in Monitor.Wait: a hand-over pulses only when someone waits
        private volatile bool _aborted;

        /// <summary>True once the pipeline was stopped (a failure or the caller's token).</summary>
        public bool Aborted => _aborted;

        /// <summary>Queues a parsed batch, waiting while <see cref="QueuedBatches"/> wait already; false when the pipeline stopped.</summary>
        public bool Add(Batch batch)
        {
            lock (_gate)
            {
                while (_queue.Count >= QueuedBatches && !_aborted)
                {
                    Wait();
                }

                if (_aborted)
                {
                    return false;
                }

                _queue.Enqueue(batch);
                Pulse();
                return true;
            }
        }

        /// <summary>Says that no batch follows.</summary>
        public void CompleteAdding()
        {
            lock (_gate)
            {
                _completed = true;
                Monitor.PulseAll(_gate);
            }
        }

        /// <summary>Takes batches until the queue is empty and complete, resolving each one and writing what is finished in order.</summary>
        public void Work(CancellationToken ct)
        {
            while (true)
            {
                Batch batch;
                long seq;
                long needs;

                // Taking and numbering happen under one lock, so numbers follow the input order.
                lock (_gate)
                {
                    // No more than QueuedBatches resolved batches wait for the writer: memory stays bounded when writing is the slow part.
                    while (((_queue.Count == 0 && !_completed) || (_queue.Count > 0 && _taken - _written >= QueuedBatches)) && !_aborted)
                    {
                        Wait();
                    }

                    ThrowIfAborted(ct);
                    if (_queue.Count == 0)
                    {
                        return;
                    }

                    batch = _queue.Dequeue();
                    seq = _taken++;

                    // The metadata a batch must see: that of every earlier metadata batch, the last of which is the last one taken.
                    needs = _lastMetadataTaken;
                    if (batch.Metadata is not null)
                    {
                        _lastMetadataTaken = seq;
                    }

                    Pulse(); // the parser may wait for room
                }

                Finish(seq, Resolve(batch, seq, needs, ct));
            }
        }

        /// <summary>Stops the pipeline and wakes every thread that waits in it.</summary>
        public void Abort()
        {
            lock (_gate)
            {
                _aborted = true;
                Monitor.PulseAll(_gate);
            }
        }

        // Both under _gate.
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

        private void Pulse()
        {
            if (_waiting > 0)
            {
                Monitor.PulseAll(_gate);
            }
        }

        /// <summary>
        /// Resolves a batch once the metadata it must see is in place: a batch carrying metadata waits until every earlier batch is written
        /// (they must not see it), then applies it; any batch first waits until the metadata batch numbered <paramref name="needs"/> (the
        /// last one before it, or -1) has been applied. Two metadata batches can be in flight at once, so each waits for its own.
        /// </summary>
        private ResolvedCallstack[] Resolve(Batch batch, long seq, long needs, CancellationToken ct)
        {
            ct.ThrowIfCancellationRequested();
            if (batch.Metadata is not null || (needs >= 0 && Volatile.Read(ref _lastMetadataApplied) < needs))
            {
                lock (_gate)
                {
                    // Every earlier batch resolved and written before the metadata changes what later stacks resolve to (that includes
                    // the earlier metadata batches, so metadata is applied in input order).
                    while (((batch.Metadata is not null && _written < seq) || _lastMetadataApplied < needs) && !_aborted)
                    {
                        Wait();
                    }

                    ThrowIfAborted(ct);
                }
            }

            if (batch.Metadata is not null)
            {
                session.AddSymbolMetadata(batch.Metadata);
                lock (_gate)
                {
                    _lastMetadataApplied = seq;
                    Pulse();
                }
            }

            var resolved = new ResolvedCallstack[batch.Stacks.Count];
            for (int i = 0; i < resolved.Length; i++)
            {
                resolved[i] = session.Resolve(batch.Stacks[i], ct);
            }

            return resolved;
        }

        /// <summary>
        /// Records a resolved batch; unless the other worker is writing, writes every finished batch from the oldest unwritten one on,
        /// each outside the lock.
        /// </summary>
        private void Finish(long seq, ResolvedCallstack[] resolved)
        {
            lock (_gate)
            {
                _done.Add(seq, resolved);
                if (_writing)
                {
                    return;
                }

                _writing = true;
            }

            bool writing = true;
            try
            {
                while (true)
                {
                    ResolvedCallstack[]? ready;
                    lock (_gate)
                    {
                        if (_aborted || !_done.Remove(_written, out ready))
                        {
                            _writing = writing = false;
                            Pulse();
                            return;
                        }
                    }

                    foreach (ResolvedCallstack r in ready)
                    {
                        writer.Write(r);
                        summary.Add(r);
                    }

                    lock (_gate)
                    {
                        _written++;
                        Pulse();
                    }
                }
            }
            finally
            {
                if (writing)
                {
                    lock (_gate)
                    {
                        _writing = false;
                        Pulse();
                    }
                }
            }
        }

        private void ThrowIfAborted(CancellationToken ct)
        {
            ct.ThrowIfCancellationRequested();
            if (_aborted)
            {
                throw new OperationCanceledException(ct);
            }
        }
    }

    /// <summary>Groups the stacks in batches; a batch that follows new CSV symbol metadata carries a snapshot of it (taken on the parsing thread).</summary>
    private static IEnumerable<Batch> Batches(StackTextReader reader, CancellationToken ct)
    {
        var stacks = new List<Callstack>(BatchStacks);
        ModulePdbInfo[]? metadata = null;
        int known = 0;
        int frames = 0;
        using IEnumerator<Callstack> read = reader.ReadStacks(ct).GetEnumerator();
        ExceptionDispatchInfo? failure = null;
        while (true)
        {
            // A malformed input stops the parser: the stacks before it still go out (as in a sequential run), then the failure.
            bool more;
            try
            {
                more = read.MoveNext();
            }
            catch (InvalidTextInputException ex)
            {
                failure = ExceptionDispatchInfo.Capture(ex);
                more = false;
            }

            if (!more)
            {
                break;
            }

            Callstack stack = read.Current;
            if (reader.SymbolMetadata.Count != known)
            {
                if (stacks.Count > 0)
                {
                    yield return new Batch(stacks, metadata);
                    stacks = new List<Callstack>(BatchStacks);
                    frames = 0;
                }

                known = reader.SymbolMetadata.Count;
                metadata = [.. reader.SymbolMetadata.Entries];
            }

            stacks.Add(stack);
            frames += stack.Frames.Length;
            if (stacks.Count == BatchStacks || frames >= BatchFrames)
            {
                yield return new Batch(stacks, metadata);
                stacks = new List<Callstack>(BatchStacks);
                metadata = null;
                frames = 0;
            }
        }

        if (stacks.Count > 0 || metadata is not null)
        {
            yield return new Batch(stacks, metadata);
        }

        failure?.Throw();
    }

    private sealed record Batch(List<Callstack> Stacks, ModulePdbInfo[]? Metadata);
}

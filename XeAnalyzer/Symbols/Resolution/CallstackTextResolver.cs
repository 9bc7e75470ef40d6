using System.Collections.Concurrent;
using System.Globalization;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Options of <see cref="CallstackTextResolver.Resolve"/>.</summary>
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
    /// Whether to parse on one thread while two others resolve batches of stacks and write them in input order; by default when the
    /// machine has more than one processor. The output is the same either way.
    /// </summary>
    public bool Pipelined { get; init; } = Environment.ProcessorCount > 1;
}

/// <summary>
/// Resolves a callstack text input of any shape into resolved text: reads it with <see cref="StackTextReader"/>, resolves each stack in
/// one <see cref="ResolverSession"/> (the input's CSV symbol metadata is applied to the stacks after it), writes it with
/// <see cref="ResolvedCallstackWriter"/>, and summarises. This is exactly what <c>xeanalyze resolve</c> runs.
/// </summary>
public static class CallstackTextResolver
{
    // A batch closes at 64 stacks or 2,048 frames, and at most 4 batches wait: what is in flight stays small, so little survives a
    // gen0 collection (a plain-text input is one stack handed out in pieces of thousands of lines), while hand-overs between the
    // threads stay rare.
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
    public static ResolutionSummary Resolve(TextReader input, TextWriter output, CallstackResolver resolver, CallstackTextResolverOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(resolver);
        options ??= CallstackTextResolverOptions.Default;
        var readerOptions = new StackTextReaderOptions
        {
            FilePath = options.InputName,
            FramesOnSingleLine = options.FramesOnSingleLine,
            SymbolizedOffsetRadix = options.SymbolizedOffsetRadix,
            Limits = options.Limits ?? TextInputLimits.Default,
        };
        ModuleMap? map = options.ModuleMap ?? resolver.Options.ModuleMap;
        ResolverSession session = resolver.CreateSession(map);
        var summary = new ResolutionSummaryBuilder(options.InputName, map is not null);
        var writer = new ResolvedCallstackWriter(output, options.WriteReasons);
        using var reader = new StackTextReader(input, readerOptions);
        try
        {
            if (options.Pipelined)
            {
                RunPipelined(reader, session, writer, summary, cancellationToken);
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
            output.Flush();
        }

        foreach (InputWarning w in reader.Warnings)
        {
            summary.AddWarning(string.Create(CultureInfo.InvariantCulture, $"line {w.LineNumber}: {w.Message}"));
        }

        return summary.Build(resolver);
    }

    private static void Process(Batch batch, ResolverSession session, ResolvedCallstackWriter writer, ResolutionSummaryBuilder summary, CancellationToken ct)
    {
        ct.ThrowIfCancellationRequested();
        if (batch.Metadata is not null)
        {
            session.AddSymbolMetadata(batch.Metadata);
        }

        foreach (Callstack stack in batch.Stacks)
        {
            ResolvedCallstack resolved = session.Resolve(stack, ct);
            writer.Write(resolved);
            summary.Add(resolved);
        }
    }

    /// <summary>
    /// The pipeline: a parser thread groups stacks in batches; two workers (this thread and a helper) take batches in input order, resolve
    /// them, and whichever finishes the oldest unwritten batch writes every finished batch from there on, so the output and the summary
    /// follow the input order. A batch carrying CSV symbol metadata waits until every earlier batch is resolved, applies the metadata,
    /// and only then may later batches be resolved: each stack sees exactly the metadata it would see in a sequential run.
    /// </summary>
    private static void RunPipelined(StackTextReader reader, ResolverSession session, ResolvedCallstackWriter writer, ResolutionSummaryBuilder summary, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        using var queue = new BlockingCollection<Batch>(QueuedBatches);
        ExceptionDispatchInfo? producerError = null;
        var producer = new Thread(() =>
        {
            try
            {
                foreach (Batch batch in Batches(reader, stop.Token))
                {
                    queue.Add(batch, stop.Token);
                }
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
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
                queue.CompleteAdding();
            }
        })
        {
            IsBackground = true,
            Name = "xeanalyzer-resolve-parser",
        };

        var order = new OrderedBatches(session, writer, summary);
        ExceptionDispatchInfo? helperError = null;
        var helper = new Thread(() =>
        {
            try
            {
                order.Work(queue, stop.Token);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                // The other worker failed or the caller canceled.
            }
#pragma warning disable CA1031 // A failure of the helper is rethrown on the calling thread.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                helperError = ExceptionDispatchInfo.Capture(ex);
                stop.Cancel();
                order.Abort();
            }
        })
        {
            IsBackground = true,
            Name = "xeanalyzer-resolve-worker",
        };
        producer.Start();
        helper.Start();
        try
        {
            order.Work(queue, stop.Token);
            helper.Join(); // the helper may still be resolving the last batch it took
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested && !ct.IsCancellationRequested && helperError is not null)
        {
            // The helper failed: its exception is rethrown below.
        }
        finally
        {
            stop.Cancel();
            order.Abort();
            helper.Join();
            producer.Join();
        }

        ct.ThrowIfCancellationRequested();
        helperError?.Throw();
        producerError?.Throw();
    }

    /// <summary>The shared state of the pipeline's two workers (see <see cref="RunPipelined"/>); every field is guarded by the instance lock.</summary>
    private sealed class OrderedBatches(ResolverSession session, ResolvedCallstackWriter writer, ResolutionSummaryBuilder summary)
    {
        private readonly object _gate = new(); // Monitor.Wait/PulseAll: workers wait for each other's batches
        private readonly object _take = new();
        private readonly Dictionary<long, ResolvedCallstack[]> _done = [];
        private long _taken;
        private long _written;
        private long _metadataSeq = -1;
        private bool _metadataApplied = true;
        private bool _aborted;

        /// <summary>Takes batches until the queue is empty, resolving each one and writing what is finished in order.</summary>
        public void Work(BlockingCollection<Batch> queue, CancellationToken ct)
        {
            while (true)
            {
                Batch? batch;
                long seq;

                // One worker at a time takes and numbers a batch (waiting for the parser if need be), so numbers follow the input order.
                lock (_take)
                {
                    if (!queue.TryTake(out batch, Timeout.Infinite, ct))
                    {
                        return;
                    }

                    lock (_gate)
                    {
                        seq = _taken++;
                        if (batch.Metadata is not null)
                        {
                            _metadataSeq = seq;
                            _metadataApplied = false;
                        }
                    }
                }

                Finish(seq, Resolve(batch, seq, ct));
            }
        }

        /// <summary>Wakes and stops a worker that waits for the other one.</summary>
        public void Abort()
        {
            lock (_gate)
            {
                _aborted = true;
                Monitor.PulseAll(_gate);
            }
        }

        private ResolvedCallstack[] Resolve(Batch batch, long seq, CancellationToken ct)
        {
            ct.ThrowIfCancellationRequested();
            lock (_gate)
            {
                if (batch.Metadata is not null)
                {
                    // Every earlier batch resolved (and so written) before the metadata changes what later stacks resolve to.
                    while (_written < seq && !_aborted)
                    {
                        Monitor.Wait(_gate);
                    }
                }
                else
                {
                    // A batch after new metadata waits until it is applied.
                    while (_metadataSeq < seq && _metadataSeq >= 0 && !_metadataApplied && !_aborted)
                    {
                        Monitor.Wait(_gate);
                    }
                }

                ThrowIfAborted(ct);
            }

            if (batch.Metadata is not null)
            {
                session.AddSymbolMetadata(batch.Metadata);
                lock (_gate)
                {
                    _metadataApplied = true;
                    Monitor.PulseAll(_gate);
                }
            }

            var resolved = new ResolvedCallstack[batch.Stacks.Count];
            for (int i = 0; i < resolved.Length; i++)
            {
                resolved[i] = session.Resolve(batch.Stacks[i], ct);
            }

            return resolved;
        }

        /// <summary>Records a resolved batch and writes every finished batch from the oldest unwritten one on.</summary>
        private void Finish(long seq, ResolvedCallstack[] resolved)
        {
            lock (_gate)
            {
                _done.Add(seq, resolved);
                while (_done.Remove(_written, out ResolvedCallstack[]? ready))
                {
                    foreach (ResolvedCallstack r in ready)
                    {
                        writer.Write(r);
                        summary.Add(r);
                    }

                    _written++;
                }

                Monitor.PulseAll(_gate);
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
        foreach (Callstack stack in reader.ReadStacks(ct))
        {
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
    }

    private sealed record Batch(List<Callstack> Stacks, ModulePdbInfo[]? Metadata);
}

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
    /// Whether to parse on one thread while resolving and writing on another (a two-stage pipeline); by default when the machine has
    /// more than one processor. The output is the same either way.
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
                // The consumer stopped (or the caller canceled): nothing more to hand over.
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
        producer.Start();
        try
        {
            foreach (Batch batch in queue.GetConsumingEnumerable(ct))
            {
                Process(batch, session, writer, summary, ct);
            }
        }
        finally
        {
            stop.Cancel();
            producer.Join();
        }

        ct.ThrowIfCancellationRequested();
        producerError?.Throw();
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

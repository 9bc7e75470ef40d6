using System.Globalization;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Options of <see cref="CallstackTextResolver"/>'s <c>Resolve</c> (its text and stream overloads).</summary>
public sealed class CallstackTextResolverOptions
{
    /// <summary>The defaults.</summary>
    public static CallstackTextResolverOptions Default { get; } = new();

    /// <summary>The input's name (file path, or <c>-</c>): used in error messages and the summary.</summary>
    public string? InputName { get; init; }

    /// <summary>The input's module list for raw addresses; <see cref="CallstackResolverOptions.ModuleMap"/> when
    /// <see langword="null"/>.</summary>
    public ModuleMap? ModuleMap { get; init; }

    /// <summary>Frames written on one line separated by blanks (see
    /// <see cref="StackTextReaderOptions.FramesOnSingleLine"/>).</summary>
    public bool FramesOnSingleLine { get; init; }

    /// <summary>
    /// The radix of already-symbolized displacements written without <c>0x</c>: <see cref="OffsetRadix.Hex"/> for
    /// captures (the default);
    /// <see cref="OffsetRadix.Decimal"/> only to re-read microsoft/SQLCallStackResolver output
    /// (<c>sqlmin!Name+425</c>).
    /// </summary>
    internal OffsetRadix SymbolizedOffsetRadix { get; init; } = OffsetRadix.Hex;

    /// <summary>Caps on the text input; <see cref="TextInputLimits.Default"/> when <see langword="null"/>.</summary>
    internal TextInputLimits? Limits { get; init; }

    /// <summary>Whether unresolved frames get <c> -- unresolved: {reason}</c> appended; <see langword="true"/> by
    /// default.</summary>
    public bool WriteReasons { get; init; } = true;

    /// <summary>See <see cref="StackTextReaderOptions.InternLines"/> (tests only).</summary>
    internal bool InternLines { get; init; } = true;

    /// <summary>See <see cref="StackTextReaderOptions.LiftValues"/> (tests only).</summary>
    internal bool LiftValues { get; init; } = true;

    /// <summary>
    /// How many threads resolve, the one that writes included, besides the parser thread: by default one fewer than the
    /// processors, at least one, so the busy threads are no more than the cores (on two cores two resolving threads and
    /// the parser time-share and evict each other's caches: measured 5–15 % slower than one). Tests set it to run
    /// several anywhere.
    /// </summary>
    internal int Workers { get; init; } = Math.Max(1, Environment.ProcessorCount - 1);

    /// <summary>The options of the text reader of an input resolved with these options.</summary>
    internal StackTextReaderOptions ReaderOptions() =>
        new()
        {
            FilePath = InputName,
            FramesOnSingleLine = FramesOnSingleLine,
            SymbolizedOffsetRadix = SymbolizedOffsetRadix,
            Limits = Limits ?? TextInputLimits.Default,
            InternLines = InternLines,
            LiftValues = LiftValues,
        };
}

/// <summary>
/// Resolves a callstack text input of any shape into resolved text: reads it with <see cref="StackTextReader"/>,
/// resolves each stack in one <see cref="ResolverSession"/> (the input's CSV symbol metadata is applied to the stacks
/// after it), writes it with
/// <see cref="ResolvedCallstackWriter"/>, and summarises. This is exactly what <c>xeanalyze resolve</c> runs.
/// </summary>
public static class CallstackTextResolver
{
    // A batch closes at 64 stacks or 2,048 frames, and at most 8 batches are parsed and not yet written: what is in
    // flight stays small (a plain-text input is one stack handed out in pieces of 2,000 lines, and 200,000 distinct
    // addresses must not cost more memory than llvm-symbolizer), while hand-overs between the threads stay rare.
    private const int BatchStacks = 64;
    private const int BatchFrames = 2048;
    private const int InFlightBatches = 8;

    /// <summary>Resolves <paramref name="input"/> into <paramref name="output"/>.</summary>
    /// <param name="input">The text input (not disposed).</param>
    /// <param name="output">The destination (not disposed; flushed at the end).</param>
    /// <param name="resolver">The resolver.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The summary of the input.</returns>
    /// <exception cref="InvalidTextInputException">The input is malformed (bad XML, an over-long line, one module with
    /// two PDB builds in CSV metadata); what was resolved before is written.</exception>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    public static ResolutionSummary Resolve(
        TextReader input,
        TextWriter output,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options = null,
        CancellationToken cancellationToken = default
    ) =>
        Resolve(
            input,
            new ResolvedCallstackWriter(output, (options ?? CallstackTextResolverOptions.Default).WriteReasons),
            resolver,
            options,
            cancellationToken
        );

    /// <summary>
    /// Resolves <paramref name="input"/> into <paramref name="output"/> as UTF-8 (no byte order mark): the same text as
    /// the <see cref="TextWriter"/> overload, faster for big outputs (a resolved frame's line is encoded once, not each
    /// time it is written).
    /// </summary>
    /// <param name="input">The text input (not disposed).</param>
    /// <param name="output">The destination (not disposed; flushed at the end).</param>
    /// <param name="resolver">The resolver.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The summary of the input.</returns>
    /// <exception cref="InvalidTextInputException">The input is malformed (bad XML, an over-long line, one module with
    /// two PDB builds in CSV metadata); what was resolved before is written.</exception>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    /// <exception cref="ArgumentException"><paramref name="output"/> is not writable.</exception>
    public static ResolutionSummary Resolve(
        TextReader input,
        Stream output,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options = null,
        CancellationToken cancellationToken = default
    ) =>
        Resolve(
            input,
            new ResolvedCallstackWriter(output, (options ?? CallstackTextResolverOptions.Default).WriteReasons),
            resolver,
            options,
            cancellationToken
        );

    // The output is checked by the writer's constructor.
    private static ResolutionSummary Resolve(
        TextReader input,
        ResolvedCallstackWriter writer,
        CallstackResolver resolver,
        CallstackTextResolverOptions? options,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(resolver);
        options ??= CallstackTextResolverOptions.Default;
        ModuleMap? map = options.ModuleMap ?? resolver.Options.ModuleMap;
        ResolverSession session = resolver.CreateSession(map);
        var summary = new ResolutionSummaryBuilder(options.InputName, map is not null);
        using var reader = new StackTextReader(input, options.ReaderOptions());
        try
        {
            // The parser runs on a thread of its own; this thread and the workers resolve; this thread writes, in input
            // order.
            IEnumerable<Batch> resolved = OrderedPipeline.Run(
                Batches(reader, cancellationToken),
                batch => batch.Resolve(session, cancellationToken),
                Math.Max(1, options.Workers),
                InFlightBatches,
                "xeanalyzer-resolve",
                runsAlone: batch => batch.Metadata is not null,
                cancellationToken
            );
            foreach (Batch batch in resolved)
            {
                foreach (ResolvedCallstack r in batch.Resolved)
                {
                    writer.Write(r);
                    summary.Add(r);
                }
            }
        }
        finally
        {
            writer.Flush();
        }

        foreach (InputWarning w in reader.Warnings)
        {
            summary.AddWarning(WarningText(w));
        }

        return summary.Build(resolver);
    }

    /// <summary>How the summary states a warning of the text reader.</summary>
    internal static string WarningText(InputWarning warning) =>
        string.Create(CultureInfo.InvariantCulture, $"line {warning.LineNumber}: {warning.Message}");

    /// <summary>
    /// Groups the stacks in batches; a batch that follows new CSV symbol metadata carries a snapshot of it (taken on
    /// the parsing thread). Such a batch is resolved alone, after every earlier one and before any later one: each
    /// stack sees exactly the metadata that precedes it in the input.
    /// </summary>
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
            // A malformed input stops the parser: the stacks before it still go out (as in a sequential run), then the
            // failure.
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

    /// <summary>
    /// Stacks resolved together; one that follows new CSV symbol metadata carries it and applies it first.
    /// </summary>
    private sealed class Batch(List<Callstack> stacks, ModulePdbInfo[]? metadata)
    {
        /// <summary>
        /// The metadata to apply before these stacks resolve (the pipeline runs such a batch alone), or null.
        /// </summary>
        public ModulePdbInfo[]? Metadata { get; } = metadata;

        /// <summary>The resolved stacks, once <see cref="Resolve"/> has run.</summary>
        public ResolvedCallstack[] Resolved { get; private set; } = [];

        public void Resolve(ResolverSession session, CancellationToken ct)
        {
            if (Metadata is not null)
            {
                session.AddSymbolMetadata(Metadata);
            }

            var resolved = new ResolvedCallstack[stacks.Count];
            for (int i = 0; i < resolved.Length; i++)
            {
                resolved[i] = session.Resolve(stacks[i], ct);
            }

            Resolved = resolved;
        }
    }
}

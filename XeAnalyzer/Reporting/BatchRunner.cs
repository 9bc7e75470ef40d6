using System.Diagnostics;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Reporting;

/// <summary>How one capture of a batch came out.</summary>
public enum BatchStatus
{
    /// <summary>Report written; at least one analysis ran; every file was read whole.</summary>
    Ok,

    /// <summary>Report written, but the reader skipped damaged or incomplete data.</summary>
    Partial,

    /// <summary>Report written, but no analysis was possible (the page says what the session would need).</summary>
    NothingToAnalyse,

    /// <summary>The capture could not be read (the reason says why); no report.</summary>
    Failed,

    /// <summary>Not processed: an earlier failure stopped the batch (without keep-going).</summary>
    NotRun,
}

/// <summary>What a batch progress event reports.</summary>
internal enum BatchEventKind
{
    /// <summary>A capture's processing started.</summary>
    Start,

    /// <summary>A capture's report was written (<see cref="BatchEvent.Status"/> says how it came out).</summary>
    Finish,

    /// <summary>A capture failed.</summary>
    Fail,
}

/// <summary>A progress event of <see cref="BatchRunner"/> (for progress output and machine logs; never part of the
/// batch's files).</summary>
/// <param name="Kind">What happened.</param>
/// <param name="Capture">The capture.</param>
/// <param name="Index">The capture's position (0-based) in discovery order.</param>
/// <param name="Total">How many captures the batch has.</param>
/// <param name="Status">The outcome (for finish and fail events).</param>
/// <param name="Reason">Why it failed, or <see langword="null"/>.</param>
/// <param name="Elapsed">Time spent on the capture (0 for start events).</param>
/// <param name="Events">Events read (finish events).</param>
/// <param name="Completed">Captures finished or failed so far, including this one.</param>
/// <param name="Running">Captures being processed right now (after this event).</param>
internal sealed record BatchEvent(
    BatchEventKind Kind,
    BatchCapture Capture,
    int Index,
    int Total,
    BatchStatus? Status,
    string? Reason,
    TimeSpan Elapsed,
    long Events,
    int Completed,
    int Running
);

/// <summary>Options of <see cref="BatchRunner"/>. Immutable.</summary>
public sealed class BatchOptions
{
    /// <summary>Captures processed at once (1 to 256; default: the processor count).</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..256.</exception>
    public int Jobs
    {
        get;
        init =>
            field = value is >= 1 and <= 256
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "Jobs must be 1..256.");
    } = Math.Clamp(Environment.ProcessorCount, 1, 256);

    /// <summary>Whether to go on after a capture fails (default <see langword="false"/>: the first failure stops
    /// scheduling new captures).</summary>
    public bool KeepGoing { get; init; }

    /// <summary>
    /// The report options every capture uses (reader, analyses, and the <see cref="ReportOptions.Resolver"/> shared by
    /// all captures, so each PDB is opened once per batch). <see cref="ReportOptions.DisplayPath"/>,
    /// <see cref="ReportOptions.Title"/> are set per capture, and each capture uses its own module list sidecar.
    /// </summary>
    public ReportOptions Report { get; init; } = ReportOptions.Default;

    /// <summary>Called for every progress event, one call at a time (never concurrently), in the order the events
    /// happen.</summary>
    internal Action<BatchEvent>? Progress { get; init; }
}

/// <summary>One analysis of a batch capture: whether it ran, and why not.</summary>
/// <param name="Key">The analysis key.</param>
/// <param name="Title">The analysis title.</param>
/// <param name="Done">Whether it ran.</param>
/// <param name="Note">Why it was not possible (the missing-data message), or its warnings.</param>
public sealed record BatchAnalysisStatus(string Key, string Title, bool Done, string Note);

/// <summary>How one capture of a batch came out: the figures of its report (the report itself is written, then
/// dropped).</summary>
/// <remarks>Immutable.</remarks>
public sealed class BatchItemResult
{
    internal BatchItemResult(
        BatchCapture capture,
        BatchStatus status,
        string? reason,
        CaptureReport? report,
        TimeSpan elapsed
    )
    {
        Capture = capture;
        Status = status;
        Reason = reason;
        Elapsed = elapsed;
        HasReport = report is not null;
        Events = report?.Capture.EventTypes.Sum(e => e.Count) ?? 0;
        FirstEvent = report?.Capture.FirstEvent;
        LastEvent = report?.Capture.LastEvent;
        EventsByName = report?.Capture.EventTypes ?? [];
        Analyses = report is null
            ? []
            :
            [
                .. report.Analyses.Select(a => new BatchAnalysisStatus(
                    a.Key,
                    a.Title,
                    AnalysisOutcome.Ran(a),
                    a.MissingData?.Message ?? string.Join("; ", a.Warnings.Select(w => w.Text))
                )),
            ];
        Symbolization = report?.Analyses.Select(a => a.FrameCounts).FirstOrDefault(c => c is not null);
        Warnings = report?.Warnings ?? [];
        Read = report?.Capture;
        FilterMisses =
            Read is null ? []
            : Read.Filter.FindUnknownNames(Read) is { Count: > 0 } unknown ? unknown
            : MissingDataExplainer.ExplainNoMatch(Read) is string none ? [none]
            : [];
    }

    /// <summary>What the read of the capture found, or <see langword="null"/> without a report.</summary>
    internal CaptureSummary? Read { get; }

    /// <summary>Why the batch's filter matched nothing in this capture (names it lacks, or no event kept); empty when
    /// it matched or there is no filter.</summary>
    internal IReadOnlyList<string> FilterMisses { get; }

    /// <summary>The capture.</summary>
    public BatchCapture Capture { get; }

    /// <summary>How it came out.</summary>
    public BatchStatus Status { get; }

    /// <summary>Why it failed or was not run, or <see langword="null"/>.</summary>
    public string? Reason { get; }

    /// <summary>Time spent on the capture (not written to <c>summary.json</c>, which must not depend on
    /// timing).</summary>
    public TimeSpan Elapsed { get; }

    /// <summary>Whether a report folder was written.</summary>
    public bool HasReport { get; }

    /// <summary>Events read.</summary>
    public long Events { get; }

    /// <summary>Earliest event time, or <see langword="null"/>.</summary>
    public DateTime? FirstEvent { get; }

    /// <summary>Latest event time, or <see langword="null"/>.</summary>
    public DateTime? LastEvent { get; }

    /// <summary>Events by name (most frequent first).</summary>
    public IReadOnlyList<EventTypeSummary> EventsByName { get; }

    /// <summary>Each analysis and whether it ran.</summary>
    public IReadOnlyList<BatchAnalysisStatus> Analyses { get; }

    /// <summary>The capture's callstack frames by resolution status, or <see langword="null"/> when it has no
    /// callstacks.</summary>
    public SymbolizationCounts? Symbolization { get; }

    /// <summary>The report's warnings.</summary>
    public IReadOnlyList<string> Warnings { get; }
}

/// <summary>The result of a batch: one entry per capture, in discovery order.</summary>
/// <remarks>Immutable.</remarks>
public sealed class BatchResult : IDocumentSource
{
    internal BatchResult(IReadOnlyList<string> inputs, IReadOnlyList<BatchItemResult> items, TimeSpan elapsed)
    {
        Inputs = inputs;
        Items = items;
        Elapsed = elapsed;
    }

    /// <summary>The inputs as given.</summary>
    public IReadOnlyList<string> Inputs { get; }

    /// <summary>Every capture, in discovery order.</summary>
    public IReadOnlyList<BatchItemResult> Items { get; }

    /// <summary>Wall time of the whole batch (not written to <c>summary.json</c>).</summary>
    public TimeSpan Elapsed { get; }

    /// <summary>How many captures have <paramref name="status"/>.</summary>
    /// <param name="status">A status.</param>
    /// <returns>The count.</returns>
    public int Count(BatchStatus status) => Items.Count(i => i.Status == status);

    /// <inheritdoc/>
    /// <remarks>The page view is <c>index.html</c>'s (one line per capture); every other view is <see
    /// cref="BatchOutput.ToDocument"/>.</remarks>
    public ReportDocument ToDocument(DocumentView view) =>
        view == DocumentView.Page ? BatchOutput.Page(this) : BatchOutput.ToDocument(this);

    /// <summary>Whether any capture failed (or was not run because of a failure).</summary>
    public bool AnyFailed => Items.Any(i => i.Status is BatchStatus.Failed or BatchStatus.NotRun);

    /// <summary>The filter's names that no capture of the batch has, with the nearest names they have
    /// (<see cref="EventFilter.FindUnknownNames(IReadOnlyCollection{CaptureSummary})"/>); a name some captures have
    /// is not listed.</summary>
    /// <returns>One message per unknown name; empty when every name is known or no capture was read.</returns>
    internal IReadOnlyList<string> FindUnknownFilterNames()
    {
        CaptureSummary[] reads = [.. Items.Select(i => i.Read).OfType<CaptureSummary>()];
        return reads.Length == 0 ? [] : reads[0].Filter.FindUnknownNames(reads);
    }
}

/// <summary>
/// Runs <c>xeanalyze batch</c>: one report folder per capture (what <see cref="CaptureReporter"/> and
/// <see cref="CaptureReport.Write"/> make), processed up to <see cref="BatchOptions.Jobs"/> at once, then an
/// <c>index.html</c> (one row per capture, linking each report) and a <c>summary.json</c>. The same inputs give
/// byte-identical files whatever the number of jobs: captures are named and ordered by path, reports do not depend on
/// what other captures did (they share the symbol caches, not the results), and no timing or clock reading is written.
/// </summary>
public static class BatchRunner
{
    /// <summary>Finds the captures in <paramref name="inputs"/> and processes them as <c>xeanalyze batch</c>
    /// does.</summary>
    /// <param name="inputs">Capture files, folders (searched for captures) and globs.</param>
    /// <param name="outputDirectory">The output folder (created if needed).</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the batch (running captures stop, nothing more starts; no index is
    /// written).</param>
    /// <returns>The result.</returns>
    /// <exception cref="FileNotFoundException">An input does not exist.</exception>
    /// <exception cref="IOException">The output folder cannot be written.</exception>
    /// <exception cref="OperationCanceledException">The batch was cancelled.</exception>
    public static BatchResult Run(
        IReadOnlyList<string> inputs,
        string outputDirectory,
        BatchOptions? options = null,
        CancellationToken cancellationToken = default
    ) => Run(inputs, BatchDiscovery.Discover(inputs, cancellationToken), outputDirectory, options, cancellationToken);

    /// <summary>Processes the captures and writes the batch output.</summary>
    /// <param name="inputs">The inputs as given (written to <c>summary.json</c>).</param>
    /// <param name="captures">The captures (from <see cref="BatchDiscovery.Discover"/>).</param>
    /// <param name="outputDirectory">The output folder (created if needed).</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the batch (running captures stop, nothing more is started; no index is
    /// written).</param>
    /// <returns>The result.</returns>
    /// <exception cref="IOException">The output folder cannot be written.</exception>
    /// <exception cref="OperationCanceledException">The batch was cancelled.</exception>
    internal static BatchResult Run(
        IReadOnlyList<string> inputs,
        IReadOnlyList<BatchCapture> captures,
        string outputDirectory,
        BatchOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(inputs);
        ArgumentNullException.ThrowIfNull(captures);
        ArgumentException.ThrowIfNullOrEmpty(outputDirectory);
        options ??= new BatchOptions();
        Directory.CreateDirectory(outputDirectory);
        var total = Stopwatch.StartNew();
        var results = new BatchItemResult?[captures.Count];
        var gate = new Lock();
        int next = -1,
            completed = 0,
            running = 0;
        bool stop = false;
        string? firstFailure = null;

        // Without a resolver of the caller's, one resolver is shared by every capture (its PDB caches are thread-safe).
        CallstackResolver? owned = options.Report.Resolver is null ? new CallstackResolver() : null;
        try
        {
            CallstackResolver resolver = options.Report.Resolver ?? owned!;
            int jobs = Math.Min(options.Jobs, Math.Max(1, captures.Count));

            // Several jobs already keep the cores busy with one capture each: a capture gets its share of the decode
            // threads (one with two jobs on two cores), so jobs do not queue decode work for each other's cores and pay
            // for the hand-offs.
            ReportOptions template = options.Report;
            CaptureReadOptions input = template.Input.WithAtMostDecodeThreads(
                Math.Max(1, XelReadOptions.DefaultDecodeThreads / jobs)
            );
            var workers = new Task[jobs];
            for (int w = 0; w < jobs; w++)
            {
                workers[w] = Task.Run(
                    () =>
                    {
                        while (true)
                        {
                            int i;
                            lock (gate)
                            {
                                if (stop || cancellationToken.IsCancellationRequested || next + 1 >= captures.Count)
                                {
                                    return;
                                }

                                i = ++next;
                                running++;
                                Notify(
                                    options,
                                    new BatchEvent(
                                        BatchEventKind.Start,
                                        captures[i],
                                        i,
                                        captures.Count,
                                        null,
                                        null,
                                        TimeSpan.Zero,
                                        0,
                                        completed,
                                        running
                                    )
                                );
                            }

                            BatchItemResult r = Process(
                                captures[i],
                                outputDirectory,
                                template,
                                input,
                                resolver,
                                cancellationToken
                            );
                            results[i] = r;
                            lock (gate)
                            {
                                running--;
                                completed++;
                                bool failed = r.Status == BatchStatus.Failed;
                                if (failed && !options.KeepGoing && !stop)
                                {
                                    stop = true;
                                    firstFailure = captures[i].Name;
                                }

                                Notify(
                                    options,
                                    new BatchEvent(
                                        failed ? BatchEventKind.Fail : BatchEventKind.Finish,
                                        captures[i],
                                        i,
                                        captures.Count,
                                        r.Status,
                                        r.Reason,
                                        r.Elapsed,
                                        r.Events,
                                        completed,
                                        running
                                    )
                                );
                            }
                        }
                    },
                    CancellationToken.None
                );
            }

            // The workers turn a capture's failure into its result; what escapes them (cancellation) is rethrown as it
            // was thrown.
            try
            {
                Task.WaitAll(workers, CancellationToken.None);
            }
            catch (AggregateException ex) when (ex.InnerExceptions.Count > 0)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(ex.InnerExceptions[0]).Throw();
            }

            cancellationToken.ThrowIfCancellationRequested();
        }
        finally
        {
            owned?.Dispose();
        }

        var items = new BatchItemResult[captures.Count];
        for (int i = 0; i < items.Length; i++)
        {
            items[i] =
                results[i]
                ?? new BatchItemResult(
                    captures[i],
                    BatchStatus.NotRun,
                    "not processed: the batch stopped after "
                        + firstFailure
                        + " failed (use --keep-going to process every capture)",
                    null,
                    TimeSpan.Zero
                );
        }

        var result = new BatchResult([.. inputs], items, total.Elapsed);
        BatchOutput.Write(result, outputDirectory, cancellationToken);
        return result;
    }

    private static void Notify(BatchOptions options, BatchEvent e) => options.Progress?.Invoke(e);

    private static BatchItemResult Process(
        BatchCapture capture,
        string outputDirectory,
        ReportOptions template,
        CaptureReadOptions input,
        CallstackResolver resolver,
        CancellationToken cancellationToken
    )
    {
        var sw = Stopwatch.StartNew();
        try
        {
            var options = new ReportOptions
            {
                Input = input,
                Analyses = template.Analyses,
                Resolver = resolver,
                DisplayPath = capture.DisplayPath,
                Title = "XeAnalyzer report: " + capture.Name,
                Filter = template.Filter,
            };
            CaptureReport report = CaptureReporter.Run(capture.Files, options, cancellationToken);
            report.Write(Path.Combine(outputDirectory, capture.Folder), cancellationToken);
            BatchStatus status = report.Status switch
            {
                ReportStatus.Partial => BatchStatus.Partial,
                ReportStatus.NothingToAnalyse => BatchStatus.NothingToAnalyse,
                _ => BatchStatus.Ok,
            };
            return new BatchItemResult(capture, status, null, report, sw.Elapsed);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            return new BatchItemResult(capture, BatchStatus.Failed, Shorten(capture, ex.Message), null, sw.Elapsed);
        }
        // One capture's failure, whatever it is, must not take the batch down; it is reported with its reason.
#pragma warning disable CA1031
        catch (Exception ex)
#pragma warning restore CA1031
        {
            return new BatchItemResult(
                capture,
                BatchStatus.Failed,
                "internal error (" + ex.GetType().Name + "): " + Shorten(capture, ex.Message),
                null,
                sw.Elapsed
            );
        }
    }

    /// <summary>
    /// Shows the capture's files by their batch names in a message (so it does not depend on where the input lies),
    /// without repeating the capture's own name when the message starts with it (the reason is always shown after the
    /// name).
    /// </summary>
    internal static string Shorten(BatchCapture capture, string message)
    {
        foreach (string f in capture.Files.OrderByDescending(f => f.Length))
        {
            message = message.Replace(f, capture.DisplayPath(f), StringComparison.Ordinal);
        }

        string lead = capture.Name + ": ";
        return message.StartsWith(lead, StringComparison.Ordinal) && message.Length > lead.Length
            ? message[lead.Length..]
            : message;
    }
}

using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze batch &lt;dir|glob|file...&gt; -o DIR [--jobs N] [--keep-going] [--quiet] [--log FILE]</c>: a report
/// folder per capture found under the inputs, an <c>index.html</c> and a <c>summary.json</c>; one symbol resolver for
/// the whole batch. Exit codes: 0 every capture reported, 1 some capture failed (or an input does not exist), 2 usage,
/// 3 none failed but some were partial. Progress (captures done, rate, time left) goes to stderr only when it is a
/// terminal (<see cref="TerminalProgress"/>); per-capture lines unless <c>--quiet</c> (which also hides the progress);
/// failures always.
/// </summary>
internal static class BatchCommand
{
    public static Command Create()
    {
        var inputs = new Argument<string[]>("input")
        {
            Description =
                "Folders (searched recursively for *.xel captures, rollover sets and *.xml target data), files or "
                + "globs.",
            Arity = ArgumentArity.OneOrMore,
        }.AcceptsPaths("a folder, file or glob");
        var output = new Option<string>("--output", "-o")
        {
            Description = "The output folder: one report folder per capture, index.html, summary.json.",
            Required = true,
        }.AcceptsPaths("a folder");
        var jobs = new Option<int?>("--jobs", "-j")
        {
            Description = "Captures processed at once (default: the number of processors).",
        };
        var keepGoing = new Option<bool>("--keep-going")
        {
            Description = "Go on after a capture fails (default: the first failure stops starting new captures).",
        };
        var log = new Option<string?>("--log")
        {
            Description =
                "Write a machine-readable log: JSON lines, one per event (batch start, capture "
                + "start/finish/fail with durations, batch finish).",
        }.AcceptsPaths("a file");
        var symbols = new SymbolCommandOptions();
        var filterOptions = new EventFilterOptions(
            "Default: every event; each analysis uses the events it understands."
        );
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var command = new Command(
            "batch",
            "Report every capture under folders or globs (build agents): a report folder per capture, an index.html "
                + "linking them and a summary.json; parallel, deterministic, one shared symbol cache."
        );
        command.Arguments.Add(inputs);
        command.Options.Add(output);
        command.Options.Add(jobs);
        command.Options.Add(keepGoing);
        command.Options.Add(log);
        filterOptions.AddTo(command);
        symbols.AddPathOptions(command);
        symbols.AddBuildOptions(command);
        command.Options.Add(symbols.Binaries);
        symbols.AddFrameOptions(command);
        command.Options.Add(symbols.NoReasons);
        Option<string> flameRoot = StackCommandOptions.FlameRootOption();
        command.Options.Add(flameRoot);
        command.Options.Add(skip);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (stdout, error) =>
                        {
                            string dir = parse.GetValue(output)!;
                            if (File.Exists(dir))
                            {
                                throw new UsageException("-o: '" + dir + "' is a file; expected a folder");
                            }

                            int? j = parse.GetValue(jobs);
                            if (j is < 1 or > 256)
                            {
                                throw new UsageException("--jobs: expected 1 to 256");
                            }

                            EventFilter filter = filterOptions.Filter(parse);
                            string[] given = parse.GetValue(inputs)!;
                            IReadOnlyList<BatchCapture> captures = BatchDiscovery.Discover(given, cancellationToken);
                            if (captures.Count == 0)
                            {
                                error.WriteLine(
                                    "xeanalyze: no capture (*.xel, *.xml) found under " + string.Join(", ", given)
                                );
                                return ExitCodes.InputError;
                            }

                            // --quiet (shared by every command: no progress display) also drops the per-capture lines
                            // here.
                            bool isQuiet = TerminalProgress.IsQuiet(parse);
                            string? logPath = parse.GetValue(log);
                            using CallstackResolver resolver = ReportCommand.CreateResolver(
                                parse,
                                symbols,
                                cancellationToken
                            );
                            using BatchLog? logger = logPath is null ? null : new BatchLog(logPath);
                            var reporter = new BatchConsole(error, isQuiet, TerminalProgress.Current, logger);
                            logger?.BatchStarted(captures.Count, j ?? new BatchOptions().Jobs, dir);
                            var options = new BatchOptions
                            {
                                Jobs = j ?? new BatchOptions().Jobs,
                                KeepGoing = parse.GetValue(keepGoing),
                                Report = new ReportOptions
                                {
                                    Input = ReportCommand.InputOptions(parse.GetValue(skip)),
                                    Resolver = resolver,
                                    Filter = filter,
                                    ShowUnresolvedReasons = !parse.GetValue(symbols.NoReasons),
                                    FlameRoot = StackCommandOptions.ParseFlameRoot(parse.GetValue(flameRoot)),
                                },
                                Progress = reporter.OnEvent,
                            };
                            BatchResult result = BatchRunner.Run(given, captures, dir, options, cancellationToken);
                            reporter.Finish(result);
                            logger?.BatchFinished(result, resolver.GetPdbBindings().Count(b => b.IsLoaded));

                            // A filter name no capture has is a usage error, as for one capture; one some captures lack
                            // is in the index's notes and the log's noMatch.
                            IReadOnlyList<string> unknown = result.FindUnknownFilterNames();
                            if (unknown.Count > 0)
                            {
                                throw new UsageException(string.Join("\nxeanalyze: ", unknown));
                            }

                            stdout.WriteLine(Path.Combine(dir, BatchOutput.IndexFile));
                            stdout.Flush();
                            return result.AnyFailed ? ExitCodes.InputError
                                : result.Count(BatchStatus.Partial) > 0 ? ExitCodes.Partial
                                : ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples("xeanalyze batch sample-xel -o reports --jobs 2 --keep-going --log batch.jsonl");
        return command;
    }

    /// <summary>The stderr side of a batch: progress (terminal only), per-capture lines (unless quiet), failures
    /// (always), and the log.</summary>
    private sealed class BatchConsole(TextWriter error, bool quiet, TerminalProgress? progress, BatchLog? log)
    {
        public void OnEvent(BatchEvent e)
        {
            log?.Capture(e);

            if (e.Kind == BatchEventKind.Start)
            {
                Status(e);
                return;
            }

            string prefix = string.Create(CultureInfo.InvariantCulture, $"[{e.Completed}/{e.Total}] ");
            if (e.Kind == BatchEventKind.Fail)
            {
                error.WriteLine("xeanalyze: " + prefix + "FAILED " + e.Capture.Name + ": " + e.Reason);
            }
            else if (!quiet)
            {
                error.WriteLine(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"xeanalyze: {prefix}{BatchOutput.StatusName(e.Status!.Value)} {e.Capture.Name} "
                            + $"({e.Events:N0} events) -> {e.Capture.Folder}/index.html"
                    )
                );
            }

            Status(e);
        }

        public void Finish(BatchResult result)
        {
            progress?.ReportCaptures(0, 0, 0, finished: true);
            foreach (BatchItemResult i in result.Items.Where(i => i.Status == BatchStatus.NotRun))
            {
                error.WriteLine("xeanalyze: not run: " + i.Capture.Name);
            }

            BatchItemResult[] failed = [.. result.Items.Where(i => i.Status == BatchStatus.Failed)];
            if (failed.Length > 0)
            {
                error.WriteLine("xeanalyze: failed captures:");
                foreach (BatchItemResult i in failed)
                {
                    error.WriteLine("  " + i.Capture.Name + ": " + i.Reason);
                }
            }

            error.WriteLine(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"xeanalyze: batch: {result.Items.Count} capture(s): {result.Count(BatchStatus.Ok)} ok, "
                        + $"{result.Count(BatchStatus.Partial)} partial, {result.Count(BatchStatus.NothingToAnalyse)} "
                        + $"with "
                        + $"nothing to analyse, {result.Count(BatchStatus.Failed)} failed, "
                        + $"{result.Count(BatchStatus.NotRun)} not run"
                )
            );
            error.Flush();
        }

        /// <summary>The batch's line of the progress display (terminal only).</summary>
        private void Status(BatchEvent e) => progress?.ReportCaptures(e.Completed, e.Total, e.Running, finished: false);
    }
}

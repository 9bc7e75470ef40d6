using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.Reporting;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze report &lt;input...&gt; -o DIR</c>: every analysis the events allow, on one self-contained HTML page
/// (<c>DIR/index.html</c>) plus <c>report.json</c>, one CSV per table and one SVG per chart. Exit codes: 0 done, 1
/// unreadable input, 2 usage, 3 partial (data skipped), 4 no analysis possible (the page says what the session needs).
/// </summary>
internal static class ReportCommand
{
    public static Command Create()
    {
        var inputs = new Argument<string[]>("input")
        {
            Description =
                "Capture files (.xel), rollover sets, folders (their *.xel files), globs, or target-data XML files; "
                + "read as one capture.",
            Arity = ArgumentArity.OneOrMore,
        }.AcceptsPaths("a capture file, folder or glob");
        var output = new Option<string>("--output", "-o")
        {
            Description =
                "The output folder (created if needed): index.html, report.json, <analysis>.<table>.csv, " + "*.svg.",
            Required = true,
        }.AcceptsPaths("a folder");
        var symbols = new SymbolCommandOptions();
        var filterOptions = new EventFilterOptions(
            "Default: every event; each analysis uses the events it understands.",
            "Example: class=NESTING_TRANSACTION_FULL."
        );
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var command = new Command(
            "report",
            "Run every analysis the capture's events allow (summary, stack buckets, symbolization, latches, memory, "
                + "waits) and write one self-contained HTML page plus CSV, JSON and SVG files."
        );
        command.Arguments.Add(inputs);
        command.Options.Add(output);
        filterOptions.AddTo(command);
        command.Options.Add(symbols.Modules);
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

                            EventFilter filter = filterOptions.Filter(parse);
                            using CallstackResolver resolver = CreateResolver(parse, symbols, cancellationToken);
                            var options = new ReportOptions
                            {
                                Filter = filter,
                                Input = InputOptions(parse.GetValue(skip), parse.GetValue(symbols.Modules)),
                                Resolver = resolver,
                                ShowUnresolvedReasons = !parse.GetValue(symbols.NoReasons),
                                FlameRoot = StackCommandOptions.ParseFlameRoot(parse.GetValue(flameRoot)),
                            };
                            CaptureReport report = CaptureReporter.Run(
                                parse.GetValue(inputs)!,
                                options,
                                cancellationToken
                            );
                            CaptureCommandSupport.CheckFilterNames(report.Capture);
                            report.Write(dir, cancellationToken);

                            stdout.WriteLine(Path.Combine(dir, "index.html"));
                            foreach (
                                IAnalysisResult a in report.Analyses.Where(a =>
                                    a.Status != AnalysisStatus.NotApplicable
                                )
                            )
                            {
                                stdout.WriteLine(
                                    AnalysisOutcome.Ran(a)
                                        ? string.Create(
                                            CultureInfo.InvariantCulture,
                                            $"  {a.Key}: done ({a.EventsUsed:N0} events)"
                                        )
                                        : "  " + a.Key + ": not possible: " + a.MissingData!.Message
                                );
                            }

                            stdout.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{report.Files.Count} file(s) written to {dir}"
                                )
                            );
                            stdout.Flush();
                            foreach (string w in report.Warnings)
                            {
                                error.WriteLine("xeanalyze: warning: " + w);
                            }

                            switch (report.Status)
                            {
                                case ReportStatus.NothingToAnalyse:
                                    error.WriteLine(
                                        "xeanalyze: no analysis was possible with these events (the page says what "
                                            + "the event session needs)"
                                    );
                                    return ExitCodes.MissingData;
                                case ReportStatus.Partial:
                                    if (!report.Completed.Any())
                                    {
                                        error.WriteLine(
                                            "xeanalyze: no analysis was possible with the events that could be read; "
                                                + "the events they need may be in the part that could not be read"
                                        );
                                    }

                                    error.WriteLine(
                                        string.Create(
                                            CultureInfo.InvariantCulture,
                                            $"xeanalyze: partial result: {report.Read.SkippedBuffers} damaged "
                                                + $"buffer(s) skipped, {report.Read.IncompleteBuffers} incomplete "
                                                + $"final "
                                                + $"buffer(s), {report.Read.UndecodableEvents} undecodable event(s), "
                                                + $"{report.Read.EventsLeftOut} event(s) left out"
                                        )
                                    );
                                    return ExitCodes.Partial;
                                default:
                                    return ExitCodes.Ok;
                            }
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze report sample-xel/latch_nesting_full -o out --symbols symbols-cache --binaries "
                + "symbols-cache --offline"
        );
        return command;
    }

    /// <summary>Reader options: strict, or skipping damaged buffers.</summary>
    internal static CaptureReadOptions InputOptions(bool skipCorrupt, string? modules = null) =>
        new()
        {
            Integrity = skipCorrupt ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict,
            ModuleMapPath = modules,
            Progress = TerminalProgress.Current,
        };

    /// <summary>The resolver of the symbol options (as <c>resolve</c> makes it: default symbol path is the default
    /// cache, no network).</summary>
    internal static CallstackResolver CreateResolver(
        ParseResult parse,
        SymbolCommandOptions symbols,
        CancellationToken cancellationToken
    ) => new(symbols.GetResolverOptions(parse, cancellationToken));
}

using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze stacks &lt;input...&gt;</c>: events bucketed by callstack after symbolization (raw addresses resolved
/// offline, histogram slots with their counts), as text (the default), CSV, JSON, folded stacks, speedscope, an SVG
/// flame graph or an HTML report. Exit codes: 0 done, 1 unreadable input, 2 usage, 3 partial (damaged buffers skipped),
/// 4 no events or no callstack in them.
/// </summary>
internal static class StacksCommand
{
    public static Command Create()
    {
        Argument<string[]> inputs = new CaptureInputOptions().Inputs;
        var format = new Option<string>("--format")
        {
            Description =
                "text (default: per bucket its count and share, then the frames leaf first, then the resolution "
                + "summary), csv (one row per bucket, frames separated by line feeds inside a quoted field), json, "
                + "folded (FlameGraph), speedscope, svg (flame graph) or html.",
            DefaultValueFactory = _ => "text",
        };
        format.AcceptOnlyFromAmong("text", "csv", "json", "folded", "speedscope", "svg", "html");
        var output = new Option<string?>("--output", "-o")
        {
            Description = "Write to this file instead of standard output.",
        }.AcceptsPaths("a file");
        var framesCsv = new Option<string?>("--frames-csv")
        {
            Description =
                "Also write one CSV row per (bucket, frame): rank, count, event, frame index, text, status, "
                + "module, function, reason.",
        }.AcceptsPaths("a file");
        var top = new Option<int>("--top")
        {
            Description = "Show only the N largest buckets (default: all). Shares stay relative to all buckets.",
        };
        var minCount = new Option<long>("--min-count") { Description = "Show only buckets with at least N events." };
        Option<string> weight = StackCommandOptions.WeightOption(
            "What flame outputs (folded, speedscope, svg) weigh: count (events, default) or duration (summed "
                + "duration field, ms for wait events)."
        );
        var command = new Command(
            "stacks",
            "Bucket events by callstack after symbolization: identical symbolized stacks merge even when their raw "
                + "addresses differ. Histogram slots keep their counts."
        );
        command.Arguments.Add(inputs);
        command.Options.Add(format);
        command.Options.Add(output);
        command.Options.Add(framesCsv);
        command.Options.Add(top);
        command.Options.Add(minCount);
        command.Options.Add(weight);
        Option<string> flameRoot = StackCommandOptions.FlameRootOption();
        command.Options.Add(flameRoot);
        StackCommandOptions common = StackCommandOptions.AddTo(command);
        command.Options.Add(common.Symbols.NoReasons);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (stdout, stderr) =>
                        {
                            string[] files = parse.GetValue(inputs) ?? [];
                            int topN = parse.GetValue(top);
                            long min = parse.GetValue(minCount);
                            if (topN < 0 || min < 0)
                            {
                                throw new UsageException("--top and --min-count: expected 0 or more");
                            }

                            var diagnostics = new CaptureDiagnostics();
                            using var resolver = new CallstackResolver(
                                common.ResolverOptions(parse, cancellationToken)
                            );
                            AnalysisOutcome<StackBucketResult> outcome = common.Analyze(
                                parse,
                                files,
                                resolver,
                                diagnostics,
                                cancellationToken
                            );
                            StackBucketResult full = outcome.Result;
                            EventFilter filter = outcome.Read.Filter;
                            if (outcome.Explanation is string explanation)
                            {
                                CaptureCommandSupport.WriteMessage(explanation, stdout, stderr);
                                return CaptureCommandSupport.Finish(diagnostics, stderr, outcome.Status);
                            }

                            StackWeight w = StackCommandOptions.ParseWeight(parse.GetValue(weight));
                            if (w == StackWeight.Duration && !full.HasDurations)
                            {
                                stderr.WriteLine(
                                    "xeanalyze: --weight duration: none of the bucketed events has a duration field "
                                        + "(wait events have one)"
                                );
                                return ExitCodes.MissingData;
                            }

                            string label =
                                "Input: "
                                + StackCommandOptions.Label(files)
                                + (filter.IsEmpty ? string.Empty : ". Filter: " + filter)
                                + ".";
                            var document = new StackBucketDocument(
                                full.Filter(topN, min),
                                new StackDocumentOptions
                                {
                                    InputsLabel = label,
                                    Weight = w,
                                    ShowUnresolvedReasons = !parse.GetValue(common.Symbols.NoReasons),
                                    FlameRoot = StackCommandOptions.ParseFlameRoot(parse.GetValue(flameRoot)),
                                }
                            );
                            IReportWriter writer = OutputFormats.Get(parse.GetValue(format) ?? "text");
                            CaptureCommandSupport.WriteDocument(
                                document,
                                writer,
                                parse.GetValue(output),
                                stdout,
                                cancellationToken
                            );
                            if (parse.GetValue(framesCsv) is string framesPath)
                            {
                                CaptureCommandSupport.WriteFile(
                                    framesPath,
                                    s =>
                                        OutputFormats.Write(
                                            ReportDocument.Of("Stack bucket frames", document.FramesTable()),
                                            "csv",
                                            s,
                                            cancellationToken
                                        )
                                );
                            }

                            if (writer.View != DocumentView.Listing)
                            {
                                // The listing carries the resolution summary itself; other formats get it on stderr, as
                                // resolve prints it.
                                CaptureCommandSupport.WriteLines(
                                    document.ResolutionNotice(),
                                    "xeanalyze: ",
                                    stdout,
                                    stderr
                                );
                                foreach (string warning in document.OwnWarnings())
                                {
                                    diagnostics.Warn(warning);
                                }
                            }

                            return CaptureCommandSupport.Finish(diagnostics, stderr, outcome.Status);
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze stacks sample-xel/latch_nesting_full --symbols symbols-cache --binaries symbols-cache "
                + "--offline --top 3",
            "xeanalyze stacks sample-xel/latch_nesting_full --symbols symbols-cache --binaries symbols-cache "
                + "--offline --format svg -o flame.svg"
        );
        return command;
    }
}

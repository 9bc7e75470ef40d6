using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze diff &lt;base&gt; &lt;new&gt;</c>: the stack buckets of two captures (files, sets, folders, globs or
/// histogram XML) compared after symbolization: weight and share in each, deltas, new and vanished stacks, a
/// differential folded file and a diff flame graph, and regression gates. Exit codes: 0 done, 1 unreadable input, 2
/// usage, 3 partial input, 4 no stacks on a side, 5 a gate tripped.
/// </summary>
internal static class DiffCommand
{
    public static Command Create()
    {
        var baseInput = new Argument<string>("base")
        {
            Description = "The base capture: a .xel file, rollover set, folder, glob or target-data XML.",
        }.AcceptsPaths("a capture file, folder or glob");
        var newInput = new Argument<string>("new")
        {
            Description = "The new capture, compared against the base.",
        }.AcceptsPaths("a capture file, folder or glob");
        var format = new Option<string>("--format")
        {
            Description = "text (default), csv (one row per stack), json or html.",
            DefaultValueFactory = _ => "text",
        };
        format.AcceptOnlyFromAmong("text", "csv", "json", "html");
        var output = new Option<string?>("--output", "-o")
        {
            Description = "Write the comparison to this file instead of standard output.",
        }.AcceptsPaths("a file");
        var folded = new Option<string?>("--folded")
        {
            Description =
                "Also write a differential folded file: 'frames base new' per line, as FlameGraph's "
                + "difffolded.pl writes it (flamegraph.pl draws it).",
        }.AcceptsPaths("a file");
        var svg = new Option<string?>("--svg")
        {
            Description = "Also write a differential SVG flame graph (width = new; red = share grew, blue = shrank).",
        }.AcceptsPaths("a file");
        Option<string> weight = StackCommandOptions.WeightOption(
            "What stacks are weighed by: count (events, default) or duration (the summed duration field, ms for wait "
                + "events; add --where opcode=End for wait_info)."
        );
        var top = new Option<int>("--top")
        {
            Description = "List at most N stacks in the text output (default 50; 0 lists all).",
            DefaultValueFactory = _ => 50,
        };
        var failIfGrows = new Option<double?>("--fail-if-grows")
        {
            Description =
                "Exit 5 when the new total weight exceeds the base total by more than PCT percent ((new - base) / "
                + "base x 100 > PCT).",
        };
        var failIfBucketGrows = new Option<double?>("--fail-if-bucket-grows")
        {
            Description =
                "Exit 5 when any stack's share of its side's total grows by more than PP percentage points (new "
                + "stacks count from 0 %).",
        };
        var command = new Command(
            "diff",
            "Compare the stack buckets of two captures after symbolization: per-stack counts and shares, new and "
                + "vanished stacks, a differential flame graph, and regression gates (exit 5)."
        );
        command.Arguments.Add(baseInput);
        command.Arguments.Add(newInput);
        command.Options.Add(format);
        command.Options.Add(output);
        command.Options.Add(folded);
        command.Options.Add(svg);
        command.Options.Add(weight);
        command.Options.Add(top);
        command.Options.Add(failIfGrows);
        command.Options.Add(failIfBucketGrows);
        StackCommandOptions common = StackCommandOptions.AddTo(command);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (stdout, stderr) =>
                        {
                            double? grows = parse.GetValue(failIfGrows);
                            double? bucketGrows = parse.GetValue(failIfBucketGrows);
                            if (
                                grows is double g && (!double.IsFinite(g) || g < 0)
                                || bucketGrows is double bg && (!double.IsFinite(bg) || bg < 0)
                            )
                            {
                                throw new UsageException(
                                    "--fail-if-grows / --fail-if-bucket-grows: expected a number of percent (points) "
                                        + "of 0 or more"
                                );
                            }

                            int topN = parse.GetValue(top);
                            if (topN < 0)
                            {
                                throw new UsageException("--top: expected 0 or more");
                            }

                            string b = parse.GetValue(baseInput)!;
                            string n = parse.GetValue(newInput)!;
                            var diagnostics = new CaptureDiagnostics();
                            using var resolver = new CallstackResolver(
                                common.ResolverOptions(parse, cancellationToken)
                            );
                            // The two sides hold the frames they share once.
                            var frames = new BucketFramePool();
                            AnalysisOutcome<StackBucketResult> baseOutcome = common.Analyze(
                                parse,
                                [b],
                                resolver,
                                diagnostics,
                                cancellationToken,
                                frames
                            );
                            if (baseOutcome.Explanation is string be)
                            {
                                CaptureCommandSupport.WriteMessage(be, stdout, stderr, "base " + b);
                                return CaptureCommandSupport.Finish(diagnostics, stderr, baseOutcome.Status);
                            }

                            AnalysisOutcome<StackBucketResult> newOutcome = common.Analyze(
                                parse,
                                [n],
                                resolver,
                                diagnostics,
                                cancellationToken,
                                frames
                            );
                            if (newOutcome.Explanation is string ne)
                            {
                                CaptureCommandSupport.WriteMessage(ne, stdout, stderr, "new " + n);
                                return CaptureCommandSupport.Finish(diagnostics, stderr, newOutcome.Status);
                            }

                            StackBucketResult baseResult = baseOutcome.Result;
                            StackBucketResult newResult = newOutcome.Result;
                            StackWeight w = StackCommandOptions.ParseWeight(parse.GetValue(weight));
                            if (w == StackWeight.Duration && !baseResult.HasDurations && !newResult.HasDurations)
                            {
                                stderr.WriteLine(
                                    "xeanalyze: --weight duration: neither capture's bucketed events have a duration "
                                        + "field (wait events have one)"
                                );
                                return ExitCodes.MissingData;
                            }

                            StackDiff diff = StackDiff.Compare(baseResult, newResult, w);
                            foreach (string warning in diff.Warnings)
                            {
                                diagnostics.Warn(warning);
                            }

                            StackDiffGate? gate =
                                grows is null && bucketGrows is null ? null : diff.Check(grows, bucketGrows);
                            var document = new StackDiffDocument(
                                diff,
                                new StackDiffDocumentOptions
                                {
                                    BaseLabel = b,
                                    NewLabel = n,
                                    Top = topN,
                                    Gate = gate,
                                }
                            );
                            CaptureCommandSupport.WriteDocument(
                                document,
                                OutputFormats.Get(parse.GetValue(format) ?? "text"),
                                parse.GetValue(output),
                                stdout,
                                cancellationToken
                            );
                            foreach (
                                (Option<string?> option, string figureFormat) in new[]
                                {
                                    (folded, "folded"),
                                    (svg, "svg"),
                                }
                            )
                            {
                                if (parse.GetValue(option) is string path)
                                {
                                    CaptureCommandSupport.WriteFile(
                                        path,
                                        s => OutputFormats.Write(document, figureFormat, s, cancellationToken)
                                    );
                                }
                            }

                            foreach (
                                (string side, StackBucketResult r) in new[] { ("base", baseResult), ("new", newResult) }
                            )
                            {
                                CaptureCommandSupport.WriteLines(
                                    new StackBucketDocument(r).ResolutionNotice(),
                                    "xeanalyze: " + side + ": ",
                                    stdout,
                                    stderr
                                );
                            }

                            int exit = CaptureCommandSupport.Finish(
                                diagnostics,
                                stderr,
                                newOutcome.Status == Analysis.AnalysisStatus.Partial
                                    ? newOutcome.Status
                                    : baseOutcome.Status
                            );
                            if (gate is { Tripped: true })
                            {
                                foreach (string reason in gate.Reasons)
                                {
                                    stderr.WriteLine("xeanalyze: gate: " + reason);
                                }

                                stderr.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"xeanalyze: regression gate failed (exit {ExitCodes.GateFailed})"
                                    )
                                );
                                return ExitCodes.GateFailed;
                            }

                            return exit;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze diff sample-xel/latch_nesting_full "
                + "sample-xel/latch_nesting_full_histogram/latch_nesting_full.tf3656.histogram.xml --symbols "
                + "symbols-cache --binaries symbols-cache --offline",
            "xeanalyze diff base.xel new.xel --svg diff.svg --fail-if-bucket-grows 5"
        );
        return command;
    }
}

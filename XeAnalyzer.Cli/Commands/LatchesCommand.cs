using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze latches &lt;input...&gt; [--by worker|session] [--outlier-threshold PCT]</c>: latch_acquired tallies
/// per scheduler (outliers flagged), per class and mode, optional per worker/session, and hold times from
/// latch_released pairs.
/// </summary>
internal static class LatchesCommand
{
    public static Command Create()
    {
        var command = new Command(
            "latches",
            "Count latch_acquired events per scheduler (flagging outliers), per latch class and mode, and latch hold "
                + "times from latch_released pairs."
        );
        AnalysisCommandOptions common = AnalysisCommandOptions.AddTo(command);
        var by = new Option<string?>("--by")
        {
            Description = "Also group acquires by worker (sqlos.worker_address) or session (sqlserver.session_id).",
        };
        by.AcceptOnlyFromAmong("worker", "session");
        var threshold = new Option<double?>("--outlier-threshold")
        {
            Description =
                "Flag a scheduler (or worker, session) whose count deviates from the median of all of them by at "
                + "least this many percent (default 5).",
        };
        command.Options.Add(by);
        command.Options.Add(threshold);
        command.SetAction(parse =>
            CaptureCommandSupport.Run(
                parse,
                (output, error) =>
                {
                    double pct = parse.GetValue(threshold) ?? 5;
                    if (!(pct >= 0 && pct <= 1000))
                    {
                        throw new UsageException("--outlier-threshold: expected a percentage from 0 to 1000");
                    }

                    var options = new LatchAnalysisOptions
                    {
                        GroupBy = parse.GetValue(by) switch
                        {
                            "worker" => LatchGrouping.Worker,
                            "session" => LatchGrouping.Session,
                            _ => LatchGrouping.None,
                        },
                        OutlierThreshold = pct / 100,
                        Reorder = common.Reorder(parse),
                    };
                    return common.Run<LatchAnalysisResult>(parse, output, error, new LatchAnalysis(options));
                }
            )
        );
        command.WithExamples(
            "xeanalyze latches sample-xel/latch_nesting_full",
            "xeanalyze latches sample-xel/latch_nesting_full --by worker --format html -o latches.html"
        );
        return command;
    }
}

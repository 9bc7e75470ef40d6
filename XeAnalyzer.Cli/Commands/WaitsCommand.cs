using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze waits &lt;input...&gt;</c>: wait_info, wait_info_external and wait_completed summarised per wait type
/// and scheduler, Begin/End pairs per worker, and the wait type that immediately preceded each wait on the same worker.
/// </summary>
internal static class WaitsCommand
{
    public static Command Create()
    {
        var command = new Command(
            "waits",
            "Summarise wait_info, wait_info_external and wait_completed events: per wait type and scheduler, "
                + "Begin/End pairs, and which wait immediately preceded each wait on the same worker."
        );
        AnalysisCommandOptions common = AnalysisCommandOptions.AddTo(command);
        command.SetAction(parse =>
            CaptureCommandSupport.Run(
                parse,
                (output, error) =>
                {
                    var analysis = new WaitAnalysis(new WaitAnalysisOptions { Reorder = common.Reorder(parse) });
                    return common.Run<WaitAnalysisResult>(parse, output, error, analysis);
                }
            )
        );
        command.WithExamples(
            "xeanalyze waits sample-xel/blob_storage_waits",
            "xeanalyze waits sample-xel/ring_buffer_waits/ring_buffer_waits.ring_buffer.xml --format csv"
        );
        return command;
    }
}

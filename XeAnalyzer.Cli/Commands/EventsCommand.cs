using System.CommandLine;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze events &lt;input...&gt; [--event NAME] [--where ...] [--from T] [--to T] [--format text|csv|json]
/// [--limit N]</c>: flattened events of <c>.xel</c> captures and target-data XML (ring_buffer, event_file XML,
/// <c>fn_xe_file_target_read_file</c> rows, pair_matching leftovers), with the same columns and renderings for both
/// (<see cref="EventListing"/>).
/// </summary>
internal static class EventsCommand
{
    public static Command Create()
    {
        var filterOptions = new EventFilterOptions("Default: every event.");
        var format = new Option<string>("--format")
        {
            Description = "Output format: text, csv or json.",
            DefaultValueFactory = _ => "text",
        };
        format.AcceptOnlyFromAmong([.. EventListWriter.FormatNames]);
        var limit = new Option<long?>("--limit") { Description = "Stop after this many events." };
        var command = new Command(
            "events",
            "List events with their fields and actions (text, CSV or JSON), from .xel captures and target-data XML "
                + "alike."
        );
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        filterOptions.AddTo(command);
        command.Options.Add(format);
        command.Options.Add(limit);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            long max = parse.GetValue(limit) ?? long.MaxValue;
                            if (max < 0)
                            {
                                throw new UsageException("--limit: expected a non-negative number");
                            }

                            EventFilter filter = filterOptions.Filter(parse);
                            CaptureSource source = input.Open(parse, null, cancellationToken);
                            var diagnostics = new CaptureDiagnostics();
                            CaptureSummary? read = null;
                            EventListFormat listFormat = EventListWriter.ParseFormat(parse.GetValue(format) ?? "text");
                            EventListing.Write(
                                source,
                                filter,
                                listFormat,
                                output,
                                max,
                                diagnostics,
                                r => read = r,
                                cancellationToken
                            );
                            return CaptureCommandSupport.FinishFiltered(read, diagnostics, output, error);
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze events sample-xel/latch_nesting_full --event latch_acquired --format csv --limit 20",
            "xeanalyze events sample-xel/blob_storage_waits --where opcode=End --format json --limit 10"
        );
        return command;
    }
}

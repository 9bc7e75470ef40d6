using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze slice &lt;input...&gt; --event NAME [--where ...] [--from T] [--to T] -o out.xel</c>: writes the chosen
/// events (time range: from inclusive, to exclusive) of <c>.xel</c> captures or target-data XML to a new <c>.xel</c>
/// file with their metadata (<see cref="CaptureSlicer"/>).
/// </summary>
internal static class SliceCommand
{
    public static Command Create()
    {
        var filterOptions = new EventFilterOptions("Required: the events to keep.");
        filterOptions.Events.Required = true;
        var output = new Option<string>("--output", "-o")
        {
            Description = "The .xel file to write.",
            Required = true,
        }.AcceptsPaths("a file");
        var command = new Command("slice", "Write selected events of captures or target-data XML to a new .xel file.");
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        filterOptions.AddTo(command);
        command.Options.Add(output);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (stdout, error) =>
                        {
                            string outPath = parse.GetValue(output)!;
                            CaptureSource source = input.Open(parse, null, cancellationToken);
                            var diagnostics = new CaptureDiagnostics();
                            SliceResult result;
                            try
                            {
                                result = CaptureSlicer.Slice(
                                    source,
                                    filterOptions.Filter(parse),
                                    outPath,
                                    diagnostics,
                                    cancellationToken
                                );
                            }
                            catch (ArgumentException ex) when (ex.ParamName == "output")
                            {
                                throw new UsageException("-o: " + CaptureSlicer.OutputIsInput);
                            }
                            catch (InvalidOperationException ex)
                            {
                                throw new UsageException(
                                    "the inputs do not share one schema, so their events cannot go into one file: "
                                        + ex.Message
                                );
                            }

                            CaptureCommandSupport.CheckFilterNames(result.Read);

                            stdout.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"wrote {result.EventsWritten} events ({result.EventTypes} event types) to "
                                        + $"{outPath}"
                                )
                            );
                            return CaptureCommandSupport.FinishFiltered(result.Read, diagnostics, stdout, error);
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze slice sample-xel/latch_nesting_full --event latch_acquired --from 2024-05-14T09:31:13 --to "
                + "2024-05-14T09:31:14 -o slice.xel"
        );
        return command;
    }
}

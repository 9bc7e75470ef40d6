using System.CommandLine;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze info &lt;input...&gt;</c>: per <c>.xel</c> file and set, size, time range, counts by event, schema,
/// callstacks and warnings; per target-data XML file, its targets (kind, histogram source and slots, event_counter
/// counts, truncation), events by name, the schema the XML carries, and warnings (<see cref="CaptureInfo"/>), each
/// input written as soon as the one read has passed it.
/// </summary>
internal static class InfoCommand
{
    public static Command Create()
    {
        var command = new Command(
            "info",
            "Describe captures and target data: size, time range, event counts, each event's fields and actions with "
                + "types, callstacks, histograms, event_counter counts, warnings."
        );
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            // info resolves no frame: the inputs are opened without looking for module lists.
                            CaptureReadOptions read = input.ReadOptions(parse);
                            CaptureSource source = CaptureSource.Open(
                                input.Names(parse),
                                new CaptureReadOptions
                                {
                                    Integrity = read.Integrity,
                                    Progress = read.Progress,
                                    UseSidecars = false,
                                },
                                cancellationToken
                            );
                            var diagnostics = new CaptureDiagnostics();
                            IReportWriter text = OutputFormats.Get("text");
                            source.Read(
                                [
                                    new EachInput(i =>
                                        CaptureCommandSupport.WriteDocument(
                                            new CaptureInfo(i),
                                            text,
                                            null,
                                            output,
                                            cancellationToken
                                        )
                                    ),
                                ],
                                EventFilter.None,
                                null,
                                diagnostics,
                                cancellationToken
                            );
                            return CaptureCommandSupport.Finish(diagnostics, error);
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze info sample-xel/latch_nesting_full",
            "xeanalyze info sample-xel/latch_nesting_full_counter/latch_nesting_full.event_counter.xml"
        );
        return command;
    }

    /// <summary>Takes no event; hands each input's summary on as its read ends.</summary>
    private sealed class EachInput(Action<InputSummary> done) : ICaptureConsumer
    {
        public bool Accepts(XeEventType eventType, XeActionSet actions) => false;

        public void Add(XEvent e) { }

        public void EndInput(InputSummary input) => done(input);
    }
}

using System.CommandLine;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Output;
using XeAnalyzer.Reporting;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze info &lt;input...&gt;</c>: per <c>.xel</c> file and set, size, time range, counts by event, schema, callstacks and
/// warnings; per target-data XML file, its targets (kind, histogram source and slots, event_counter counts, truncation), events by name,
/// the schema the XML carries, and warnings (<see cref="CaptureInfo"/>).
/// </summary>
internal static class InfoCommand
{
    public static Command Create()
    {
        var command = new Command("info", "Describe captures and target data: size, time range, event counts, each event's fields and actions with types, callstacks, histograms, event_counter counts, warnings.");
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        command.SetAction((parse, cancellationToken) => Task.FromResult(CaptureCommandSupport.Run(parse, (output, error) =>
        {
            CaptureSource source = input.Open(parse, null, cancellationToken);
            var diagnostics = new CaptureDiagnostics();
            IReportWriter text = OutputFormats.Get("text");
            foreach (CaptureInfo info in CaptureInfo.ReadEach(source, diagnostics, cancellationToken))
            {
                CaptureCommandSupport.WriteDocument(info, text, null, output, cancellationToken);
            }

            return CaptureCommandSupport.Finish(diagnostics, error);
        })));
        command.WithExamples(
            "xeanalyze info sample-xel/latch_nesting_full",
            "xeanalyze info sample-xel/latch_nesting_full_counter/latch_nesting_full.event_counter.xml");
        return command;
    }
}

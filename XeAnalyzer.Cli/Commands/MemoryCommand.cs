using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze memory &lt;input...&gt; [--pages-field NAME] [--by-clerk] [--series FILE.csv]</c>: the running total of
/// pages currently allocated (page_allocated adds, page_freed subtracts) over time, per session and optionally per
/// memory clerk.
/// </summary>
internal static class MemoryCommand
{
    public static Command Create()
    {
        var command = new Command(
            "memory",
            "Running total of pages allocated (page_allocated − page_freed) over time: peaks, per session and per "
                + "clerk, pages per event, and an SVG line chart."
        );
        AnalysisCommandOptions common = AnalysisCommandOptions.AddTo(command);
        var pagesField = new Option<string?>("--pages-field")
        {
            Description =
                "The field holding the page count (default number_pages; the name is not verified on real builds).",
        };
        var byClerk = new Option<bool>("--by-clerk")
        {
            Description = "Also keep running totals per memory clerk (field memory_clerk_name).",
        };
        var series = new Option<string?>("--series")
        {
            Description =
                "Write every step of the running total as CSV: timestamp, event_sequence, event, "
                + "session_id, memory_clerk_name, pages, session_running_total, running_total.",
        }.AcceptsPaths("a file");
        command.Options.Add(pagesField);
        command.Options.Add(byClerk);
        command.Options.Add(series);
        command.SetAction(parse =>
            CaptureCommandSupport.Run(
                parse,
                (output, error) =>
                {
                    string? field = parse.GetValue(pagesField);
                    if (field is not null && string.IsNullOrWhiteSpace(field))
                    {
                        throw new UsageException("--pages-field: expected a field name");
                    }

                    var options = new MemoryAnalysisOptions
                    {
                        PagesField = field ?? MemoryAnalysisOptions.Default.PagesField,
                        ByClerk = parse.GetValue(byClerk),
                        Reorder = common.Reorder(parse),
                    };
                    string? seriesPath = parse.GetValue(series);
                    using MemorySeriesWriter? seriesWriter = seriesPath is null
                        ? null
                        : MemorySeriesWriter.Create(seriesPath);
                    var analysis = new MemoryAnalysis(options, seriesWriter is null ? null : seriesWriter.Write);
                    return common.Run<MemoryAnalysisResult>(parse, output, error, analysis);
                }
            )
        );
        command.WithExamples(
            "xeanalyze memory sample-xel/cci_insert_memory --by-clerk",
            "xeanalyze memory sample-xel/cci_insert_memory --series series.csv --chart memory.svg"
        );
        return command;
    }
}

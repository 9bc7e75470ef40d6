using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The options every analysis command shares (inputs, <c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>, <c>--format</c>,
/// <c>-o</c>, <c>--chart</c>, <c>--skip-corrupt</c>, reorder window) and the run loop: open inputs, analyse, report missing data
/// (exit 4) or write the report.
/// </summary>
internal sealed class AnalysisCommandOptions
{
    private AnalysisCommandOptions()
    {
    }

    public Argument<string[]> Inputs { get; } = new("input")
    {
        Description = "Capture files (.xel), rollover sets, folders (their *.xel files), globs, or target-data XML files (ring_buffer, event_data).",
        Arity = ArgumentArity.OneOrMore,
    };

    public EventFilterOptions FilterOptions { get; } = new("By default the events the analysis reads.");

    public Option<string> Format { get; } = CreateFormat();

    public Option<string?> Output { get; } = new("--output", "-o")
    {
        Description = "Write the report to this file instead of standard output.",
    };

    public Option<string?> Chart { get; } = new("--chart")
    {
        Description = "Also write the chart as an SVG file.",
    };

    public Option<bool> SkipCorrupt { get; } = CaptureCommandSupport.SkipCorruptOption();

    public Option<double?> ReorderWindow { get; } = new("--reorder-window")
    {
        Description = "Seconds an event may arrive behind the newest one and still be put in time order (default 30).",
    };

    public Option<int?> ReorderMax { get; } = new("--reorder-max")
    {
        Description = "The most events held for re-ordering at once (default 1,000,000); bounds memory.",
    };

    public static AnalysisCommandOptions AddTo(Command command)
    {
        var o = new AnalysisCommandOptions();
        command.Arguments.Add(o.Inputs);
        o.FilterOptions.AddTo(command);
        command.Options.Add(o.Format);
        command.Options.Add(o.Output);
        command.Options.Add(o.Chart);
        command.Options.Add(o.SkipCorrupt);
        command.Options.Add(o.ReorderWindow);
        command.Options.Add(o.ReorderMax);
        return o;
    }

    public ReorderOptions Reorder(ParseResult parse)
    {
        double? seconds = parse.GetValue(ReorderWindow);
        int? max = parse.GetValue(ReorderMax);
        if (seconds is double s && !(s >= 0 && s <= 86_400))
        {
            throw new UsageException("--reorder-window: expected 0 to 86400 seconds");
        }

        if (max is int m && m is < 1 or > 50_000_000)
        {
            throw new UsageException("--reorder-max: expected 1 to 50000000");
        }

        return new ReorderOptions
        {
            Window = seconds is double w ? TimeSpan.FromSeconds(w) : ReorderOptions.Default.Window,
            MaxPending = max ?? ReorderOptions.Default.MaxPending,
        };
    }

    /// <summary>Opens the inputs, runs the analysis, and writes the result or the missing-data message.</summary>
    public int Run<TResult>(
        ParseResult parse,
        TextWriter stdout,
        TextWriter stderr,
        IReadOnlyList<string> eventNames,
        Func<IEnumerable<XEvent>, TResult> analyze,
        Func<TResult, MissingData?> missing,
        Func<TResult, ReportDocument> report,
        Func<TResult, Stream, ValueTask>? writeChart,
        Func<TResult, IEnumerable<string>>? warnings = null)
    {
        EventFilter filter = FilterOptions.Filter(parse);
        string format = parse.GetValue(Format) ?? "text";
        IReportWriter writer = OutputFormats.FindReportWriter(format) ?? throw new UsageException("--format: expected text, csv, json or html");
        string[] inputs = parse.GetValue(Inputs) ?? [];
        AnalysisInput input = AnalysisInput.Open(inputs, new AnalysisInputOptions
        {
            Integrity = parse.GetValue(SkipCorrupt) ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict,
        });

        TResult result = analyze(input.ReadEvents(filter, eventNames));
        foreach (string w in input.Warnings)
        {
            stderr.WriteLine("xeanalyze: warning: " + w);
        }

        if (missing(result) is MissingData m)
        {
            string text;
            if (m.Kind == MissingDataKind.Events && input.EventsRead > 0 && input.EventsMatched == 0)
            {
                text = "none of the " + input.EventsRead.ToString("N0", CultureInfo.InvariantCulture) + " " + string.Join("/", filter.EventNames.Count > 0 ? filter.EventNames : eventNames)
                    + " events read matched the filter (" + filter + "); nothing to analyse.";
            }
            else
            {
                IReadOnlyList<EventNameCount> found = m.Kind == MissingDataKind.Events ? input.CountEvents() : m.EventsSeen;
                text = m.Describe(found);
            }

            CaptureCommandSupport.WriteMessage(text, stdout, stderr);
            return CaptureCommandSupport.FinishMissing(input.Diagnostics, stderr);
        }

        ReportDocument doc = report(result);
        doc = new ReportDocument(doc.Title, doc.Sections) { Description = Describe(inputs, filter) };
        CaptureCommandSupport.WriteOutput(parse.GetValue(Output), stdout, s => writer.WriteAsync(doc, s).AsTask().GetAwaiter().GetResult());
        string? chartPath = parse.GetValue(Chart);
        if (chartPath is not null && writeChart is not null)
        {
            CaptureCommandSupport.WriteFile(chartPath, s => writeChart(result, s).AsTask().GetAwaiter().GetResult());
        }

        foreach (string w in warnings?.Invoke(result) ?? [])
        {
            stderr.WriteLine("xeanalyze: warning: " + w);
        }

        return CaptureCommandSupport.Finish(input.Diagnostics, stderr);
    }

    public static string OrderingWarning(OrderingStatistics o) =>
        o.LateEvents > 0
            ? o.LateEvents.ToString("N0", CultureInfo.InvariantCulture) + " events arrived later than the reorder window allows (--reorder-window/--reorder-max) and were processed out of time order"
            : string.Empty;

    private static string Describe(string[] inputs, EventFilter filter) =>
        "Input: " + string.Join(", ", inputs) + (filter.IsEmpty ? string.Empty : ". Filter: " + filter) + ".";

    private static Option<string> CreateFormat()
    {
        var o = new Option<string>("--format") { Description = "Output format: text, csv, json or html (default text).", DefaultValueFactory = _ => "text" };
        o.AcceptOnlyFromAmong("text", "csv", "json", "html");
        return o;
    }
}

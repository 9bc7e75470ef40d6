using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The options every analysis command shares (inputs, <c>--skip-corrupt</c>, <c>--event</c>, <c>--where</c>,
/// <c>--from</c>/<c>--to</c>,
/// <c>--format</c>, <c>-o</c>, <c>--chart</c>, reorder window) and the run: open the inputs, run the analysis over one
/// read, write the result or the explanation of what is missing, and map the status to the exit code.
/// </summary>
internal sealed class AnalysisCommandOptions
{
    private AnalysisCommandOptions() { }

    public CaptureInputOptions Input { get; private set; } = null!;

    public EventFilterOptions FilterOptions { get; } = new("By default the events the analysis reads.");

    public Option<string> Format { get; } = CreateFormat();

    public Option<string?> Output { get; } =
        new Option<string?>("--output", "-o")
        {
            Description = "Write the report to this file instead of standard output.",
        }.AcceptsPaths("a file");

    public Option<string?> Chart { get; } =
        new Option<string?>("--chart") { Description = "Also write the chart as an SVG file." }.AcceptsPaths("a file");

    public Option<double?> ReorderWindow { get; } =
        new("--reorder-window")
        {
            Description =
                "Seconds an event may arrive behind the newest one and still be put in time order (default 30).",
        };

    public Option<int?> ReorderMax { get; } =
        new("--reorder-max")
        {
            Description = "The most events held for re-ordering at once (default 1,000,000); bounds memory.",
        };

    public bool HasEventOptions { get; private set; }

    /// <summary>Adds the options to a command; <paramref name="eventOptions"/> false leaves out the event filter and
    /// reorder window (for analyses of target data, which carries no events).</summary>
    public static AnalysisCommandOptions AddTo(Command command, bool eventOptions = true)
    {
        var o = new AnalysisCommandOptions { HasEventOptions = eventOptions };
        o.Input = CaptureInputOptions.AddTo(command);
        if (eventOptions)
        {
            o.FilterOptions.AddTo(command);
        }

        command.Options.Add(o.Format);
        command.Options.Add(o.Output);
        command.Options.Add(o.Chart);
        if (eventOptions)
        {
            command.Options.Add(o.ReorderWindow);
            command.Options.Add(o.ReorderMax);
        }

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

    /// <summary>
    /// Opens the inputs, runs the analysis over one read, and writes the result through the writer of <c>--format</c>
    /// (and its figure to <c>--chart</c>) or the explanation of what is missing.
    /// </summary>
    public int Run<TResult>(
        ParseResult parse,
        TextWriter stdout,
        TextWriter stderr,
        ICaptureAnalysis analysis,
        CancellationToken cancellationToken = default
    )
        where TResult : class, IAnalysisResult, IDocumentSource
    {
        EventFilter filter = HasEventOptions ? FilterOptions.Filter(parse) : EventFilter.None;
        IReportWriter writer = OutputFormats.Get(parse.GetValue(Format) ?? "text");
        CaptureSource source = Input.Open(parse, null, cancellationToken);
        var diagnostics = new CaptureDiagnostics();
        AnalysisOutcome<TResult> outcome = AnalysisOutcome.Run<TResult>(
            source,
            analysis,
            new AnalysisContext(filter, diagnostics),
            cancellationToken
        );
        CaptureCommandSupport.CheckFilterNames(outcome.Read);
        if (outcome.Explanation is string explanation)
        {
            CaptureCommandSupport.WriteMessage(explanation, stdout, stderr);
            return CaptureCommandSupport.Finish(diagnostics, stderr, outcome.Status);
        }

        IDocumentSource result = outcome.Result.WithDescription(Describe(source.Names, filter));
        CaptureCommandSupport.WriteDocument(result, writer, parse.GetValue(Output), stdout, cancellationToken);
        if (parse.GetValue(Chart) is string chartPath)
        {
            CaptureCommandSupport.WriteFile(chartPath, s => OutputFormats.Write(result, "svg", s, cancellationToken));
        }

        return CaptureCommandSupport.Finish(diagnostics, stderr, outcome.Status);
    }

    private static string Describe(IReadOnlyList<string> inputs, EventFilter filter) =>
        "Input: " + string.Join(", ", inputs) + (filter.IsEmpty ? string.Empty : ". Filter: " + filter) + ".";

    private static Option<string> CreateFormat()
    {
        var o = new Option<string>("--format")
        {
            Description = "Output format: text, csv, json, html, or svg (the chart) (default text).",
            DefaultValueFactory = _ => "text",
        };
        o.AcceptOnlyFromAmong("text", "csv", "json", "html", "svg");
        return o;
    }
}

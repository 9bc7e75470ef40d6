using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The options <c>stacks</c> and <c>diff</c> share: the symbol options of <c>resolve</c> (<c>--symbols</c>,
/// <c>--offline</c>,
/// <c>--symbol-timeout</c>, <c>--modules</c>, <c>--sql-build</c>/<c>--machine</c>/<c>--catalog</c>, <c>--binaries</c>,
/// <c>--frame-style</c>,
/// <c>--no-offsets</c>), the stack source (<c>--stack</c>, <c>--group-by-event</c>), the event filter (<c>--event</c>,
/// <c>--where</c>,
/// <c>--from</c>/<c>--to</c>) and <c>--skip-corrupt</c>.
/// </summary>
internal sealed class StackCommandOptions
{
    private StackCommandOptions() { }

    public SymbolCommandOptions Symbols { get; } = new();

    public Option<string?> Modules => Symbols.Modules;

    public Option<string> Style => Symbols.FrameStyle;

    public Option<bool> NoOffsets => Symbols.NoOffsets;

    public Option<string?> Stack { get; } =
        new("--stack")
        {
            Description =
                "The field or action holding the stack. Default: the package0.callstack action, else callstack_rva, "
                + "else the event's callstack field (system_health's call_stack), else any other callstack action. Raw "
                + "addresses or frame text.",
        };

    public Option<bool> GroupByEvent { get; } =
        new("--group-by-event")
        {
            Description =
                "One bucket per (event name, stack) (default true). --group-by-event false merges events sharing a "
                + "stack, as SQLCallStackResolver does.",
        };

    public EventFilterOptions FilterOptions { get; } =
        new("Default: every event with a callstack.", "Example: opcode=End for wait_info durations.");

    public Option<bool> SkipCorrupt { get; } = new CaptureInputOptions().SkipCorrupt;

    public static StackCommandOptions AddTo(Command command)
    {
        var o = new StackCommandOptions();
        o.FilterOptions.AddTo(command);
        command.Options.Add(o.Stack);
        command.Options.Add(o.GroupByEvent);
        o.Symbols.AddPathOptions(command);
        command.Options.Add(o.Modules);
        o.Symbols.AddBuildOptions(command);
        command.Options.Add(o.Symbols.Binaries);
        o.Symbols.AddFrameOptions(command);
        command.Options.Add(o.SkipCorrupt);
        return o;
    }

    /// <summary>The resolver options, as <c>resolve</c> builds them (default symbol path: the default cache only, no
    /// network).</summary>
    public CallstackResolverOptions ResolverOptions(ParseResult parse, CancellationToken cancellationToken) =>
        Symbols.GetResolverOptions(parse, cancellationToken);

    public StackBucketOptions BucketOptions(ParseResult parse, BucketFramePool? frames = null) =>
        new()
        {
            FramePool = frames,
            StackSource = string.IsNullOrWhiteSpace(parse.GetValue(Stack)) ? null : parse.GetValue(Stack)!.Trim(),
            // True when absent: the default lives here, not in the option, whose help would otherwise print "[default:
            // true]" after a description that already says so.
            GroupByEvent = parse.GetResult(GroupByEvent)?.IdentifierToken is null || parse.GetValue(GroupByEvent),
        };

    /// <summary>How the inputs are read: <c>--skip-corrupt</c> and <c>--modules</c> (the module map of every input;
    /// else each input's sidecar).</summary>
    public CaptureReadOptions ReadOptions(ParseResult parse) =>
        new()
        {
            Integrity = parse.GetValue(SkipCorrupt)
                ? XelIntegrityHandling.SkipCorruptBuffers
                : XelIntegrityHandling.Strict,
            ModuleMapPath = parse.GetValue(Modules),
            Progress = TerminalProgress.Current,
        };

    /// <summary>Runs the stack analysis over one input set (one read) with the command's filter and the shared
    /// resolver.</summary>
    public AnalysisOutcome<StackBucketResult> Analyze(
        ParseResult parse,
        IReadOnlyList<string> inputs,
        CallstackResolver resolver,
        CaptureDiagnostics diagnostics,
        CancellationToken cancellationToken,
        BucketFramePool? frames = null
    )
    {
        CaptureSource source = CaptureSource.Open(inputs, ReadOptions(parse), cancellationToken);
        var analysis = new StackBucketAnalysis(BucketOptions(parse, frames));
        var context = new AnalysisContext(FilterOptions.Filter(parse), diagnostics, resolver);
        AnalysisOutcome<StackBucketResult> outcome = analysis.Analyze(source, context, cancellationToken);
        CaptureCommandSupport.CheckFilterNames(outcome.Read);
        return outcome;
    }

    public static StackWeight ParseWeight(string? text) =>
        text switch
        {
            "duration" => StackWeight.Duration,
            _ => StackWeight.Count,
        };

    public static Option<string> WeightOption(string description)
    {
        var o = new Option<string>("--weight") { Description = description, DefaultValueFactory = _ => "count" };
        o.AcceptOnlyFromAmong("count", "duration");
        return o;
    }

    /// <summary><c>--flame-root auto|caller|leaf</c>: which end of the stacks an SVG or HTML flame graph grows
    /// from.</summary>
    public static Option<string> FlameRootOption()
    {
        var o = new Option<string>("--flame-root")
        {
            Description =
                "Which end the flame graph (svg, html) grows from: auto (default: from the leaf when more "
                + "weight ends in the most common leaf frame than starts under the most common outermost frame, as in "
                + "a wait histogram), caller (classic flame graph) or leaf (icicle: leaves at the top, callers below).",
            DefaultValueFactory = _ => "auto",
        };
        o.AcceptOnlyFromAmong("auto", "caller", "leaf");
        return o;
    }

    public static FlameRoot ParseFlameRoot(string? text) =>
        text switch
        {
            "caller" => FlameRoot.Caller,
            "leaf" => FlameRoot.Leaf,
            _ => FlameRoot.Auto,
        };

    public static string Label(IEnumerable<string> inputs) => string.Join(", ", inputs);
}

using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The options <c>stacks</c> and <c>diff</c> share: the symbol options of <c>resolve</c> (<c>--symbols</c>, <c>--offline</c>,
/// <c>--symbol-timeout</c>, <c>--modules</c>, <c>--sql-build</c>/<c>--machine</c>/<c>--catalog</c>, <c>--binaries</c>, <c>--frame-style</c>,
/// <c>--no-offsets</c>), the stack source (<c>--stack</c>, <c>--group-by-event</c>), the event filter (<c>--event</c>, <c>--where</c>,
/// <c>--from</c>/<c>--to</c>) and <c>--skip-corrupt</c>.
/// </summary>
internal sealed class StackCommandOptions
{
    private StackCommandOptions()
    {
    }

    public SymbolCommandOptions Symbols { get; } = new();

    public Option<string?> Modules => Symbols.Modules;

    public Option<string> Style => Symbols.FrameStyle;

    public Option<bool> NoOffsets => Symbols.NoOffsets;

    public Option<string?> Stack { get; } = new("--stack")
    {
        Description = "The field or action holding the stack (default: the package0.callstack action, else callstack_rva), e.g. call_stack for system_health events. Raw addresses or frame text.",
    };

    public Option<bool> GroupByEvent { get; } = new("--group-by-event")
    {
        Description = "One bucket per (event name, stack) (default true). --group-by-event false merges events sharing a stack, as SQLCallStackResolver does.",
        DefaultValueFactory = _ => true,
    };

    public EventFilterOptions FilterOptions { get; } = new("Default: every event with a callstack.", "Example: opcode=End for wait_info durations.");

    public Option<bool> SkipCorrupt { get; } = CaptureCommandSupport.SkipCorruptOption();

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

    /// <summary>The resolver options, as <c>resolve</c> builds them (default symbol path: the default cache only, no network).</summary>
    public CallstackResolverOptions ResolverOptions(ParseResult parse, CancellationToken cancellationToken) => Symbols.GetResolverOptions(parse, cancellationToken);

    public StackBucketOptions BucketOptions(ParseResult parse) => new()
    {
        StackSource = string.IsNullOrWhiteSpace(parse.GetValue(Stack)) ? null : parse.GetValue(Stack)!.Trim(),
        GroupByEvent = parse.GetValue(GroupByEvent),
    };

    public StackFileOptions FileOptions(ParseResult parse, XelDiagnostics diagnostics)
    {
        string? modules = parse.GetValue(Modules);
        if (modules is not null && !File.Exists(modules))
        {
            throw new FileNotFoundException("the module list " + modules + " does not exist", modules);
        }

        return new StackFileOptions
        {
            Filter = FilterOptions.Filter(parse),
            ModuleMapPath = modules,
            Integrity = parse.GetValue(SkipCorrupt) ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict,
            Diagnostics = diagnostics,
        };
    }

    /// <summary>
    /// Writes why nothing could be bucketed to stderr (with the events the inputs hold, for missing events) and the reader's
    /// warnings, and returns exit code 4 (3 when the input was read only in part; see <see cref="CaptureCommandSupport.FinishMissing"/>).
    /// </summary>
    public static int ReportMissing(MissingData m, IReadOnlyList<string> inputs, EventFilter filter, XelDiagnostics diagnostics, TextWriter stdout, TextWriter stderr, string? side = null)
    {
        string text;
        if (m.Kind == MissingDataKind.Events)
        {
            IReadOnlyList<EventNameCount> found = AnalysisInput.Open(inputs).CountEvents();
            text = (filter.IsEmpty ? string.Empty : "No event passed the filter (" + filter + "). ") + m.Describe(found);
        }
        else
        {
            text = m.Describe();
        }

        CaptureCommandSupport.WriteMessage(text, stdout, stderr, side);
        return CaptureCommandSupport.FinishMissing(diagnostics, stderr);
    }

    public static StackWeight ParseWeight(string? text) => text switch
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

    public static string Label(IEnumerable<string> inputs) => string.Join(", ", inputs);
}

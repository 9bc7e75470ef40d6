using System.CommandLine;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The inputs of every command that reads captures — files, rollover sets, folders, globs, <c>.xel</c> and target-data
/// XML mixed — and
/// <c>--skip-corrupt</c>, opened as one <see cref="CaptureSource"/> the same way everywhere.
/// </summary>
internal sealed class CaptureInputOptions
{
    public const string InputsDescription =
        "Capture files (.xel), rollover sets, folders, globs, or target-data XML (histogram, ring_buffer, "
        + "event_counter, pair_matching, event_file, event_data rows), mixed.";

    public CaptureInputOptions(string? description = null)
    {
        Inputs = new Argument<string[]>("input")
        {
            Description = description ?? InputsDescription,
            Arity = ArgumentArity.OneOrMore,
        }.AcceptsPaths("a capture file, folder or glob");
    }

    public Argument<string[]> Inputs { get; }

    public Option<bool> SkipCorrupt { get; } =
        new("--skip-corrupt")
        {
            Description =
                "Skip damaged buffers (reported on stderr, exit code 3) instead of stopping at the first damage.",
        };

    public static CaptureInputOptions AddTo(Command command, string? description = null)
    {
        var o = new CaptureInputOptions(description);
        command.Arguments.Add(o.Inputs);
        command.Options.Add(o.SkipCorrupt);
        return o;
    }

    public IReadOnlyList<string> Names(ParseResult parse) => parse.GetValue(Inputs) ?? [];

    public CaptureReadOptions ReadOptions(ParseResult parse, string? modules = null) =>
        new()
        {
            Integrity = parse.GetValue(SkipCorrupt)
                ? XelIntegrityHandling.SkipCorruptBuffers
                : XelIntegrityHandling.Strict,
            ModuleMapPath = modules,
            Progress = TerminalProgress.Current,
        };

    public CaptureSource Open(
        ParseResult parse,
        string? modules = null,
        CancellationToken cancellationToken = default
    ) => CaptureSource.Open(Names(parse), ReadOptions(parse, modules), cancellationToken);
}

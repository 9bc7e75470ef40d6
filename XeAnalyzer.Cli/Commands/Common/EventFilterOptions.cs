using System.CommandLine;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The event filter options of the analysis commands and of <c>stacks</c>/<c>diff</c> (<c>--event</c>, <c>--where</c>,
/// <c>--from</c>/<c>--to</c>) and the <see cref="EventFilter"/> they build; bad values are usage errors (exit 2).
/// </summary>
internal sealed class EventFilterOptions
{
    /// <summary>Creates the options.</summary>
    /// <param name="eventsDefault">The sentence of the <c>--event</c> help that says which events are read without
    /// it.</param>
    /// <param name="whereExample">An example appended to the <c>--where</c> help, or <see langword="null"/>.</param>
    public EventFilterOptions(string eventsDefault, string? whereExample = null)
    {
        Events = new Option<string[]>("--event")
        {
            Description =
                "Only these events (package.event or event; repeatable; a name the capture does not "
                + "have is a usage error). "
                + eventsDefault,
            AllowMultipleArgumentsPerToken = false,
        };
        Where = new Option<string[]>("--where")
        {
            Description =
                "Keep events whose field or action NAME compares with VALUE: NAME=VALUE, NAME!=VALUE, "
                + "NAME<VALUE, NAME<=VALUE, NAME>VALUE, NAME>=VALUE (numbers, times) or NAME~REGEX (text; .NET regular "
                + "expression, ignoring case). Repeatable: = and ~ on the same NAME are alternatives (OR), "
                + "everything else must hold (AND). Map fields match their text or numeric key "
                + "(class=NESTING_TRANSACTION_FULL, wait_type=120); text ignores case; an event without NAME never "
                + "matches. A NAME the capture does not have is a usage error."
                + (whereExample is null ? string.Empty : " " + whereExample),
            AllowMultipleArgumentsPerToken = false,
        };
    }

    public Option<string[]> Events { get; }

    public Option<string[]> Where { get; }

    public Option<string?> From { get; } =
        new("--from")
        {
            Description =
                "Keep events at or after this UTC time: 2024-03-01, 2024-03-01T12:00, 2024-03-01T12:00:00.1234567 "
                + "(space instead of T allowed), optionally with Z or +hh:mm.",
        };

    public Option<string?> To { get; } =
        new("--to") { Description = "Keep events before this UTC time (same formats as --from)." };

    /// <summary>Adds <c>--event</c>, <c>--where</c>, <c>--from</c> and <c>--to</c>, in that order.</summary>
    public void AddTo(Command command)
    {
        command.Options.Add(Events);
        command.Options.Add(Where);
        command.Options.Add(From);
        command.Options.Add(To);
    }

    /// <summary>The filter the options describe.</summary>
    public EventFilter Filter(ParseResult parse)
    {
        var conditions = new List<FieldCondition>();
        foreach (string w in parse.GetValue(Where) ?? [])
        {
            try
            {
                conditions.Add(FieldCondition.Parse(w));
            }
            catch (FormatException ex)
            {
                throw new UsageException("--where: " + ex.Message);
            }
        }

        return new EventFilter(
            parse.GetValue(Events),
            conditions,
            Time(parse.GetValue(From), "--from"),
            Time(parse.GetValue(To), "--to")
        );
    }

    private static DateTime? Time(string? text, string option)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        try
        {
            return EventFilter.ParseTime(text);
        }
        catch (FormatException ex)
        {
            throw new UsageException(option + ": " + ex.Message);
        }
    }
}

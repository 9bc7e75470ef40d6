namespace XeAnalyzer.Events;

/// <summary>The time unit of a duration-like event field.</summary>
internal enum FieldTimeUnit
{
    /// <summary>Milliseconds.</summary>
    Milliseconds,

    /// <summary>Microseconds.</summary>
    Microseconds,
}

/// <summary>What the unit of a duration-like field is and how sure XeAnalyzer is of it.</summary>
/// <param name="Unit">The unit, or <see langword="null"/> when nothing says it.</param>
/// <param name="Verified">Whether the unit comes from the capture's own metadata or a checked reference; false for a
/// third-party reading.</param>
/// <param name="Source">Where the unit comes from, for notes and docs.</param>
internal sealed record FieldUnit(FieldTimeUnit? Unit, bool Verified, string Source)
{
    /// <summary>The unit as a label shows it: <c>ms</c>, <c>µs</c>, <c>µs, unit unverified</c> or
    /// <c>unit unknown</c>.</summary>
    public string Label =>
        Unit switch
        {
            null => "unit unknown",
            FieldTimeUnit u => Verified ? Symbol(u) : Symbol(u) + ", unit unverified",
        };

    /// <summary>The unit's ASCII code for machines (<c>ms</c>, <c>us</c>), or <c>unknown</c>.</summary>
    public string Code =>
        Unit switch
        {
            FieldTimeUnit.Milliseconds => "ms",
            FieldTimeUnit.Microseconds => "us",
            _ => "unknown",
        };

    /// <summary>The symbol of a unit: <c>ms</c> or <c>µs</c>.</summary>
    public static string Symbol(FieldTimeUnit unit) => unit == FieldTimeUnit.Microseconds ? "\u00B5s" : "ms";
}

/// <summary>
/// The one rule for the unit of a duration-like event field (<c>duration</c>, <c>signal_duration</c>, <c>cpu_time</c>
/// and the like): every label, column header and unit field of every output asks it. In order: the field's own
/// description in the capture's metadata (for example "Wait duration in milliseconds"), because real metadata beats a
/// model, except where a reference records the description as contradicted by the values; then the units of the
/// reference (<c>XE-ANALYSES.md</c> §5, <c>XE-TEXT-SHAPES.md</c> §12); else unknown.
/// </summary>
internal static class DurationUnits
{
    private const string ReferenceSource = "XeAnalyzer's table of Extended Events units (docs/commands.md, Units)";

    private static readonly string[] s_waitEvents = ["wait_info", "wait_info_external", "wait_completed"];

    private static readonly string[] s_queryEvents =
    [
        "rpc_completed",
        "sql_batch_completed",
        "sql_statement_completed",
        "sp_statement_completed",
        "module_end",
        "logout",
        "attention",
    ];

    private static readonly string[] s_latchEvents = ["latch_released", "latch_suspend_end"];

    /// <summary>Whether a field is duration-like: named like a duration or described in a time unit.</summary>
    /// <param name="field">The field.</param>
    /// <returns>True for <c>duration</c>, <c>*_duration</c>, <c>cpu_time</c> and fields whose description names
    /// milliseconds or microseconds.</returns>
    public static bool IsDurationLike(XeColumn field)
    {
        ArgumentNullException.ThrowIfNull(field);
        if (field.Kind != XeColumnKind.Field || field.IsMap)
        {
            return false;
        }

        return IsDurationName(field.Name) || DescribedUnit(field.Description) is not null;
    }

    /// <summary>Whether a field's name is a duration's, for a field known by name only (no metadata at hand).
    /// </summary>
    /// <param name="name">The field's name.</param>
    /// <returns>True for <c>duration</c>, <c>*_duration</c> and <c>cpu_time</c>.</returns>
    public static bool IsDurationName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return name.Equals("duration", StringComparison.OrdinalIgnoreCase)
            || name.EndsWith("_duration", StringComparison.OrdinalIgnoreCase)
            || name.Equals("cpu_time", StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>The unit of a field of an event type, or <see langword="null"/> for a field that is no duration.
    /// </summary>
    /// <param name="eventName">The event's name, short (<c>wait_info</c>) or full (<c>sqlos.wait_info</c>).</param>
    /// <param name="field">The field.</param>
    /// <returns>The unit and its source.</returns>
    public static FieldUnit? Of(string eventName, XeColumn field)
    {
        ArgumentNullException.ThrowIfNull(eventName);
        return IsDurationLike(field) ? Of(eventName, field.Name, field.Description) : null;
    }

    /// <summary>The unit of a field given by name and metadata description (empty when the capture has none).</summary>
    /// <param name="eventName">The event's name, short or full.</param>
    /// <param name="fieldName">The field's name.</param>
    /// <param name="description">The field's description in the capture's metadata, or empty.</param>
    /// <returns>The unit and its source (the unit is <see langword="null"/> when nothing says it).</returns>
    public static FieldUnit Of(string eventName, string fieldName, string? description)
    {
        ArgumentNullException.ThrowIfNull(eventName);
        ArgumentNullException.ThrowIfNull(fieldName);
        string ev = eventName[(eventName.LastIndexOf('.') + 1)..];
        string field = fieldName.ToLowerInvariant();

        // SQL Server 2017 describes sql_batch_completed's cpu_time as milliseconds, but its values are microseconds
        // (cpu 78000 against duration 88187, in whole-ms steps); the reference records the contradiction.
        if (ev == "sql_batch_completed" && field == "cpu_time")
        {
            return new FieldUnit(
                FieldTimeUnit.Microseconds,
                true,
                "the values (the metadata's description says milliseconds but the values are microseconds)"
            );
        }

        if (DescribedUnit(description) is FieldTimeUnit described)
        {
            return new FieldUnit(described, true, "the field's description in the capture's metadata");
        }

        if (Array.IndexOf(s_waitEvents, ev) >= 0 && field is "duration" or "signal_duration")
        {
            return new FieldUnit(FieldTimeUnit.Milliseconds, true, ReferenceSource);
        }

        if (Array.IndexOf(s_queryEvents, ev) >= 0 && field is "duration" or "cpu_time")
        {
            return new FieldUnit(FieldTimeUnit.Microseconds, true, ReferenceSource);
        }

        if (Array.IndexOf(s_latchEvents, ev) >= 0 && field == "duration")
        {
            return new FieldUnit(
                FieldTimeUnit.Microseconds,
                false,
                "a third-party parser; no Microsoft source states it"
            );
        }

        return new FieldUnit(null, false, "nothing (the metadata has no description with a unit)");
    }

    /// <summary>
    /// The unit of one column that holds a field of several event types: the unit when they agree, else each unit with
    /// its events (<c>ms for sqlos.wait_info; µs for sqlserver.rpc_completed</c>).
    /// </summary>
    /// <param name="units">Each event type (full name) and the unit of its field.</param>
    /// <returns>The label, or <see langword="null"/> when there is no unit to give.</returns>
    public static string? Describe(IEnumerable<(string EventName, FieldUnit Unit)> units)
    {
        ArgumentNullException.ThrowIfNull(units);
        var byUnit = new List<(string Label, List<string> Events)>();
        foreach ((string eventName, FieldUnit unit) in units)
        {
            int k = byUnit.FindIndex(x => x.Label == unit.Label);
            if (k < 0)
            {
                byUnit.Add((unit.Label, [eventName]));
            }
            else if (!byUnit[k].Events.Contains(eventName))
            {
                byUnit[k].Events.Add(eventName);
            }
        }

        return byUnit.Count switch
        {
            0 => null,
            1 => byUnit[0].Label,
            _ => string.Join("; ", byUnit.Select(x => x.Label + " for " + string.Join(", ", x.Events))),
        };
    }

    private static FieldTimeUnit? DescribedUnit(string? description)
    {
        if (string.IsNullOrEmpty(description))
        {
            return null;
        }

        bool micro = description.Contains("microsecond", StringComparison.OrdinalIgnoreCase);
        bool milli = description.Contains("millisecond", StringComparison.OrdinalIgnoreCase);
        return micro == milli ? null
            : micro ? FieldTimeUnit.Microseconds
            : FieldTimeUnit.Milliseconds;
    }
}

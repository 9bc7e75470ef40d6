using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Capture;

/// <summary>
/// Selects events for an analysis: by event name (<c>--event</c>), by field or action value (<c>--where</c>) and by
/// time (<c>--from</c> inclusive, <c>--to</c> exclusive, UTC).
/// </summary>
/// <remarks>
/// <para><b>Event names</b> are <c>package.event</c> or <c>event</c>, compared ordinally and case-sensitively (as the
/// reader's name filter, to which <see cref="CaptureSource"/> pushes them down so other events are skipped before
/// decoding).</para>
/// <para><b>Conditions</b> name a field or an action. A short name is looked up among the event's fields first, then
/// among its actions (exact match first, then ignoring case); a <c>package.action</c> name only among actions. An event
/// that has neither does not match. Values compare as follows: a map field matches its map text (ignoring case, e.g.
/// <c>class=nesting_transaction_full</c>) or its numeric map key (<c>wait_type=120</c>); integer, pointer and boolean
/// values compare numerically (decimal, <c>0x</c> hexadecimal, <c>true</c>/<c>false</c>); floating-point values
/// numerically; text and everything else by their rendered text, ignoring case (ordinal). <c>!=</c> is "present and not
/// equal".
/// <c>&lt;</c>, <c>&lt;=</c>, <c>&gt;</c> and <c>&gt;=</c> compare numbers (integers, map keys, floating point) and
/// <c>filetime</c> values with a time; on text they are false. <c>~</c> finds a .NET regular expression (ignoring
/// case, culture-invariant, at most <see cref="FieldCondition.PatternTimeout"/> per value) in the rendered text (a map
/// field's text). A condition on a field or action the event does not have is false, whatever the operator. Conditions
/// <c>=</c> and <c>~</c> on the same name are alternatives (OR); every other condition must hold (AND), so
/// <c>duration&gt;=100 duration&lt;1000</c> is a range.</para>
/// <para>Instances cache column look-ups per event type and are not thread-safe; use one per enumeration.</para>
/// </remarks>
public sealed class EventFilter
{
    private static readonly string[] s_timeFormats = BuildTimeFormats();

    private readonly ConditionGroup[] _groups;
    private readonly Dictionary<(XeEventType Type, XeActionSet Set), int[]?> _cache = [];
    private XeEventType? _lastType;
    private XeActionSet? _lastSet;
    private int[]? _lastColumns;

    /// <summary>Creates a filter.</summary>
    /// <param name="eventNames">Event names to keep; <see langword="null"/> or empty keeps every event.</param>
    /// <param name="conditions">Field/action conditions; <see langword="null"/> for none.</param>
    /// <param name="from">Keep events at or after this time (UTC; other kinds are converted).</param>
    /// <param name="to">Keep events before this time.</param>
    public EventFilter(
        IEnumerable<string>? eventNames = null,
        IEnumerable<FieldCondition>? conditions = null,
        DateTime? from = null,
        DateTime? to = null
    )
    {
        string[] names = eventNames is null
            ? []
            :
            [
                .. eventNames
                    .Where(n => !string.IsNullOrWhiteSpace(n))
                    .Select(n => n.Trim())
                    .Distinct(StringComparer.Ordinal),
            ];
        FieldCondition[] conds = conditions is null ? [] : [.. conditions];
        if (Array.Exists(conds, c => c is null))
        {
            throw new ArgumentNullException(nameof(conditions), "A condition is null.");
        }

        EventNames = Array.AsReadOnly(names);
        Conditions = Array.AsReadOnly(conds);
        From = from is DateTime f ? ToUtc(f) : null;
        To = to is DateTime t ? ToUtc(t) : null;
        // = and ~ on one name are alternatives; every other condition is a group of its own, so that ranges are ANDed.
        _groups =
        [
            .. conds
                .Select(
                    (c, i) =>
                        (Condition: c, Key: IsAlternative(c) ? "=" + c.Name : i.ToString(CultureInfo.InvariantCulture))
                )
                .GroupBy(c => c.Key, StringComparer.OrdinalIgnoreCase)
                .Select(g => new ConditionGroup(g.First().Condition.Name, [.. g.Select(c => c.Condition)])),
        ];
    }

    /// <summary>A filter that keeps every event.</summary>
    public static EventFilter None { get; } = new();

    /// <summary>The event names to keep (empty: all).</summary>
    public IReadOnlyList<string> EventNames { get; }

    /// <summary>The field/action conditions.</summary>
    public IReadOnlyList<FieldCondition> Conditions { get; }

    /// <summary>The inclusive lower time bound (UTC), or <see langword="null"/>.</summary>
    public DateTime? From { get; }

    /// <summary>The exclusive upper time bound (UTC), or <see langword="null"/>.</summary>
    public DateTime? To { get; }

    /// <summary>Whether the filter keeps every event.</summary>
    public bool IsEmpty => EventNames.Count == 0 && Conditions.Count == 0 && From is null && To is null;

    /// <summary>Whether the filter restricts more than event names (conditions or a time range).</summary>
    public bool HasValueConditions => Conditions.Count > 0 || From is not null || To is not null;

    /// <summary>Whether <paramref name="eventType"/> passes the name part of the filter.</summary>
    /// <param name="eventType">The event type.</param>
    /// <returns>Whether its name is kept.</returns>
    public bool MatchesName(XeEventType eventType)
    {
        ArgumentNullException.ThrowIfNull(eventType);
        if (EventNames.Count == 0)
        {
            return true;
        }

        foreach (string n in EventNames)
        {
            if (eventType.Matches(n))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether an event name (<c>package.event</c>) passes the name part of the filter.</summary>
    /// <param name="package">The package name, or <see langword="null"/>.</param>
    /// <param name="name">The event name.</param>
    /// <returns>Whether it is kept.</returns>
    public bool MatchesName(string? package, string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return EventNames.Count == 0 || MatchesAny(EventNames, package, name);
    }

    /// <summary>Whether an event named <paramref name="package"/>.<paramref name="name"/> matches one of
    /// <paramref name="names"/> (short names match the event name, <c>package.event</c> names the full name).</summary>
    /// <param name="names">The names.</param>
    /// <param name="package">The event's package, or <see langword="null"/> when unknown.</param>
    /// <param name="name">The event's short name.</param>
    /// <returns>Whether one matches.</returns>
    internal static bool MatchesAny(IReadOnlyCollection<string> names, string? package, string name)
    {
        string full = package is null ? name : package + "." + name;
        foreach (string n in names)
        {
            if (
                n.Contains('.', StringComparison.Ordinal)
                    ? string.Equals(n, full, StringComparison.Ordinal)
                    : string.Equals(n, name, StringComparison.Ordinal)
            )
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether an event passes the whole filter.</summary>
    /// <param name="e">The event.</param>
    /// <returns>Whether it is kept.</returns>
    public bool Matches(XEvent e)
    {
        ArgumentNullException.ThrowIfNull(e);
        if (From is DateTime f && e.Timestamp < f)
        {
            return false;
        }

        if (To is DateTime t && e.Timestamp >= t)
        {
            return false;
        }

        if (EventNames.Count > 0 && !MatchesName(e.EventType))
        {
            return false;
        }

        if (_groups.Length == 0)
        {
            return true;
        }

        int[]? columns = Resolve(e);
        if (columns is null)
        {
            return false;
        }

        for (int g = 0; g < _groups.Length; g++)
        {
            int c = columns[g];
            XeValue v = c >= 0 ? e.GetField(c) : e.GetAction(~c);
            bool any = false;
            foreach (FieldCondition cond in _groups[g].Conditions)
            {
                if (cond.MatchesValue(v))
                {
                    any = true;
                    break;
                }
            }

            if (!any)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The event, field and action names of this filter that the capture a read went through does not have, one message
    /// each naming it and the nearest names it does have (<see cref="NearestNames"/>). Event names are checked against
    /// the events of every input (a <c>.xel</c> file's metadata, or the events the XML holds); field and action names
    /// against the event types the filter's event names select (all of them without <c>--event</c>) and the actions of
    /// the capture. Target-data XML carries no schema, so there only the events read count. A capture with no event
    /// at all (a histogram) has nothing to check against, and a read that was partial may have missed the names in the
    /// part it could not read: then nothing is reported.
    /// </summary>
    /// <param name="read">What the read through this filter found.</param>
    /// <returns>The messages, in the filter's order; empty when every name is known.</returns>
    public IReadOnlyList<string> FindUnknownNames(CaptureSummary read)
    {
        ArgumentNullException.ThrowIfNull(read);
        return FindUnknownNames([read]);
    }

    /// <summary>
    /// The names of this filter that none of several captures read through it has (a batch): the rule of
    /// <see cref="FindUnknownNames(CaptureSummary)"/> over the events, fields and actions of all of them together, so a
    /// name some captures have is known. Nothing is reported when any read was partial.
    /// </summary>
    /// <param name="reads">What the reads through this filter found, one per capture.</param>
    /// <returns>The messages, in the filter's order; empty when every name is known to some capture.</returns>
    internal IReadOnlyList<string> FindUnknownNames(IReadOnlyCollection<CaptureSummary> reads)
    {
        ArgumentNullException.ThrowIfNull(reads);
        if ((EventNames.Count == 0 && Conditions.Count == 0) || reads.Count == 0 || reads.Any(r => r.IsPartial))
        {
            return [];
        }

        var types = new List<XeEventType>();
        var actions = new SortedSet<string>(StringComparer.Ordinal);
        var eventNames = new SortedSet<string>(
            reads.SelectMany(r => r.EventsByName).Select(e => e.Name),
            StringComparer.Ordinal
        );
        foreach (InputSummary input in reads.SelectMany(r => r.Inputs))
        {
            foreach (FileSummary file in input.Files)
            {
                if (file.Xel is { } facts)
                {
                    types.AddRange(facts.Schema.EventTypes);
                    actions.UnionWith(facts.Schema.Actions.Select(a => a.FullName));
                }
            }

            types.AddRange(input.TypesRead);
            actions.UnionWith(input.ActionsRead);
        }

        eventNames.UnionWith(types.Select(t => t.FullName));
        if (eventNames.Count == 0)
        {
            return [];
        }

        var problems = new List<string>();
        foreach (string name in EventNames.Where(n => !eventNames.Any(e => CaptureSummary.EventNameMatches(e, n))))
        {
            IEnumerable<string> candidates = name.Contains('.', StringComparison.Ordinal)
                ? eventNames
                : eventNames.Select(ShortName);
            problems.Add("--event " + name + ": the capture has no event of that name" + Suggest(name, candidates));
        }

        List<XeEventType> selected = [.. types.Where(MatchesName)];
        if (selected.Count == 0)
        {
            return problems;
        }

        string on =
            EventNames.Count == 0
                ? "no event of the capture has"
                : "no event of " + string.Join(", ", EventNames) + " has";
        foreach (FieldCondition c in Conditions.DistinctBy(c => c.Name, StringComparer.OrdinalIgnoreCase))
        {
            bool field =
                !c.IsActionName
                && selected.Any(t =>
                    t.Fields.Any(f => string.Equals(f.Name, c.Name, StringComparison.OrdinalIgnoreCase))
                );
            bool action = actions.Any(a =>
                string.Equals(c.IsActionName ? a : ShortName(a), c.Name, StringComparison.OrdinalIgnoreCase)
            );
            if (!field && !action)
            {
                IEnumerable<string> candidates = c.IsActionName
                    ? actions
                    : selected.SelectMany(t => t.Fields.Select(f => f.Name)).Concat(actions.Select(ShortName));
                problems.Add(
                    "--where " + c + ": " + on + " a field or action named " + c.Name + Suggest(c.Name, candidates)
                );
            }
        }

        return problems;
    }

    /// <summary>
    /// Parses a time given on the command line. Accepted: ISO 8601 <c>yyyy-MM-dd</c>, <c>yyyy-MM-ddTHH:mm</c>,
    /// <c>yyyy-MM-ddTHH:mm:ss</c> and <c>yyyy-MM-ddTHH:mm:ss.fffffff</c> (1 to 7 fraction digits), with a space allowed
    /// instead of <c>T</c>, optionally followed by <c>Z</c> or an offset <c>+hh:mm</c>/<c>-hh:mm</c>. Without a zone
    /// the time is UTC (Extended Events timestamps are UTC). Culture-independent.
    /// </summary>
    /// <param name="text">The text.</param>
    /// <returns>The time, UTC.</returns>
    /// <exception cref="FormatException">The text is not one of the accepted forms.</exception>
    public static DateTime ParseTime(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        if (TryParseTime(text, out DateTime t))
        {
            return t;
        }

        throw new FormatException(
            "expected a UTC time such as 2024-03-01T12:00:00Z, 2024-03-01 12:00:00.123 or 2024-03-01T13:00:00+01:00, "
                + "found '"
                + text
                + "'"
        );
    }

    /// <inheritdoc/>
    public override string ToString()
    {
        var parts = new List<string>();
        if (EventNames.Count > 0)
        {
            parts.Add("events " + string.Join(", ", EventNames));
        }

        parts.AddRange(Conditions.Select(c => c.ToString()));
        if (From is DateTime f)
        {
            parts.Add("from " + Timestamps.IsoUtc(f));
        }

        if (To is DateTime t)
        {
            parts.Add("to " + Timestamps.IsoUtc(t));
        }

        return parts.Count == 0 ? "(none)" : string.Join("; ", parts);
    }

    /// <summary>Parses a time as <see cref="ParseTime"/> does.</summary>
    internal static bool TryParseTime(string text, out DateTime time)
    {
        bool ok = DateTimeOffset.TryParseExact(
            text.Trim(),
            s_timeFormats,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal,
            out DateTimeOffset t
        );
        time = ok ? t.UtcDateTime : default;
        return ok;
    }

    private static string ShortName(string fullName) =>
        fullName[(fullName.IndexOf('.', StringComparison.Ordinal) + 1)..];

    private static string Suggest(string name, IEnumerable<string> candidates)
    {
        IReadOnlyList<string> nearest = NearestNames.Find(name, candidates, 3);
        return nearest.Count == 0 ? "." : "; nearest: " + string.Join(", ", nearest) + ".";
    }

    private static bool IsAlternative(FieldCondition c) =>
        c.Operator is ConditionOperator.Equal or ConditionOperator.Matches;

    private static DateTime ToUtc(DateTime t) =>
        t.Kind switch
        {
            DateTimeKind.Utc => t,
            DateTimeKind.Local => t.ToUniversalTime(),
            _ => DateTime.SpecifyKind(t, DateTimeKind.Utc),
        };

    private static string[] BuildTimeFormats()
    {
        var bases = new List<string> { "yyyy-MM-dd" };
        foreach (string sep in new[] { "'T'", " " })
        {
            bases.Add("yyyy-MM-dd" + sep + "HH:mm");
            bases.Add("yyyy-MM-dd" + sep + "HH:mm:ss");
            for (int digits = 1; digits <= 7; digits++)
            {
                bases.Add("yyyy-MM-dd" + sep + "HH:mm:ss." + new string('f', digits));
            }
        }

        var all = new List<string>();
        foreach (string b in bases)
        {
            all.Add(b);
            all.Add(b + "'Z'");
            all.Add(b + "zzz");
        }

        return [.. all];
    }

    private int[]? Resolve(XEvent e)
    {
        if (ReferenceEquals(e.EventType, _lastType) && ReferenceEquals(e.ActionSet, _lastSet))
        {
            return _lastColumns;
        }

        if (!_cache.TryGetValue((e.EventType, e.ActionSet), out int[]? columns))
        {
            columns = new int[_groups.Length];
            for (int g = 0; g < _groups.Length; g++)
            {
                int c = FindColumn(e.EventType, e.ActionSet, _groups[g].Name, _groups[g].IsActionName);
                if (c == int.MinValue)
                {
                    columns = null;
                    break;
                }

                columns[g] = c;
            }

            if (_cache.Count < 100_000)
            {
                _cache[(e.EventType, e.ActionSet)] = columns;
            }
        }

        _lastType = e.EventType;
        _lastSet = e.ActionSet;
        _lastColumns = columns;
        return columns;
    }

    /// <summary>Field index (≥ 0), <c>~actionIndex</c> (&lt; 0), or <see cref="int.MinValue"/> when absent.</summary>
    internal static int FindColumn(XeEventType type, XeActionSet set, string name, bool actionOnly)
    {
        if (!actionOnly)
        {
            int f = type.GetFieldIndex(name);
            if (f >= 0)
            {
                return f;
            }

            for (int i = 0; i < type.Fields.Count; i++)
            {
                if (string.Equals(type.Fields[i].Name, name, StringComparison.OrdinalIgnoreCase))
                {
                    return i;
                }
            }
        }

        int a = set.IndexOf(name);
        if (a >= 0)
        {
            return ~a;
        }

        for (int i = 0; i < set.Count; i++)
        {
            if (string.Equals(actionOnly ? set[i].FullName : set[i].Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return ~i;
            }
        }

        return int.MinValue;
    }

    private sealed class ConditionGroup(string name, FieldCondition[] conditions)
    {
        public string Name { get; } = name;

        public bool IsActionName { get; } = name.Contains('.', StringComparison.Ordinal);

        public FieldCondition[] Conditions { get; } = conditions;
    }
}

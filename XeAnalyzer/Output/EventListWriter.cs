using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;
using XeAnalyzer.Events;

namespace XeAnalyzer.Output;

/// <summary>The formats of <see cref="EventListWriter"/>.</summary>
internal enum EventListFormat
{
    /// <summary>One line per event: time, name, then <c>name=value</c> pairs (line breaks in values escaped).</summary>
    Text,

    /// <summary>One row per event: <c>timestamp, event, file, offset</c>, then every field, then every action (columns
    /// known before the first row).</summary>
    Csv,

    /// <summary>A JSON array with one object per event: timestamp, event, uuid, file, offset, fields,
    /// actions.</summary>
    Json,
}

/// <summary>
/// The columns of an event table: every field of the event types (in event-type order, each name once), then every
/// action (in metadata order); an action whose short name clashes with a field or another action is labelled <c>name
/// (action)</c> or by its full name. A <c>wait_result</c> field is followed by a <c>wait_result_meaning</c> column
/// (<see cref="WaitResults"/>), so that the code's own column stays a number. Immutable.
/// </summary>
internal sealed class EventListColumns
{
    /// <summary>The fixed columns that start every row.</summary>
    public static IReadOnlyList<string> Fixed { get; } = ["timestamp", "event", "file", "offset"];

    /// <summary>The label of the column that follows a <c>wait_result</c> column with the code's meaning.</summary>
    public const string WaitResultMeaning = WaitResults.FieldName + "_meaning";

    private EventListColumns(
        IReadOnlyList<string> fields,
        IReadOnlyList<string> fieldLabels,
        IReadOnlyList<(string Key, string Label)> actions
    )
    {
        Fields = fields;
        Actions = actions;
        Header = [.. Fixed, .. fieldLabels, .. actions.Select(a => a.Label)];
    }

    /// <summary>The position in <see cref="Header"/> of each field of <see cref="Fields"/>.</summary>
    public IReadOnlyList<int> FieldPositions { get; private init; } = [];

    /// <summary>The position in <see cref="Header"/> of each meaning column, by the position of its code column.
    /// </summary>
    public IReadOnlyDictionary<int, int> MeaningPositions { get; private init; } = new Dictionary<int, int>();

    /// <summary>The position in <see cref="Header"/> of the first action column.</summary>
    public int FirstActionPosition => Header.Count - Actions.Count;

    /// <summary>The field columns (field names; a name that clashes with a fixed column is labelled <c>name (field)</c>
    /// in <see cref="Header"/>).</summary>
    public IReadOnlyList<string> Fields { get; }

    /// <summary>The action columns: full name and label.</summary>
    public IReadOnlyList<(string Key, string Label)> Actions { get; }

    /// <summary>Every column label, in order.</summary>
    public IReadOnlyList<string> Header { get; }

    /// <summary>The columns of these event types and actions.</summary>
    /// <param name="eventTypes">The event types, in order.</param>
    /// <param name="actions">The actions, in order.</param>
    /// <returns>The columns.</returns>
    public static EventListColumns From(IEnumerable<XeEventType> eventTypes, IEnumerable<XeColumn> actions)
    {
        ArgumentNullException.ThrowIfNull(eventTypes);
        ArgumentNullException.ThrowIfNull(actions);
        var fields = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (XeEventType t in eventTypes)
        {
            foreach (XeColumn f in t.Fields)
            {
                if (seen.Add(f.Name))
                {
                    fields.Add(f.Name);
                }
            }
        }

        // A field named like a fixed column (system_health's ring-buffer events have a "timestamp" field) is labelled
        // as a field.
        var labels = new List<string>(fields.Count + 1);
        var positions = new List<int>(fields.Count);
        var meanings = new Dictionary<int, int>();
        foreach (string f in fields)
        {
            string label = Fixed.Contains(f, StringComparer.Ordinal) ? f + " (field)" : f;
            positions.Add(Fixed.Count + labels.Count);
            labels.Add(UnitSuffix(eventTypes, f) is string unit ? label + " (" + unit + ")" : label);
            if (eventTypes.Any(t => t.GetFieldIndex(f) is int i and >= 0 && WaitResults.IsCodeField(t.Fields[i])))
            {
                meanings.Add(positions[^1], Fixed.Count + labels.Count);
                labels.Add(WaitResultMeaning);
            }
        }

        var acts = new List<(string Key, string Label)>();
        foreach (XeColumn a in actions)
        {
            if (!acts.Exists(x => x.Key == a.FullName))
            {
                acts.Add((a.FullName, a.Name));
            }
        }

        for (int i = 0; i < acts.Count; i++)
        {
            (string key, string label) = acts[i];
            bool clash = seen.Contains(label) || acts.Exists(x => x.Key != key && x.Label == label);
            acts[i] = (key, clash ? (acts.Count(x => x.Label == label) > 1 ? key : label + " (action)") : label);
        }

        return new EventListColumns(fields.AsReadOnly(), labels.AsReadOnly(), acts.AsReadOnly())
        {
            FieldPositions = positions.AsReadOnly(),
            MeaningPositions = meanings.AsReadOnly(),
        };
    }

    /// <summary>The unit of a duration-like field column (<see cref="DurationUnits.Describe"/>), or
    /// <see langword="null"/> for a column that is no duration.</summary>
    private static string? UnitSuffix(IEnumerable<XeEventType> eventTypes, string field) =>
        DurationUnits.Describe(
            eventTypes
                .Select(t =>
                    (
                        t.FullName,
                        Unit: t.GetFieldIndex(field) is int i and >= 0 ? DurationUnits.Of(t.Name, t.Fields[i]) : null
                    )
                )
                .Where(x => x.Unit is not null)
                .Select(x => (x.FullName, x.Unit!))
        );
}

/// <summary>
/// Flattens events to text, CSV or JSON with the same columns and value renderings whatever the input (<c>.xel</c> or
/// target-data XML): map values as their text, pointers as <c>0x</c> + 16 hex digits, callstacks as one <c>0x…</c> line
/// per frame, times as ISO 8601 UTC with seven fraction digits. A value an event does not carry (a field its type
/// lacks, the file offset of an XML event, the type GUID XML does not give) is empty in text and CSV and <c>null</c> in
/// JSON, never invented. The CSV goes through the one CSV encoder (<see cref="CsvTableWriter"/>: its CSV-injection rule
/// protects text values, never numbers) and the JSON follows the JSON conventions of every output
/// (<see cref="JsonOutput"/>). Events are a stream (as many as the capture holds), so they are written as they are read
/// rather than as a <see cref="ReportDocument"/>.
/// </summary>
internal static class EventListWriter
{
    /// <summary>The format names of <see cref="EventListFormat"/> as <c>--format</c> takes them.</summary>
    public static IReadOnlyList<string> FormatNames { get; } = ["text", "csv", "json"];

    /// <summary>The format of a name (ordinal, case-insensitive).</summary>
    /// <param name="name">The name: <c>text</c>, <c>csv</c> or <c>json</c>.</param>
    /// <returns>The format.</returns>
    /// <exception cref="ArgumentException">The name is not one of <see cref="FormatNames"/>.</exception>
    public static EventListFormat ParseFormat(string name) =>
        name?.ToLowerInvariant() switch
        {
            "text" => EventListFormat.Text,
            "csv" => EventListFormat.Csv,
            "json" => EventListFormat.Json,
            _ => throw new ArgumentException(
                "unknown event list format '" + name + "' (expected text, csv or json)",
                nameof(name)
            ),
        };

    /// <summary>Writes events.</summary>
    /// <param name="output">The destination (not closed).</param>
    /// <param name="format">The format.</param>
    /// <param name="events">The events.</param>
    /// <param name="columns">The CSV columns (required for <see cref="EventListFormat.Csv"/>).</param>
    /// <returns>The number of events written.</returns>
    /// <exception cref="ArgumentException">CSV without columns.</exception>
    public static long Write(
        TextWriter output,
        EventListFormat format,
        IEnumerable<XEvent> events,
        EventListColumns? columns = null
    )
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(events);
        return format switch
        {
            EventListFormat.Csv => WriteCsv(
                output,
                events,
                columns ?? throw new ArgumentException("CSV needs the columns (EventListColumns.From)", nameof(columns))
            ),
            EventListFormat.Json => WriteJson(output, events),
            _ => WriteText(output, events),
        };
    }

    private static string ActionLabel(XeEventType type, XeActionSet set, int i)
    {
        XeColumn a = set[i];
        if (type.GetFieldIndex(a.Name) >= 0)
        {
            return a.Name + " (action)";
        }

        for (int j = 0; j < set.Count; j++)
        {
            if (j != i && string.Equals(set[j].Name, a.Name, StringComparison.Ordinal))
            {
                return a.FullName;
            }
        }

        return a.Name;
    }

    /// <summary>What each field of an event type is shown with: its unit (<see cref="DurationUnits"/>; null for a
    /// field that is no duration) and whether its values are wait return codes (<see cref="WaitResults"/>).</summary>
    private sealed record FieldLabels(FieldUnit?[] Units, bool[] WaitResultCodes)
    {
        public static FieldLabels Of(Dictionary<XeEventType, FieldLabels> cache, XeEventType type)
        {
            if (!cache.TryGetValue(type, out FieldLabels? labels))
            {
                labels = new FieldLabels(
                    [.. type.Fields.Select(f => DurationUnits.Of(type.Name, f))],
                    [.. type.Fields.Select(WaitResults.IsCodeField)]
                );
                cache.Add(type, labels);
            }

            return labels;
        }
    }

    private static long WriteText(TextWriter o, IEnumerable<XEvent> events)
    {
        var sb = new StringBuilder();
        var labelCache = new Dictionary<XeEventType, FieldLabels>(ReferenceEqualityComparer.Instance);
        long n = 0;
        foreach (XEvent e in events)
        {
            sb.Clear();
            sb.Append(CellFormatter.IsoUtc(e.Timestamp)).Append(' ').Append(e.FullName);
            (FieldUnit?[] units, bool[] codes) = FieldLabels.Of(labelCache, e.EventType);
            for (int i = 0; i < e.FieldCount; i++)
            {
                string value = e.GetField(i).ToString();
                sb.Append(' ')
                    .Append(e.Fields[i].Name)
                    .Append('=')
                    .Append(Escape(codes[i] ? WaitResults.Label(value) : value));
                if (units[i] is FieldUnit u)
                {
                    // A verified unit follows the number as a symbol; any doubt is said in brackets.
                    sb.Append(
                        u is { Verified: true, Unit: FieldTimeUnit t }
                            ? " " + FieldUnit.Symbol(t)
                            : " (" + u.Label + ")"
                    );
                }
            }

            for (int i = 0; i < e.ActionCount; i++)
            {
                sb.Append(' ')
                    .Append(ActionLabel(e.EventType, e.ActionSet, i))
                    .Append('=')
                    .Append(Escape(e.GetAction(i).ToString()));
            }

            o.WriteLine(sb.ToString());
            n++;
        }

        return n;
    }

    private static string Escape(string s) =>
        s.AsSpan().IndexOfAny('\n', '\r', '\t') < 0
            ? s
            : s.Replace("\r", "\\r", StringComparison.Ordinal)
                .Replace("\n", "\\n", StringComparison.Ordinal)
                .Replace("\t", "\\t", StringComparison.Ordinal);

    private static long WriteCsv(TextWriter o, IEnumerable<XEvent> events, EventListColumns columns)
    {
        int fixedCount = EventListColumns.Fixed.Count;
        var fieldIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < columns.Fields.Count; i++)
        {
            fieldIndex[columns.Fields[i]] = columns.FieldPositions[i];
        }

        var actionIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < columns.Actions.Count; i++)
        {
            actionIndex[columns.Actions[i].Key] = columns.FirstActionPosition + i;
        }

        // A meaning column holds the meaning of the code in the column before it.
        int[] meaningOf = [.. Enumerable.Repeat(-1, columns.Header.Count)];
        foreach ((int code, int meaning) in columns.MeaningPositions)
        {
            meaningOf[meaning] = code;
        }

        // The events table ends its records with CRLF, as RFC 4180 (and CsvHelper by default) writes them.
        using var csv = new CsvTableWriter(o, "\r\n");
        csv.WriteHeader(columns.Header);
        var row = new XeValue?[columns.Header.Count];
        var typeMap = new Dictionary<XeEventType, int[]>(ReferenceEqualityComparer.Instance);
        var setMap = new Dictionary<XeActionSet, int[]>(ReferenceEqualityComparer.Instance);
        long n = 0;
        foreach (XEvent e in events)
        {
            Array.Clear(row);
            if (!typeMap.TryGetValue(e.EventType, out int[]? fmap))
            {
                fmap = [.. e.Fields.Select(f => fieldIndex.GetValueOrDefault(f.Name, -1))];
                typeMap.Add(e.EventType, fmap);
            }

            for (int i = 0; i < fmap.Length; i++)
            {
                if (fmap[i] >= 0)
                {
                    row[fmap[i]] = e.GetField(i);
                }
            }

            if (!setMap.TryGetValue(e.ActionSet, out int[]? amap))
            {
                amap = [.. e.Actions.Select(a => actionIndex.GetValueOrDefault(a.FullName, -1))];
                setMap.Add(e.ActionSet, amap);
            }

            for (int i = 0; i < amap.Length; i++)
            {
                if (amap[i] >= 0)
                {
                    row[amap[i]] = e.GetAction(i);
                }
            }

            csv.Timestamp(e.Timestamp);
            csv.Text(e.FullName);
            csv.Text(e.Source.FilePath);
            if (e.Source.Offset >= 0)
            {
                csv.Integer(e.Source.Offset);
            }
            else
            {
                csv.Empty();
            }

            for (int c = fixedCount; c < row.Length; c++)
            {
                if (meaningOf[c] >= 0)
                {
                    if (row[meaningOf[c]] is XeValue code && WaitResults.Meaning(code.ToString()) is string meaning)
                    {
                        csv.Text(meaning);
                    }
                    else
                    {
                        csv.Empty();
                    }
                }
                else if (row[c] is XeValue v)
                {
                    WriteCsvValue(csv, v);
                }
                else
                {
                    csv.Empty();
                }
            }

            csv.EndRow();
            n++;
        }

        csv.Flush();
        return n;
    }

    /// <summary>A value as the text <see cref="XeValue.ToString"/> gives, typed so that numbers are never taken for
    /// formulas.</summary>
    private static void WriteCsvValue(CsvTableWriter csv, XeValue v)
    {
        switch (v.ToObject())
        {
            case null:
                csv.Empty();
                break;
            case string text:
                csv.Text(text);
                break;
            case sbyte or short or int or long:
                csv.Integer(v.AsInt64());
                break;
            case byte or ushort or uint or ulong:
                csv.Integer(v.AsUInt64());
                break;
            case float f when float.IsFinite(f):
                csv.Number(f);
                break;
            case double d when double.IsFinite(d):
                csv.Number(d);
                break;
            case bool or DateTimeOffset or Guid:
                csv.Value(v.ToObject()!);
                break;
            default:
                csv.Text(v.ToString());
                break;
        }
    }

    private static long WriteJson(TextWriter o, IEnumerable<XEvent> events)
    {
        var labelCache = new Dictionary<XeEventType, FieldLabels>(ReferenceEqualityComparer.Instance);
        var buffer = new ArrayBufferWriter<byte>(4096);
        using var json = new Utf8JsonWriter(buffer, JsonOutput.Options(indented: false));
        o.Write('[');
        bool first = true;
        long n = 0;
        foreach (XEvent e in events)
        {
            json.Reset(buffer);
            json.WriteStartObject();
            json.WriteString("timestamp", CellFormatter.IsoUtc(e.Timestamp));
            json.WriteSafeString("event", e.FullName);
            if (e.Uuid == Guid.Empty)
            {
                json.WriteNull("uuid");
            }
            else
            {
                json.WriteString("uuid", e.Uuid.ToString("D", CultureInfo.InvariantCulture));
            }

            json.WriteSafeString("file", e.Source.FilePath);
            if (e.Source.Offset >= 0)
            {
                json.WriteNumber("offset", e.Source.Offset);
            }
            else
            {
                json.WriteNull("offset");
            }

            json.WriteStartObject("fields");
            for (int i = 0; i < e.FieldCount; i++)
            {
                WriteValue(json, e.Fields[i].Name, e.GetField(i));
            }

            json.WriteEndObject();
            (FieldUnit?[] units, bool[] codes) = FieldLabels.Of(labelCache, e.EventType);
            if (Array.Exists(units, u => u is not null))
            {
                // The unit of each duration-like field: ms, us or unknown; "us (unverified)" where only a
                // third-party reading gives it.
                json.WriteStartObject("units");
                for (int i = 0; i < units.Length; i++)
                {
                    if (units[i] is FieldUnit u)
                    {
                        json.WriteString(
                            TextEscaping.Sanitize(e.Fields[i].Name),
                            u.Verified || u.Unit is null ? u.Code : u.Code + " (unverified)"
                        );
                    }
                }

                json.WriteEndObject();
            }

            if (Array.IndexOf(codes, true) >= 0)
            {
                // Beside the fields, as units are: "fields" keeps every value as the capture has it, a number here.
                json.WriteStartObject("meanings");
                for (int i = 0; i < codes.Length; i++)
                {
                    if (codes[i])
                    {
                        json.WriteSafeString(
                            TextEscaping.Sanitize(e.Fields[i].Name),
                            WaitResults.Meaning(e.GetField(i).ToString())
                        );
                    }
                }

                json.WriteEndObject();
            }

            json.WriteStartObject("actions");
            for (int i = 0; i < e.ActionCount; i++)
            {
                WriteValue(
                    json,
                    e.ActionSet.IndexOf(e.Actions[i].Name) == i ? e.Actions[i].Name : e.Actions[i].FullName,
                    e.GetAction(i)
                );
            }

            json.WriteEndObject();
            json.WriteEndObject();
            json.Flush();
            o.Write(first ? "\n" : ",\n");
            first = false;
            o.Write(Encoding.UTF8.GetString(buffer.WrittenSpan));
            buffer.Clear();
            n++;
        }

        o.WriteLine(first ? "]" : "\n]");
        return n;
    }

    private static void WriteValue(Utf8JsonWriter json, string rawName, XeValue v)
    {
        string name = TextEscaping.Sanitize(rawName);
        switch (v.ToObject())
        {
            case sbyte or short or int or long:
                json.WriteNumber(name, v.AsInt64());
                break;
            case byte or ushort or uint or ulong:
                json.WriteNumber(name, v.AsUInt64());
                break;
            case float or double when double.IsFinite(v.AsDouble()):
                json.WriteNumber(name, v.AsDouble());
                break;
            case bool b:
                json.WriteBoolean(name, b);
                break;
            default:
                json.WriteSafeString(name, v.ToString());
                break;
        }
    }
}

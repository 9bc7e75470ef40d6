using System.Buffers;
using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;
using CsvHelper;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze events &lt;capture...&gt; [--event NAME] [--format text|csv|json] [--limit N]</c>: flattened events.
/// Columns: timestamp, event, file, offset, then fields, then actions (an action whose short name clashes with a field or
/// another action is named <c>name (action)</c>, or by its full name).
/// </summary>
internal static class EventsCommand
{
    public static Command Create()
    {
        Argument<string[]> captures = CaptureCommandSupport.CapturesArgument();
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var eventNames = new Option<string[]>("--event") { Description = "Only these events (package.event or event); repeatable.", AllowMultipleArgumentsPerToken = true };
        var format = new Option<string>("--format") { Description = "Output format: text, csv or json.", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "csv", "json");
        var limit = new Option<long?>("--limit") { Description = "Stop after this many events." };
        var command = new Command("events", "List events with their fields and actions (text, CSV or JSON).");
        command.Arguments.Add(captures);
        command.Options.Add(eventNames);
        command.Options.Add(format);
        command.Options.Add(limit);
        command.Options.Add(skip);
        command.SetAction(parse => CaptureCommandSupport.Run(parse, (output, error) =>
        {
            long max = parse.GetValue(limit) ?? long.MaxValue;
            if (max < 0)
            {
                throw new UsageException("--limit: expected a non-negative number");
            }

            string[] names = parse.GetValue(eventNames) ?? [];
            IReadOnlyList<CaptureSet> sets = CaptureSet.Expand(parse.GetValue(captures)!);
            var diag = new XelDiagnostics();
            XelReadOptions options = CaptureCommandSupport.ReadOptions(parse.GetValue(skip), diag, names.Length > 0 ? names : null);
            IEnumerable<XEvent> events = sets.SelectMany(s => XelReader.ReadEvents(s, options)).Take(max > int.MaxValue ? int.MaxValue : (int)max);
            if (max > int.MaxValue)
            {
                events = sets.SelectMany(s => XelReader.ReadEvents(s, options));
            }

            switch (parse.GetValue(format))
            {
                case "csv":
                    WriteCsv(output, sets, names, options, events);
                    break;
                case "json":
                    WriteJson(output, events);
                    break;
                default:
                    WriteText(output, events);
                    break;
            }

            output.Flush();
            return CaptureCommandSupport.Finish(diag, error);
        }));
        return command;
    }

    private static readonly string[] FixedColumns = ["timestamp", "event", "file", "offset"];

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

    private static void WriteText(TextWriter o, IEnumerable<XEvent> events)
    {
        var sb = new StringBuilder();
        foreach (XEvent e in events)
        {
            sb.Clear();
            sb.Append(CaptureCommandSupport.IsoUtc(e.Timestamp)).Append(' ').Append(e.FullName);
            for (int i = 0; i < e.FieldCount; i++)
            {
                sb.Append(' ').Append(e.Fields[i].Name).Append('=').Append(Escape(e.GetField(i).ToString()));
            }

            for (int i = 0; i < e.ActionCount; i++)
            {
                sb.Append(' ').Append(ActionLabel(e.EventType, e.ActionSet, i)).Append('=').Append(Escape(e.GetAction(i).ToString()));
            }

            o.WriteLine(sb.ToString());
        }
    }

    private static string Escape(string s) => s.AsSpan().IndexOfAny('\n', '\r', '\t') < 0 ? s : s.Replace("\r", "\\r", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal).Replace("\t", "\\t", StringComparison.Ordinal);

    private static void WriteCsv(TextWriter o, IReadOnlyList<CaptureSet> sets, string[] names, XelReadOptions options, IEnumerable<XEvent> events)
    {
        // Columns come from the files' metadata, so the header is known before the first event (deterministic order:
        // fields in event-type order, then actions in metadata order).
        var fieldCols = new List<string>();
        var actionCols = new List<(string Key, string Label)>();
        foreach (string file in sets.SelectMany(s => s.Files))
        {
            XeSchema schema = XelReader.ReadSchema(file, new XelReadOptions { Integrity = options.Integrity, Limits = options.Limits });
            foreach (XeEventType t in schema.EventTypes)
            {
                if (names.Length > 0 && !names.Any(t.Matches))
                {
                    continue;
                }

                foreach (XeColumn f in t.Fields)
                {
                    if (!fieldCols.Contains(f.Name))
                    {
                        fieldCols.Add(f.Name);
                    }
                }
            }

            foreach (XeColumn a in schema.Actions)
            {
                if (!actionCols.Exists(x => x.Key == a.FullName))
                {
                    actionCols.Add((a.FullName, a.Name));
                }
            }
        }

        for (int i = 0; i < actionCols.Count; i++)
        {
            (string key, string label) = actionCols[i];
            bool clash = fieldCols.Contains(label) || actionCols.Exists(x => x.Key != key && x.Label == label);
            actionCols[i] = (key, clash ? (actionCols.Count(x => x.Label == label) > 1 ? key : label + " (action)") : label);
        }

        const int Fixed = 4;
        var fieldIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < fieldCols.Count; i++)
        {
            fieldIndex[fieldCols[i]] = Fixed + i;
        }

        var actionIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < actionCols.Count; i++)
        {
            actionIndex[actionCols[i].Key] = Fixed + fieldCols.Count + i;
        }

        using CsvWriter csv = CsvWriter.Create(o, new CsvWriterOptions { FormatProvider = CultureInfo.InvariantCulture }, leaveOpen: true);
        csv.WriteHeader([.. FixedColumns, .. fieldCols, .. actionCols.Select(a => a.Label)]);
        string[] row = new string[Fixed + fieldCols.Count + actionCols.Count];
        var typeMap = new Dictionary<XeEventType, int[]>(ReferenceEqualityComparer.Instance);
        var setMap = new Dictionary<XeActionSet, int[]>(ReferenceEqualityComparer.Instance);
        foreach (XEvent e in events)
        {
            Array.Fill(row, string.Empty);
            row[0] = CaptureCommandSupport.IsoUtc(e.Timestamp);
            row[1] = e.FullName;
            row[2] = e.Source.FilePath ?? string.Empty;
            row[3] = e.Source.Offset.ToString(CultureInfo.InvariantCulture);
            if (!typeMap.TryGetValue(e.EventType, out int[]? fmap))
            {
                fmap = [.. e.Fields.Select(f => fieldIndex.GetValueOrDefault(f.Name, -1))];
                typeMap.Add(e.EventType, fmap);
            }

            for (int i = 0; i < fmap.Length; i++)
            {
                if (fmap[i] >= 0)
                {
                    row[fmap[i]] = e.GetField(i).ToString();
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
                    row[amap[i]] = e.GetAction(i).ToString();
                }
            }

            csv.WriteRecord(row);
        }

        csv.Flush();
    }

    private static void WriteJson(TextWriter o, IEnumerable<XEvent> events)
    {
        var buffer = new ArrayBufferWriter<byte>(4096);
        using var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = false, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
        o.Write('[');
        bool first = true;
        foreach (XEvent e in events)
        {
            json.Reset(buffer);
            json.WriteStartObject();
            json.WriteString("timestamp", CaptureCommandSupport.IsoUtc(e.Timestamp));
            json.WriteString("event", e.FullName);
            json.WriteString("uuid", e.Uuid.ToString("D", CultureInfo.InvariantCulture));
            json.WriteString("file", e.Source.FilePath);
            json.WriteNumber("offset", e.Source.Offset);
            json.WriteStartObject("fields");
            for (int i = 0; i < e.FieldCount; i++)
            {
                WriteValue(json, e.Fields[i].Name, e.GetField(i));
            }

            json.WriteEndObject();
            json.WriteStartObject("actions");
            for (int i = 0; i < e.ActionCount; i++)
            {
                WriteValue(json, e.ActionSet.IndexOf(e.Actions[i].Name) == i ? e.Actions[i].Name : e.Actions[i].FullName, e.GetAction(i));
            }

            json.WriteEndObject();
            json.WriteEndObject();
            json.Flush();
            o.Write(first ? "\n" : ",\n");
            first = false;
            o.Write(Encoding.UTF8.GetString(buffer.WrittenSpan));
            buffer.Clear();
        }

        o.WriteLine(first ? "]" : "\n]");
    }

    private static void WriteValue(Utf8JsonWriter json, string name, XeValue v)
    {
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
                json.WriteString(name, v.ToString());
                break;
        }
    }
}

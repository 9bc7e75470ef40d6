using System.Globalization;
using System.Text.Json;
using XeAnalyzer.Events;
using XeAnalyzer.Export;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// Compares an exported table, as DuckDB reads it, with what <see cref="XelReader"/> reads from the captures: row
/// count, and every column of every row (common columns, each field and action by its documented column name, nulls for
/// values an event does not carry).
/// </summary>
internal static class ExportOracle
{
    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;

    public static readonly string[] CommonColumns =
    [
        "timestamp_utc",
        "event_sequence",
        "capture_file",
        "file_offset",
        "event_name",
        "package",
    ];

    /// <summary>The events of <paramref name="files"/> per <c>package.event</c>, read by our reader.</summary>
    public static Dictionary<string, List<XEvent>> ReadEvents(IEnumerable<string> files)
    {
        var byName = new Dictionary<string, List<XEvent>>(StringComparer.Ordinal);
        foreach (string f in files)
        {
            foreach (XEvent e in XelReader.ReadEvents(f))
            {
                if (!byName.TryGetValue(e.FullName, out List<XEvent>? list))
                {
                    byName[e.FullName] = list = [];
                }

                list.Add(e);
            }
        }

        return byName;
    }

    /// <summary>Values the reader gives for one event, keyed by the column names the layout documents.</summary>
    public static Dictionary<string, Expected> ExpectedRow(XEvent e)
    {
        var row = new Dictionary<string, Expected>(StringComparer.Ordinal)
        {
            ["timestamp_utc"] = Expected.Text(Micros(e.Timestamp)),
            ["event_sequence"] = Expected.Text(e.EventSequence?.ToString(Ic)),
            ["capture_file"] = Expected.Text(e.Source.FilePath),
            ["file_offset"] = Expected.Text(e.Source.Offset >= 0 ? e.Source.Offset.ToString(Ic) : null),
            ["event_name"] = Expected.Text(e.Name),
            ["package"] = Expected.Text(e.PackageName),
        };
        var fieldNames = new HashSet<string>(StringComparer.Ordinal);
        for (int i = 0; i < e.FieldCount; i++)
        {
            XeColumn f = e.Fields[i];
            string name = CommonColumns.Contains(f.Name) ? "field_" + f.Name : f.Name;
            fieldNames.Add(name);
            Add(row, name, f, e.GetField(i));
        }

        for (int i = 0; i < e.ActionCount; i++)
        {
            XeColumn a = e.Actions[i];
            if (a.FullName == "package0.event_sequence")
            {
                continue;
            }

            string name = fieldNames.Contains(a.Name) || CommonColumns.Contains(a.Name) ? "action_" + a.Name : a.Name;
            Add(row, name, a, e.GetAction(i));
        }

        return row;
    }

    /// <summary>Asserts that the Parquet file holds exactly <paramref name="events"/> (in capture_file, file_offset
    /// order), value by value.</summary>
    public static void AssertTableMatches(string parquetPath, IReadOnlyList<XEvent> events)
    {
        QueryResult schema = DuckDbOracle.Single(parquetPath, "SELECT column_name, column_type FROM (DESCRIBE t)");
        string[] names = [.. schema.Rows.Select(r => r[0].GetString()!)];
        string[] types = [.. schema.Rows.Select(r => r[1].GetString()!)];
        Assert.That(names.Take(6), Is.EqualTo(CommonColumns), parquetPath);
        string select = string.Join(
            ", ",
            names.Select((n, i) => Expression(Quote(n), types[i]) + " AS c" + i.ToString(Ic))
        );
        // Target-data XML events have no file offset: their rows are told apart by time and event_sequence.
        QueryResult q = DuckDbOracle.Single(
            parquetPath,
            "SELECT " + select + " FROM t ORDER BY capture_file, file_offset, timestamp_utc, event_sequence"
        );
        XEvent[] ordered =
        [
            .. events
                .OrderBy(e => e.Source.FilePath, StringComparer.Ordinal)
                .ThenBy(e => e.Source.Offset)
                .ThenBy(e => e.Timestamp)
                .ThenBy(e => e.EventSequence),
        ];
        Assert.That(q.Rows, Has.Length.EqualTo(ordered.Length), "row count of " + parquetPath);
        for (int r = 0; r < ordered.Length; r++)
        {
            Dictionary<string, Expected> expected = ExpectedRow(ordered[r]);
            foreach (string key in expected.Keys)
            {
                Assert.That(names, Does.Contain(key), "a column for " + key + " in " + parquetPath);
            }

            for (int c = 0; c < names.Length; c++)
            {
                JsonElement actual = q.Rows[r][c];
                string where =
                    parquetPath + " row " + r.ToString(Ic) + " (" + ordered[r].Source + ") column " + names[c];
                if (!expected.TryGetValue(names[c], out Expected? exp) || (exp.Value is null && exp.Number is null))
                {
                    Assert.That(
                        actual.ValueKind,
                        Is.EqualTo(JsonValueKind.Null),
                        where + ": the event has no such value, so null"
                    );
                    continue;
                }

                if (exp.Number is double d)
                {
                    Assert.That(actual.GetDouble(), Is.EqualTo(d), where);
                }
                else
                {
                    Assert.That(AsText(actual), Is.EqualTo(exp.Value), where);
                }
            }
        }
    }

    public static string Micros(DateTime utc)
    {
        long ticks = utc.Ticks - DateTime.UnixEpoch.Ticks;
        long us = ticks / 10;
        if (ticks % 10 < 0)
        {
            us--;
        }

        return us.ToString(Ic);
    }

    private static string Quote(string name) => "\"" + name.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";

    private static string Expression(string col, string duckType) =>
        duckType switch
        {
            "FLOAT" or "DOUBLE" => "CAST(" + col + " AS DOUBLE)",
            "TIMESTAMP WITH TIME ZONE" => "CAST(epoch_us(" + col + ") AS VARCHAR)",
            "BLOB" => "hex(" + col + ")",
            "BIGINT[]" => "CASE WHEN "
                + col
                + " IS NULL THEN NULL ELSE array_to_string(list_transform("
                + col
                + ", x -> CAST(x AS VARCHAR)), ',') END",
            _ => "CAST(" + col + " AS VARCHAR)",
        };

    private static string? AsText(JsonElement v) =>
        v.ValueKind switch
        {
            JsonValueKind.Null => null,
            JsonValueKind.String => v.GetString(),
            _ => v.GetRawText(),
        };

    private static void Add(Dictionary<string, Expected> row, string name, XeColumn c, XeValue v)
    {
        if (c.Map is not null)
        {
            row[name] = Expected.Text(v.MapText);
            row[name + "_key"] = Expected.Text(v.MapKey.ToString(Ic));
            return;
        }

        row[name] = c.BaseType switch
        {
            XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64 => Expected.Text(
                v.AsInt64().ToString(Ic)
            ),
            XeBaseType.UInt8
            or XeBaseType.UInt16
            or XeBaseType.UInt32
            or XeBaseType.UInt64
            or XeBaseType.CpuCycle
            or XeBaseType.Pointer
            or XeBaseType.GuidPointer => Expected.Text(v.AsUInt64().ToString(Ic)),
            XeBaseType.Float32 or XeBaseType.Float64 => new Expected(null, v.AsDouble()),
            XeBaseType.Boolean => Expected.Text(v.AsBoolean() ? "true" : "false"),
            XeBaseType.FileTime => Expected.Text(Micros(v.AsDateTime())),
            XeBaseType.AnsiString or XeBaseType.UnicodeString or XeBaseType.Xml => Expected.Text(v.AsString()),
            XeBaseType.Guid => Expected.Text(v.AsGuid().ToString("D", Ic)),
            XeBaseType.ActivityId or XeBaseType.ActivityIdTransfer => Expected.Text(
                v.AsGuid().ToString("D", Ic) + ":" + v.ActivitySequence().ToString(Ic)
            ),
            XeBaseType.BinaryData => Expected.Text(Convert.ToHexString(v.AsSpan())),
            XeBaseType.Callstack => Expected.Text(
                string.Join(",", v.AsCallstack().Select(a => unchecked((long)a).ToString(Ic)))
            ),
            _ => throw new AssertionException("the fixtures use only standard base types, found " + c.BaseType),
        };
    }
}

/// <summary>An expected value: text (null for SQL NULL) or a floating-point number.</summary>
internal sealed record Expected(string? Value, double? Number)
{
    public static Expected Text(string? value) => new(value, null);
}

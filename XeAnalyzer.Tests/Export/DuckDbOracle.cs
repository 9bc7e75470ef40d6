using System.Collections;
using System.Globalization;
using System.Numerics;
using System.Text.Json;
using DuckDB.NET.Data;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The independent Parquet reader and SQL engine of the tests: DuckDB, in-process through <c>DuckDB.NET.Data.Full</c>
/// (a test dependency only; it carries DuckDB's native library for Linux, macOS and Windows). Each call opens a fresh
/// in-memory database, single-threaded, with the UTC time zone; a file given is the view <c>t</c>.
/// </summary>
/// <remarks>
/// Results are returned as JSON values in the forms DuckDB's own JSON export uses, so a value's kind says what DuckDB
/// returned: 64-bit and wider integers, decimals and times as strings; narrower integers, floating-point numbers and
/// booleans as JSON numbers and booleans; lists as arrays; BLOBs as lowercase hex; NULL as null.
/// </remarks>
internal static class DuckDbOracle
{
    /// <summary>Runs the statements against <paramref name="file"/> (the view <c>t</c>; <see langword="null"/> for
    /// none) and returns one result each.</summary>
    public static IReadOnlyList<QueryResult> Query(string? file, params string[] statements)
    {
        using var connection = new DuckDBConnection("Data Source=:memory:");
        connection.Open();
        Execute(connection, "SET threads = 1");
        Execute(connection, "SET TimeZone = 'UTC'");
        if (file is not null)
        {
            Execute(connection, "CREATE VIEW t AS SELECT * FROM read_parquet(" + Literal(file) + ")");
        }

        var results = new List<QueryResult>();
        foreach (string sql in statements)
        {
            results.Add(Read(connection, sql));
        }

        return results;
    }

    /// <summary>Runs one statement and returns its result.</summary>
    public static QueryResult Single(string? file, string statement) => Query(file, statement)[0];

    /// <summary>Runs a statement on an open connection and returns its result.</summary>
    public static QueryResult Read(DuckDBConnection connection, string sql)
    {
        using DuckDBCommand command = connection.CreateCommand();
        command.CommandText = sql;
        using var reader = command.ExecuteReader();
        string[] columns = [.. Enumerable.Range(0, reader.FieldCount).Select(reader.GetName)];
        string[] types = [.. Enumerable.Range(0, reader.FieldCount).Select(reader.GetDataTypeName)];
        var rows = new List<JsonElement[]>();
        while (reader.Read())
        {
            var row = new JsonElement[reader.FieldCount];
            for (int i = 0; i < row.Length; i++)
            {
                row[i] = ToJson(reader.IsDBNull(i) ? null : reader.GetValue(i));
            }

            rows.Add(row);
        }

        return new QueryResult(columns, types, [.. rows]);
    }

    /// <summary>Runs a statement that returns no rows.</summary>
    public static void Execute(DuckDBConnection connection, string sql)
    {
        using DuckDBCommand command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    /// <summary>SQL string literal.</summary>
    public static string Literal(string s) => "'" + s.Replace("'", "''", StringComparison.Ordinal) + "'";

    private static JsonElement ToJson(object? value)
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer))
        {
            Write(w, value);
        }

        return JsonDocument.Parse(buffer.ToArray()).RootElement.Clone();
    }

    private static void Write(Utf8JsonWriter w, object? value)
    {
        switch (value)
        {
            case null or DBNull:
                w.WriteNullValue();
                break;
            case string s:
                w.WriteStringValue(s);
                break;
            case bool b:
                w.WriteBooleanValue(b);
                break;
            case sbyte or byte or short or ushort or int or uint:
                w.WriteNumberValue(Convert.ToInt64(value, CultureInfo.InvariantCulture));
                break;
            case long or ulong or BigInteger or decimal:
                w.WriteStringValue(Convert.ToString(value, CultureInfo.InvariantCulture));
                break;
            case float f when float.IsFinite(f):
                w.WriteNumberValue(f);
                break;
            case double d when double.IsFinite(d):
                w.WriteNumberValue(d);
                break;
            case float or double:
                w.WriteStringValue(Convert.ToString(value, CultureInfo.InvariantCulture));
                break;
            case DateTime t:
                w.WriteStringValue(t.ToString("yyyy-MM-dd HH:mm:ss.ffffff", CultureInfo.InvariantCulture));
                break;
            case DateTimeOffset t:
                w.WriteStringValue(
                    t.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss.ffffff", CultureInfo.InvariantCulture) + "+00"
                );
                break;
            case Stream s:
                using (var ms = new MemoryStream())
                {
                    s.CopyTo(ms);
                    w.WriteStringValue(Convert.ToHexStringLower(ms.ToArray()));
                }

                break;
            case byte[] bytes:
                w.WriteStringValue(Convert.ToHexStringLower(bytes));
                break;
            case IEnumerable list:
                w.WriteStartArray();
                foreach (object? item in list)
                {
                    Write(w, item);
                }

                w.WriteEndArray();
                break;
            default:
                w.WriteStringValue(Convert.ToString(value, CultureInfo.InvariantCulture));
                break;
        }
    }
}

/// <summary>One statement's result: column names, DuckDB type names, rows of JSON values (see
/// <see cref="DuckDbOracle"/>).</summary>
internal sealed record QueryResult(string[] Columns, string[] Types, JsonElement[][] Rows)
{
    public int Index(string column)
    {
        int i = Array.IndexOf(Columns, column);
        Assert.That(i, Is.GreaterThanOrEqualTo(0), "column " + column + " in " + string.Join(",", Columns));
        return i;
    }

    /// <summary>The value as text: strings as is, numbers and booleans in their JSON text, null as null.</summary>
    public string? Text(int row, string column)
    {
        JsonElement v = Rows[row][Index(column)];
        return v.ValueKind switch
        {
            JsonValueKind.Null => null,
            JsonValueKind.String => v.GetString(),
            _ => v.GetRawText(),
        };
    }

    public long Long(int row, int column) =>
        Rows[row][column].ValueKind == JsonValueKind.String
            ? long.Parse(Rows[row][column].GetString()!, CultureInfo.InvariantCulture)
            : Rows[row][column].GetInt64();
}

using System.Text.RegularExpressions;
using XeAnalyzer.Sql;

namespace XeAnalyzer.Tests.Sql;

/// <summary>
/// The DuckDB view definitions the shipped queries document in their header (the <c>-- views</c> block: the statements
/// on the comment lines indented by three spaces), as the tests run them and as the README and
/// <c>docs/export-and-sql.md</c> must show them.
/// </summary>
internal static partial class QueryViews
{
    /// <summary>The <c>CREATE VIEW</c> statements of a query's header, without comment marks or semicolons.</summary>
    public static IReadOnlyList<string> Of(AnalysisQuery query)
    {
        string[] lines = query.Text.Split('\n');
        int start = Array.FindIndex(lines, l => l.StartsWith("-- views", StringComparison.Ordinal));
        Assert.That(start, Is.GreaterThanOrEqualTo(0), query.Name + ": a '-- views' block in the header");
        var sql = new List<string>();
        for (int i = start + 1; i < lines.Length; i++)
        {
            if (lines[i].StartsWith("--   ", StringComparison.Ordinal))
            {
                sql.Add(lines[i]["--   ".Length..]);
            }
            else if (sql.Count > 0 || !lines[i].StartsWith("-- ", StringComparison.Ordinal))
            {
                break; // the block ends; lines before its first statement continue the block's introduction
            }
        }

        return Statements(string.Join("\n", sql));
    }

    /// <summary>The distinct views of every shipped query, in query order.</summary>
    public static IReadOnlyList<string> All => [.. AnalysisQueries.All.SelectMany(Of).Distinct(StringComparer.Ordinal)];

    /// <summary>The statements of a SQL text separated by semicolons, trimmed, whitespace runs as one space.</summary>
    public static IReadOnlyList<string> Statements(string sql) =>
        [.. sql.Split(';').Select(s => Whitespace().Replace(s, " ").Trim()).Where(s => s.Length > 0)];

    /// <summary>
    /// The view without the exported tables: only its empty <c>SELECT</c> of the columns the query reads. A query runs
    /// on it (with no row) exactly when it reads no column the view does not name.
    /// </summary>
    public static string WithoutTables(string view)
    {
        Match m = ReadParquetUnion().Match(view);
        Assert.That(m.Success, Is.True, "CREATE VIEW v AS SELECT * FROM read_parquet(…) UNION ALL BY NAME: " + view);
        return view.Remove(m.Index, m.Length).Insert(m.Index, " AS ");
    }

    [GeneratedRegex(@"\s+")]
    private static partial Regex Whitespace();

    [GeneratedRegex(@" AS SELECT \* FROM read_parquet\([^)]*\) UNION ALL BY NAME ")]
    private static partial Regex ReadParquetUnion();
}

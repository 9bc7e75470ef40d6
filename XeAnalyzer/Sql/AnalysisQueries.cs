using System.Diagnostics.CodeAnalysis;
using System.Reflection;

namespace XeAnalyzer.Sql;

/// <summary>
/// One of the analyses as SQL over the tables of <c>xeanalyze export --format parquet</c>, in the dialect DuckDB and
/// Spark SQL share (window functions, CTEs, <c>regexp_extract</c>; no engine-specific extension). A query reads views
/// with fixed names (<see cref="Inputs"/>) that the caller defines over the exported files, for example in DuckDB
/// <c>CREATE VIEW latch_acquired AS SELECT * FROM read_parquet('out/*/sqlserver.latch_acquired.parquet', union_by_name
/// = true)</c>.
/// </summary>
/// <remarks>Immutable.</remarks>
public sealed class AnalysisQuery
{
    internal AnalysisQuery(string name, string text)
    {
        Name = name;
        Text = text;
        Summary = Header(text, "summary");
        Inputs = Header(text, "inputs");
        SameFiguresAs = Header(text, "same figures as");
    }

    /// <summary>The query's name (<c>latches_per_scheduler</c>), as <c>xeanalyze sql show NAME</c> takes it.</summary>
    public string Name { get; }

    /// <summary>What the query computes, in one sentence.</summary>
    public string Summary { get; }

    /// <summary>The views the query reads and the exported tables and columns they stand for.</summary>
    public string Inputs { get; }

    /// <summary>The <c>xeanalyze</c> command whose figures the query reproduces.</summary>
    public string SameFiguresAs { get; }

    /// <summary>The SQL text: header comments, then one <c>WITH … SELECT</c> statement without a trailing semicolon; LF
    /// line ends.</summary>
    public string Text { get; }

    /// <inheritdoc/>
    public override string ToString() => Name;

    private static string Header(string text, string key)
    {
        string prefix = "-- " + key + ":";
        foreach (string line in text.Split('\n'))
        {
            if (line.StartsWith(prefix, StringComparison.Ordinal))
            {
                return line[prefix.Length..].Trim();
            }
        }

        throw new InvalidOperationException("The query text has no '" + prefix + "' line.");
    }
}

/// <summary>The analyses shipped as SQL (embedded in this library; <c>xeanalyze sql list</c> and <c>xeanalyze sql show
/// NAME</c> print them).</summary>
public static class AnalysisQueries
{
    private const string ResourcePrefix = "XeAnalyzer.Sql.Queries.";
    private static readonly Lazy<IReadOnlyList<AnalysisQuery>> s_all = new(Load);

    /// <summary>Every query, ordered by name.</summary>
    public static IReadOnlyList<AnalysisQuery> All => s_all.Value;

    /// <summary>The query named <paramref name="name"/> (ordinal, ignoring case), or <see langword="null"/>.</summary>
    /// <param name="name">A query name, for example <c>wait_summary</c>.</param>
    /// <param name="query">The query when found.</param>
    /// <returns>Whether there is such a query.</returns>
    public static bool TryGet(string name, [NotNullWhen(true)] out AnalysisQuery? query)
    {
        ArgumentNullException.ThrowIfNull(name);
        query = All.FirstOrDefault(q => string.Equals(q.Name, name.Trim(), StringComparison.OrdinalIgnoreCase));
        return query is not null;
    }

    /// <summary>The query named <paramref name="name"/>.</summary>
    /// <param name="name">A query name, for example <c>wait_summary</c>.</param>
    /// <returns>The query.</returns>
    /// <exception cref="KeyNotFoundException">No query has that name (the message lists the names).</exception>
    public static AnalysisQuery Get(string name) =>
        TryGet(name, out AnalysisQuery? q)
            ? q
            : throw new KeyNotFoundException(
                "No analysis query is named '"
                    + name
                    + "'; the queries are: "
                    + string.Join(", ", All.Select(x => x.Name))
                    + "."
            );

    private static System.Collections.ObjectModel.ReadOnlyCollection<AnalysisQuery> Load()
    {
        Assembly assembly = typeof(AnalysisQueries).Assembly;
        var queries = new List<AnalysisQuery>();
        foreach (
            string resource in assembly
                .GetManifestResourceNames()
                .Where(r =>
                    r.StartsWith(ResourcePrefix, StringComparison.Ordinal)
                    && r.EndsWith(".sql", StringComparison.Ordinal)
                )
                .Order(StringComparer.Ordinal)
        )
        {
            using Stream stream = assembly.GetManifestResourceStream(resource)!;
            using var reader = new StreamReader(stream, System.Text.Encoding.UTF8);
            string text = reader.ReadToEnd().Replace("\r\n", "\n", StringComparison.Ordinal).TrimEnd('\n') + "\n";
            queries.Add(new AnalysisQuery(resource[ResourcePrefix.Length..^".sql".Length], text));
        }

        return queries.AsReadOnly();
    }
}

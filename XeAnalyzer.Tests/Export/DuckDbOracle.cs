using System.Diagnostics;
using System.Text.Json;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The independent Parquet oracle: DuckDB (the <c>@duckdb/node-api</c> package pinned in tools/oracles, installed by
/// <c>npm ci --prefix tools/oracles</c>) run through <c>tools/oracles/parquet-query.mjs</c>. When node or the package is
/// missing, tests fail on CI (<c>CI=true</c>) and are ignored with the reason elsewhere.
/// </summary>
internal static class DuckDbOracle
{
    private static readonly Lazy<string?> s_missing = new(FindMissing);

    public static string Script => Path.Combine(TestPaths.RepoRoot, "tools", "oracles", "parquet-query.mjs");

    /// <summary>Why the oracle cannot run, or <see langword="null"/> when it can.</summary>
    public static string? Missing => s_missing.Value;

    /// <summary>Fails (CI=true) or ignores the test when the oracle is unavailable.</summary>
    public static void Require()
    {
        string? missing = Missing;
        if (missing is null)
        {
            return;
        }

        ToolRequirement.Require(false, missing);
    }

    /// <summary>Runs the statements against <paramref name="file"/> (the view <c>t</c>; <see langword="null"/> for none) and returns one result each.</summary>
    public static IReadOnlyList<QueryResult> Query(string? file, params string[] statements)
    {
        Require();
        var psi = new ProcessStartInfo("node")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            StandardOutputEncoding = System.Text.Encoding.UTF8,
        };
        psi.ArgumentList.Add(Script);
        psi.ArgumentList.Add(file ?? "-");
        foreach (string s in statements)
        {
            psi.ArgumentList.Add(s);
        }

        using Process p = Process.Start(psi)!;
        Task<string> stdout = p.StandardOutput.ReadToEndAsync();
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(TimeSpan.FromMinutes(3)))
        {
            p.Kill(entireProcessTree: true);
            Assert.Fail("DuckDB oracle timed out");
        }

        Assert.That(p.ExitCode, Is.EqualTo(0), "DuckDB oracle failed: " + stderr.Result);
        var results = new List<QueryResult>();
        foreach (string line in stdout.Result.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            using JsonDocument doc = JsonDocument.Parse(line);
            JsonElement root = doc.RootElement;
            string[] columns = [.. root.GetProperty("columns").EnumerateArray().Select(c => c.GetString()!)];
            string[] types = [.. root.GetProperty("types").EnumerateArray().Select(c => c.GetString()!)];
            JsonElement[][] rows = [.. root.GetProperty("rows").EnumerateArray().Select(r => r.EnumerateArray().Select(v => v.Clone()).ToArray())];
            results.Add(new QueryResult(columns, types, rows));
        }

        Assert.That(results, Has.Count.EqualTo(statements.Length), "one JSON line per statement");
        return results;
    }

    /// <summary>Runs one statement and returns its result.</summary>
    public static QueryResult Single(string? file, string statement) => Query(file, statement)[0];

    /// <summary>SQL string literal.</summary>
    public static string Literal(string s) => "'" + s.Replace("'", "''", StringComparison.Ordinal) + "'";

    private static string? FindMissing()
    {
        string package = Path.Combine(TestPaths.RepoRoot, "tools", "oracles", "node_modules", "@duckdb", "node-api", "package.json");
        try
        {
            var psi = new ProcessStartInfo("node", "--version") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            using Process p = Process.Start(psi)!;
            p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            if (p.ExitCode != 0)
            {
                return "node --version failed; install Node.js 20 to run the Parquet (DuckDB) oracle tests.";
            }
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "node was not found on PATH; install Node.js 20 and run 'npm ci --prefix tools/oracles' to run the Parquet (DuckDB) oracle tests.";
        }

        return File.Exists(package)
            ? null
            : "tools/oracles/node_modules is missing; run 'npm ci --prefix tools/oracles' to install the pinned DuckDB for the Parquet oracle tests.";
    }
}

/// <summary>One statement's result: column names, DuckDB type names, rows of JSON values (DuckDB's JSON forms).</summary>
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

    public long Long(int row, int column) => Rows[row][column].ValueKind == JsonValueKind.String
        ? long.Parse(Rows[row][column].GetString()!, System.Globalization.CultureInfo.InvariantCulture)
        : Rows[row][column].GetInt64();
}

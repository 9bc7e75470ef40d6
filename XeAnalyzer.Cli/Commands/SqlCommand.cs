using System.CommandLine;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Sql;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze sql list</c> and <c>xeanalyze sql show NAME</c>: the analyses as SQL over the tables of <c>export
/// --format parquet</c>, in the dialect DuckDB and Spark SQL share. <c>list</c> prints each query's name, summary and
/// the views it reads;
/// <c>show</c> prints one query's text exactly (pipe it to <c>duckdb</c> or paste it into <c>spark.sql</c>).
/// Exit codes: 0; 2 unknown query name.
/// </summary>
internal static class SqlCommand
{
    public static Command Create()
    {
        var command = new Command(
            "sql",
            "The analyses as SQL for DuckDB or Spark over exported Parquet files: list them, show one."
        );
        var list = new Command("list", "List the queries: name, what it computes, the views it reads.");
        list.SetAction(parse =>
            CaptureCommandSupport.Run(
                parse,
                (output, _) =>
                {
                    foreach (AnalysisQuery q in AnalysisQueries.All)
                    {
                        output.WriteLine(q.Name);
                        output.WriteLine("  " + q.Summary);
                        output.WriteLine("  reads: " + q.Inputs);
                        output.WriteLine("  same figures as: " + q.SameFiguresAs);
                    }

                    return ExitCodes.Ok;
                }
            )
        );
        var name = new Argument<string>("NAME") { Description = "The query (see sql list)." };
        var show = new Command("show", "Print a query's SQL text.");
        show.Arguments.Add(name);
        show.SetAction(parse =>
            CaptureCommandSupport.Run(
                parse,
                (output, _) =>
                {
                    string wanted = parse.GetValue(name)!;
                    if (!AnalysisQueries.TryGet(wanted, out AnalysisQuery? q))
                    {
                        throw new UsageException(
                            "sql show: no query is named '"
                                + wanted
                                + "'; the queries are: "
                                + string.Join(", ", AnalysisQueries.All.Select(x => x.Name))
                        );
                    }

                    output.Write(q.Text);
                    return ExitCodes.Ok;
                }
            )
        );
        list.WithExamples("xeanalyze sql list");
        show.WithExamples("xeanalyze sql show wait_summary", "xeanalyze sql show latches_per_scheduler");
        command.Subcommands.Add(list);
        command.Subcommands.Add(show);
        command.WithExamples("xeanalyze sql list", "xeanalyze sql show wait_summary");
        return command;
    }
}

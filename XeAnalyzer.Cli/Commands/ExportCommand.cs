using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Export;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze export &lt;input...&gt; --format parquet -o DIR [--event NAME] [--where …] [--from T] [--to T]
/// [--row-group-size N] [--compression zstd|snappy|gzip|none] [--skip-corrupt] [--resolve [symbol options]]</c>: one
/// Parquet file per event (<c>package.event.parquet</c>) of <c>.xel</c> captures or target-data XML, for Spark, DuckDB
/// or Databricks (<see cref="XelParquetExporter"/>). Prints one line per file written and a total.
/// </summary>
internal static class ExportCommand
{
    public static Command Create()
    {
        var format = new Option<string>("--format")
        {
            Description = "Output format (parquet is the only one for now).",
            DefaultValueFactory = _ => "parquet",
        };
        format.AcceptOnlyFromAmong("parquet");
        var output = new Option<string>("--output", "-o")
        {
            Description = "The folder to write (created when missing; files of the same name are replaced).",
            Required = true,
        }.AcceptsPaths("a folder");
        var filterOptions = new EventFilterOptions("Default: every event.");
        var rowGroup = new Option<int?>("--row-group-size")
        {
            Description =
                "Rows per Parquet row group (default 131072; a row group also closes at about 32 MiB of buffered "
                + "values).",
        };
        var compression = new Option<string>("--compression")
        {
            Description = "Page compression: zstd (default; smallest files), snappy (fastest), gzip or none.",
            DefaultValueFactory = _ => "zstd",
        };
        compression.AcceptOnlyFromAmong("zstd", "snappy", "gzip", "none");
        var resolve = new Option<bool>("--resolve")
        {
            Description =
                "Add a <name>_frames LIST<STRING> column with resolved frames after each stack column (symbol "
                + "options as for resolve/stacks; raw addresses placed with --modules or each input's sidecar).",
        };
        var symbols = new SymbolCommandOptions();
        var command = new Command(
            "export",
            "Export events of captures or target-data XML to Parquet files, one per event type, for Spark, DuckDB or "
                + "Databricks."
        );
        CaptureInputOptions input = CaptureInputOptions.AddTo(command);
        command.Options.Add(format);
        command.Options.Add(output);
        filterOptions.AddTo(command);
        command.Options.Add(rowGroup);
        command.Options.Add(compression);
        command.Options.Add(resolve);
        symbols.AddPathOptions(command);
        command.Options.Add(symbols.Modules);
        symbols.AddBuildOptions(command);
        command.Options.Add(symbols.Binaries);
        symbols.AddFrameOptions(command);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (stdout, error) =>
                        {
                            int? rows = parse.GetValue(rowGroup);
                            if (rows is <= 0)
                            {
                                throw new UsageException("--row-group-size: expected a positive number of rows");
                            }

                            string dir = parse.GetValue(output)!;
                            if (File.Exists(dir))
                            {
                                throw new UsageException("-o: '" + dir + "' is a file; expected a folder");
                            }

                            EventFilter filter = filterOptions.Filter(parse);
                            CaptureSource source = input.Open(
                                parse,
                                parse.GetValue(symbols.Modules),
                                cancellationToken
                            );
                            var diagnostics = new CaptureDiagnostics();
                            using CallstackResolver? resolver = parse.GetValue(resolve)
                                ? new CallstackResolver(symbols.GetResolverOptions(parse, cancellationToken))
                                : null;
                            var options = new XelExportOptions
                            {
                                Filter = filter,
                                Diagnostics = diagnostics,
                                Resolver = resolver,
                                RowGroupRows = rows ?? XelExportOptions.Default.RowGroupRows,
                                Compression = parse.GetValue(compression) switch
                                {
                                    "none" => ParquetCompression.None,
                                    "snappy" => ParquetCompression.Snappy,
                                    "gzip" => ParquetCompression.Gzip,
                                    _ => ParquetCompression.Zstd,
                                },
                            };

                            XelExportResult result = XelParquetExporter.Export(source, dir, options, cancellationToken);
                            if (result.Read is CaptureSummary read)
                            {
                                CaptureCommandSupport.CheckFilterNames(read);
                            }

                            foreach (string note in result.Notes)
                            {
                                error.WriteLine("xeanalyze: note: " + note);
                            }

                            foreach (XelExportTable t in result.Tables)
                            {
                                stdout.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"{t.Path}: {t.Rows} rows, {t.RowGroups} row group(s), {t.Bytes} bytes"
                                    )
                                );
                            }

                            long bytes = result.Tables.Sum(t => t.Bytes);
                            stdout.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{result.Tables.Count} file(s), {result.Events} events, {bytes} bytes"
                                )
                            );
                            if (result.SkippedEvents > 0 || result.DroppedActionValues > 0)
                            {
                                error.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"xeanalyze: warning: {result.SkippedEvents} event(s) and "
                                            + $"{result.DroppedActionValues} action value(s) were not in the layout "
                                            + $"pass "
                                            + $"(did a capture grow during the export?) and were not written"
                                    )
                                );
                            }

                            if (result.Resolution is ExportResolution r)
                            {
                                error.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"xeanalyze: --resolve: {r.Resolved} distinct frame(s) resolved, "
                                            + $"{r.Unresolved} kept as captured"
                                    )
                                );
                                foreach (KeyValuePair<string, long> kv in r.UnresolvedByReason)
                                {
                                    error.WriteLine(
                                        string.Create(
                                            CultureInfo.InvariantCulture,
                                            $"xeanalyze: unresolved: {kv.Value} frame(s): {kv.Key}"
                                        )
                                    );
                                }
                            }

                            stdout.Flush();
                            int exit = CaptureCommandSupport.Finish(diagnostics, error);
                            if (result.Events == 0 && exit == ExitCodes.Ok)
                            {
                                string? why = result.Read is { } summary
                                    ? MissingDataExplainer.ExplainNoMatch(summary)
                                    : null;
                                CaptureCommandSupport.WriteMessage(
                                    "no events to export" + (why is null ? string.Empty : ": " + why),
                                    stdout,
                                    error
                                );
                                return ExitCodes.MissingData;
                            }

                            return exit == ExitCodes.Ok && (result.SkippedEvents > 0 || result.DroppedActionValues > 0)
                                ? ExitCodes.Partial
                                : exit;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze export sample-xel/latch_nesting_full --format parquet -o out",
            "xeanalyze export sample-xel/latch_nesting_full --format parquet --resolve --symbols symbols-cache "
                + "--binaries symbols-cache --offline -o out"
        );
        return command;
    }
}

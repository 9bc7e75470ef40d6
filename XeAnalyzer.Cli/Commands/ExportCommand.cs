using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Export;
using XeAnalyzer.Export.Parquet;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze export &lt;capture...&gt; --format parquet -o DIR [--event NAME] [--row-group-size N] [--compression gzip|none]
/// [--skip-corrupt]</c>: one Parquet file per event (<c>package.event.parquet</c>) for Spark, DuckDB or Databricks.
/// Prints one line per file written (rows, row groups, bytes) and a total.
/// </summary>
internal static class ExportCommand
{
    public static Command Create()
    {
        Argument<string[]> captures = CaptureCommandSupport.CapturesArgument();
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var format = new Option<string>("--format") { Description = "Output format (parquet is the only one for now).", DefaultValueFactory = _ => "parquet" };
        format.AcceptOnlyFromAmong("parquet");
        var output = new Option<string>("--output", "-o") { Description = "The folder to write (created when missing; files of the same name are replaced).", Required = true };
        var eventNames = new Option<string[]>("--event") { Description = "Only these events (package.event or event); repeatable.", AllowMultipleArgumentsPerToken = true };
        var rowGroup = new Option<int?>("--row-group-size") { Description = "Rows per Parquet row group (default 131072; a row group also closes at 64 MiB)." };
        var compression = new Option<string>("--compression") { Description = "Page compression: gzip (default) or none.", DefaultValueFactory = _ => "gzip" };
        compression.AcceptOnlyFromAmong("gzip", "none");
        var command = new Command("export", "Export events to Parquet files, one per event type, for Spark, DuckDB or Databricks.");
        command.Arguments.Add(captures);
        command.Options.Add(format);
        command.Options.Add(output);
        command.Options.Add(eventNames);
        command.Options.Add(rowGroup);
        command.Options.Add(compression);
        command.Options.Add(skip);
        command.SetAction(parse => CaptureCommandSupport.Run(parse, (stdout, error) =>
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

            string[] names = parse.GetValue(eventNames) ?? [];
            IReadOnlyList<CaptureSet> sets = CaptureSet.Expand(parse.GetValue(captures)!);
            var diag = new XelDiagnostics();
            var options = new XelExportOptions
            {
                ReadOptions = CaptureCommandSupport.ReadOptions(parse.GetValue(skip), diag, names.Length > 0 ? names : null),
                Parquet = new ParquetWriterOptions
                {
                    RowGroupRows = rows ?? ParquetWriterOptions.Default.RowGroupRows,
                    Compression = parse.GetValue(compression) == "none" ? ParquetCompression.None : ParquetCompression.Gzip,
                },
            };

            var sw = Stopwatch.StartNew();
            XelExportResult result = XelParquetExporter.Export(sets.SelectMany(s => s.Files), dir, options);
            sw.Stop();
            foreach (string note in result.Notes)
            {
                error.WriteLine("xeanalyze: note: " + note);
            }

            foreach (XelExportTable t in result.Tables)
            {
                stdout.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{t.Path}: {t.Rows} rows, {t.RowGroups} row group(s), {t.Bytes} bytes"));
            }

            long bytes = result.Tables.Sum(t => t.Bytes);
            stdout.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{result.Tables.Count} file(s), {result.Events} events, {bytes} bytes in {sw.Elapsed.TotalSeconds:F1} s"));
            if (result.SkippedEvents > 0 || result.DroppedActionValues > 0)
            {
                error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"xeanalyze: warning: {result.SkippedEvents} event(s) and {result.DroppedActionValues} action value(s) were not in the layout pass (did a capture grow during the export?) and were not written"));
            }

            stdout.Flush();
            int exit = CaptureCommandSupport.Finish(diag, error);
            if (result.Events == 0 && exit == ExitCodes.Ok)
            {
                error.WriteLine("xeanalyze: no events to export" + (names.Length > 0 ? " (no event matches --event " + string.Join(", ", names) + ")" : string.Empty));
                return ExitCodes.MissingData;
            }

            return exit == ExitCodes.Ok && (result.SkippedEvents > 0 || result.DroppedActionValues > 0) ? ExitCodes.Partial : exit;
        }));
        return command;
    }
}

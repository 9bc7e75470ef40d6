using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze histogram &lt;input...&gt; [--map-values FILE [--map NAME]]</c>: histogram targets on an event field or
/// action (not a callstack): one row per slot with value, count and share, largest first; map keys with their text when
/// the map values are given.
/// </summary>
internal static class HistogramCommand
{
    public static Command Create()
    {
        var command = new Command(
            "histogram",
            "Show histogram targets on an event field or action (text, numbers or map keys): one row per slot with "
                + "value, count and share, largest first, and a bar chart. Callstack histograms: use stacks."
        );
        AnalysisCommandOptions common = AnalysisCommandOptions.AddTo(command, eventOptions: false);
        var mapValues = new Option<string?>("--map-values")
        {
            Description =
                "Map keys and their text, to show a map field's keys as text: the tab-separated output of select "
                + "name, map_key, map_value from sys.dm_xe_map_values (taken on the captured build; an optional header "
                + "line name<TAB>map_key<TAB>map_value).",
        }.AcceptsPaths("a file");
        var map = new Option<string?>("--map")
        {
            Description =
                "The map whose keys the slot values are (wait_types, latch_class, …); needed when --map-values holds "
                + "several maps.",
        };
        command.Options.Add(mapValues);
        command.Options.Add(map);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            MapValueTable? table = parse.GetValue(mapValues) is string path
                                ? MapValueTable.Load(path)
                                : null;
                            string? mapName = parse.GetValue(map);
                            if (mapName is not null && table is null)
                            {
                                throw new UsageException("--map: give the map values with --map-values FILE");
                            }

                            if (table is not null)
                            {
                                if (mapName is null && table.MapNames.Count != 1)
                                {
                                    throw new UsageException(
                                        "--map-values: "
                                            + table.FilePath
                                            + " holds "
                                            + (
                                                table.MapNames.Count == 0
                                                    ? "no map"
                                                    : "the maps " + string.Join(", ", table.MapNames)
                                            )
                                            + "; name the one the histogram's values are keys of with --map NAME"
                                    );
                                }

                                if (mapName is not null && !table.Contains(mapName))
                                {
                                    throw new UsageException(
                                        "--map: "
                                            + table.FilePath
                                            + " has no map '"
                                            + mapName
                                            + "' (it holds "
                                            + string.Join(", ", table.MapNames)
                                            + ")"
                                    );
                                }
                            }

                            var analysis = new HistogramAnalysis(
                                new HistogramAnalysisOptions { MapValues = table, MapName = mapName }
                            );
                            return common.Run<HistogramAnalysisResult>(
                                parse,
                                output,
                                error,
                                analysis,
                                cancellationToken
                            );
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze histogram "
                + "sample-xel/cci_insert_memory_histogram/cci_insert_memory.page_freed.memory_clerk_name.histogram.xml",
            "xeanalyze histogram "
                + "sample-xel/blob_storage_waits_histogram/blob_storage_waits.wait_type.histogram.xml --map-values "
                + "sample-xel/blob_storage_waits_histogram/blob_storage_waits.map_values.tsv --map wait_types"
        );
        return command;
    }
}

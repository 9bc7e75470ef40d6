using System.CommandLine;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze histogram &lt;input...&gt; [--map-values FILE [--map NAME]] [--source EVENT.FIELD]</c>: histogram
/// targets on an event field or action (not a callstack): one row per slot with value, count and share, largest first;
/// map keys with their text when the map values are given; a duration field's values with their unit when the source
/// is named.
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
        var source = new Option<string?>("--source")
        {
            Description =
                "The histogram's source as the session defines it, EVENT.FIELD (e.g. sqlos.wait_info.duration): the "
                + "target XML does not name it; a duration field's values are then shown with their unit.",
        };
        command.Options.Add(mapValues);
        command.Options.Add(map);
        command.Options.Add(source);
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

                            (string? sourceEvent, string? sourceField) = SourceOf(parse.GetValue(source));
                            var analysis = new HistogramAnalysis(
                                new HistogramAnalysisOptions
                                {
                                    MapValues = table,
                                    MapName = mapName,
                                    SourceEvent = sourceEvent,
                                    SourceField = sourceField,
                                }
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

    /// <summary>The event and field of <c>--source EVENT.FIELD</c> (split at the last dot), or nulls when not given.
    /// </summary>
    /// <exception cref="UsageException">The value is not EVENT.FIELD.</exception>
    private static (string? Event, string? Field) SourceOf(string? value)
    {
        if (value is null)
        {
            return (null, null);
        }

        int dot = value.LastIndexOf('.');
        return dot > 0 && dot < value.Length - 1
            ? (value[..dot], value[(dot + 1)..])
            : throw new UsageException(
                "--source: expected EVENT.FIELD, the histogram's filtering_event_name and source "
                    + "(e.g. sqlos.wait_info.duration), not '"
                    + value
                    + "'"
            );
    }
}

using XeAnalyzer.Capture;

namespace XeAnalyzer.Export;

/// <summary>One Parquet file written by an export.</summary>
/// <param name="Path">The file.</param>
/// <param name="EventName">The event, <c>package.event</c>.</param>
/// <param name="SchemaVariant">1, or 2, 3… for a schema that could not be merged with the first (see
/// <see cref="XelExportResult.Notes"/>).</param>
/// <param name="Rows">Rows (events) written.</param>
/// <param name="Bytes">File size in bytes.</param>
/// <param name="RowGroups">Row groups written.</param>
/// <param name="SourceFiles">The capture files whose events went into this table.</param>
public sealed record XelExportTable(
    string Path,
    string EventName,
    int SchemaVariant,
    long Rows,
    long Bytes,
    int RowGroups,
    IReadOnlyList<string> SourceFiles
)
{
    /// <summary>The columns, in file order.</summary>
    internal IReadOnlyList<ParquetColumn> Columns { get; init; } = [];
}

/// <summary>What <see cref="XelParquetExporter.Export"/> wrote.</summary>
/// <param name="Tables">The files written, ordered by file name.</param>
/// <param name="Notes">Schema decisions worth telling the user (tables split because schemas differ), in the order they
/// were made.</param>
/// <param name="Events">Events written (the sum of <see cref="XelExportTable.Rows"/>).</param>
/// <param name="SkippedEvents">
/// Events read but not written because their event type was not in the layout (the capture grew between the layout pass
/// and the export pass).
/// </param>
/// <param name="DroppedActionValues">Action values not written for the same reason.</param>
public sealed record XelExportResult(
    IReadOnlyList<XelExportTable> Tables,
    IReadOnlyList<string> Notes,
    long Events,
    long SkippedEvents,
    long DroppedActionValues
)
{
    /// <summary>What <c>--resolve</c> resolved, or <see langword="null"/> without a resolver.</summary>
    internal ExportResolution? Resolution { get; init; }

    /// <summary>
    /// What the row pass read (the events by name before the filter, what passed it), or <see langword="null"/>.
    /// </summary>
    public CaptureSummary? Read { get; init; }
}

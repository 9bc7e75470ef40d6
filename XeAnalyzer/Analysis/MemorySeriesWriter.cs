using XeAnalyzer.IO;
using XeAnalyzer.Output;

namespace XeAnalyzer.Analysis;

/// <summary>
/// Writes every step of the running total of a <see cref="MemoryAnalysis"/> as CSV while the analysis runs (<c>memory
/// --series</c>): one record per event, in the analysis's (timestamp, <c>event_sequence</c>) order, with the columns of
/// <see cref="Columns"/>. It goes through the one CSV encoder of every output (quoting, the CSV-injection rule for
/// clerk names from the capture, <c>\n</c> record endings), streaming: the series is never held in memory. Not
/// thread-safe; give <see cref="Write"/> to the analysis as its point callback.
/// </summary>
internal sealed class MemorySeriesWriter : IDisposable
{
    private readonly CsvTableWriter _csv;
    private readonly Stream? _owned;

    /// <summary>Starts the file: writes the header record.</summary>
    /// <param name="output">The destination; left open unless <paramref name="leaveOpen"/> is
    /// <see langword="false"/>.</param>
    /// <param name="leaveOpen">Whether disposing the writer leaves <paramref name="output"/> open (default
    /// <see langword="true"/>).</param>
    public MemorySeriesWriter(Stream output, bool leaveOpen = true)
    {
        ArgumentNullException.ThrowIfNull(output);
        _csv = new CsvTableWriter(output);
        _owned = leaveOpen ? null : output;
        _csv.WriteHeader(Columns);
    }

    /// <summary>
    /// The columns: <c>timestamp</c> (ISO 8601 UTC), <c>event_sequence</c>, <c>event</c> (<c>page_allocated</c> or
    /// <c>page_freed</c>),
    /// <c>session_id</c>, <c>memory_clerk_name</c> (with <see cref="MemoryAnalysisOptions.ByClerk"/>), <c>pages</c>,
    /// <c>session_running_total</c>, <c>running_total</c>; a value the event does not carry is an empty field.
    /// </summary>
    public static IReadOnlyList<TableColumn> Columns { get; } =
    [
        TableColumn.Timestamp("timestamp"),
        TableColumn.Integer("event_sequence"),
        TableColumn.Text("event"),
        TableColumn.Integer("session_id"),
        TableColumn.Text("memory_clerk_name"),
        TableColumn.Integer("pages"),
        TableColumn.Integer("session_running_total"),
        TableColumn.Integer("running_total"),
    ];

    /// <summary>Creates (or replaces) a file and starts it.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The writer, which closes the file when disposed.</returns>
    public static MemorySeriesWriter Create(string path) => new(OutputFile.Create(path, 1 << 16), leaveOpen: false);

    /// <summary>Writes one step of the running total.</summary>
    /// <param name="point">The step.</param>
    public void Write(MemoryPoint point)
    {
        _csv.Timestamp(point.Time);
        if (point.EventSequence is ulong s)
        {
            _csv.Integer(s);
        }
        else
        {
            _csv.Empty();
        }

        _csv.Text(point.IsAllocation ? "page_allocated" : "page_freed");
        if (point.SessionId is long id)
        {
            _csv.Integer(id);
        }
        else
        {
            _csv.Empty();
        }

        _csv.Text(point.Clerk);
        _csv.Integer(point.Pages);
        _csv.Integer(point.SessionTotal);
        _csv.Integer(point.Total);
        _csv.EndRow();
    }

    /// <summary>Writes what is buffered and, when the writer owns it, closes the file.</summary>
    public void Dispose()
    {
        _csv.Flush();
        _csv.Dispose();
        _owned?.Dispose();
    }
}

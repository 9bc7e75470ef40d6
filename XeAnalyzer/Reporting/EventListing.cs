using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The events of a <see cref="CaptureSource"/> flattened to text, CSV or JSON (<c>xeanalyze events</c>): the entry
/// point that reads the columns a CSV header needs (the <c>.xel</c> metadata, or the event shapes of target-data XML)
/// before the first row, then streams the events that pass the filter, up to a limit, through
/// <see cref="EventListWriter"/>.
/// </summary>
internal static class EventListing
{
    /// <summary>Writes the events of the inputs that pass a filter.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="filter">Which events (names, conditions, time range).</param>
    /// <param name="format">The format.</param>
    /// <param name="output">The destination (flushed, not closed).</param>
    /// <param name="limit">The most events written (0 or more; <see cref="long.MaxValue"/> for all).</param>
    /// <param name="diagnostics">Receives what the read skipped; <see langword="null"/> for a new collector.</param>
    /// <param name="completed">Called with what the read found when it read to the end (not when the limit stopped
    /// it); <see langword="null"/> for none.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The number of events written.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="limit"/> is negative.</exception>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static long Write(
        CaptureSource source,
        EventFilter filter,
        EventListFormat format,
        TextWriter output,
        long limit = long.MaxValue,
        CaptureDiagnostics? diagnostics = null,
        Action<CaptureSummary>? completed = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(filter);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        EventListColumns? columns = null;
        if (format == EventListFormat.Csv)
        {
            // The header needs every column before the first row.
            var schemas = source.ReadSchemas(filter, cancellationToken);
            columns = EventListColumns.From(schemas.SelectMany(s => s.EventTypes), schemas.SelectMany(s => s.Actions));
        }

        IEnumerable<XEvent> events = source.ReadEvents(filter, diagnostics, completed, cancellationToken);
        long written = EventListWriter.Write(
            output,
            format,
            limit == long.MaxValue ? events : Take(events, limit),
            columns
        );
        output.Flush();
        return written;
    }

    private static IEnumerable<XEvent> Take(IEnumerable<XEvent> events, long limit)
    {
        if (limit == 0)
        {
            yield break;
        }

        long n = 0;
        foreach (XEvent e in events)
        {
            yield return e;
            if (++n >= limit)
            {
                yield break;
            }
        }
    }
}

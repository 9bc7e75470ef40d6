using XeAnalyzer.Events;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>What <see cref="CaptureSlicer.Slice"/> wrote.</summary>
/// <param name="EventsWritten">Events written.</param>
/// <param name="EventTypes">Event types in the new file's metadata.</param>
/// <param name="Read">What the read of the inputs found.</param>
internal sealed record SliceResult(long EventsWritten, int EventTypes, CaptureSummary Read);

/// <summary>
/// Writes the events of a <see cref="CaptureSource"/> that pass a filter to a new <c>.xel</c> file with their metadata
/// (RIDs, maps, types), so the result reads back with the same values: <c>xeanalyze slice</c>. <c>.xel</c> inputs are
/// read once (their metadata gives the schema and the package start time before the events are read). Target-data XML
/// carries no metadata, so its schema is built from its events first: an XML input is read twice, once for the schema
/// and once to write.
/// </summary>
internal static class CaptureSlicer
{
    /// <summary>The message of the <see cref="ArgumentException"/> thrown when the output file is one of the
    /// inputs.</summary>
    public const string OutputIsInput = "the output file is one of the inputs";

    /// <summary>Slices the inputs into one file.</summary>
    /// <param name="source">The inputs.</param>
    /// <param name="filter">Which events to keep (names, conditions, time range: from inclusive, to exclusive).</param>
    /// <param name="output">The file to write.</param>
    /// <param name="diagnostics">Receives what the read skipped; <see langword="null"/> for a new collector.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>What was written.</returns>
    /// <exception cref="ArgumentException">The output file is one of the inputs
    /// (<see cref="OutputIsInput"/>).</exception>
    /// <exception cref="InvalidOperationException">The inputs do not share one schema (the same RID names different
    /// events), so their events cannot go into one file.</exception>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read, or the output cannot be written.</exception>
    public static SliceResult Slice(
        CaptureSource source,
        EventFilter filter,
        string output,
        CaptureDiagnostics? diagnostics = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(filter);
        ArgumentException.ThrowIfNullOrEmpty(output);
        diagnostics ??= new CaptureDiagnostics();
        string fullOut = Path.GetFullPath(output);
        if (
            source
                .Inputs.SelectMany(i => i.Files)
                .Any(f => string.Equals(Path.GetFullPath(f), fullOut, StringComparison.Ordinal))
        )
        {
            throw new ArgumentException(OutputIsInput, nameof(output));
        }

        // The schema of every input, before any event is written.
        int pointerSize = 8;
        bool pointerKnown = false;
        DateTime? start = null;
        var types = new List<XeEventType>();
        var actions = new List<XeColumn>();
        var adapters = new Dictionary<CaptureInput, TargetEventAdapter>();
        foreach (CaptureInput input in source.Inputs)
        {
            if (input.Kind == CaptureInputKind.Xel)
            {
                foreach (string file in input.Files)
                {
                    (XeSchema schema, DateTime? earliest) = XelReader.ReadMetadata(
                        file,
                        new XelReadOptions { Integrity = source.Options.Integrity, Limits = source.Options.Limits },
                        cancellationToken
                    );
                    if (!pointerKnown)
                    {
                        pointerSize = schema.PointerSize;
                        pointerKnown = true;
                    }

                    types.AddRange(schema.EventTypes.Where(filter.MatchesName));
                    actions.AddRange(schema.Actions);
                    if (earliest is DateTime e && (start is null || e < start))
                    {
                        start = e;
                    }
                }
            }
            else
            {
                var adapter = new TargetEventAdapter(input.Name);
                adapters.Add(input, adapter);
                foreach (
                    TargetDataElement element in TargetDataReader.ReadFile(
                        input.Name,
                        new TargetDataReaderOptions { FilePath = input.Name, Limits = source.Options.TextLimits },
                        cancellationToken
                    )
                )
                {
                    if (element is TargetEvent te && filter.MatchesName(te.Package, te.Name))
                    {
                        XEvent e = adapter.Convert(te);
                        if (
                            filter.Matches(e)
                            && e.Timestamp != DateTime.MinValue
                            && (start is null || e.Timestamp < start)
                        )
                        {
                            start = e.Timestamp;
                        }
                    }
                }

                types.AddRange(adapter.Schema.EventTypes);
                actions.AddRange(adapter.Schema.Actions);
            }
        }

        var target = new XeSchema(pointerSize);
        foreach (XeEventType t in types)
        {
            target.ImportEvent(t);
        }

        foreach (XeColumn a in actions)
        {
            target.ImportAction(a);
        }

        long written;
        CaptureSummary? read = null;
        using (
            XelWriter writer = XelWriter.Create(
                output,
                target,
                new XelWriterOptions { StartTimeUtc = start ?? new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc) }
            )
        )
        {
            long untimed = 0;
            foreach (XEvent e in source.ReadEvents(filter, diagnostics, r => read = r, adapters, cancellationToken))
            {
                if (e.Timestamp == DateTime.MinValue)
                {
                    untimed++;
                    continue;
                }

                writer.Write(e);
            }

            if (untimed > 0)
            {
                diagnostics.Warn(
                    string.Create(
                        System.Globalization.CultureInfo.InvariantCulture,
                        $"{untimed:N0} event(s) without a timestamp were not written: a .xel event needs one"
                    )
                );
            }

            written = writer.EventsWritten;
        }

        return new SliceResult(written, target.EventTypes.Count, read!);
    }
}

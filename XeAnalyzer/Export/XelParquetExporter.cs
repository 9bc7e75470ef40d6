using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Export;

/// <summary>
/// Exports <c>.xel</c> captures to Parquet: one file per event (<c>package.event.parquet</c>), so each file has a fixed
/// schema that Spark, DuckDB or Databricks can query across many captures.
/// </summary>
/// <remarks>
/// <para><b>Columns.</b> Every table starts with <c>timestamp_utc</c> (TIMESTAMP µs UTC, rounded down from the
/// capture's 100 ns), <c>event_sequence</c> (UINT64, null when the event lacks the <c>package0.event_sequence</c>
/// action),
/// <c>capture_file</c>, <c>file_offset</c> (INT64, the event record's byte offset), <c>event_name</c> and
/// <c>package</c>. Then the fields in event order, then the actions (in the order the events carry them). A map-valued
/// field or action gives two columns: <c>name</c> (the map text) and <c>name_key</c> (the key). An action named like a
/// field (or a common column) is prefixed <c>action_</c>. Callstacks are <c>LIST&lt;INT64&gt;</c> of raw return
/// addresses, leaf first (with
/// <see cref="XelExportOptions.FrameResolver"/>, followed by <c>name_frames</c>, LIST&lt;STRING&gt;).
/// Integers keep their width and signedness (pointers and cpu_cycle are UINT64), float32/float64 are FLOAT/DOUBLE,
/// filetime is a TIMESTAMP (null when out of range), text and XML are STRING, GUIDs and activity ids are STRING
/// (<c>D</c> format; <c>{guid}:{sequence}</c>), binary data is BINARY. Every field and action column is
/// nullable.</para>
/// <para><b>Several files.</b> The same event from different files (for example different SQL Server builds) goes to
/// one table when every same-named field and action has a compatible type (equal, or integers of the same signedness,
/// widened); missing columns are null. Otherwise the event gets another table, <c>package.event.schema2.parquet</c>,
/// and a note says why.</para>
/// <para><b>Encoding.</b> Written by Parquet.Net (see <see cref="XelExportOptions"/>): ZSTD pages by default, string
/// and frame columns dictionary-encoded when their values repeat, min/max and null-count statistics on every column
/// chunk, row groups of at most <see cref="XelExportOptions.RowGroupRows"/> rows and about
/// <see cref="XelExportOptions.RowGroupBytes"/> bytes.</para>
/// <para><b>Passes.</b> A first pass reads the events without decoding values to learn which actions each event
/// carries; the second writes the rows. Each table is written to <c>name.parquet.tmp</c> and renamed when complete, so
/// a failed export leaves no file that looks complete. Existing files of the same name are replaced.</para>
/// </remarks>
public static class XelParquetExporter
{
    /// <summary>
    /// Exports the events of the inputs (<c>.xel</c> files and sets, and target-data XML: the same events by the same
    /// pipeline) that pass
    /// <see cref="XelExportOptions.Filter"/>. Each input is read twice: once for the layout (which event types and
    /// actions occur: Parquet needs every column before the first row), once for the rows.
    /// </summary>
    /// <param name="source">The inputs.</param>
    /// <param name="outputDirectory">The folder to write (created when missing).</param>
    /// <param name="options">Options; <see langword="null"/> for <see cref="XelExportOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops the export.</param>
    /// <returns>The files written.</returns>
    /// <exception cref="XeFormatException">An input is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read or a file cannot be written.</exception>
    public static XelExportResult Export(
        CaptureSource source,
        string outputDirectory,
        XelExportOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentException.ThrowIfNullOrEmpty(outputDirectory);
        options ??= XelExportOptions.Default;
        EventFilter filter = options.Filter;

        // Pass 1: which event types occur in each file, and with which actions.
        var tables = new List<EventTable>();
        var notes = new List<string>();
        // Each read builds new metadata objects, so the export pass finds an event type's table by file and RID.
        var tableOf = new Dictionary<string, Dictionary<uint, EventTable>>(StringComparer.Ordinal);
        var targetData = new HashSet<string>(
            source.Inputs.Where(i => i.Kind == CaptureInputKind.TargetData).Select(i => i.Name),
            StringComparer.Ordinal
        );
        foreach (
            (string file, List<(XeEventType Type, List<XeColumn> Actions)> found) in Scan(
                source,
                filter,
                cancellationToken
            )
        )
        {
            var byRid = new Dictionary<uint, EventTable>();
            foreach ((XeEventType type, List<XeColumn> actions) in found)
            {
                EventTable table = Place(tables, notes, file, type, actions);
                table.HasEventsWithoutOffset |= targetData.Contains(file);
                byRid[type.Rid] = table;
            }

            tableOf[file] = byRid;
        }

        ExportFrameResolver? frames =
            options.Resolver is CallstackResolver resolver && options.FrameResolver is null
                ? new ExportFrameResolver(resolver, source)
                : null;
        bool resolving = frames is not null || options.FrameResolver is not null;
        foreach (EventTable t in tables)
        {
            t.Complete(resolving);
        }

        // Pass 2: rows.
        Directory.CreateDirectory(outputDirectory);
        var writers = new Dictionary<EventTable, TableWriter>(ReferenceEqualityComparer.Instance);
        var result = new List<XelExportTable>();
        long events = 0,
            skipped = 0,
            dropped = 0;
        CaptureSummary? read = null;
        try
        {
            var tableOptions = new ParquetTableOptions(
                options.RowGroupRows,
                options.RowGroupBytes,
                options.Compression
            );
            foreach (EventTable t in tables)
            {
                writers.Add(t, new TableWriter(t, Path.Combine(outputDirectory, t.FileName), tableOptions));
            }

            var plans = new Dictionary<(XeEventType, XeActionSet), EventRowPlan?>(PairComparer.Instance);
            var scratch = new ExportScratch(
                options.FrameResolver ?? (frames is null ? null : frames.Resolve),
                frames is null ? null : frames.ResolveText
            );
            string file = string.Empty;
            Dictionary<uint, EventTable> fileTables = tableOf.GetValueOrDefault(file) ?? [];
            EventRowPlan? last = null;
            XeEventType? lastType = null;
            XeActionSet? lastSet = null;
            foreach (XEvent e in source.ReadEvents(filter, options.Diagnostics, r => read = r, cancellationToken))
            {
                string eventFile = e.Source.FilePath ?? string.Empty;
                if (!ReferenceEquals(eventFile, file) && !string.Equals(eventFile, file, StringComparison.Ordinal))
                {
                    file = eventFile;
                    fileTables = tableOf.GetValueOrDefault(file) ?? [];
                    plans.Clear();
                    lastType = null;
                    lastSet = null;
                }

                if (!ReferenceEquals(e.EventType, lastType) || !ReferenceEquals(e.ActionSet, lastSet))
                {
                    lastType = e.EventType;
                    lastSet = e.ActionSet;
                    if (!plans.TryGetValue((lastType, lastSet), out last))
                    {
                        last = fileTables.TryGetValue(lastType.Rid, out EventTable? table)
                            ? new EventRowPlan(table, writers[table], lastType, lastSet)
                            : null;
                        plans.Add((lastType, lastSet), last);
                    }
                }

                if (last is null)
                {
                    skipped++;
                    continue;
                }

                last.Write(e, file, scratch);
                dropped += last.DroppedActions;
                events++;
                if ((events & 4095) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    LimitMemory(writers.Values, options.MaxBufferedBytes);
                }
            }

            foreach (EventTable t in tables.OrderBy(t => t.FileName, StringComparer.Ordinal))
            {
                TableWriter w = writers[t];
                w.Complete();
                result.Add(
                    new XelExportTable(
                        w.Path,
                        t.FullName,
                        t.Variant,
                        w.Parquet.RowCount,
                        w.Parquet.BytesWritten,
                        w.Parquet.RowGroupCount,
                        t.SourceFiles
                    )
                    {
                        Columns = t.Columns,
                    }
                );
            }
        }
        finally
        {
            foreach (TableWriter w in writers.Values)
            {
                w.Dispose();
            }
        }

        return new XelExportResult(result, notes, events, skipped, dropped)
        {
            Resolution = frames?.Summary,
            Read = read,
        };
    }

    /// <summary>The event types of one file with the union of the actions their events carry (first-seen
    /// order).</summary>
    /// <summary>The layout pass: per file (in read order), the event types that occur and the actions they
    /// carry.</summary>
    private static List<(string File, List<(XeEventType Type, List<XeColumn> Actions)> Found)> Scan(
        CaptureSource source,
        EventFilter filter,
        CancellationToken cancellationToken
    )
    {
        var files = new List<(string File, List<(XeEventType Type, List<XeColumn> Actions)> Found)>();
        var byFile = new Dictionary<
            string,
            (Dictionary<XeEventType, int> Index, List<(XeEventType Type, List<XeColumn> Actions)> Found)
        >(StringComparer.Ordinal);
        var seenSets = new HashSet<(XeEventType, XeActionSet)>(PairComparer.Instance);
        XeEventType? lastType = null;
        XeActionSet? lastSet = null;

        // The layout pass's own diagnostics: the row pass reports what the reads skip, once.
        foreach (XEvent e in source.ReadEvents(filter, new CaptureDiagnostics(), null, cancellationToken))
        {
            if (ReferenceEquals(e.EventType, lastType) && ReferenceEquals(e.ActionSet, lastSet))
            {
                continue;
            }

            lastType = e.EventType;
            lastSet = e.ActionSet;
            if (!seenSets.Add((lastType, lastSet)))
            {
                continue;
            }

            string file = e.Source.FilePath ?? string.Empty;
            if (!byFile.TryGetValue(file, out var state))
            {
                state = (new Dictionary<XeEventType, int>(ReferenceEqualityComparer.Instance), []);
                byFile.Add(file, state);
                files.Add((file, state.Found));
            }

            if (!state.Index.TryGetValue(lastType, out int i))
            {
                i = state.Found.Count;
                state.Index.Add(lastType, i);
                state.Found.Add((lastType, []));
            }

            List<XeColumn> actions = state.Found[i].Actions;
            foreach (XeColumn a in lastSet.Columns)
            {
                if (!actions.Exists(x => string.Equals(x.FullName, a.FullName, StringComparison.Ordinal)))
                {
                    actions.Add(a);
                }
            }
        }

        return files;
    }

    private static EventTable Place(
        List<EventTable> tables,
        List<string> notes,
        string file,
        XeEventType type,
        List<XeColumn> actions
    )
    {
        string package = type.Package.Name;
        var conflicts = new List<string>();
        int variant = 0;
        foreach (EventTable t in tables)
        {
            if (
                !string.Equals(t.PackageName, package, StringComparison.Ordinal)
                || !string.Equals(t.EventName, type.Name, StringComparison.Ordinal)
            )
            {
                continue;
            }

            variant = Math.Max(variant, t.Variant);
            if (t.TryAdd(file, type, actions, out string? conflict))
            {
                return t;
            }

            conflicts.Add(conflict!);
        }

        var table = new EventTable(package, type.Name, variant + 1);
        if (!table.TryAdd(file, type, actions, out _))
        {
            throw new InvalidOperationException("A new table rejected its first event type.");
        }

        tables.Add(table);
        if (conflicts.Count > 0)
        {
            notes.Add(
                table.FullName
                    + ": the schema in "
                    + file
                    + " cannot be merged with the earlier one ("
                    + string.Join("; ", conflicts)
                    + "), so its events go to "
                    + table.FileName
                    + "."
            );
        }

        return table;
    }

    private static void LimitMemory(IEnumerable<TableWriter> writers, long budget)
    {
        List<(TableWriter Writer, long Bytes)> sizes = [.. writers.Select(w => (w, w.Parquet.BufferedBytes))];
        long total = sizes.Sum(s => s.Bytes);
        if (total <= budget)
        {
            return;
        }

        foreach (
            (TableWriter w, long bytes) in sizes
                .OrderByDescending(s => s.Bytes)
                .ThenBy(s => s.Writer.Table.FileName, StringComparer.Ordinal)
        )
        {
            w.Parquet.FlushRowGroup();
            total -= bytes;
            if (total <= budget / 2)
            {
                break;
            }
        }
    }

    private sealed class PairComparer : IEqualityComparer<(XeEventType, XeActionSet)>
    {
        public static readonly PairComparer Instance = new();

        public bool Equals((XeEventType, XeActionSet) x, (XeEventType, XeActionSet) y) =>
            ReferenceEquals(x.Item1, y.Item1) && ReferenceEquals(x.Item2, y.Item2);

        public int GetHashCode((XeEventType, XeActionSet) obj) =>
            HashCode.Combine(
                System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item1),
                System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item2)
            );
    }
}

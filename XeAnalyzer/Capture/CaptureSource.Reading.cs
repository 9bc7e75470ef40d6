using System.Globalization;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

// The one read pass behind Read and ReadEvents: it walks the inputs and keeps what it finds for the summary.
partial class CaptureSource
{
    /// <summary>One read: walks the inputs and keeps what it finds for the summary.</summary>
    private sealed class Reading(
        CaptureSource source,
        EventFilter filter,
        IReadOnlyCollection<string>? eventNames,
        CaptureDiagnostics diagnostics,
        EventDispatcher dispatcher,
        bool pooled
    )
    {
        private readonly List<InputSummary> _inputs = [];

        // An empty list of names (consumers that read no events, such as histograms) decodes no event; null decodes
        // every event.
        private readonly IReadOnlyCollection<string>? _names =
            filter.EventNames.Count > 0 ? filter.EventNames
            : eventNames is null ? null
            : eventNames.Count > 0 ? eventNames
            : [NoEvent];

        public IReadOnlyDictionary<CaptureInput, TargetEventAdapter>? Adapters { get; init; }

        /// <summary>
        /// Tallies every event and hands it to the consumers. With <c>pooled</c> (<see cref="CaptureSource.Read"/>),
        /// <c>.xel</c> events are pushed to it straight from pooled buffers (transient views, see
        /// <see cref="XEvent.IsTransient"/>) instead of being yielded as items; otherwise every event owns its data and
        /// the caller gives each item to it.
        /// </summary>
        public EventDispatcher Dispatcher { get; } = dispatcher;

        public CaptureSummary Summary() => new(_inputs.AsReadOnly(), diagnostics, filter);

        /// <summary>Where the read is, for <see cref="CaptureReadOptions.Progress"/>; <see langword="null"/> when
        /// nobody asked.</summary>
        private readonly FileReadProgress? _progress = source.Options.Progress is IProgress<WorkProgress> p
            ? new FileReadProgress(p, FileReadProgress.Describe(source.Names), source.Inputs.SelectMany(i => i.Files))
            : null;

        public IEnumerable<ReadItem> Items(CancellationToken cancellationToken)
        {
            try
            {
                foreach (CaptureInput input in source.Inputs)
                {
                    var summary = new InputSummary(input);
                    _inputs.Add(summary);
                    if (input.ModuleMap.Problem is string problem)
                    {
                        diagnostics.Warn(
                            "module list "
                                + input.ModuleMap.Path
                                + " is not usable ("
                                + problem
                                + "); raw addresses of "
                                + input.Name
                                + " stay unresolved"
                        );
                    }

                    for (int i = 0; i < input.Files.Count; i++)
                    {
                        ModuleMapBinding own = input.FileModuleMaps[i];
                        if (!ReferenceEquals(own, input.ModuleMap) && own.Problem is string fileProblem)
                        {
                            diagnostics.Warn(
                                "module list "
                                    + own.Path
                                    + " is not usable ("
                                    + fileProblem
                                    + "); raw addresses of "
                                    + input.Files[i]
                                    + " stay unresolved"
                            );
                        }
                    }

                    Dispatcher.BeginInput();
                    yield return new ReadItem(ReadItemKind.BeginInput, input, null, null, null);
                    var tally = new XelEventTally();
                    var warnings = new List<string>();
                    IEnumerable<ReadItem> items =
                        input.Kind == CaptureInputKind.Xel
                            ? ReadXel(input, summary, tally, cancellationToken)
                            : ReadTargetData(input, summary, warnings, cancellationToken);
                    foreach (ReadItem item in items)
                    {
                        yield return item;
                    }

                    summary.Files = Dispatcher.EndInput(
                        input,
                        tally.Files,
                        input.Kind == CaptureInputKind.Xel ? ReaderWarnings : _ => warnings.AsReadOnly()
                    );
                    summary.EventTypes = EventTypeSummary
                        .MergeByName(summary.Files.SelectMany(f => f.EventTypes))
                        .AsReadOnly();
                    _progress?.Past(input.Files[^1]);
                    yield return new ReadItem(ReadItemKind.EndInput, input, null, null, null, summary);
                }
            }
            finally
            {
                _progress?.Finish();
            }
        }

        /// <summary>The reader's warnings about one file, as text.</summary>
        private IReadOnlyList<string> ReaderWarnings(string file) =>
            [
                .. diagnostics
                    .Reader.Warnings.Where(w => string.Equals(w.FilePath, file, StringComparison.Ordinal))
                    .Select(w => w.ToString()),
            ];

        private IEnumerable<ReadItem> ReadXel(
            CaptureInput input,
            InputSummary summary,
            XelEventTally tally,
            CancellationToken cancellationToken
        )
        {
            var options = new XelReadOptions
            {
                Integrity = source.Options.Integrity,
                Limits = source.Options.Limits,
                Diagnostics = diagnostics.Reader,
                EventNames = _names,
                Tally = tally,
                DecodeThreads = source.Options.DecodeThreads,
            };
            bool conditions = filter.HasValueConditions;
            long read = 0,
                matched = 0;
            long first = long.MaxValue,
                last = long.MinValue;
            var readRange = new TickRange();
            try
            {
                FileReadProgress? progress = _progress;
                if (pooled)
                {
                    EventDispatcher dispatcher = Dispatcher;
                    // Pushed from pooled buffers: one transient view, pointed at each record in turn.
                    XEvent? view = null;
                    try
                    {
                        foreach (
                            XelEventBuffer b in XelReader.ReadBuffers(
                                input.Set!.Files,
                                options,
                                pooled: true,
                                cancellationToken
                            )
                        )
                        {
                            string file = b.FilePath;
                            progress?.At(file, b.Position);
                            XelBufferDecoder.Record[] records = b.Records;
                            long position = b.Position;
                            view ??= new XEvent(records[0].State.Type);
                            view.PointBuffer(b.Data, b.ActionStarts, file);
                            for (int i = 0; i < b.Count; i++)
                            {
                                ref readonly XelBufferDecoder.Record r = ref records[i];
                                view.PointRecord(
                                    r.State.Type,
                                    r.Time,
                                    r.PayloadOffset,
                                    r.PayloadLength,
                                    r.ActionsOffset,
                                    r.End,
                                    r.ActionStarts,
                                    r.Actions,
                                    position + r.Offset
                                );
                                read++;
                                if (conditions)
                                {
                                    readRange.Add(r.Time.Ticks);
                                    if (!filter.Matches(view))
                                    {
                                        continue;
                                    }
                                }

                                matched++;
                                long t = r.Time.Ticks;
                                if (t < first)
                                {
                                    first = t;
                                }

                                if (t > last)
                                {
                                    last = t;
                                }

                                dispatcher.Add(view);
                            }
                        }
                    }
                    finally
                    {
                        view?.Clear();
                    }

                    yield break;
                }

                foreach (XEvent e in XelReader.ReadEvents(input.Set!, options, cancellationToken))
                {
                    if (progress is not null && (read & 0xFF) == 0)
                    {
                        progress.At(e.Source.FilePath, e.Source.Offset);
                    }

                    read++;
                    if (conditions)
                    {
                        readRange.Add(e.Timestamp.Ticks);
                        if (!filter.Matches(e))
                        {
                            continue;
                        }
                    }

                    matched++;
                    long t = e.Timestamp.Ticks;
                    if (t < first)
                    {
                        first = t;
                    }

                    if (t > last)
                    {
                        last = t;
                    }

                    yield return new ReadItem(ReadItemKind.Event, null, e, null, null);
                }
            }
            finally
            {
                summary.ReadRange = readRange;
                summary.EventsRead = read;
                summary.EventsMatched = matched;
                summary.FirstEvent = first == long.MaxValue ? null : new DateTime(first, DateTimeKind.Utc);
                summary.LastEvent = last == long.MinValue ? null : new DateTime(last, DateTimeKind.Utc);
                summary.EventsByName = EventNameCount.Sort(tally.Counts);
            }
        }

        private IEnumerable<ReadItem> ReadTargetData(
            CaptureInput input,
            InputSummary summary,
            List<string> warnings,
            CancellationToken cancellationToken
        )
        {
            string path = input.Name;
            TargetEventAdapter adapter = Adapters?.GetValueOrDefault(input) ?? new TargetEventAdapter(path);
            long withoutTimestampBefore = adapter.EventsWithoutTimestamp;
            var byName = new Dictionary<string, long>(StringComparer.Ordinal);
            var targets = new List<TargetSummary>();
            var histograms = new List<HistogramTarget>();
            var counters = new List<EventCounterValueRead>();
            var files = new List<string>();
            ulong? logged = null,
                dropped = null;
            HistogramTarget? histogram = null;
            bool conditions = filter.HasValueConditions;
            bool anyTarget = false;
            long read = 0,
                matched = 0,
                n = 0;
            long first = long.MaxValue,
                last = long.MinValue;
            var readRange = new TickRange();
            var typesRead = new HashSet<XeEventType>(ReferenceEqualityComparer.Instance);
            var actionsRead = new HashSet<string>(StringComparer.Ordinal);
            var options = new TargetDataReaderOptions { FilePath = path, Limits = source.Options.TextLimits };
            using StreamReader textReader = TextInput.OpenText(path);
            foreach (TargetDataElement element in TargetDataReader.Read(textReader, options, cancellationToken))
            {
                if ((++n & 0xFFF) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                if ((n & 0xFF) == 0)
                {
                    _progress?.At(path, textReader.BaseStream.Position);
                }

                switch (element)
                {
                    case TargetStart start:
                        anyTarget = true;
                        files.Clear();
                        logged = dropped = null;
                        histogram = null;
                        if (start.Kind == TargetDataKind.Histogram)
                        {
                            histogram = new HistogramTarget(input, start);
                            histograms.Add(histogram);
                        }

                        break;
                    case HistogramSlot slot when histogram is not null:
                        if (slot.Value is null)
                        {
                            throw new InvalidTextInputException(
                                path,
                                Line(slot.LineNumber),
                                "expected a <value> in the histogram slot (the value the slot counts: a callstack, a "
                                    + "field or an action)"
                            );
                        }

                        if (slot.Count > (ulong)(long.MaxValue - histogram.TotalCount))
                        {
                            throw new InvalidTextInputException(
                                path,
                                Line(slot.LineNumber),
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"expected the slot counts of the histogram at line {histogram.LineNumber} to "
                                        + $"sum to at most {long.MaxValue:N0} events; this slot's count, "
                                        + $"{slot.Count:N0}, "
                                        + $"carries the sum past it"
                                )
                            );
                        }

                        histogram.AddSlot(slot);
                        yield return new ReadItem(ReadItemKind.Slot, null, null, histogram, slot);
                        break;
                    case TargetEvent te:
                    {
                        string fullName = TargetEventAdapter.FullName(te);
                        byName[fullName] = byName.GetValueOrDefault(fullName) + 1;
                        if (_names is not null && !EventFilter.MatchesAny(_names, te.Package, te.Name))
                        {
                            continue;
                        }

                        XEvent e = adapter.Convert(te);
                        read++;
                        if (typesRead.Count < MaxTypesRead && typesRead.Add(e.EventType))
                        {
                            foreach (XeColumn a in e.Actions)
                            {
                                actionsRead.Add(a.FullName);
                            }
                        }

                        if (conditions)
                        {
                            if (e.Timestamp != DateTime.MinValue)
                            {
                                readRange.Add(e.Timestamp.Ticks);
                            }

                            if (!filter.Matches(e))
                            {
                                continue;
                            }
                        }

                        matched++;
                        if (e.Timestamp != DateTime.MinValue)
                        {
                            long t = e.Timestamp.Ticks;
                            first = Math.Min(first, t);
                            last = Math.Max(last, t);
                        }

                        yield return new ReadItem(ReadItemKind.Event, null, e, null, null);
                        break;
                    }

                    case TargetFreeText text when UnknownTarget(text.Text) is string root:
                        throw new InvalidTextInputException(
                            path,
                            Line(text.LineNumber),
                            "expected a known target-data root (HistogramTarget, BucketizerTarget, Slots, "
                                + "RingBufferTarget, CounterTarget, unpaired, EventFileTarget, Events or event), found "
                                + "<"
                                + root
                                + ">"
                        );
                    case EventCounterValue c:
                        if (c.Count > long.MaxValue)
                        {
                            throw new InvalidTextInputException(
                                path,
                                Line(c.LineNumber),
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"expected an event_counter count of at most {long.MaxValue:N0}, found "
                                        + $"{c.Count:N0} for {c.Package}.{c.EventName}"
                                )
                            );
                        }

                        counters.Add(
                            new EventCounterValueRead(input, targets.Count, c.Package, c.EventName, (long)c.Count)
                        );
                        break;
                    case EventFileEntry f:
                        if (files.Count < 10_000)
                        {
                            files.Add(f.FileName);
                        }

                        break;
                    case EventFileBuffers b:
                        logged = b.Logged;
                        dropped = b.Dropped;
                        break;
                    case TargetEnd end:
                        targets.Add(
                            new TargetSummary(
                                input,
                                end.Start,
                                end.ItemCount,
                                end.Warnings,
                                [.. files],
                                logged,
                                dropped
                            )
                        );
                        foreach (string w in end.Warnings)
                        {
                            Warn(
                                warnings,
                                path
                                    + ": line "
                                    + end.Start.LineNumber.ToString(CultureInfo.InvariantCulture)
                                    + ": "
                                    + w
                            );
                        }

                        histogram = null;
                        break;
                }
            }

            if (!anyTarget)
            {
                throw new InvalidTextInputException(
                    path,
                    null,
                    "expected Extended Events target data (a HistogramTarget, RingBufferTarget, CounterTarget, "
                        + "unpaired, EventFileTarget, Events or event root element), found none"
                );
            }

            long withoutTimestamp = adapter.EventsWithoutTimestamp - withoutTimestampBefore;
            if (withoutTimestamp > 0)
            {
                Warn(
                    warnings,
                    path
                        + ": "
                        + withoutTimestamp.ToString("N0", CultureInfo.InvariantCulture)
                        + " event(s) without a parseable timestamp (ordered first)"
                );
            }

            summary.EventsRead = read;
            summary.ReadRange = readRange;
            summary.TypesRead = [.. typesRead];
            summary.ActionsRead = [.. actionsRead.Order(StringComparer.Ordinal)];
            summary.EventsMatched = matched;
            summary.FirstEvent = first == long.MaxValue ? null : new DateTime(first, DateTimeKind.Utc);
            summary.LastEvent = last == long.MinValue ? null : new DateTime(last, DateTimeKind.Utc);
            summary.EventsByName = EventNameCount.Sort(byName);
            summary.Targets = targets.AsReadOnly();
            summary.Histograms = histograms.AsReadOnly();
            summary.EventCounters = counters.AsReadOnly();
            summary.EventsWithoutTimestamp = withoutTimestamp;
        }

        /// <summary>A warning about the input: the run's (once), and the input's own list (kept, as the run keeps its
        /// warnings, once and at most <see cref="CaptureDiagnostics.MaxWarnings"/>).</summary>
        private void Warn(List<string> inputWarnings, string message)
        {
            diagnostics.Warn(message);
            if (
                inputWarnings.Count < CaptureDiagnostics.MaxWarnings
                && !inputWarnings.Contains(message, StringComparer.Ordinal)
            )
            {
                inputWarnings.Add(message);
            }
        }
    }
}

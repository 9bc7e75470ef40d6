using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

/// <content>Building the result: symbolizing the raw stacks, merging them into buckets, and what is missing.</content>
internal sealed partial class StackBucketBuilder
{
    /// <summary>
    /// Symbolizes every distinct address and text stack once per input, merges raw stacks whose frames read the same,
    /// and returns the buckets (all of them; see <see cref="StackBucketResult.Filter"/>), or the missing data when
    /// nothing could be bucketed.
    /// </summary>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The result.</returns>
    /// <exception cref="InvalidOperationException">Called twice.</exception>
    public StackBucketResult Build(CancellationToken cancellationToken = default)
    {
        if (_built)
        {
            throw new InvalidOperationException("Build can be called only once per builder.");
        }

        _built = true;
        CollectBetweenPhases();
        FoldLayoutCounts();
        var merger = new StackMerger(Options.GroupByEvent);
        var summaries = new List<StackInputSummary>();
        var tally = new StackSymbolizationTally();
        var overall = new ResolutionSummaryBuilder(null, _inputs.Any(i => i.Session.ModuleMap is not null));
        int rawTotal = 0;
        foreach (InputState input in _inputs)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var summary = new ResolutionSummaryBuilder(input.Info.Name, input.Session.ModuleMap is not null);
            int distinctStacks = input.Table.Count;
            if (WithoutOwnModuleList(input) is string lacking)
            {
                summary.AddWarning(lacking);
            }

            var symbolizer = new StackSymbolizer(input.Session, Options.MaxFramesPerStack, Intern, Options.FramePool);
            foreach (
                SymbolizedStack s in symbolizer.Symbolize(
                    input.Table,
                    summary,
                    tally,
                    cancellationToken,
                    input.Info.Name
                )
            )
            {
                overall.Add(s.Resolved);
                merger.Add(input.Table, s.Id, s.Frames);
                // Generation 1 too: this loop keeps what it makes (the buckets), so what a collection of generation 0
                // finds alive moves up, and much of it (the stacks in hand, the keys let go) is garbage by the next
                // one; left to generation 2 it waits for a full collection, and with the other side of a diff held
                // that raised the peak by about 20 MB at 250,000 stacks.
                if ((++rawTotal & (CollectEvery - 1)) == 0)
                {
                    CollectYoung(_limit.Taken, generation: 1);
                }
            }

            _truncatedStacks += symbolizer.TruncatedStacks;
            CollectBetweenPhases();
            foreach (string w in input.Warnings)
            {
                summary.AddWarning(w);
            }

            ResolutionSummary built = summary.Build(input.Session.Resolver);
            summaries.Add(
                new StackInputSummary(
                    input.Info.Name,
                    input.Info.Kind,
                    input.Info.ModuleMapPath,
                    input.Session.ModuleMap is null ? ModuleMapSource.None : input.Info.ModuleMapSource,
                    input.Events,
                    input.EventsWithoutStack,
                    input.Slots,
                    input.SlotCount,
                    distinctStacks,
                    built,
                    input.Warnings.AsReadOnly()
                )
                {
                    Files = [.. input.Files.Select(f => new StackFileCount(f.Name, f.Events, f.EventsWithoutStack))],
                    ModuleMap = input.Session.ModuleMap,
                }
            );
        }

        var warnings = new List<AnalysisWarning>(_warnings);
        foreach (InputState input in _inputs)
        {
            warnings.AddRange(input.Warnings.Select(w => new AnalysisWarning(AnalysisWarningKind.Note, w)));
        }

        if (_eventsWithoutStack.Count > 0 && merger.Count > 0)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.EventsNotUsed,
                    "events without a callstack were not bucketed: " + Names(_eventsWithoutStack)
                )
            );
        }

        if (_eventsWithEmptyStack.Count > 0 && merger.Count > 0)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.EventsNotUsed,
                    "events whose stack ("
                        + _emptyStackColumn
                        + ") is empty were not bucketed: "
                        + Names(_eventsWithEmptyStack)
                )
            );
        }

        if (_untracked > 0)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.LimitReached,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"more than {Options.MaxDistinctStacks:N0} distinct raw stacks "
                            + $"(StackBucketOptions.MaxDistinctStacks): {_untracked:N0} event(s) of further stacks "
                            + $"were "
                            + $"counted but not bucketed"
                    )
                )
                {
                    Limit = "StackBucketOptions.MaxDistinctStacks",
                    LimitValue = Options.MaxDistinctStacks,
                    EventsLeftOut = _untracked,
                }
            );
        }

        if (_truncatedStacks > 0)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.LimitReached,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{_truncatedStacks:N0} distinct stack(s) had more than {Options.MaxFramesPerStack:N0} "
                            + $"frames and were cut (outermost frames dropped)"
                    )
                )
                {
                    Limit = "StackBucketOptions.MaxFramesPerStack",
                    LimitValue = Options.MaxFramesPerStack,
                }
            );
        }

        if (_outOfRange.Warning("event(s) or histogram slot(s)") is AnalysisWarning outOfRange)
        {
            warnings.Add(outOfRange);
        }

        if (
            _notSummed.Warning("duration or signal_duration value(s) of bucketed events", eventsLeftOut: false)
            is AnalysisWarning notSummed
        )
        {
            warnings.Add(notSummed);
        }

        if (tally.OutOfRange)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.ValueOutOfRange,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the frames counted per event (the histogram slot counts times their frames) pass "
                            + $"{long.MaxValue:N0}; the symbolization's per-event figures show that many"
                    )
                )
            );
        }

        if (_valueHistogramSlots > 0 && merger.Count > 0)
        {
            warnings.Add(
                new AnalysisWarning(
                    AnalysisWarningKind.EventsNotUsed,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{_valueHistograms:N0} histogram(s) on an event field or action ({_valueHistogramSlots:N0} "
                            + $"slots) are not stacks and were not bucketed: see xeanalyze histogram"
                    )
                )
            );
        }

        long slots = _inputs.Sum(i => i.Slots);
        bool mayHaveMerged = _inputs.Any(i => i.MayHaveMergedValues);
        MissingData? missing = merger.Count == 0 ? Missing(slots) : null;
        IReadOnlyList<StackBucket> buckets = merger.Buckets(_eventNames, out long total);

        // The raw stacks and their frame arrays are garbage now, most of it old enough to wait for a full collection:
        // give it back before the caller writes the result or (diff) builds the other side beside it.
        CollectBetweenPhases();
        ResolutionSummary overallSummary = overall.Build();
        FrameStyle resultStyle = _inputs.Count > 0 ? _inputs[0].Session.Resolver.Options.Style : FrameStyle.Engine;
        bool offsets = _inputs.Count == 0 || _inputs[0].Session.Resolver.Options.IncludeOffsets;
        return new StackBucketResult
        {
            MissingData = missing,
            Buckets = buckets,
            EventNames = StackBucketResult.NamesOf(buckets),
            FieldUnits = _fieldUnits.AsReadOnly(),
            TotalBuckets = buckets.Count,
            TotalCount = total,
            OmittedCount = 0,
            EventsRead = _eventsPassed,
            EventsWithStack = _inputs.Sum(i => i.Events),
            EventsWithoutStack = _eventsWithoutStack.Values.Sum() + _eventsWithEmptyStack.Values.Sum(),
            HistogramSlots = slots,
            UntrackedEvents = _untracked,
            DistinctRawStacks = rawTotal,
            GroupedByEvent = Options.GroupByEvent,
            MayHaveMergedHistogramValues = mayHaveMerged,
            Style = resultStyle,
            IncludeOffsets = offsets,
            Inputs = summaries.AsReadOnly(),
            Warnings = warnings.AsReadOnly(),
            Symbolization = tally.Build(overallSummary),
            ValueHistogramSlots = _valueHistogramSlots,
        };
    }

    /// <summary>
    /// For the files of a part of an input with no module list, while other files of the input have one (a rollover set
    /// with a list per file for some files): which files lack one, when their stacks hold raw addresses; else <see
    /// langword="null"/>.
    /// </summary>
    private string? WithoutOwnModuleList(InputState part)
    {
        if (
            part.Session.ModuleMap is not null
            || part.Files.Count == 0
            || !_inputs.Any(p => p.InputNumber == part.InputNumber && p.Session.ModuleMap is not null)
            || !part.Table.HasAddresses
        )
        {
            return null;
        }

        const int shown = 8;
        return "no module list for "
            + string.Join(", ", part.Files.Take(shown).Select(f => f.Name))
            + (
                part.Files.Count > shown
                    ? string.Create(CultureInfo.InvariantCulture, $" and {part.Files.Count - shown} more file(s)")
                    : string.Empty
            )
            + ", so their raw addresses stay unresolved: save the sys.dm_os_loaded_modules output of the process "
            + "lifetime that wrote each file beside it as <file name>"
            + ModuleListSidecar.Suffix;
    }

    /// <summary>
    /// Between phases of a build over very many distinct stacks, returns the garbage of the phase before (the read's
    /// XML and event objects, the parsed and resolved stacks) before the next phase allocates: without it the process
    /// holds both at the peak.
    /// </summary>
    private void CollectBetweenPhases()
    {
        if (_limit.Taken >= LargeTable)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        }
    }

    /// <summary>
    /// The distinct-stack count above which <see cref="CollectBetweenPhases"/> and <see cref="CollectYoung"/> run.
    /// </summary>
    internal const int LargeTable = 100_000;

    /// <summary>Stacks symbolized (or buckets listed) between two <see cref="CollectYoung"/> calls.</summary>
    internal const int CollectEvery = 8192;

    /// <summary>
    /// In a phase over very many distinct stacks, collects the youngest generation (or the two young ones) every
    /// <see cref="CollectEvery"/> stacks: each stack leaves short-lived objects (its parse, resolution, rendered rows),
    /// and on a machine with a large cache the runtime lets a few hundred MB of them pile up before it collects, which
    /// was most of the peak.
    /// </summary>
    internal static void CollectYoung(int distinctStacks, int generation = 0)
    {
        if (distinctStacks >= LargeTable)
        {
            GC.Collect(generation, GCCollectionMode.Forced, blocking: true);
        }
    }

    private MissingData Missing(long slots)
    {
        if (_valueHistogramSlots > 0 && _eventsPassed == 0 && slots == 0)
        {
            return new MissingData(
                MissingDataKind.TargetData,
                ["package0.callstack"],
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"The input holds {_valueHistograms:N0} histogram(s) on an event field or action "
                        + $"({_valueHistogramSlots:N0} slots), not on callstacks, so there are no stacks to bucket. "
                        + $"Show "
                        + $"it with: xeanalyze histogram <input>"
                ),
                "-- to count stacks instead, give a histogram target the callstack as its source:\n"
                    + HistogramTarget("sqlserver.your_event")
            );
        }

        if (_eventsPassed == 0)
        {
            string what =
                slots > 0
                    ? "The histogram slots hold no stack."
                    : "No events were found (or none passed the filter), and no histogram slots.";
            return new MissingData(
                MissingDataKind.Events,
                [Options.StackSource ?? "package0.callstack"],
                what + " Nothing to bucket.",
                MissingData.AlterSession("sqlserver.your_event", ["package0.callstack"], null, dropFirst: false)
                    + "\n"
                    + HistogramHint("sqlserver.your_event"),
                eventsSeen: EventList(_eventsSeen)
            );
        }

        string firstEvent =
            _eventsWithoutStack.Count > 0
                ? _eventsWithoutStack
                    .OrderByDescending(kv => kv.Value)
                    .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                    .First()
                    .Key
                : "sqlserver.your_event";
        string sessionChange =
            MissingData.AlterSession(firstEvent, ["package0.callstack"], null, dropFirst: true)
            + "\n"
            + HistogramHint(firstEvent);
        string read = string.Create(
            CultureInfo.InvariantCulture,
            $"{_eventsPassed:N0} event(s) were read ({Names(_eventsSeen)})"
        );
        if (Options.StackSource is string source)
        {
            string why = _unsupportedStack is not null
                ? read + ", but " + _unsupportedStack + "."
                : read + ", but none has a field or action named " + source + ".";
            return new MissingData(
                MissingDataKind.Field,
                [source],
                why,
                sessionChange,
                _availableColumns,
                EventList(_eventsSeen)
            );
        }

        string message =
            _eventsWithEmptyStack.Count > 0 && _eventsWithoutStack.Count == 0
                ? read + ", but every one's stack (" + _emptyStackColumn + ") is empty."
                : read
                    + ", but none carries a callstack: no package0.callstack or callstack_rva action and no callstack "
                    + "field (use --stack NAME to name another column holding frames).";
        return new MissingData(
            MissingDataKind.Action,
            ["package0.callstack"],
            message,
            sessionChange,
            _availableColumns,
            EventList(_eventsSeen)
        );
    }

    private static string HistogramHint(string eventName) =>
        "-- or count stacks in the server, cheaply and without an event file, with a histogram target on the "
        + "callstack:\n"
        + HistogramTarget(eventName);

    private static string HistogramTarget(string eventName) =>
        "ALTER EVENT SESSION [your_session] ON SERVER ADD TARGET package0.histogram\n"
        + "    (SET filtering_event_name = N'"
        + eventName
        + "', source_type = 1, source = N'package0.callstack', slots = 1024);";

    private static IReadOnlyList<EventNameCount> EventList(Dictionary<string, long> d) => EventNameCount.Sort(d);

    private static string Names(Dictionary<string, long> d) =>
        string.Join(
            ", ",
            EventList(d).Take(20).Select(e => e.Name + " " + e.Count.ToString("N0", CultureInfo.InvariantCulture))
        ) + (d.Count > 20 ? ", …" : string.Empty);
}

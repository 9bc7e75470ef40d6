namespace XeAnalyzer.Capture;

/// <summary>What one input held, as one read of it found it. Immutable once the read has ended.</summary>
public sealed class InputReadSummary
{
    internal InputReadSummary(CaptureInput input)
    {
        Input = input;
    }

    /// <summary>The input.</summary>
    public CaptureInput Input { get; }

    /// <summary>
    /// Every event the input holds, by full name, most frequent first — counted before any filter (the <c>.xel</c> reader counts the
    /// records it skips by name without decoding them).
    /// </summary>
    public IReadOnlyList<EventNameCount> EventsByName { get; internal set; } = [];

    /// <summary>Events that passed the whole filter (names, <c>--where</c>, <c>--from</c>/<c>--to</c>).</summary>
    public long EventsMatched { get; internal set; }

    /// <summary>Events read and decoded (those of the names asked for), before the value and time conditions.</summary>
    public long EventsRead { get; internal set; }

    /// <summary>The earliest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? FirstTimestamp { get; internal set; }

    /// <summary>The latest timestamp of a matched event, or <see langword="null"/>.</summary>
    public DateTime? LastTimestamp { get; internal set; }

    /// <summary>For target data: the target roots read, in input order.</summary>
    public IReadOnlyList<TargetSummary> Targets { get; internal set; } = [];

    /// <summary>For target data: the histogram targets, in input order.</summary>
    public IReadOnlyList<HistogramTarget> Histograms { get; internal set; } = [];

    /// <summary>For target data: the event_counter counts, in input order.</summary>
    public IReadOnlyList<EventCounterValueRead> EventCounters { get; internal set; } = [];

    /// <summary>For target data: events without a parseable timestamp (they sort first).</summary>
    public long EventsWithoutTimestamp { get; internal set; }
}

/// <summary>
/// What one read of a <see cref="CaptureSource"/> found: per input, the events it holds by name (before the filter), how many passed the
/// filter, and its target-level data (histograms, event_counter counts, target flags); and the run's diagnostics. A command reads its
/// inputs once and explains everything from this (what is missing, whether the filter excluded it), never by reading again.
/// </summary>
public sealed class CaptureReadSummary
{
    internal CaptureReadSummary(IReadOnlyList<InputReadSummary> inputs, CaptureDiagnostics diagnostics, EventFilter filter)
    {
        Inputs = inputs;
        Diagnostics = diagnostics;
        Filter = filter;
        var byName = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (InputReadSummary i in inputs)
        {
            foreach (EventNameCount c in i.EventsByName)
            {
                byName[c.Name] = byName.GetValueOrDefault(c.Name) + c.Count;
            }
        }

        EventsByName = EventNameCount.Sort(byName);
        EventsMatched = inputs.Sum(i => i.EventsMatched);
        EventsRead = inputs.Sum(i => i.EventsRead);
        Histograms = [.. inputs.SelectMany(i => i.Histograms)];
        EventCounters = [.. inputs.SelectMany(i => i.EventCounters)];
        Targets = [.. inputs.SelectMany(i => i.Targets)];
    }

    /// <summary>Per input, in the order read.</summary>
    public IReadOnlyList<InputReadSummary> Inputs { get; }

    /// <summary>The filter the events were read through.</summary>
    public EventFilter Filter { get; }

    /// <summary>What was skipped or is doubtful, and whether the result is partial.</summary>
    public CaptureDiagnostics Diagnostics { get; }

    /// <summary>Every event of every input by full name (before the filter), most frequent first (ties by name, ordinal).</summary>
    public IReadOnlyList<EventNameCount> EventsByName { get; }

    /// <summary>Events that passed the whole filter.</summary>
    public long EventsMatched { get; }

    /// <summary>Events read and decoded (of the names asked for), before the value and time conditions.</summary>
    public long EventsRead { get; }

    /// <summary>Every histogram target read.</summary>
    public IReadOnlyList<HistogramTarget> Histograms { get; }

    /// <summary>Every event_counter count read.</summary>
    public IReadOnlyList<EventCounterValueRead> EventCounters { get; }

    /// <summary>Every target root read.</summary>
    public IReadOnlyList<TargetSummary> Targets { get; }

    /// <summary>Whether the read was partial (see <see cref="CaptureDiagnostics.IsPartial"/>).</summary>
    public bool IsPartial => Diagnostics.IsPartial;

    /// <summary>How many events the inputs hold of these names (short <c>event</c> or <c>package.event</c>), before the filter.</summary>
    /// <param name="names">The names.</param>
    /// <returns>The count.</returns>
    public long CountOf(IEnumerable<string> names)
    {
        ArgumentNullException.ThrowIfNull(names);
        string[] wanted = [.. names];
        long n = 0;
        foreach (EventNameCount c in EventsByName)
        {
            foreach (string w in wanted)
            {
                if (EventNameMatches(c.Name, w))
                {
                    n += c.Count;
                    break;
                }
            }
        }

        return n;
    }

    /// <summary>Whether a full name (<c>package.event</c>) matches a name given by a user or an analysis (<c>event</c> or <c>package.event</c>).</summary>
    internal static bool EventNameMatches(string fullName, string name)
    {
        if (name.Contains('.', StringComparison.Ordinal))
        {
            return string.Equals(fullName, name, StringComparison.Ordinal);
        }

        int dot = fullName.IndexOf('.', StringComparison.Ordinal);
        return string.Equals(dot < 0 ? fullName : fullName[(dot + 1)..], name, StringComparison.Ordinal);
    }
}

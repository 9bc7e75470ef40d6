using System.Globalization;
using System.Text;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;

namespace XeAnalyzer.Analysis;

/// <summary>
/// Turns an analysis's <see cref="MissingData"/> into the message a user reads, from one read of the inputs (never a
/// second one): when the user's own filter (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>) left the events
/// out, it says so and gives no session advice; otherwise it lists the events the inputs hold instead and the session
/// change that adds what is missing; and when the read was partial it says that what is missing may be in the part that
/// could not be read.
/// </summary>
internal static class MissingDataExplainer
{
    /// <summary>Explains missing data.</summary>
    /// <param name="missing">What the analysis lacks.</param>
    /// <param name="read">What the read found.</param>
    /// <param name="analysisEvents">The events the analysis reads (short or full names), or <see langword="null"/> when
    /// it reads any event.</param>
    /// <returns>Text of one or more lines separated by <c>\n</c>.</returns>
    public static string Explain(MissingData missing, CaptureSummary read, IReadOnlyCollection<string>? analysisEvents)
    {
        ArgumentNullException.ThrowIfNull(missing);
        ArgumentNullException.ThrowIfNull(read);
        IReadOnlyList<EventNameCount>? found = missing.Kind == MissingDataKind.Events ? read.EventsByName : null;
        string text = FilterReason(missing, read, analysisEvents) ?? missing.Describe(found, TargetDataInstead(read));
        if (read.IsPartial)
        {
            text +=
                "\nThe input could be read only in part: what is reported missing may be in the part that could not "
                + "be read.";
        }

        return text;
    }

    /// <summary>
    /// What an input without events holds instead, when it is target data: its histograms (on callstacks, for
    /// <c>stacks</c>; on a field or action, for <c>histogram</c>) and event_counter counts; <see langword="null"/>
    /// when it holds none.
    /// </summary>
    private static string? TargetDataInstead(CaptureSummary read)
    {
        if (read.Histograms.Count == 0 && read.EventCounters.Count == 0)
        {
            return null;
        }

        IFormatProvider ic = CultureInfo.InvariantCulture;
        int stacks = read.Histograms.Count(h => h.SourceKind == HistogramSourceKind.Callstack);
        int fields = read.Histograms.Count - stacks;
        var parts = new List<string>();
        if (stacks > 0)
        {
            parts.Add(string.Create(ic, $"{stacks:N0} histogram(s) on callstacks (bucket them with xeanalyze stacks)"));
        }

        if (fields > 0)
        {
            parts.Add(
                string.Create(ic, $"{fields:N0} histogram(s) on a field or action (show them with xeanalyze histogram)")
            );
        }

        if (read.EventCounters.Count > 0)
        {
            parts.Add(
                string.Create(ic, $"{read.EventCounters.Count:N0} event_counter count(s) (xeanalyze info shows them)")
            );
        }

        return "The input holds target data, not events: " + string.Join("; ", parts) + ".";
    }

    /// <summary>
    /// Why a read through a filter kept no event, for a command without an analysis (<c>events</c>, <c>slice</c>,
    /// <c>export</c>) in the words the analyses use: which filter, and how many events it saw; <see langword="null"/>
    /// when the read kept events or had no filter.
    /// </summary>
    /// <param name="read">What the read found.</param>
    /// <returns>Text of one or more lines separated by <c>\n</c>, or <see langword="null"/>.</returns>
    public static string? ExplainNoMatch(CaptureSummary read)
    {
        ArgumentNullException.ThrowIfNull(read);
        if (read.Filter.IsEmpty || read.EventsMatched > 0)
        {
            return null;
        }

        string text =
            read.EventsByName.Count == 0
                ? "the input holds no events at all, so the filter (" + read.Filter + ") had none to select."
                : NoMatch(read, "events");
        return read.IsPartial
            ? text
                + "\nThe input could be read only in part: the events you asked for may be in the part that could "
                + "not be read."
            : text;
    }

    /// <summary>
    /// The filter that kept no event and what it saw: the events of its names the input holds (none: the names it holds
    /// instead), or the events read, their time range, and whether <c>--from</c>/<c>--to</c> lie outside it.
    /// </summary>
    private static string NoMatch(CaptureSummary read, string what)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        EventFilter filter = read.Filter;
        if (filter.EventNames.Count > 0 && read.EventsRead == 0)
        {
            long total = read.EventsByName.Sum(e => e.Count);
            string names = string.Join(", ", filter.EventNames);
            string held = string.Join(
                ", ",
                read.EventsByName.Take(10).Select(e => e.Name + " (" + e.Count.ToString("N0", ic) + ")")
            );
            string more =
                read.EventsByName.Count > 10
                    ? string.Create(ic, $", … ({read.EventsByName.Count - 10} more names)")
                    : string.Empty;
            return string.Create(
                    ic,
                    $"the filter --event {names} selects none of the {total:N0} events the input holds; "
                )
                + "it holds "
                + held
                + more
                + ".";
        }

        var sb = new StringBuilder();
        sb.Append(string.Create(ic, $"none of the {read.EventsRead:N0} {what} read matched the filter ({filter})"));
        if (read.ReadRange.First is DateTime first && read.ReadRange.Last is DateTime last)
        {
            sb.Append("; they run from ")
                .Append(Timestamps.IsoUtc(first))
                .Append(" to ")
                .Append(Timestamps.IsoUtc(last));
            if ((filter.From is DateTime f && f > last) || (filter.To is DateTime t && t <= first))
            {
                sb.Append(", outside --from/--to");
            }
        }

        return sb.Append('.').ToString();
    }

    /// <summary>Why the user's filter, and not the capture, is the reason, or <see langword="null"/> when it is
    /// not.</summary>
    private static string? FilterReason(
        MissingData missing,
        CaptureSummary read,
        IReadOnlyCollection<string>? analysisEvents
    )
    {
        EventFilter filter = read.Filter;
        if (filter.IsEmpty || missing.Kind != MissingDataKind.Events)
        {
            return null;
        }

        IFormatProvider ic = CultureInfo.InvariantCulture;
        // "events" is said once: "the 553 events", "the 553 wait_info/wait_completed events".
        string names = analysisEvents is { Count: > 0 } ? string.Join("/", analysisEvents) : string.Empty;
        string what = names.Length > 0 ? names + " events" : "events";

        // --event names events this analysis does not read.
        if (
            filter.EventNames.Count > 0
            && analysisEvents is { Count: > 0 }
            && !analysisEvents.Any(a => filter.EventNames.Any(f => SameEvent(a, f)))
        )
        {
            long present = read.CountOf(analysisEvents);
            var sb = new StringBuilder();
            sb.Append("the filter --event ")
                .Append(string.Join(", ", filter.EventNames))
                .Append(" leaves out the events this analysis reads (")
                .Append(names)
                .Append(')');
            sb.Append(
                present > 0
                    ? string.Create(ic, $"; the input holds {present:N0} of them.")
                    : "; the input holds none of them either."
            );
            if (present == 0)
            {
                sb.Append('\n').Append(missing.Describe(read.EventsByName));
            }

            return sb.ToString();
        }

        // The input holds events the analysis could read, but the filter kept none of them.
        long candidates = analysisEvents is { Count: > 0 }
            ? read.CountOf(analysisEvents)
            : read.EventsByName.Sum(e => e.Count);
        if (candidates > 0 && read.EventsMatched == 0)
        {
            return NoMatch(read, what) + " Nothing to analyse.";
        }

        if (candidates > 0 && filter.HasValueConditions)
        {
            return string.Create(ic, $"the filter ({filter}) kept {read.EventsMatched:N0} event(s), ")
                + string.Create(ic, $"but none of the {what} this analysis reads; ")
                + string.Create(ic, $"the input holds {candidates:N0} of those before the filter.");
        }

        return null;
    }

    private static bool SameEvent(string analysisName, string filterName)
    {
        string a = analysisName.Contains('.', StringComparison.Ordinal)
            ? analysisName[(analysisName.IndexOf('.', StringComparison.Ordinal) + 1)..]
            : analysisName;
        string f = filterName.Contains('.', StringComparison.Ordinal)
            ? filterName[(filterName.IndexOf('.', StringComparison.Ordinal) + 1)..]
            : filterName;
        return string.Equals(a, f, StringComparison.Ordinal);
    }
}

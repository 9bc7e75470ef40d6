using System.Globalization;
using System.Text;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Analysis;

/// <summary>
/// Turns an analysis's <see cref="MissingData"/> into the message a user reads, from one read of the inputs (never a second one): when
/// the user's own filter (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>) left the events out, it says so and gives no session
/// advice; otherwise it lists the events the inputs hold instead and the session change that adds what is missing; and when the read was
/// partial it says that what is missing may be in the part that could not be read.
/// </summary>
internal static class MissingDataExplainer
{
    /// <summary>Explains missing data.</summary>
    /// <param name="missing">What the analysis lacks.</param>
    /// <param name="read">What the read found.</param>
    /// <param name="analysisEvents">The events the analysis reads (short or full names), or <see langword="null"/> when it reads any event.</param>
    /// <returns>Text of one or more lines separated by <c>\n</c>.</returns>
    public static string Explain(MissingData missing, CaptureSummary read, IReadOnlyCollection<string>? analysisEvents)
    {
        ArgumentNullException.ThrowIfNull(missing);
        ArgumentNullException.ThrowIfNull(read);
        string text = FilterReason(missing, read, analysisEvents) ?? missing.Describe(missing.Kind == MissingDataKind.Events ? read.EventsByName : null);
        if (read.IsPartial)
        {
            text += "\nThe input could be read only in part: what is reported missing may be in the part that could not be read.";
        }

        return text;
    }

    /// <summary>Why the user's filter, and not the capture, is the reason, or <see langword="null"/> when it is not.</summary>
    private static string? FilterReason(MissingData missing, CaptureSummary read, IReadOnlyCollection<string>? analysisEvents)
    {
        EventFilter filter = read.Filter;
        if (filter.IsEmpty || missing.Kind != MissingDataKind.Events)
        {
            return null;
        }

        IFormatProvider ic = CultureInfo.InvariantCulture;
        string what = analysisEvents is { Count: > 0 } ? string.Join("/", analysisEvents) : "events";

        // --event names events this analysis does not read.
        if (filter.EventNames.Count > 0 && analysisEvents is { Count: > 0 }
            && !analysisEvents.Any(a => filter.EventNames.Any(f => SameEvent(a, f))))
        {
            long present = read.CountOf(analysisEvents);
            var sb = new StringBuilder();
            sb.Append("the filter --event ").Append(string.Join(", ", filter.EventNames)).Append(" leaves out the events this analysis reads (").Append(what).Append(')');
            sb.Append(present > 0 ? string.Create(ic, $"; the input holds {present:N0} of them.") : "; the input holds none of them either.");
            if (present == 0)
            {
                sb.Append('\n').Append(missing.Describe(read.EventsByName));
            }

            return sb.ToString();
        }

        // Events of the right names were read, but none passed the value or time conditions.
        long candidates = analysisEvents is { Count: > 0 } ? read.CountOf(analysisEvents) : read.EventsRead;
        if (candidates > 0 && read.EventsMatched == 0)
        {
            return string.Create(ic, $"none of the {candidates:N0} {what} events read matched the filter ({filter}); nothing to analyse.");
        }

        if (candidates > 0 && filter.HasValueConditions)
        {
            return string.Create(ic, $"the filter ({filter}) kept {read.EventsMatched:N0} event(s), but none of the {what} events this analysis reads; the input holds {candidates:N0} of those before the filter.");
        }

        return null;
    }

    private static bool SameEvent(string analysisName, string filterName)
    {
        string a = analysisName.Contains('.', StringComparison.Ordinal) ? analysisName[(analysisName.IndexOf('.', StringComparison.Ordinal) + 1)..] : analysisName;
        string f = filterName.Contains('.', StringComparison.Ordinal) ? filterName[(filterName.IndexOf('.', StringComparison.Ordinal) + 1)..] : filterName;
        return string.Equals(a, f, StringComparison.Ordinal);
    }
}

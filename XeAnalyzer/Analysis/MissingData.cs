using System.Globalization;
using System.Text;
using XeAnalyzer.Capture;

namespace XeAnalyzer.Analysis;

/// <summary>What kind of thing a capture lacks.</summary>
public enum MissingDataKind
{
    /// <summary>The events the analysis reads are absent (or none passed the filter).</summary>
    Events,

    /// <summary>The events are there, but without an action the analysis needs (for example
    /// <c>sqlos.scheduler_id</c>).</summary>
    Action,

    /// <summary>The events are there, but without a field the analysis needs (for example the page-count
    /// field).</summary>
    Field,

    /// <summary>The target data the analysis reads is absent or of another kind (a histogram on callstacks where one on
    /// a field is needed, or the reverse).</summary>
    TargetData,
}

/// <summary>
/// Why an analysis cannot give a result: the capture lacks events, an action or a field, with the session change
/// (T-SQL) that adds it. An analysis returns this instead of an empty result that would look like success. Immutable.
/// </summary>
public sealed class MissingData
{
    /// <summary>Creates the description.</summary>
    /// <param name="kind">What is missing.</param>
    /// <param name="missing">The names of what is missing (events, actions or fields).</param>
    /// <param name="message">One or two sentences saying what was looked for and what was found.</param>
    /// <param name="sessionChange">T-SQL that adds what is missing to an event session; empty when the input holds
    /// what is needed for another command, which <paramref name="message"/> names.</param>
    /// <param name="availableFields">For a missing field: the fields the event does have.</param>
    /// <param name="eventsSeen">Events the analysis saw (by name), if any.</param>
    public MissingData(
        MissingDataKind kind,
        IEnumerable<string> missing,
        string message,
        string sessionChange,
        IEnumerable<string>? availableFields = null,
        IEnumerable<EventNameCount>? eventsSeen = null
    )
    {
        ArgumentNullException.ThrowIfNull(missing);
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(sessionChange);
        Kind = kind;
        Missing = Array.AsReadOnly(missing.ToArray());
        Message = message;
        SessionChange = sessionChange;
        AvailableFields = Array.AsReadOnly(availableFields?.ToArray() ?? []);
        EventsSeen = Array.AsReadOnly(eventsSeen?.ToArray() ?? []);
    }

    /// <summary>What is missing.</summary>
    public MissingDataKind Kind { get; }

    /// <summary>The names of the missing events, actions or fields (for example <c>sqlos.scheduler_id</c>).</summary>
    public IReadOnlyList<string> Missing { get; }

    /// <summary>What was looked for and what was found.</summary>
    public string Message { get; }

    /// <summary>The T-SQL that adds what is missing (<c>ALTER EVENT SESSION …</c>); the session name is a
    /// placeholder.</summary>
    public string SessionChange { get; }

    /// <summary>For a missing field: the fields the event has.</summary>
    public IReadOnlyList<string> AvailableFields { get; }

    /// <summary>Events the analysis saw, by name (empty when none, or when the reader was told to read only the needed
    /// events).</summary>
    public IReadOnlyList<EventNameCount> EventsSeen { get; }

    /// <summary>The full explanation: the message, the events found, and the session change.</summary>
    /// <param name="eventsFound">Events found in the input (for example <see cref="CaptureSummary.EventsByName"/>);
    /// <see langword="null"/> uses <see cref="EventsSeen"/>.</param>
    /// <returns>Multi-line text with <c>\n</c> line breaks.</returns>
    public string Describe(IReadOnlyList<EventNameCount>? eventsFound = null) => Describe(eventsFound, null);

    /// <summary>
    /// As <see cref="Describe(IReadOnlyList{EventNameCount})"/>, saying <paramref name="noEvents"/> when no event was
    /// found.
    /// </summary>
    internal string Describe(IReadOnlyList<EventNameCount>? eventsFound, string? noEvents)
    {
        var sb = new StringBuilder();
        sb.Append(Message).Append('\n');
        IReadOnlyList<EventNameCount> found = eventsFound ?? EventsSeen;
        if (Kind == MissingDataKind.Events)
        {
            if (found.Count == 0)
            {
                sb.Append(noEvents ?? "The input holds no events at all.").Append('\n');
            }
            else
            {
                sb.Append("Events found instead: ");
                sb.Append(
                    string.Join(
                        ", ",
                        found
                            .Take(20)
                            .Select(f => f.Name + " (" + f.Count.ToString("N0", CultureInfo.InvariantCulture) + ")")
                    )
                );
                if (found.Count > 20)
                {
                    sb.Append(", … (")
                        .Append((found.Count - 20).ToString(CultureInfo.InvariantCulture))
                        .Append(" more)");
                }

                sb.Append('\n');
            }
        }

        // An empty session change: the input holds what is needed, for another command (the message names it).
        if (SessionChange.Length > 0)
        {
            sb.Append("Change the event session and capture again:\n");
            foreach (string line in SessionChange.Split('\n'))
            {
                sb.Append("  ").Append(line).Append('\n');
            }
        }

        return sb.ToString().TrimEnd('\n');
    }

    /// <inheritdoc/>
    public override string ToString() => Message;

    /// <summary>Builds <c>ALTER EVENT SESSION</c> text that (re)adds an event with actions.</summary>
    /// <param name="eventName">The full event name (<c>sqlserver.latch_acquired</c>).</param>
    /// <param name="actions">The actions to collect.</param>
    /// <param name="predicate">A predicate to show (or <see langword="null"/>).</param>
    /// <param name="dropFirst">Whether the event is already in the session (then it is dropped first).</param>
    /// <returns>The T-SQL.</returns>
    internal static string AlterSession(
        string eventName,
        IEnumerable<string> actions,
        string? predicate,
        bool dropFirst
    )
    {
        var sb = new StringBuilder();
        if (dropFirst)
        {
            sb.Append("ALTER EVENT SESSION [your_session] ON SERVER DROP EVENT ").Append(eventName).Append(";\n");
        }

        sb.Append("ALTER EVENT SESSION [your_session] ON SERVER ADD EVENT ").Append(eventName).Append('\n');
        sb.Append("    (ACTION (").Append(string.Join(", ", actions.Distinct(StringComparer.Ordinal))).Append(')');
        if (predicate is not null)
        {
            sb.Append('\n').Append("     WHERE ").Append(predicate);
        }

        sb.Append(");");
        if (predicate is not null)
        {
            sb.Append("  -- keep your own predicate");
        }

        return sb.ToString();
    }
}

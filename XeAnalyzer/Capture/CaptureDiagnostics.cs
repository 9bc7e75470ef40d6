using System.Globalization;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>
/// The one place a run collects what it could not do perfectly: what the <c>.xel</c> reader skipped (damaged buffers,
/// an incomplete final buffer, undecodable events: these make the result partial), warnings about target data
/// (truncated targets, histograms whose slots may hold merged values, events without timestamps), and warnings the
/// analyses and the resolver add (events later than the reorder window, PDBs matched by name only, stacks over a
/// limit). Commands print <see cref="Warnings"/> once, in order.
/// </summary>
/// <remarks>Thread-safe.</remarks>
public sealed class CaptureDiagnostics
{
    /// <summary>The most warnings kept as text; further ones are only counted.</summary>
    public const int MaxWarnings = 1000;

    private readonly object _gate = new();
    private readonly List<string> _warnings = [];
    private readonly HashSet<string> _seen = new(StringComparer.Ordinal);
    private long _otherWarnings;
    private long _partialEvents;

    /// <summary>The <c>.xel</c> reader's own counters and warnings (pass it as
    /// <see cref="XelReadOptions.Diagnostics"/>).</summary>
    internal XelDiagnostics Reader { get; } = new();

    /// <summary>
    /// Whether the result is partial: the reader skipped damaged buffers, met an incomplete final buffer or could not
    /// decode events, or an analysis counted events it could not use (<see cref="AddPartial"/>).
    /// </summary>
    public bool IsPartial => Reader.IsPartial || Interlocked.Read(ref _partialEvents) > 0;

    /// <summary>Events an analysis had to leave out (for example beyond a distinct-stack limit), from
    /// <see cref="AddPartial"/>.</summary>
    public long EventsLeftOut => Interlocked.Read(ref _partialEvents);

    /// <summary>Every warning as one line of text: the reader's (file, byte offset, message) first, then the others in
    /// the order given.</summary>
    public IReadOnlyList<string> Warnings
    {
        get
        {
            var all = new List<string>();
            foreach (XelWarning w in Reader.Warnings)
            {
                all.Add(w.ToString());
            }

            lock (_gate)
            {
                all.AddRange(_warnings);
            }

            return all.AsReadOnly();
        }
    }

    /// <summary>How many warnings were given in all, including those not kept as text.</summary>
    public long WarningCount
    {
        get
        {
            lock (_gate)
            {
                return Reader.WarningCount + _warnings.Count + _otherWarnings;
            }
        }
    }

    /// <summary>One line saying what made the result partial, or <see langword="null"/> when it is complete.</summary>
    public string? PartialSummary
    {
        get
        {
            if (!IsPartial)
            {
                return null;
            }

            var parts = new List<string>();
            if (Reader.IsPartial)
            {
                parts.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{Reader.SkippedBuffers} damaged buffer(s) skipped, {Reader.IncompleteBuffers} incomplete "
                            + $"final buffer(s), {Reader.UndecodableEvents} undecodable event(s)"
                    )
                );
            }

            if (EventsLeftOut > 0)
            {
                parts.Add(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{EventsLeftOut:N0} event(s) counted but left out of the analysis (see the warnings)"
                    )
                );
            }

            return "partial result: " + string.Join("; ", parts);
        }
    }

    /// <summary>Adds a warning (a repeated identical text is kept once).</summary>
    /// <param name="message">One line, naming the input it concerns.</param>
    internal void Warn(string message)
    {
        ArgumentException.ThrowIfNullOrEmpty(message);
        lock (_gate)
        {
            if (_seen.Contains(message))
            {
                return;
            }

            if (_warnings.Count < MaxWarnings)
            {
                _warnings.Add(message);
                _seen.Add(message);
            }
            else
            {
                _otherWarnings++;
            }
        }
    }

    /// <summary>Records that an analysis counted events it could not use, with a warning saying why; the result becomes
    /// partial.</summary>
    /// <param name="events">How many events were left out (at least 1).</param>
    /// <param name="message">Why, naming the limit that was reached.</param>
    internal void AddPartial(long events, string message)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(events, 1);
        Interlocked.Add(ref _partialEvents, events);
        Warn(message);
    }
}

namespace XeAnalyzer.Capture;

/// <summary>An event name and how many events of it were found.</summary>
/// <param name="Name">The full name (<c>package.event</c>).</param>
/// <param name="Count">Number of events.</param>
public sealed record EventNameCount(string Name, long Count)
{
    /// <summary>Counts as a list, most frequent first (ties by name, ordinal); zero counts are left out.</summary>
    /// <param name="counts">Counts by full name.</param>
    /// <returns>The list.</returns>
    public static IReadOnlyList<EventNameCount> Sort(IEnumerable<KeyValuePair<string, long>> counts)
    {
        ArgumentNullException.ThrowIfNull(counts);
        return
        [
            .. counts
                .Where(kv => kv.Value > 0)
                .OrderByDescending(kv => kv.Value)
                .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Select(kv => new EventNameCount(kv.Key, kv.Value)),
        ];
    }
}

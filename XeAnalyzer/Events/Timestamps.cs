using System.Globalization;

namespace XeAnalyzer.Events;

/// <summary>How an event time is written as text wherever it must round-trip (filters echoed back, CSV and JSON
/// cells).</summary>
internal static class Timestamps
{
    /// <summary>ISO-8601 UTC with 7 fractional digits and a Z suffix (<c>2024-05-01T10:00:00.0000000Z</c>),
    /// culture-invariant.</summary>
    /// <param name="utc">A UTC time.</param>
    /// <returns>The text.</returns>
    public static string IsoUtc(DateTime utc) =>
        utc.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture);
}

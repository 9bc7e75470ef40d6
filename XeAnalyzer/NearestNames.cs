namespace XeAnalyzer;

/// <summary>
/// The one "did you mean" rule of XeAnalyzer, for option and command names on the command line and for the event,
/// field and action names of a filter: the valid names nearest to a word by the fewest single-character edits
/// (insertions, deletions, substitutions, swaps of neighbours), ignoring case; on a tie, the one sharing the longest
/// prefix, then the first in order.
/// </summary>
internal static class NearestNames
{
    /// <summary>The valid names nearest to <paramref name="word"/>, nearest first.</summary>
    /// <param name="word">The word as given.</param>
    /// <param name="names">The valid names (duplicates are listed once).</param>
    /// <param name="count">The most names to return.</param>
    /// <returns>At most <paramref name="count"/> names; empty when <paramref name="names"/> is.</returns>
    public static IReadOnlyList<string> Find(string word, IEnumerable<string> names, int count = 1)
    {
        ArgumentNullException.ThrowIfNull(word);
        ArgumentNullException.ThrowIfNull(names);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(count);
        return
        [
            .. names
                .Distinct(StringComparer.Ordinal)
                .Select((n, i) => (Name: n, Distance: Distance(word, n), Prefix: CommonPrefix(word, n), Index: i))
                .OrderBy(c => c.Distance)
                .ThenByDescending(c => c.Prefix)
                .ThenBy(c => c.Index)
                .Take(count)
                .Select(c => c.Name),
        ];
    }

    private static int CommonPrefix(string a, string b)
    {
        int n = 0;
        while (n < a.Length && n < b.Length && char.ToLowerInvariant(a[n]) == char.ToLowerInvariant(b[n]))
        {
            n++;
        }

        return n;
    }

    /// <summary>
    /// The optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring), ignoring
    /// case.
    /// </summary>
    private static int Distance(string a, string b)
    {
        a = a.ToLowerInvariant();
        b = b.ToLowerInvariant();
        int w = b.Length + 1;
        int[] d = new int[(a.Length + 1) * w];
        for (int i = 0; i <= a.Length; i++)
        {
            d[i * w] = i;
        }

        for (int j = 0; j <= b.Length; j++)
        {
            d[j] = j;
        }

        for (int i = 1; i <= a.Length; i++)
        {
            for (int j = 1; j <= b.Length; j++)
            {
                int cost = a[i - 1] == b[j - 1] ? 0 : 1;
                int best = Math.Min(
                    Math.Min(d[((i - 1) * w) + j] + 1, d[(i * w) + j - 1] + 1),
                    d[((i - 1) * w) + j - 1] + cost
                );
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                {
                    best = Math.Min(best, d[((i - 2) * w) + j - 2] + 1);
                }

                d[(i * w) + j] = best;
            }
        }

        return d[(a.Length * w) + b.Length];
    }
}

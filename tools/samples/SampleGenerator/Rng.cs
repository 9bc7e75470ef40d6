namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// A seeded SplitMix64 generator. Integer arithmetic only (no floating point, no libm), so the same seed gives the same
/// numbers on every platform and runtime version: the samples must reproduce byte for byte.
/// </summary>
internal sealed class Rng(ulong seed)
{
    private ulong _state = seed;

    /// <summary>The next 64 random bits.</summary>
    public ulong NextUInt64()
    {
        unchecked
        {
            ulong z = _state += 0x9E3779B97F4A7C15UL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
    }

    /// <summary>A number in [<paramref name="min"/>, <paramref name="maxExclusive"/>).</summary>
    public long Next(long min, long maxExclusive)
    {
        if (maxExclusive <= min)
        {
            throw new ArgumentOutOfRangeException(nameof(maxExclusive), maxExclusive, "Empty range.");
        }

        return min + (long)(NextUInt64() % (ulong)(maxExclusive - min));
    }

    /// <summary>An index in [0, <paramref name="count"/>).</summary>
    public int NextIndex(int count) => (int)Next(0, count);

    /// <summary>True with probability <paramref name="perMille"/>/1000.</summary>
    public bool Chance(int perMille) => Next(0, 1000) < perMille;

    /// <summary>An index chosen with the given integer weights.</summary>
    public int Pick(IReadOnlyList<int> weights)
    {
        int total = 0;
        foreach (int w in weights)
        {
            total += w;
        }

        long r = Next(0, total);
        for (int i = 0; i < weights.Count; i++)
        {
            r -= weights[i];
            if (r < 0)
            {
                return i;
            }
        }

        return weights.Count - 1;
    }
}

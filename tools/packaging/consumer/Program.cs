using XeAnalyzer.Events;
using XeAnalyzer.Xel;

// Proof that other tools can import the packed library: read a capture and tally events per scheduler.
if (args.Length != 1)
{
    Console.Error.WriteLine("usage: Consumer <capture>");
    return 2;
}

var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
foreach (CaptureSet set in CaptureSet.Expand([args[0]]))
{
    foreach (XEvent e in XelReader.ReadEvents(set, new XelReadOptions(), CancellationToken.None))
    {
        string key = e.FullName;
        counts[key] = counts.TryGetValue(key, out int n) ? n + 1 : 1;
    }
}

foreach (KeyValuePair<string, int> kv in counts)
{
    Console.WriteLine(FormattableString.Invariant($"{kv.Key}\t{kv.Value}"));
}

return counts.Count > 0 ? 0 : 1;

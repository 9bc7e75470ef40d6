using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

// Proof that other tools can import the packed library (the same code is the README's library example):
// latch acquires per scheduler, and the top stack buckets resolved offline against a local symbol folder.
if (args.Length != 2)
{
    Console.Error.WriteLine("usage: Consumer <capture> <symbol folder>");
    return 2;
}

string capture = args[0],
    symbols = args[1];

CaptureSource source = CaptureSource.Open([capture]);
LatchAnalysisResult latches = new LatchAnalysis().Analyze(source).Result;
foreach (GroupTally s in latches.Schedulers)
{
    Console.WriteLine(
        FormattableString.Invariant(
            $"scheduler {s.Key}\t{s.Count}\t{s.DeviationFromPeerMean:P1}{(s.IsOutlier ? "\toutlier" : "")}"
        )
    );
}

using var resolver = new CallstackResolver(
    new CallstackResolverOptions
    {
        SymbolPath = XeAnalyzer.Symbols.Store.SymbolPath.Parse(symbols),
        Offline = true,
        Binaries = ModuleBinaries.Scan([symbols]),
    }
);
StackBucketResult stacks = new StackBucketAnalysis().Analyze(source, new AnalysisContext(resolver: resolver)).Result;
foreach (StackBucket b in stacks.Buckets.Take(3))
{
    Console.WriteLine(FormattableString.Invariant($"bucket {b.Rank}\t{b.Count}\t{b.Frames[0]}\t{b.Frames[4]}"));
}

return latches.IsComplete && stacks.Buckets.Count > 0 ? 0 : 1;

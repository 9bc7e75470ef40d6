using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Tests.Sql;

/// <summary>
/// The figures the shipped SQL queries must reproduce, computed by the in-process analyses through their public APIs.
/// This is the only place the SQL tests call the analyses: when their APIs change, adapt these methods (they return
/// plain records, so the tests need not change).
/// </summary>
internal static class InProcessFigures
{
    /// <summary>latch_acquired per scheduler of one capture (<c>xeanalyze latches</c>).</summary>
    public static IReadOnlyList<SchedulerFigures> Latches(string capture)
    {
        LatchAnalysisResult r = new LatchAnalysis().Analyze(CaptureSource.Open([capture])).Result;
        return
        [
            .. r.Schedulers.Select(s => new SchedulerFigures(
                long.Parse(s.Key, CultureInfo.InvariantCulture),
                s.Count,
                s.Share,
                s.DeviationFromPeerMean,
                s.DeviationFromMean,
                s.DeviationFromMedian,
                s.IsOutlier
            )),
        ];
    }

    /// <summary>The running total after every page event of one capture, in the analysis's order (<c>xeanalyze memory
    /// --series</c>).</summary>
    public static IReadOnlyList<MemoryStep> MemorySeries(string capture)
    {
        var steps = new List<MemoryStep>();
        new MemoryAnalysis().Analyze(
            CaptureSource.Open([capture]).ReadEvents(),
            p =>
                steps.Add(
                    new MemoryStep(
                        p.Time,
                        p.EventSequence,
                        p.IsAllocation ? p.Pages : -p.Pages,
                        p.SessionId,
                        p.Total,
                        p.SessionId is null ? null : p.SessionTotal
                    )
                )
        );
        return steps;
    }

    /// <summary>Overall and per-session totals and peaks of one capture (<c>xeanalyze memory</c>); the overall row has
    /// a null session.</summary>
    public static IReadOnlyList<MemoryPeak> MemoryPeaks(string capture)
    {
        MemoryAnalysisResult r = new MemoryAnalysis().Analyze(CaptureSource.Open([capture])).Result;
        var rows = new List<MemoryPeak>
        {
            new(
                null,
                r.AllocationEvents,
                r.FreeEvents,
                r.PagesAllocated,
                r.PagesFreed,
                r.FinalPages,
                r.PeakPages,
                r.PeakTime
            ),
        };
        rows.AddRange(
            r.Sessions.Select(s => new MemoryPeak(
                long.Parse(s.Key, CultureInfo.InvariantCulture),
                s.AllocationEvents,
                s.FreeEvents,
                s.PagesAllocated,
                s.PagesFreed,
                s.FinalPages,
                s.PeakPages,
                s.PeakTime
            ))
        );
        return rows;
    }

    /// <summary>Waits per wait type of the captures together (<c>xeanalyze waits A B …</c>).</summary>
    public static IReadOnlyList<WaitFigures> Waits(params string[] captures)
    {
        WaitAnalysisResult r = new WaitAnalysis().Analyze(CaptureSource.Open(captures)).Result;
        return
        [
            .. r.ByWaitType.Select(w => new WaitFigures(
                w.WaitType,
                w.Waits,
                w.Begins,
                w.TotalDurationMs,
                w.MeanDurationMs,
                w.MaxDurationMs,
                w.TotalSignalDurationMs,
                w.ShareOfDuration
            )),
        ];
    }

    /// <summary>Stack buckets of the captures, resolved offline against the committed symbol store (<c>xeanalyze
    /// stacks</c>).</summary>
    public static IReadOnlyList<BucketFigures> StackBuckets(params string[] captures)
    {
        using var resolver = new CallstackResolver(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(TestPaths.SymbolsCache),
                Offline = true,
                Binaries = ModuleBinaries.Scan([TestPaths.SymbolsCache]),
            }
        );
        StackBucketResult r = new StackBucketAnalysis()
            .Analyze(CaptureSource.Open(captures), new AnalysisContext(resolver: resolver))
            .Result;
        Assert.That(r.OmittedBuckets, Is.Zero, "every bucket is compared");
        return
        [
            .. r.Buckets.Select(b => new BucketFigures(
                b.EventName ?? string.Join(",", b.EventNames),
                [.. b.Frames],
                b.Count,
                b.Share
            )),
        ];
    }
}

/// <summary>One scheduler's tally.</summary>
internal sealed record SchedulerFigures(
    long SchedulerId,
    long Acquires,
    double Share,
    double DeviationFromPeerMean,
    double DeviationFromMean,
    double DeviationFromMedian,
    bool IsOutlier
);

/// <summary>One step of the running total: the event's time and sequence, signed pages, session, totals after
/// it.</summary>
internal sealed record MemoryStep(
    DateTime Time,
    ulong? EventSequence,
    long DeltaPages,
    long? SessionId,
    long TotalPages,
    long? SessionPages
);

/// <summary>Totals and peak of a capture (Session null) or of one session.</summary>
internal sealed record MemoryPeak(
    long? Session,
    long AllocationEvents,
    long FreeEvents,
    long PagesAllocated,
    long PagesFreed,
    long FinalPages,
    long PeakPages,
    DateTime? PeakTime
);

/// <summary>One wait type's figures (signal duration null when no wait of the type has the field).</summary>
internal sealed record WaitFigures(
    string WaitType,
    long Waits,
    long Begins,
    long TotalDurationMs,
    double MeanDurationMs,
    long MaxDurationMs,
    long? TotalSignalDurationMs,
    double ShareOfDuration
);

/// <summary>One stack bucket: event, frames (leaf first), events, share.</summary>
internal sealed record BucketFigures(string EventName, string[] Frames, long Events, double Share);

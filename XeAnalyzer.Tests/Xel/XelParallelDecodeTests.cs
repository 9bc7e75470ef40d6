using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.IO;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Xel;

/// <summary>
/// Buffers decoded ahead on several threads give exactly what a read on one thread gives: the same events in the same
/// order, the same warnings, counts and exceptions on damaged and truncated files; and the pooled push path hands out
/// transient events whose
/// <see cref="XEvent.Detach"/> copies keep their values.
/// </summary>
public sealed class XelParallelDecodeTests
{
    private const int Events = 3000;

    private static readonly Lazy<byte[]> s_capture = new(Build);

    /// <summary>A capture of many small buffers (1 KiB, three per-CPU slots, so records are out of time order), two
    /// event types, varying actions.</summary>
    private static byte[] Build()
    {
        XeSchema s = XelFixtures.AllTypesSchema(out XeEventType t, out XeEventType dup, out XeColumn[] a);
        using var ms = new MemoryStream();
        using (
            var w = new XelWriter(
                ms,
                s,
                new XelWriterOptions
                {
                    StartTimeUtc = XelFixtures.Start.AddMinutes(-1),
                    BufferSize = 1024,
                    Partitions = 3,
                },
                leaveOpen: true
            )
        )
        {
            for (int i = 0; i < Events; i++)
            {
                XeValue[] actions =
                [
                    XeValue.Create(a[0], (ulong)(50 + i)),
                    XeValue.Create(a[1], (ulong)(1000 + i)),
                    XeValue.Create(a[2], XelFixtures.Stack),
                    XeValue.Create(a[3], new Guid("0badf00d-0000-4000-8000-000000000001"), (uint)i),
                ];
                w.Write(
                    t,
                    XelFixtures.AllTypesTime(i),
                    XelFixtures.AllTypesValues(t, i % 50),
                    i % 4 == 3 ? actions.AsSpan(0, 2) : actions
                );
                if (i % 4 == 0)
                {
                    w.Write(dup, XelFixtures.AllTypesTime(i).AddTicks(1), [XeValue.Create(dup.Fields[0], (long)-i)]);
                }
            }
        }

        return ms.ToArray();
    }

    private sealed record ReadResult(
        List<string>? Events,
        string? Error,
        IReadOnlyList<XelWarning> Warnings,
        long Skipped,
        long Incomplete,
        long Undecodable,
        long Read,
        string Tally
    );

    private static ReadResult Read(
        byte[] bytes,
        int threads,
        XelIntegrityHandling mode,
        IReadOnlyCollection<string>? names = null
    )
    {
        var diag = new XelDiagnostics();
        var tally = new XelEventTally();
        using var src = new MemoryRandomAccessSource(bytes, "capture.xel");
        var options = new XelReadOptions
        {
            Integrity = mode,
            Diagnostics = diag,
            DecodeThreads = threads,
            Tally = tally,
            EventNames = names,
        };
        List<string>? events = [];
        string? error = null;
        try
        {
            foreach (XEvent e in XelReader.ReadEvents(src, options))
            {
                events.Add(
                    e.Source.Offset.ToString(System.Globalization.CultureInfo.InvariantCulture)
                        + " "
                        + XelRoundTripTests.Describe(e)
                );
            }
        }
        catch (InvalidXelDataException ex)
        {
            error = ex.Message;
            events = null;
        }

        return new ReadResult(
            events,
            error,
            diag.Warnings,
            diag.SkippedBuffers,
            diag.IncompleteBuffers,
            diag.UndecodableEvents,
            diag.EventsRead,
            string.Join(",", tally.Counts.Select(kv => kv.Key + "=" + kv.Value))
        );
    }

    private static void AssertSame(ReadResult one, ReadResult many, string what)
    {
        Assert.Multiple(() =>
        {
            Assert.That(many.Error, Is.EqualTo(one.Error), what + ": exception");
            Assert.That(many.Events, Is.EqualTo(one.Events), what + ": events");
            Assert.That(many.Warnings, Is.EqualTo(one.Warnings), what + ": warnings");
            Assert.That(
                (many.Skipped, many.Incomplete, many.Undecodable, many.Read),
                Is.EqualTo((one.Skipped, one.Incomplete, one.Undecodable, one.Read)),
                what + ": counts"
            );
            Assert.That(many.Tally, Is.EqualTo(one.Tally), what + ": records by name");
        });
    }

    [TestCase(2)]
    [TestCase(3)]
    [TestCase(8)]
    public void ManyThreads_ReadWhatOneThreadReads(int threads)
    {
        byte[] bytes = s_capture.Value;
        ReadResult one = Read(bytes, 1, XelIntegrityHandling.Strict);
        Assert.That(one.Events, Has.Count.EqualTo(Events + (Events / 4)));
        AssertSame(one, Read(bytes, threads, XelIntegrityHandling.Strict), "whole file");
        AssertSame(
            Read(bytes, 1, XelIntegrityHandling.Strict, ["dup"]),
            Read(bytes, threads, XelIntegrityHandling.Strict, ["dup"]),
            "one event by name"
        );
    }

    [Test]
    public void DamagedRecords_GiveTheSameEventsWarningsAndErrors_OnAnyNumberOfThreads()
    {
        byte[] clean = s_capture.Value;
        int checkedCases = 0;
        for (int at = 600; at < clean.Length - 8; at += clean.Length / 37)
        {
            byte[] bytes = (byte[])clean.Clone();
            bytes.AsSpan(at, 4).Fill(0xFF);
            foreach (
                XelIntegrityHandling mode in new[]
                {
                    XelIntegrityHandling.Strict,
                    XelIntegrityHandling.SkipCorruptBuffers,
                }
            )
            {
                AssertSame(Read(bytes, 1, mode), Read(bytes, 4, mode), mode + ", 4 bytes set to 0xFF at " + at);
                checkedCases++;
            }
        }

        Assert.That(checkedCases, Is.GreaterThan(60));
    }

    [Test]
    public void TruncatedFiles_GiveTheSamePrefixAndWarnings_OnAnyNumberOfThreads()
    {
        byte[] clean = s_capture.Value;
        for (int cut = 700; cut < clean.Length; cut += clean.Length / 23)
        {
            byte[] bytes = clean.AsSpan(0, cut).ToArray();
            AssertSame(
                Read(bytes, 1, XelIntegrityHandling.Strict),
                Read(bytes, 4, XelIntegrityHandling.Strict),
                "cut at " + cut
            );
        }
    }

    [Test]
    public void PushedEvents_AreTransient_AndDetachedCopiesKeepTheirValues()
    {
        string path = Path.Combine(Path.GetTempPath(), "xea-transient-" + Guid.NewGuid().ToString("N") + ".xel");
        File.WriteAllBytes(path, s_capture.Value);
        try
        {
            string[] expected = [.. XelReader.ReadEvents(path).Select(XelRoundTripTests.Describe)];
            var consumer = new Keeper();
            CaptureSource.Open([path]).Read([consumer]);
            Assert.Multiple(() =>
            {
                Assert.That(consumer.AllTransient, Is.True, "events pushed from .xel buffers are transient views");
                Assert.That(consumer.DuringCall, Is.EqualTo(expected), "values read during Add");
                Assert.That(
                    consumer.Kept.Select(XelRoundTripTests.Describe),
                    Is.EqualTo(expected),
                    "values of the detached copies after the read"
                );
                Assert.That(
                    consumer.Kept.All(e => !e.IsTransient && ReferenceEquals(e.Detach(), e)),
                    Is.True,
                    "a copy owns its data"
                );
                Assert.That(
                    () => consumer.LastView!.Detach(),
                    Throws.InvalidOperationException,
                    "a transient view is not valid after the read"
                );
            });
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Test]
    public void EnumeratedEvents_OwnTheirData()
    {
        XEvent[] events = [.. XelReader.ReadEvents(new MemoryRandomAccessSource(s_capture.Value, "capture.xel"))];
        Assert.That(events.All(e => !e.IsTransient && ReferenceEquals(e.Detach(), e)), Is.True);
    }

    private sealed class Keeper : ICaptureConsumer
    {
        public List<string> DuringCall { get; } = [];

        public List<XEvent> Kept { get; } = [];

        public bool AllTransient { get; private set; } = true;

        public XEvent? LastView { get; private set; }

        public bool Accepts(XeEventType eventType, XeActionSet actions) => true;

        public void Add(XEvent e)
        {
            AllTransient &= e.IsTransient;
            LastView = e;
            DuringCall.Add(XelRoundTripTests.Describe(e));
            Kept.Add(e.Detach());
        }
    }

    [Test]
    public void DecodeThreads_End_WhenTheReadEnds_AndWhenAnUnfinishedReadIsAbandoned()
    {
        byte[] bytes = s_capture.Value;
        Assert.That(WaitForNoDecodeThreads(), Is.True, "decode threads of earlier reads ended");

        // A read to the end closes its pipeline: its decode threads end.
        int seen = 0;
        using (var src = new MemoryRandomAccessSource(bytes, "capture.xel"))
        {
            foreach (XEvent e in XelReader.ReadEvents(src, new XelReadOptions { DecodeThreads = 3 }))
            {
                seen = Math.Max(seen, OrderedPipeline.LiveWorkers);
            }
        }

        Assert.That(seen, Is.GreaterThan(0), "the read used decode threads");
        Assert.That(WaitForNoDecodeThreads(), Is.True, "decode threads ended with the read");

        // An enumeration left unfinished and never disposed: its decode threads end once idle.
        using (var src = new MemoryRandomAccessSource(bytes, "capture.xel"))
        {
            IEnumerator<XEvent> abandoned = XelReader
                .ReadEvents(src, new XelReadOptions { DecodeThreads = 3 })
                .GetEnumerator();
            for (int i = 0; i < 100; i++)
            {
                Assert.That(abandoned.MoveNext(), Is.True);
            }

            Assert.That(OrderedPipeline.LiveWorkers, Is.GreaterThan(0), "the abandoned read had decode threads");
            Assert.That(WaitForNoDecodeThreads(), Is.True, "decode threads of an abandoned read ended");
            GC.KeepAlive(abandoned);
        }
    }

    private static bool WaitForNoDecodeThreads()
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (OrderedPipeline.LiveWorkers > 0)
        {
            if (sw.Elapsed > TimeSpan.FromSeconds(20))
            {
                return false;
            }

            Thread.Sleep(20);
        }

        return true;
    }
}

using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Samples;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Capture;

/// <summary>
/// A filter checked against the capture it read: names the capture's schema does not have (with the nearest it does
/// have), and a filter that kept nothing explained by which part of it and what it saw.
/// </summary>
public sealed class FilterChecksTests
{
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    /// <summary>Two wait_info events and one wait_info_external, at 0 µs, 10 µs and 20 µs; the schema holds more
    /// types.</summary>
    private string Waits()
    {
        var c = new AnalysisCaptures();
        string path = _tmp.File("waits.xel");
        c.WriteXel(
            path,
            [
                c.Wait(At(0), "LATCH_EX", "End", 5, 0x10, 1, 1),
                c.Wait(At(10), "PAGEIOLATCH_SH", "End", 7, 0x10, 1, 2),
                c.Wait(At(20), "PREEMPTIVE_HTTP_REQUEST", "End", 9, 0x10, 1, 3, external: true),
            ]
        );
        return path;
    }

    private static CaptureSummary Read(string path, EventFilter filter) => CaptureSource.Open([path]).Read([], filter);

    private static EventFilter Where(params string[] conditions) =>
        new(conditions: conditions.Select(FieldCondition.Parse));

    [Test]
    public void UnknownEventName_IsNamed_WithTheNearestNamesOfTheCapture()
    {
        string path = Waits();
        var filter = new EventFilter(["wait_inf"]);
        IReadOnlyList<string> problems = filter.FindUnknownNames(Read(path, filter));
        Assert.That(problems, Has.Count.EqualTo(1));
        Assert.That(
            problems[0],
            Does.StartWith("--event wait_inf: the capture has no event of that name; nearest: wait_info, ")
        );

        var full = new EventFilter(["sqlos.wait_infoo"]);
        Assert.That(full.FindUnknownNames(Read(path, full)).Single(), Does.Contain("nearest: sqlos.wait_info, "));
    }

    [Test]
    public void KnownNames_AreNotReported_EvenWithoutEventsOfThem()
    {
        string path = Waits();
        // wait_completed is in the file's metadata but has no event: the capture knows the name.
        var filter = new EventFilter(
            ["wait_info", "sqlos.wait_completed"],
            [FieldCondition.Parse("duration>1"), FieldCondition.Parse("scheduler_id=1")]
        );
        Assert.That(filter.FindUnknownNames(Read(path, filter)), Is.Empty);
    }

    [Test]
    public void UnknownFieldOrAction_IsNamed_WithTheNearestFieldsAndActions()
    {
        string path = Waits();
        EventFilter typo = Where("duraton>5");
        Assert.That(
            typo.FindUnknownNames(Read(path, typo)).Single(),
            Does.StartWith(
                "--where duraton>5: no event of the capture has a field or action named duraton; nearest: duration"
            )
        );

        EventFilter action = Where("sqlos.scheduler_idd=1");
        Assert.That(action.FindUnknownNames(Read(path, action)).Single(), Does.Contain("nearest: sqlos.scheduler_id"));

        // memory_clerk_name is a field of page_allocated, not of the events --event selects.
        var narrowed = new EventFilter(["wait_info"], [FieldCondition.Parse("memory_clerk_name=x")]);
        Assert.That(
            narrowed.FindUnknownNames(Read(path, narrowed)).Single(),
            Does.StartWith(
                "--where memory_clerk_name=x: no event of wait_info has a field or action named memory_clerk_name"
            )
        );
        var wide = new EventFilter(null, [FieldCondition.Parse("memory_clerk_name=x")]);
        Assert.That(wide.FindUnknownNames(Read(path, wide)), Is.Empty, "without --event every event type counts");
    }

    [Test]
    public void TargetDataXml_IsCheckedAgainstTheEventsItHolds()
    {
        string xml = Path.Combine(TestPaths.Samples, SampleData.RingBuffer, "ring_buffer_waits.ring_buffer.xml");
        var filter = new EventFilter(["wait_infoo"]);
        Assert.That(filter.FindUnknownNames(Read(xml, filter)).Single(), Does.Contain("nearest: wait_info"));
        EventFilter field = Where("duraton=1");
        Assert.That(field.FindUnknownNames(Read(xml, field)).Single(), Does.Contain("nearest: duration"));
    }

    [Test]
    public void AHistogramWithoutEvents_HasNothingToCheckAgainst()
    {
        string xml = Path.Combine(
            TestPaths.Samples,
            SampleData.Latch + "_histogram",
            "latch_nesting_full.histogram.xml"
        );
        var filter = new EventFilter(["latch_acquired"]);
        Assert.That(filter.FindUnknownNames(Read(xml, filter)), Is.Empty);
    }

    [Test]
    public void NoMatch_NamesTheFilter_TheEventsItSaw_AndTheirTimeRange()
    {
        string path = Waits();
        var late = new EventFilter(from: new DateTime(2030, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        string text = MissingDataExplainer.ExplainNoMatch(Read(path, late))!;
        Assert.That(
            text,
            Is.EqualTo(
                "none of the 3 events read matched the filter (from 2030-01-01T00:00:00.0000000Z); they run from "
                    + Timestamps.IsoUtc(At(0))
                    + " to "
                    + Timestamps.IsoUtc(At(20))
                    + ", outside --from/--to."
            )
        );

        EventFilter where = Where("duration>100");
        Assert.That(
            MissingDataExplainer.ExplainNoMatch(Read(path, where)),
            Does.StartWith("none of the 3 events read matched the filter (duration>100); they run from")
        );
        Assert.That(MissingDataExplainer.ExplainNoMatch(Read(path, where)), Does.Not.Contain("outside"));

        Assert.That(MissingDataExplainer.ExplainNoMatch(Read(path, Where("duration>8"))), Is.Null, "one event kept");
        Assert.That(MissingDataExplainer.ExplainNoMatch(Read(path, EventFilter.None)), Is.Null);
    }

    [Test]
    public void NoMatch_OfEventNames_ListsTheEventsTheInputHolds()
    {
        string path = Waits();
        var filter = new EventFilter(["wait_completed"]);
        Assert.That(
            MissingDataExplainer.ExplainNoMatch(Read(path, filter)),
            Is.EqualTo(
                "the filter --event wait_completed selects none of the 3 events the input holds; it holds "
                    + "sqlos.wait_info (2), sqlos.wait_info_external (1)."
            )
        );
    }

    [Test]
    public void Explainer_ForAnAnalysisOfAnyEvent_BlamesTheFilter_NotTheSession()
    {
        // stacks reads any event; --event naming events the capture has none of is the filter's doing.
        string path = Waits();
        var filter = new EventFilter(["wait_completed"]);
        var missing = new MissingData(
            MissingDataKind.Events,
            ["package0.callstack"],
            "No events were found. Nothing to bucket.",
            MissingData.AlterSession("sqlserver.your_event", ["package0.callstack"], null, dropFirst: false)
        );
        string text = MissingDataExplainer.Explain(missing, Read(path, filter), null);
        Assert.That(
            text,
            Does.StartWith("the filter --event wait_completed selects none of the 3 events the input holds")
        );
        Assert.That(text, Does.Not.Contain("ALTER EVENT SESSION"));

        string unfiltered = MissingDataExplainer.Explain(missing, Read(path, EventFilter.None), null);
        Assert.That(unfiltered, Does.Contain("ALTER EVENT SESSION"), "without a filter the capture is what lacks them");
    }
}

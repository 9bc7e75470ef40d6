using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Analysis;

/// <summary>EventFilter and FieldCondition: map text and key, numbers, text, actions, OR/AND, time range and time
/// parsing.</summary>
public sealed class EventFilterTests
{
    private readonly AnalysisCaptures _c = new();

    private static EventFilter Where(params string[] conditions) =>
        new(conditions: conditions.Select(FieldCondition.Parse));

    [TestCase("class=NESTING_TRANSACTION_FULL", true)]
    [TestCase("class=nesting_transaction_full", true)]
    [TestCase("class=17", true)]
    [TestCase("class=0x11", true)]
    [TestCase("class=3", false)]
    [TestCase("class=BUFFER", false)]
    [TestCase("mode=EX", true)]
    [TestCase("mode=4", true)]
    [TestCase("database_id=2", true)]
    [TestCase("database_id=0x2", true)]
    [TestCase("database_id=3", false)]
    [TestCase("database_id=-2", false)]
    [TestCase("address=0x000001D96C3F2A58", true)]
    [TestCase("address=2033335609944", true)]
    [TestCase("scheduler_id=27", true)]
    [TestCase("sqlos.scheduler_id=27", true)]
    [TestCase("SCHEDULER_ID=27", true)]
    [TestCase("scheduler_id=26", false)]
    [TestCase("session_id=58", false)]
    [TestCase("no_such_field=1", false)]
    public void Matches_ComparesLatchFieldsAndActions(string condition, bool expected)
    {
        XEvent e = _c.Acquire(
            At(0),
            "NESTING_TRANSACTION_FULL",
            0x000001D96C3F2A58,
            scheduler: 27,
            worker: 0x10,
            seq: 1
        );
        Assert.That(Where(condition).Matches(e), Is.EqualTo(expected));
    }

    [TestCase("wait_type=PREEMPTIVE_HTTP_REQUEST", true)]
    [TestCase("wait_type=120", true)]
    [TestCase("wait_type=66", false)]
    [TestCase("opcode=End", true)]
    [TestCase("opcode=1", true)]
    [TestCase("opcode=begin", false)]
    [TestCase("duration=7", true)]
    public void Matches_ComparesWaitMapFieldsByTextOrKey(string condition, bool expected)
    {
        XEvent e = _c.Wait(At(0), "PREEMPTIVE_HTTP_REQUEST", "End", 7, external: true);
        Assert.That(Where(condition).Matches(e), Is.EqualTo(expected));
    }

    [Test]
    public void Matches_ComparesTextIgnoringCase()
    {
        XEvent e = _c.Alloc(At(0), 3, clerk: "MEMORYCLERK_SQLQERESERVATIONS");
        Assert.That(Where("memory_clerk_name=memoryclerk_sqlqereservations").Matches(e), Is.True);
        Assert.That(Where("memory_clerk_name=MEMORYCLERK_SOSNODE").Matches(e), Is.False);
        Assert.That(Where("memory_clerk_name=").Matches(e), Is.False);
    }

    [Test]
    public void Matches_OrsConditionsOnOneNameAndAndsDifferentNames()
    {
        XEvent a = _c.Wait(At(0), "LATCH_EX", "End", 7, scheduler: 1);
        XEvent b = _c.Wait(At(0), "CXPACKET", "End", 7, scheduler: 2);
        XEvent c = _c.Wait(At(0), "PAGEIOLATCH_SH", "End", 7, scheduler: 1);
        EventFilter f = Where("wait_type=LATCH_EX", "wait_type=CXPACKET", "scheduler_id=1");
        Assert.That(new[] { a, b, c }.Select(f.Matches), Is.EqualTo(new[] { true, false, false }));
        EventFilter g = Where("wait_type=LATCH_EX", "wait_type=CXPACKET");
        Assert.That(new[] { a, b, c }.Select(g.Matches), Is.EqualTo(new[] { true, true, false }));
    }

    [Test]
    public void Matches_KeepsFromInclusiveAndToExclusive_AndEventNames()
    {
        var f = new EventFilter(["sqlos.wait_info", "page_freed"], null, At(10), At(20));
        Assert.That(f.Matches(_c.Wait(At(10), "LATCH_EX", "End", 1)), Is.True);
        Assert.That(f.Matches(_c.Wait(At(19.9), "LATCH_EX", "End", 1)), Is.True);
        Assert.That(f.Matches(_c.Wait(At(20), "LATCH_EX", "End", 1)), Is.False);
        Assert.That(f.Matches(_c.Wait(At(9.9), "LATCH_EX", "End", 1)), Is.False);
        Assert.That(f.Matches(_c.Free(At(15), 1)), Is.True);
        Assert.That(f.Matches(_c.Alloc(At(15), 1)), Is.False);
        Assert.That(f.Matches(_c.Wait(At(15), "LATCH_EX", "End", 1, external: true)), Is.False);
        Assert.That(f.MatchesName("sqlos", "wait_info"), Is.True);
        Assert.That(f.MatchesName("sqlserver", "wait_info"), Is.False);
        Assert.That(f.MatchesName(null, "page_freed"), Is.True);
    }

    [Test]
    public void Parse_SplitsAtTheFirstEquals_AndRefusesTextWithoutOne()
    {
        FieldCondition c = FieldCondition.Parse(" batch_text =a=b");
        Assert.That((c.Name, c.Value), Is.EqualTo(("batch_text", "a=b")));
        Assert.Throws<FormatException>(() => FieldCondition.Parse("class"));
        Assert.Throws<FormatException>(() => FieldCondition.Parse("=1"));
    }

    [TestCase("duration>6", true)]
    [TestCase("duration>7", false)]
    [TestCase("duration>=7", true)]
    [TestCase("duration<7", false)]
    [TestCase("duration<=7", true)]
    [TestCase("duration<8", true)]
    [TestCase("duration<0x8", true)]
    [TestCase("duration<7.5", true)]
    [TestCase("duration>-1", true)]
    [TestCase("duration<-1", false)]
    [TestCase("duration!=7", false)]
    [TestCase("duration!=8", true)]
    [TestCase("wait_type>=120", true)]
    [TestCase("wait_type<120", false)]
    [TestCase("wait_type!=PREEMPTIVE_HTTP_REQUEST", false)]
    [TestCase("wait_type!=CXPACKET", true)]
    [TestCase("wait_type~^preemptive_", true)]
    [TestCase("wait_type~HTTP_REQ", true)]
    [TestCase("wait_type~^HTTP", false)]
    [TestCase("opcode~^(begin|end)$", true)]
    [TestCase("no_such_field!=1", false)]
    [TestCase("no_such_field<1", false)]
    [TestCase("no_such_field>=0", false)]
    [TestCase("no_such_field~.*", false)]
    public void Matches_ComparesWithEveryOperator_AndAbsentFieldsNeverMatch(string condition, bool expected)
    {
        // The wait has duration 7 and wait_type PREEMPTIVE_HTTP_REQUEST (map key 120), as the other wait cases.
        XEvent e = _c.Wait(At(0), "PREEMPTIVE_HTTP_REQUEST", "End", 7, external: true);
        Assert.That(Where(condition).Matches(e), Is.EqualTo(expected));
    }

    [Test]
    public void Matches_AndsOrderingConditionsOnOneName_SoTheyMakeARange()
    {
        XEvent[] waits = [.. new long[] { 3, 7, 12 }.Select(d => _c.Wait(At(0), "LATCH_EX", "End", d))];
        Assert.That(
            waits.Select(Where("duration>=5", "duration<10").Matches),
            Is.EqualTo(new[] { false, true, false })
        );
        Assert.That(
            waits.Select(Where("duration!=3", "duration!=12").Matches),
            Is.EqualTo(new[] { false, true, false })
        );
        Assert.That(
            waits.Select(Where("duration=3", "duration=12").Matches),
            Is.EqualTo(new[] { true, false, true }),
            "= stays OR"
        );
    }

    [Test]
    public void Matches_OrderingAndPatternsOnText()
    {
        XEvent e = _c.Alloc(At(0), 3, clerk: "MEMORYCLERK_SQLQERESERVATIONS");
        Assert.That(Where("memory_clerk_name~qereserv").Matches(e), Is.True, "~ ignores case");
        Assert.That(Where("memory_clerk_name~^SOS").Matches(e), Is.False);
        Assert.That(Where("memory_clerk_name>1").Matches(e), Is.False, "text has no order: n/a, not a match");
        Assert.That(Where("memory_clerk_name<1").Matches(e), Is.False);
    }

    [TestCase("duration>=1000", "duration", ">=", "1000")]
    [TestCase("duration<=0x10", "duration", "<=", "0x10")]
    [TestCase("duration<5", "duration", "<", "5")]
    [TestCase("duration>5", "duration", ">", "5")]
    [TestCase("state!=SUSPENDED", "state", "!=", "SUSPENDED")]
    [TestCase("sql_text~^insert .*=1", "sql_text", "~", "^insert .*=1")]
    [TestCase("batch_text=a<b", "batch_text", "=", "a<b")]
    [TestCase("timestamp>2024-03-01T12:00:00Z", "timestamp", ">", "2024-03-01T12:00:00Z")]
    public void Parse_TakesTheFirstOperator_AndRoundTrips(string text, string name, string op, string value)
    {
        FieldCondition c = FieldCondition.Parse(text);
        Assert.That((c.Name, c.Value, c.ToString()), Is.EqualTo((name, value, name + op + value)));
    }

    [TestCase("duration>abc")]
    [TestCase("duration<=")]
    [TestCase("sql_text~(unclosed")]
    [TestCase("state!SUSPENDED")]
    [TestCase("<5")]
    public void Parse_RefusesBadOperatorsValuesAndPatterns(string text) =>
        Assert.Throws<FormatException>(() => FieldCondition.Parse(text));

    [Test]
    public void Parse_PatternsAreCultureInvariant()
    {
        // Under tr-TR a culture-aware IgnoreCase would not match 'i' with 'I'.
        CultureInfo saved = CultureInfo.CurrentCulture;
        try
        {
            CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo("tr-TR");
            XEvent e = _c.Alloc(At(0), 3, clerk: "MEMORYCLERK_SQLQERESERVATIONS");
            Assert.That(Where("memory_clerk_name~reservations").Matches(e), Is.True);
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
        }
    }

    [TestCase("2024-03-01", "2024-03-01T00:00:00.0000000Z")]
    [TestCase("2024-03-01T12:34", "2024-03-01T12:34:00.0000000Z")]
    [TestCase("2024-03-01T12:34:56Z", "2024-03-01T12:34:56.0000000Z")]
    [TestCase("2024-03-01 12:34:56.5", "2024-03-01T12:34:56.5000000Z")]
    [TestCase("2024-03-01T12:34:56.1234567", "2024-03-01T12:34:56.1234567Z")]
    [TestCase("2024-03-01T13:34:56+01:00", "2024-03-01T12:34:56.0000000Z")]
    [TestCase("2024-03-01T07:34:56.25-05:00", "2024-03-01T12:34:56.2500000Z")]
    public void ParseTime_AcceptsDocumentedFormats_UnderAnyCulture(string text, string expected)
    {
        foreach (string culture in new[] { "de-DE", "tr-TR", "ar-SA", "en-US" })
        {
            CultureInfo saved = CultureInfo.CurrentCulture;
            try
            {
                CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo(culture);
                DateTime t = EventFilter.ParseTime(text);
                Assert.That(t.Kind, Is.EqualTo(DateTimeKind.Utc));
                Assert.That(
                    t.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture),
                    Is.EqualTo(expected),
                    culture
                );
            }
            finally
            {
                CultureInfo.CurrentCulture = saved;
            }
        }
    }

    [TestCase("03/01/2024")]
    [TestCase("1 March 2024")]
    [TestCase("2024-03-01T25:00")]
    [TestCase("")]
    [TestCase("yesterday")]
    public void ParseTime_RefusesOtherForms(string text) =>
        Assert.Throws<FormatException>(() => EventFilter.ParseTime(text));
}

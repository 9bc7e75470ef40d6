using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using XeAnalyzer.Analysis;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Reporting;
using XeAnalyzer.Xel;
using static XeAnalyzer.Tests.Analysis.AnalysisCaptures;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// Labels that agree with the figures (issue 24): what the capture holds of callstacks, the file line of an unresolved
/// frame, the ordering count of waits, the events a stack header names, and the wording around figures. Each expected
/// figure is counted here from the input itself (the XML's slots and lines, the events the reader returns).
/// </summary>
public sealed class TruthfulLabelsTests
{
    private static readonly string Histogram = Path.Combine(
        TestPaths.Samples,
        "latch_nesting_full_histogram",
        "latch_nesting_full.histogram.xml"
    );

    private static readonly string[] Symbols = ReportTestSupport.SymbolArgs;
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp() => _tmp = new TempFolder();

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    [Test]
    public void Report_OnACallstackHistogram_OverviewSaysItsSlotsAndEvents()
    {
        XElement[] slots = [.. XDocument.Load(Histogram).Descendants("Slot")];
        long events = slots.Sum(s => long.Parse((string)s.Attribute("count")!, CultureInfo.InvariantCulture));
        string dir = _tmp.File("out");

        (int exit, _, string err) = CliRunner.Run(["report", Histogram, "-o", dir, .. ReportTestSupport.SymbolArgs]);

        Assert.That(exit, Is.EqualTo(0), err);
        using JsonDocument json = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "report.json")));
        JsonElement overview = json.RootElement.GetProperty("sections")[0];
        string? callstacks = overview
            .GetProperty("blocks")[0]
            .GetProperty("items")
            .EnumerateArray()
            .Single(i => i.GetProperty("key").GetString() == "callstacks")
            .GetProperty("value")
            .GetString();
        Assert.That(
            callstacks,
            Is.EqualTo(
                string.Create(Ic, $"{slots.Length:N0} histogram slot(s) of callstacks counting {events:N0} event(s)")
            )
        );
    }

    [Test]
    public void Info_OnSystemHealth_SaysTheCallstackFieldAndHowManyEventsCarryAStack()
    {
        string path = TestPaths.RequireVector("xel", "sqlhealth.xel");
        var byName = new SortedDictionary<string, (long Events, long WithStack)>(StringComparer.Ordinal);
        foreach (XEvent e in XelReader.ReadEvents(path))
        {
            (long n, long s) = byName.GetValueOrDefault(e.EventType.FullName);
            byName[e.EventType.FullName] = (n + 1, s + (HasFrames(e) ? 1 : 0));
        }

        (int exit, string output, string err) = CliRunner.Run(["info", path]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(byName["sqlos.memory_broker_ring_buffer_recorded"].WithStack, Is.Zero, "ring-buffer stacks");
        foreach ((string name, (long n, long s)) in byName)
        {
            string mark = string.Create(Ic, $"[callstack field: {s:N0} of {n:N0} event(s) carry a stack]");
            Assert.That(output, Does.Contain(mark), name);
        }

        long all = byName.Values.Sum(v => v.Events),
            withStack = byName.Values.Sum(v => v.WithStack);
        Assert.That(
            output,
            Does.Contain(string.Create(Ic, $"callstacks: {withStack:N0} of {all:N0} event(s) carry a stack"))
        );
    }

    [Test]
    public void Stacks_OnXml_NamesAnUnresolvedFrameByItsFileLine_AsResolveDoes()
    {
        string[] lines = File.ReadAllLines(Histogram);
        int fileLine = Array.FindIndex(lines, l => l.Trim() == "0x000002A61C3D8F10") + 1;
        Assert.That(fileLine, Is.GreaterThan(1), "test bug: the sample's out-of-module frame");
        string expected = string.Create(Ic, $"(first: 0x000002A61C3D8F10, line {fileLine})");

        (int exit, string output, string err) = CliRunner.Run(["stacks", Histogram, .. Symbols]);
        (_, _, string resolveErr) = CliRunner.Run(["resolve", Histogram, .. Symbols]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain(expected));
        Assert.That(resolveErr, Does.Contain(expected));
    }

    [Test]
    public void Waits_WithoutAWorkerAction_CountEveryEventComparedInFileOrder()
    {
        var c = new AnalysisCaptures();
        double[] ms = [0, 5, 3, 10, 12, 11, 20];
        XEvent[] events = [.. ms.Select((t, i) => c.Completed(At(t * 1000), "CXPACKET", 1, seq: (ulong)i + 1))];
        long inversions = ms.Zip(ms.Skip(1)).Count(p => p.Second < p.First);

        WaitAnalysisResult r = new WaitAnalysis().Analyze(events);

        Assert.That(inversions, Is.EqualTo(2));
        Assert.That((r.Ordering.Events, r.Ordering.ArrivedOutOfOrder), Is.EqualTo(((long)events.Length, inversions)));
        Assert.That(r.Waits, Is.EqualTo(events.Length));
    }

    [Test]
    public void Stacks_WithTop_HeaderNamesEveryEventTheAnalysisUsed()
    {
        string set = Path.Combine(TestPaths.Samples, "cci_insert_memory");
        string[] names =
        [
            .. XelReader
                .ReadEvents(Directory.GetFiles(set, "*.xel").Single())
                .Where(HasFrames)
                .Select(e => e.EventType.FullName)
                .Distinct()
                .Order(StringComparer.Ordinal),
        ];
        Assert.That(names, Has.Length.EqualTo(2), "test bug: page_allocated and page_freed");

        (int exit, string output, string err) = CliRunner.Run(["stacks", set, "--top", "1", .. Symbols]);

        Assert.That(exit, Is.EqualTo(0), err);
        Assert.That(output, Does.Contain("event(s) with a callstack (" + string.Join(", ", names) + ")"));
        Assert.That(output, Does.Contain("1 more bucket(s)"));
    }

    [Test]
    public void Stacks_FilterMatchingNothing_SaysEventsOnce()
    {
        string set = Path.Combine(TestPaths.Samples, "cci_insert_memory");
        long events = XelReader.ReadEvents(Directory.GetFiles(set, "*.xel").Single()).LongCount();

        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            set,
            "--where",
            "session_id=9999",
            .. Symbols,
        ]);

        string all = output + err;
        Assert.That(exit, Is.EqualTo(4), all);
        Assert.That(all, Does.Contain(string.Create(Ic, $"none of the {events:N0} events read matched")));
        Assert.That(Regex.Matches(all, @"\b(events|event\(s\)) \1\b"), Is.Empty);
    }

    [Test]
    public void Stacks_Json_ShowsNoEnumMemberName()
    {
        (int exit, string output, string err) = CliRunner.Run([
            "stacks",
            Histogram,
            "--symbols",
            TestPaths.SymbolsCache,
            "--offline",
            "--format",
            "json",
        ]);

        Assert.That(exit, Is.EqualTo(0), err);
        string[] members =
        [
            .. Enum.GetNames<PdbIdentitySource>(),
            .. Enum.GetNames<UnresolvedReason>(),
            .. Enum.GetNames<XeAnalyzer.Capture.ModuleMapSource>(),
        ];
        var shown = new List<string>();
        using JsonDocument json = JsonDocument.Parse(output);
        Collect(json.RootElement, shown);
        Assert.That(shown, Is.Not.Empty);
        Assert.That(shown.Intersect(members, StringComparer.Ordinal), Is.Empty);
    }

    [Test]
    public void Info_OnAFolderOfTargetDataXml_DescribesEachFile()
    {
        string folder = Path.GetDirectoryName(Histogram)!;
        string?[] files =
        [
            .. Directory.GetFiles(folder, "*.xml").Select(Path.GetFileName).Order(StringComparer.Ordinal),
        ];

        (int exit, string output, string err) = CliRunner.Run(["info", folder]);

        Assert.That(exit, Is.EqualTo(0), err);
        IEnumerable<string> described = Regex
            .Matches(output, "^target data .*$", RegexOptions.Multiline)
            .Select(m => Path.GetFileName(m.Value.TrimEnd()));
        Assert.That(described, Is.EqualTo(files));
    }

    /// <summary>Whether an event's callstack field or action holds a frame (addresses, or non-blank text).</summary>
    private static bool HasFrames(XEvent e)
    {
        var columns = e
            .Fields.Select((c, i) => (c, e.GetField(i)))
            .Concat(e.Actions.Select((c, i) => (c, e.GetAction(i))));
        foreach ((XeColumn column, XeValue value) in columns)
        {
            bool stackColumn = column.Name is "callstack" or "call_stack";
            if (stackColumn && (value.CallstackFrameCount > 0 || !string.IsNullOrWhiteSpace(value.ToString())))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The values of every "identity from", "reason" and "module map" cell of a JSON document.</summary>
    private static void Collect(JsonElement e, List<string> shown)
    {
        if (e.ValueKind == JsonValueKind.Object)
        {
            if (e.TryGetProperty("columns", out JsonElement columns) && e.TryGetProperty("rows", out JsonElement rows))
            {
                string?[] names = [.. columns.EnumerateArray().Select(c => c.GetProperty("name").GetString())];
                foreach (JsonElement row in rows.EnumerateArray())
                {
                    JsonElement[] cells = [.. row.EnumerateArray()];
                    for (int i = 0; i < names.Length && i < cells.Length; i++)
                    {
                        bool labelled = names[i] is "identity from" or "reason" or "module map source";
                        if (labelled && cells[i].ValueKind == JsonValueKind.String)
                        {
                            shown.Add(cells[i].GetString()!);
                        }
                    }
                }
            }

            foreach (JsonProperty p in e.EnumerateObject())
            {
                Collect(p.Value, shown);
            }
        }
        else if (e.ValueKind == JsonValueKind.Array)
        {
            foreach (JsonElement item in e.EnumerateArray())
            {
                Collect(item, shown);
            }
        }
    }
}

using XeAnalyzer.Analysis;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;
using static XeAnalyzer.Tests.Analysis.Stacks.StackCaptures;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// A rollover set that spans a restart: a file's own <c>&lt;file-name&gt;.modules.txt</c> places that file's raw
/// addresses ahead of the set's list, the files that still lack one are named, and every event is attributed to the
/// file that holds it.
/// </summary>
public sealed class PerFileModuleListTests
{
    private const string First = "latch_0_133612345678900000.xel";
    private const string Second = "latch_0_133612345778900000.xel";
    private const string Third = "latch_0_133612345878900000.xel";

    private StackCaptures _c = null!;
    private TempFolder _tmp = null!;

    [SetUp]
    public void SetUp()
    {
        _c = new StackCaptures();
        _tmp = new TempFolder();
    }

    [TearDown]
    public void TearDown() => _tmp.Dispose();

    private static string[] Engine(string id) => [.. Seed(id).Select(f => f.Engine)];

    private string Write(string name, IEnumerable<XEvent> events)
    {
        string path = _tmp.File(name);
        _c.WriteXel(path, events);
        return path;
    }

    private IEnumerable<XEvent> Latches(string id, int n, IReadOnlyDictionary<string, ulong> bases, int at) =>
        Enumerable.Range(0, n).Select(i => _c.Latch(At(at + i), Addresses(Seed(id), bases)));

    private static (StackBucketResult Result, AnalysisContext Context) Analyze(params string[] files)
    {
        CallstackResolver resolver = ResolutionFixtures.Resolver();
        var context = new AnalysisContext(resolver: resolver);
        StackBucketResult r = new StackBucketAnalysis().Analyze(CaptureSource.Open(files), context).Result;
        resolver.Dispose();
        return (r, context);
    }

    [Test]
    public void FileWithItsOwnList_IsPlacedWithIt_AheadOfTheSetsList()
    {
        // Before the restart: stack A ×3 (lifetime A); after it: A ×2 and C ×1 (lifetime B). The set's list is A's.
        string a = Write(First, Latches("A", 3, BasesA, 0));
        string b = Write(Second, [.. Latches("A", 2, BasesB, 100), .. Latches("C", 1, BasesB, 200)]);
        File.WriteAllText(_tmp.File("latch.modules.txt"), ModuleList(BasesA));

        (StackBucketResult without, _) = Analyze(a, b);
        Assert.That(
            without.Buckets.Any(k => k.Frames.SequenceEqual(Engine("A")) && k.Count == 5),
            Is.False,
            "without the file's list its stacks do not resolve"
        );
        Assert.That(without.Inputs.Single().Resolution.Warnings, Has.One.Contains("does not fit"));

        File.WriteAllText(_tmp.File(Second + ".modules.txt"), ModuleList(BasesB));
        (StackBucketResult r, AnalysisContext context) = Analyze(a, b);

        Assert.That(
            r.Buckets.Select(k => (k.Count, k.Frames.ToArray())),
            Is.EqualTo(new[] { (5L, Engine("A")), (1L, Engine("C")) })
        );
        Assert.That(
            r.Inputs.Select(i => (i.Name, i.ModuleMapPath, i.Events)),
            Is.EqualTo(new[] { (a, _tmp.File("latch.modules.txt"), 3L), (b, _tmp.File(Second + ".modules.txt"), 3L) })
        );
        Assert.That(r.Inputs.SelectMany(i => i.Resolution.Warnings), Has.None.Contains("does not fit"));
        Assert.That(context.Diagnostics.Warnings, Has.None.Contains("does not fit"));
    }

    [Test]
    public void FileWithoutAList_WhileOthersHaveOne_IsNamed()
    {
        string a = Write(First, Latches("A", 2, BasesA, 0));
        string b = Write(Second, Latches("A", 1, BasesB, 100));
        File.WriteAllText(_tmp.File(First + ".modules.txt"), ModuleList(BasesA));

        (StackBucketResult r, _) = Analyze(a, b);

        StackInputSummary lacking = r.Inputs.Single(i => i.ModuleMapPath is null);
        Assert.That(lacking.Name, Is.EqualTo(b));
        Assert.That(
            lacking.Resolution.Warnings,
            Has.One.EqualTo(
                "no module list for "
                    + b
                    + ", so their raw addresses stay unresolved: save the sys.dm_os_loaded_modules output of the "
                    + "process "
                    + "lifetime that wrote each file beside it as <file name>.modules.txt"
            )
        );
        Assert.That(
            r.Inputs.Single(i => i.ModuleMapPath is not null).Resolution.Warnings,
            Has.None.Contains("no module list for")
        );
    }

    [Test]
    public void EventsOfASetSharingOneList_AreAttributedToTheFileThatHoldsThem()
    {
        string a = Write(First, Latches("A", 2, BasesA, 0));
        string b = Write(Second, [.. Latches("A", 3, BasesA, 100), _c.Latch(At(150), null)]);
        string c = Write(Third, Latches("C", 4, BasesA, 200));
        File.WriteAllText(_tmp.File("latch.modules.txt"), ModuleList(BasesA));

        (StackBucketResult r, _) = Analyze(a, b, c);

        StackInputSummary input = r.Inputs.Single();
        Assert.That(input.Name, Is.EqualTo(a));
        Assert.That(input.Events, Is.EqualTo(9));
        Assert.That(
            input.Files.Select(f => (f.Name, f.Events, f.EventsWithoutStack)),
            Is.EqualTo(new[] { (a, 2L, 0L), (b, 3L, 1L), (c, 4L, 0L) })
        );

        var document = new StackBucketDocument(r);
        string listing = OutputFormats.ToText(document);
        Assert.That(listing, Does.Contain("file " + b + ": 3 event(s) with a stack, 1 without"));
        Assert.That(listing, Does.Contain("file " + c + ": 4 event(s) with a stack"));
        Assert.That(
            OutputFormats.ToText(document.ResolutionNotice()),
            Does.Contain("file " + a + ": 2 event(s) with a stack")
        );

        ReportTable files = document.FilesTable()!;
        Assert.That(
            files.Rows.Select(row => (row[1].Text, row[3].Integer, row[4].Integer)),
            Is.EqualTo(new[] { (a, 2L, 0L), (b, 3L, 1L), (c, 4L, 0L) })
        );
        ReportSection resolution = r.Sections[0]
            .ToDocument(DocumentView.Page)
            .Sections.Single(s => s.Title == "Resolution");
        Assert.That(resolution.Blocks.OfType<ReportTable>().Any(t => t.Title == "Events per file"), Is.True);
    }

    [Test]
    public void SingleFileInput_ShowsNoPerFileLines()
    {
        string a = Write(First, Latches("A", 2, BasesA, 0));
        File.WriteAllText(_tmp.File("latch.modules.txt"), ModuleList(BasesA));
        (StackBucketResult r, _) = Analyze(a);
        var document = new StackBucketDocument(r);
        Assert.That(document.FilesTable(), Is.Null);
        Assert.That(OutputFormats.ToText(document), Does.Not.Contain("file " + a));
    }

    [Test]
    public void FileList_IsNamedForTheWholeFileName_AndFoundIgnoringCase()
    {
        string a = Write(First, Latches("A", 1, BasesA, 0));
        string own = _tmp.File(First.ToUpperInvariant() + ".MODULES.TXT");
        File.WriteAllText(own, ModuleList(BasesA));
        Assert.That(ModuleListSidecar.ExpectedFilePath(a), Is.EqualTo(_tmp.File(First + ".modules.txt")));
        Assert.That(ModuleListSidecar.FindForFile(a), Is.EqualTo(own));
        Assert.That(ModuleListSidecar.Find(a), Is.Null, "the set's list is latch.modules.txt");
        CaptureInput input = CaptureSource.Open([a]).Inputs.Single();
        Assert.That(input.FileModuleMaps.Single().Map, Is.Not.Null);
        Assert.That(input.ModuleMap.Map, Is.Null);
        Assert.That(input.FileModuleMaps.Single().Map!.Modules.Count, Is.EqualTo(BasesA.Count));
    }
}

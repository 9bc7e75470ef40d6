using XeAnalyzer.Analysis;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Callstacks;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.IO;

/// <summary>The bounded table of repeated lines behind the plain-text fast path of <see cref="StackTextReader"/>, and
/// proof that it changes no result.</summary>
public class LineInternerTests
{
    [Test]
    public void TryIntern_ReturnsTheSameStringAndId_ForTheSameText()
    {
        var interner = new LineInterner();
        Assert.That(interner.TryIntern("sqlmin.dll+0x0000000000001063".AsSpan(), out string? a, out int ia), Is.True);
        Assert.That(
            interner.TryIntern("xx sqlmin.dll+0x0000000000001063 yy".AsSpan(3, 29), out string? b, out int ib),
            Is.True
        );
        Assert.That(interner.TryIntern("sqlmin.dll+0x0000000000001064".AsSpan(), out string? c, out int ic), Is.True);
        Assert.That(b, Is.SameAs(a));
        Assert.That(ib, Is.EqualTo(ia));
        Assert.That(a, Is.EqualTo("sqlmin.dll+0x0000000000001063"));
        Assert.That(c, Is.Not.SameAs(a).And.EqualTo("sqlmin.dll+0x0000000000001064"));
        Assert.That((ia, ic), Is.EqualTo((0, 1)), "ids are dense, in the order lines were first kept");
    }

    [TestCase(0)]
    [TestCase(1)]
    [TestCase(7)]
    [TestCase(8)]
    [TestCase(9)]
    [TestCase(LineInterner.MaxLineLength)]
    public void TryIntern_KeepsLinesUpToTheLimit_AndTellsApartLinesThatDifferInOneCharacter(int length)
    {
        var interner = new LineInterner();
        string line = new('a', length);
        Assert.That(Intern(interner, line), Is.EqualTo(line));
        for (int i = 0; i < length; i++)
        {
            string other = string.Concat(line.AsSpan(0, i), "b", line.AsSpan(i + 1));
            Assert.That(Intern(interner, other), Is.EqualTo(other), "position " + i);
        }

        Assert.That(Intern(interner, line), Is.EqualTo(line));
    }

    [TestCase(3)]
    [TestCase(4)]
    [TestCase(8)]
    [TestCase(12)]
    [TestCase(29)]
    [TestCase(40)]
    [TestCase(47)]
    [TestCase(100)]
    [TestCase(LineInterner.MaxLineLength)]
    public void TryIntern_KeepsSixteenLinesThatDifferOnlyAtOnePosition_ForEveryPosition(int length)
    {
        // Lines alike but for one character, at every position: each is kept apart from the others, with an id of its
        // own.
        string line = string.Concat(Enumerable.Range(0, length).Select(i => (char)('a' + (i % 26))));
        for (int i = 0; i < length; i++)
        {
            var interner = new LineInterner();
            var ids = new HashSet<int>();
            for (int v = 0; v < 16; v++)
            {
                string other = string.Concat(line.AsSpan(0, i), ((char)('0' + v)).ToString(), line.AsSpan(i + 1));
                Assert.That(
                    interner.TryIntern(other, out string? kept, out int id),
                    Is.True,
                    $"position {i}, variant {v}"
                );
                Assert.That(kept, Is.EqualTo(other), $"position {i}, variant {v}");
                ids.Add(id);
            }

            Assert.That(ids, Has.Count.EqualTo(16), "position " + i);
        }
    }

    [Test]
    public void TryIntern_KeepsNothing_ForALineLongerThanTheLimit()
    {
        var interner = new LineInterner();
        Assert.That(
            interner.TryIntern(new string('x', LineInterner.MaxLineLength + 1), out string? text, out int id),
            Is.False
        );
        Assert.That((text, id), Is.EqualTo(((string?)null, -1)));
    }

    [Test]
    public void TryIntern_StopsAddingAtMaxEntries_ButStillFindsWhatItKept()
    {
        var interner = new LineInterner();
        var kept = new List<(string Line, int Id)>();
        for (int i = 0; i < LineInterner.MaxEntries * 2; i++)
        {
            string line = "frame+0x" + i.ToString("X", System.Globalization.CultureInfo.InvariantCulture);
            if (interner.TryIntern(line, out string? text, out int id))
            {
                Assert.That(text, Is.EqualTo(line));
                kept.Add((line, id));
            }
        }

        Assert.That(kept, Has.Count.EqualTo(LineInterner.MaxEntries));
        Assert.That(kept.Select(k => k.Id), Is.EqualTo(Enumerable.Range(0, LineInterner.MaxEntries)));
        foreach ((string line, int id) in kept)
        {
            Assert.That(interner.TryIntern(line, out string? again, out int idAgain), Is.True);
            Assert.That((again, idAgain), Is.EqualTo((line, id)));
        }
    }

    [Test]
    public void TryIntern_TurnsItselfOff_WhenLinesDoNotRepeat()
    {
        var interner = new LineInterner();
        for (int i = 0; i < 70_000; i++)
        {
            interner.TryIntern(
                "0x" + i.ToString("X16", System.Globalization.CultureInfo.InvariantCulture),
                out _,
                out _
            );
        }

        Assert.That(
            interner.TryIntern("0x0000000000000001", out _, out _),
            Is.False,
            "off after 65,536 lines with few repeats"
        );
    }

    [Test]
    public void TryIntern_StaysOn_WhenLinesRepeat()
    {
        var interner = new LineInterner();
        for (int i = 0; i < 70_000; i++)
        {
            interner.TryIntern(
                "sqlmin.dll+0x" + (i % 100).ToString("X", System.Globalization.CultureInfo.InvariantCulture),
                out _,
                out _
            );
        }

        Assert.That(interner.TryIntern("sqlmin.dll+0x5", out _, out _), Is.True);
    }

    /// <summary>
    /// Every committed text fixture, a generated plain-text input and a hand-made mix of the plain-text shapes, each
    /// repeated so lines come back from the table, resolve to the same output and summary with and without interning,
    /// on one and two threads. The reference run also leaves every XML value to the XML reader (no lifted values, see
    /// LiftedValueTests), so it checks both fast paths.
    /// </summary>
    [TestCaseSource(nameof(Inputs))]
    public void Resolve_GivesTheSameOutput_WithAndWithoutInterning(string name, string text)
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var reference = new CallstackTextResolverOptions { InternLines = false, LiftValues = false };
        (string expected, ResolutionSummary expectedSummary) = ResolutionFixtures.ResolveStackByStack(
            text,
            resolver,
            reference
        );
        foreach (int workers in new[] { 1, 2 })
        {
            var options = new CallstackTextResolverOptions { InternLines = true, Workers = workers };
            (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver, options);
            Assert.That(output, Is.EqualTo(expected), name + ", workers: " + workers);
            Assert.That(
                XeAnalyzer.Output.OutputFormats.ToText(new ResolutionSummaryDocument(summary), "json"),
                Is.EqualTo(
                    XeAnalyzer.Output.OutputFormats.ToText(new ResolutionSummaryDocument(expectedSummary), "json")
                ),
                name
            );
        }
    }

    [TestCaseSource(nameof(Inputs))]
    public void Parse_GivesTheSameStacks_WithAndWithoutInterning(string name, string text)
    {
        IReadOnlyList<Callstack> a = StackTextReader.Parse(
            text,
            new StackTextReaderOptions { InternLines = false, LiftValues = false }
        );
        IReadOnlyList<Callstack> b = StackTextReader.Parse(text);
        Assert.That(b.Count, Is.EqualTo(a.Count), name);
        for (int i = 0; i < a.Count; i++)
        {
            Assert.That(Describe(b[i]), Is.EqualTo(Describe(a[i])), name + " stack " + i);
        }
    }

    private static IEnumerable<TestCaseData> Inputs()
    {
        foreach (
            string path in Directory.GetFiles(Path.Combine(TestPaths.TestData, "text")).Order(StringComparer.Ordinal)
        )
        {
            if (
                Path.GetExtension(path) is ".txt" or ".xml"
                && !path.EndsWith(".expected.txt", StringComparison.Ordinal)
            )
            {
                string once = File.ReadAllText(path);
                yield return new TestCaseData(
                    Path.GetFileName(path),
                    once + "\n" + once + "\n" + once
                ).SetArgDisplayNames(Path.GetFileName(path));
            }
        }

        string mixed = string.Join(
            '\n',
            "sqlmin.dll+0x0000000000001063",
            "  sqlmin.dll+0x0000000000001063  ",
            "sqllang.dll+0x0000000000001807\tsqldk.dll+0x0000000000002920",
            "not a frame, just prose",
            "ntdll.dll+0x000000000006A271",
            "sqlmin.dll+0xZZ",
            "<frame module=\"sqlmin.dll\" rva=\"0x1063\" />",
            "sqlmin.dll+0x0000000000001063",
            string.Empty,
            "OpenSystemTableRowset",
            "CMEDScanBase::Rowset+0x12",
            "CMEDScanBase::Rowset+0x12",
            string.Empty,
            "sqlmin,9C072258-C838-1309-4C4C-44205044422E,1,sqlmin.pdb",
            "sqlmin.dll+0x0000000000001063",
            "sqlmin.dll!LatchBase::AcquireInternal+0x499",
            "sqlmin.dll!LatchBase::AcquireInternal+0x499",
            "00 sqlmin.dll+0x0000000000001063",
            "sqlmin.dll+0x" + new string('0', 300) + "1063",
            "sqlmin.dll+0x" + new string('0', 300) + "1063"
        );
        yield return new TestCaseData("mixed", mixed + "\n" + mixed + "\n" + mixed).SetArgDisplayNames("mixed");

        // The same lines inside histogram slot values (XML-escaped, CRLF in one slot), where the value's lines go
        // through the table too.
        string escaped = System.Security.SecurityElement.Escape(mixed);
        string slots = string.Concat(
            Enumerable
                .Range(0, 6)
                .Select(i =>
                    $"<Slot "
                    + $"count=\"{10 - i}"
                    + $"\"><value>{(i == 3 ? escaped.Replace("\n", "\r\n", StringComparison.Ordinal) : escaped)}"
                    + $"</value></Slot>\n"
                )
        );
        yield return new TestCaseData(
            "mixed-histogram",
            "<HistogramTarget truncated=\"0\" buckets=\"256\">\n" + slots + "</HistogramTarget>\n"
        ).SetArgDisplayNames("mixed lines in histogram slots");
        string blankEdged = BlankEdgedHistogram();
        yield return new TestCaseData("blank-edged-histogram", blankEdged + "\n" + blankEdged).SetArgDisplayNames(
            "histogram values with blank lines at the ends"
        );
        yield return new TestCaseData(
            "generated-histogram",
            new GeneratedInput(GeneratedInput.Shape.Histogram, 2000, 25).ReadToEnd()
        ).SetArgDisplayNames("generated histogram, 50,000 frames");
        yield return new TestCaseData(
            "generated-ring-buffer",
            new GeneratedInput(GeneratedInput.Shape.RingBuffer, 2000, 25).ReadToEnd()
        ).SetArgDisplayNames("generated ring buffer, 50,000 frames");
        yield return new TestCaseData(
            "generated",
            new GeneratedInput(GeneratedInput.Shape.PlainText, 4000, 25).ReadToEnd()
        ).SetArgDisplayNames("generated plain text, 100,000 frames");
    }

    // Values with blank and white-space lines at both ends and between frames, a TAB-led line, a line longer than the
    // table keeps, single-line values and one of white space only.
    private static string BlankEdgedHistogram() =>
        "<HistogramTarget truncated=\"0\" buckets=\"256\">\n"
        + "<Slot count=\"9\"><value>\n   \n\nsqlmin.dll+0x0000000000001063\n\n \t \n\tsqldk.dll+0x0000000000002920\n  "
        + "\n</value></Slot>\n"
        + "<Slot count=\"8\"><value>sqlmin.dll+0x"
        + new string('0', 300)
        + "1063\nsqlmin.dll+0x0000000000001063</value></Slot>\n"
        + "<Slot count=\"7\"><value>sqlmin.dll+0x0000000000001063</value></Slot>\n"
        + "<Slot count=\"6\"><value> \t </value></Slot>\n"
        + "<Slot count=\"5\"><value>\nsqllang.dll+0x0000000000001807 \nsqlmin.dll+0x0000000000001063\n</value></Slot>\n"
        + "</HistogramTarget>\n";

    private static string Describe(Callstack s) =>
        string.Join('\n', s.Lines.Select(DescribeLine))
        + "|"
        + s.IsContinuation
        + "|"
        + s.Header?.Origin
        + "|"
        + (s.Header?.Slot?.Value ?? s.Header?.Field?.Value)?.Text;

    private static string DescribeLine(StackLine l)
    {
        string frames = string.Join(
            ',',
            l.Frames.Select(f => f.Kind + ":" + f.Raw + ":" + f.Module?.Name + ":" + f.Provenance + ":" + f.FrameNumber)
        );
        string unparsed = string.Join(',', l.Unparsed.Select(u => u.Text));
        return $"{l.LineNumber}|{l.Text}|{frames}|{l.Diagnostic}|{l.SymbolMetadata?.Module.Name}|{unparsed}";
    }

    private static string? Intern(LineInterner interner, string line) =>
        interner.TryIntern(line, out string? kept, out _) ? kept : null;
}

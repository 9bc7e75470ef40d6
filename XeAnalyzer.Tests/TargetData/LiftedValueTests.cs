using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.TargetData;

/// <summary>
/// Plain-text values and runs of plain histogram slots taken out of the XML before the XML reader sees them
/// (XmlValueLifter.TakeValue, XmlValueLifter.TakeSlots) must change nothing: every element, value, line number, warning
/// and error message is the same with the fast paths on and off, on generated documents that mix plain values and slots
/// with everything that must leave them to the XML reader.
/// </summary>
public class LiftedValueTests
{
    [Test]
    public void Read_TakesPlainHistogramValuesOutOfTheXml()
    {
        string xml =
            "<HistogramTarget truncated=\"0\" buckets=\"16\">\n  <Slot count=\"3\">\n    "
            + "<value>sqldk.dll+0x0000000000001234\nsqlmin.dll+0x0000000000005678</value>\n  </Slot>\n"
            + "  <Slot count=\"2\"><value>a</value></Slot><Slot "
            + "count=\"1\"><value>b\r\nc\rd</value></Slot>\n</HistogramTarget>";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(
            reader.LiftedValues,
            Is.EqualTo(3),
            "every value is plain text, so none goes through the XML reader's text scan"
        );
        Assert.That(stacks[2].Lines.Select(l => l.Text), Is.EqualTo(new[] { "b", "c", "d" }));
        Assert.That(stacks[2].Lines.Select(l => l.LineNumber), Is.EqualTo(new long[] { 6, 7, 8 }));
    }

    [Test]
    public void Read_TakesValuesOut_AfterWideCharactersOnTheSameLine()
    {
        // Columns count UTF-16 code units, as the XML reader does: a surrogate pair, a TAB and a non-ASCII letter
        // before the value.
        string xml =
            "<RingBufferTarget><event name=\"\U0001F600\t\u00e9\"><action "
            + "name=\"callstack\"><value>sqlmin.dll+0x10\nsqlmin.dll+0x20</value></action></event>"
            + "<event name=\"\U0001F600\"><data name=\"x\"><value>caf\u00e9</value></data><action "
            + "name=\"callstack\"><value>sqlmin.dll+0x30</value></action></event></RingBufferTarget>";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.EqualTo(2));
        Assert.That(
            stacks.SelectMany(s => s.Lines).Select(l => l.Text),
            Is.EqualTo(new[] { "sqlmin.dll+0x10", "sqlmin.dll+0x20", "sqlmin.dll+0x30" })
        );
        AssertSameWithAndWithoutLifting(xml, "wide characters");
    }

    [Test]
    public void Read_TakesValuesOut_OfAnHtmlEscapedTarget()
    {
        // An SSMS grid copy of target_data: the whole target HTML-escaped; the values are plain once decoded.
        string xml =
            "&lt;HistogramTarget truncated=\"0\" buckets=\"16\"&gt;\r\n  &lt;Slot "
            + "count=\"4\"&gt;&lt;value&gt;sqlmin.dll+0x10\r\nsqlmin.dll+0x20&lt;/value&gt;&lt;/Slot&gt;\r\n&lt;/Histog"
            + "ramTarget&gt;";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.EqualTo(1));
        Assert.That(
            stacks.Single().Lines.Select(l => (l.Text, l.LineNumber)),
            Is.EqualTo(new[] { ("sqlmin.dll+0x10", 2L), ("sqlmin.dll+0x20", 3L) })
        );
        AssertSameWithAndWithoutLifting(xml, "escaped");
    }

    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value>a &amp; b</value></Slot></HistogramTarget>",
        TestName = "Reference"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value><![CDATA[a]]></value></Slot></HistogramTarget>",
        TestName = "CDATA"
    )]
    [TestCase(
        "<HistogramTarget><!-- x --><Slot count=\"1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "CommentBefore"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value>caf\u00e9</value></Slot></HistogramTarget>",
        TestName = "NonAscii"
    )]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value>a]b</value></Slot></HistogramTarget>", TestName = "Bracket")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value >a</value></Slot></HistogramTarget>", TestName = "BlankInTag")]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value>a<frame/></value></Slot></HistogramTarget>",
        TestName = "ChildElement"
    )]
    public void Read_LeavesValuesToTheXmlReader_WhenTheyAreNotPlainText(string xml)
    {
        using var reader = new StackTextReader(new StringReader(xml));
        _ = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.Zero);
        AssertSameWithAndWithoutLifting(xml, "case");
    }

    [Test]
    public void Read_GivesTheSameElementsAndErrors_WithAndWithoutLifting_OnGeneratedDocuments()
    {
        int errors = 0;
        for (int seed = 1; seed <= 3000; seed++)
        {
            string xml = Generate(new Random(seed));
            errors += AssertSameWithAndWithoutLifting(xml, "seed " + seed.ToString(CultureInfo.InvariantCulture))
                ? 0
                : 1;
        }

        // The generator makes malformed documents too, so both paths are compared on their errors as well.
        Assert.That(errors, Is.InRange(100, 2900), "the generated documents should mix well-formed and malformed ones");
    }

    [Test]
    public void Read_TakesRunsOfPlainSlotsOutOfTheXml_WithTheirLinesCountsAndValues()
    {
        // SQL Server's own layout, CR LF line ends, a trunc attribute and a count with leading zeros.
        string xml =
            "<HistogramTarget truncated=\"0\" buckets=\"16\">\r\n  <Slot count=\"3\">\r\n    "
            + "<value>sqldk.dll+0x0000000000001234\r\nsqlmin.dll+0x0000000000005678</value>\r\n  </Slot>\r\n"
            + "  <Slot count=\"002\" trunc=\"7\"><value>a</value></Slot><Slot trunc=\"1\" "
            + "count=\"1\"><value>b\nc</value>\n</Slot>\r\n</HistogramTarget>\r\n";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedSlots, Is.EqualTo(3), "every slot is of the plain form");
        Assert.That(
            stacks.Select(s =>
                (s.Header!.SlotNumber, s.Header.SlotCount, s.Header.LineNumber, s.Header.Slot!.TruncatedBytes)
            ),
            Is.EqualTo(new (int?, ulong?, long, ulong?)[] { (0, 3, 2, null), (1, 2, 6, 7), (2, 1, 6, 1) })
        );
        Assert.That(
            stacks.SelectMany(s => s.Lines).Select(l => (l.Text, l.LineNumber)),
            Is.EqualTo(
                new[]
                {
                    ("sqldk.dll+0x0000000000001234", 3L),
                    ("sqlmin.dll+0x0000000000005678", 4L),
                    ("a", 6L),
                    ("b", 6L),
                    ("c", 7L),
                }
            )
        );
        AssertSameWithAndWithoutLifting(xml, "SQL Server layout");
    }

    [Test]
    public void Read_TakesLongRunsOfSlotsOut_AcrossTheBuffer_AndAsManyAsAreWaiting()
    {
        // 20,000 slots: runs end at the run size, at the end of the 64K buffer and at the bound on what waits for the
        // XML reader.
        var sb = new StringBuilder("<HistogramTarget truncated=\"0\" buckets=\"16\">\n");
        for (int i = 0; i < 20_000; i++)
        {
            sb.Append(
                CultureInfo.InvariantCulture,
                $"  <Slot count=\"{i}\">\n    <value>sqlmin.dll+0x{i:X16}\nsqldk.dll+0x{i * 3:X16}</value>\n  </Slot>\n"
            );
        }

        string xml = sb.Append("</HistogramTarget>\n").ToString();
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedSlots, Is.EqualTo(20_000));
        Assert.That(
            stacks.Select(s => s.Header!.SlotCount),
            Is.EqualTo(Enumerable.Range(0, 20_000).Select(i => (ulong?)(ulong)i))
        );
        Assert.That(
            stacks[^1].Lines.Select(l => l.LineNumber),
            Is.EqualTo(new long[] { 2 + (19_999 * 4) + 1, 2 + (19_999 * 4) + 2 })
        );
        AssertSameWithAndWithoutLifting(xml, "20,000 slots");
    }

    [TestCase("<HistogramTarget><Slot count='1'><value>a</value></Slot></HistogramTarget>", TestName = "SingleQuotes")]
    [TestCase(
        "<HistogramTarget><Slot count = \"1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "BlanksAroundEquals"
    )]
    [TestCase(
        "<HistogramTarget><Slot\ncount=\"1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "LineBreakInTag"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\" other=\"x\"><value>a</value></Slot></HistogramTarget>",
        TestName = "OtherAttribute"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\" count=\"2\"><value>a</value></Slot></HistogramTarget>",
        TestName = "DuplicateCount"
    )]
    [TestCase("<HistogramTarget><Slot trunc=\"1\"><value>a</value></Slot></HistogramTarget>", TestName = "NoCount")]
    [TestCase(
        "<HistogramTarget><Slot count=\"18446744073709551616\"><value>a</value></Slot></HistogramTarget>",
        TestName = "CountOverflow"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"-1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "NegativeCount"
    )]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value></value></Slot></HistogramTarget>", TestName = "EmptyValue")]
    [TestCase("<HistogramTarget><Slot count=\"1\"/></HistogramTarget>", TestName = "EmptySlot")]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value>a</value><value>b</value></Slot></HistogramTarget>",
        TestName = "TwoValues"
    )]
    [TestCase(
        "<HistogramTarget><Slot count=\"1\"><value>a</value></Slot ></HistogramTarget>",
        TestName = "BlankInEndTag"
    )]
    [TestCase(
        "<HistogramTarget><Other/><Slot count=\"1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "AfterAnotherElement"
    )]
    [TestCase(
        "<HistogramTarget><Other><Slot count=\"1\"><value>a</value></Slot></Other></HistogramTarget>",
        TestName = "Nested"
    )]
    [TestCase(
        "<HistogramTarget>text<Slot count=\"1\"><value>a</value></Slot></HistogramTarget>",
        TestName = "AfterText"
    )]
    [TestCase(
        "<RingBufferTarget><Slot count=\"1\"><value>a</value></Slot></RingBufferTarget>",
        TestName = "NotAHistogram"
    )]
    public void Read_LeavesSlotsToTheXmlReader_WhenTheyAreNotOfThePlainForm(string xml)
    {
        // Some of these are errors; the comparison checks they are the same errors.
        Assert.That(LiftedSlots(xml), Is.Zero);
        AssertSameWithAndWithoutLifting(xml, "case");
    }

    [Test]
    public void Read_GivesTheSameSlotsAndErrors_WithAndWithoutLifting_OnGeneratedHistograms()
    {
        int errors = 0;
        long lifted = 0;
        for (int seed = 1; seed <= 3000; seed++)
        {
            string xml = GenerateHistogram(new Random(seed));
            errors += AssertSameWithAndWithoutLifting(xml, "seed " + seed.ToString(CultureInfo.InvariantCulture))
                ? 0
                : 1;
            lifted += LiftedSlots(xml);
        }

        TestContext.Out.WriteLine($"{errors} of 3,000 documents malformed, {lifted} slots lifted");
        Assert.That(errors, Is.InRange(100, 2900), "the generated documents should mix well-formed and malformed ones");
        Assert.That(lifted, Is.GreaterThan(5_000), "the generated slots should be lifted in many documents");
    }

    [Test]
    public void Read_GivesTheSameValues_WhenValuesCrossTheBufferOrExceedTheLimit()
    {
        var sb = new StringBuilder("<HistogramTarget truncated=\"0\" buckets=\"16\">\n");
        for (int i = 0; i < 40; i++)
        {
            int lines = i * 97 % 3001;
            sb.Append("<Slot count=\"1\"><value>");
            for (int l = 0; l < lines; l++)
            {
                sb.Append(CultureInfo.InvariantCulture, $"sqlmin.dll+0x{l * 7919 + i:X16}")
                    .Append(l % 5 == 0 ? "\r\n" : "\n");
            }

            sb.Append("tail</value></Slot>\n");
        }

        sb.Append("</HistogramTarget>\n");
        string xml = sb.ToString();
        Assert.That(xml, Has.Length.GreaterThan(3 * 64 * 1024), "values must cross the reader's 64K buffer");
        AssertSameWithAndWithoutLifting(xml, "long values");
        var small = new TextInputLimits { MaxValueLength = 20_000 };
        Assert.That(
            AssertSameWithAndWithoutLifting(xml, "limit", small),
            Is.False,
            "a value over the limit is an error either way"
        );
    }

    [Test]
    public void Read_GivesTheSameStacks_WithAndWithoutLifting_ForRingBufferEvents()
    {
        string xml =
            "<RingBufferTarget truncated=\"0\" eventCount=\"2\">\r\n<event name=\"latch_acquired\" "
            + "package=\"sqlserver\" timestamp=\"2024-01-01T00:00:00.000Z\">"
            + "<data name=\"mode\"><type name=\"latch_mode\" "
            + "package=\"sqlserver\"/><value>2</value><text>SH</text></data>\r\n"
            + "<action name=\"callstack\" package=\"package0\"><type name=\"callstack\" "
            + "package=\"package0\"/><value>0x00007FF8A1B2C3D4\r\n0x00007FF8A1B2C3E0</value></action></event>\r\n"
            + "<event name=\"x\" package=\"sqlserver\"><action name=\"callstack\" "
            + "package=\"package0\"><value>sqlmin.dll+0x10</value></action></event>\r\n</RingBufferTarget>";
        AssertSameWithAndWithoutLifting(xml, "ring buffer");
        IReadOnlyList<Callstack> a = StackTextReader.Parse(xml, new StackTextReaderOptions { LiftValues = false });
        IReadOnlyList<Callstack> b = StackTextReader.Parse(xml);
        Assert.That(Dump(b), Is.EqualTo(Dump(a)));
        Assert.That(b.Sum(s => s.Frames.Length), Is.EqualTo(3));
    }

    /// <summary>How many slots a stack reader lifts from <paramref name="xml"/>, read to its end or to its
    /// error.</summary>
    private static long LiftedSlots(string xml)
    {
        using var reader = new StackTextReader(new StringReader(xml));
        try
        {
            _ = reader.ReadStacks().ToList();
        }
        catch (InvalidTextInputException)
        {
            // Malformed: the slots lifted before the error still count.
        }

        return reader.LiftedSlots;
    }

    /// <summary>Reads <paramref name="xml"/> with lifting on and off; asserts both give the same elements, or the same
    /// error. True when both read it.</summary>
    private static bool AssertSameWithAndWithoutLifting(string xml, string name, TextInputLimits? limits = null)
    {
        limits ??= TextInputLimits.Default;
        string plain = ReadAll(
            xml,
            new TargetDataReaderOptions
            {
                LiftValues = false,
                Limits = limits,
                FilePath = "t.xml",
            }
        );
        string lifted = ReadAll(xml, new TargetDataReaderOptions { Limits = limits, FilePath = "t.xml" });
        Assert.That(lifted, Is.EqualTo(plain), name + ":\n" + xml);
        return !plain.StartsWith("ERROR", StringComparison.Ordinal);
    }

    private static string ReadAll(string xml, TargetDataReaderOptions options)
    {
        var list = new List<TargetDataElement>();
        try
        {
            foreach (TargetDataElement e in TargetDataReader.Read(new StringReader(xml), options))
            {
                list.Add(e);
            }

            return Dump(list);
        }
        catch (InvalidTextInputException ex)
        {
            return "ERROR " + ex.Message + " after " + Dump(list);
        }
    }

    // Random documents: roots, slots and events with values made of plain runs and pieces that must go through the XML
    // reader (references, CDATA, comments, processing instructions, child elements, non-ASCII, ']]>', stray '<'), CR LF
    // and lone CR, several values on one line, value tags with blanks, empty values and a few truncated or mismatched
    // documents.
    private static string Generate(Random r)
    {
        string[] pieces =
        [
            "sqlmin.dll+0x0000000000001063",
            "0x00007FF8A1B2C3D4",
            "\n",
            "\n",
            "\r\n",
            "\r",
            "\t",
            " ",
            "abc",
            "a > b",
            "[x]",
            "&amp;",
            "&lt;",
            "&#x41;",
            "<![CDATA[<value>in</value>]]>",
            "<!-- <value>c</value> -->",
            "<?pi <value>p</value>?>",
            "<frame pdb=\"a.pdb\" rva=\"0x10\"/>",
            "\u00e9",
            "\U0001F600",
            "]]>",
            "<",
            "&",
            "\u0001",
            "<value>nested</value>",
            "</value",
        ];
        var sb = new StringBuilder();
        if (r.Next(4) == 0)
        {
            sb.Append("free text before\n");
        }

        int roots = r.Next(1, 3);
        for (int root = 0; root < roots; root++)
        {
            bool ring = r.Next(3) == 0;
            sb.Append(
                ring ? "<RingBufferTarget truncated=\"0\">" : "<HistogramTarget truncated=\"0\" buckets=\"256\">"
            );
            int items = r.Next(0, 6);
            for (int i = 0; i < items; i++)
            {
                sb.Append(
                    r.Next(3) switch
                    {
                        0 => "\n  ",
                        1 => "\r\n",
                        _ => string.Empty,
                    }
                );
                sb.Append(
                    ring
                        ? "<event name=\""
                            + (r.Next(3) == 0 ? "\U0001F600\t\u00e9" : "e")
                            + "\"><action name=\"callstack\">"
                        : "<Slot count=\"" + r.Next(1, 99).ToString(CultureInfo.InvariantCulture) + "\">"
                );
                if (r.Next(6) == 0)
                {
                    sb.Append("<!-- note -->");
                }

                int values = r.Next(10) == 0 ? 2 : 1;
                for (int v = 0; v < values; v++)
                {
                    sb.Append(r.Next(12) == 0 ? "<value >" : "<value>");
                    int n = r.Next(0, 12);
                    for (int k = 0; k < n; k++)
                    {
                        sb.Append(r.Next(3) == 0 ? pieces[r.Next(pieces.Length)] : pieces[r.Next(3)]);
                    }

                    sb.Append("</value>");
                }

                sb.Append(ring ? "</action></event>" : "</Slot>");
            }

            switch (r.Next(40))
            {
                case 0:
                    break; // unclosed root
                case 1:
                    sb.Append(ring ? "</HistogramTarget>" : "</RingBufferTarget>");
                    break;
                default:
                    sb.Append(r.Next(2) == 0 ? "\n" : string.Empty)
                        .Append(ring ? "</RingBufferTarget>" : "</HistogramTarget>");
                    break;
            }

            sb.Append(r.Next(3) == 0 ? "\r\ntext between\r\n" : "\n");
        }

        return sb.ToString();
    }

    // Random histograms made mostly of slots in SQL Server's plain form, mixed with forms close to it that must be left
    // to the XML reader (other quoting, attributes, blanks and line breaks in tags, empty or several values, comments,
    // elements and text between slots, nested slots, plain values that are not, stray end tags), and truncated,
    // mismatched or depth-limited documents.
    private static string GenerateHistogram(Random r)
    {
        string[] frames =
        [
            "sqlmin.dll+0x0000000000001063",
            "sqldk.dll+0x0000000000002920",
            "0x00007FF8A1B2C3D4",
            "a > b",
            "[x]",
            "\t x",
        ];
        string[] breaks = ["\n", "\r\n", "\r", "\n    ", string.Empty, " "];
        string[] odd =
        [
            "<Slot count='4'>",
            "<Slot count = \"4\">",
            "<Slot\ncount=\"4\">",
            "<Slot count=\"4\" x=\"y\">",
            "<Slot count=\"4\" count=\"5\">",
            "<Slot trunc=\"4\">",
            "<Slot count=\"99999999999999999999\">",
            "<Slot count=\"\">",
            "<Slot count=\"4\" trunc=\"x\">",
            "<Slots count=\"4\">",
        ];
        var sb = new StringBuilder();
        int roots = r.Next(1, 3);
        for (int root = 0; root < roots; root++)
        {
            sb.Append(r.Next(8) == 0 ? "<Slots>" : "<HistogramTarget truncated=\"0\" buckets=\"256\">");
            string close = sb.ToString().EndsWith("<Slots>", StringComparison.Ordinal)
                ? "</Slots>"
                : "</HistogramTarget>";
            int slots = r.Next(0, 40);
            for (int i = 0; i < slots; i++)
            {
                sb.Append(breaks[r.Next(breaks.Length)]);
                int shape = r.Next(150);
                string start = shape switch
                {
                    0 => odd[r.Next(odd.Length)],
                    1 => "<Slot count=\""
                        + r.Next(100).ToString(CultureInfo.InvariantCulture)
                        + "\" trunc=\""
                        + r.Next(9).ToString(CultureInfo.InvariantCulture)
                        + "\">",
                    2 => "<Slot trunc=\"3\" count=\"0" + r.Next(100).ToString(CultureInfo.InvariantCulture) + "\">",
                    3 => "<Slot  count=\"7\"  >",
                    _ => "<Slot count=\"" + r.Next(1, 100_000).ToString(CultureInfo.InvariantCulture) + "\">",
                };
                sb.Append(start).Append(breaks[r.Next(breaks.Length)]);
                switch (r.Next(200))
                {
                    case 0:
                        sb.Append("<!-- note -->");
                        break;
                    case 1:
                        sb.Append("<Other/>");
                        break;
                    case 2:
                        sb.Append("<Slot count=\"1\"><value>nested</value></Slot>");
                        break;
                    case 3:
                        sb.Append("</Slot>");
                        break;
                    case 4:
                        sb.Append("<value >x</value>");
                        break;
                }

                int values = r.Next(25) == 0 ? r.Next(0, 3) : 1;
                for (int v = 0; v < values; v++)
                {
                    sb.Append("<value>");
                    int n = r.Next(12) == 0 ? 0 : r.Next(1, 8);
                    for (int k = 0; k < n; k++)
                    {
                        sb.Append(k > 0 ? (r.Next(5) == 0 ? "\r\n" : "\n") : string.Empty)
                            .Append(frames[r.Next(r.Next(10) == 0 ? frames.Length : 2)]);
                    }

                    sb.Append(
                            r.Next(100) switch
                            {
                                0 => "&amp;",
                                1 => "\u00e9",
                                2 => "]]>",
                                _ => string.Empty,
                            }
                        )
                        .Append("</value>");
                }

                sb.Append(breaks[r.Next(breaks.Length)]).Append(r.Next(50) == 0 ? "</Slot >" : "</Slot>");
                if (r.Next(150) == 0)
                {
                    sb.Append(r.Next(2) == 0 ? "text" : "<Other>x</Other>");
                }
            }

            switch (r.Next(12))
            {
                case 0:
                    break; // unclosed root
                case 1:
                    sb.Append(close == "</Slots>" ? "</HistogramTarget>" : "</Slots>");
                    break;
                case 2:
                    sb.Append("</Other>").Append(close);
                    break;
                default:
                    sb.Append(breaks[r.Next(breaks.Length)]).Append(close);
                    break;
            }

            sb.Append(r.Next(3) == 0 ? "\r\ntext between\r\n" : "\n");
        }

        return sb.ToString();
    }

    /// <summary>Every public property, recursively, in a stable order.</summary>
    private static string Dump(object? o)
    {
        var sb = new StringBuilder();
        Dump(o, sb, 0);
        return sb.ToString();
    }

    private static void Dump(object? o, StringBuilder sb, int depth)
    {
        if (depth > 8)
        {
            sb.Append('…');
            return;
        }

        switch (o)
        {
            case null:
                sb.Append("null");
                return;
            case string s:
                sb.Append('"')
                    .Append(
                        s.Replace("\r", "\\r", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal)
                    )
                    .Append('"');
                return;
            case IFormattable f when o.GetType().IsPrimitive || o is Enum:
                sb.Append(f.ToString(null, CultureInfo.InvariantCulture));
                return;
            case bool b:
                sb.Append(b ? "true" : "false");
                return;
            case IEnumerable e:
                sb.Append('[');
                foreach (object? item in e)
                {
                    Dump(item, sb, depth + 1);
                    sb.Append(", ");
                }

                sb.Append(']');
                return;
        }

        Type t = o.GetType();
        if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(KeyValuePair<,>))
        {
            sb.Append(t.GetProperty("Key")!.GetValue(o)).Append('=').Append(t.GetProperty("Value")!.GetValue(o));
            return;
        }

        sb.Append(t.Name).Append('{');
        foreach (
            PropertyInfo p in t.GetProperties(BindingFlags.Public | BindingFlags.Instance)
                .Where(p => p.GetIndexParameters().Length == 0)
                .OrderBy(p => p.Name, StringComparer.Ordinal)
        )
        {
            sb.Append(p.Name).Append('=');
            Dump(p.GetValue(o), sb, depth + 1);
            sb.Append(' ');
        }

        sb.Append('}');
    }
}

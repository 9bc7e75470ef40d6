using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.TargetData;

/// <summary>
/// Plain-text values taken out of the XML before the XML reader sees them (TextSource.TakeLiftedValue) must change nothing: every
/// element, value, line number, warning and error message is the same with the fast path on and off, on generated documents that
/// mix plain values with everything that must leave a value to the XML reader.
/// </summary>
public class LiftedValueTests
{
    [Test]
    public void Read_TakesPlainHistogramValuesOutOfTheXml()
    {
        string xml = "<HistogramTarget truncated=\"0\" buckets=\"16\">\n  <Slot count=\"3\">\n    <value>sqldk.dll+0x0000000000001234\nsqlmin.dll+0x0000000000005678</value>\n  </Slot>\n" +
                     "  <Slot count=\"2\"><value>a</value></Slot><Slot count=\"1\"><value>b\r\nc\rd</value></Slot>\n</HistogramTarget>";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.EqualTo(3), "every value is plain text, so none goes through the XML reader's text scan");
        Assert.That(stacks[2].Lines.Select(l => l.Text), Is.EqualTo(new[] { "b", "c", "d" }));
        Assert.That(stacks[2].Lines.Select(l => l.LineNumber), Is.EqualTo(new long[] { 6, 7, 8 }));
    }

    [Test]
    public void Read_TakesValuesOut_AfterWideCharactersOnTheSameLine()
    {
        // Columns count UTF-16 code units, as the XML reader does: a surrogate pair, a TAB and a non-ASCII letter before the value.
        string xml = "<RingBufferTarget><event name=\"\U0001F600\t\u00e9\"><action name=\"callstack\"><value>sqlmin.dll+0x10\nsqlmin.dll+0x20</value></action></event>" +
                     "<event name=\"\U0001F600\"><data name=\"x\"><value>caf\u00e9</value></data><action name=\"callstack\"><value>sqlmin.dll+0x30</value></action></event></RingBufferTarget>";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.EqualTo(2));
        Assert.That(stacks.SelectMany(s => s.Lines).Select(l => l.Text), Is.EqualTo(new[] { "sqlmin.dll+0x10", "sqlmin.dll+0x20", "sqlmin.dll+0x30" }));
        AssertSameWithAndWithoutLifting(xml, "wide characters");
    }

    [Test]
    public void Read_TakesValuesOut_OfAnHtmlEscapedTarget()
    {
        // An SSMS grid copy of target_data: the whole target HTML-escaped; the values are plain once decoded.
        string xml = "&lt;HistogramTarget truncated=\"0\" buckets=\"16\"&gt;\r\n  &lt;Slot count=\"4\"&gt;&lt;value&gt;sqlmin.dll+0x10\r\nsqlmin.dll+0x20&lt;/value&gt;&lt;/Slot&gt;\r\n&lt;/HistogramTarget&gt;";
        using var reader = new StackTextReader(new StringReader(xml));
        List<Callstack> stacks = reader.ReadStacks().ToList();
        Assert.That(reader.LiftedValues, Is.EqualTo(1));
        Assert.That(stacks.Single().Lines.Select(l => (l.Text, l.LineNumber)), Is.EqualTo(new[] { ("sqlmin.dll+0x10", 2L), ("sqlmin.dll+0x20", 3L) }));
        AssertSameWithAndWithoutLifting(xml, "escaped");
    }

    [TestCase("<HistogramTarget><Slot count=\"1\"><value>a &amp; b</value></Slot></HistogramTarget>", TestName = "Reference")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value><![CDATA[a]]></value></Slot></HistogramTarget>", TestName = "CDATA")]
    [TestCase("<HistogramTarget><!-- x --><Slot count=\"1\"><value>a</value></Slot></HistogramTarget>", TestName = "CommentBefore")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value>caf\u00e9</value></Slot></HistogramTarget>", TestName = "NonAscii")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value>a]b</value></Slot></HistogramTarget>", TestName = "Bracket")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value >a</value></Slot></HistogramTarget>", TestName = "BlankInTag")]
    [TestCase("<HistogramTarget><Slot count=\"1\"><value>a<frame/></value></Slot></HistogramTarget>", TestName = "ChildElement")]
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
            errors += AssertSameWithAndWithoutLifting(xml, "seed " + seed.ToString(CultureInfo.InvariantCulture)) ? 0 : 1;
        }

        // The generator makes malformed documents too, so both paths are compared on their errors as well.
        Assert.That(errors, Is.InRange(100, 2900), "the generated documents should mix well-formed and malformed ones");
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
                sb.Append(CultureInfo.InvariantCulture, $"sqlmin.dll+0x{l * 7919 + i:X16}").Append(l % 5 == 0 ? "\r\n" : "\n");
            }

            sb.Append("tail</value></Slot>\n");
        }

        sb.Append("</HistogramTarget>\n");
        string xml = sb.ToString();
        Assert.That(xml, Has.Length.GreaterThan(3 * 64 * 1024), "values must cross the reader's 64K buffer");
        AssertSameWithAndWithoutLifting(xml, "long values");
        var small = new TextInputLimits { MaxValueLength = 20_000 };
        Assert.That(AssertSameWithAndWithoutLifting(xml, "limit", small), Is.False, "a value over the limit is an error either way");
    }

    [Test]
    public void Read_GivesTheSameStacks_WithAndWithoutLifting_ForRingBufferEvents()
    {
        string xml = "<RingBufferTarget truncated=\"0\" eventCount=\"2\">\r\n<event name=\"latch_acquired\" package=\"sqlserver\" timestamp=\"2024-01-01T00:00:00.000Z\">" +
                     "<data name=\"mode\"><type name=\"latch_mode\" package=\"sqlserver\"/><value>2</value><text>SH</text></data>\r\n" +
                     "<action name=\"callstack\" package=\"package0\"><type name=\"callstack\" package=\"package0\"/><value>0x00007FF8A1B2C3D4\r\n0x00007FF8A1B2C3E0</value></action></event>\r\n" +
                     "<event name=\"x\" package=\"sqlserver\"><action name=\"callstack\" package=\"package0\"><value>sqlmin.dll+0x10</value></action></event>\r\n</RingBufferTarget>";
        AssertSameWithAndWithoutLifting(xml, "ring buffer");
        IReadOnlyList<Callstack> a = StackTextReader.Parse(xml, new StackTextReaderOptions { LiftValues = false });
        IReadOnlyList<Callstack> b = StackTextReader.Parse(xml);
        Assert.That(Dump(b), Is.EqualTo(Dump(a)));
        Assert.That(b.Sum(s => s.Frames.Length), Is.EqualTo(3));
    }

    /// <summary>Reads <paramref name="xml"/> with lifting on and off; asserts both give the same elements, or the same error. True when both read it.</summary>
    private static bool AssertSameWithAndWithoutLifting(string xml, string name, TextInputLimits? limits = null)
    {
        limits ??= TextInputLimits.Default;
        string plain = ReadAll(xml, new TargetDataReaderOptions { LiftValues = false, Limits = limits, FilePath = "t.xml" });
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

    // Random documents: roots, slots and events with values made of plain runs and pieces that must go through the XML reader
    // (references, CDATA, comments, processing instructions, child elements, non-ASCII, ']]>', stray '<'), CR LF and lone CR,
    // several values on one line, value tags with blanks, empty values and a few truncated or mismatched documents.
    private static string Generate(Random r)
    {
        string[] pieces =
        [
            "sqlmin.dll+0x0000000000001063", "0x00007FF8A1B2C3D4", "\n", "\n", "\r\n", "\r", "\t", " ", "abc", "a > b", "[x]",
            "&amp;", "&lt;", "&#x41;", "<![CDATA[<value>in</value>]]>", "<!-- <value>c</value> -->", "<?pi <value>p</value>?>",
            "<frame pdb=\"a.pdb\" rva=\"0x10\"/>", "\u00e9", "\U0001F600", "]]>", "<", "&", "\u0001", "<value>nested</value>", "</value",
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
            sb.Append(ring ? "<RingBufferTarget truncated=\"0\">" : "<HistogramTarget truncated=\"0\" buckets=\"256\">");
            int items = r.Next(0, 6);
            for (int i = 0; i < items; i++)
            {
                sb.Append(r.Next(3) switch { 0 => "\n  ", 1 => "\r\n", _ => string.Empty });
                sb.Append(ring ? "<event name=\"" + (r.Next(3) == 0 ? "\U0001F600\t\u00e9" : "e") + "\"><action name=\"callstack\">" : "<Slot count=\"" + r.Next(1, 99).ToString(CultureInfo.InvariantCulture) + "\">");
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
                    sb.Append(r.Next(2) == 0 ? "\n" : string.Empty).Append(ring ? "</RingBufferTarget>" : "</HistogramTarget>");
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
                sb.Append('"').Append(s.Replace("\r", "\\r", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal)).Append('"');
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
        foreach (PropertyInfo p in t.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.GetIndexParameters().Length == 0).OrderBy(p => p.Name, StringComparer.Ordinal))
        {
            sb.Append(p.Name).Append('=');
            Dump(p.GetValue(o), sb, depth + 1);
            sb.Append(' ');
        }

        sb.Append('}');
    }
}

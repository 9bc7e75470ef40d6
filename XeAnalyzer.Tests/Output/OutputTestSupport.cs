using System.Globalization;
using System.Text;
using System.Xml;
using System.Xml.Linq;
using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

/// <summary>Helpers shared by the output tests: run writers into memory, switch cultures, parse SVG/HTML.</summary>
internal static class OutputTestSupport
{
    public static readonly XNamespace SvgNs = "http://www.w3.org/2000/svg";

    /// <summary>Real ICU cultures whose number formats differ from the invariant culture (de-DE: "1.234,5"; tr-TR:
    /// dotted/dotless i).</summary>
    public static CultureInfo[] HostileCultures()
    {
        var de = CultureInfo.GetCultureInfo("de-DE");
        var tr = CultureInfo.GetCultureInfo("tr-TR");
        // Guard: if globalization were invariant these would silently behave like the invariant culture and prove
        // nothing.
        Assert.That(
            de.NumberFormat.NumberDecimalSeparator,
            Is.EqualTo(","),
            "de-DE must be a real culture (InvariantGlobalization must be off in the test project)"
        );
        Assert.That("i".ToUpper(tr), Is.EqualTo("\u0130"), "tr-TR must be a real culture");
        return [de, tr];
    }

    public static T WithCulture<T>(CultureInfo culture, Func<T> action)
    {
        CultureInfo saved = CultureInfo.CurrentCulture;
        CultureInfo savedUi = CultureInfo.CurrentUICulture;
        try
        {
            CultureInfo.CurrentCulture = culture;
            CultureInfo.CurrentUICulture = culture;
            return action();
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
            CultureInfo.CurrentUICulture = savedUi;
        }
    }

    public static byte[] Write(IReportWriter writer, ReportDocument report)
    {
        using var ms = new MemoryStream();
        writer.Write(report, ms);
        return ms.ToArray();
    }

    /// <summary>Writes a call tree with a flame format: the tree as the flame graph of a one-block document titled
    /// "XeAnalyzer".</summary>
    public static byte[] Write(IReportWriter writer, CallTree tree, FlameGraphOptions? options = null) =>
        Write(writer, ReportDocument.Of("XeAnalyzer", new FlameGraph(tree, options)));

    public static string Utf8(byte[] bytes)
    {
        Assert.That(
            bytes.Length < 3 || bytes[0] != 0xEF || bytes[1] != 0xBB || bytes[2] != 0xBF,
            Is.True,
            "output must not start with a UTF-8 BOM"
        );
        return new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(bytes);
    }

    public static XDocument ParseXml(string text)
    {
        var settings = new XmlReaderSettings { DtdProcessing = DtdProcessing.Ignore, XmlResolver = null };
        using var reader = XmlReader.Create(new StringReader(text), settings);
        return XDocument.Load(reader);
    }

    public static double Attr(XElement e, string name) =>
        double.Parse(
            e.Attribute(name)?.Value ?? throw new AssertionException($"<{e.Name.LocalName}> has no {name}"),
            CultureInfo.InvariantCulture
        );

    public static bool HasClass(XElement e, string cls) =>
        (e.Attribute("class")?.Value ?? string.Empty).Split(' ').Contains(cls, StringComparer.Ordinal);

    public static ReportDocument Doc(params ReportBlock[] blocks) =>
        new("Test report", [new ReportSection("Section", blocks)]);

    /// <summary>Names no output may execute or break on: markup, entities, quotes, separators, controls, a lone
    /// surrogate.</summary>
    public static readonly string[] HostileNames =
    [
        "<script>alert('x')</script>",
        "a&b &amp; <img src=x onerror=alert(1)>",
        "\"double\" and 'single' quotes",
        "semi;colon;frame",
        "new\nline\r\nand\ttab",
        "nul\0bell\u0007esc\u001b[31m",
        "lone\uD800surrogate",
        "rtl\u202Eoverride",
    ];
}

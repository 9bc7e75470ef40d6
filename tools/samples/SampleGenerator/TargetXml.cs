using System.Globalization;
using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Target data as SQL Server renders it in <c>sys.dm_xe_session_targets.target_data</c> (XE-TEXT-SHAPES §2, §6, §7):
/// histogram, event_counter and ring_buffer XML, and the <c>sys.dm_xe_map_values</c> text that goes with a histogram on
/// a map field. LF line ends, no BOM, two-space indentation as in the public saved targets.
/// </summary>
internal static class TargetXml
{
    /// <summary>
    /// A histogram target: <c>&lt;HistogramTarget truncated="0" buckets="256"&gt;</c>, one <c>&lt;Slot
    /// count="N"&gt;&lt;value&gt;…&lt;/value&gt;&lt;/Slot&gt;</c> per value in the order given (callers give descending
    /// counts, as the server does).
    /// </summary>
    public static string Histogram(IEnumerable<(string Value, long Count)> slots, int buckets = 256)
    {
        var sb = new StringBuilder();
        sb.Append("<HistogramTarget truncated=\"0\" buckets=\"").Append(Output.N(buckets)).Append("\">\n");
        int n = 0;
        foreach ((string value, long count) in slots)
        {
            sb.Append("  <Slot count=\"").Append(Output.N(count)).Append("\">\n");
            sb.Append("    <value>").Append(Escape(value)).Append("</value>\n");
            sb.Append("  </Slot>\n");
            n++;
        }

        if (n >= buckets)
        {
            throw new InvalidOperationException(
                "A histogram sample must have fewer slots than buckets (slots reaching buckets means merged values)."
            );
        }

        sb.Append("</HistogramTarget>\n");
        return sb.ToString();
    }

    /// <summary>An event_counter target with one counted event.</summary>
    public static string EventCounter(string package, string eventName, long count) =>
        "<CounterTarget truncated=\"0\">\n  <Packages>\n    <Package name=\""
        + Escape(package)
        + "\">\n      <Event name=\""
        + Escape(eventName)
        + "\" count=\""
        + Output.N(count)
        + "\" />\n    </Package>\n  </Packages>\n</CounterTarget>\n";

    /// <summary>
    /// The tab-separated output of <c>select name, map_key, map_value from sys.dm_xe_map_values where name in (…)</c>
    /// saved with its header line: <c>name\tmap_key\tmap_value</c>, one line per key, maps in the order given, keys
    /// ascending.
    /// </summary>
    public static string MapValues(IEnumerable<XeMap> maps)
    {
        var sb = new StringBuilder("name\tmap_key\tmap_value\n");
        foreach (XeMap map in maps)
        {
            foreach (XeMapEntry e in map.Entries.OrderBy(e => e.Key))
            {
                sb.Append(map.Name)
                    .Append('\t')
                    .Append(e.Key.ToString(CultureInfo.InvariantCulture))
                    .Append('\t')
                    .Append(e.Name)
                    .Append('\n');
            }
        }

        return sb.ToString();
    }

    /// <summary>
    /// A ring_buffer target holding <paramref name="ordered"/>, in that order: each event with its fields
    /// (<c>&lt;data&gt;</c>: the type, the value, and for map fields the map text) and actions (<c>&lt;action&gt;</c>),
    /// timestamps with 7 fraction digits (the server writes 3; 7 keep the times of the <c>.xel</c> exactly).
    /// </summary>
    public static string RingBuffer(DateTime sessionStartUtc, IReadOnlyList<PendingEvent> ordered)
    {
        var events = new StringBuilder();
        long memoryUsed = 0;
        foreach (PendingEvent e in ordered)
        {
            int start = events.Length;
            events
                .Append("  <event name=\"")
                .Append(e.Type.Name)
                .Append("\" package=\"")
                .Append(e.Type.Package.Name)
                .Append("\" timestamp=\"")
                .Append(Output.Iso(sessionStartUtc.AddTicks(e.Tick)))
                .Append("\">\n");
            for (int i = 0; i < e.Fields.Length; i++)
            {
                Value(events, "data", e.Type.Fields[i], e.Fields[i]);
            }

            foreach (XeValue a in e.Actions)
            {
                Value(events, "action", a.Column!, a);
            }

            events.Append("  </event>\n");
            memoryUsed += events.Length - start;
        }

        // The attributes a SQL Server 2017 ring_buffer carries; memoryUsed is not the engine's figure (it counts the
        // bytes of this XML's events).
        return "<RingBufferTarget truncated=\"0\" processingTime=\"0\" totalEventsProcessed=\""
            + Output.N(ordered.Count)
            + "\" eventCount=\""
            + Output.N(ordered.Count)
            + "\" droppedCount=\"0\" memoryUsed=\""
            + Output.N(memoryUsed)
            + "\">\n"
            + events
            + "</RingBufferTarget>\n";
    }

    private static void Value(StringBuilder sb, string element, XeColumn column, XeValue v)
    {
        sb.Append("    <").Append(element).Append(" name=\"").Append(column.Name).Append('"');
        if (element == "action")
        {
            sb.Append(" package=\"").Append(column.Package.Name).Append('"');
        }

        sb.Append(">\n");
        string? text = null;
        string value;
        if (column.Map is XeMap map)
        {
            sb.Append("      <type name=\"")
                .Append(map.Name)
                .Append("\" package=\"")
                .Append(map.Package.Name)
                .Append("\" />\n");
            value = v.AsUInt64().ToString(CultureInfo.InvariantCulture);
            text = map.TryGetName(v.AsUInt64(), out string? name)
                ? name
                : throw new InvalidOperationException("Map " + map.Name + " has no key " + value);
        }
        else
        {
            XeBaseType bt = column.BaseType;
            sb.Append("      <type name=\"").Append(TypeName(bt)).Append("\" package=\"package0\" />\n");
            value = bt switch
            {
                XeBaseType.Pointer => "0x" + v.AsUInt64().ToString("x16", CultureInfo.InvariantCulture),
                XeBaseType.UnicodeString => v.AsString(),
                XeBaseType.UInt8 or XeBaseType.UInt16 or XeBaseType.UInt32 or XeBaseType.UInt64 => v.AsUInt64()
                    .ToString(CultureInfo.InvariantCulture),
                _ => throw new InvalidOperationException("The ring_buffer sample does not render " + bt + " values."),
            };
        }

        sb.Append(value.Length == 0 ? "      <value />\n" : "      <value>" + Escape(value) + "</value>\n");
        if (text is not null)
        {
            sb.Append("      <text>").Append(Escape(text)).Append("</text>\n");
        }

        sb.Append("    </").Append(element).Append(">\n");
    }

    private static string TypeName(XeBaseType bt) =>
        bt switch
        {
            XeBaseType.Pointer => "ptr",
            XeBaseType.UnicodeString => "unicode_string",
            XeBaseType.UInt8 => "uint8",
            XeBaseType.UInt16 => "uint16",
            XeBaseType.UInt32 => "uint32",
            XeBaseType.UInt64 => "uint64",
            _ => throw new InvalidOperationException("No type name for " + bt),
        };

    /// <summary>Escapes text for XML content and attributes.</summary>
    public static string Escape(string s) =>
        s.Replace("&", "&amp;", StringComparison.Ordinal)
            .Replace("<", "&lt;", StringComparison.Ordinal)
            .Replace(">", "&gt;", StringComparison.Ordinal)
            .Replace("\"", "&quot;", StringComparison.Ordinal);
}

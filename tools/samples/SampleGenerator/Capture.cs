using System.Globalization;
using System.Text;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.SampleGenerator;

/// <summary>One event of a sample's model, before it is given its <c>event_sequence</c> and written.</summary>
internal sealed class PendingEvent
{
    /// <summary>Time in 100 ns ticks since the session start (the file name's FILETIME).</summary>
    public required long Tick { get; set; }

    /// <summary>Per-CPU buffer slot (the scheduler's CPU).</summary>
    public required int Slot { get; init; }

    /// <summary>Orders events that share a tick (random, so equal times are not in slot order).</summary>
    public long TieBreak { get; set; }

    /// <summary>The event type.</summary>
    public required XeEventType Type { get; init; }

    /// <summary>Field values in field order.</summary>
    public required XeValue[] Fields { get; init; }

    /// <summary>Action values; the one empty entry (<c>default</c>) becomes the <c>event_sequence</c> when the order is
    /// known.</summary>
    public required XeValue[] Actions { get; init; }

    /// <summary>The <c>event_sequence</c> action column, or <see langword="null"/> for events without that
    /// action.</summary>
    public required XeColumn? SequenceColumn { get; init; }

    /// <summary>The event's <c>package0.event_sequence</c>: its rank in true (time, then tie-break) order, from
    /// 1.</summary>
    public ulong Sequence { get; private set; }

    /// <summary>The session (for figures).</summary>
    public ushort SessionId { get; init; }

    /// <summary>Model data (for figures).</summary>
    public object? Tag { get; init; }

    /// <summary>Sorts events into true order, numbers them 1..N and stores the number in the event_sequence
    /// action.</summary>
    public static List<PendingEvent> Order(IEnumerable<PendingEvent> events)
    {
        List<PendingEvent> ordered = [.. events.OrderBy(e => e.Tick).ThenBy(e => e.TieBreak)];
        for (int i = 0; i < ordered.Count; i++)
        {
            PendingEvent e = ordered[i];
            e.Sequence = (ulong)(i + 1);
            if (e.SequenceColumn is null)
            {
                if (Array.FindIndex(e.Actions, a => !a.HasValue) >= 0)
                {
                    throw new InvalidOperationException(
                        "Event " + e.Type.FullName + " has an empty action value but no event_sequence column."
                    );
                }

                continue;
            }

            int at = Array.FindIndex(e.Actions, a => !a.HasValue);
            if (at < 0 || Array.FindIndex(e.Actions, at + 1, a => !a.HasValue) >= 0)
            {
                throw new InvalidOperationException(
                    "Event "
                        + e.Type.FullName
                        + " needs exactly one empty action value (the event_sequence placeholder)."
                );
            }

            e.Actions[at] = XeValue.Create(e.SequenceColumn, e.Sequence);
        }

        return ordered;
    }
}

/// <summary>Writes files of the samples: captures, text, and the figures that the README quotes.</summary>
internal static class Output
{
    /// <summary>UTF-8 without a byte order mark.</summary>
    public static readonly Encoding Utf8 = new UTF8Encoding(false);

    /// <summary>The rollover file name SQL Server gives the first file of a session:
    /// <c>&lt;set&gt;_0_&lt;FILETIME&gt;.xel</c>.</summary>
    public static string RolloverName(string setName, DateTime sessionStartUtc) =>
        setName + "_0_" + sessionStartUtc.ToFileTimeUtc().ToString(CultureInfo.InvariantCulture) + ".xel";

    /// <summary>Writes events (already in true order) with <see cref="XelWriter"/>, each into its per-CPU
    /// slot.</summary>
    public static void WriteXel(
        string path,
        XeSchema schema,
        DateTime sessionStartUtc,
        Guid signature,
        IEnumerable<PendingEvent> ordered
    )
    {
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        var options = new XelWriterOptions
        {
            StartTimeUtc = sessionStartUtc,
            Partitions = 64,
            BufferSize = 64 * 1024,
            SplitMetadata = true,
            Signature = signature,
        };
        using XelWriter w = XelWriter.Create(path, schema, options);
        foreach (PendingEvent e in ordered)
        {
            w.Write(e.Type, sessionStartUtc.AddTicks(e.Tick), e.Fields, e.Actions, e.Slot);
        }
    }

    /// <summary>Writes text with LF line ends, UTF-8 without BOM.</summary>
    public static void WriteText(string path, string text)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        if (text.Contains('\r', StringComparison.Ordinal))
        {
            throw new InvalidOperationException(path + ": text must use LF line ends.");
        }

        File.WriteAllText(path, text, Utf8);
    }

    /// <summary>An ISO 8601 UTC time with 100 ns digits: <c>2024-05-14T09:31:12.4440000Z</c>.</summary>
    public static string Iso(DateTime utc) =>
        utc.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture);

    /// <summary>Invariant decimal text of a number.</summary>
    public static string N(long v) => v.ToString(CultureInfo.InvariantCulture);

    /// <summary>Invariant decimal text of a number with thousands separators (for prose).</summary>
    public static string Grouped(long v) => v.ToString("#,0", CultureInfo.InvariantCulture);

    /// <summary><paramref name="part"/> / <paramref name="whole"/> as a percentage with two decimals, rounded half away
    /// from zero (<c>93.50</c>).</summary>
    public static string Percent(long part, long whole) =>
        Math.Round(100m * part / whole, 2, MidpointRounding.AwayFromZero)
            .ToString("0.00", CultureInfo.InvariantCulture);

    /// <summary>A TSV text as a Markdown table (an empty cell shown as <c>(empty)</c>).</summary>
    public static string Markdown(string tsv)
    {
        string[] lines = tsv.TrimEnd('\n').Split('\n');
        var sb = new StringBuilder();
        string[] header = lines[0].Split('\t');
        sb.Append("| ")
            .Append(string.Join(" | ", header))
            .Append(" |\n|")
            .Append(string.Concat(Enumerable.Repeat("---|", header.Length)))
            .Append('\n');
        foreach (string line in lines.Skip(1))
        {
            sb.Append("| ")
                .Append(string.Join(" | ", line.Split('\t').Select(c => c.Length == 0 ? "(empty)" : c)))
                .Append(" |\n");
        }

        return sb.ToString().TrimEnd('\n');
    }

    /// <summary><c>0x</c> + 16 upper-case hex digits.</summary>
    public static string Hex16(ulong v) => "0x" + v.ToString("X16", CultureInfo.InvariantCulture);
}

/// <summary>
/// Named quantities of one sample, computed by the generator from its own model (its inputs), never from reading the
/// files back. Written to <c>sample-xel/expected/&lt;set&gt;.figures.tsv</c> and substituted into the README template.
/// </summary>
internal sealed class Figures(string prefix)
{
    private readonly List<(string Key, string Value, string Meaning)> _rows = [];

    /// <summary>The placeholder prefix (<c>latch</c>, <c>memory</c>, <c>waits</c>).</summary>
    public string Prefix { get; } = prefix;

    /// <summary>The rows in insertion order.</summary>
    public IReadOnlyList<(string Key, string Value, string Meaning)> Rows => _rows;

    /// <summary>Markdown blocks for the README (not in the TSV), by name.</summary>
    public Dictionary<string, string> Blocks { get; } = new(StringComparer.Ordinal);

    /// <summary>Adds a text value.</summary>
    public void Add(string key, string value, string meaning)
    {
        if (
            key.Contains('\t', StringComparison.Ordinal)
            || value.Contains('\t', StringComparison.Ordinal)
            || value.Contains('\n', StringComparison.Ordinal)
        )
        {
            throw new ArgumentException("Figures must not contain TAB or LF: " + key);
        }

        if (_rows.Exists(r => string.Equals(r.Key, key, StringComparison.Ordinal)))
        {
            throw new ArgumentException("Figure " + key + " is defined twice.");
        }

        _rows.Add((key, value, meaning));
    }

    /// <summary>Adds an integer.</summary>
    public void Add(string key, long value, string meaning) => Add(key, Output.N(value), meaning);

    /// <summary>The TSV text: <c>name\tvalue\tmeaning</c>.</summary>
    public string ToTsv()
    {
        var sb = new StringBuilder("name\tvalue\tmeaning\n");
        foreach ((string k, string v, string m) in _rows)
        {
            sb.Append(k).Append('\t').Append(v).Append('\t').Append(m).Append('\n');
        }

        return sb.ToString();
    }
}

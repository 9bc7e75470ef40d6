using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Unicode;

namespace XeAnalyzer.Output;

/// <summary>
/// The JSON conventions every writer follows: <c>\n</c> line ends, one encoder, text from captures sanitised,
/// timestamps as ISO-8601 UTC strings, absent values as <c>null</c>.
/// </summary>
internal static class JsonOutput
{
    /// <summary>
    /// The encoder: keeps all non-ASCII letters readable but still escapes the characters that are unsafe when JSON
    /// ends up inside HTML (&lt; &gt; &amp; ' + `) and every control character.
    /// </summary>
    public static JavaScriptEncoder Encoder { get; } = JavaScriptEncoder.Create(UnicodeRanges.All);

    /// <summary>Writer options with <see cref="Encoder"/> and <c>\n</c> line ends.</summary>
    public static JsonWriterOptions Options(bool indented) =>
        new()
        {
            Indented = indented,
            NewLine = "\n",
            Encoder = Encoder,
        };

    /// <summary>Writes a property whose value is text not written by us: sanitised (see
    /// <see cref="TextEscaping.Sanitize"/>), or <c>null</c>.</summary>
    public static void WriteSafeString(this Utf8JsonWriter json, string name, string? value)
    {
        if (value is null)
        {
            json.WriteNull(name);
        }
        else
        {
            json.WriteString(name, TextEscaping.Sanitize(value));
        }
    }

    /// <summary>Writes a property holding an array of texts, each sanitised.</summary>
    public static void WriteSafeStrings(this Utf8JsonWriter json, string name, IEnumerable<string> values)
    {
        json.WriteStartArray(name);
        foreach (string v in values)
        {
            json.WriteStringValue(TextEscaping.Sanitize(v));
        }

        json.WriteEndArray();
    }

    /// <summary>Writes a timestamp as ISO-8601 UTC (<see cref="CellFormatter.IsoUtc"/>), or <c>null</c>.</summary>
    public static void WriteTimestamp(this Utf8JsonWriter json, string name, DateTime? value)
    {
        if (value is DateTime t)
        {
            json.WriteString(name, CellFormatter.IsoUtc(t));
        }
        else
        {
            json.WriteNull(name);
        }
    }

    /// <summary>
    /// Hands what the writer holds to the stream once it passes 32 KB, and checks for cancellation then: a large
    /// document is never held whole, and the writer's buffer stays below the large-object heap (85,000 bytes), so a
    /// report written per capture (batch) costs no full collection.
    /// </summary>
    public static void FlushIfLarge(this Utf8JsonWriter json, CancellationToken cancellationToken)
    {
        if (json.BytesPending > (1 << 15))
        {
            cancellationToken.ThrowIfCancellationRequested();
            json.Flush();
        }
    }
}

using System.Text.Json;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// Reads the JSON every document writes (<c>JsonReportWriter</c>: <c>{"format":"xeanalyzer-report", sections:[{title,
/// blocks}]}</c>) for tests: a table's rows by column name, a key/value item, the stack list. Blocks are found by type
/// and table title.
/// </summary>
internal static class DocumentJson
{
    /// <summary>Parses a document, checking that it is one.</summary>
    public static JsonElement Parse(string json)
    {
        using JsonDocument d = JsonDocument.Parse(json);
        JsonElement root = d.RootElement.Clone();
        Assert.That(root.GetProperty("format").GetString(), Is.EqualTo("xeanalyzer-report"));
        return root;
    }

    /// <summary>Parses a document file.</summary>
    public static JsonElement ParseFile(string path) => Parse(File.ReadAllText(path));

    /// <summary>Every block of every section, in order.</summary>
    public static IEnumerable<JsonElement> Blocks(JsonElement document) =>
        document.GetProperty("sections").EnumerateArray().SelectMany(s => s.GetProperty("blocks").EnumerateArray());

    /// <summary>The rows of the first table with this title, each as column name → cell.</summary>
    public static List<Dictionary<string, JsonElement>> Table(JsonElement document, string title)
    {
        JsonElement table = Blocks(document)
            .First(b => b.GetProperty("type").GetString() == "table" && b.GetProperty("title").GetString() == title);
        string[] columns =
        [
            .. table.GetProperty("columns").EnumerateArray().Select(c => c.GetProperty("name").GetString()!),
        ];
        return
        [
            .. table
                .GetProperty("rows")
                .EnumerateArray()
                .Select(r =>
                    columns.Zip(r.EnumerateArray()).ToDictionary(x => x.First, x => x.Second, StringComparer.Ordinal)
                ),
        ];
    }

    /// <summary>The value of the first key/value item with this key.</summary>
    public static JsonElement Value(JsonElement document, string key) =>
        Blocks(document)
            .Where(b => b.GetProperty("type").GetString() == "keyValues")
            .SelectMany(b => b.GetProperty("items").EnumerateArray())
            .First(i => i.GetProperty("key").GetString() == key)
            .GetProperty("value");

    /// <summary>The items of the first stack list (heading, details, frames).</summary>
    public static JsonElement[] Stacks(JsonElement document) =>
        [
            .. Blocks(document)
                .First(b => b.GetProperty("type").GetString() == "stackList")
                .GetProperty("items")
                .EnumerateArray(),
        ];

    /// <summary>The frame texts of a stack list item.</summary>
    public static string[] FrameTexts(JsonElement stack) =>
        [.. stack.GetProperty("frames").EnumerateArray().Select(f => f.GetProperty("text").GetString()!)];

    /// <summary>A <c>\n</c>-separated text cell split into its lines.</summary>
    public static string[] Lines(JsonElement cell) => cell.GetString()!.Split('\n');
}

using System.Globalization;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Capture;

/// <summary>
/// Map keys and their text for one or more Extended Events maps, as <c>sys.dm_xe_map_values</c> gives them: the
/// tab-separated output of
/// <c>select name, map_key, map_value from sys.dm_xe_map_values</c> (an optional header line
/// <c>name⇥map_key⇥map_value</c>; blank lines and lines starting with <c>--</c> are ignored). A histogram whose source
/// is a map field (<c>wait_type</c>, <c>class</c>, <c>mode</c>) holds only the keys; this table gives their text. Map
/// keys change between builds: take the table from the build that was captured. Immutable.
/// </summary>
internal sealed class MapValueTable
{
    /// <summary>The most entries read from one file.</summary>
    public const int MaxEntries = 1_000_000;

    private readonly Dictionary<string, Dictionary<ulong, string>> _maps;

    private MapValueTable(Dictionary<string, Dictionary<ulong, string>> maps, string? filePath)
    {
        _maps = maps;
        FilePath = filePath;
        MapNames = Array.AsReadOnly([.. maps.Keys.Order(StringComparer.Ordinal)]);
    }

    /// <summary>The file read, or <see langword="null"/>.</summary>
    public string? FilePath { get; }

    /// <summary>The map names, ordinal order.</summary>
    public IReadOnlyList<string> MapNames { get; }

    /// <summary>The number of keys of one map (0 when the table has no such map).</summary>
    /// <param name="mapName">The map name (<c>wait_types</c>); case-insensitive.</param>
    /// <returns>The count.</returns>
    public int KeyCount(string mapName) => Find(mapName)?.Count ?? 0;

    /// <summary>Whether the table holds a map of this name (case-insensitive).</summary>
    /// <param name="mapName">The map name.</param>
    /// <returns>Whether it does.</returns>
    public bool Contains(string mapName) => Find(mapName) is not null;

    /// <summary>The text of a key of a map, or <see langword="null"/> when the map or key is unknown.</summary>
    /// <param name="mapName">The map name (case-insensitive).</param>
    /// <param name="key">The key.</param>
    /// <returns>The text.</returns>
    public string? GetText(string mapName, ulong key) =>
        Find(mapName) is Dictionary<ulong, string> m && m.TryGetValue(key, out string? t) ? t : null;

    /// <summary>Reads a map-values file.</summary>
    /// <param name="path">The file (UTF-8, or UTF-16 with a BOM).</param>
    /// <returns>The table.</returns>
    /// <exception cref="InvalidTextInputException">A line is not <c>name⇥map_key⇥map_value</c>, a key is not a number,
    /// or a key has two texts; names the file and line.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static MapValueTable Load(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        using StreamReader reader = TextInput.OpenText(path);
        return Parse(reader, path);
    }

    /// <summary>Parses map values.</summary>
    /// <param name="input">The text.</param>
    /// <param name="filePath">The file's name for messages, or <see langword="null"/>.</param>
    /// <returns>The table.</returns>
    /// <exception cref="InvalidTextInputException">A line is malformed (see <see cref="Load"/>).</exception>
    public static MapValueTable Parse(TextReader input, string? filePath = null)
    {
        ArgumentNullException.ThrowIfNull(input);
        var maps = new Dictionary<string, Dictionary<ulong, string>>(StringComparer.OrdinalIgnoreCase);
        int lineNumber = 0;
        int entries = 0;
        string? line;
        while ((line = input.ReadLine()) is not null)
        {
            lineNumber++;
            if (line.Length > 64 * 1024)
            {
                throw Bad(filePath, lineNumber, "a line of at most 65,536 characters");
            }

            string trimmed = line.Trim();
            if (trimmed.Length == 0 || trimmed.StartsWith("--", StringComparison.Ordinal))
            {
                continue;
            }

            string[] parts = line.Split('\t');
            if (parts.Length != 3)
            {
                throw Bad(
                    filePath,
                    lineNumber,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"three tab-separated columns (name, map_key, map_value), found {parts.Length}"
                    )
                );
            }

            string name = parts[0].Trim();
            string keyText = parts[1].Trim();
            string text = parts[2].Trim();
            if (
                lineNumber == 1
                && string.Equals(name, "name", StringComparison.OrdinalIgnoreCase)
                && string.Equals(keyText, "map_key", StringComparison.OrdinalIgnoreCase)
            )
            {
                continue;
            }

            if (name.Length == 0)
            {
                throw Bad(filePath, lineNumber, "a map name in the first column");
            }

            if (!ulong.TryParse(keyText, NumberStyles.None, CultureInfo.InvariantCulture, out ulong key))
            {
                throw Bad(
                    filePath,
                    lineNumber,
                    "a map_key (a non-negative integer) in the second column, found '" + Clip(keyText) + "'"
                );
            }

            if (!maps.TryGetValue(name, out Dictionary<ulong, string>? map))
            {
                map = [];
                maps.Add(name, map);
            }

            if (map.TryGetValue(key, out string? known))
            {
                if (!string.Equals(known, text, StringComparison.Ordinal))
                {
                    throw Bad(
                        filePath,
                        lineNumber,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"one text per key of map {name}, but key {key} is '{Clip(known)}' and '{Clip(text)}' "
                                + $"(maps of two builds mixed?)"
                        )
                    );
                }

                continue;
            }

            if (++entries > MaxEntries)
            {
                throw Bad(
                    filePath,
                    lineNumber,
                    string.Create(CultureInfo.InvariantCulture, $"at most {MaxEntries:N0} map values")
                );
            }

            map.Add(key, text);
        }

        return new MapValueTable(maps, filePath);
    }

    private Dictionary<ulong, string>? Find(string mapName) =>
        _maps.TryGetValue(mapName, out Dictionary<ulong, string>? m) ? m : null;

    private static InvalidTextInputException Bad(string? file, int line, string expected) =>
        new(file, line, "expected " + expected);

    private static string Clip(string s) => s.Length <= 40 ? s : s[..40] + "…";
}

using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Xel;

/// <summary>
/// One capture: a single <c>.xel</c> file, or the rollover files of one event_file target
/// (<c>name_0_&lt;FILETIME&gt;.xel</c>) ordered by the FILETIME in their names. <see cref="Expand"/> turns user inputs
/// (files, folders, globs) into sets.
/// </summary>
/// <remarks>Immutable.</remarks>
internal sealed partial class CaptureSet
{
    private CaptureSet(string name, string[] files)
    {
        Name = name;
        Files = files;
    }

    /// <summary>A display name: the rollover base name (<c>folder/name</c>), or the file path of a single
    /// file.</summary>
    public string Name { get; }

    /// <summary>The files, in reading order (rollover sets by the FILETIME in their names).</summary>
    public IReadOnlyList<string> Files { get; }

    /// <summary>Whether the set's files follow the rollover naming pattern.</summary>
    public bool IsRollover { get; private init; }

    /// <summary>A set of one file.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The set.</returns>
    public static CaptureSet FromFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return new CaptureSet(path, [path]) { IsRollover = TryParseRolloverName(path, out _, out _) };
    }

    /// <summary>
    /// Expands inputs into capture sets. Each input is a file, a folder (its <c>*.xel</c> files, not recursive; a
    /// folder without any, its <c>*.xml</c> target-data files) or a glob (<c>*</c> and <c>?</c> within a path segment,
    /// <c>**</c> for any number of folders). Files are de-duplicated; rollover files
    /// of one session (same folder and base name) form one set ordered by their FILETIME; other files are sets of their
    /// own. Sets appear in the order of their first file in the inputs.
    /// </summary>
    /// <param name="inputs">Files, folders or globs.</param>
    /// <returns>The sets.</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists, or a glob or folder matches no
    /// file.</exception>
    public static IReadOnlyList<CaptureSet> Expand(IEnumerable<string> inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        var files = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string input in inputs)
        {
            ArgumentException.ThrowIfNullOrEmpty(input);
            List<string> matched;
            if (File.Exists(input))
            {
                matched = [input];
            }
            else if (Directory.Exists(input))
            {
                matched =
                [
                    .. Directory
                        .EnumerateFiles(input, "*.xel", SearchOption.TopDirectoryOnly)
                        .Order(StringComparer.Ordinal),
                ];

                // A folder of saved target data (histogram, ring_buffer, event_counter XML) is read as its XML files;
                // beside .xel files its XML is left alone, as it usually holds the same events again.
                if (matched.Count == 0)
                {
                    matched =
                    [
                        .. Directory
                            .EnumerateFiles(input, "*.xml", SearchOption.TopDirectoryOnly)
                            .Order(StringComparer.Ordinal),
                    ];
                }

                if (matched.Count == 0)
                {
                    throw new FileNotFoundException("The folder '" + input + "' contains no .xel or .xml file.", input);
                }
            }
            else if (input.AsSpan().IndexOfAny('*', '?') >= 0)
            {
                matched = ExpandGlob(input);
                if (matched.Count == 0)
                {
                    throw new FileNotFoundException("No file matches '" + input + "'.", input);
                }
            }
            else
            {
                throw new FileNotFoundException("No such capture file or folder: '" + input + "'.", input);
            }

            foreach (string f in matched)
            {
                if (seen.Add(Path.GetFullPath(f)))
                {
                    files.Add(f);
                }
            }
        }

        return Group(files);
    }

    /// <summary>Groups files (in the given order) into sets: rollover files of one session together, ordered by
    /// FILETIME.</summary>
    /// <param name="files">The files.</param>
    /// <returns>The sets.</returns>
    public static IReadOnlyList<CaptureSet> Group(IEnumerable<string> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        var order = new List<string>();
        var groups = new Dictionary<string, List<(string File, ulong Time)>>(StringComparer.Ordinal);
        var singles = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string f in files)
        {
            if (TryParseRolloverName(f, out string baseName, out ulong time))
            {
                string key = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(f)) ?? string.Empty, baseName);
                if (!groups.TryGetValue(key, out List<(string, ulong)>? list))
                {
                    list = [];
                    groups.Add(key, list);
                    order.Add("R" + key);
                }

                list.Add((f, time));
            }
            else
            {
                string key = "S" + f;
                if (singles.TryAdd(key, f))
                {
                    order.Add(key);
                }
            }
        }

        var result = new List<CaptureSet>(order.Count);
        foreach (string key in order)
        {
            if (key[0] == 'S')
            {
                result.Add(new CaptureSet(singles[key], [singles[key]]));
                continue;
            }

            List<(string File, ulong Time)> list = groups[key[1..]];
            string[] sorted =
            [
                .. list.OrderBy(x => x.Time).ThenBy(x => x.File, StringComparer.Ordinal).Select(x => x.File),
            ];
            string dir = Path.GetDirectoryName(sorted[0]) ?? string.Empty;
            string b = TryParseRolloverName(sorted[0], out string parsed, out _)
                ? parsed
                : Path.GetFileNameWithoutExtension(sorted[0]);
            result.Add(new CaptureSet(Path.Combine(dir, b), sorted) { IsRollover = true });
        }

        return result;
    }

    /// <summary>
    /// Parses a rollover file name <c>&lt;base&gt;_0_&lt;FILETIME&gt;.xel</c> (the number after the base is the
    /// target's counter, usually 0; the last number is a FILETIME).
    /// </summary>
    /// <param name="path">A file name or path.</param>
    /// <param name="baseName">The base name, including the counter (<c>xe_wait_completed_0</c>).</param>
    /// <param name="fileTime">The FILETIME in the name.</param>
    /// <returns>Whether the name follows the pattern.</returns>
    public static bool TryParseRolloverName(string path, out string baseName, out ulong fileTime)
    {
        ArgumentNullException.ThrowIfNull(path);
        Match m = RolloverPattern().Match(Path.GetFileName(path));
        if (
            m.Success
            && ulong.TryParse(m.Groups[2].ValueSpan, NumberStyles.None, CultureInfo.InvariantCulture, out fileTime)
        )
        {
            baseName = m.Groups[1].Value;
            return true;
        }

        baseName = string.Empty;
        fileTime = 0;
        return false;
    }

    /// <inheritdoc/>
    public override string ToString() => Name;

    [GeneratedRegex(@"^(.+_\d+)_(\d{1,20})\.xel$", RegexOptions.CultureInvariant | RegexOptions.IgnoreCase)]
    private static partial Regex RolloverPattern();

    private static List<string> ExpandGlob(string pattern)
    {
        string normalized = pattern.Replace('\\', '/');
        string[] parts = normalized.Split('/');
        int firstWild = Array.FindIndex(parts, p => p.AsSpan().IndexOfAny('*', '?') >= 0);
        string root = firstWild == 0 ? (normalized.StartsWith('/') ? "/" : ".") : string.Join('/', parts, 0, firstWild);
        if (root.Length == 0)
        {
            root = "/";
        }

        var results = new List<string>();
        if (Directory.Exists(root))
        {
            Walk(root, parts.AsSpan(firstWild).ToArray(), 0, results, firstWild == 0 && !normalized.StartsWith('/'));
        }

        results.Sort(StringComparer.Ordinal);
        return results;
    }

    private static void Walk(string dir, string[] segments, int i, List<string> results, bool relative)
    {
        string seg = segments[i];
        bool last = i == segments.Length - 1;
        if (seg == "**")
        {
            if (!last)
            {
                Walk(dir, segments, i + 1, results, relative);
            }

            foreach (string sub in Directory.EnumerateDirectories(dir))
            {
                Walk(sub, segments, i, results, relative);
            }

            return;
        }

        Regex re = SegmentRegex(seg);
        IEnumerable<string> entries = last ? Directory.EnumerateFiles(dir) : Directory.EnumerateDirectories(dir);
        foreach (string e in entries)
        {
            if (!re.IsMatch(Path.GetFileName(e)))
            {
                continue;
            }

            if (last)
            {
                results.Add(relative && e.StartsWith("./", StringComparison.Ordinal) ? e[2..] : e);
            }
            else
            {
                Walk(e, segments, i + 1, results, relative);
            }
        }
    }

    private static Regex SegmentRegex(string segment)
    {
        var sb = new StringBuilder("^");
        foreach (char c in segment)
        {
            sb.Append(
                c switch
                {
                    '*' => ".*",
                    '?' => ".",
                    _ => Regex.Escape(c.ToString()),
                }
            );
        }

        return new Regex(sb.Append('$').ToString(), RegexOptions.CultureInvariant);
    }
}

using System.Globalization;
using System.IO.Hashing;
using System.Text;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Reporting;

/// <summary>One capture of a batch: a <c>.xel</c> file or rollover set, or a target-data XML file, with its report
/// folder name.</summary>
/// <remarks>Immutable.</remarks>
public sealed class BatchCapture
{
    internal BatchCapture(
        string name,
        IReadOnlyList<string> files,
        bool isTargetData,
        string? root,
        string rootLabel,
        string? moduleList
    )
    {
        Name = name;
        Files = files;
        IsTargetData = isTargetData;
        Root = root;
        RootLabel = rootLabel;
        ModuleList = moduleList;
        Folder = string.Empty;
    }

    /// <summary>
    /// How the capture is named in the batch's outputs: its path relative to the folder given as input (prefixed with
    /// that input when there are several), or the path as given; a rollover set of several files is
    /// <c>dir/base_0_*.xel</c>.
    /// </summary>
    public string Name { get; }

    /// <summary>The files, in reading order (paths as found).</summary>
    public IReadOnlyList<string> Files { get; }

    /// <summary>Whether the capture is a target-data XML file (else <c>.xel</c>).</summary>
    public bool IsTargetData { get; }

    /// <summary>The module list beside the capture (path as found), or <see langword="null"/>.</summary>
    public string? ModuleList { get; }

    /// <summary>
    /// The capture's report folder under the batch output: made from <see cref="Name"/> with <c>/</c> as <c>__</c> and
    /// every character other than ASCII letters, digits, <c>.</c>, <c>_</c> and <c>-</c> as <c>_</c>; never empty,
    /// never starting with
    /// <c>.</c> or <c>-</c>, never a reserved device name, at most 96 characters. Names that would collide (ignoring
    /// case) or were cut get <c>-</c> and 8 hex digits of the SHA-256 of <see cref="Name"/>, so the folder depends only
    /// on the capture's name.
    /// </summary>
    public string Folder { get; internal set; }

    /// <summary>The input folder the capture was found under, or <see langword="null"/> for a capture given
    /// directly.</summary>
    internal string? Root { get; }

    /// <summary>The prefix of names of files under <see cref="Root"/> (empty, or the input as given plus
    /// <c>/</c>).</summary>
    internal string RootLabel { get; }

    /// <summary>How a path is shown in this capture's report: relative to the input folder when under it, else as
    /// found.</summary>
    /// <param name="path">A path as read.</param>
    /// <returns>The path to show.</returns>
    public string DisplayPath(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (Root is not null)
        {
            string full = Path.GetFullPath(path);
            string rel = Path.GetRelativePath(Root, full);
            if (!rel.StartsWith("..", StringComparison.Ordinal) && !Path.IsPathRooted(rel))
            {
                return RootLabel + rel.Replace('\\', '/');
            }
        }

        return path.Replace('\\', '/');
    }

    /// <inheritdoc/>
    public override string ToString() => Name;
}

/// <summary>
/// Finds the captures of a batch: under each folder (recursively, in ordinal path order) every <c>*.xel</c> file,
/// rollover files of one session grouped into one set (<see cref="CaptureSet.Group"/>), and every <c>*.xml</c> file
/// (target data; one that is not target data fails when processed); files given directly or matched by a glob are taken
/// whatever their extension (a glob's
/// <c>.xel</c> matches are grouped too). Module lists (<c>&lt;set-name&gt;.modules.txt</c>) are found beside each
/// capture.
/// </summary>
internal static class BatchDiscovery
{
    private static readonly string[] Reserved =
    [
        "CON",
        "PRN",
        "AUX",
        "NUL",
        "COM1",
        "COM2",
        "COM3",
        "COM4",
        "COM5",
        "COM6",
        "COM7",
        "COM8",
        "COM9",
        "LPT1",
        "LPT2",
        "LPT3",
        "LPT4",
        "LPT5",
        "LPT6",
        "LPT7",
        "LPT8",
        "LPT9",
    ];

    /// <summary>The most characters of a report folder name.</summary>
    public const int MaxFolderLength = 96;

    /// <summary>Finds the captures and names their report folders.</summary>
    /// <param name="inputs">Folders, files or globs.</param>
    /// <param name="cancellationToken">Stops the search.</param>
    /// <returns>The captures, in input order, each folder's in path order; duplicates (the same file reached twice)
    /// once.</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists, or a glob matches
    /// nothing.</exception>
    public static IReadOnlyList<BatchCapture> Discover(
        IReadOnlyList<string> inputs,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(inputs);
        bool several = inputs.Count > 1;
        var result = new List<BatchCapture>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string input in inputs)
        {
            ArgumentException.ThrowIfNullOrEmpty(input);
            cancellationToken.ThrowIfCancellationRequested();
            if (Directory.Exists(input))
            {
                string root = Path.GetFullPath(input);
                string label = several ? input.Replace('\\', '/').TrimEnd('/') + "/" : string.Empty;
                var options = new EnumerationOptions
                {
                    RecurseSubdirectories = true,
                    IgnoreInaccessible = true,
                    AttributesToSkip = FileAttributes.ReparsePoint,
                    MatchCasing = MatchCasing.CaseInsensitive,
                };
                string[] files =
                [
                    .. Directory
                        .EnumerateFiles(input, "*", options)
                        .Where(f =>
                            f.EndsWith(".xel", StringComparison.OrdinalIgnoreCase)
                            || f.EndsWith(".xml", StringComparison.OrdinalIgnoreCase)
                        )
                        .Where(f => seen.Add(Path.GetFullPath(f)))
                        .Order(StringComparer.Ordinal),
                ];
                Add(result, files, root, label);
            }
            else if (File.Exists(input))
            {
                if (seen.Add(Path.GetFullPath(input)))
                {
                    Add(result, [input], null, string.Empty);
                }
            }
            else if (input.AsSpan().IndexOfAny('*', '?') >= 0)
            {
                string[] files =
                [
                    .. CaptureSet.Expand([input]).SelectMany(s => s.Files).Where(f => seen.Add(Path.GetFullPath(f))),
                ];
                Add(result, files, null, string.Empty);
            }
            else
            {
                throw new FileNotFoundException("No such capture file or folder: '" + input + "'.", input);
            }
        }

        AssignFolders(result);
        return result.AsReadOnly();
    }

    /// <summary>The readable part of a folder name (before any hash suffix): see
    /// <see cref="BatchCapture.Folder"/>.</summary>
    /// <param name="name">A capture name.</param>
    /// <returns>The sanitized name, at most <see cref="MaxFolderLength"/> characters, and whether it had to be
    /// cut.</returns>
    internal static (string Folder, bool Cut) SanitizeFolderName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        string stem = name.Replace('\\', '/');
        if (stem.EndsWith("_*.xel", StringComparison.OrdinalIgnoreCase))
        {
            stem = stem[..^6];
        }
        else if (stem.EndsWith(".xel", StringComparison.OrdinalIgnoreCase))
        {
            stem = stem[..^4];
        }

        var sb = new StringBuilder(stem.Length + 8);
        foreach (string part in stem.Split('/'))
        {
            if (part.Length == 0 || part == "." || part == "..")
            {
                continue;
            }

            if (sb.Length > 0)
            {
                sb.Append("__");
            }

            foreach (char c in part)
            {
                sb.Append(
                    c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '.' or '_' or '-'
                        ? c
                        : '_'
                );
            }
        }

        string s = sb.ToString().TrimStart('.', '-').TrimEnd('.', ' ');
        if (s.Length == 0)
        {
            s = "capture";
        }

        string device = s.Split('.')[0];
        if (Array.Exists(Reserved, r => string.Equals(r, device, StringComparison.OrdinalIgnoreCase)))
        {
            s = "_" + s;
        }

        bool cut = s.Length > MaxFolderLength - 9;
        if (cut)
        {
            s = s[..(MaxFolderLength - 9)].TrimEnd('.');
        }

        return (s, cut);
    }

    private static void Add(List<BatchCapture> result, string[] files, string? root, string label)
    {
        var xel = new List<string>();
        var ordered = new List<(string First, BatchCapture? Xml, CaptureSet? Set)>();
        foreach (string f in files)
        {
            if (f.EndsWith(".xml", StringComparison.OrdinalIgnoreCase))
            {
                ordered.Add((f, Make([f], true, root, label), null));
            }
            else
            {
                xel.Add(f);
            }
        }

        foreach (CaptureSet set in CaptureSet.Group(xel))
        {
            ordered.Add((set.Files[0], null, set));
        }

        foreach (
            (string _, BatchCapture? xml, CaptureSet? set) in ordered.OrderBy(o => o.First, StringComparer.Ordinal)
        )
        {
            result.Add(xml ?? Make(set!.Files, false, root, label));
        }
    }

    private static BatchCapture Make(IReadOnlyList<string> files, bool xml, string? root, string label)
    {
        var probe = new BatchCapture(string.Empty, files, xml, root, label, null);
        string first = probe.DisplayPath(files[0]);
        string name = first;
        if (files.Count > 1 && CaptureSet.TryParseRolloverName(files[0], out string baseName, out _))
        {
            int slash = first.LastIndexOf('/');
            name = (slash >= 0 ? first[..(slash + 1)] : string.Empty) + baseName + "_*.xel";
        }

        string? list = ModuleListSidecar.Find(files[0]);
        return new BatchCapture(name, files, xml, root, label, list);
    }

    private static void AssignFolders(List<BatchCapture> captures)
    {
        var taken = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "index.html", "summary.json" };
        var plain = captures.Select(c => SanitizeFolderName(c.Name)).ToArray();
        var counts = plain
            .GroupBy(p => p.Folder, StringComparer.OrdinalIgnoreCase)
            .ToDictionary(g => g.Key, g => g.Count(), StringComparer.OrdinalIgnoreCase);
        for (int i = 0; i < captures.Count; i++)
        {
            (string folder, bool cut) = plain[i];
            string name = folder;
            if (cut || counts[folder] > 1 || taken.Contains(folder))
            {
                name = folder + "-" + Hash(captures[i].Name);
            }

            for (int k = 2; !taken.Add(name); k++)
            {
                name = folder + "-" + Hash(captures[i].Name) + "-" + k.ToString(CultureInfo.InvariantCulture);
            }

            captures[i].Folder = name;
        }
    }

    private static string Hash(string name) => Convert.ToHexStringLower(XxHash32.Hash(Encoding.UTF8.GetBytes(name)));
}

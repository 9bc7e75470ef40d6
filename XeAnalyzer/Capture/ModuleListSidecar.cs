using XeAnalyzer.Callstacks;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>
/// The convention for keeping a capture's module list (<c>select name, base_address from sys.dm_os_loaded_modules</c>,
/// needed to resolve the raw addresses of <c>.xel</c> callstacks) beside the capture: a text file named
/// <c>&lt;set-name&gt;.modules.txt</c> in the capture's folder, where <c>&lt;set-name&gt;</c> is
/// <list type="bullet">
/// <item>for a rollover file <c>&lt;prefix&gt;_0_&lt;FILETIME&gt;.xel</c>: the rollover prefix
/// (<c>latch_0_133612345678900000.xel</c> → <c>latch.modules.txt</c>), so every file of the set shares one module
/// list;</item>
/// <item>for another <c>.xel</c> file: its name without <c>.xel</c> (<c>capture.xel</c> →
/// <c>capture.modules.txt</c>);</item>
/// <item>for any other file (saved target XML): its name without its last extension (<c>lock_hash.xml</c> →
/// <c>lock_hash.modules.txt</c>).</item>
/// </list>
/// The name is matched exactly first, then ignoring letter case. The list must come from the same SQL Server process
/// lifetime as the capture (modules move on every start). A rollover set that spans a restart has one address layout
/// per process lifetime: a file's own list, <c>&lt;file-name&gt;.modules.txt</c>
/// (<c>latch_0_133612345678900000.xel.modules.txt</c>, the same rule with the whole file name as the name), takes
/// precedence over the set's list for that file's events (<see cref="FindForFile"/>).
/// </summary>
internal static class ModuleListSidecar
{
    /// <summary>The file-name suffix of a module list.</summary>
    public const string Suffix = ".modules.txt";

    /// <summary>The set name of a capture file (see the class remarks).</summary>
    /// <param name="captureFile">A capture file name or path.</param>
    /// <returns>The set name, without folder.</returns>
    public static string SetName(string captureFile)
    {
        ArgumentException.ThrowIfNullOrEmpty(captureFile);
        string name = Path.GetFileName(captureFile);
        if (CaptureSet.TryParseRolloverName(name, out string baseName, out _))
        {
            int cut = baseName.LastIndexOf('_');
            return cut > 0 ? baseName[..cut] : baseName;
        }

        if (name.EndsWith(".xel", StringComparison.OrdinalIgnoreCase) && name.Length > 4)
        {
            return name[..^4];
        }

        string without = Path.GetFileNameWithoutExtension(name);
        return without.Length > 0 ? without : name;
    }

    /// <summary>Where the module list of a capture file is expected:
    /// <c>&lt;folder&gt;/&lt;set-name&gt;.modules.txt</c>.</summary>
    /// <param name="captureFile">A capture file path.</param>
    /// <returns>The expected path (which may not exist).</returns>
    public static string ExpectedPath(string captureFile)
    {
        ArgumentException.ThrowIfNullOrEmpty(captureFile);
        string dir = Path.GetDirectoryName(Path.GetFullPath(captureFile)) ?? ".";
        return Path.Combine(dir, SetName(captureFile) + Suffix);
    }

    /// <summary>Where a file's own module list is expected:
    /// <c>&lt;folder&gt;/&lt;file-name&gt;.modules.txt</c>.</summary> <param name="captureFile">A capture file
    /// path.</param> <returns>The expected path (which may not exist).</returns>
    internal static string ExpectedFilePath(string captureFile)
    {
        ArgumentException.ThrowIfNullOrEmpty(captureFile);
        string full = Path.GetFullPath(captureFile);
        return Path.Combine(Path.GetDirectoryName(full) ?? ".", Path.GetFileName(full) + Suffix);
    }

    /// <summary>Finds a capture file's own module list (<c>&lt;file-name&gt;.modules.txt</c>), which takes precedence
    /// over its set's.</summary> <param name="captureFile">A capture file path.</param> <returns>The module list's
    /// path, or <see langword="null"/> when the file has none of its own.</returns>
    internal static string? FindForFile(string captureFile) => FindExpected(ExpectedFilePath(captureFile));

    /// <summary>Finds the module list of a capture file.</summary>
    /// <param name="captureFile">A capture file path.</param>
    /// <returns>The module list's path, or <see langword="null"/> when there is none.</returns>
    public static string? Find(string captureFile) => FindExpected(ExpectedPath(captureFile));

    private static string? FindExpected(string expected)
    {
        if (File.Exists(expected))
        {
            return expected;
        }

        string dir = Path.GetDirectoryName(expected)!;
        if (!Directory.Exists(dir))
        {
            return null;
        }

        string wanted = Path.GetFileName(expected);
        string[] matches = Directory
            .EnumerateFiles(
                dir,
                "*" + Suffix,
                new EnumerationOptions { MatchCasing = MatchCasing.CaseInsensitive, IgnoreInaccessible = true }
            )
            .Where(f => string.Equals(Path.GetFileName(f), wanted, StringComparison.OrdinalIgnoreCase))
            .Order(StringComparer.Ordinal)
            .ToArray();
        return matches.Length == 1 ? matches[0] : null;
    }

    /// <summary>Finds the module list of a capture set (from its first file; all files of a set share it).</summary>
    /// <param name="set">The capture set.</param>
    /// <returns>The module list's path, or <see langword="null"/>.</returns>
    public static string? Find(CaptureSet set)
    {
        ArgumentNullException.ThrowIfNull(set);
        return set.Files.Count == 0 ? null : Find(set.Files[0]);
    }

    /// <summary>Finds and reads the module list of a capture set.</summary>
    /// <param name="set">The capture set.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The module map, or <see langword="null"/> when the set has no module list.</returns>
    /// <exception cref="InvalidTextInputException">The module list is malformed (with its file and line).</exception>
    public static ModuleMap? TryLoad(CaptureSet set, CancellationToken cancellationToken = default)
    {
        string? path = Find(set);
        return path is null ? null : ModuleMap.Load(path, cancellationToken);
    }
}

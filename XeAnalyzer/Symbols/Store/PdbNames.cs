using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// Checks PDB names that come from captures, PE images and servers before they become parts of paths or URLs.
/// A usable name is one file name ending in <c>.pdb</c>: no directory separators, drive or root, no <c>..</c>,
/// no control or wildcard characters, not starting with a dot, at most <see cref="MaxLength"/> characters.
/// </summary>
internal static class PdbNames
{
    /// <summary>The longest PDB name accepted.</summary>
    public const int MaxLength = 200;

    private static readonly System.Buffers.SearchValues<char> s_forbidden = BuildForbidden();

    /// <summary>Whether <paramref name="name"/> is a safe PDB file name; when not, <paramref name="problem"/> says
    /// why.</summary>
    /// <param name="name">The candidate name (from a capture, an RSDS record or a server).</param>
    /// <param name="problem">Why the name was rejected, or <see langword="null"/>.</param>
    public static bool IsValid(string? name, out string? problem)
    {
        problem = Check(name);
        return problem is null;
    }

    /// <summary>
    /// The file name part of a debug path as an RSDS record or a frame carries it (<c>d:\b\sqlmin.pdb</c> →
    /// <c>sqlmin.pdb</c>), splitting on both <c>\</c> and <c>/</c>. The result still has to pass <see cref="IsValid"/>.
    /// </summary>
    /// <param name="debugPath">The recorded path.</param>
    public static string FileNameOf(string debugPath)
    {
        ArgumentNullException.ThrowIfNull(debugPath);
        int cut = debugPath.AsSpan().LastIndexOfAny('\\', '/');
        return cut < 0 ? debugPath : debugPath[(cut + 1)..];
    }

    /// <summary>A form of an untrusted string that is safe to print: control characters as <c>\uXXXX</c>, cut to 120
    /// characters.</summary>
    /// <param name="text">The untrusted text.</param>
    public static string Printable(string? text)
    {
        if (text is null)
        {
            return "<null>";
        }

        var sb = new System.Text.StringBuilder();
        foreach (char c in text)
        {
            if (sb.Length >= 120)
            {
                sb.Append('…');
                break;
            }

            if (char.IsControl(c))
            {
                sb.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}");
            }
            else
            {
                sb.Append(c);
            }
        }

        return sb.ToString();
    }

    private static string? Check(string? name)
    {
        if (string.IsNullOrEmpty(name))
        {
            return "the PDB name is empty";
        }

        if (name.Length > MaxLength)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"the PDB name {Shown(name)} is {name.Length} characters long (at most {MaxLength} accepted)"
            );
        }

        int bad = name.AsSpan().IndexOfAny(s_forbidden);
        if (bad >= 0)
        {
            return char.IsControl(name[bad])
                ? "the PDB name " + Shown(name) + " contains control characters"
                : "the PDB name "
                    + Shown(name)
                    + " is not a single file name (it contains a path separator, drive or wildcard character)";
        }

        if (name.Contains("..", StringComparison.Ordinal) || name[0] == '.')
        {
            return "the PDB name " + Shown(name) + " contains '..' or starts with '.'";
        }

        if (name[0] == ' ' || name[^1] == ' ' || Path.IsPathRooted(name))
        {
            return "the PDB name " + Shown(name) + " is rooted or has leading/trailing spaces";
        }

        if (name.Length == 4 || !name.EndsWith(".pdb", StringComparison.OrdinalIgnoreCase))
        {
            return "the PDB name " + Shown(name) + " does not end in '.pdb'";
        }

        return null;
    }

    private static string Shown(string name) => "'" + Printable(name) + "'";

    private static System.Buffers.SearchValues<char> BuildForbidden()
    {
        // Path separators, drive colon and wildcards, the platform's invalid file-name characters, and every control
        // character.
        var set = new HashSet<char>("/\\:*?\"<>|");
        set.UnionWith(Path.GetInvalidFileNameChars());
        for (int c = 0; c <= char.MaxValue; c++)
        {
            if (char.IsControl((char)c))
            {
                set.Add((char)c);
            }
        }

        return System.Buffers.SearchValues.Create(set.Order().ToArray());
    }
}

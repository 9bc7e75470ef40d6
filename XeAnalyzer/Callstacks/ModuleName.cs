namespace XeAnalyzer.Callstacks;

/// <summary>
/// A module (image) name as a frame, module list or symbol metadata wrote it, with a normalised key for matching:
/// <c>sqldk.dll</c>, <c>SqlDK</c> and <c>C:\…\Binn\sqldk.DLL</c> all have the key <c>sqldk</c>.
/// Equality and hashing use <see cref="Key"/> only; <see cref="Name"/> keeps the original spelling for display.
/// </summary>
public sealed class ModuleName : IEquatable<ModuleName>
{
    private ModuleName(string name, string key)
    {
        Name = name;
        Key = key;
    }

    /// <summary>The file name as written (directories removed), for example <c>sqlTsEs.dll</c> or
    /// <c>Wdf01000</c>.</summary>
    public string Name { get; }

    /// <summary>The matching key: <see cref="Name"/> in lower case (invariant) without a <c>.dll</c>, <c>.exe</c> or
    /// <c>.sys</c> extension (any case).</summary>
    public string Key { get; }

    /// <summary><see langword="true"/> when <see cref="Name"/> ends with <c>.dll</c>, <c>.exe</c> or
    /// <c>.sys</c>.</summary>
    public bool HasImageExtension => Name.Length != Key.Length;

    /// <summary>Creates a module name from a name or a full path (Windows or POSIX separators).</summary>
    /// <param name="nameOrPath">A module name (<c>sqldk.dll</c>, <c>ntdll</c>) or path
    /// (<c>C:\Windows\SYSTEM32\ntdll.dll</c>).</param>
    /// <exception cref="ArgumentException">The file name is empty, <c>.</c> or <c>..</c>, or holds control characters
    /// or one of <c>: * ? " &lt; &gt; |</c>.</exception>
    public static ModuleName Create(string nameOrPath)
    {
        ArgumentNullException.ThrowIfNull(nameOrPath);
        return TryCreate(nameOrPath, out ModuleName? name)
            ? name
            : throw new ArgumentException($"\"{nameOrPath}\" is not a module file name.", nameof(nameOrPath));
    }

    /// <summary>Creates a module name from a name or a full path, refusing names that cannot be a file name (see
    /// <see cref="Create"/>).</summary>
    /// <param name="nameOrPath">A module name or path.</param>
    /// <param name="name">The module name, when valid.</param>
    /// <returns><see langword="true"/> when the file name part is a valid module file name.</returns>
    public static bool TryCreate(
        string nameOrPath,
        [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out ModuleName? name
    )
    {
        ArgumentNullException.ThrowIfNull(nameOrPath);
        name = null;
        ReadOnlySpan<char> s = nameOrPath.AsSpan().Trim();
        int sep = s.LastIndexOfAny('\\', '/');
        if (sep >= 0)
        {
            s = s[(sep + 1)..];
        }

        if (
            s.IsEmpty
            || s.SequenceEqual(".")
            || s.SequenceEqual("..")
            || s.ContainsAnyInRange('\0', '\u001F')
            || s.IndexOfAny(s_invalid) >= 0
        )
        {
            return false;
        }

        string text = s.Length == nameOrPath.Length ? nameOrPath : s.ToString();
        name = new ModuleName(text, KeyOf(text));
        return true;
    }

    private static readonly System.Buffers.SearchValues<char> s_invalid = System.Buffers.SearchValues.Create(
        ":*?\"<>|"
    );

    /// <summary>Creates the module name that a PDB file name implies (<c>SqlDK.pdb</c> → key <c>sqldk</c>); the
    /// <c>.pdb</c> extension is dropped.</summary>
    /// <param name="pdbName">A PDB file name.</param>
    public static ModuleName FromPdbName(string pdbName)
    {
        ArgumentNullException.ThrowIfNull(pdbName);
        ModuleName m = Create(pdbName);
        return m.Name.EndsWith(".pdb", StringComparison.OrdinalIgnoreCase)
            ? new ModuleName(m.Name[..^4], KeyOf(m.Name.AsSpan(0, m.Name.Length - 4)))
            : m;
    }

    /// <summary>Returns the matching key of a module name (see <see cref="Key"/>).</summary>
    /// <param name="name">A module file name without directories.</param>
    public static string KeyOf(ReadOnlySpan<char> name)
    {
        if (
            name.Length > 4
            && name[^4] == '.'
            && (
                name[^3..].Equals("dll", StringComparison.OrdinalIgnoreCase)
                || name[^3..].Equals("exe", StringComparison.OrdinalIgnoreCase)
                || name[^3..].Equals("sys", StringComparison.OrdinalIgnoreCase)
            )
        )
        {
            name = name[..^4];
        }

        foreach (char c in name)
        {
            if (char.IsUpper(c))
            {
                return name.ToString().ToLowerInvariant();
            }
        }

        return name.ToString();
    }

    /// <summary>Compares keys (ordinal).</summary>
    /// <param name="other">The other name.</param>
    public bool Equals(ModuleName? other) =>
        other is not null && string.Equals(Key, other.Key, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as ModuleName);

    /// <inheritdoc/>
    public override int GetHashCode() => StringComparer.Ordinal.GetHashCode(Key);

    /// <summary>Returns <see cref="Name"/>.</summary>
    public override string ToString() => Name;
}

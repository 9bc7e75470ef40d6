namespace XeAnalyzer.Symbols.Undecoration;

/// <summary>
/// Turns MSVC decorated (mangled) symbol names into the text DIA prints for a public symbol with
/// <c>UNDNAME_NAME_ONLY</c> (0x1000): <c>[scope::]name</c> with template arguments expanded, e.g.
/// <c>Spinlock&lt;143,7,1&gt;::SpinToAcquireWithExponentialBackoff</c>.
/// </summary>
/// <remarks>
/// <para>Format rules (PDB-AND-SYMBOLS.md §5): no space after commas in template arguments; a template argument
/// list whose last argument ends with <c>&gt;</c> closes with <c> &gt;</c>; <c>__int64</c>, never <c>int64_t</c>;
/// constructors and destructors repeat the class with its template arguments; special names are quoted
/// (<c>`vftable'</c>, <c>`scalar deleting destructor'</c>, <c>`anonymous namespace'</c>, <c>`string'</c>);
/// the <c>class</c>/<c>struct</c>/<c>union</c>/<c>enum</c> keywords are dropped; pointer types are written the
/// way the Microsoft undecorator writes them (<c>char const * __ptr64</c>, <c>void (__cdecl*)(void)</c>).</para>
/// <para>Names that do not start with <c>?</c> are C names: the x86 decorations are removed
/// (<c>_f@12</c>, <c>@f@4</c>, <c>f@@8</c> and <c>_f</c> all give <c>f</c>), as DIA does for the publics of
/// both x86 and x64 PDBs.</para>
/// <para>The undecorator never throws on malformed input, bounds its recursion depth and output length, and uses
/// no exceptions for control flow. All members are thread-safe.</para>
/// </remarks>
public static class MsvcNameUndecorator
{
    /// <summary>The longest decorated name that is undecorated; longer inputs are reported as not undecoratable.</summary>
    public const int MaxDecoratedLength = 64 * 1024;

    /// <summary>
    /// Returns the name-only form of <paramref name="decorated"/>, or <paramref name="decorated"/> itself when it
    /// cannot be undecorated (malformed, unsupported or over a limit).
    /// </summary>
    /// <param name="decorated">A decorated name as stored in a PDB public symbol (<c>S_PUB32</c>).</param>
    /// <returns>The undecorated name, or the input unchanged.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="decorated"/> is <see langword="null"/>.</exception>
    public static string UndecorateNameOnly(string decorated)
    {
        ArgumentNullException.ThrowIfNull(decorated);
        return TryUndecorate(decorated, out string result) ? result : decorated;
    }

    /// <summary>
    /// Tries to undecorate <paramref name="decorated"/> to its name-only form. Never throws.
    /// </summary>
    /// <param name="decorated">A decorated name as stored in a PDB public symbol; <see langword="null"/> or empty fails.</param>
    /// <param name="nameOnly">The undecorated name on success; otherwise the input (or an empty string for
    /// <see langword="null"/>), so a caller can use it as the fallback.</param>
    /// <returns><see langword="true"/> if the name was understood; <see langword="false"/> if it is malformed,
    /// uses an encoding this undecorator does not know, or exceeds a limit.</returns>
    public static bool TryUndecorate(string? decorated, out string nameOnly)
    {
        if (string.IsNullOrEmpty(decorated))
        {
            nameOnly = decorated ?? string.Empty;
            return false;
        }

        string? result = decorated.Length > MaxDecoratedLength ? null : MsvcDemangler.Demangle(decorated);
        if (result is null)
        {
            nameOnly = decorated;
            return false;
        }

        nameOnly = result;
        return true;
    }
}

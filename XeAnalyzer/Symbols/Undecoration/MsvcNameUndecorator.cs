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
internal static class MsvcNameUndecorator
{
    /// <summary>The longest decorated name that is undecorated; longer inputs are reported as not
    /// undecoratable.</summary>
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
    /// <param name="decorated">A decorated name as stored in a PDB public symbol; <see langword="null"/> or empty
    /// fails.</param>
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

    /// <summary>
    /// Undecorates the common shape <c>?name@scope@…@@…</c> (simple identifiers only: no operator or special name,
    /// template, back-reference, numbered or nested scope; ASCII only) straight from the stored UTF-8 bytes into
    /// <paramref name="destination"/>, with the same result as <see cref="TryUndecorate"/> (the name-only form ignores
    /// what follows the scope list). Returns
    /// <see langword="false"/> for any other name, or when <paramref name="destination"/> is too small: use
    /// <see cref="TryUndecorate"/>.
    /// </summary>
    /// <param name="decorated">The decorated name as stored in the PDB (UTF-8).</param>
    /// <param name="destination">Receives the undecorated name.</param>
    /// <param name="written">The characters written.</param>
    /// <returns>Whether the name had the simple shape and was written.</returns>
    internal static bool TryUndecorateSimple(ReadOnlySpan<byte> decorated, Span<char> destination, out int written)
    {
        written = 0;
        if (
            decorated.Length < 3
            || decorated.Length > MaxDecoratedLength
            || decorated[0] != (byte)'?'
            || !IsSimplePieceStart(decorated[1])
        )
        {
            return false;
        }

        int nameEnd = decorated.IndexOf((byte)'@');
        if (nameEnd < 0)
        {
            return false;
        }

        // The scope pieces, innermost first: each ends at the next '@'; an empty piece ('@') ends the list.
        Span<Range> pieces = stackalloc Range[MaxSimpleScopes + 1];
        int count = 0;
        int pos = nameEnd + 1;
        while (true)
        {
            if (pos >= decorated.Length)
            {
                return false;
            }

            if (decorated[pos] == (byte)'@')
            {
                break;
            }

            if (count > MaxSimpleScopes - 1 || !IsSimplePieceStart(decorated[pos]))
            {
                return false;
            }

            int end = decorated[pos..].IndexOf((byte)'@');
            if (end < 0)
            {
                return false;
            }

            pieces[count++] = new Range(pos, pos + end);
            pos += end + 1;
        }

        int length = nameEnd - 1 + (2 * count);
        for (int i = 0; i < count; i++)
        {
            length += pieces[i].End.Value - pieces[i].Start.Value;
        }

        if (length > MsvcDemangler.MaxOutputLength || length > destination.Length)
        {
            return false;
        }

        int w = 0;
        for (int i = count - 1; i >= 0; i--)
        {
            if (!CopyAscii(decorated[pieces[i]], destination[w..]))
            {
                return false;
            }

            w += pieces[i].End.Value - pieces[i].Start.Value;
            destination[w++] = ':';
            destination[w++] = ':';
        }

        if (!CopyAscii(decorated[1..nameEnd], destination[w..]))
        {
            return false;
        }

        written = length;
        return true;
    }

    /// <summary>The most scope pieces the full demangler accepts before the list's end (it refuses a 258th).</summary>
    private const int MaxSimpleScopes = 257;

    /// <summary>Whether a name or scope piece starting with <paramref name="b"/> is a plain identifier to the demangler
    /// (not '?', '@' or a back-reference digit).</summary>
    private static bool IsSimplePieceStart(byte b) => b is not ((byte)'?' or (byte)'@') && !char.IsAsciiDigit((char)b);

    private static bool CopyAscii(ReadOnlySpan<byte> source, Span<char> destination)
    {
        for (int i = 0; i < source.Length; i++)
        {
            byte b = source[i];
            if (b >= 0x80)
            {
                return false;
            }

            destination[i] = (char)b;
        }

        return true;
    }
}

using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// Symbol-store directory keys for PDBs: the GUID as 32 hex digits without dashes, then the age in hex
/// (<c>sqldk.pdb/6A1934433512464B8B8ED905AD930EE62/sqldk.pdb</c>). Stores differ in letter case, so parsing is
/// case-insensitive.
/// </summary>
internal static class SymbolStoreKey
{
    /// <summary>The key in upper case, as the classic symstore layout and XeAnalyzer's cache write it.</summary>
    /// <param name="identity">The PDB identity.</param>
    public static string Format(PdbIdentity identity) => identity.Key;

    /// <summary>The key in lower case, as Microsoft.SymbolStore and some servers write it.</summary>
    /// <param name="identity">The PDB identity.</param>
    public static string FormatLower(PdbIdentity identity) =>
        identity.Guid.ToString("N") + identity.Age.ToString("x", CultureInfo.InvariantCulture);

    /// <summary>Parses a key directory name (32 hex digits of GUID, then 1 to 8 hex digits of age, any case).</summary>
    /// <param name="key">The directory name.</param>
    /// <param name="identity">The identity it names.</param>
    public static bool TryParse(string? key, out PdbIdentity identity)
    {
        identity = default;
        if (key is null || key.Length < 33 || key.Length > 40 || !key.All(char.IsAsciiHexDigit))
        {
            return false;
        }

        if (
            !Guid.TryParseExact(key.AsSpan(0, 32), "N", out Guid guid)
            || !uint.TryParse(
                key.AsSpan(32),
                NumberStyles.AllowHexSpecifier,
                CultureInfo.InvariantCulture,
                out uint age
            )
            || age > int.MaxValue
        )
        {
            return false;
        }

        identity = new PdbIdentity(guid, (int)age);
        return true;
    }
}

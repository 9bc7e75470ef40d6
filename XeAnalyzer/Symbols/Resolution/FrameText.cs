using System.Globalization;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Formatting of frames in the three styles, and the module-name rules behind them.</summary>
internal static class FrameText
{
    /// <summary>The module as the style writes it: engine keeps the file name; resolver drops <c>.dll</c>/<c>.exe</c>;
    /// WinDbg drops any image extension.</summary>
    public static string StyledModule(string displayName, FrameStyle style)
    {
        if (style == FrameStyle.Engine || displayName.Length <= 4 || displayName[^4] != '.')
        {
            return displayName;
        }

        ReadOnlySpan<char> ext = displayName.AsSpan(displayName.Length - 3);
        bool strip =
            ext.Equals("dll", StringComparison.OrdinalIgnoreCase)
            || ext.Equals("exe", StringComparison.OrdinalIgnoreCase)
            || (style == FrameStyle.WinDbg && ext.Equals("sys", StringComparison.OrdinalIgnoreCase));
        return strip ? displayName[..^4] : displayName;
    }

    /// <summary><c>{module}!{function}+{displacement}</c> in the style (module and displacement optional).</summary>
    public static string Render(
        string? styledModule,
        string function,
        ulong? displacement,
        FrameStyle style,
        bool includeOffsets
    ) => Render(styledModule, function.AsSpan(), displacement, style, includeOffsets, string.Empty, out _);

    /// <summary>
    /// <c>{module}!{function}+{displacement}{suffix}</c> in the style (module and displacement optional), built in one
    /// string;
    /// <paramref name="functionStart"/> is where the function starts in it.
    /// </summary>
    public static string Render(
        string? styledModule,
        ReadOnlySpan<char> function,
        ulong? displacement,
        FrameStyle style,
        bool includeOffsets,
        string suffix,
        out int functionStart
    )
    {
        Span<char> offset = stackalloc char[24];
        int offsetLength = 0;
        if (includeOffsets && displacement is ulong d)
        {
            bool hex = style != FrameStyle.Resolver;
            offset[offsetLength++] = '+';
            if (hex)
            {
                offset[offsetLength++] = '0';
                offset[offsetLength++] = 'x';
            }

            d.TryFormat(offset[offsetLength..], out int digits, hex ? "x" : default, CultureInfo.InvariantCulture);
            offsetLength += digits;
        }

        functionStart = styledModule is null ? 0 : styledModule.Length + 1;
        int length = functionStart + function.Length + offsetLength + suffix.Length;
        char[]? rented = null;
        Span<char> text =
            length <= 1024
                ? stackalloc char[length]
                : (rented = System.Buffers.ArrayPool<char>.Shared.Rent(length)).AsSpan(0, length);
        if (styledModule is not null)
        {
            styledModule.CopyTo(text);
            text[styledModule.Length] = '!';
        }

        function.CopyTo(text[functionStart..]);
        offset[..offsetLength].CopyTo(text[(functionStart + function.Length)..]);
        suffix.CopyTo(text[(functionStart + function.Length + offsetLength)..]);
        string result = new(text);
        if (rented is not null)
        {
            System.Buffers.ArrayPool<char>.Shared.Return(rented);
        }

        return result;
    }

    /// <summary>The mark of a frame resolved through a PDB matched by name only (nothing identified the build),
    /// appended to its text.</summary>
    public const string UnverifiedMark = " -- unverified: PDB matched by name only";

    /// <summary>The prefix of an inline frame, as SQLCallStackResolver and WinDbg write it.</summary>
    public const string InlinePrefix = "(Inline Function) ";

    /// <summary>
    /// A source position in the style: <c> [{file} @ {line}]</c> (engine and WinDbg, as WinDbg's <c>k</c> prints it) or
    /// <c>\t({file}:{line})</c> (resolver, as SQLCallStackResolver prints it); empty without a position. Control
    /// characters in the file name (from the PDB, untrusted) are escaped, so a name cannot start a new output line.
    /// </summary>
    public static string Location(string? file, int? line, FrameStyle style)
    {
        if (file is null || line is not int l)
        {
            return string.Empty;
        }

        string f = Escape(file);
        string n = l.ToString(CultureInfo.InvariantCulture);
        return style == FrameStyle.Resolver ? "\t(" + f + ":" + n + ")" : " [" + f + " @ " + n + "]";
    }

    /// <summary>Text from a PDB with control characters written as <c>\uXXXX</c> and at most 4,096
    /// characters.</summary>
    public static string Escape(string text)
    {
        bool clean = text.Length <= 4096;
        foreach (char c in text)
        {
            clean &= !char.IsControl(c);
        }

        if (clean)
        {
            return text;
        }

        var sb = new System.Text.StringBuilder(Math.Min(text.Length, 4100));
        foreach (char c in text)
        {
            if (sb.Length >= 4096)
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

    /// <summary>
    /// The module file name for engine-style output: the name as written when it has an extension; else the known file
    /// name of the same module (module map, binaries); else <c>sqlservr.exe</c> for <c>sqlservr</c> and
    /// <c>{name}.dll</c> for every other module.
    /// </summary>
    public static string DisplayName(ModuleName module, string? knownFileName)
    {
        if (module.HasImageExtension)
        {
            return module.Name;
        }

        if (knownFileName is not null)
        {
            return knownFileName;
        }

        return string.Equals(module.Key, "sqlservr", StringComparison.Ordinal)
            ? module.Name + ".exe"
            : module.Name + ".dll";
    }

    /// <summary>The module name without its image extension (<c>sqlTsEs.dll</c> → <c>sqlTsEs</c>).</summary>
    public static string WithoutExtension(ModuleName module) =>
        module.HasImageExtension ? module.Name[..^4] : module.Name;

    /// <summary>Whether a module is part of the SQL Server engine (its PDBs are public and SQL Server symbolizes it
    /// in-engine with the PDB in Binn).</summary>
    public static bool IsSqlEngineModule(ModuleName module) => Catalog.SqlBuildCatalog.IsEngineModule(module);

    public static string Hex(ulong value) => "0x" + value.ToString("X", CultureInfo.InvariantCulture);
}

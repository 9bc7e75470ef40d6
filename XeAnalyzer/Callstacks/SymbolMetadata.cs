using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// The module → PDB identities supplied by CSV symbol-metadata lines of an input (for frames that carry no identity
/// themselves: module+offset text). One module may map to one PDB build only: a second, different GUID or age is an
/// error naming both.
/// </summary>
internal sealed class SymbolMetadataTable
{
    private readonly Dictionary<string, ModulePdbInfo> _byKey = new(StringComparer.Ordinal);
    private readonly List<ModulePdbInfo> _entries = [];

    /// <summary>The number of modules.</summary>
    public int Count => _entries.Count;

    /// <summary>The entries in input order.</summary>
    public IReadOnlyList<ModulePdbInfo> Entries => _entries;

    /// <summary>Looks up a module by its key.</summary>
    /// <param name="module">The module.</param>
    /// <param name="info">The entry, when found.</param>
    /// <returns><see langword="true"/> when the module has an entry.</returns>
    public bool TryGet(ModuleName module, [NotNullWhen(true)] out ModulePdbInfo? info)
    {
        ArgumentNullException.ThrowIfNull(module);
        return _byKey.TryGetValue(module.Key, out info);
    }

    /// <summary>Adds an entry; an identical repeat is ignored.</summary>
    /// <param name="info">The entry.</param>
    /// <param name="filePath">The input file for the error message, if any.</param>
    /// <exception cref="InvalidTextInputException">The module already has an entry with another GUID or age (several
    /// PDB versions in one input).</exception>
    public void Add(ModulePdbInfo info, string? filePath = null)
    {
        ArgumentNullException.ThrowIfNull(info);
        if (_byKey.TryGetValue(info.Module.Key, out ModulePdbInfo? existing))
        {
            if (existing.Identity == info.Identity)
            {
                return;
            }

            throw new InvalidTextInputException(
                filePath,
                (int)Math.Min(info.LineNumber, int.MaxValue),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"one PDB build per module in CSV symbol metadata, but module '{info.Module.Name}' has PDB "
                        + $"{existing.Identity} (line {existing.LineNumber}) and PDB {info.Identity}: the input may "
                        + $"mix "
                        + $"several PDB versions of the same module"
                )
            );
        }

        _byKey.Add(info.Module.Key, info);
        _entries.Add(info);
    }
}

/// <summary>
/// Parses CSV symbol-metadata lines, as exported from a module list: at least 3 comma-separated fields (quotes
/// trimmed); the GUID is any field that parses as a GUID (braces allowed); the module is the first field ending in
/// <c>.dll</c> or <c>.exe</c>; the PDB is the first field ending in <c>.pdb</c>, else the module name with <c>.pdb</c>;
/// the age is the last field (decimal). For example
/// <code>
/// "ntdll.dll","10.0.17763.1490",2019328,462107166,2009368,"ntdll.pdb","{C374E059-5793-9B92-6525-386A66A2D3F5}",0,1
/// </code>
/// or <c>sqlservr.exe,7ef4ea08-777a-43b7-8bce-4da6f0fa43c7,2</c>.
/// </summary>
internal static class CsvSymbolMetadata
{
    private const int MaxFields = 256;

    /// <summary>Tries to read one line as CSV symbol metadata.</summary>
    /// <param name="line">The line.</param>
    /// <param name="lineNumber">Its 1-based input line (kept in the result).</param>
    /// <param name="info">The mapping, when the line is symbol metadata.</param>
    /// <returns><see langword="true"/> when the line has ≥ 3 fields, a GUID field, a module field and a decimal age in
    /// the last field.</returns>
    public static bool TryParseLine(string line, long lineNumber, [NotNullWhen(true)] out ModulePdbInfo? info)
    {
        ArgumentNullException.ThrowIfNull(line);
        info = null;
        if (!line.Contains(',', StringComparison.Ordinal))
        {
            return false;
        }

        List<string>? fields = Split(line);
        if (fields is null || fields.Count < 3)
        {
            return false;
        }

        Guid? guid = null;
        string? module = null;
        string? pdb = null;
        foreach (string f in fields)
        {
            if (guid is null && f.Length >= 32 && Guid.TryParse(f, out Guid g))
            {
                guid = g;
            }
            else if (
                module is null
                && f.Length > 4
                && (
                    f.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
                    || f.EndsWith(".exe", StringComparison.OrdinalIgnoreCase)
                )
            )
            {
                module = f;
            }
            else if (pdb is null && f.Length > 4 && f.EndsWith(".pdb", StringComparison.OrdinalIgnoreCase))
            {
                pdb = f;
            }
        }

        if (
            guid is null
            || module is null
            || !int.TryParse(fields[^1], NumberStyles.None, CultureInfo.InvariantCulture, out int age)
        )
        {
            return false;
        }

        if (!ModuleName.TryCreate(module, out ModuleName? name))
        {
            return false;
        }

        pdb ??= name.Name[..^4] + ".pdb";
        info = new ModulePdbInfo(name, pdb, new PdbIdentity(guid.Value, age), lineNumber);
        return true;
    }

    /// <summary>Reads every CSV symbol-metadata line of a text (a pre-pass for inputs whose metadata follows the
    /// stacks); other lines are ignored.</summary>
    /// <param name="input">The text; not disposed.</param>
    /// <param name="filePath">The input file for error messages, if any.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The table.</returns>
    /// <exception cref="InvalidTextInputException">A module has two different PDB identities, or a line exceeds
    /// <see cref="TextInputLimits.MaxLineLength"/>.</exception>
    public static SymbolMetadataTable ReadAll(
        TextReader input,
        string? filePath = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(input);
        var table = new SymbolMetadataTable();
        foreach (
            (string line, long number) in BoundedLines.Read(
                input,
                filePath,
                TextInputLimits.Default.MaxLineLength,
                cancellationToken
            )
        )
        {
            if (TryParseLine(line, number, out ModulePdbInfo? info))
            {
                table.Add(info, filePath);
            }
        }

        return table;
    }

    private static List<string>? Split(string line)
    {
        var fields = new List<string>();
        var sb = new System.Text.StringBuilder();
        bool quoted = false;
        for (int i = 0; i < line.Length; i++)
        {
            char c = line[i];
            if (quoted)
            {
                if (c == '"')
                {
                    if (i + 1 < line.Length && line[i + 1] == '"')
                    {
                        sb.Append('"');
                        i++;
                    }
                    else
                    {
                        quoted = false;
                    }
                }
                else
                {
                    sb.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                fields.Add(sb.ToString().Trim());
                sb.Clear();
                if (fields.Count > MaxFields)
                {
                    return null;
                }
            }
            else
            {
                sb.Append(c);
            }
        }

        fields.Add(sb.ToString().Trim());
        return fields;
    }
}

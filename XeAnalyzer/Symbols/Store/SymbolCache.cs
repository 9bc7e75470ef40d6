using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <summary>What kind of file a <see cref="SymbolCacheEntry"/> is.</summary>
internal enum SymbolCacheEntryKind
{
    /// <summary>A PDB at <c>name.pdb/KEY/name.pdb</c>.</summary>
    Pdb,

    /// <summary>A compressed PDB (<c>name.pd_</c>), expanded on first use.</summary>
    CompressedPdb,

    /// <summary>A <c>file.ptr</c> pointer file.</summary>
    PointerFile,

    /// <summary>A hidden <c>.*.tmp</c> file left by an interrupted download or expansion.</summary>
    PartialDownload,

    /// <summary>Anything else (binaries such as <c>ntdll.dll/KEY/ntdll.dll</c>, stray files).</summary>
    Other,
}

/// <summary>The state of a <see cref="SymbolCacheEntry"/> after <see cref="SymbolCache.Enumerate"/>.</summary>
internal enum SymbolCacheEntryStatus
{
    /// <summary>Not checked (identity not read, or not a PDB).</summary>
    NotChecked,

    /// <summary>The PDB's GUID and age equal its folder key.</summary>
    Ok,

    /// <summary>The PDB is readable but its GUID/age differ from its folder key (or the key is not a PDB
    /// key).</summary>
    Mismatch,

    /// <summary>The file is not a usable PDB (truncated, MSFZ, not a PDB, unreadable).</summary>
    Unreadable,

    /// <summary>A leftover temp file or a file outside the store layout.</summary>
    Stray,
}

/// <summary>One file of a local symbol cache or store. Immutable.</summary>
/// <param name="Path">Full path of the file.</param>
/// <param name="Name">The name folder (<c>sqlmin.pdb</c>), or <see langword="null"/> for a file outside the
/// layout.</param>
/// <param name="Key">The key folder name, or <see langword="null"/>.</param>
/// <param name="Kind">What the file is.</param>
/// <param name="Length">Size in bytes.</param>
/// <param name="KeyIdentity">The identity the key folder names, or <see langword="null"/> when the key is not a PDB
/// key.</param>
/// <param name="FileIdentity">The identity read from the file, or <see langword="null"/> when not read or
/// unreadable.</param>
/// <param name="Status">The check result.</param>
/// <param name="Problem">What is wrong, for <see cref="SymbolCacheEntryStatus.Mismatch"/>,
/// <see cref="SymbolCacheEntryStatus.Unreadable"/> and <see cref="SymbolCacheEntryStatus.Stray"/>.</param>
internal sealed record SymbolCacheEntry(
    string Path,
    string? Name,
    string? Key,
    SymbolCacheEntryKind Kind,
    long Length,
    PdbIdentity? KeyIdentity,
    PdbIdentity? FileIdentity,
    SymbolCacheEntryStatus Status,
    string? Problem
);

/// <summary>
/// Inspection of a local symbol cache or store (<c>name.pdb/KEY/file</c>, and the two-tier <c>xx/name.pdb/KEY/file</c>
/// layout), for <c>xeanalyze symbols list</c> and <c>symbols verify</c>.
/// </summary>
internal static class SymbolCache
{
    /// <summary>
    /// Lists the files of the store at <paramref name="root"/> in ordinal path order. With <paramref name="verify"/>,
    /// reads each PDB's GUID and DBI age and compares them to its key folder. Never throws for bad files; they are
    /// reported in the entries.
    /// </summary>
    /// <param name="root">The cache or store folder.</param>
    /// <param name="verify">Whether to read and check each PDB's identity.</param>
    /// <param name="cancellationToken">Stops the walk between files.</param>
    /// <exception cref="DirectoryNotFoundException"><paramref name="root"/> does not exist.</exception>
    public static IEnumerable<SymbolCacheEntry> Enumerate(
        string root,
        bool verify,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(root);
        string full = Path.GetFullPath(root);
        if (!Directory.Exists(full))
        {
            throw new DirectoryNotFoundException("the symbol cache " + full + " does not exist");
        }

        return EnumerateCore(full, verify, cancellationToken);
    }

    /// <summary>
    /// Checks every PDB of the store (as <see cref="Enumerate"/> with verification) and optionally deletes the PDBs
    /// whose identity does not match their key, the unreadable ones and leftover temp files. Only files inside
    /// <paramref name="root"/> are deleted.
    /// </summary>
    /// <param name="root">The cache folder.</param>
    /// <param name="deleteInvalid">Whether to delete mismatched, unreadable and partial files.</param>
    /// <param name="cancellationToken">Stops the walk between files.</param>
    /// <returns>All entries, with their status as found (before any deletion).</returns>
    /// <exception cref="DirectoryNotFoundException"><paramref name="root"/> does not exist.</exception>
    public static IReadOnlyList<SymbolCacheEntry> Verify(
        string root,
        bool deleteInvalid,
        CancellationToken cancellationToken = default
    )
    {
        var entries = Enumerate(root, verify: true, cancellationToken).ToList();
        if (deleteInvalid)
        {
            string full = Path.GetFullPath(root);
            foreach (SymbolCacheEntry e in entries)
            {
                bool bad =
                    e.Status is SymbolCacheEntryStatus.Mismatch or SymbolCacheEntryStatus.Unreadable
                    || e.Kind == SymbolCacheEntryKind.PartialDownload;
                if (
                    bad
                    && (e.Kind is SymbolCacheEntryKind.Pdb or SymbolCacheEntryKind.PartialDownload)
                    && StoreLayout.IsUnder(e.Path, full)
                )
                {
                    StoreLayout.TryDelete(e.Path);
                }
            }
        }

        return entries.AsReadOnly();
    }

    private static IEnumerable<SymbolCacheEntry> EnumerateCore(
        string root,
        bool verify,
        CancellationToken cancellationToken
    )
    {
        var results = new List<string>();
        foreach (
            string file in Directory.EnumerateFiles(
                root,
                "*",
                new EnumerationOptions
                {
                    IgnoreInaccessible = true,
                    AttributesToSkip = 0,
                    RecurseSubdirectories = true,
                    MaxRecursionDepth = 4,
                }
            )
        )
        {
            results.Add(file);
        }

        results.Sort(StringComparer.Ordinal);
        bool twoTier = File.Exists(Path.Join(root, "index2.txt"));
        foreach (string file in results)
        {
            cancellationToken.ThrowIfCancellationRequested();
            string[] parts = Path.GetRelativePath(root, file).Split(Path.DirectorySeparatorChar);
            yield return Describe(file, parts, twoTier, verify);
        }
    }

    private static SymbolCacheEntry Describe(string file, string[] parts, bool twoTier, bool verify)
    {
        long length = SafeLength(file);
        string fileName = parts[^1];

        // Store-level bookkeeping files (pingme.txt, index2.txt, 000Admin/…) are not entries of the layout.
        if (parts.Length == 1 || parts[0].Equals("000Admin", StringComparison.OrdinalIgnoreCase))
        {
            return new SymbolCacheEntry(
                file,
                null,
                null,
                SymbolCacheEntryKind.Other,
                length,
                null,
                null,
                SymbolCacheEntryStatus.NotChecked,
                null
            );
        }

        // name/KEY/file, or xx/name/KEY/file in a two-tier store.
        int nameIndex = parts.Length == 4 && (twoTier || parts[0].Length == 2) ? 1 : 0;
        bool inLayout = parts.Length == nameIndex + 3;
        string? name = inLayout ? parts[nameIndex] : null;
        string? key = inLayout ? parts[nameIndex + 1] : null;
        if (fileName.StartsWith('.') && fileName.EndsWith(".tmp", StringComparison.OrdinalIgnoreCase))
        {
            return new SymbolCacheEntry(
                file,
                name,
                key,
                SymbolCacheEntryKind.PartialDownload,
                length,
                null,
                null,
                SymbolCacheEntryStatus.Stray,
                "a partial download or expansion (interrupted); safe to delete"
            );
        }

        if (!inLayout)
        {
            return new SymbolCacheEntry(
                file,
                null,
                null,
                SymbolCacheEntryKind.Other,
                length,
                null,
                null,
                SymbolCacheEntryStatus.Stray,
                "not in the name/KEY/file layout"
            );
        }

        bool pdbName = name!.EndsWith(".pdb", StringComparison.OrdinalIgnoreCase);
        PdbIdentity? keyIdentity = pdbName && SymbolStoreKey.TryParse(key, out PdbIdentity k) ? k : null;
        SymbolCacheEntryKind kind =
            fileName.Equals(StoreLayout.PointerFileName, StringComparison.OrdinalIgnoreCase)
                ? SymbolCacheEntryKind.PointerFile
            : pdbName && fileName.Equals(name, StringComparison.OrdinalIgnoreCase) ? SymbolCacheEntryKind.Pdb
            : pdbName && fileName.Equals(StoreLayout.CompressedName(name), StringComparison.OrdinalIgnoreCase)
                ? SymbolCacheEntryKind.CompressedPdb
            : SymbolCacheEntryKind.Other;
        if (kind != SymbolCacheEntryKind.Pdb || !verify)
        {
            return new SymbolCacheEntry(
                file,
                name,
                key,
                kind,
                length,
                keyIdentity,
                null,
                SymbolCacheEntryStatus.NotChecked,
                null
            );
        }

        var reasons = new List<string>();
        if (!StoreLayout.TryVerify(file, null, reasons, out PdbIdentity actual))
        {
            return new SymbolCacheEntry(
                file,
                name,
                key,
                kind,
                length,
                keyIdentity,
                null,
                SymbolCacheEntryStatus.Unreadable,
                reasons[0]
            );
        }

        if (keyIdentity is not PdbIdentity expected)
        {
            return new SymbolCacheEntry(
                file,
                name,
                key,
                kind,
                length,
                null,
                actual,
                SymbolCacheEntryStatus.Mismatch,
                "the folder '" + key + "' is not a GUID+age key; the file is " + actual.ToString()
            );
        }

        return actual == expected
            ? new SymbolCacheEntry(file, name, key, kind, length, expected, actual, SymbolCacheEntryStatus.Ok, null)
            : new SymbolCacheEntry(
                file,
                name,
                key,
                kind,
                length,
                expected,
                actual,
                SymbolCacheEntryStatus.Mismatch,
                string.Create(CultureInfo.InvariantCulture, $"the file has {actual}, its folder key says {expected}")
            );
    }

    private static long SafeLength(string file)
    {
        try
        {
            return new FileInfo(file).Length;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return -1;
        }
    }
}

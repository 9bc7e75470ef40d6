using System.Globalization;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Store.Cab;

namespace XeAnalyzer.Symbols.Store;

/// <summary>
/// File-system helpers of the store client: case-insensitive probing (store layouts are case-sensitive on Linux, names
/// from captures vary in case), containment checks, and atomic writes into a cache (temp file in the final folder,
/// verify, rename).
/// </summary>
internal static class StoreLayout
{
    /// <summary>Name of a pointer file in a key folder.</summary>
    public const string PointerFileName = "file.ptr";

    /// <summary>Largest pointer file read.</summary>
    public const int MaxPointerBytes = 4096;

    private static readonly StringComparison s_pathComparison =
        OperatingSystem.IsWindows() || OperatingSystem.IsMacOS()
            ? StringComparison.OrdinalIgnoreCase
            : StringComparison.Ordinal;

    private static readonly EnumerationOptions s_caseInsensitive = new()
    {
        MatchCasing = MatchCasing.CaseInsensitive,
        MatchType = MatchType.Simple,
        IgnoreInaccessible = true,
        RecurseSubdirectories = false,
    };

    /// <summary>The compressed name symsrv uses: the last character replaced by <c>_</c> (<c>x.pdb</c> →
    /// <c>x.pd_</c>).</summary>
    public static string CompressedName(string name) => name[..^1] + "_";

    /// <summary>
    /// Entries named <paramref name="name"/> in any letter case inside <paramref name="dir"/> (the exact spelling
    /// first).
    /// <paramref name="name"/> must be free of wildcard characters (validated PDB names and hex keys are).
    /// </summary>
    public static List<string> Match(string dir, string name, bool directories)
    {
        var result = new List<string>();
        string exact = Path.Join(dir, name);
        if (directories ? Directory.Exists(exact) : File.Exists(exact))
        {
            result.Add(exact);
        }

        if (!Directory.Exists(dir))
        {
            return result;
        }

        try
        {
            IEnumerable<string> found = directories
                ? Directory.EnumerateDirectories(dir, name, s_caseInsensitive)
                : Directory.EnumerateFiles(dir, name, s_caseInsensitive);
            foreach (string path in found)
            {
                if (!result.Exists(r => string.Equals(r, path, s_pathComparison)))
                {
                    result.Add(path);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // An unreadable folder holds no candidates.
        }

        return result;
    }

    /// <summary>Name folders of <paramref name="name"/> in a store: <c>root/name</c> and the two-tier
    /// <c>root/xx/name</c> (index2) layout.</summary>
    public static List<string> NameFolders(string root, string name)
    {
        var result = Match(root, name, directories: true);
        if (name.Length > 2)
        {
            foreach (string tier in Match(root, name[..2], directories: true))
            {
                result.AddRange(Match(tier, name, directories: true));
            }
        }

        return result;
    }

    /// <summary>Whether <paramref name="path"/> (made absolute) lies strictly inside <paramref name="root"/>.</summary>
    public static bool IsUnder(string path, string root)
    {
        string full;
        string r;
        try
        {
            full = Path.GetFullPath(path);
            r = Path.TrimEndingDirectorySeparator(Path.GetFullPath(root)) + Path.DirectorySeparatorChar;
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return false;
        }

        return full.Length > r.Length && full.StartsWith(r, s_pathComparison);
    }

    /// <summary>
    /// Reads the identity of a candidate file and compares it to <paramref name="wanted"/>; on failure adds the reason
    /// (<c>x.pdb in /dir has GUID/age, wanted GUID/age</c>, or why the file is not a usable PDB).
    /// </summary>
    /// <param name="path">The candidate file.</param>
    /// <param name="wanted">The identity it must have, or <see langword="null"/> to accept any readable PDB.</param>
    /// <param name="reasons">Receives the reason when the file is rejected.</param>
    /// <param name="actual">The identity read from the file.</param>
    /// <param name="shownAs">How to name the file in the reason (default: <c>name in folder</c>).</param>
    public static bool TryVerify(
        string path,
        PdbIdentity? wanted,
        List<string> reasons,
        out PdbIdentity actual,
        string? shownAs = null
    ) => TryVerify(path, wanted, reasons, out actual, out _, shownAs);

    /// <summary>
    /// As <see cref="TryVerify(string, PdbIdentity?, List{string}, out PdbIdentity, string?)"/>;
    /// <paramref name="damage"/> receives what is wrong with the file when it is not a readable PDB at all (as opposed
    /// to a readable PDB of another build).
    /// </summary>
    public static bool TryVerify(
        string path,
        PdbIdentity? wanted,
        List<string> reasons,
        out PdbIdentity actual,
        out string? damage,
        string? shownAs = null
    )
    {
        actual = default;
        damage = null;
        string shown = shownAs ?? Path.GetFileName(path) + " in " + (Path.GetDirectoryName(path) ?? ".");
        try
        {
            actual = PdbFile.ReadIdentity(path);
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            damage = ex is XeFormatException ? InputFailure.Describe(ex) : "cannot be read: " + ex.Message;
            reasons.Add(
                shown + (ex is XeFormatException ? " is not usable: " : " cannot be read: ") + InputFailure.Describe(ex)
            );
            return false;
        }

        if (wanted is PdbIdentity w && actual != w)
        {
            reasons.Add(shown + " has " + actual.ToString() + ", wanted " + w.ToString());
            return false;
        }

        return true;
    }

    /// <summary>
    /// Prepares <c>root/name/KEY/</c> for writing: checks that it stays under <paramref name="root"/> and that no part
    /// of it is a symbolic link, creates what is missing. Returns the key folder and the folders created (to remove
    /// again on failure).
    /// </summary>
    public static string PrepareKeyFolder(string root, string name, PdbIdentity identity, List<string> created)
    {
        string fullRoot = Path.TrimEndingDirectorySeparator(Path.GetFullPath(root));
        string nameDir = Path.Join(fullRoot, name);
        string keyDir = Path.Join(nameDir, identity.Key);
        string final = Path.Join(keyDir, name);
        if (!IsUnder(final, fullRoot) || !string.Equals(Path.GetFullPath(final), final, s_pathComparison))
        {
            throw new InvalidOperationException(
                "refusing to write '" + PdbNames.Printable(final) + "': it is not inside the cache " + fullRoot
            );
        }

        foreach (string dir in new[] { fullRoot, nameDir, keyDir })
        {
            if (Directory.Exists(dir))
            {
                if (dir != fullRoot && new DirectoryInfo(dir).LinkTarget is not null)
                {
                    throw new IOException("refusing to write through the symbolic link " + dir);
                }

                continue;
            }

            Directory.CreateDirectory(dir);
            created.Add(dir);
        }

        return keyDir;
    }

    /// <summary>Removes the folders in <paramref name="created"/> (newest first) if they are empty.</summary>
    public static void RemoveIfEmpty(List<string> created)
    {
        for (int i = created.Count - 1; i >= 0; i--)
        {
            try
            {
                if (Directory.Exists(created[i]) && !Directory.EnumerateFileSystemEntries(created[i]).Any())
                {
                    Directory.Delete(created[i]);
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Someone else is using the folder: leave it.
            }
        }

        created.Clear();
    }

    /// <summary>A fresh temp-file name in <paramref name="keyDir"/>; the leading dot hides it from probes and
    /// listings.</summary>
    public static string TempPath(string keyDir, string name) =>
        Path.Join(keyDir, "." + name + "." + Guid.NewGuid().ToString("N", CultureInfo.InvariantCulture) + ".tmp");

    /// <summary>Deletes <paramref name="path"/> if it exists, ignoring failures.</summary>
    public static void TryDelete(string? path)
    {
        if (path is null)
        {
            return;
        }

        try
        {
            File.Delete(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Best effort: a leftover temp file is hidden and ignored by probes.
        }
    }

    /// <summary>
    /// Moves a verified temp file to <paramref name="final"/>. If another writer got there first, its file is kept when
    /// it verifies, and replaced (atomically) when it does not.
    /// </summary>
    public static void Commit(string temp, string final, PdbIdentity identity)
    {
        try
        {
            File.Move(temp, final, overwrite: false);
            return;
        }
        catch (IOException) when (File.Exists(final))
        {
            // Fall through: someone else wrote the same entry.
        }

        if (TryVerify(final, identity, [], out _))
        {
            TryDelete(temp);
            return;
        }

        File.Move(temp, final, overwrite: true);
    }

    /// <summary>
    /// Expands the PDB inside the cabinet <paramref name="cabPath"/> into <c>cacheRoot/name/KEY/name</c>: to a temp
    /// file first, verified, then renamed. Returns the final path, or <see langword="null"/> with the reason added.
    /// </summary>
    public static string? ExpandCabinet(
        string cabPath,
        string name,
        PdbIdentity identity,
        string cacheRoot,
        long maxBytes,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        var created = new List<string>();
        string? temp = null;
        bool ok = false;
        try
        {
            using CabArchive cab = CabArchive.Open(cabPath);
            CabFileEntry? entry =
                cab.Files.FirstOrDefault(f =>
                    PdbNames.FileNameOf(f.Name).Equals(name, StringComparison.OrdinalIgnoreCase)
                ) ?? (cab.Files.Count == 1 ? cab.Files[0] : null);
            if (entry is null)
            {
                reasons.Add(
                    Path.GetFileName(cabPath)
                        + " holds "
                        + cab.Files.Count.ToString(CultureInfo.InvariantCulture)
                        + " files and none is named "
                        + name
                );
                return null;
            }

            string keyDir = PrepareKeyFolder(cacheRoot, name, identity, created);
            temp = TempPath(keyDir, name);
            using (var output = new FileStream(temp, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 16))
            {
                cab.Extract(entry, output, maxBytes, cancellationToken);
                output.Flush(flushToDisk: true);
            }

            if (!TryVerify(temp, identity, reasons, out _, name + " expanded from " + cabPath))
            {
                return null;
            }

            string final = Path.Join(keyDir, name);
            Commit(temp, final, identity);
            ok = true;
            return final;
        }
        catch (XeFormatException ex)
        {
            reasons.Add("cannot expand " + cabPath + ": " + ex.Detail);
            return null;
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex) || ex is InvalidOperationException)
        {
            reasons.Add("cannot expand " + cabPath + " into " + cacheRoot + ": " + ex.Message);
            return null;
        }
        finally
        {
            if (!ok)
            {
                TryDelete(temp);
                RemoveIfEmpty(created);
            }
        }
    }
}

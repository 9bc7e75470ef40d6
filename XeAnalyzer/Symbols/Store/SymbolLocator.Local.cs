using System.Globalization;

namespace XeAnalyzer.Symbols.Store;

/// <content>
/// Searching local locations: plain folders (recursively when enabled), symbol stores and caches in every letter case,
/// <c>.pd_</c> cabinets and <c>file.ptr</c> pointers, and matching by name only when nothing identifies the build.
/// </content>
sealed partial class SymbolLocator
{
    private PdbLookupResult? ProbeLocal(
        LocalLocation location,
        string name,
        PdbIdentity id,
        List<string> reasons,
        List<(string Path, string Damage)> damaged,
        CancellationToken cancellationToken
    )
    {
        if (!Directory.Exists(location.Directory))
        {
            if (location.IsPlainFolder)
            {
                reasons.Add("folder " + location.Directory + " does not exist");
            }

            return null;
        }

        if (location.IsPlainFolder)
        {
            foreach (string candidate in FolderCandidates(location.Directory, name))
            {
                if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual))
                {
                    return Found(
                        name,
                        id,
                        PdbLookupStatus.Verified,
                        candidate,
                        actual,
                        PdbOrigin.Folder,
                        location.Directory,
                        false,
                        false,
                        reasons
                    );
                }
            }
        }

        foreach (string nameDir in StoreLayout.NameFolders(location.Directory, name))
        {
            foreach (string keyDir in StoreLayout.Match(nameDir, id.Key, directories: true))
            {
                foreach (string candidate in StoreLayout.Match(keyDir, name, directories: false))
                {
                    if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual, out string? damage))
                    {
                        return Found(
                            name,
                            id,
                            PdbLookupStatus.Verified,
                            candidate,
                            actual,
                            PdbOrigin.Store,
                            location.Directory,
                            false,
                            false,
                            reasons
                        );
                    }

                    if (damage is not null)
                    {
                        // Its key folder says it is the wanted build: a file there that cannot be read is a damaged
                        // PDB, not a missing one.
                        damaged.Add((Path.GetFullPath(candidate), damage));
                    }
                }

                foreach (string cab in StoreLayout.Match(keyDir, StoreLayout.CompressedName(name), directories: false))
                {
                    string? expanded = StoreLayout.ExpandCabinet(
                        cab,
                        name,
                        id,
                        location.ExpansionCache,
                        Options.MaxExpandedBytes,
                        reasons,
                        cancellationToken
                    );
                    if (expanded is not null)
                    {
                        return Found(
                            name,
                            id,
                            PdbLookupStatus.Verified,
                            expanded,
                            id,
                            PdbOrigin.Store,
                            location.Directory,
                            true,
                            false,
                            reasons
                        );
                    }
                }

                foreach (string pointer in StoreLayout.Match(keyDir, StoreLayout.PointerFileName, directories: false))
                {
                    string? text = ReadPointerFile(pointer, reasons);
                    if (text is not null)
                    {
                        PdbLookupResult? viaPointer = FollowPointer(
                            text,
                            pointer,
                            keyDir,
                            name,
                            id,
                            location.ExpansionCache,
                            PdbOrigin.Store,
                            reasons,
                            cancellationToken
                        );
                        if (viaPointer is not null)
                        {
                            return viaPointer;
                        }
                    }
                }
            }
        }

        return null;
    }

    private IEnumerable<string> FolderCandidates(string folder, string name)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string direct in StoreLayout.Match(folder, name, directories: false))
        {
            if (seen.Add(direct))
            {
                yield return direct;
            }
        }

        if (!Options.SearchFoldersRecursively)
        {
            yield break;
        }

        var options = new EnumerationOptions
        {
            RecurseSubdirectories = true,
            MaxRecursionDepth = Options.MaxSearchDepth,
            MatchCasing = MatchCasing.CaseInsensitive,
            MatchType = MatchType.Simple,
            IgnoreInaccessible = true,
            AttributesToSkip = FileAttributes.Hidden | FileAttributes.System | FileAttributes.ReparsePoint,
        };
        int count = 0;
        foreach (string path in Directory.EnumerateFiles(folder, name, options))
        {
            if (seen.Add(path))
            {
                yield return path;
                if (++count >= MaxRecursiveCandidates)
                {
                    yield break;
                }
            }
        }
    }

    private const int MaxRecursiveCandidates = 256;

    private PdbLookupResult LocateByNameOnly(string name, List<string> reasons, CancellationToken cancellationToken)
    {
        // Nothing identifies the build: collect every file of that name in the folders named for name-only matching
        // (SymbolStoreOptions.NameOnlyFolders), and accept one only if all of them are the same build. Caches and
        // stores never count.
        var byIdentity = new Dictionary<PdbIdentity, (string Path, LocalLocation Where, PdbOrigin Origin)>();
        var order = new List<PdbIdentity>();
        foreach (LocalLocation location in _nameOnly)
        {
            foreach ((string path, PdbOrigin origin) in NameCandidates(location, name, cancellationToken))
            {
                if (
                    StoreLayout.TryVerify(path, null, reasons, out PdbIdentity actual)
                    && !byIdentity.ContainsKey(actual)
                )
                {
                    byIdentity[actual] = (path, location, origin);
                    order.Add(actual);
                }
            }
        }

        if (_servers.Count > 0)
        {
            reasons.Add("no GUID/age is known for " + name + ", so symbol servers were not asked");
        }

        if (order.Count == 1)
        {
            var (path, where, origin) = byIdentity[order[0]];
            reasons.Add(
                "matched by name only: nothing identifies the build, so "
                    + path
                    + " ("
                    + order[0].ToString()
                    + ") is unverified"
            );
            return Found(
                name,
                null,
                PdbLookupStatus.Unverified,
                path,
                order[0],
                origin,
                where.Directory,
                false,
                false,
                reasons
            );
        }

        if (order.Count > 1)
        {
            reasons.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{order.Count} different builds of {name} were found "
                        + $"({string.Join(", ", order.Select(i => i.ToString()))}) and nothing identifies which one is "
                        + $"wanted"
                )
            );
            return NotFound(name, null, reasons);
        }

        reasons.Add(
            _nameOnly.Count == 0
                ? "no GUID/age is known for " + name + ", and no folder was named for matching a PDB by name only"
                : "no file named "
                    + name
                    + " was found in the "
                    + _nameOnly.Count.ToString(CultureInfo.InvariantCulture)
                    + " folder(s) named for matching by name only"
        );

        // Say what the symbol path holds under that name, and why it is not used.
        int shown = 0;
        foreach (LocalLocation location in _local)
        {
            foreach ((string path, _) in NameCandidates(location, name, cancellationToken))
            {
                if (shown++ < 4)
                {
                    reasons.Add(
                        path
                            + " has that name but is not used: without a GUID/age a PDB is matched by name only from a "
                            + "folder named for it, never from a cache or symbol store (it may be of another build)"
                    );
                }
            }
        }

        return NotFound(name, null, reasons);
    }

    /// <summary>Files named <paramref name="name"/> in a location: in the folder (recursively when enabled) and in
    /// symbol-store layout.</summary>
    private List<(string Path, PdbOrigin Origin)> NameCandidates(
        LocalLocation location,
        string name,
        CancellationToken cancellationToken
    )
    {
        cancellationToken.ThrowIfCancellationRequested();
        var candidates = new List<(string, PdbOrigin)>();
        if (!Directory.Exists(location.Directory))
        {
            return candidates;
        }

        if (location.IsPlainFolder)
        {
            candidates.AddRange(FolderCandidates(location.Directory, name).Select(c => (c, PdbOrigin.Folder)));
        }

        foreach (string nameDir in StoreLayout.NameFolders(location.Directory, name))
        {
            foreach (string keyDir in SafeSubdirectories(nameDir))
            {
                candidates.AddRange(
                    StoreLayout.Match(keyDir, name, directories: false).Select(c => (c, PdbOrigin.Store))
                );
            }
        }

        return candidates;
    }

    private static string[] SafeSubdirectories(string dir)
    {
        try
        {
            return Directory.GetDirectories(dir);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    private static string? ReadPointerFile(string path, List<string> reasons)
    {
        try
        {
            using var fs = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            if (fs.Length > StoreLayout.MaxPointerBytes)
            {
                reasons.Add(
                    path
                        + " is "
                        + fs.Length.ToString(CultureInfo.InvariantCulture)
                        + " bytes, too large for a pointer file; ignored"
                );
                return null;
            }

            using var reader = new StreamReader(fs);
            return reader.ReadToEnd();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            reasons.Add(path + " cannot be read: " + ex.Message);
            return null;
        }
    }

    /// <summary>
    /// Follows a <c>file.ptr</c> (<c>PATH:&lt;path&gt;</c> or <c>MSG:&lt;text&gt;</c>). A PATH must be a local absolute
    /// path (or, for a local pointer, relative to its key folder) that lies inside one of the symbol path's local
    /// folders, stores or caches, unless <see cref="SymbolStoreOptions.AllowPointerTargetsOutsideSymbolPath"/> is set;
    /// the target is verified like any candidate.
    /// </summary>
    private PdbLookupResult? FollowPointer(
        string text,
        string pointerLabel,
        string? keyDir,
        string name,
        PdbIdentity id,
        string expansionCache,
        PdbOrigin origin,
        List<string> reasons,
        CancellationToken cancellationToken
    )
    {
        string line = text.Split('\n')[0].Trim().TrimStart('\uFEFF');
        if (line.StartsWith("MSG:", StringComparison.OrdinalIgnoreCase))
        {
            reasons.Add(pointerLabel + " says: " + PdbNames.Printable(line[4..].Trim()));
            return null;
        }

        if (!line.StartsWith("PATH:", StringComparison.OrdinalIgnoreCase))
        {
            reasons.Add(
                pointerLabel
                    + " is not a pointer file (expected 'PATH:' or 'MSG:', found '"
                    + PdbNames.Printable(line)
                    + "')"
            );
            return null;
        }

        string target = line[5..].Trim();
        string shown = "'" + PdbNames.Printable(target) + "'";
        if (target.Length == 0 || target.Any(char.IsControl))
        {
            reasons.Add(pointerLabel + " points to an empty or unprintable path; ignored");
            return null;
        }

        if (
            !OperatingSystem.IsWindows()
            && (
                target.StartsWith(@"\\", StringComparison.Ordinal)
                || (target.Length >= 2 && char.IsAsciiLetter(target[0]) && target[1] == ':')
            )
        )
        {
            reasons.Add(pointerLabel + " points to the Windows path " + shown + ", which cannot be used on this OS");
            return null;
        }

        if (!Path.IsPathRooted(target))
        {
            if (keyDir is null)
            {
                reasons.Add(
                    pointerLabel
                        + " points to the relative path "
                        + shown
                        + "; a server's pointer must be absolute; ignored"
                );
                return null;
            }

            target = Path.Join(keyDir, target);
        }

        string full;
        try
        {
            full = Path.GetFullPath(target);
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or PathTooLongException)
        {
            reasons.Add(pointerLabel + " points to the invalid path " + shown + "; ignored");
            return null;
        }

        if (
            !Options.AllowPointerTargetsOutsideSymbolPath
            && !_allowedRoots.Exists(root => StoreLayout.IsUnder(full, root))
        )
        {
            reasons.Add(
                pointerLabel
                    + " points to "
                    + PdbNames.Printable(full)
                    + ", outside the symbol path's folders and caches; ignored"
            );
            return null;
        }

        if (Directory.Exists(full))
        {
            foreach (string candidate in StoreLayout.Match(full, name, directories: false))
            {
                if (StoreLayout.TryVerify(candidate, id, reasons, out PdbIdentity actual))
                {
                    return Found(
                        name,
                        id,
                        PdbLookupStatus.Verified,
                        candidate,
                        actual,
                        origin,
                        full,
                        false,
                        true,
                        reasons
                    );
                }
            }

            reasons.Add(pointerLabel + " points to the folder " + full + ", which holds no matching " + name);
            return null;
        }

        if (!File.Exists(full))
        {
            reasons.Add(pointerLabel + " points to " + full + ", which does not exist");
            return null;
        }

        if (full.EndsWith(".pd_", StringComparison.OrdinalIgnoreCase))
        {
            string? expanded = StoreLayout.ExpandCabinet(
                full,
                name,
                id,
                expansionCache,
                Options.MaxExpandedBytes,
                reasons,
                cancellationToken
            );
            return expanded is null
                ? null
                : Found(name, id, PdbLookupStatus.Verified, expanded, id, origin, full, true, true, reasons);
        }

        return StoreLayout.TryVerify(full, id, reasons, out PdbIdentity found)
            ? Found(name, id, PdbLookupStatus.Verified, full, found, origin, full, false, true, reasons)
            : null;
    }
}

using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Pe;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// The DLLs and EXEs of folders (a copy of SQL Server's <c>Binn</c>, or a symbol store holding images), indexed by
/// module name: each module's PDB identity (RSDS) and export table (for <c>OrdinalN</c> frames). Files that are not PE
/// images are skipped with a warning. Immutable and thread-safe once built.
/// </summary>
public sealed class ModuleBinaries
{
    /// <summary>The most image files read in one scan.</summary>
    public const int MaxFiles = 20_000;

    /// <summary>How deep the folder walk goes.</summary>
    public const int MaxDepth = 8;

    private readonly Dictionary<string, ModuleBinary> _byKey;
    private readonly HashSet<string> _ambiguous;

    private ModuleBinaries(
        Dictionary<string, ModuleBinary> byKey,
        HashSet<string> ambiguous,
        List<ModuleBinary> all,
        List<string> warnings
    )
    {
        _byKey = byKey;
        _ambiguous = ambiguous;
        Images = all.AsReadOnly();
        Warnings = warnings.AsReadOnly();
    }

    /// <summary>An empty index.</summary>
    public static ModuleBinaries Empty { get; } = new([], [], [], []);

    /// <summary>Every image read, in ordinal path order.</summary>
    internal IReadOnlyList<ModuleBinary> Images { get; }

    /// <summary>Files skipped (not a PE image, unreadable) and modules found in several different builds, in
    /// order.</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>
    /// Reads every <c>.dll</c> and <c>.exe</c> under the folders (recursively, at most <see cref="MaxDepth"/> levels,
    /// symbolic links not followed, at most <see cref="MaxFiles"/> files). A module found twice with the same PDB
    /// identity keeps its first copy; a module found in two builds (different RSDS GUID/age) is not used at all, since
    /// nothing says which build the capture ran.
    /// </summary>
    /// <param name="directories">The folders (a single file is accepted too).</param>
    /// <param name="cancellationToken">Stops the scan between files.</param>
    /// <returns>The index.</returns>
    /// <exception cref="DirectoryNotFoundException">A folder does not exist.</exception>
    public static ModuleBinaries Scan(IEnumerable<string> directories, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(directories);
        var files = new List<string>();
        var warnings = new List<string>();
        foreach (string dir in directories)
        {
            ArgumentException.ThrowIfNullOrEmpty(dir);
            string full = System.IO.Path.GetFullPath(dir);
            if (File.Exists(full))
            {
                files.Add(full);
                continue;
            }

            if (!Directory.Exists(full))
            {
                throw new DirectoryNotFoundException("the binaries folder " + full + " does not exist");
            }

            var options = new EnumerationOptions
            {
                RecurseSubdirectories = true,
                MaxRecursionDepth = MaxDepth,
                IgnoreInaccessible = true,
                AttributesToSkip = FileAttributes.ReparsePoint,
                MatchCasing = MatchCasing.CaseInsensitive,
            };
            foreach (string f in Directory.EnumerateFiles(full, "*", options))
            {
                if (
                    f.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
                    || f.EndsWith(".exe", StringComparison.OrdinalIgnoreCase)
                )
                {
                    files.Add(f);
                    if (files.Count > MaxFiles)
                    {
                        warnings.Add(
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"more than {MaxFiles} images under {full}: the rest were not read"
                            )
                        );
                        break;
                    }
                }
            }
        }

        files = files.Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal).Take(MaxFiles).ToList();
        var byKey = new Dictionary<string, ModuleBinary>(StringComparer.Ordinal);
        var ambiguous = new HashSet<string>(StringComparer.Ordinal);
        var all = new List<ModuleBinary>();
        foreach (string file in files)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (!ModuleName.TryCreate(file, out ModuleName? module))
            {
                continue;
            }

            PeImage image;
            try
            {
                image = PeImage.Open(file);
            }
            catch (Exception ex) when (InputFailure.IsReadFailure(ex))
            {
                warnings.Add(
                    file
                        + (
                            ex is XeFormatException
                                ? " is not a usable PE image, skipped: "
                                : " cannot be read, skipped: "
                        )
                        + InputFailure.Describe(ex)
                );
                continue;
            }

            var binary = new ModuleBinary(module, file, image);
            all.Add(binary);
            if (ambiguous.Contains(module.Key))
            {
                continue;
            }

            if (byKey.TryGetValue(module.Key, out ModuleBinary? first))
            {
                if (first.CodeView?.Identity != binary.CodeView?.Identity)
                {
                    ambiguous.Add(module.Key);
                    byKey.Remove(module.Key);
                    warnings.Add(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"{module.Name} exists in two builds ({first.Path}: {Describe(first)}; {file}: "
                                + $"{Describe(binary)}): neither is used, since nothing says which build the capture "
                                + $"ran"
                        )
                    );
                }

                continue;
            }

            byKey.Add(module.Key, binary);
        }

        return new ModuleBinaries(byKey, ambiguous, all, warnings);
    }

    /// <summary>Finds the image of a module (matched by <see cref="ModuleName.Key"/>: <c>sqlmin</c>, <c>SQLMIN.DLL</c>
    /// and <c>sqlmin.dll</c> are one module).</summary>
    /// <param name="module">The module.</param>
    /// <param name="binary">The image, when exactly one build of the module was found.</param>
    /// <returns><see langword="true"/> when found.</returns>
    internal bool TryGet(ModuleName module, [NotNullWhen(true)] out ModuleBinary? binary)
    {
        ArgumentNullException.ThrowIfNull(module);
        return _byKey.TryGetValue(module.Key, out binary);
    }

    /// <summary>Whether the module was found in several builds (and so is not used).</summary>
    /// <param name="module">The module.</param>
    internal bool IsAmbiguous(ModuleName module)
    {
        ArgumentNullException.ThrowIfNull(module);
        return _ambiguous.Contains(module.Key);
    }

    private static string Describe(ModuleBinary b) =>
        b.CodeView is PeCodeViewRecord cv ? cv.PdbFileName + " " + cv.Identity.ToString() : "no RSDS record";
}

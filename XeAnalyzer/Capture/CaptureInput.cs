using XeAnalyzer.Callstacks;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>What one input of a <see cref="CaptureSource"/> is.</summary>
public enum CaptureInputKind
{
    /// <summary>A <c>.xel</c> capture: one file, or the files of one rollover set in file order.</summary>
    Xel,

    /// <summary>Saved target data (XML): histogram, ring_buffer, event_counter, pair_matching, event_file,
    /// <c>event_data</c> rows.</summary>
    TargetData,
}

/// <summary>Where an input's module map (for raw addresses) came from.</summary>
internal enum ModuleMapSource
{
    /// <summary>No module map: raw addresses stay unresolved.</summary>
    None,

    /// <summary>Given explicitly (<c>--modules FILE</c>) for every input.</summary>
    Explicit,

    /// <summary>The <c>&lt;set-name&gt;.modules.txt</c> sidecar found beside the capture
    /// (<see cref="ModuleListSidecar"/>).</summary>
    Sidecar,
}

/// <summary>
/// The module map (<c>sys.dm_os_loaded_modules</c>) that places an input's raw return addresses, and where it came
/// from. Decided once per input by <see cref="CaptureSource.Open"/>: an explicit <c>--modules</c> file for every input
/// (a file that cannot be read or parsed is an error), else the input's sidecar (a sidecar that cannot be read or
/// parsed is a warning: the input is still read, its raw addresses stay unresolved), else none. Immutable.
/// </summary>
/// <param name="Map">The parsed map, or <see langword="null"/> when there is none (or the sidecar was
/// unusable).</param>
/// <param name="Path">The module list file as found (an explicit path as given; a sidecar beside the input as the input
/// was named), or <see langword="null"/>.</param>
/// <param name="Source">Where it came from (<see cref="ModuleMapSource.None"/> when <paramref name="Map"/> is
/// <see langword="null"/>).</param>
/// <param name="Problem">Why a sidecar found beside the input could not be used, or <see langword="null"/>.</param>
internal sealed record ModuleMapBinding(ModuleMap? Map, string? Path, ModuleMapSource Source, string? Problem = null)
{
    /// <summary>No module map.</summary>
    public static ModuleMapBinding None { get; } = new(null, null, ModuleMapSource.None);

    /// <summary>A one-line description: where the map came from and how many modules it holds.</summary>
    public string Description =>
        Map is null
            ? Problem is null
                ? "no module list (raw addresses stay unresolved)"
                : "module list " + Path + " is not usable: " + Problem
            : Source == ModuleMapSource.Explicit
                ? "module list "
                    + Path
                    + " (--modules), "
                    + Map.Modules.Count.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + " modules"
                : "module list "
                    + Path
                    + " (found beside the input), "
                    + Map.Modules.Count.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + " modules";
}

/// <summary>
/// One input of a <see cref="CaptureSource"/>: a <c>.xel</c> capture (a file or a rollover set) or a target-data XML
/// file, with the module map that applies to it. Immutable.
/// </summary>
public sealed class CaptureInput
{
    internal CaptureInput(
        int index,
        CaptureInputKind kind,
        string name,
        IReadOnlyList<string> files,
        CaptureSet? set,
        ModuleMapBinding moduleMap,
        IReadOnlyList<ModuleMapBinding>? fileModuleMaps = null
    )
    {
        Index = index;
        Kind = kind;
        Name = name;
        Files = files;
        Set = set;
        ModuleMap = moduleMap;
        FileModuleMaps = fileModuleMaps ?? [.. files.Select(_ => moduleMap)];
    }

    /// <summary>0-based position among the inputs, in the order they are read.</summary>
    public int Index { get; }

    /// <summary>What the input is.</summary>
    public CaptureInputKind Kind { get; }

    /// <summary>The input's name: the first file of a capture set, or the XML file.</summary>
    public string Name { get; }

    /// <summary>The files read, in order (several for a rollover set).</summary>
    public IReadOnlyList<string> Files { get; }

    /// <summary>The <c>.xel</c> capture set, or <see langword="null"/> for target data.</summary>
    internal CaptureSet? Set { get; }

    /// <summary>
    /// The module map that places this input's raw addresses (the set's; a file's own list overrides it: <see
    /// cref="FileModuleMaps"/>).
    /// </summary>
    internal ModuleMapBinding ModuleMap { get; }

    /// <summary>
    /// The module map of each file of <see cref="Files"/> (same order): the file's own
    /// <c>&lt;file-name&gt;.modules.txt</c> when it has one (a rollover set that spans a restart), else <see
    /// cref="ModuleMap"/>. Files that share a map share one binding instance.
    /// </summary>
    internal IReadOnlyList<ModuleMapBinding> FileModuleMaps { get; }

    /// <summary>Whether some file has a module map of its own (other than <see cref="ModuleMap"/>).</summary>
    internal bool HasFileModuleMaps => FileModuleMaps.Any(m => !ReferenceEquals(m, ModuleMap));

    /// <summary>The input's kind as a short word: <c>xel</c> or <c>target-xml</c>.</summary>
    public string KindName => Kind == CaptureInputKind.Xel ? "xel" : "target-xml";

    /// <inheritdoc/>
    public override string ToString() => Name;
}

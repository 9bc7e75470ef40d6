namespace XeAnalyzer.Symbols.Pe;

/// <summary>Caps on counts and sizes read from a PE image, so hostile files cannot cause unbounded
/// allocation.</summary>
internal sealed class PeReaderLimits
{
    private readonly int _maxExports = 1_000_000;
    private readonly int _maxDebugEntries = 1_000;
    private readonly int _maxNameBytes = 64 * 1024;

    /// <summary>The defaults: 1,000,000 export slots, 1,000 debug directory entries, 64 KB per name.</summary>
    public static PeReaderLimits Default { get; } = new();

    /// <summary>Maximum <c>NumberOfFunctions</c> and <c>NumberOfNames</c> of the export directory.</summary>
    public int MaxExports
    {
        get => _maxExports;
        init => _maxExports = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of debug directory entries.</summary>
    public int MaxDebugEntries
    {
        get => _maxDebugEntries;
        init => _maxDebugEntries = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum length of one NUL-terminated name (export, forwarder, DLL name) in bytes.</summary>
    public int MaxNameBytes
    {
        get => _maxNameBytes;
        init => _maxNameBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }
}

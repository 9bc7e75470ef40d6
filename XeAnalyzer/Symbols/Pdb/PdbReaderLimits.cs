namespace XeAnalyzer.Symbols.Pdb;

/// <summary>Caps on counts and sizes read from a PDB, so hostile files cannot cause unbounded allocation.</summary>
public sealed class PdbReaderLimits
{
    private readonly int _maxStreams = 1_000_000;
    private readonly long _maxDirectoryBytes = 64L * 1024 * 1024;
    private readonly long _maxStreamBytes = 1024L * 1024 * 1024;

    /// <summary>The defaults: 1,000,000 streams, a 64 MB stream directory, 1 GB per stream read whole.</summary>
    public static PdbReaderLimits Default { get; } = new();

    /// <summary>Maximum number of streams in the MSF directory.</summary>
    public int MaxStreams
    {
        get => _maxStreams;
        init => _maxStreams = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum size of the MSF stream directory in bytes.</summary>
    public long MaxDirectoryBytes
    {
        get => _maxDirectoryBytes;
        init => _maxDirectoryBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum size of a single stream that is read into memory whole.</summary>
    public long MaxStreamBytes
    {
        get => _maxStreamBytes;
        init => _maxStreamBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }
}

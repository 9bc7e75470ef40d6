namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// Caps on counts and sizes read from a PDB, so hostile files cannot cause unbounded allocation.
/// Every count taken from the file is also checked against the bytes that actually remain in its stream before anything
/// is allocated; these caps bound what a large but well-formed file may cost.
/// </summary>
internal sealed class PdbReaderLimits
{
    private readonly int _maxStreams = 1_000_000;
    private readonly long _maxDirectoryBytes = 64L * 1024 * 1024;
    private readonly long _maxStreamBytes = 1024L * 1024 * 1024;
    private readonly int _maxSections = 65_535;
    private readonly int _maxModules = 1_000_000;
    private readonly int _maxPublics = 20_000_000;
    private readonly int _maxProcedures = 20_000_000;
    private readonly int _maxOmapEntries = 100_000_000;
    private readonly int _maxLineRecordsPerModule = 10_000_000;
    private readonly int _maxInlineSitesPerModule = 10_000_000;
    private readonly int _maxInlineDepth = 256;
    private readonly int _maxTypeRecords = 50_000_000;

    /// <summary>
    /// The defaults: 1,000,000 streams, a 64 MB stream directory, 1 GB per stream read whole, 65,535 sections,
    /// 1,000,000 modules, 20,000,000 publics, 20,000,000 procedures, 100,000,000 OMAP entries, 10,000,000 line records
    /// and 10,000,000 inline sites per module, inline sites nested 256 deep, and 50,000,000 type or id records.
    /// </summary>
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

    /// <summary>Maximum size of a single stream (or substream) that is read into memory whole.</summary>
    public long MaxStreamBytes
    {
        get => _maxStreamBytes;
        init => _maxStreamBytes = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of section headers (stream [5] or [10] of the DBI optional debug header).</summary>
    public int MaxSections
    {
        get => _maxSections;
        init => _maxSections = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of module (compiland) records in the DBI stream.</summary>
    public int MaxModules
    {
        get => _maxModules;
        init => _maxModules = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of entries in the publics address map (<c>S_PUB32</c> records).</summary>
    public int MaxPublics
    {
        get => _maxPublics;
        init => _maxPublics = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of procedure records (<c>S_GPROC32</c>, <c>S_LPROC32</c> and their <c>_ID</c> forms)
    /// over all modules.</summary>
    public int MaxProcedures
    {
        get => _maxProcedures;
        init => _maxProcedures = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of entries in one OMAP stream.</summary>
    public int MaxOmapEntries
    {
        get => _maxOmapEntries;
        init => _maxOmapEntries = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of line records (C13 <c>DEBUG_S_LINES</c> entries) in one module.</summary>
    public int MaxLineRecordsPerModule
    {
        get => _maxLineRecordsPerModule;
        init => _maxLineRecordsPerModule = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of inline sites (<c>S_INLINESITE</c>, <c>S_INLINESITE2</c>) in one module's
    /// symbols.</summary>
    public int MaxInlineSitesPerModule
    {
        get => _maxInlineSitesPerModule;
        init => _maxInlineSitesPerModule = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum nesting of scopes (procedures, blocks, inline sites) in a module's symbols.</summary>
    public int MaxInlineDepth
    {
        get => _maxInlineDepth;
        init => _maxInlineDepth = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }

    /// <summary>Maximum number of records in the TPI (type) or IPI (id) stream, which inline-frame names are read
    /// from.</summary>
    public int MaxTypeRecords
    {
        get => _maxTypeRecords;
        init => _maxTypeRecords = value > 0 ? value : throw new ArgumentOutOfRangeException(nameof(value));
    }
}

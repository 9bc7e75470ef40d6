namespace XeAnalyzer.Symbols.Store;

/// <summary>The outcome of looking a PDB up.</summary>
public enum PdbLookupStatus
{
    /// <summary>No usable file was found; <see cref="PdbLookupResult.Reasons"/> says what was tried and
    /// rejected.</summary>
    NotFound,

    /// <summary>A file was found whose GUID and age equal the requested identity.</summary>
    Verified,

    /// <summary>
    /// The request had no identity (nothing in the capture identifies the build), and exactly one file of that name was
    /// found. Symbols from it may be wrong: output should flag frames resolved through it.
    /// </summary>
    Unverified,
}

/// <summary>Where a found PDB came from.</summary>
public enum PdbOrigin
{
    /// <summary>Nothing was found.</summary>
    None,

    /// <summary>A plain folder of the symbol path (directly, or in a subfolder when searching recursively).</summary>
    Folder,

    /// <summary>A local symbol store or cache (<c>name.pdb/KEY/name.pdb</c> layout).</summary>
    Store,

    /// <summary>Downloaded from a symbol server during this lookup.</summary>
    Server,
}

/// <summary>What to look up: a PDB name and, when known, its identity.</summary>
/// <param name="PdbName">The PDB file name (<c>sqlmin.pdb</c>), as a frame or RSDS record names it.</param>
/// <param name="Identity">The GUID and age, or <see langword="null"/> when the capture does not identify the
/// build.</param>
public readonly record struct PdbRequest(string PdbName, PdbIdentity? Identity);

/// <summary>The result of <see cref="SymbolLocator.LocatePdb"/>. Immutable.</summary>
public sealed class PdbLookupResult
{
    internal PdbLookupResult(
        string pdbName,
        PdbIdentity? requestedIdentity,
        PdbLookupStatus status,
        string? path,
        PdbIdentity? fileIdentity,
        PdbOrigin origin,
        string? originLocation,
        bool expandedFromCabinet,
        bool viaPointerFile,
        IReadOnlyList<string> reasons,
        string? damagedCandidate = null,
        string? damage = null
    )
    {
        DamagedCandidate = damagedCandidate;
        Damage = damage;
        PdbName = pdbName;
        RequestedIdentity = requestedIdentity;
        Status = status;
        Path = path;
        FileIdentity = fileIdentity;
        Origin = origin;
        OriginLocation = originLocation;
        ExpandedFromCabinet = expandedFromCabinet;
        ViaPointerFile = viaPointerFile;
        Reasons = reasons;
    }

    /// <summary>The requested PDB name.</summary>
    public string PdbName { get; }

    /// <summary>The requested identity, or <see langword="null"/> when the request had none.</summary>
    public PdbIdentity? RequestedIdentity { get; }

    /// <summary>Found and verified, found by name only, or not found.</summary>
    public PdbLookupStatus Status { get; }

    /// <summary>Whether a file was found (<see cref="Path"/> is set).</summary>
    public bool IsFound => Status != PdbLookupStatus.NotFound;

    /// <summary>Whether the file's GUID and age were checked against the requested identity.</summary>
    public bool IsVerified => Status == PdbLookupStatus.Verified;

    /// <summary>The full path of the PDB to open, or <see langword="null"/> when not found. Always a plain MSF 7.0
    /// PDB.</summary>
    public string? Path { get; }

    /// <summary>The GUID and age read from the file, or <see langword="null"/> when not found.</summary>
    public PdbIdentity? FileIdentity { get; }

    /// <summary>Where the file came from.</summary>
    public PdbOrigin Origin { get; }

    /// <summary>The folder, store or URL the file came from (for messages), or <see langword="null"/>.</summary>
    public string? OriginLocation { get; }

    /// <summary>Whether the file was expanded from a <c>.pd_</c> cabinet into a cache.</summary>
    public bool ExpandedFromCabinet { get; }

    /// <summary>Whether the file was reached through a <c>file.ptr</c> pointer file.</summary>
    public bool ViaPointerFile { get; }

    /// <summary>
    /// What happened along the way, in order: candidates rejected and why (wrong GUID/age, not a PDB, MSFZ), elements
    /// skipped (offline, unusable), server errors and 404s. Useful for found results too.
    /// </summary>
    public IReadOnlyList<string> Reasons { get; }

    /// <summary>
    /// When nothing usable was found: the first file that sat where the requested build belongs (its store key folder,
    /// <c>name.pdb/KEY/name.pdb</c>) but is not a readable PDB (truncated, damaged directory); otherwise
    /// <see langword="null"/>. Such a PDB is damaged rather than missing.
    /// </summary>
    public string? DamagedCandidate { get; }

    /// <summary>What is wrong with <see cref="DamagedCandidate"/> (file offset and what was expected), or
    /// <see langword="null"/>.</summary>
    public string? Damage { get; }

    /// <summary>A one-line summary: status, path or name, and the first reason when not found.</summary>
    public override string ToString() =>
        Status switch
        {
            PdbLookupStatus.NotFound => PdbName
                + ": not found"
                + (Reasons.Count > 0 ? " (" + Reasons[^1] + ")" : string.Empty),
            _ => PdbName + ": " + Status.ToString() + " " + Path,
        };
}

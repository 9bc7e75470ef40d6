using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// A Windows PDB (MSF 7.0) opened for reading. Opening validates the container and reads the identity
/// (PDB info stream GUID, DBI age); everything else is read on demand, so PDBs of hundreds of MB are never read whole.
/// MSFZ-compressed PDBs and CAB-compressed <c>.pd_</c> files are recognised and rejected with a clear message.
/// </summary>
internal sealed partial class PdbFile : IDisposable
{
    private const int InfoStreamIndex = 1;
    private const int DbiStreamIndex = 3;
    private const int SectionHeaderSlot = 5;
    private const int OriginalSectionHeaderSlot = 10;

    private readonly IRandomAccessSource _source;
    private readonly bool _ownsSource;

    private PdbFile(
        IRandomAccessSource source,
        bool ownsSource,
        MsfFile msf,
        PdbReaderLimits limits,
        uint version,
        uint signature,
        PdbIdentity identity
    )
    {
        _source = source;
        _ownsSource = ownsSource;
        Msf = msf;
        Limits = limits;
        Version = version;
        Signature = signature;
        Identity = identity;
    }

    /// <summary>The file name (or source name) the PDB was read from.</summary>
    public string Name => _source.Name;

    /// <summary>GUID and age (the DBI age when a DBI stream exists, as symbol servers key it).</summary>
    public PdbIdentity Identity { get; }

    /// <summary>The PDB info stream version (20000404 for VC 7.0 and later).</summary>
    public uint Version { get; }

    /// <summary>The 32-bit signature (a timestamp or hash) from the PDB info stream.</summary>
    public uint Signature { get; }

    /// <summary>The MSF block size of the file (512, 1024, 2048 or 4096; 8192 to 32768 for PDBs over 4 GB).</summary>
    public int BlockSize => Msf.BlockSize;

    internal MsfFile Msf { get; }

    internal PdbReaderLimits Limits { get; }

    /// <summary>Opens the PDB at <paramref name="path"/>.</summary>
    /// <param name="path">The PDB file.</param>
    /// <param name="limits">Caps on sizes read from the file; <see cref="PdbReaderLimits.Default"/> when null.</param>
    /// <exception cref="InvalidPdbDataException">The file is not a readable MSF 7.0 PDB (truncated, MSFZ, CAB, damaged
    /// directory).</exception>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static PdbFile Open(string path, PdbReaderLimits? limits = null)
    {
        var source = new FileRandomAccessSource(path);
        try
        {
            return Open(source, ownsSource: true, limits);
        }
        catch
        {
            source.Dispose();
            throw;
        }
    }

    /// <summary>Opens a PDB from an arbitrary byte source.</summary>
    /// <param name="source">The bytes of the PDB.</param>
    /// <param name="ownsSource">Whether disposing the <see cref="PdbFile"/> disposes <paramref name="source"/>. If
    /// opening throws, the caller still owns it.</param>
    /// <param name="limits">Caps on sizes read from the file; <see cref="PdbReaderLimits.Default"/> when null.</param>
    /// <exception cref="InvalidPdbDataException">The data is not a readable MSF 7.0 PDB, or its DBI header or section
    /// headers are damaged.</exception>
    public static PdbFile Open(IRandomAccessSource source, bool ownsSource, PdbReaderLimits? limits = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        limits ??= PdbReaderLimits.Default;
        MsfFile msf = MsfFile.Open(source, limits);
        MsfStream info =
            msf.GetStream(InfoStreamIndex)
            ?? throw new InvalidPdbDataException(
                source.Name,
                msf.StreamEntryOffset(InfoStreamIndex),
                "expected a PDB info stream (stream 1), but the MSF directory has none"
            );
        if (info.Length < 28)
        {
            throw new InvalidPdbDataException(
                source.Name,
                info.SizeFieldOffset,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a PDB info stream of at least 28 bytes, found {info.Length}"
                )
            );
        }

        Span<byte> head = stackalloc byte[28];
        info.Read(0, head);
        uint version = BinaryPrimitives.ReadUInt32LittleEndian(head);
        uint signature = BinaryPrimitives.ReadUInt32LittleEndian(head[4..]);
        int age = BinaryPrimitives.ReadInt32LittleEndian(head[8..]);
        var guid = new Guid(head.Slice(12, 16));

        PdbDbiHeader? dbi = ReadDbiHeader(msf, limits);
        if (dbi is not null)
        {
            age = dbi.Age;
        }

        return new PdbFile(source, ownsSource, msf, limits, version, signature, new PdbIdentity(guid, age))
        {
            Dbi = dbi,
            Sections = Array.AsReadOnly(ReadSectionHeaders(msf, limits, dbi, SectionHeaderSlot, "section header")),
            OriginalSections = Array.AsReadOnly(
                ReadSectionHeaders(msf, limits, dbi, OriginalSectionHeaderSlot, "original section header")
            ),
        };
    }

    /// <summary>Reads only the identity (GUID and DBI age) of the PDB at <paramref name="path"/>.</summary>
    /// <param name="path">The PDB file.</param>
    /// <exception cref="InvalidPdbDataException">The file is not a readable MSF 7.0 PDB.</exception>
    public static PdbIdentity ReadIdentity(string path)
    {
        using PdbFile pdb = Open(path);
        return pdb.Identity;
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
        }

        if (_ownsSource)
        {
            _source.Dispose();
        }
    }
}

using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>DBI header, optional debug header and section headers.</content>
internal sealed partial class PdbFile
{
    private const string DbiDescription = "DBI stream";

    /// <summary>The DBI header (stream 3), or <see langword="null"/> when the PDB has no DBI stream (a type-only
    /// PDB).</summary>
    internal PdbDbiHeader? Dbi { get; private init; }

    /// <summary>The image section headers (optional debug header slot 5), in order; empty when the PDB has
    /// none.</summary>
    public IReadOnlyList<PdbSection> Sections { get; private init; } = [];

    /// <summary>The original section headers before OMAP reordering (slot 10); empty when the PDB has none.</summary>
    public IReadOnlyList<PdbSection> OriginalSections { get; private init; } = [];

    /// <summary>The file offset of DBI stream byte <paramref name="position"/> (for errors about a DBI
    /// field).</summary>
    internal static long? DbiFileOffset(MsfFile msf, long position) =>
        msf.GetStream(DbiStreamIndex)?.OffsetForError(position);

    private static PdbDbiHeader? ReadDbiHeader(MsfFile msf, PdbReaderLimits limits)
    {
        MsfStream? dbi = msf.GetStream(DbiStreamIndex);
        if (dbi is null || dbi.Length == 0)
        {
            return null;
        }

        if (dbi.Length < PdbDbiHeader.Size)
        {
            throw dbi.Error(
                0,
                DbiDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a 64-byte DBI header, but the stream has only {dbi.Length} bytes"
                )
            );
        }

        Span<byte> h = stackalloc byte[PdbDbiHeader.Size];
        dbi.Read(0, h);
        int versionSignature = BinaryPrimitives.ReadInt32LittleEndian(h);
        if (versionSignature != -1)
        {
            throw dbi.Error(
                0,
                DbiDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"the new-format DBI version signature -1, found {versionSignature} (a pre-VC 4.1 PDB, not "
                        + $"supported)"
                )
            );
        }

        int[] sizes = new int[7];
        // module info, section contributions, section map, file info, type server map, EC, optional debug header
        int[] offsets = [24, 28, 32, 36, 40, 52, 48];
        string[] names =
        [
            "module-info",
            "section-contribution",
            "section-map",
            "file-info",
            "type-server-map",
            "EC",
            "optional debug header",
        ];
        long total = PdbDbiHeader.Size;
        for (int i = 0; i < sizes.Length; i++)
        {
            sizes[i] = BinaryPrimitives.ReadInt32LittleEndian(h[offsets[i]..]);
            if (sizes[i] < 0)
            {
                throw dbi.Error(
                    offsets[i],
                    DbiDescription,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a non-negative {names[i]} substream size, found {sizes[i]}"
                    )
                );
            }

            total += sizes[i];
        }

        if (total > dbi.Length)
        {
            throw dbi.Error(
                24,
                DbiDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"substreams totalling at most {dbi.Length - PdbDbiHeader.Size} bytes after the header, but "
                        + $"their sizes add up to {total - PdbDbiHeader.Size}"
                )
            );
        }

        // The optional debug header is the last substream: an array of u16 stream indices (0xFFFF = absent).
        int debugSize = sizes[6];
        long debugOffset = dbi.Length >= total ? total - debugSize : 0;
        int slots = Math.Min(debugSize / 2, 64);
        var debugStreams = new int?[slots];
        if (slots > 0)
        {
            byte[] raw = dbi.ReadRange(debugOffset, slots * 2, limits.MaxStreamBytes, "optional debug header");
            for (int i = 0; i < slots; i++)
            {
                ushort index = BinaryPrimitives.ReadUInt16LittleEndian(raw.AsSpan(i * 2));
                debugStreams[i] = index == 0xFFFF ? null : index;
            }
        }

        return new PdbDbiHeader(
            versionSignature,
            BinaryPrimitives.ReadUInt32LittleEndian(h[4..]),
            BinaryPrimitives.ReadInt32LittleEndian(h[8..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[12..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[14..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[16..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[18..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[20..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[22..]),
            sizes,
            BinaryPrimitives.ReadUInt32LittleEndian(h[44..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[56..]),
            BinaryPrimitives.ReadUInt16LittleEndian(h[58..]),
            Array.AsReadOnly(debugStreams),
            debugOffset
        );
    }

    private static PdbSection[] ReadSectionHeaders(
        MsfFile msf,
        PdbReaderLimits limits,
        PdbDbiHeader? dbi,
        int slot,
        string what
    )
    {
        if (dbi is null || slot >= dbi.DebugStreams.Count || dbi.DebugStreams[slot] is not int index)
        {
            return [];
        }

        MsfStream stream =
            msf.GetStream(index)
            ?? throw new InvalidPdbDataException(
                msf.Name,
                DbiFileOffset(msf, dbi.SlotOffset(slot)),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {what} in stream {index} (named by the DBI optional debug header, slot {slot}), but "
                        + $"the MSF directory has {msf.StreamCount} streams and that one is absent"
                )
            );
        string description = what + " stream";
        if (stream.Length % PdbSection.Size != 0)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a whole number of 40-byte section headers, but the stream has {stream.Length} bytes"
                )
            );
        }

        long count = stream.Length / PdbSection.Size;
        if (count > limits.MaxSections)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {limits.MaxSections} section headers (PdbReaderLimits.MaxSections), found {count}"
                )
            );
        }

        byte[] raw = stream.ReadAll(limits.MaxStreamBytes);
        var sections = new PdbSection[count];
        for (int i = 0; i < sections.Length; i++)
        {
            ReadOnlySpan<byte> s = raw.AsSpan(i * PdbSection.Size, PdbSection.Size);
            ReadOnlySpan<byte> name = s[..8];
            int nul = name.IndexOf((byte)0);
            sections[i] = new PdbSection(
                Encoding.UTF8.GetString(nul >= 0 ? name[..nul] : name),
                BinaryPrimitives.ReadUInt32LittleEndian(s[8..]),
                BinaryPrimitives.ReadUInt32LittleEndian(s[12..]),
                BinaryPrimitives.ReadUInt32LittleEndian(s[16..]),
                BinaryPrimitives.ReadUInt32LittleEndian(s[20..]),
                BinaryPrimitives.ReadUInt32LittleEndian(s[36..])
            );
        }

        return sections;
    }
}

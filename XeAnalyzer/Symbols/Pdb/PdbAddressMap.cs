using System.Buffers.Binary;
using System.Globalization;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// Turns a symbol's <c>segment:offset</c> into RVAs. Without OMAP, RVA = <c>sections[segment-1].VirtualAddress +
/// offset</c> and the "source" and image RVA spaces are the same. With OMAP (images reordered after linking), symbol
/// addresses refer to the original section headers and give a source RVA; OMAP-from-source maps it to the image RVA,
/// and OMAP-to-source maps an image RVA back before searching. Translation takes the entry with the largest <c>rva ≤
/// address</c>: <c>rvaTo + (address − rva)</c>; an entry whose <c>rvaTo</c> is 0 marks an unmapped range.
/// </summary>
internal sealed class PdbAddressMap
{
    private readonly IReadOnlyList<PdbSection> _symbolSections;
    private readonly OmapTable? _fromSource;
    private readonly OmapTable? _toSource;

    private PdbAddressMap(IReadOnlyList<PdbSection> symbolSections, OmapTable? fromSource, OmapTable? toSource)
    {
        _symbolSections = symbolSections;
        _fromSource = fromSource;
        _toSource = toSource;
    }

    public bool HasOmap => _fromSource is not null;

    public static PdbAddressMap Create(PdbFile pdb)
    {
        PdbDbiHeader dbi = pdb.Dbi!;
        OmapTable? from = ReadOmap(pdb, dbi, 4, "OMAP from-source");
        OmapTable? to = ReadOmap(pdb, dbi, 3, "OMAP to-source");
        if ((from is null) != (to is null))
        {
            throw new InvalidPdbDataException(
                pdb.Name,
                PdbFile.DbiFileOffset(pdb.Msf, dbi.SlotOffset(from is null ? 4 : 3)),
                "expected both OMAP streams (to-source, slot 3, and from-source, slot 4) or neither, but the DBI "
                    + "optional debug header names only one"
            );
        }

        IReadOnlyList<PdbSection> sections =
            from is not null && pdb.OriginalSections.Count > 0 ? pdb.OriginalSections : pdb.Sections;
        return new PdbAddressMap(sections, from, to);
    }

    /// <summary>The source RVA of <paramref name="segment"/>:<paramref name="offset"/>; false for segment 0 (absolute
    /// symbols) or a segment with no section header.</summary>
    public bool TryGetSourceRva(ushort segment, uint offset, out uint sourceRva)
    {
        sourceRva = 0;
        if (segment == 0 || segment > _symbolSections.Count)
        {
            return false;
        }

        ulong rva = (ulong)_symbolSections[segment - 1].VirtualAddress + offset;
        if (rva > uint.MaxValue)
        {
            return false;
        }

        sourceRva = (uint)rva;
        return true;
    }

    public bool TrySourceToImage(uint sourceRva, out uint imageRva)
    {
        if (_fromSource is null)
        {
            imageRva = sourceRva;
            return true;
        }

        return _fromSource.TryTranslate(sourceRva, out imageRva);
    }

    public bool TryImageToSource(uint imageRva, out uint sourceRva)
    {
        if (_toSource is null)
        {
            sourceRva = imageRva;
            return true;
        }

        return _toSource.TryTranslate(imageRva, out sourceRva);
    }

    private static OmapTable? ReadOmap(PdbFile pdb, PdbDbiHeader dbi, int slot, string what)
    {
        if (slot >= dbi.DebugStreams.Count || dbi.DebugStreams[slot] is not int index)
        {
            return null;
        }

        MsfStream stream =
            pdb.Msf.GetStream(index)
            ?? throw new InvalidPdbDataException(
                pdb.Name,
                PdbFile.DbiFileOffset(pdb.Msf, dbi.SlotOffset(slot)),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected the {what} stream {index} named by the DBI optional debug header, but the MSF "
                        + $"directory has no such stream"
                )
            );
        string description = what + " stream";
        if (stream.Length % 8 != 0)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a whole number of 8-byte OMAP entries, but the stream has {stream.Length} bytes"
                )
            );
        }

        long count = stream.Length / 8;
        if (count > pdb.Limits.MaxOmapEntries)
        {
            throw stream.Error(
                0,
                description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {pdb.Limits.MaxOmapEntries} OMAP entries (PdbReaderLimits.MaxOmapEntries), found {count}"
                )
            );
        }

        byte[] raw = stream.ReadAll(pdb.Limits.MaxStreamBytes);
        uint[] from = new uint[count];
        uint[] to = new uint[count];
        for (int i = 0; i < from.Length; i++)
        {
            from[i] = BinaryPrimitives.ReadUInt32LittleEndian(raw.AsSpan(i * 8));
            to[i] = BinaryPrimitives.ReadUInt32LittleEndian(raw.AsSpan((i * 8) + 4));
            if (i > 0 && from[i] < from[i - 1])
            {
                throw stream.Error(
                    i * 8L,
                    description,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"OMAP entries sorted by RVA, but entry {i} (0x{from[i]:X}) is below entry {i - 1} "
                            + $"(0x{from[i - 1]:X})"
                    )
                );
            }
        }

        return new OmapTable(from, to);
    }

    private sealed class OmapTable(uint[] from, uint[] to)
    {
        public bool TryTranslate(uint address, out uint result)
        {
            result = 0;
            int i = Array.BinarySearch(from, address);
            if (i < 0)
            {
                i = ~i - 1;
            }
            else
            {
                // Several entries may share an RVA; the last one wins, as with "largest rva <= address" over a sorted
                // table.
                while (i + 1 < from.Length && from[i + 1] == address)
                {
                    i++;
                }
            }

            if (i < 0 || to[i] == 0)
            {
                return false;
            }

            ulong mapped = (ulong)to[i] + (address - from[i]);
            if (mapped > uint.MaxValue)
            {
                return false;
            }

            result = (uint)mapped;
            return true;
        }
    }
}

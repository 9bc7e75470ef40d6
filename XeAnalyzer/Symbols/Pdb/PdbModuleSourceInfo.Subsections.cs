using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>
/// Reading the module's C13 debug subsections: line blocks (<c>DEBUG_S_LINES</c>), file checksums
/// (<c>DEBUG_S_FILECHKSMS</c>) and inlinee base lines (<c>DEBUG_S_INLINEELINES</c>).
/// </content>
internal sealed partial class PdbModuleSourceInfo
{
    private const uint DebugSLines = 0xF2;
    private const uint DebugSFileChecksums = 0xF4;
    private const uint DebugSInlineeLines = 0xF6;
    private const uint SubsectionIgnore = 0x80000000;

    private static void ReadSubsections(
        PdbFile pdb,
        PdbModule module,
        SpanReader r,
        PdbAddressMap map,
        Dictionary<uint, uint> fileNames,
        Dictionary<uint, (uint, uint)> inlinees,
        List<LineEntry> lines,
        List<PdbLineRecordRaw> records,
        CancellationToken ct
    )
    {
        while (r.Remaining > 0)
        {
            ct.ThrowIfCancellationRequested();
            if (r.Remaining < 8)
            {
                // Trailing padding shorter than a subsection header.
                break;
            }

            int start = r.Position;
            uint kind = r.ReadUInt32("debug subsection kind");
            uint length = r.ReadUInt32("debug subsection length");
            if (length > (uint)r.Remaining)
            {
                throw r.Error(
                    start + 4,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a debug subsection (kind 0x{kind:X}) of at most {r.Remaining} bytes, found a length of "
                            + $"{length}"
                    )
                );
            }

            int dataStart = r.Position;
            ReadOnlySpan<byte> data = r.Advance((int)length, "debug subsection data");
            if ((kind & SubsectionIgnore) == 0)
            {
                switch (kind)
                {
                    case DebugSLines:
                        ReadLines(pdb, module, data, dataStart, r, map, lines, records);
                        break;
                    case DebugSFileChecksums:
                        ReadChecksums(data, dataStart, r, fileNames);
                        break;
                    case DebugSInlineeLines:
                        ReadInlineeLines(data, dataStart, r, inlinees);
                        break;
                }
            }

            int pad = (4 - (r.Position % 4)) % 4;
            r.Position = Math.Min(r.Length, r.Position + pad);
        }
    }

    private static void ReadLines(
        PdbFile pdb,
        PdbModule module,
        ReadOnlySpan<byte> data,
        int at,
        SpanReader r,
        PdbAddressMap map,
        List<LineEntry> lines,
        List<PdbLineRecordRaw> records
    )
    {
        if (data.Length < 12)
        {
            throw r.Error(
                at,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a 12-byte DEBUG_S_LINES header, found {data.Length} bytes"
                )
            );
        }

        uint offCon = BinaryPrimitives.ReadUInt32LittleEndian(data);
        ushort segCon = BinaryPrimitives.ReadUInt16LittleEndian(data[4..]);
        bool columns = (BinaryPrimitives.ReadUInt16LittleEndian(data[6..]) & 1) != 0;
        uint cbCon = BinaryPrimitives.ReadUInt32LittleEndian(data[8..]);
        var entries = new List<(uint Offset, uint Bits, uint File)>();
        int pos = 12;
        while (pos < data.Length)
        {
            if (data.Length - pos < 12)
            {
                throw r.Error(
                    at + pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a 12-byte line block header, but only {data.Length - pos} bytes remain in the "
                            + $"DEBUG_S_LINES subsection"
                    )
                );
            }

            uint file = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            uint count = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 4)..]);
            uint blockBytes = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 8)..]);
            ulong needed = 12UL + (count * (columns ? 12UL : 8UL));
            if (blockBytes < needed || blockBytes > (uint)(data.Length - pos))
            {
                throw r.Error(
                    at + pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a line block of {count} lines ({needed} bytes{(columns ? " with columns" : string.Empty)}) "
                            + $"within the {data.Length - pos} bytes left in its DEBUG_S_LINES subsection, found a "
                            + $"block "
                            + $"size of {blockBytes}"
                    )
                );
            }

            if (lines.Count + (long)entries.Count + count > pdb.Limits.MaxLineRecordsPerModule)
            {
                throw r.Error(
                    at + pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"at most {pdb.Limits.MaxLineRecordsPerModule} line records in module {module.Index} "
                            + $"(PdbReaderLimits.MaxLineRecordsPerModule)"
                    )
                );
            }

            for (int i = 0; i < count; i++)
            {
                int e = pos + 12 + (i * 8);
                entries.Add(
                    (
                        BinaryPrimitives.ReadUInt32LittleEndian(data[e..]),
                        BinaryPrimitives.ReadUInt32LittleEndian(data[(e + 4)..]),
                        file
                    )
                );
            }

            pos += (int)blockBytes;
        }

        if (!map.TryGetSourceRva(segCon, offCon, out uint baseRva))
        {
            // Lines of a section the PDB has no header for (or segment 0): nothing can be addressed.
            return;
        }

        // A record runs to the next record of the subsection in address order (across its file blocks), the last to the
        // subsection's end.
        var order = new int[entries.Count];
        for (int i = 0; i < order.Length; i++)
        {
            order[i] = i;
        }

        Array.Sort(
            order,
            (a, b) =>
                entries[a].Offset != entries[b].Offset ? entries[a].Offset.CompareTo(entries[b].Offset) : a.CompareTo(b)
        );
        for (int k = 0; k < order.Length; k++)
        {
            (uint offset, uint bits, uint file) = entries[order[k]];
            uint end = k + 1 < order.Length ? entries[order[k + 1]].Offset : Math.Max(cbCon, offset);
            ulong start = (ulong)baseRva + offset;
            if (start > uint.MaxValue)
            {
                continue;
            }

            uint length = (uint)Math.Min(end - offset, uint.MaxValue - start);
            var entry = new LineEntry(
                (uint)start,
                length,
                (int)(bits & 0xFFFFFF),
                file,
                (bits & 0x80000000) != 0,
                lines.Count
            );
            lines.Add(entry);
            records.Add(new PdbLineRecordRaw(entry.Start, entry.Length, entry.Line, file, entry.IsStatement));
        }
    }

    private static void ReadChecksums(ReadOnlySpan<byte> data, int at, SpanReader r, Dictionary<uint, uint> fileNames)
    {
        int pos = 0;
        while (pos < data.Length)
        {
            if (data.Length - pos < 6)
            {
                // Alignment padding after the last entry.
                if (data[pos..].ContainsAnyExcept((byte)0))
                {
                    throw r.Error(
                        at + pos,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a 6-byte file checksum entry or padding, found {data.Length - pos} other bytes"
                        )
                    );
                }

                break;
            }

            uint name = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            byte size = data[pos + 4];
            if (pos + 6 + size > data.Length)
            {
                throw r.Error(
                    at + pos + 4,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a checksum of {size} bytes within the {data.Length - pos - 6} bytes left in "
                            + $"DEBUG_S_FILECHKSMS"
                    )
                );
            }

            fileNames.TryAdd((uint)pos, name);
            pos += 6 + size;
            pos += (4 - (pos % 4)) % 4;
        }
    }

    private static void ReadInlineeLines(
        ReadOnlySpan<byte> data,
        int at,
        SpanReader r,
        Dictionary<uint, (uint, uint)> inlinees
    )
    {
        if (data.Length < 4)
        {
            throw r.Error(at, "a 4-byte DEBUG_S_INLINEELINES signature");
        }

        uint signature = BinaryPrimitives.ReadUInt32LittleEndian(data);
        if (signature > 1)
        {
            throw r.Error(
                at,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"DEBUG_S_INLINEELINES signature 0 or 1 (with extra files), found {signature}"
                )
            );
        }

        int pos = 4;
        while (pos < data.Length)
        {
            int need = signature == 1 ? 16 : 12;
            if (data.Length - pos < need)
            {
                throw r.Error(
                    at + pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"an inlinee entry of {need} bytes, but only {data.Length - pos} remain"
                    )
                );
            }

            uint inlinee = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
            uint file = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 4)..]);
            uint line = BinaryPrimitives.ReadUInt32LittleEndian(data[(pos + 8)..]);
            if (line > 0xFFFFFF)
            {
                throw r.Error(
                    at + pos + 8,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"an inlinee base line below 0x1000000 (24 bits, as in line records), found {line}"
                    )
                );
            }

            pos += 12;
            if (signature == 1)
            {
                uint extra = BinaryPrimitives.ReadUInt32LittleEndian(data[pos..]);
                pos += 4;
                if (extra > (uint)(data.Length - pos) / 4)
                {
                    throw r.Error(
                        at + pos - 4,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"at most {(data.Length - pos) / 4} extra files, found {extra}"
                        )
                    );
                }

                pos += (int)extra * 4;
            }

            inlinees.TryAdd(inlinee, (file, line));
        }
    }
}

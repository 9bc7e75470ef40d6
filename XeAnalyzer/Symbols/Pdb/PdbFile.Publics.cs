using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>
/// The <c>S_PUB32</c> records the publics address map names, read without holding the symbol record stream in memory:
/// the entries are visited in record-offset order, so the stream is read front to back in pieces of at most
/// <see cref="PublicsWindowBytes"/>, and only the names are kept (one pool of UTF-8 bytes), or not even those: then
/// only where each name lies in the stream. Errors are the ones a front-to-back walk of the address map would meet
/// first.
/// </content>
internal sealed partial class PdbFile
{
    /// <summary>How much of the symbol record stream is read at once (a record is at most 65,537 bytes, so it always
    /// fits).</summary>
    private const int PublicsWindowBytes = 1 << 20;

    private const int MaxPublicRecordBytes = 2 + ushort.MaxValue;

    private const string PubDescription = "publics stream";
    private const string SymDescription = "symbol record stream";

    /// <summary>What is wrong with one address-map entry's record (see <see cref="PublicFault"/>).</summary>
    private enum PublicFaultKind
    {
        None,
        OutsideStream,
        Kind,
        Length,
        NoTerminator,
    }

    /// <summary>The first damaged address-map entry met, kept until the whole map is checked, then thrown.</summary>
    private readonly record struct PublicFault(
        PublicFaultKind Kind,
        int Entry,
        uint RecordOffset,
        ushort RecordKind,
        ushort RecordLength
    );

    /// <summary>
    /// Reads and checks every address-map entry and its <c>S_PUB32</c> record. Entries whose <c>segment:offset</c> maps
    /// to no RVA are kept with <see cref="PdbPublicRecords.Unmapped"/> as name length. Checks, as the entries would be
    /// met in address-map order: the entry points inside the stream; the record is an <c>S_PUB32</c> whose length fits
    /// the stream and whose name is NUL-terminated inside it; the names of the mapped entries so far do not add up to
    /// more bytes than the stream holds (entries that share or overlap records, which a damaged map could repeat until
    /// memory runs out).
    /// </summary>
    /// <param name="recordFields">Whether to keep segment, offset and flags.</param>
    /// <param name="poolNames">Whether to copy the names into one pool; else they are left in the stream and read on
    /// demand.</param>
    /// <param name="ct">Cancels the read.</param>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // hot loop over every public, run once: skip tier-0 code
    private PdbPublicRecords ReadPublicRecords(bool recordFields, bool poolNames, CancellationToken ct)
    {
        PdbDbiHeader dbi = RequireDbi("read publics");
        if (dbi.PublicStreamIndex is not int publicIndex)
        {
            return PdbPublicRecords.Empty;
        }

        if (dbi.SymbolRecordStreamIndex is not int recordIndex)
        {
            throw new InvalidPdbDataException(
                Name,
                DbiFileOffset(Msf, 20),
                "expected a symbol record stream (DBI header offset 20) for the publics, but the DBI header names none"
            );
        }

        PdbAddressMap map = GetAddressMap();
        MsfStream pub = RequireStream(publicIndex, "publics", 16);
        MsfStream sym = RequireStream(recordIndex, "symbol record", 20);
        if (pub.Length < 28)
        {
            throw pub.Error(
                0,
                PubDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a 28-byte publics header, but the stream has only {pub.Length} bytes"
                )
            );
        }

        Span<byte> h = stackalloc byte[28];
        pub.Read(0, h);
        uint hashBytes = BinaryPrimitives.ReadUInt32LittleEndian(h);
        uint addrMapBytes = BinaryPrimitives.ReadUInt32LittleEndian(h[4..]);
        if (28UL + hashBytes > pub.Length)
        {
            throw pub.Error(
                0,
                PubDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a symbol hash of at most {pub.Length - 28} bytes, found a size of {hashBytes}"
                )
            );
        }

        if (28UL + hashBytes + addrMapBytes > pub.Length || addrMapBytes % 4 != 0)
        {
            throw pub.Error(
                4,
                PubDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"an address map that is a multiple of 4 bytes and fits in the {pub.Length - 28 - hashBytes} "
                        + $"bytes after the hash, found a size of {addrMapBytes}"
                )
            );
        }

        uint count = addrMapBytes / 4;
        if (count > Limits.MaxPublics)
        {
            throw pub.Error(
                4,
                PubDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {Limits.MaxPublics} publics (PdbReaderLimits.MaxPublics), found {count}"
                )
            );
        }

        long mapOffset = 28L + hashBytes;
        int n = (int)count;
        ulong[] order = ReadAddressMapOrder(pub, mapOffset, addrMapBytes, n);
        sym.CheckRange(0, sym.Length, Limits.MaxStreamBytes, sym.Name);
        uint streamLength = sym.Length;

        // Distinct records cannot hold more name bytes than the stream, so the pool is at most the stream's size; it is
        // allocated uninitialized, and the part no name reaches is never touched.
        var records = new PdbPublicRecords(
            n,
            poolNames ? null : sym,
            poolNames ? GC.AllocateUninitializedArray<byte>((int)streamLength) : [],
            recordFields
        );
        byte[] window = new byte[Math.Min(streamLength, PublicsWindowBytes)];
        long windowStart = 0,
            windowEnd = 0;
        long pooled = 0;
        bool poolFull = false;
        PublicFault fault = new(PublicFaultKind.None, int.MaxValue, 0, 0, 0);
        for (int k = 0; k < order.Length; k++)
        {
            if ((k & 0xFFFF) == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            uint at = (uint)(order[k] >> 32);
            int i = unchecked((int)(uint)order[k]);
            if (i > fault.Entry)
            {
                continue; // an earlier entry of the map is damaged already: this one cannot change the outcome
            }

            if (streamLength < 4 || at > streamLength - 4)
            {
                fault = new PublicFault(PublicFaultKind.OutsideStream, i, at, 0, 0);
                continue;
            }

            long needed = Math.Min(streamLength, (long)at + MaxPublicRecordBytes);
            if (needed > windowEnd || at < windowStart)
            {
                int length = (int)Math.Min(window.Length, streamLength - at);
                sym.Read(at, window.AsSpan(0, length));
                windowStart = at;
                windowEnd = at + length;
            }

            ReadOnlySpan<byte> record = window.AsSpan((int)(at - windowStart), (int)(windowEnd - at));
            ushort recordLength = BinaryPrimitives.ReadUInt16LittleEndian(record);
            ushort kind = BinaryPrimitives.ReadUInt16LittleEndian(record[2..]);
            if (kind != SPub32)
            {
                fault = new PublicFault(PublicFaultKind.Kind, i, at, kind, recordLength);
                continue;
            }

            if (recordLength < 2 + 4 + 4 + 2 + 1 || recordLength - 2 > streamLength - at - 4)
            {
                fault = new PublicFault(PublicFaultKind.Length, i, at, kind, recordLength);
                continue;
            }

            uint flags = BinaryPrimitives.ReadUInt32LittleEndian(record[4..]);
            uint offset = BinaryPrimitives.ReadUInt32LittleEndian(record[8..]);
            ushort segment = BinaryPrimitives.ReadUInt16LittleEndian(record[12..]);
            ReadOnlySpan<byte> nameArea = record.Slice(14, recordLength - 12);
            int nameLength = nameArea.IndexOf((byte)0);
            if (nameLength < 0)
            {
                fault = new PublicFault(PublicFaultKind.NoTerminator, i, at, kind, recordLength);
                continue;
            }

            if (recordFields)
            {
                records.Segment![i] = segment;
                records.Offset![i] = offset;
                records.Flags![i] = (ushort)(flags & 0xFFFF);
            }

            if (map.TryGetSourceRva(segment, offset, out uint source) && map.TrySourceToImage(source, out _))
            {
                records.SourceRva[i] = source;
                records.NameLength[i] = (ushort)nameLength;
                if (!poolNames)
                {
                    records.NameOffset[i] = at + 14;
                }
                else if (!poolFull && pooled + nameLength <= streamLength)
                {
                    nameArea[..nameLength].CopyTo(records.Pool!.AsSpan((int)pooled));
                    records.NameOffset[i] = (uint)pooled;
                    pooled += nameLength;
                }
                else
                {
                    poolFull = true; // an overlap error is certain (checked below, in map order)
                }
            }
        }

        // The errors in address-map order: the names of the mapped entries before the first damaged one must fit the
        // stream.
        long names = 0;
        int checkedEntries = Math.Min(fault.Entry, n);
        for (int i = 0; i < checkedEntries; i++)
        {
            if (records.NameLength[i] != PdbPublicRecords.Unmapped)
            {
                names += records.NameLength[i];
                if (names > streamLength)
                {
                    throw pub.Error(
                        mapOffset + (i * 4L),
                        PubDescription,
                        "address-map entries naming distinct S_PUB32 records, but they overlap (more name bytes than "
                            + "the symbol record stream holds)"
                    );
                }
            }
        }

        if (fault.Kind != PublicFaultKind.None)
        {
            throw PublicFaultException(fault, pub, sym, mapOffset, streamLength);
        }

        records.PoolLength = (int)pooled;
        return records;
    }

    /// <summary>The address map as (record offset, entry) pairs sorted by record offset, so the record stream is read
    /// front to back.</summary>
    private ulong[] ReadAddressMapOrder(MsfStream pub, long mapOffset, uint addrMapBytes, int count)
    {
        pub.CheckRange(mapOffset, addrMapBytes, Limits.MaxStreamBytes, "publics address map");
        ulong[] order = new ulong[count];
        byte[] chunk = new byte[Math.Min(addrMapBytes, 64 * 1024)];
        bool sorted = true;
        int i = 0;
        while (i < count)
        {
            int entries = Math.Min(count - i, chunk.Length / 4);
            pub.Read(mapOffset + (i * 4L), chunk.AsSpan(0, entries * 4));
            for (int e = 0; e < entries; e++, i++)
            {
                order[i] = ((ulong)BinaryPrimitives.ReadUInt32LittleEndian(chunk.AsSpan(e * 4)) << 32) | (uint)i;
                sorted &= i == 0 || order[i] > order[i - 1];
            }
        }

        if (!sorted)
        {
            Array.Sort(order);
        }

        return order;
    }

    private static InvalidPdbDataException PublicFaultException(
        PublicFault f,
        MsfStream pub,
        MsfStream sym,
        long mapOffset,
        uint streamLength
    ) =>
        f.Kind switch
        {
            PublicFaultKind.OutsideStream => pub.Error(
                mapOffset + (f.Entry * 4L),
                PubDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"address-map entry {f.Entry} to point inside the {streamLength}-byte symbol record stream, "
                        + $"found offset {f.RecordOffset}"
                )
            ),
            PublicFaultKind.Kind => sym.Error(
                f.RecordOffset + 2L,
                SymDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"an S_PUB32 record (kind 0x110E) for publics address-map entry {f.Entry}, found kind "
                        + $"0x{f.RecordKind:X4}"
                )
            ),
            PublicFaultKind.Length => sym.Error(
                f.RecordOffset,
                SymDescription,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"an S_PUB32 record length between 13 and {streamLength - f.RecordOffset - 2L} (the bytes left "
                        + $"in the stream), found {f.RecordLength}"
                )
            ),
            _ => sym.Error(
                f.RecordOffset + 14L,
                SymDescription,
                "a NUL-terminated S_PUB32 name, but no terminator before the end of its record"
            ),
        };
}

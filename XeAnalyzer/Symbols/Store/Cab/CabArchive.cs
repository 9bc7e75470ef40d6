using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Store.Cab;

/// <summary>
/// A Microsoft Cabinet (CAB) file as symbol servers use it for compressed <c>.pd_</c> files: one cabinet (no spanning),
/// folders stored uncompressed or with MSZIP. Opening reads the header, folder and file tables; <see cref="Extract"/>
/// decompresses one file into a stream. Counts and sizes read from the file are checked against the file length and
/// caps, so a hostile cabinet fails with <see cref="InvalidPdbDataException"/> instead of exhausting memory or disk.
/// </summary>
/// <remarks>Thread safety: <see cref="Extract"/> may be called from one thread at a time.</remarks>
internal sealed class CabArchive : IDisposable
{
    private const int HeaderSize = 36;
    private const int FlagPrevCabinet = 0x1;
    private const int FlagNextCabinet = 0x2;
    private const int FlagReservePresent = 0x4;
    private const int MaxNameBytes = 256;
    private const int CompressionNone = 0;
    private const int CompressionMsZip = 1;

    private readonly IRandomAccessSource _source;
    private readonly bool _ownsSource;
    private readonly CabFolder[] _folders;
    private readonly int _dataReserve;

    private CabArchive(
        IRandomAccessSource source,
        bool ownsSource,
        CabFolder[] folders,
        IReadOnlyList<CabFileEntry> files,
        int dataReserve
    )
    {
        _source = source;
        _ownsSource = ownsSource;
        _folders = folders;
        Files = files;
        _dataReserve = dataReserve;
    }

    /// <summary>The files in the cabinet, in table order.</summary>
    public IReadOnlyList<CabFileEntry> Files { get; }

    /// <summary>The cabinet's name for messages (its path).</summary>
    public string Name => _source.Name;

    /// <summary>Whether <paramref name="head"/> starts with the CAB signature <c>MSCF</c>.</summary>
    /// <param name="head">The first bytes of a file.</param>
    public static bool IsCabinet(ReadOnlySpan<byte> head) => head.StartsWith("MSCF"u8);

    /// <summary>Opens the cabinet at <paramref name="path"/>.</summary>
    /// <param name="path">The <c>.pd_</c> (or other CAB) file.</param>
    /// <exception cref="InvalidPdbDataException">The file is not a readable single-cabinet CAB.</exception>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static CabArchive Open(string path)
    {
        var source = new FileRandomAccessSource(path);
        try
        {
            return Open(source, ownsSource: true);
        }
        catch
        {
            source.Dispose();
            throw;
        }
    }

    /// <summary>Opens a cabinet from a byte source.</summary>
    /// <param name="source">The cabinet bytes.</param>
    /// <param name="ownsSource">Whether disposing the archive disposes <paramref name="source"/>.</param>
    /// <exception cref="InvalidPdbDataException">The data is not a readable single-cabinet CAB.</exception>
    public static CabArchive Open(IRandomAccessSource source, bool ownsSource)
    {
        ArgumentNullException.ThrowIfNull(source);
        string file = source.Name;
        long length = source.Length;
        byte[] head = new byte[HeaderSize + 4];
        int got = source.Read(0, head);
        if (got < 4 || !IsCabinet(head))
        {
            throw new InvalidPdbDataException(
                file,
                0,
                "expected the CAB signature 'MSCF', found other bytes: not a cabinet file"
            );
        }

        if (got < HeaderSize)
        {
            throw new InvalidPdbDataException(
                file,
                got,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a {HeaderSize}-byte CAB header, but the file has only {got} bytes (truncated cabinet)"
                )
            );
        }

        var h = head.AsSpan();
        uint cbCabinet = BinaryPrimitives.ReadUInt32LittleEndian(h[8..]);
        uint coffFiles = BinaryPrimitives.ReadUInt32LittleEndian(h[16..]);
        byte versionMinor = h[24];
        byte versionMajor = h[25];
        int cFolders = BinaryPrimitives.ReadUInt16LittleEndian(h[26..]);
        int cFiles = BinaryPrimitives.ReadUInt16LittleEndian(h[28..]);
        int flags = BinaryPrimitives.ReadUInt16LittleEndian(h[30..]);
        if (versionMajor != 1)
        {
            throw new InvalidPdbDataException(
                file,
                24,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected CAB format version 1.x, found {versionMajor}.{versionMinor}"
                )
            );
        }

        if (cbCabinet > length)
        {
            throw new InvalidPdbDataException(
                file,
                8,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a cabinet of {cbCabinet} bytes, but the file has only {length} bytes (truncated cabinet)"
                )
            );
        }

        if ((flags & (FlagPrevCabinet | FlagNextCabinet)) != 0)
        {
            throw new InvalidPdbDataException(
                file,
                30,
                "expected a single cabinet, found one that is part of a multi-cabinet set (not supported)"
            );
        }

        if (cFolders == 0 || cFiles == 0)
        {
            throw new InvalidPdbDataException(
                file,
                26,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected at least one folder and one file, found {cFolders} folders and {cFiles} files"
                )
            );
        }

        long pos = HeaderSize;
        int folderReserve = 0;
        int dataReserve = 0;
        if ((flags & FlagReservePresent) != 0)
        {
            Span<byte> reserve = stackalloc byte[4];
            ReadExactly(source, pos, reserve, "the CAB reserve sizes");
            int headerReserve = BinaryPrimitives.ReadUInt16LittleEndian(reserve);
            folderReserve = reserve[2];
            dataReserve = reserve[3];
            pos += 4 + headerReserve;
        }

        // Each CFFOLDER is 8 bytes plus its reserve; the table must fit before the file table and inside the cabinet.
        long folderTableEnd = pos + ((long)cFolders * (8 + folderReserve));
        if (folderTableEnd > cbCabinet || coffFiles < folderTableEnd || coffFiles >= cbCabinet)
        {
            throw new InvalidPdbDataException(
                file,
                16,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {cFolders} folder entries ending at or before the file table at {coffFiles}, inside "
                        + $"the cabinet's {cbCabinet} bytes"
                )
            );
        }

        byte[] folderBytes = new byte[folderTableEnd - pos];
        ReadExactly(source, pos, folderBytes, "the CAB folder table");
        var folders = new CabFolder[cFolders];
        for (int i = 0; i < cFolders; i++)
        {
            var f = folderBytes.AsSpan(i * (8 + folderReserve));
            uint dataStart = BinaryPrimitives.ReadUInt32LittleEndian(f);
            int blocks = BinaryPrimitives.ReadUInt16LittleEndian(f[4..]);
            int compression = BinaryPrimitives.ReadUInt16LittleEndian(f[6..]);
            long entryOffset = pos + ((long)i * (8 + folderReserve));

            // The smallest CFDATA is 8 bytes plus reserve: that bounds the block count by the file size.
            if (dataStart >= cbCabinet || (long)blocks * (8 + dataReserve) > cbCabinet - dataStart)
            {
                throw new InvalidPdbDataException(
                    file,
                    entryOffset,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected folder {i}'s {blocks} data blocks to start inside the cabinet ({cbCabinet} "
                            + $"bytes), found a start of {dataStart}"
                    )
                );
            }

            folders[i] = new CabFolder(dataStart, blocks, compression, entryOffset);
        }

        var files = new List<CabFileEntry>(cFiles);
        long fpos = coffFiles;
        byte[] entry = new byte[16 + MaxNameBytes + 1];
        for (int i = 0; i < cFiles; i++)
        {
            int n = source.Read(fpos, entry);
            if (n < 17)
            {
                throw new InvalidPdbDataException(
                    file,
                    fpos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected file entry {i} of {cFiles}, but the cabinet ends early (truncated cabinet)"
                    )
                );
            }

            var e = entry.AsSpan(0, n);
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(e);
            uint folderOffset = BinaryPrimitives.ReadUInt32LittleEndian(e[4..]);
            int folderIndex = BinaryPrimitives.ReadUInt16LittleEndian(e[8..]);
            int attributes = BinaryPrimitives.ReadUInt16LittleEndian(e[14..]);
            int nul = e[16..].IndexOf((byte)0);
            if (nul <= 0)
            {
                throw new InvalidPdbDataException(
                    file,
                    fpos + 16,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a NUL-terminated file name of 1 to {MaxNameBytes} bytes in file entry {i}"
                    )
                );
            }

            if (folderIndex >= cFolders)
            {
                throw new InvalidPdbDataException(
                    file,
                    fpos + 8,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a folder index below {cFolders} in file entry {i}, found {folderIndex} (files "
                            + $"continued across cabinets are not supported)"
                    )
                );
            }

            // Bit 0x80 of the attributes marks a UTF-8 name; otherwise the name is in a code page: keep ASCII, replace
            // the rest.
            Encoding enc = (attributes & 0x80) != 0 ? Encoding.UTF8 : Encoding.Latin1;
            string name = enc.GetString(e.Slice(16, nul));
            files.Add(new CabFileEntry(name, size, folderIndex, folderOffset));
            fpos += 16 + nul + 1;
        }

        return new CabArchive(source, ownsSource, folders, files.AsReadOnly(), dataReserve);
    }

    /// <summary>
    /// Decompresses <paramref name="entry"/> into <paramref name="destination"/>, writing exactly
    /// <see cref="CabFileEntry.Length"/> bytes.
    /// </summary>
    /// <param name="entry">A file of this cabinet (from <see cref="Files"/>).</param>
    /// <param name="destination">Where the uncompressed bytes go.</param>
    /// <param name="maxBytes">The largest file accepted; a larger declared size fails before anything is
    /// written.</param>
    /// <param name="cancellationToken">Cancels between data blocks.</param>
    /// <exception cref="InvalidPdbDataException">The file is larger than <paramref name="maxBytes"/>, the compression
    /// is not MSZIP or stored, or a data block is damaged, truncated or expands to more or less than
    /// declared.</exception>
    public void Extract(CabFileEntry entry, Stream destination, long maxBytes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentNullException.ThrowIfNull(destination);
        string file = _source.Name;
        if (entry.Length > maxBytes)
        {
            throw new InvalidPdbDataException(
                file,
                null,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a cabinet entry of at most {maxBytes} bytes, but '{entry.Name}' declares "
                        + $"{entry.Length} (refused: possible decompression bomb)"
                )
            );
        }

        CabFolder folder = _folders[entry.FolderIndex];
        int type = folder.Compression & 0xF;
        if (type is not (CompressionNone or CompressionMsZip))
        {
            string kind = type switch
            {
                2 => "Quantum",
                3 => "LZX",
                _ => "unknown",
            };
            throw new InvalidPdbDataException(
                file,
                folder.EntryOffset + 6,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected MSZIP (1) or no compression (0), found compression type {type} ({kind}), which is not "
                        + $"supported"
                )
            );
        }

        long skip = entry.FolderOffset;
        long remaining = entry.Length;
        if (remaining == 0)
        {
            return;
        }

        var decoder = type == CompressionMsZip ? new MsZipDecoder() : null;
        byte[] header = new byte[8 + _dataReserve];
        byte[] input = new byte[ushort.MaxValue];
        byte[] output = new byte[MsZipDecoder.MaxBlockOutput];
        long pos = folder.DataStart;
        for (int b = 0; b < folder.BlockCount && remaining > 0; b++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            ReadExactly(
                _source,
                pos,
                header,
                string.Create(CultureInfo.InvariantCulture, $"the header of data block {b}")
            );
            uint checksum = BinaryPrimitives.ReadUInt32LittleEndian(header);
            int cbData = BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(4));
            int cbUncomp = BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(6));
            long dataOffset = pos + header.Length;
            if (cbUncomp > MsZipDecoder.MaxBlockOutput || cbUncomp == 0)
            {
                throw new InvalidPdbDataException(
                    file,
                    pos + 6,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected data block {b} to hold 1 to {MsZipDecoder.MaxBlockOutput} uncompressed bytes, "
                            + $"found {cbUncomp}"
                    )
                );
            }

            Span<byte> data = input.AsSpan(0, cbData);
            ReadExactly(
                _source,
                dataOffset,
                data,
                string.Create(CultureInfo.InvariantCulture, $"the {cbData} bytes of data block {b}")
            );
            if (checksum != 0)
            {
                uint actual = CabChecksum.Compute(header.AsSpan(4), CabChecksum.Compute(data, 0));
                if (actual != checksum)
                {
                    throw new InvalidPdbDataException(
                        file,
                        pos,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"expected data block {b} to have checksum 0x{checksum:X8}, computed 0x{actual:X8} "
                                + $"(corrupt cabinet)"
                        )
                    );
                }
            }

            Span<byte> plain = output.AsSpan(0, cbUncomp);
            if (decoder is not null)
            {
                decoder.DecodeBlock(data, plain, file, dataOffset);
            }
            else
            {
                if (cbData != cbUncomp)
                {
                    throw new InvalidPdbDataException(
                        file,
                        pos + 4,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"expected an uncompressed data block to have equal sizes, found {cbData} and {cbUncomp}"
                        )
                    );
                }

                data.CopyTo(plain);
            }

            if (skip >= plain.Length)
            {
                skip -= plain.Length;
            }
            else
            {
                Span<byte> part = plain[(int)skip..];
                skip = 0;
                if (part.Length > remaining)
                {
                    part = part[..(int)remaining];
                }

                destination.Write(part);
                remaining -= part.Length;
            }

            pos = dataOffset + cbData;
        }

        if (remaining > 0)
        {
            throw new InvalidPdbDataException(
                file,
                pos,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {entry.Length} bytes for '{entry.Name}', but folder {entry.FolderIndex}'s data blocks "
                        + $"end {remaining} bytes short (truncated cabinet)"
                )
            );
        }
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        if (_ownsSource)
        {
            _source.Dispose();
        }
    }

    private static void ReadExactly(IRandomAccessSource source, long offset, Span<byte> destination, string what)
    {
        int n = source.Read(offset, destination);
        if (n != destination.Length)
        {
            throw new InvalidPdbDataException(
                source.Name,
                offset + n,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected {destination.Length} bytes of {what}, but the cabinet ends early (truncated cabinet)"
                )
            );
        }
    }

    private readonly record struct CabFolder(uint DataStart, int BlockCount, int Compression, long EntryOffset);
}

/// <summary>One file stored in a <see cref="CabArchive"/>.</summary>
/// <param name="Name">The stored name (may contain a path; never used as a path by XeAnalyzer).</param>
/// <param name="Length">Uncompressed size in bytes.</param>
/// <param name="FolderIndex">The folder holding the file's data.</param>
/// <param name="FolderOffset">Offset of the file's first byte in the folder's uncompressed data.</param>
internal sealed record CabFileEntry(string Name, long Length, int FolderIndex, long FolderOffset);

/// <summary>The CFDATA checksum of the Microsoft Cabinet format: XOR of little-endian 32-bit words, with a short tail
/// folded in.</summary>
internal static class CabChecksum
{
    public static uint Compute(ReadOnlySpan<byte> data, uint seed)
    {
        uint sum = seed;
        int words = data.Length / 4;
        for (int i = 0; i < words; i++)
        {
            sum ^= BinaryPrimitives.ReadUInt32LittleEndian(data.Slice(i * 4));
        }

        ReadOnlySpan<byte> tail = data[(words * 4)..];
        uint t = 0;
        switch (tail.Length)
        {
            case 3:
                t = ((uint)tail[0] << 16) | ((uint)tail[1] << 8) | tail[2];
                break;
            case 2:
                t = ((uint)tail[0] << 8) | tail[1];
                break;
            case 1:
                t = tail[0];
                break;
        }

        return sum ^ t;
    }
}

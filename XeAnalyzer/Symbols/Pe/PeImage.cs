using System.Collections.Immutable;
using System.Globalization;
using System.Reflection.PortableExecutable;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pe;

/// <summary>
/// The parts of a PE image (DLL/EXE) that symbolization needs: machine, image base, <c>SizeOfImage</c>,
/// <c>TimeDateStamp</c> (the symbol-store PE key), sections, RSDS CodeView records (which PDB matches) and exports (for
/// <c>dll!OrdinalNNN</c> frames). Headers and the debug directory are read with the in-box <see cref="PEReader"/>;
/// everything is parsed when the image is opened, and the result is immutable (no file stays open).
/// </summary>
internal sealed class PeImage
{
    private const int DosHeaderSize = 64;

    private PeImage(string name)
    {
        Name = name;
    }

    /// <summary>The file name (or source name) the image was read from.</summary>
    public string Name { get; }

    /// <summary>The target machine from the COFF header (<see cref="Machine.Amd64"/>, <see cref="Machine.I386"/>,
    /// …).</summary>
    public Machine Machine { get; private init; }

    /// <summary>Whether the optional header is PE32+ (64-bit).</summary>
    public bool Is64Bit { get; private init; }

    /// <summary>The preferred load address from the optional header.</summary>
    public ulong ImageBase { get; private init; }

    /// <summary><c>SizeOfImage</c> from the optional header.</summary>
    public uint SizeOfImage { get; private init; }

    /// <summary>The COFF header <c>TimeDateStamp</c> (a hash, not a time, for <c>/Brepro</c> builds).</summary>
    public uint TimeDateStamp { get; private init; }

    /// <summary>The symbol-store key of the image itself: <c>{TimeDateStamp:X8}{SizeOfImage:x}</c>, e.g.
    /// <c>57AE642E1ad000</c>.</summary>
    public string SymbolServerKey =>
        TimeDateStamp.ToString("X8", CultureInfo.InvariantCulture)
        + SizeOfImage.ToString("x", CultureInfo.InvariantCulture);

    /// <summary>The section headers, in order.</summary>
    public IReadOnlyList<PeSection> Sections { get; private init; } = [];

    /// <summary>Every RSDS CodeView record of the debug directory, in directory order (other CodeView formats such as
    /// NB10 are skipped).</summary>
    public IReadOnlyList<PeCodeViewRecord> CodeViewRecords { get; private init; } = [];

    /// <summary>
    /// The RSDS record to match a PDB against: the <b>last</b> one in the debug directory (what TraceEvent's
    /// <c>GetPdbSignature</c> uses when an image carries several), or <see langword="null"/> when there is none.
    /// </summary>
    public PeCodeViewRecord? CodeView => CodeViewRecords.Count > 0 ? CodeViewRecords[^1] : null;

    /// <summary>The name in the export directory (e.g. <c>tiny.dll</c>), or <see langword="null"/> when the image
    /// exports nothing.</summary>
    public string? ExportDllName { get; private init; }

    /// <summary>The export directory's ordinal <c>Base</c> (0 when there are no exports).</summary>
    public uint ExportOrdinalBase { get; private init; }

    /// <summary>The exports in ordinal order; slots whose RVA is 0 are skipped.</summary>
    public IReadOnlyList<PeExport> Exports { get; private init; } = [];

    /// <summary>Reads the PE image at <paramref name="path"/>.</summary>
    /// <param name="path">The DLL or EXE.</param>
    /// <param name="limits">Caps on counts read from the file; <see cref="PeReaderLimits.Default"/> when null.</param>
    /// <returns>The parsed image.</returns>
    /// <exception cref="InvalidPeDataException">The file is not a PE image or its headers, debug directory or export
    /// table are damaged.</exception>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static PeImage Open(string path, PeReaderLimits? limits = null)
    {
        using var source = new FileRandomAccessSource(path);
        return Read(source, limits);
    }

    /// <summary>Reads a PE image from an arbitrary byte source (which stays open and owned by the caller).</summary>
    /// <param name="source">The bytes of the image, in file layout.</param>
    /// <param name="limits">Caps on counts read from the file; <see cref="PeReaderLimits.Default"/> when null.</param>
    /// <returns>The parsed image.</returns>
    /// <exception cref="InvalidPeDataException">The data is not a PE image or its headers, debug directory or export
    /// table are damaged.</exception>
    public static PeImage Read(IRandomAccessSource source, PeReaderLimits? limits = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        limits ??= PeReaderLimits.Default;
        string file = source.Name;
        uint peOffset = CheckSignatures(source);

        using var stream = new RandomAccessSourceStream(source);
        using var reader = new PEReader(stream, PEStreamOptions.LeaveOpen);
        PEHeaders headers;
        try
        {
            headers = reader.PEHeaders;
        }
        catch (BadImageFormatException ex)
        {
            throw new InvalidPeDataException(
                file,
                peOffset,
                "expected valid COFF and optional headers after the 'PE' signature: " + ex.Message,
                ex
            );
        }

        PEHeader pe =
            headers.PEHeader
            ?? throw new InvalidPeDataException(
                file,
                peOffset + 20,
                "expected an optional header (SizeOfOptionalHeader > 0), found none: an object file, not an image"
            );
        var sections = new PeSection[headers.SectionHeaders.Length];
        for (int i = 0; i < sections.Length; i++)
        {
            SectionHeader s = headers.SectionHeaders[i];
            sections[i] = new PeSection(
                s.Name,
                U(s.VirtualAddress),
                U(s.VirtualSize),
                U(s.SizeOfRawData),
                U(s.PointerToRawData),
                (uint)s.SectionCharacteristics
            );
        }

        var layout = new ImageLayout(source, file, sections, U(pe.SizeOfHeaders), limits);
        PeCodeViewRecord[] codeViews = ReadCodeViews(reader, pe, layout, limits);
        ExportTable exports = ReadExports(pe, layout, limits);
        return new PeImage(file)
        {
            Machine = headers.CoffHeader.Machine,
            Is64Bit = pe.Magic == PEMagic.PE32Plus,
            ImageBase = pe.ImageBase,
            SizeOfImage = U(pe.SizeOfImage),
            TimeDateStamp = U(headers.CoffHeader.TimeDateStamp),
            Sections = Array.AsReadOnly(sections),
            CodeViewRecords = Array.AsReadOnly(codeViews),
            ExportDllName = exports.DllName,
            ExportOrdinalBase = exports.Base,
            Exports = Array.AsReadOnly(exports.Entries),
        };
    }

    /// <summary>The export with <paramref name="ordinal"/>, or <see langword="null"/>.</summary>
    /// <param name="ordinal">An export ordinal (<see cref="ExportOrdinalBase"/> + index).</param>
    /// <returns>The export, or <see langword="null"/> when no export has that ordinal.</returns>
    public PeExport? FindExportByOrdinal(int ordinal)
    {
        int lo = 0;
        int hi = Exports.Count - 1;
        while (lo <= hi)
        {
            int mid = lo + ((hi - lo) >> 1);
            int c = Exports[mid].Ordinal.CompareTo(ordinal);
            if (c == 0)
            {
                return Exports[mid];
            }

            if (c < 0)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        return null;
    }

    /// <summary>Checks the DOS and PE signatures with precise messages; returns the offset of the PE
    /// signature.</summary>
    private static uint CheckSignatures(IRandomAccessSource source)
    {
        string file = source.Name;
        long length = source.Length;
        Span<byte> dos = stackalloc byte[DosHeaderSize];
        int got = source.Read(0, dos);
        dos = dos[..got];
        if (dos.StartsWith("Microsoft C/C++ MSF 7.00"u8))
        {
            throw new InvalidPeDataException(
                file,
                0,
                "expected a PE image (DOS signature 'MZ'), found an MSF PDB file"
            );
        }

        if (got < 2 || dos[0] != (byte)'M' || dos[1] != (byte)'Z')
        {
            throw new InvalidPeDataException(
                file,
                0,
                got < 2
                    ? string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a PE image starting with the DOS signature 'MZ', but the file has only {got} bytes"
                    )
                    : "expected a PE image starting with the DOS signature 'MZ', found other bytes: not a DLL or EXE"
            );
        }

        if (got < DosHeaderSize)
        {
            throw new InvalidPeDataException(
                file,
                got,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a 64-byte DOS header, but the file has only {got} bytes (truncated image)"
                )
            );
        }

        var header = new SpanReader(dos[..DosHeaderSize], 0, file, FormatKind.Pe) { Position = 0x3C };
        uint lfanew = header.ReadUInt32("e_lfanew");
        if (lfanew < 4 || (long)lfanew + 24 > length)
        {
            throw new InvalidPeDataException(
                file,
                0x3C,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected e_lfanew to point at a PE signature and COFF header inside the {length}-byte file, "
                        + $"found 0x{lfanew:X} (truncated or not an image)"
                )
            );
        }

        Span<byte> sig = stackalloc byte[4];
        if (source.Read(lfanew, sig) != 4 || !sig.SequenceEqual("PE\0\0"u8))
        {
            throw new InvalidPeDataException(
                file,
                lfanew,
                "expected the PE signature 'PE\\0\\0' at e_lfanew, found other bytes (a DOS or NE/LE executable, or "
                    + "damaged)"
            );
        }

        return lfanew;
    }

    private static PeCodeViewRecord[] ReadCodeViews(
        PEReader reader,
        PEHeader pe,
        ImageLayout layout,
        PeReaderLimits limits
    )
    {
        DirectoryEntry dir = pe.DebugTableDirectory;
        if (dir.Size == 0)
        {
            return [];
        }

        long? dirOffset = layout.TryRvaToOffset(U(dir.RelativeVirtualAddress), 1, out long o) ? o : null;
        if (U(dir.Size) / 28 > limits.MaxDebugEntries)
        {
            throw new InvalidPeDataException(
                layout.File,
                dirOffset,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected at most {limits.MaxDebugEntries} debug directory entries "
                        + $"(PeReaderLimits.MaxDebugEntries), found a directory of {U(dir.Size)} bytes"
                )
            );
        }

        // Check the range ourselves first, for a precise message on truncated images.
        Span<byte> probe = stackalloc byte[1];
        if (dirOffset is long start && dir.Size > 0 && layout.Source.Read(start + dir.Size - 1, probe) != 1)
        {
            throw new InvalidPeDataException(
                layout.File,
                Math.Min(start + dir.Size, layout.Source.Length),
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a {dir.Size}-byte debug directory at file offset 0x{start:X}, but the file ends early "
                        + $"(truncated image)"
                )
            );
        }

        ImmutableArray<DebugDirectoryEntry> entries;
        try
        {
            entries = reader.ReadDebugDirectory();
        }
        catch (BadImageFormatException ex)
        {
            throw new InvalidPeDataException(
                layout.File,
                dirOffset,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a debug directory of 28-byte entries at RVA 0x{dir.RelativeVirtualAddress:X} "
                        + $"({dir.Size} bytes): {ex.Message}"
                ),
                ex
            );
        }

        var records = new List<PeCodeViewRecord>();
        Span<byte> magic = stackalloc byte[4];
        foreach (DebugDirectoryEntry entry in entries)
        {
            if (entry.Type != DebugDirectoryEntryType.CodeView || entry.DataSize < 4)
            {
                continue;
            }

            if (entry.DataPointer <= 0 || layout.Source.Read(entry.DataPointer, magic) != 4)
            {
                throw new InvalidPeDataException(
                    layout.File,
                    entry.DataPointer,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a CodeView record of {entry.DataSize} bytes at file offset "
                            + $"0x{entry.DataPointer:X} (debug directory PointerToRawData), but it is outside the file"
                    )
                );
            }

            if (!magic.SequenceEqual("RSDS"u8))
            {
                continue; // NB10 (PDB 2.0) and other CodeView formats cannot match an MSF 7.0 PDB.
            }

            try
            {
                CodeViewDebugDirectoryData cv = reader.ReadCodeViewDebugDirectoryData(entry);
                records.Add(new PeCodeViewRecord(cv.Guid, cv.Age, cv.Path));
            }
            catch (BadImageFormatException ex)
            {
                throw new InvalidPeDataException(
                    layout.File,
                    entry.DataPointer,
                    "expected an RSDS CodeView record (signature, GUID, age, NUL-terminated UTF-8 path): " + ex.Message,
                    ex
                );
            }
        }

        return [.. records];
    }

    private static ExportTable ReadExports(PEHeader pe, ImageLayout layout, PeReaderLimits limits)
    {
        DirectoryEntry dir = pe.ExportTableDirectory;
        if (dir.Size == 0 || dir.RelativeVirtualAddress == 0)
        {
            return new ExportTable(null, 0, []);
        }

        uint dirRva = U(dir.RelativeVirtualAddress);
        uint dirSize = U(dir.Size);
        Span<byte> directory = stackalloc byte[40];
        long dirOffset = layout.Read(dirRva, directory, "export directory");
        var d = new SpanReader(directory, dirOffset, layout.File, FormatKind.Pe);
        d.Skip(12, "export directory Characteristics, TimeDateStamp and version");
        uint nameRva = d.ReadUInt32("export directory Name");
        uint ordinalBase = d.ReadUInt32("export directory Base");
        uint functionCount = d.ReadUInt32("export directory NumberOfFunctions");
        uint nameCount = d.ReadUInt32("export directory NumberOfNames");
        uint functionsRva = d.ReadUInt32("export directory AddressOfFunctions");
        uint namesRva = d.ReadUInt32("export directory AddressOfNames");
        uint ordinalsRva = d.ReadUInt32("export directory AddressOfNameOrdinals");
        if (functionCount > limits.MaxExports || nameCount > limits.MaxExports)
        {
            throw new InvalidPeDataException(
                layout.File,
                dirOffset + 20,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected at most {limits.MaxExports} exports (PeReaderLimits.MaxExports), found "
                        + $"NumberOfFunctions {functionCount} and NumberOfNames {nameCount}"
                )
            );
        }

        if ((ulong)ordinalBase + functionCount > int.MaxValue)
        {
            throw new InvalidPeDataException(
                layout.File,
                dirOffset + 16,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected export ordinals (Base {ordinalBase} + {functionCount} functions) below 2^31"
                )
            );
        }

        string? dllName = nameRva == 0 ? null : layout.ReadCString(nameRva, "export DLL name");
        byte[] functions = new byte[functionCount * 4];
        long functionsOffset = layout.Read(functionsRva, functions, "export address table (AddressOfFunctions)");
        byte[] names = new byte[nameCount * 4];
        byte[] ordinals = new byte[nameCount * 2];
        long namesOffset = 0,
            ordinalsOffset = 0;
        if (nameCount > 0)
        {
            namesOffset = layout.Read(namesRva, names, "export name pointer table (AddressOfNames)");
            ordinalsOffset = layout.Read(ordinalsRva, ordinals, "export ordinal table (AddressOfNameOrdinals)");
        }

        var nameOf = new string?[functionCount];
        var ordinalTable = new SpanReader(ordinals, ordinalsOffset, layout.File, FormatKind.Pe);
        var nameTable = new SpanReader(names, namesOffset, layout.File, FormatKind.Pe);
        for (int j = 0; j < nameCount; j++)
        {
            long at = ordinalTable.FileOffset;
            ushort index = ordinalTable.ReadUInt16("export name ordinal");
            uint nameAt = nameTable.ReadUInt32("export name RVA");
            if (index >= functionCount)
            {
                throw new InvalidPeDataException(
                    layout.File,
                    at,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected export name {j} to refer to a function index below NumberOfFunctions "
                            + $"({functionCount}), found {index}"
                    )
                );
            }

            // AddressOfNames is sorted, so the first (smallest) of several names for one function is kept.
            nameOf[index] ??= layout.ReadCString(nameAt, "export name");
        }

        var entries = new List<PeExport>();
        var functionTable = new SpanReader(functions, functionsOffset, layout.File, FormatKind.Pe);
        for (int i = 0; i < functionCount; i++)
        {
            uint rva = functionTable.ReadUInt32("export address");
            if (rva == 0)
            {
                continue;
            }

            bool forwarder = rva >= dirRva && rva - dirRva < dirSize;
            string? target = forwarder ? layout.ReadCString(rva, "export forwarder string") : null;
            entries.Add(new PeExport((int)(ordinalBase + (uint)i), rva, nameOf[i], target));
        }

        return new ExportTable(dllName, ordinalBase, [.. entries]);
    }

    /// <summary>Reinterprets a header field that SRM exposes as <see cref="int"/> (hostile files may set the top
    /// bit).</summary>
    private static uint U(int value) => unchecked((uint)value);

    private sealed record ExportTable(string? DllName, uint Base, PeExport[] Entries);

    /// <summary>RVA → file offset through the section headers, with bounds-checked reads that name the file and
    /// offset.</summary>
    private sealed class ImageLayout(
        IRandomAccessSource source,
        string file,
        PeSection[] sections,
        uint sizeOfHeaders,
        PeReaderLimits limits
    )
    {
        public IRandomAccessSource Source => source;

        public string File => file;

        /// <summary>Maps [rva, rva + length) to file bytes; false when it is not backed by raw data of one section (or
        /// the headers).</summary>
        public bool TryRvaToOffset(uint rva, uint length, out long offset) =>
            TryMap(rva, out offset, out ulong available) && length <= available;

        /// <summary>Maps <paramref name="rva"/> to its file offset and the number of file bytes from there to the end
        /// of its section's raw data.</summary>
        private bool TryMap(uint rva, out long offset, out ulong available)
        {
            foreach (PeSection s in sections)
            {
                if (rva >= s.VirtualAddress && (ulong)rva - s.VirtualAddress < s.SizeOfRawData)
                {
                    offset = (long)s.PointerToRawData + (rva - s.VirtualAddress);
                    available = s.SizeOfRawData - ((ulong)rva - s.VirtualAddress);
                    return true;
                }
            }

            if (rva < sizeOfHeaders)
            {
                offset = rva;
                available = sizeOfHeaders - rva;
                return true;
            }

            offset = 0;
            available = 0;
            return false;
        }

        /// <summary>Reads destination.Length bytes at <paramref name="rva"/>; returns their file offset.</summary>
        public long Read(uint rva, Span<byte> destination, string what)
        {
            if (!TryRvaToOffset(rva, (uint)destination.Length, out long offset))
            {
                throw new InvalidPeDataException(
                    file,
                    null,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected the {what} ({destination.Length} bytes at RVA 0x{rva:X}) inside a section's file "
                            + $"data, but no section holds that range"
                    )
                );
            }

            int got = source.Read(offset, destination);
            if (got != destination.Length)
            {
                throw new InvalidPeDataException(
                    file,
                    offset + got,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected {destination.Length} bytes of the {what} at RVA 0x{rva:X}, but the file ends "
                            + $"early (truncated image)"
                    )
                );
            }

            return offset;
        }

        public string ReadCString(uint rva, string what)
        {
            if (!TryMap(rva, out long offset, out ulong available))
            {
                throw new InvalidPeDataException(
                    file,
                    null,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected the {what} at RVA 0x{rva:X} inside a section's file data, but no section holds it"
                    )
                );
            }

            // Read up to the end of the containing section's raw data (or the name cap), then find the terminator.
            int max = (int)Math.Min((ulong)limits.MaxNameBytes, available);
            byte[] buffer = new byte[max];
            int got = source.Read(offset, buffer);
            int nul = buffer.AsSpan(0, got).IndexOf((byte)0);
            if (nul < 0)
            {
                throw new InvalidPeDataException(
                    file,
                    offset,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a NUL-terminated {what} of at most {limits.MaxNameBytes} bytes at RVA 0x{rva:X}, "
                            + $"found no terminator within {got} bytes"
                    )
                );
            }

            return Encoding.UTF8.GetString(buffer, 0, nul);
        }
    }
}

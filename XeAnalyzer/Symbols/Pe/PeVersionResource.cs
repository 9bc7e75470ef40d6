using System.Buffers.Binary;
using System.Reflection.PortableExecutable;
using System.Text;

namespace XeAnalyzer.Symbols.Pe;

/// <summary>
/// Reads the <c>FileVersion</c> of a PE image's version resource (<c>RT_VERSION</c>): the string of the first
/// <c>StringFileInfo</c> table (<c>2019.0150.2000.05 ((SQLServer).190924-2033)</c>, as SQL Server's build catalog
/// records it), else the numbers of
/// <c>VS_FIXEDFILEINFO</c> (<c>2019.150.2000.5</c>). Every offset is checked against the resource section; a damaged or
/// absent resource gives <see langword="null"/>, never an exception.
/// </summary>
internal static class PeVersionResource
{
    private const int RtVersion = 16;
    private const uint FixedFileInfoSignature = 0xFEEF04BD;

    /// <summary>The file version of the image at <paramref name="path"/>, or <see langword="null"/> when it has no
    /// readable version resource.</summary>
    /// <param name="path">The DLL or EXE.</param>
    /// <returns>The version text, or <see langword="null"/>.</returns>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static string? TryReadFileVersion(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var reader = new PEReader(stream);
        try
        {
            DirectoryEntry dir = reader.PEHeaders.PEHeader?.ResourceTableDirectory ?? default;
            if (dir.RelativeVirtualAddress <= 0 || dir.Size <= 0)
            {
                return null;
            }

            ReadOnlySpan<byte> root = Block(reader, dir.RelativeVirtualAddress);
            if (root.Length > dir.Size)
            {
                root = root[..dir.Size];
            }

            // Type RT_VERSION → first name/id → first language → data entry (RVA, size).
            int typeDir = FindEntry(root, 0, RtVersion, anyId: false);
            int nameDir = typeDir < 0 ? -1 : FindEntry(root, typeDir, 0, anyId: true);
            int dataEntry = nameDir < 0 ? -1 : FindEntry(root, nameDir, 0, anyId: true, leaf: true);
            if (dataEntry < 0 || dataEntry + 16 > root.Length)
            {
                return null;
            }

            int dataRva = BinaryPrimitives.ReadInt32LittleEndian(root[dataEntry..]);
            int dataSize = BinaryPrimitives.ReadInt32LittleEndian(root[(dataEntry + 4)..]);
            ReadOnlySpan<byte> data = dataRva > 0 && dataSize > 0 ? Block(reader, dataRva) : default;
            if (data.Length < dataSize || dataSize < 6)
            {
                return null;
            }

            return ParseVersionInfo(data[..dataSize]);
        }
        catch (BadImageFormatException)
        {
            return null;
        }
    }

    private static ReadOnlySpan<byte> Block(PEReader reader, int rva)
    {
        PEMemoryBlock block = reader.GetSectionData(rva);
        return block.Length == 0 ? default : block.GetContent().AsSpan();
    }

    /// <summary>
    /// In the resource directory at <paramref name="directory"/>, the entry with id <paramref name="id"/> (or the
    /// first, when
    /// <paramref name="anyId"/>): the offset of the subdirectory it points to, or of its data entry when
    /// <paramref name="leaf"/>; -1 if none.
    /// </summary>
    private static int FindEntry(ReadOnlySpan<byte> root, int directory, int id, bool anyId, bool leaf = false)
    {
        if (directory < 0 || directory + 16 > root.Length)
        {
            return -1;
        }

        int named = BinaryPrimitives.ReadUInt16LittleEndian(root[(directory + 12)..]);
        int ids = BinaryPrimitives.ReadUInt16LittleEndian(root[(directory + 14)..]);
        for (int i = 0; i < named + ids; i++)
        {
            int e = directory + 16 + (i * 8);
            if (e + 8 > root.Length)
            {
                return -1;
            }

            uint name = BinaryPrimitives.ReadUInt32LittleEndian(root[e..]);
            uint target = BinaryPrimitives.ReadUInt32LittleEndian(root[(e + 4)..]);
            bool isId = (name & 0x80000000) == 0;
            if (!anyId && (!isId || name != id))
            {
                continue;
            }

            bool isDirectory = (target & 0x80000000) != 0;
            int offset = (int)(target & 0x7FFFFFFF);
            return isDirectory != leaf && offset < root.Length ? offset : -1;
        }

        return -1;
    }

    /// <summary>Parses <c>VS_VERSIONINFO</c>: header, key, <c>VS_FIXEDFILEINFO</c>, then children
    /// (<c>StringFileInfo</c> → string table → strings).</summary>
    private static string? ParseVersionInfo(ReadOnlySpan<byte> info)
    {
        if (!TryNode(info, 0, out Node root) || root.Key != "VS_VERSION_INFO")
        {
            return null;
        }

        string? fixedVersion = null;
        if (
            root.ValueLength >= 52
            && root.ValueStart + 52 <= root.End
            && BinaryPrimitives.ReadUInt32LittleEndian(info[root.ValueStart..]) == FixedFileInfoSignature
        )
        {
            uint ms = BinaryPrimitives.ReadUInt32LittleEndian(info[(root.ValueStart + 8)..]);
            uint ls = BinaryPrimitives.ReadUInt32LittleEndian(info[(root.ValueStart + 12)..]);
            fixedVersion = string.Join('.', ms >> 16, ms & 0xFFFF, ls >> 16, ls & 0xFFFF);
        }

        int child = Align(root.ValueStart + root.ValueLength);
        for (int guard = 0; child < root.End && guard < 64; guard++)
        {
            if (!TryNode(info[..root.End], child, out Node node))
            {
                break;
            }

            if (node.Key == "StringFileInfo")
            {
                int table = Align(node.ValueStart);
                if (TryNode(info[..node.End], table, out Node strings))
                {
                    int s = Align(strings.ValueStart);
                    for (int g = 0; s < strings.End && g < 256; g++)
                    {
                        if (!TryNode(info[..strings.End], s, out Node str))
                        {
                            break;
                        }

                        if (str.Key == "FileVersion" && str.ValueLength > 0)
                        {
                            // wValueLength counts WCHARs (including the terminator) for text values.
                            int bytes = Math.Min(str.ValueLength * 2, str.End - str.ValueStart);
                            string value = Encoding
                                .Unicode.GetString(info.Slice(str.ValueStart, Math.Max(0, bytes)))
                                .TrimEnd('\0')
                                .Trim();
                            if (value.Length > 0 && !value.Any(char.IsControl))
                            {
                                return value;
                            }
                        }

                        s = Align(str.End);
                    }
                }
            }

            child = Align(node.End);
        }

        return fixedVersion;
    }

    /// <summary>One version-resource node: <c>wLength, wValueLength, wType, szKey</c>, padding, then the value and
    /// children.</summary>
    private static bool TryNode(ReadOnlySpan<byte> data, int at, out Node node)
    {
        node = default;
        if (at < 0 || at + 6 > data.Length)
        {
            return false;
        }

        int length = BinaryPrimitives.ReadUInt16LittleEndian(data[at..]);
        int valueLength = BinaryPrimitives.ReadUInt16LittleEndian(data[(at + 2)..]);
        if (length < 6 || at + length > data.Length)
        {
            return false;
        }

        int end = at + length;
        int k = at + 6;
        var key = new StringBuilder();
        while (k + 2 <= end)
        {
            char c = (char)BinaryPrimitives.ReadUInt16LittleEndian(data[k..]);
            k += 2;
            if (c == '\0')
            {
                break;
            }

            if (key.Length > 64)
            {
                return false;
            }

            key.Append(c);
        }

        node = new Node(key.ToString(), Math.Min(Align(k), end), valueLength, end);
        return true;
    }

    private static int Align(int offset) => (offset + 3) & ~3;

    private readonly record struct Node(string Key, int ValueStart, int ValueLength, int End);
}

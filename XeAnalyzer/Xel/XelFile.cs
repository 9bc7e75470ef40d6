using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>The 8 meaningful bytes of a <c>.xel</c> file header.</summary>
/// <param name="Magic">The magic number, <see cref="XelFile.Magic"/>.</param>
/// <param name="Version">The format version (10 in every known file).</param>
/// <param name="HeaderSize">Offset of the first buffer (512 in every known file); a file shorter than this is not a
/// readable capture.</param>
internal readonly record struct XelFileHeader(uint Magic, ushort Version, ushort HeaderSize);

/// <summary>The answer of <see cref="XelFile.Identify(string)"/>: what a file is, without reading its events.</summary>
/// <param name="FilePath">The file.</param>
/// <param name="IsXel">Whether the file starts like a <c>.xel</c> capture.</param>
/// <param name="Length">File length in bytes.</param>
/// <param name="Header">The header, when <paramref name="IsXel"/>.</param>
/// <param name="Reason">Why the file is not a <c>.xel</c> capture, when it is not.</param>
internal sealed record XelFileIdentity(string FilePath, bool IsXel, long Length, XelFileHeader? Header, string? Reason);

/// <summary>Cheap questions about a <c>.xel</c> file: its header, and whether it is one at all.</summary>
internal static class XelFile
{
    /// <summary>The magic number at offset 0 (bytes <c>5A 37 AB EF</c>).</summary>
    public const uint Magic = 0xEFAB375A;

    /// <summary>The only format version seen in real files.</summary>
    public const ushort SupportedVersion = 10;

    /// <summary>Reads and checks the file header.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The header.</returns>
    /// <exception cref="InvalidXelDataException">The file is not a <c>.xel</c> capture (empty, too short, wrong magic
    /// or version).</exception>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static XelFileHeader ReadHeader(string path)
    {
        using var src = new FileRandomAccessSource(path);
        return ReadHeader(src);
    }

    /// <summary>Reads and checks the file header of <paramref name="source"/>.</summary>
    /// <param name="source">The bytes.</param>
    /// <returns>The header.</returns>
    /// <exception cref="InvalidXelDataException">The bytes are not a <c>.xel</c> capture.</exception>
    public static XelFileHeader ReadHeader(IRandomAccessSource source)
    {
        ArgumentNullException.ThrowIfNull(source);
        string? problem = TryReadHeader(source, out XelFileHeader header, out long offset);
        if (problem is not null)
        {
            throw new InvalidXelDataException(source.Name, offset, problem);
        }

        return header;
    }

    /// <summary>Says whether <paramref name="path"/> is a <c>.xel</c> capture, without throwing for malformed
    /// content.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The identity.</returns>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static XelFileIdentity Identify(string path)
    {
        using var src = new FileRandomAccessSource(path);
        string? problem = TryReadHeader(src, out XelFileHeader header, out _);
        return new XelFileIdentity(path, problem is null, src.Length, problem is null ? header : null, problem);
    }

    internal static string? TryReadHeader(IRandomAccessSource source, out XelFileHeader header, out long offset)
    {
        header = default;
        offset = 0;
        long length = source.Length;
        if (length == 0)
        {
            return "expected a .xel file header (magic 0xEFAB375A), but the file is empty";
        }

        Span<byte> b = stackalloc byte[8];
        int n = source.Read(0, b);
        if (n < 8)
        {
            offset = n;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"expected an 8-byte .xel file header, but the file has only {n} bytes"
            );
        }

        uint magic = BinaryPrimitives.ReadUInt32LittleEndian(b);
        ushort version = BinaryPrimitives.ReadUInt16LittleEndian(b[4..]);
        ushort size = BinaryPrimitives.ReadUInt16LittleEndian(b[6..]);
        if (magic != Magic)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"expected the .xel magic 0xEFAB375A, found 0x{magic:X8}: not an Extended Events file"
            );
        }

        if (version != SupportedVersion)
        {
            offset = 4;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"expected format version {SupportedVersion}, found {version}"
            );
        }

        if (size < 8)
        {
            offset = 6;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"expected a header size of at least 8 bytes, found {size}"
            );
        }

        // The first buffer starts after the whole header: a file cut inside it is damaged, not an empty capture.
        if (length < size)
        {
            offset = length;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"expected a {size}-byte .xel file header (as its size field at offset 6 says), but the file ends "
                    + $"after {length} bytes (truncated capture)"
            );
        }

        header = new XelFileHeader(magic, version, size);
        return null;
    }
}

using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// The PDB's <c>/names</c> string table (a named stream, found through the PDB info stream's named-stream map): the
/// file names that C13 file checksums point to, by byte offset. Immutable once read.
/// </summary>
internal sealed class PdbStringTable
{
    private const uint Signature = 0xEFFEEFFE;
    private const string Description = "/names string table";

    private readonly byte[] _strings;
    private readonly MsfStream? _stream;
    private readonly string _file;
    private readonly Dictionary<uint, string> _decoded = [];
    private readonly Lock _gate = new();

    private PdbStringTable(byte[] strings, MsfStream? stream, string file)
    {
        _strings = strings;
        _stream = stream;
        _file = file;
    }

    /// <summary>Reads <c>/names</c>, or returns an empty table when the named-stream map has no such entry.</summary>
    public static PdbStringTable Read(PdbFile pdb)
    {
        int? index = FindNamedStream(pdb, "/names");
        if (index is not int i)
        {
            return new PdbStringTable([], null, pdb.Name);
        }

        MsfStream stream =
            pdb.Msf.GetStream(i)
            ?? throw new InvalidPdbDataException(
                pdb.Name,
                null,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected the /names stream {i} named by the PDB info stream, but the MSF directory has "
                        + $"{pdb.Msf.StreamCount} streams and that one is absent"
                )
            );
        if (stream.Length < 12)
        {
            throw stream.Error(
                0,
                Description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a 12-byte header, but the stream has only {stream.Length} bytes"
                )
            );
        }

        Span<byte> h = stackalloc byte[12];
        stream.Read(0, h);
        uint signature = BinaryPrimitives.ReadUInt32LittleEndian(h);
        if (signature != Signature)
        {
            throw stream.Error(
                0,
                Description,
                string.Create(CultureInfo.InvariantCulture, $"the signature 0xEFFEEFFE, found 0x{signature:X8}")
            );
        }

        uint version = BinaryPrimitives.ReadUInt32LittleEndian(h[4..]);
        if (version is not (1 or 2))
        {
            throw stream.Error(
                4,
                Description,
                string.Create(CultureInfo.InvariantCulture, $"hash version 1 or 2, found {version}")
            );
        }

        uint size = BinaryPrimitives.ReadUInt32LittleEndian(h[8..]);
        if (size > stream.Length - 12)
        {
            throw stream.Error(
                8,
                Description,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"string bytes that fit in the {stream.Length - 12} bytes after the header, found a size of {size}"
                )
            );
        }

        return new PdbStringTable(
            stream.ReadRange(12, size, pdb.Limits.MaxStreamBytes, "/names strings"),
            stream,
            pdb.Name
        );
    }

    /// <summary>The NUL-terminated string at <paramref name="offset"/>.</summary>
    /// <exception cref="InvalidPdbDataException">The offset is outside the table, or the string has no
    /// terminator.</exception>
    public string Get(uint offset, string user)
    {
        lock (_gate)
        {
            if (_decoded.TryGetValue(offset, out string? known))
            {
                return known;
            }

            if (offset >= (uint)_strings.Length)
            {
                throw _stream is null
                    ? new InvalidPdbDataException(
                        _file,
                        null,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"expected a /names string table for {user} (string offset {offset}), but the PDB has none"
                        )
                    )
                    : _stream.Error(
                        12,
                        Description,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"a string offset below {_strings.Length} for {user}, found {offset}"
                        )
                    );
            }

            ReadOnlySpan<byte> rest = _strings.AsSpan((int)offset);
            int end = rest.IndexOf((byte)0);
            if (end < 0)
            {
                throw _stream!.Error(12 + offset, Description, "a NUL-terminated string for " + user);
            }

            string s = Encoding.UTF8.GetString(rest[..end]);
            if (_decoded.Count < 1_000_000)
            {
                _decoded.Add(offset, s);
            }

            return s;
        }
    }

    /// <summary>
    /// Looks <paramref name="name"/> up in the named-stream map that follows the 28-byte header of the PDB info stream:
    /// a string buffer, then a hash table (size, capacity, present and deleted bit vectors, then a key/value pair per
    /// present bucket).
    /// </summary>
    private static int? FindNamedStream(PdbFile pdb, string name)
    {
        const string InfoDescription = "PDB info stream named-stream map";
        MsfStream info = pdb.Msf.GetStream(1)!;
        if (info.Length <= 28)
        {
            return null;
        }

        byte[] raw = info.ReadRange(28, info.Length - 28, pdb.Limits.MaxStreamBytes, "named-stream map");
        var r = new SpanReader(raw, info, 28, InfoDescription);
        uint bufferSize = r.ReadUInt32("string buffer size");
        if (bufferSize > r.Remaining)
        {
            throw r.Error(
                0,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a string buffer of at most {r.Remaining} bytes, found a size of {bufferSize}"
                )
            );
        }

        ReadOnlySpan<byte> buffer = r.Advance((int)bufferSize, "named-stream string buffer");
        uint size = r.ReadUInt32("hash table size");
        uint capacity = r.ReadUInt32("hash table capacity");
        if (size > capacity || capacity > (uint)r.Remaining)
        {
            throw r.Error(
                r.Position - 8,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a hash table whose size ({size}) is at most its capacity ({capacity}), which fits in the stream"
                )
            );
        }

        uint presentWords = r.ReadUInt32("present bit vector length");
        if (presentWords > (uint)r.Remaining / 4)
        {
            throw r.Error(
                r.Position - 4,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a present bit vector of at most {r.Remaining / 4} words, found {presentWords}"
                )
            );
        }

        ReadOnlySpan<byte> present = r.Advance((int)presentWords * 4, "present bit vector");
        uint deletedWords = r.ReadUInt32("deleted bit vector length");
        if (deletedWords > (uint)r.Remaining / 4)
        {
            throw r.Error(
                r.Position - 4,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a deleted bit vector of at most {r.Remaining / 4} words, found {deletedWords}"
                )
            );
        }

        r.Skip((int)deletedWords * 4, "deleted bit vector");
        int presentCount = 0;
        for (long bit = 0; bit < capacity && bit < presentWords * 32L; bit++)
        {
            if ((present[(int)(bit / 8)] & (1 << (int)(bit % 8))) != 0)
            {
                presentCount++;
            }
        }

        if (presentCount != size)
        {
            throw r.Error(
                r.Position,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{size} present buckets (the hash table size), but the present bit vector marks {presentCount}"
                )
            );
        }

        for (int i = 0; i < presentCount; i++)
        {
            uint key = r.ReadUInt32("named stream name offset");
            uint value = r.ReadUInt32("named stream index");
            if (key >= bufferSize)
            {
                throw r.Error(
                    r.Position - 8,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a name offset below the string buffer size {bufferSize}, found {key}"
                    )
                );
            }

            ReadOnlySpan<byte> rest = buffer[(int)key..];
            int end = rest.IndexOf((byte)0);
            if (end >= 0 && Encoding.UTF8.GetString(rest[..end]).Equals(name, StringComparison.Ordinal))
            {
                return value <= int.MaxValue
                    ? (int)value
                    : throw r.Error(
                        r.Position - 4,
                        string.Create(CultureInfo.InvariantCulture, $"a stream index for '{name}', found {value}")
                    );
            }
        }

        return null;
    }
}

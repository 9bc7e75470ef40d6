using System.Globalization;
using System.Text;

namespace XeAnalyzer.Events;

/// <summary>One entry of a map: a numeric key and its text.</summary>
/// <param name="Key">The map key.</param>
/// <param name="Name">The text for the key.</param>
public readonly record struct XeMapEntry(uint Key, string Name);

/// <summary>
/// A map object of a capture's metadata (for example <c>sqlos.wait_types</c>): numeric keys with their text.
/// Map keys change between SQL Server builds, so they are always read from the capture itself.
/// </summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XeMap
{
    private readonly List<XeMapEntry> _entries;
    private readonly Dictionary<ulong, string> _byKey;

    internal XeMap(
        XePackage package,
        int objectIndex,
        string name,
        bool isBitmask,
        int keySize,
        XeMapEntry[] entries,
        string description
    )
    {
        Package = package;
        ObjectIndex = objectIndex;
        Name = name;
        IsBitmask = isBitmask;
        KeySize = keySize;
        Description = description;
        _entries = [.. entries];
        _byKey = new Dictionary<ulong, string>(entries.Length);
        foreach (XeMapEntry e in entries)
        {
            _byKey.TryAdd(e.Key, e.Name);
        }
    }

    /// <summary>The package that defines the map.</summary>
    public XePackage Package { get; }

    /// <summary>The map's object index within its package.</summary>
    public int ObjectIndex { get; }

    /// <summary>The map name, for example <c>wait_types</c>.</summary>
    public string Name { get; }

    /// <summary>Whether the map is a bitmask (a value's text is the comma-joined names of its set bits).</summary>
    public bool IsBitmask { get; }

    /// <summary>Size in bytes of a key stored in an event payload: 1, 2, 4 or 8.</summary>
    public int KeySize { get; }

    /// <summary>The description from the metadata.</summary>
    public string Description { get; }

    /// <summary>The entries in metadata order.</summary>
    public IReadOnlyList<XeMapEntry> Entries => _entries;

    /// <summary>
    /// Adds a key met in target-data XML (where a map's keys arrive with the events that use them); a key already known
    /// keeps its first text. Only maps built by the XML adapter grow, and only while their input is read.
    /// </summary>
    /// <returns>Whether the key was new; <paramref name="conflict"/> says whether it was known with another
    /// text.</returns>
    internal bool TryAddEntry(uint key, string text, out bool conflict)
    {
        if (_byKey.TryGetValue(key, out string? known))
        {
            conflict = !string.Equals(known, text, StringComparison.Ordinal);
            return false;
        }

        conflict = false;
        _entries.Add(new XeMapEntry(key, text));
        _byKey.Add(key, text);
        return true;
    }

    /// <summary>The map's RID (object type 3).</summary>
    public uint Rid => XeRid.Make(Package.Index, ObjectIndex, XeRid.TypeMap);

    /// <summary>The base type of the stored key (uint8, uint16, uint32 or uint64 by <see cref="KeySize"/>).</summary>
    public XeBaseType KeyBaseType =>
        KeySize switch
        {
            1 => XeBaseType.UInt8,
            2 => XeBaseType.UInt16,
            4 => XeBaseType.UInt32,
            _ => XeBaseType.UInt64,
        };

    internal ushort HeaderVersion { get; init; }

    internal byte GenericCaps { get; init; }

    /// <summary>Looks up the text of an exact key.</summary>
    /// <param name="key">The key.</param>
    /// <param name="name">The text, when found.</param>
    /// <returns>Whether the key is in the map.</returns>
    public bool TryGetName(ulong key, out string name)
    {
        if (_byKey.TryGetValue(key, out string? n))
        {
            name = n;
            return true;
        }

        name = string.Empty;
        return false;
    }

    /// <summary>
    /// The text of a stored value as XELite renders it: the entry name; for a bitmask map the names of the entries
    /// whose bits are all set, in metadata order, joined with <c>", "</c> (the name of key 0 when the value is 0).
    /// A key that is not in the map renders as its decimal number.
    /// </summary>
    /// <param name="key">The stored key.</param>
    /// <returns>The text.</returns>
    public string GetText(ulong key)
    {
        if (!IsBitmask)
        {
            return _byKey.TryGetValue(key, out string? n) ? n : key.ToString(CultureInfo.InvariantCulture);
        }

        if (key == 0)
        {
            return _byKey.TryGetValue(0, out string? zero) ? zero : "0";
        }

        StringBuilder? sb = null;
        ulong covered = 0;
        foreach (XeMapEntry e in _entries)
        {
            if (e.Key != 0 && (key & e.Key) == e.Key)
            {
                sb ??= new StringBuilder();
                if (sb.Length > 0)
                {
                    sb.Append(", ");
                }

                sb.Append(e.Name);
                covered |= e.Key;
            }
        }

        if (sb is null)
        {
            return key.ToString(CultureInfo.InvariantCulture);
        }

        if ((key & ~covered) != 0)
        {
            sb.Append(", ").Append((key & ~covered).ToString(CultureInfo.InvariantCulture));
        }

        return sb.ToString();
    }

    /// <inheritdoc/>
    public override string ToString() => Package.Name + "." + Name;
}

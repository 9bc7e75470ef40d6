using System.Globalization;

namespace XeAnalyzer.Events;

/// <summary>
/// The metadata of a capture: packages, event types, actions, maps and types, keyed by RID. Read-only to its users: the
/// reader builds one per <c>.xel</c> file from the file itself (no hard-coded schemas), and code that writes captures
/// or describes events from other sources builds one with <see cref="XeSchemaBuilder"/>. Objects keep the RIDs they
/// were given, so a builder can import objects of another schema and write them back with the same identities.
/// </summary>
/// <remarks>
/// A schema handed out by a reader only grows, by the readers themselves, when later metadata of the same capture
/// arrives (a rollover file's metadata, a map key met in target-data XML); nothing already in it changes. It can be
/// read from many threads once reading has finished.
/// </remarks>
public sealed partial class XeSchema
{
    private readonly SortedDictionary<int, XePackage> _packages = [];
    private readonly Dictionary<uint, XeType> _types = [];
    private readonly Dictionary<uint, XeMap> _maps = [];
    private readonly Dictionary<uint, XeColumn> _actions = [];
    private readonly Dictionary<uint, XeEventType> _events = [];
    private readonly List<XeType> _typeList = [];
    private readonly List<XeMap> _mapList = [];
    private readonly List<XeColumn> _actionList = [];
    private readonly List<XeEventType> _eventList = [];

    /// <summary>Creates an empty schema.</summary>
    /// <param name="pointerSize">Pointer size of the captured process: 8 (x64) or 4.</param>
    internal XeSchema(int pointerSize = 8)
    {
        if (pointerSize is not (4 or 8))
        {
            throw new ArgumentOutOfRangeException(nameof(pointerSize), pointerSize, "The pointer size must be 4 or 8.");
        }

        PointerSize = pointerSize;
        if (pointerSize == 4)
        {
            // Readers take the pointer size from package0's ptr type; without it they assume 8.
            GetStandardType(XeBaseType.Pointer);
        }
    }

    /// <summary>Pointer size (4 or 8): the size of type 13 (<c>ptr</c>) in package 0.</summary>
    public int PointerSize { get; internal set; }

    /// <summary>The packages, by index.</summary>
    public IReadOnlyCollection<XePackage> Packages => _packages.Values;

    /// <summary>The event types, in the order they were added.</summary>
    public IReadOnlyList<XeEventType> EventTypes => _eventList;

    /// <summary>The actions, in the order they were added.</summary>
    public IReadOnlyList<XeColumn> Actions => _actionList;

    /// <summary>The maps, in the order they were added.</summary>
    public IReadOnlyList<XeMap> Maps => _mapList;

    /// <summary>The types, in the order they were added.</summary>
    public IReadOnlyList<XeType> Types => _typeList;

    /// <summary>Package 0 (<c>package0</c>), created on first use.</summary>
    internal XePackage Package0 =>
        GetPackage(0)
        ?? AddPackage(
            "package0",
            0,
            description: "Default package. Contains all standard types, maps, compare operators, actions and targets"
        );

    /// <summary>The package with index <paramref name="index"/>, or <see langword="null"/>.</summary>
    /// <param name="index">Package index.</param>
    /// <returns>The package.</returns>
    public XePackage? GetPackage(int index) => _packages.TryGetValue(index, out XePackage? p) ? p : null;

    /// <summary>Adds a package.</summary>
    /// <param name="name">Package name (need not be unique).</param>
    /// <param name="index">Package index; by default the next free one.</param>
    /// <param name="id">Package GUID; by default derived from the name.</param>
    /// <param name="moduleId">Module GUID; by default derived from the name.</param>
    /// <param name="description">Description.</param>
    /// <returns>The package.</returns>
    /// <exception cref="InvalidOperationException">The index is already used.</exception>
    internal XePackage AddPackage(
        string name,
        int? index = null,
        Guid? id = null,
        Guid? moduleId = null,
        string? description = null
    )
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        int i = index ?? (_packages.Count == 0 ? 0 : _packages.Keys.Max() + 1);
        if (i is < 0 or > XeRid.MaxPackageIndex)
        {
            throw new ArgumentOutOfRangeException(nameof(index), i, "A package index is 0..1023.");
        }

        if (_packages.ContainsKey(i))
        {
            throw new InvalidOperationException(
                "Package index " + i.ToString(CultureInfo.InvariantCulture) + " is already used."
            );
        }

        var p = new XePackage(
            i,
            name,
            id ?? NameGuid("package:" + name),
            moduleId ?? NameGuid("module:" + name),
            description ?? string.Empty
        );
        _packages.Add(i, p);
        return p;
    }

    /// <summary>The standard <c>package0</c> type of <paramref name="baseType"/>, added on first use with its standard
    /// name and size.</summary>
    /// <param name="baseType">The base type.</param>
    /// <returns>The type.</returns>
    internal XeType GetStandardType(XeBaseType baseType)
    {
        XePackage p0 = Package0;
        uint rid = XeRid.Make(0, (int)baseType, XeRid.TypeType);
        if (_types.TryGetValue(rid, out XeType? t))
        {
            return t;
        }

        return AddType(
            p0,
            baseType,
            XeBaseTypes.GetStandardName(baseType),
            XeBaseTypes.GetStandardSize(baseType, PointerSize)
        );
    }

    /// <summary>Adds a type object.</summary>
    /// <param name="package">Its package (normally <see cref="Package0"/>).</param>
    /// <param name="baseType">Base type (the type's object index).</param>
    /// <param name="name">Type name.</param>
    /// <param name="size">Size in bytes, 0 for variable length.</param>
    /// <param name="description">Description.</param>
    /// <returns>The type.</returns>
    internal XeType AddType(XePackage package, XeBaseType baseType, string name, int size, string? description = null)
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentOutOfRangeException.ThrowIfNegative(size);
        var t = new XeType(package, name, baseType, size, description ?? string.Empty);
        AddType(t);
        return t;
    }

    /// <summary>Adds a map.</summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Map name.</param>
    /// <param name="entries">Keys and texts.</param>
    /// <param name="isBitmask">Whether the map is a bitmask.</param>
    /// <param name="keySize">Stored key size: 1, 2, 4 or 8.</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The map.</returns>
    internal XeMap AddMap(
        XePackage package,
        string name,
        IEnumerable<XeMapEntry> entries,
        bool isBitmask = false,
        int keySize = 4,
        int? objectIndex = null,
        string? description = null
    )
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(entries);
        if (keySize is not (1 or 2 or 4 or 8))
        {
            throw new ArgumentOutOfRangeException(nameof(keySize), keySize, "A map key size is 1, 2, 4 or 8.");
        }

        int idx = objectIndex ?? NextIndex(_mapList, m => m.Package, m => m.ObjectIndex, package);
        var m = new XeMap(package, idx, name, isBitmask, keySize, [.. entries], description ?? string.Empty)
        {
            HeaderVersion = 0,
            GenericCaps = 0,
        };
        AddMap(m);
        return m;
    }

    /// <summary>Adds an action of a standard base type.</summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Action name (for example <c>session_id</c>).</param>
    /// <param name="baseType">Value base type.</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The action column.</returns>
    internal XeColumn AddAction(
        XePackage package,
        string name,
        XeBaseType baseType,
        int? objectIndex = null,
        string? description = null
    ) => AddAction(package, name, GetStandardType(baseType), objectIndex, description);

    /// <summary>Adds an action of an explicit type.</summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Action name.</param>
    /// <param name="type">Value type (of this schema).</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The action column.</returns>
    internal XeColumn AddAction(
        XePackage package,
        string name,
        XeType type,
        int? objectIndex = null,
        string? description = null
    )
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(type);
        int idx = objectIndex ?? NextIndex(_actionList, a => a.Package, a => a.Index, package);
        var c = new XeColumn(
            XeColumnKind.Action,
            package,
            name,
            idx,
            type,
            null,
            PointerSize,
            description ?? string.Empty
        )
        {
            HeaderVersion = 0,
            GenericCaps = 1,
            ActionStorageSize = (uint)type.Size,
        };
        AddAction(c);
        return c;
    }

    /// <summary>
    /// Adds an event type. Fields are laid out in the given order: fixed-size values inline, variable-length values as
    /// an 8-byte offset/length slot.
    /// </summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Event name.</param>
    /// <param name="uuid">The event-type GUID.</param>
    /// <param name="fields">The fields.</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The event type.</returns>
    internal XeEventType AddEvent(
        XePackage package,
        string name,
        Guid uuid,
        IEnumerable<XeFieldDefinition> fields,
        int? objectIndex = null,
        string? description = null
    )
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(fields);
        var cols = new List<XeColumn>();
        int offset = 0;
        foreach (XeFieldDefinition f in fields)
        {
            XeType? type = f.Map is null ? (f.Type ?? GetStandardType(f.BaseType)) : null;
            if (f.Map is not null && !ReferenceEquals(GetMap(f.Map.Rid), f.Map))
            {
                throw new ArgumentException("Map '" + f.Map.Name + "' is not part of this schema.", nameof(fields));
            }

            if (type is not null && !ReferenceEquals(GetType(type.Rid), type))
            {
                throw new ArgumentException("Type '" + type.Name + "' is not part of this schema.", nameof(fields));
            }

            var c = new XeColumn(
                XeColumnKind.Field,
                package,
                f.Name,
                cols.Count,
                type,
                f.Map,
                PointerSize,
                string.Empty
            )
            {
                PayloadOffset = offset,
                FieldCaps = (ushort)((type?.IsVariableLength ?? false) ? 2 : 0),
            };
            offset = checked(offset + (c.IsVariableLength ? 8 : c.Size));
            cols.Add(c);
        }

        int idx = objectIndex ?? NextIndex(_eventList, e => e.Package, e => e.ObjectIndex, package);
        XeType guidType = GetStandardType(XeBaseType.GuidPointer);
        var et = new XeEventType(package, idx, name, uuid, [.. cols], description ?? string.Empty)
        {
            StaticAttributes = [new XeStaticAttributeValue("UUID", guidType.Rid, uuid, "Globally Unique ID")],
        };
        AddEvent(et);
        return et;
    }

    /// <summary>The first event type matching <paramref name="name"/> (<c>package.event</c> or <c>event</c>), or
    /// <see langword="null"/>.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The event type.</returns>
    public XeEventType? FindEventType(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        foreach (XeEventType e in _eventList)
        {
            if (e.Matches(name))
            {
                return e;
            }
        }

        return null;
    }

    /// <summary>The first action named <paramref name="name"/> (<c>package.action</c> or <c>action</c>), or
    /// <see langword="null"/>.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The action column.</returns>
    public XeColumn? FindAction(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        bool full = name.Contains('.', StringComparison.Ordinal);
        foreach (XeColumn a in _actionList)
        {
            if (string.Equals(full ? a.FullName : a.Name, name, StringComparison.Ordinal))
            {
                return a;
            }
        }

        return null;
    }

    /// <summary>The event type with RID <paramref name="rid"/>, or <see langword="null"/>.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>The event type.</returns>
    public XeEventType? GetEventType(uint rid) => _events.TryGetValue(rid, out XeEventType? e) ? e : null;

    /// <summary>The action with RID <paramref name="rid"/>, or <see langword="null"/>.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>The action column.</returns>
    public XeColumn? GetAction(uint rid) => _actions.TryGetValue(rid, out XeColumn? a) ? a : null;

    /// <summary>The map with RID <paramref name="rid"/>, or <see langword="null"/>.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>The map.</returns>
    public XeMap? GetMap(uint rid) => _maps.TryGetValue(rid, out XeMap? m) ? m : null;

    /// <summary>The type with RID <paramref name="rid"/>, or <see langword="null"/>.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>The type.</returns>
    public XeType? GetType(uint rid) => _types.TryGetValue(rid, out XeType? t) ? t : null;

    // ---------------------------------------------------------------- internal registration (reader and importers)

    internal bool TryAddPackage(XePackage p)
    {
        if (_packages.ContainsKey(p.Index))
        {
            return false;
        }

        _packages.Add(p.Index, p);
        return true;
    }

    internal bool AddType(XeType t)
    {
        if (!_types.TryAdd(t.Rid, t))
        {
            return false;
        }

        _typeList.Add(t);
        return true;
    }

    internal bool AddMap(XeMap m)
    {
        if (!_maps.TryAdd(m.Rid, m))
        {
            return false;
        }

        _mapList.Add(m);
        return true;
    }

    internal bool AddAction(XeColumn a)
    {
        if (!_actions.TryAdd(a.Rid, a))
        {
            return false;
        }

        _actionList.Add(a);
        return true;
    }

    internal bool AddEvent(XeEventType e)
    {
        if (!_events.TryAdd(e.Rid, e))
        {
            return false;
        }

        e.Schema ??= this;
        _eventList.Add(e);
        return true;
    }

    private void CheckPackage(XePackage package)
    {
        ArgumentNullException.ThrowIfNull(package);
        if (!_packages.TryGetValue(package.Index, out XePackage? p) || !ReferenceEquals(p, package))
        {
            throw new ArgumentException("Package '" + package.Name + "' is not part of this schema.", nameof(package));
        }
    }

    private static int NextIndex<T>(List<T> list, Func<T, XePackage> package, Func<T, int> index, XePackage p)
    {
        int next = 0;
        foreach (T item in list)
        {
            if (package(item).Index == p.Index)
            {
                next = Math.Max(next, index(item) + 1);
            }
        }

        return next;
    }

    private static Guid NameGuid(string name)
    {
        // A deterministic GUID from a name (not an RFC 4122 name-based UUID; only stability matters here). A managed,
        // non-cryptographic hash: a cryptographic one would make every XML input load OpenSSL on Linux.
        return new Guid(System.IO.Hashing.XxHash128.Hash(System.Text.Encoding.UTF8.GetBytes(name)));
    }
}

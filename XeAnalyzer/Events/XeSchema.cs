using System.Globalization;

namespace XeAnalyzer.Events;

/// <summary>How to declare one field of an event type built in code.</summary>
internal readonly record struct XeFieldDefinition
{
    private XeFieldDefinition(string name, XeBaseType baseType, XeType? type, XeMap? map)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        Name = name;
        BaseType = baseType;
        Type = type;
        Map = map;
    }

    /// <summary>The field name.</summary>
    public string Name { get; }

    /// <summary>The base type (a standard <c>package0</c> type is used), when neither <see cref="Type"/> nor <see cref="Map"/> is set.</summary>
    public XeBaseType BaseType { get; }

    /// <summary>An explicit type object.</summary>
    public XeType? Type { get; }

    /// <summary>The map of a map-valued field.</summary>
    public XeMap? Map { get; }

    /// <summary>A field of a standard base type.</summary>
    /// <param name="name">Field name.</param>
    /// <param name="baseType">Base type.</param>
    /// <returns>The definition.</returns>
    public static XeFieldDefinition Of(string name, XeBaseType baseType) => new(name, baseType, null, null);

    /// <summary>A field of an explicit type object.</summary>
    /// <param name="name">Field name.</param>
    /// <param name="type">The type (of the same schema).</param>
    /// <returns>The definition.</returns>
    public static XeFieldDefinition Of(string name, XeType type) => new(name, type?.BaseType ?? throw new ArgumentNullException(nameof(type)), type, null);

    /// <summary>A map-valued field (the payload holds the key).</summary>
    /// <param name="name">Field name.</param>
    /// <param name="map">The map (of the same schema).</param>
    /// <returns>The definition.</returns>
    public static XeFieldDefinition Of(string name, XeMap map) => new(name, map?.KeyBaseType ?? throw new ArgumentNullException(nameof(map)), null, map);
}

/// <summary>
/// The metadata of a capture: packages, event types, actions, maps and types, keyed by RID. Read-only to its users: the
/// reader builds one per <c>.xel</c> file from the file itself (no hard-coded schemas), and code that writes captures or
/// describes events from other sources builds one with <see cref="XeSchemaBuilder"/>. Objects keep the RIDs they were
/// given, so a builder can import objects of another schema and write them back with the same identities.
/// </summary>
/// <remarks>
/// A schema handed out by a reader only grows, by the readers themselves, when later metadata of the same capture
/// arrives (a rollover file's metadata, a map key met in target-data XML); nothing already in it changes. It can be read
/// from many threads once reading has finished.
/// </remarks>
public sealed class XeSchema
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
    internal XePackage Package0 => GetPackage(0) ?? AddPackage("package0", 0, description: "Default package. Contains all standard types, maps, compare operators, actions and targets");

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
    internal XePackage AddPackage(string name, int? index = null, Guid? id = null, Guid? moduleId = null, string? description = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        int i = index ?? (_packages.Count == 0 ? 0 : _packages.Keys.Max() + 1);
        if (i is < 0 or > XeRid.MaxPackageIndex)
        {
            throw new ArgumentOutOfRangeException(nameof(index), i, "A package index is 0..1023.");
        }

        if (_packages.ContainsKey(i))
        {
            throw new InvalidOperationException("Package index " + i.ToString(CultureInfo.InvariantCulture) + " is already used.");
        }

        var p = new XePackage(i, name, id ?? NameGuid("package:" + name), moduleId ?? NameGuid("module:" + name), description ?? string.Empty);
        _packages.Add(i, p);
        return p;
    }

    /// <summary>The standard <c>package0</c> type of <paramref name="baseType"/>, added on first use with its standard name and size.</summary>
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

        return AddType(p0, baseType, XeBaseTypes.GetStandardName(baseType), XeBaseTypes.GetStandardSize(baseType, PointerSize));
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
    internal XeMap AddMap(XePackage package, string name, IEnumerable<XeMapEntry> entries, bool isBitmask = false, int keySize = 4, int? objectIndex = null, string? description = null)
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(entries);
        if (keySize is not (1 or 2 or 4 or 8))
        {
            throw new ArgumentOutOfRangeException(nameof(keySize), keySize, "A map key size is 1, 2, 4 or 8.");
        }

        int idx = objectIndex ?? NextIndex(_mapList, m => m.Package, m => m.ObjectIndex, package);
        var m = new XeMap(package, idx, name, isBitmask, keySize, [.. entries], description ?? string.Empty) { HeaderVersion = 0, GenericCaps = 0 };
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
    internal XeColumn AddAction(XePackage package, string name, XeBaseType baseType, int? objectIndex = null, string? description = null) =>
        AddAction(package, name, GetStandardType(baseType), objectIndex, description);

    /// <summary>Adds an action of an explicit type.</summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Action name.</param>
    /// <param name="type">Value type (of this schema).</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The action column.</returns>
    internal XeColumn AddAction(XePackage package, string name, XeType type, int? objectIndex = null, string? description = null)
    {
        CheckPackage(package);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(type);
        int idx = objectIndex ?? NextIndex(_actionList, a => a.Package, a => a.Index, package);
        var c = new XeColumn(XeColumnKind.Action, package, name, idx, type, null, PointerSize, description ?? string.Empty)
        {
            HeaderVersion = 0,
            GenericCaps = 1,
            ActionStorageSize = (uint)type.Size,
        };
        AddAction(c);
        return c;
    }

    /// <summary>
    /// Adds an event type. Fields are laid out in the given order: fixed-size values inline, variable-length values as an
    /// 8-byte offset/length slot.
    /// </summary>
    /// <param name="package">Its package.</param>
    /// <param name="name">Event name.</param>
    /// <param name="uuid">The event-type GUID.</param>
    /// <param name="fields">The fields.</param>
    /// <param name="objectIndex">Object index; by default the next free one in the package.</param>
    /// <param name="description">Description.</param>
    /// <returns>The event type.</returns>
    internal XeEventType AddEvent(XePackage package, string name, Guid uuid, IEnumerable<XeFieldDefinition> fields, int? objectIndex = null, string? description = null)
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

            var c = new XeColumn(XeColumnKind.Field, package, f.Name, cols.Count, type, f.Map, PointerSize, string.Empty)
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

    /// <summary>
    /// Copies an event type of another schema (with its package, types and maps) into this one, keeping its RIDs.
    /// Objects already present with the same RID and name are reused.
    /// </summary>
    /// <param name="source">The event type to import.</param>
    /// <returns>This schema's event type.</returns>
    /// <exception cref="InvalidOperationException">A different object already uses one of the RIDs.</exception>
    internal XeEventType ImportEvent(XeEventType source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (_events.TryGetValue(source.Rid, out XeEventType? existing))
        {
            RequireSame(existing.FullName, source.FullName, source.Rid);
            if (existing.FieldArray.Length != source.FieldArray.Length)
            {
                throw new InvalidOperationException("Event " + source.FullName + " has a different field list than the one already in the schema.");
            }

            return existing;
        }

        XePackage p = ImportPackage(source.Package);
        var cols = new XeColumn[source.FieldArray.Length];
        for (int i = 0; i < cols.Length; i++)
        {
            XeColumn f = source.FieldArray[i];
            cols[i] = new XeColumn(XeColumnKind.Field, p, f.Name, i, f.Type is null ? null : ImportType(f.Type), f.Map is null ? null : ImportMap(f.Map), PointerSize, f.Description)
            {
                PayloadOffset = f.PayloadOffset,
                FieldCaps = f.FieldCaps,
            };
        }

        foreach (XeStaticAttributeValue a in source.StaticAttributes)
        {
            ImportTypeRid(source.Schema, a.TypeRid);
        }

        foreach (XeCustomizableAttributeValue a in source.CustomizableAttributes)
        {
            ImportTypeRid(source.Schema, a.TypeRid);
        }

        var et = new XeEventType(p, source.ObjectIndex, source.Name, source.Uuid, cols, source.Description)
        {
            StaticAttributes = source.StaticAttributes,
            CustomizableAttributes = source.CustomizableAttributes,
            HeaderVersion = source.HeaderVersion,
            GenericCaps = source.GenericCaps,
            SpecificCaps = source.SpecificCaps,
        };
        AddEvent(et);
        return et;
    }

    /// <summary>Copies an action of another schema (with its package and type) into this one, keeping its RID.</summary>
    /// <param name="source">The action to import.</param>
    /// <returns>This schema's action column.</returns>
    /// <exception cref="InvalidOperationException">A different object already uses the RID.</exception>
    internal XeColumn ImportAction(XeColumn source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (source.Kind != XeColumnKind.Action)
        {
            throw new ArgumentException("Column '" + source.Name + "' is not an action.", nameof(source));
        }

        if (_actions.TryGetValue(source.Rid, out XeColumn? existing))
        {
            RequireSame(existing.FullName, source.FullName, source.Rid);
            return existing;
        }

        XePackage p = ImportPackage(source.Package);
        var c = new XeColumn(XeColumnKind.Action, p, source.Name, source.Index, source.Type is null ? null : ImportType(source.Type), source.Map is null ? null : ImportMap(source.Map), PointerSize, source.Description)
        {
            HeaderVersion = source.HeaderVersion,
            GenericCaps = source.GenericCaps,
            SpecificCaps = source.SpecificCaps,
            ActionStorageSize = source.ActionStorageSize,
            ActionStorageFlags = source.ActionStorageFlags,
        };
        AddAction(c);
        return c;
    }

    /// <summary>Imports every package, type, map, action and event type of <paramref name="source"/> (keeping RIDs).</summary>
    /// <param name="source">The schema to copy.</param>
    internal void ImportAll(XeSchema source)
    {
        ArgumentNullException.ThrowIfNull(source);
        foreach (XePackage p in source.Packages)
        {
            ImportPackage(p);
        }

        foreach (XeType t in source.Types)
        {
            ImportType(t);
        }

        foreach (XeMap m in source.Maps)
        {
            ImportMap(m);
        }

        foreach (XeColumn a in source.Actions)
        {
            ImportAction(a);
        }

        foreach (XeEventType e in source.EventTypes)
        {
            ImportEvent(e);
        }
    }

    /// <summary>The first event type matching <paramref name="name"/> (<c>package.event</c> or <c>event</c>), or <see langword="null"/>.</summary>
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

    /// <summary>The first action named <paramref name="name"/> (<c>package.action</c> or <c>action</c>), or <see langword="null"/>.</summary>
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

    private XePackage ImportPackage(XePackage source)
    {
        if (_packages.TryGetValue(source.Index, out XePackage? existing))
        {
            RequireSame(existing.Name, source.Name, source.Rid);
            return existing;
        }

        var p = new XePackage(source.Index, source.Name, source.Id, source.ModuleId, source.Description)
        {
            HeaderVersion = source.HeaderVersion,
            GenericCaps = source.GenericCaps,
            SpecificCaps = source.SpecificCaps,
            MinContextVersion = source.MinContextVersion,
            CollectionTable = source.CollectionTable,
        };
        _packages.Add(p.Index, p);
        return p;
    }

    private XeType ImportType(XeType source)
    {
        if (_types.TryGetValue(source.Rid, out XeType? existing))
        {
            RequireSame(existing.Name, source.Name, source.Rid);
            return existing;
        }

        var t = new XeType(ImportPackage(source.Package), source.Name, source.BaseType, source.Size, source.Description)
        {
            HeaderVersion = source.HeaderVersion,
            GenericCaps = source.GenericCaps,
            SpecificCaps = source.SpecificCaps,
        };
        AddType(t);
        if (t.Package.Index == 0 && t.BaseType == XeBaseType.Pointer && t.Size is 4 or 8)
        {
            PointerSize = t.Size;
        }

        return t;
    }

    private XeMap ImportMap(XeMap source)
    {
        if (_maps.TryGetValue(source.Rid, out XeMap? existing))
        {
            RequireSame(existing.Name, source.Name, source.Rid);
            return existing;
        }

        var m = new XeMap(ImportPackage(source.Package), source.ObjectIndex, source.Name, source.IsBitmask, source.KeySize, [.. source.Entries], source.Description)
        {
            HeaderVersion = source.HeaderVersion,
            GenericCaps = source.GenericCaps,
        };
        AddMap(m);
        return m;
    }

    private void ImportTypeRid(XeSchema? source, uint rid)
    {
        // Attribute types (guid_ptr, etw_channel, keyword_map…) travel with the event when the source schema has them.
        if (source is null)
        {
            return;
        }

        if (XeRid.ObjectType(rid) == XeRid.TypeType && source.GetType(rid) is XeType t)
        {
            ImportType(t);
        }
        else if (XeRid.ObjectType(rid) == XeRid.TypeMap && source.GetMap(rid) is XeMap m)
        {
            ImportMap(m);
        }
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

    private static void RequireSame(string existing, string incoming, uint rid)
    {
        if (!string.Equals(existing, incoming, StringComparison.Ordinal))
        {
            throw new InvalidOperationException("RID 0x" + rid.ToString("X8", CultureInfo.InvariantCulture) + " is '" + existing + "' in this schema but '" + incoming + "' in the source.");
        }
    }

    private static Guid NameGuid(string name)
    {
        // A deterministic GUID from a name (not an RFC 4122 name-based UUID; only stability matters here). A managed,
        // non-cryptographic hash: a cryptographic one would make every XML input load OpenSSL on Linux.
        return new Guid(System.IO.Hashing.XxHash128.Hash(System.Text.Encoding.UTF8.GetBytes(name)));
    }
}

namespace XeAnalyzer.Events;

/// <summary>Whether a column is an event field (payload data) or an action (data added by the session).</summary>
public enum XeColumnKind
{
    /// <summary>An event field (a data attribute of the event type).</summary>
    Field,

    /// <summary>An action (for example <c>package0.callstack</c> or <c>sqlserver.session_id</c>).</summary>
    Action,
}

/// <summary>
/// The description of one value of an event: a field of an event type, or an action. It knows the value's type, its map
/// (for map-valued columns) and the capture's pointer size, so an <see cref="XeValue"/> can decode itself.
/// </summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XeColumn
{
    internal XeColumn(
        XeColumnKind kind,
        XePackage package,
        string name,
        int index,
        XeType? type,
        XeMap? map,
        int pointerSize,
        string description
    )
    {
        if (type is null && map is null)
        {
            throw new ArgumentException("A column needs a type or a map.", nameof(type));
        }

        Kind = kind;
        Package = package;
        Name = name;
        Index = index;
        Type = type;
        Map = map;
        PointerSize = pointerSize;
        Description = description;
        BaseType = map is not null ? map.KeyBaseType : type!.BaseType;
        Size = map is not null ? map.KeySize : type!.Size;
    }

    /// <summary>Field or action.</summary>
    public XeColumnKind Kind { get; }

    /// <summary>The package: the event's package for a field, the action's own package for an action.</summary>
    public XePackage Package { get; }

    /// <summary>The short name (for example <c>wait_type</c> or <c>callstack</c>), the key XELite uses.</summary>
    public string Name { get; }

    /// <summary><c>package.name</c> for an action; the short name for a field.</summary>
    public string FullName => Kind == XeColumnKind.Action ? Package.Name + "." + Name : Name;

    /// <summary>For a field: its position in the event type's field list. For an action: its object index within its
    /// package.</summary>
    public int Index { get; }

    /// <summary>The value type, or <see langword="null"/> for a map-valued column.</summary>
    public XeType? Type { get; }

    /// <summary>The map, for a map-valued column (the stored value is the key).</summary>
    public XeMap? Map { get; }

    /// <summary>Whether values are map keys.</summary>
    public bool IsMap => Map is not null;

    /// <summary>The base type of the stored value (for a map: the unsigned integer type of the key size).</summary>
    public XeBaseType BaseType { get; }

    /// <summary>Stored size in bytes, or 0 for variable-length values.</summary>
    public int Size { get; }

    /// <summary>Whether the stored value is variable-length.</summary>
    public bool IsVariableLength => Size == 0;

    /// <summary>Pointer size (4 or 8) of the capture, used for pointers and callstack frames.</summary>
    public int PointerSize { get; }

    /// <summary>The type name as <c>info</c> shows it: the map name for a map column, else the type name.</summary>
    public string TypeName => Map is not null ? Map.Name : Type!.Name;

    /// <summary>The description from the metadata.</summary>
    public string Description { get; }

    /// <summary>For an action: its RID (object type 1). For a field: the RID of its type or map.</summary>
    public uint Rid => Kind == XeColumnKind.Action ? XeRid.Make(Package.Index, Index, XeRid.TypeAction) : TypeRid;

    /// <summary>The RID of the column's type or map, as the metadata references it.</summary>
    public uint TypeRid => Map is not null ? Map.Rid : Type!.Rid;

    /// <summary>For a field: the byte offset of its value (or of its offset/length slot) in the event
    /// payload.</summary>
    internal int PayloadOffset { get; init; }

    /// <summary>For a field: the field's capability bits as read.</summary>
    internal ushort FieldCaps { get; init; }

    /// <summary>For an action: storage size and flags as read.</summary>
    internal uint ActionStorageSize { get; init; }

    internal int ActionStorageFlags { get; init; }

    internal ushort HeaderVersion { get; init; }

    internal byte GenericCaps { get; init; }

    internal byte SpecificCaps { get; init; }

    /// <inheritdoc/>
    public override string ToString() => FullName + " : " + TypeName;
}

namespace XeAnalyzer.Events;

/// <summary>
/// Builds an <see cref="XeSchema"/>: packages, types, maps, actions and event types added one by one (or imported from
/// another schema with their RIDs), then <see cref="Build"/> hands out the finished, read-only schema. Used to write
/// captures (<see cref="Xel.XelWriter"/>) and to describe events converted from other sources.
/// </summary>
/// <remarks>Not thread-safe. After <see cref="Build"/> the builder refuses further changes.</remarks>
internal sealed class XeSchemaBuilder
{
    private readonly XeSchema _schema;
    private bool _built;

    /// <summary>Starts an empty schema.</summary>
    /// <param name="pointerSize">Pointer size of the captured process: 8 (x64) or 4.</param>
    /// <exception cref="ArgumentOutOfRangeException">The pointer size is neither 4 nor 8.</exception>
    public XeSchemaBuilder(int pointerSize = 8)
    {
        _schema = new XeSchema(pointerSize);
    }

    /// <summary>Pointer size (4 or 8) of the schema being built.</summary>
    public int PointerSize => _schema.PointerSize;

    /// <summary>Package 0 (<c>package0</c>), created on first use.</summary>
    public XePackage Package0 => Open().Package0;

    /// <summary>The event types added so far, in the order they were added.</summary>
    public IReadOnlyList<XeEventType> EventTypes => _schema.EventTypes;

    /// <summary>The actions added so far, in the order they were added.</summary>
    public IReadOnlyList<XeColumn> Actions => _schema.Actions;

    /// <summary>Adds a package.</summary>
    /// <param name="name">Package name (need not be unique).</param>
    /// <param name="index">Package index; by default the next free one.</param>
    /// <param name="id">Package GUID; by default derived from the name.</param>
    /// <param name="moduleId">Module GUID; by default derived from the name.</param>
    /// <param name="description">Description.</param>
    /// <returns>The package.</returns>
    /// <exception cref="InvalidOperationException">The index is already used, or the schema was built.</exception>
    public XePackage AddPackage(
        string name,
        int? index = null,
        Guid? id = null,
        Guid? moduleId = null,
        string? description = null
    ) => Open().AddPackage(name, index, id, moduleId, description);

    /// <summary>The standard <c>package0</c> type of <paramref name="baseType"/>, added on first use with its standard
    /// name and size.</summary>
    /// <param name="baseType">The base type.</param>
    /// <returns>The type.</returns>
    public XeType GetStandardType(XeBaseType baseType) => Open().GetStandardType(baseType);

    /// <summary>Adds a type object.</summary>
    /// <param name="package">Owning package.</param>
    /// <param name="baseType">Base type of its values.</param>
    /// <param name="name">Type name.</param>
    /// <param name="size">Size in bytes (0: variable length).</param>
    /// <param name="description">Description.</param>
    /// <returns>The type.</returns>
    public XeType AddType(XePackage package, XeBaseType baseType, string name, int size, string? description = null) =>
        Open().AddType(package, baseType, name, size, description);

    /// <summary>Adds a map.</summary>
    /// <param name="package">Owning package.</param>
    /// <param name="name">Map name.</param>
    /// <param name="entries">Keys and their text.</param>
    /// <param name="isBitmask">Whether values are bit masks of the keys.</param>
    /// <param name="keySize">Key size in bytes (4 or 8).</param>
    /// <param name="objectIndex">Object index within the package; by default the next free one.</param>
    /// <param name="description">Description.</param>
    /// <returns>The map.</returns>
    public XeMap AddMap(
        XePackage package,
        string name,
        IEnumerable<XeMapEntry> entries,
        bool isBitmask = false,
        int keySize = 4,
        int? objectIndex = null,
        string? description = null
    ) => Open().AddMap(package, name, entries, isBitmask, keySize, objectIndex, description);

    /// <summary>Adds an action of a standard base type.</summary>
    /// <param name="package">Owning package.</param>
    /// <param name="name">Action name.</param>
    /// <param name="baseType">Base type of its values.</param>
    /// <param name="objectIndex">Object index within the package; by default the next free one.</param>
    /// <param name="description">Description.</param>
    /// <returns>The action.</returns>
    public XeColumn AddAction(
        XePackage package,
        string name,
        XeBaseType baseType,
        int? objectIndex = null,
        string? description = null
    ) => Open().AddAction(package, name, baseType, objectIndex, description);

    /// <summary>Adds an action of an explicit type.</summary>
    /// <param name="package">Owning package.</param>
    /// <param name="name">Action name.</param>
    /// <param name="type">Type of its values.</param>
    /// <param name="objectIndex">Object index within the package; by default the next free one.</param>
    /// <param name="description">Description.</param>
    /// <returns>The action.</returns>
    public XeColumn AddAction(
        XePackage package,
        string name,
        XeType type,
        int? objectIndex = null,
        string? description = null
    ) => Open().AddAction(package, name, type, objectIndex, description);

    /// <summary>
    /// Adds an event type. Fields are laid out in the given order: fixed-size values inline, variable-length values as
    /// an 8-byte offset/length slot.
    /// </summary>
    /// <param name="package">Owning package.</param>
    /// <param name="name">Event name.</param>
    /// <param name="uuid">Event GUID.</param>
    /// <param name="fields">Field definitions, in payload order.</param>
    /// <param name="objectIndex">Object index within the package; by default the next free one.</param>
    /// <param name="description">Description.</param>
    /// <returns>The event type.</returns>
    public XeEventType AddEvent(
        XePackage package,
        string name,
        Guid uuid,
        IEnumerable<XeFieldDefinition> fields,
        int? objectIndex = null,
        string? description = null
    ) => Open().AddEvent(package, name, uuid, fields, objectIndex, description);

    /// <summary>Copies an event type of another schema (with its package, types and maps), keeping its RIDs.</summary>
    /// <param name="source">The event type.</param>
    /// <returns>The copy in this schema.</returns>
    /// <exception cref="InvalidOperationException">A different object already uses one of the RIDs.</exception>
    public XeEventType ImportEvent(XeEventType source) => Open().ImportEvent(source);

    /// <summary>Copies an action of another schema (with its package and type), keeping its RID.</summary>
    /// <param name="source">The action.</param>
    /// <returns>The copy in this schema.</returns>
    /// <exception cref="InvalidOperationException">A different object already uses the RID.</exception>
    public XeColumn ImportAction(XeColumn source) => Open().ImportAction(source);

    /// <summary>Copies every package, type, map, action and event type of <paramref name="source"/>, keeping
    /// RIDs.</summary>
    /// <param name="source">The schema to copy.</param>
    public void ImportAll(XeSchema source) => Open().ImportAll(source);

    /// <summary>The finished schema. The builder refuses changes afterwards.</summary>
    /// <returns>The schema.</returns>
    public XeSchema Build()
    {
        _built = true;
        return _schema;
    }

    private XeSchema Open() =>
        _built
            ? throw new InvalidOperationException("The schema was built; start a new XeSchemaBuilder to change it.")
            : _schema;
}

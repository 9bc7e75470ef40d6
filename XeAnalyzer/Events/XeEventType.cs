namespace XeAnalyzer.Events;

/// <summary>A static attribute of an event type (UUID, VERSION, CHANNEL, KEYWORD…).</summary>
/// <param name="Name">Attribute name.</param>
/// <param name="TypeRid">RID of the attribute's type or map.</param>
/// <param name="Value">The value: a <see cref="System.Guid"/>, a <see cref="string"/> or a <see cref="ulong"/>.</param>
/// <param name="Description">Attribute description.</param>
internal sealed record XeStaticAttributeValue(string Name, uint TypeRid, object Value, string Description);

/// <summary>A customizable attribute of an event type (for example <c>collect_statement</c>).</summary>
/// <param name="Name">Attribute name.</param>
/// <param name="TypeRid">RID of the attribute's type or map.</param>
/// <param name="Value">The value set by the session: a <see cref="System.Guid"/>, a <see cref="string"/> or a
/// <see cref="ulong"/>.</param>
/// <param name="DefaultValue">The default value.</param>
/// <param name="Aggregation">Aggregation kind as stored.</param>
/// <param name="Capabilities">Capability bits as stored.</param>
/// <param name="Description">Attribute description.</param>
internal sealed record XeCustomizableAttributeValue(
    string Name,
    uint TypeRid,
    object Value,
    ulong DefaultValue,
    int Aggregation,
    int Capabilities,
    string Description
);

/// <summary>
/// An event type of a capture's metadata (for example <c>sqlos.wait_info</c>): its identity, UUID and ordered fields.
/// Resolve field indices once per event type with <see cref="GetFieldIndex"/>, then read values by index.
/// </summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XeEventType
{
    private readonly XeColumn[] _fields;
    private readonly Dictionary<string, int> _fieldIndex;

    internal XeEventType(
        XePackage package,
        int objectIndex,
        string name,
        Guid uuid,
        XeColumn[] fields,
        string description
    )
    {
        Package = package;
        ObjectIndex = objectIndex;
        Name = name;
        Uuid = uuid;
        Description = description;
        FullName = package.Name + "." + name;
        _fields = fields;
        _fieldIndex = new Dictionary<string, int>(fields.Length, StringComparer.Ordinal);
        for (int i = 0; i < fields.Length; i++)
        {
            _fieldIndex.TryAdd(fields[i].Name, i);
        }

        int minPayload = 0;
        foreach (XeColumn f in fields)
        {
            int end = checked(f.PayloadOffset + (f.IsVariableLength ? 8 : f.Size));
            minPayload = Math.Max(minPayload, end);
        }

        MinPayloadLength = minPayload;
    }

    /// <summary>The package that defines the event.</summary>
    public XePackage Package { get; }

    /// <summary>The event's object index within its package.</summary>
    public int ObjectIndex { get; }

    /// <summary>The event name, for example <c>wait_info</c>.</summary>
    public string Name { get; }

    /// <summary><c>package.event</c>, for example <c>sqlos.wait_info</c>.</summary>
    public string FullName { get; }

    /// <summary>The event-type GUID (the first static attribute); XELite's <c>UUID</c>. It is not a per-event
    /// id.</summary>
    public Guid Uuid { get; }

    /// <summary>The description from the metadata.</summary>
    public string Description { get; }

    /// <summary>The fields in payload order.</summary>
    public IReadOnlyList<XeColumn> Fields => _fields;

    /// <summary>The event's RID (object type 0).</summary>
    public uint Rid => XeRid.Make(Package.Index, ObjectIndex, XeRid.TypeEvent);

    /// <summary>Static attributes as read (empty for event types built in code, except the UUID the writer
    /// adds).</summary>
    internal IReadOnlyList<XeStaticAttributeValue> StaticAttributes { get; init; } = [];

    /// <summary>Customizable attributes as read.</summary>
    internal IReadOnlyList<XeCustomizableAttributeValue> CustomizableAttributes { get; init; } = [];

    /// <summary>Whether any field is a callstack.</summary>
    public bool HasCallstackField => Array.Exists(_fields, f => f.BaseType == XeBaseType.Callstack);

    /// <summary>The smallest payload length that holds every field (or its offset/length slot).</summary>
    internal int MinPayloadLength { get; }

    internal XeColumn[] FieldArray => _fields;

    internal ushort HeaderVersion { get; init; } = 10;

    /// <summary>The schema the event type was first added to (used to import the types of its attributes).</summary>
    internal XeSchema? Schema { get; set; }

    internal byte GenericCaps { get; init; }

    internal byte SpecificCaps { get; init; }

    /// <summary>The index of the field named <paramref name="name"/>, or -1.</summary>
    /// <param name="name">Short field name (ordinal comparison).</param>
    /// <returns>The index, or -1 when the event type has no such field.</returns>
    public int GetFieldIndex(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return _fieldIndex.TryGetValue(name, out int i) ? i : -1;
    }

    /// <summary>Whether <paramref name="name"/> names this event type: <c>package.event</c> or just <c>event</c>
    /// (ordinal, case-sensitive).</summary>
    /// <param name="name">The name to test.</param>
    /// <returns>Whether it matches.</returns>
    public bool Matches(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return name.Contains('.', StringComparison.Ordinal)
            ? string.Equals(name, FullName, StringComparison.Ordinal)
            : string.Equals(name, Name, StringComparison.Ordinal);
    }

    /// <inheritdoc/>
    public override string ToString() => FullName;
}

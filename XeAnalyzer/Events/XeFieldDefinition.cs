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

    /// <summary>The base type (a standard <c>package0</c> type is used), when neither <see cref="Type"/> nor
    /// <see cref="Map"/> is set.</summary>
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
    public static XeFieldDefinition Of(string name, XeType type) =>
        new(name, type?.BaseType ?? throw new ArgumentNullException(nameof(type)), type, null);

    /// <summary>A map-valued field (the payload holds the key).</summary>
    /// <param name="name">Field name.</param>
    /// <param name="map">The map (of the same schema).</param>
    /// <returns>The definition.</returns>
    public static XeFieldDefinition Of(string name, XeMap map) =>
        new(name, map?.KeyBaseType ?? throw new ArgumentNullException(nameof(map)), null, map);
}

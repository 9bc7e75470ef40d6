namespace XeAnalyzer.Events;

/// <summary>A type object of a capture's metadata (for example <c>package0.uint64</c>): a base type with a
/// size.</summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XeType
{
    internal XeType(XePackage package, string name, XeBaseType baseType, int size, string description)
    {
        Package = package;
        Name = name;
        BaseType = baseType;
        Size = size;
        Description = description;
    }

    /// <summary>The package that defines the type (normally <c>package0</c>).</summary>
    public XePackage Package { get; }

    /// <summary>The type name, for example <c>uint64</c>.</summary>
    public string Name { get; }

    /// <summary>The base type (the object index of the type's RID).</summary>
    public XeBaseType BaseType { get; }

    /// <summary>Size in bytes of a value, or 0 for variable-length types.</summary>
    public int Size { get; }

    /// <summary>Whether values are variable-length (an 8-byte offset/length slot in event payloads).</summary>
    public bool IsVariableLength => Size == 0;

    /// <summary>The description from the metadata.</summary>
    public string Description { get; }

    /// <summary>The type's RID (object type 6).</summary>
    public uint Rid => XeRid.Make(Package.Index, (int)BaseType, XeRid.TypeType);

    internal ushort HeaderVersion { get; init; }

    internal byte GenericCaps { get; init; }

    internal byte SpecificCaps { get; init; }

    /// <inheritdoc/>
    public override string ToString() => Name;
}

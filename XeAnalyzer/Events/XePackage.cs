namespace XeAnalyzer.Events;

/// <summary>
/// An Extended Events package (<c>package0</c>, <c>sqlserver</c>, <c>sqlos</c>…) as a capture's metadata describes it.
/// Package names are not unique within a capture (sqlhealth.xel has <c>sqlserver</c> twice, from different modules):
/// a package is identified by its <see cref="Index"/>, the low 10 bits of every RID it owns.
/// </summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XePackage
{
    internal XePackage(int index, string name, Guid id, Guid moduleId, string description)
    {
        Index = index;
        Name = name;
        Id = id;
        ModuleId = moduleId;
        Description = description;
    }

    /// <summary>The package index (0..1023): the low 10 bits of the RIDs of this package's objects.</summary>
    public int Index { get; }

    /// <summary>The package name, for example <c>sqlserver</c>.</summary>
    public string Name { get; }

    /// <summary>The package GUID.</summary>
    public Guid Id { get; }

    /// <summary>The GUID of the module (DLL) that registered the package.</summary>
    public Guid ModuleId { get; }

    /// <summary>The package description from the metadata.</summary>
    public string Description { get; }

    /// <summary>The package's own RID (object type 8).</summary>
    public uint Rid => XeRid.Make(Index, 0, XeRid.TypePackage);

    internal ushort HeaderVersion { get; init; } = 10;

    internal byte GenericCaps { get; init; }

    internal byte SpecificCaps { get; init; }

    internal ushort MinContextVersion { get; init; }

    /// <summary>The collection table as read (kind, version, object size, count), kept so a re-written file matches the
    /// original.</summary>
    internal (int Kind, ushort Version, ushort ObjectSize, uint Count)[]? CollectionTable { get; init; }

    /// <inheritdoc/>
    public override string ToString() =>
        Name + " (package " + Index.ToString(System.Globalization.CultureInfo.InvariantCulture) + ")";
}

/// <summary>Helpers for Extended Events RIDs: bits 0–9 package index, 10–27 object index, 28–31 object type.</summary>
internal static class XeRid
{
    /// <summary>Object type of an event RID.</summary>
    public const int TypeEvent = 0;

    /// <summary>Object type of an action RID.</summary>
    public const int TypeAction = 1;

    /// <summary>Object type of a map RID.</summary>
    public const int TypeMap = 3;

    /// <summary>Object type of a type RID (the object index is the base type).</summary>
    public const int TypeType = 6;

    /// <summary>Object type of a package's own RID.</summary>
    public const int TypePackage = 8;

    /// <summary>The largest object index a RID can hold.</summary>
    public const int MaxObjectIndex = (1 << 18) - 1;

    /// <summary>The largest package index a RID can hold.</summary>
    public const int MaxPackageIndex = (1 << 10) - 1;

    /// <summary>Builds a RID.</summary>
    /// <param name="packageIndex">Package index (0..1023).</param>
    /// <param name="objectIndex">Object index (0..262143).</param>
    /// <param name="objectType">Object type (0..15).</param>
    /// <returns>The RID.</returns>
    public static uint Make(int packageIndex, int objectIndex, int objectType)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(packageIndex);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(packageIndex, MaxPackageIndex);
        ArgumentOutOfRangeException.ThrowIfNegative(objectIndex);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(objectIndex, MaxObjectIndex);
        ArgumentOutOfRangeException.ThrowIfNegative(objectType);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(objectType, 15);
        return (uint)packageIndex | ((uint)objectIndex << 10) | ((uint)objectType << 28);
    }

    /// <summary>The package index of a RID.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>Bits 0–9.</returns>
    public static int PackageIndex(uint rid) => (int)(rid & 0x3FF);

    /// <summary>The object index of a RID.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>Bits 10–27.</returns>
    public static int ObjectIndex(uint rid) => (int)((rid >> 10) & 0x3FFFF);

    /// <summary>The object type of a RID.</summary>
    /// <param name="rid">The RID.</param>
    /// <returns>Bits 28–31.</returns>
    public static int ObjectType(uint rid) => (int)(rid >> 28);
}

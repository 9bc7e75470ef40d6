using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>Clock of a package: event time = <see cref="StartFileTime"/> + ticks × 10^7 / <see cref="Frequency"/> (0
/// means 10^7).</summary>
internal readonly record struct XelPackageClock(long StartFileTime, ulong Frequency);

/// <summary>Parses metadata buffers into an <see cref="XeSchema"/>, merging packages by index.</summary>
internal static class XelMetadataReader
{
    private const int CollectionEvents = 0;
    private const int CollectionActions = 1;
    private const int CollectionMaps = 3;
    private const int CollectionTypes = 6;
    private const int MaxCollections = 64;

    private sealed record RawField(uint Rid, string Name, ushort Offset, ushort Caps, string Description);

    private sealed record RawEvent(
        XePackage Package,
        ObjectHeader Header,
        XeStaticAttributeValue[] Statics,
        XeCustomizableAttributeValue[] Customs,
        RawField[] Fields,
        long Offset
    );

    private sealed record RawAction(
        XePackage Package,
        ObjectHeader Header,
        uint TypeRid,
        uint StorageSize,
        int StorageFlags,
        long Offset
    );

    private readonly record struct ObjectHeader(
        ushort Version,
        byte GenericCaps,
        byte SpecificCaps,
        uint Rid,
        string Name,
        string Description
    );

    /// <summary>Parses one metadata buffer's data.</summary>
    /// <param name="data">The data region of the buffer.</param>
    /// <param name="baseOffset">File offset of <paramref name="data"/>.</param>
    /// <param name="file">File name for messages.</param>
    /// <param name="schema">The file's schema, extended in place.</param>
    /// <param name="clocks">Package clocks by package index, extended in place.</param>
    /// <param name="limits">Caps.</param>
    /// <param name="strict">Whether unresolvable event types throw (else they are returned as broken).</param>
    /// <param name="broken">Receives the RIDs of event types that cannot be decoded, with the reason.</param>
    public static void Parse(
        ReadOnlySpan<byte> data,
        long baseOffset,
        string file,
        XeSchema schema,
        Dictionary<int, XelPackageClock> clocks,
        XeReaderLimits limits,
        bool strict,
        Dictionary<uint, string> broken
    )
    {
        var events = new List<RawEvent>();
        var actions = new List<RawAction>();
        int pos = 0;
        while (pos < data.Length)
        {
            var head = new SpanReader(data[pos..], baseOffset + pos, file, FormatKind.Xel);
            head.ReadUInt16("package version");
            uint size = head.ReadUInt32("package size");
            if (size < 64 || size > (uint)(data.Length - pos))
            {
                throw new InvalidXelDataException(
                    file,
                    baseOffset + pos + 2,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a package size between 64 and the {data.Length - pos} bytes left in the metadata "
                            + $"buffer, found {size}"
                    )
                );
            }

            var r = new SpanReader(data.Slice(pos, (int)size), baseOffset + pos, file, FormatKind.Xel);
            ParsePackage(ref r, schema, clocks, limits, events, actions);
            pos += (int)size;
        }

        // Pointer size: the size of type 13 (ptr) in package 0.
        if (schema.GetType(XeRid.Make(0, (int)XeBaseType.Pointer, XeRid.TypeType)) is XeType ptr)
        {
            if (ptr.Size is not (4 or 8))
            {
                throw new InvalidXelDataException(
                    file,
                    baseOffset,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected the ptr type of package 0 to be 4 or 8 bytes, found {ptr.Size}"
                    )
                );
            }

            schema.PointerSize = ptr.Size;
        }

        foreach (RawAction a in actions)
        {
            string? problem = ResolveAction(a, schema);
            if (problem is not null)
            {
                if (strict)
                {
                    throw new InvalidXelDataException(file, a.Offset, problem);
                }

                broken.TryAdd(a.Header.Rid, problem);
            }
        }

        foreach (RawEvent e in events)
        {
            string? problem = ResolveEvent(e, schema);
            if (problem is not null)
            {
                if (strict)
                {
                    throw new InvalidXelDataException(file, e.Offset, problem);
                }

                broken.TryAdd(e.Header.Rid, problem);
            }
        }
    }

    private static void ParsePackage(
        ref SpanReader r,
        XeSchema schema,
        Dictionary<int, XelPackageClock> clocks,
        XeReaderLimits limits,
        List<RawEvent> events,
        List<RawAction> actions
    )
    {
        r.Skip(6, "package version and size");
        r.ReadGuid("package signature");
        r.ReadUInt16("package generation");
        r.ReadUInt16("ticks configuration version");
        r.Skip(6, "padding");
        long start = r.ReadInt64("package start time (FILETIME)");
        ulong frequency = r.ReadUInt64("package tick frequency");
        long headerAt = r.FileOffset;
        ObjectHeader h = ReadHeader(ref r, "package");
        if (XeRid.ObjectType(h.Rid) != XeRid.TypePackage)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a package RID (object type 8) at offset {headerAt}, found 0x{h.Rid:X8}"
                )
            );
        }

        if (start < 0 || start > DateTime.MaxValue.ToFileTimeUtc())
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a package start time that is a valid FILETIME, found {start}"
                )
            );
        }

        int index = XeRid.PackageIndex(h.Rid);
        Guid id = r.ReadGuid("package id");
        Guid module = r.ReadGuid("module id");
        ushort minContext = r.ReadUInt16("minimum context version");
        uint collectionCount = r.ReadUInt32("collection count");
        if (collectionCount > MaxCollections)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {MaxCollections} collections in a package, found {collectionCount}"
                )
            );
        }

        var table = new (int Kind, ushort Version, ushort ObjectSize, uint Count)[collectionCount];
        for (int i = 0; i < table.Length; i++)
        {
            table[i] = (
                r.ReadInt32("collection kind"),
                r.ReadUInt16("collection version"),
                r.ReadUInt16("collection object size"),
                r.ReadUInt32("collection count")
            );
        }

        var package = new XePackage(index, h.Name, id, module, h.Description)
        {
            HeaderVersion = h.Version,
            GenericCaps = h.GenericCaps,
            SpecificCaps = h.SpecificCaps,
            MinContextVersion = minContext,
            CollectionTable = table,
        };
        if (!schema.TryAddPackage(package))
        {
            XePackage existing = schema.GetPackage(index)!;
            if (!string.Equals(existing.Name, package.Name, StringComparison.Ordinal))
            {
                throw r.Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"package index {index} to be '{existing.Name}' as defined earlier, found '{package.Name}'"
                    )
                );
            }

            package = existing;
        }

        clocks.TryAdd(index, new XelPackageClock(start, frequency));

        foreach (int kind in (ReadOnlySpan<int>)[CollectionEvents, CollectionActions, CollectionMaps, CollectionTypes])
        {
            uint count = r.ReadUInt32("object count");
            if (count > (uint)limits.MaxMetadataObjects)
            {
                throw r.Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"at most {limits.MaxMetadataObjects} objects in a collection "
                            + $"(XeReaderLimits.MaxMetadataObjects), found {count}"
                    )
                );
            }

            for (uint i = 0; i < count; i++)
            {
                long at = r.FileOffset;
                switch (kind)
                {
                    case CollectionEvents:
                        events.Add(ReadEvent(ref r, package, limits, at));
                        break;
                    case CollectionActions:
                        ObjectHeader ah = ReadHeader(ref r, "action");
                        CheckRid(ref r, ah, XeRid.TypeAction, index, "action");
                        actions.Add(
                            new RawAction(
                                package,
                                ah,
                                r.ReadUInt32("action type RID"),
                                r.ReadUInt32("action storage size"),
                                r.ReadInt32("action storage flags"),
                                at
                            )
                        );
                        break;
                    case CollectionMaps:
                        ReadMap(ref r, package, schema, limits);
                        break;
                    default:
                        ObjectHeader th = ReadHeader(ref r, "type");
                        CheckRid(ref r, th, XeRid.TypeType, index, "type");
                        byte size = r.ReadByte("type size");
                        CheckTypeSize(ref r, th, size);
                        schema.AddType(
                            new XeType(package, th.Name, (XeBaseType)XeRid.ObjectIndex(th.Rid), size, th.Description)
                            {
                                HeaderVersion = th.Version,
                                GenericCaps = th.GenericCaps,
                                SpecificCaps = th.SpecificCaps,
                            }
                        );
                        break;
                }
            }
        }
    }

    private static void CheckTypeSize(ref SpanReader r, ObjectHeader h, byte size)
    {
        var bt = (XeBaseType)XeRid.ObjectIndex(h.Rid);
        bool ok = bt switch
        {
            XeBaseType.Pointer or XeBaseType.GuidPointer => size is 4 or 8,
            XeBaseType.Callstack => size == 0,
            _ => XeBaseTypes.GetStandardSize(bt) is int std && (std == 0 || size == std),
        };
        if (!ok)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"type '{h.Name}' (base type {(int)bt}) to have its standard size, found {size} bytes"
                )
            );
        }
    }

    private static ObjectHeader ReadHeader(ref SpanReader r, string what)
    {
        ushort version = r.ReadUInt16(what + " header version");
        byte generic = r.ReadByte(what + " capabilities");
        byte specific = r.ReadByte(what + " capabilities");
        uint rid = r.ReadUInt32(what + " RID");
        string name = r.ReadUtf16Z(what + " name");
        string description = r.ReadUtf16Z(what + " description");
        return new ObjectHeader(version, generic, specific, rid, name, description);
    }

    private static void CheckRid(ref SpanReader r, ObjectHeader h, int type, int packageIndex, string what)
    {
        if (XeRid.ObjectType(h.Rid) != type || XeRid.PackageIndex(h.Rid) != packageIndex)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{what} '{h.Name}' with a RID of object type {type} in package {packageIndex}, found 0x{h.Rid:X8}"
                )
            );
        }
    }

    private static RawEvent ReadEvent(ref SpanReader r, XePackage package, XeReaderLimits limits, long at)
    {
        ObjectHeader h = ReadHeader(ref r, "event");
        CheckRid(ref r, h, XeRid.TypeEvent, package.Index, "event");
        ushort staticCount = r.ReadUInt16("static attribute count");
        ushort customCount = r.ReadUInt16("customizable attribute count");
        ushort dataCount = r.ReadUInt16("field count");
        r.ReadUInt16("fixed field count");
        if (dataCount > limits.MaxFieldsPerEvent)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {limits.MaxFieldsPerEvent} fields per event (XeReaderLimits.MaxFieldsPerEvent), found "
                        + $"{dataCount} in '{h.Name}'"
                )
            );
        }

        var statics = new XeStaticAttributeValue[staticCount];
        for (int i = 0; i < statics.Length; i++)
        {
            uint rid = r.ReadUInt32("static attribute type RID");
            string name = r.ReadUtf16Z("static attribute name");
            object value = ReadAttributeValue(ref r, rid);
            statics[i] = new XeStaticAttributeValue(name, rid, value, r.ReadUtf16Z("static attribute description"));
        }

        var customs = new XeCustomizableAttributeValue[customCount];
        for (int i = 0; i < customs.Length; i++)
        {
            uint rid = r.ReadUInt32("customizable attribute type RID");
            string name = r.ReadUtf16Z("customizable attribute name");
            object value = ReadAttributeValue(ref r, rid);
            ulong def = r.ReadUInt64("customizable attribute default");
            int aggregation = r.ReadInt32("customizable attribute aggregation");
            int caps = r.ReadInt32("customizable attribute capabilities");
            customs[i] = new XeCustomizableAttributeValue(
                name,
                rid,
                value,
                def,
                aggregation,
                caps,
                r.ReadUtf16Z("customizable attribute description")
            );
        }

        var fields = new RawField[dataCount];
        for (int i = 0; i < fields.Length; i++)
        {
            uint rid = r.ReadUInt32("field type RID");
            string name = r.ReadUtf16Z("field name");
            ushort offset = r.ReadUInt16("field offset");
            ushort caps = r.ReadUInt16("field capabilities");
            fields[i] = new RawField(rid, name, offset, caps, r.ReadUtf16Z("field description"));
        }

        return new RawEvent(package, h, statics, customs, fields, at);
    }

    /// <summary>Attribute values: a GUID for base type 16 or 21, a string for 15, else a 64-bit number.</summary>
    internal static int AttributeKind(uint typeRid)
    {
        if (XeRid.ObjectType(typeRid) == XeRid.TypeType)
        {
            int bt = XeRid.ObjectIndex(typeRid);
            if (bt is 16 or 21)
            {
                return 1;
            }

            if (bt == 15)
            {
                return 2;
            }
        }

        return 0;
    }

    private static object ReadAttributeValue(ref SpanReader r, uint typeRid) =>
        AttributeKind(typeRid) switch
        {
            1 => r.ReadGuid("attribute GUID value"),
            2 => r.ReadUtf16Z("attribute string value"),
            _ => r.ReadUInt64("attribute value"),
        };

    private static void ReadMap(ref SpanReader r, XePackage package, XeSchema schema, XeReaderLimits limits)
    {
        ObjectHeader h = ReadHeader(ref r, "map");
        CheckRid(ref r, h, XeRid.TypeMap, package.Index, "map");
        byte keySize = r.ReadByte("map key size");
        if (keySize is not (1 or 2 or 4 or 8))
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"a map key size of 1, 2, 4 or 8 for map '{h.Name}', found {keySize}"
                )
            );
        }

        ushort count = r.ReadUInt16("map entry count");
        if (count > limits.MaxMetadataObjects)
        {
            throw r.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"at most {limits.MaxMetadataObjects} map entries (XeReaderLimits.MaxMetadataObjects), found "
                        + $"{count}"
                )
            );
        }

        var entries = new XeMapEntry[count];
        for (int i = 0; i < entries.Length; i++)
        {
            uint key = r.ReadUInt32("map key");
            entries[i] = new XeMapEntry(key, r.ReadUtf16Z("map value"));
        }

        schema.AddMap(
            new XeMap(
                package,
                XeRid.ObjectIndex(h.Rid),
                h.Name,
                (h.SpecificCaps & 1) != 0,
                keySize,
                entries,
                h.Description
            )
            {
                HeaderVersion = h.Version,
                GenericCaps = h.GenericCaps,
            }
        );
    }

    private static string? ResolveAction(RawAction a, XeSchema schema)
    {
        if (schema.GetAction(a.Header.Rid) is not null)
        {
            return null;
        }

        string? problem = ResolveTypeRef(a.TypeRid, schema, out XeType? type, out XeMap? map);
        if (problem is not null)
        {
            return "action '" + a.Package.Name + "." + a.Header.Name + "' references " + problem;
        }

        schema.AddAction(
            new XeColumn(
                XeColumnKind.Action,
                a.Package,
                a.Header.Name,
                XeRid.ObjectIndex(a.Header.Rid),
                type,
                map,
                schema.PointerSize,
                a.Header.Description
            )
            {
                HeaderVersion = a.Header.Version,
                GenericCaps = a.Header.GenericCaps,
                SpecificCaps = a.Header.SpecificCaps,
                ActionStorageSize = a.StorageSize,
                ActionStorageFlags = a.StorageFlags,
            }
        );
        return null;
    }

    private static string? ResolveEvent(RawEvent e, XeSchema schema)
    {
        if (schema.GetEventType(e.Header.Rid) is not null)
        {
            return null;
        }

        var cols = new XeColumn[e.Fields.Length];
        for (int i = 0; i < cols.Length; i++)
        {
            RawField f = e.Fields[i];
            string? problem = ResolveTypeRef(f.Rid, schema, out XeType? type, out XeMap? map);
            if (problem is not null)
            {
                return "field '"
                    + f.Name
                    + "' of event '"
                    + e.Package.Name
                    + "."
                    + e.Header.Name
                    + "' references "
                    + problem;
            }

            cols[i] = new XeColumn(
                XeColumnKind.Field,
                e.Package,
                f.Name,
                i,
                type,
                map,
                schema.PointerSize,
                f.Description
            )
            {
                PayloadOffset = f.Offset,
                FieldCaps = f.Caps,
            };
        }

        Guid uuid = e.Statics.Length > 0 && e.Statics[0].Value is Guid g ? g : Guid.Empty;
        schema.AddEvent(
            new XeEventType(e.Package, XeRid.ObjectIndex(e.Header.Rid), e.Header.Name, uuid, cols, e.Header.Description)
            {
                StaticAttributes = e.Statics,
                CustomizableAttributes = e.Customs,
                HeaderVersion = e.Header.Version,
                GenericCaps = e.Header.GenericCaps,
                SpecificCaps = e.Header.SpecificCaps,
            }
        );
        return null;
    }

    private static string? ResolveTypeRef(uint rid, XeSchema schema, out XeType? type, out XeMap? map)
    {
        type = null;
        map = null;
        int pkg = XeRid.PackageIndex(rid);
        if (schema.GetPackage(pkg) is null)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"RID 0x{rid:X8} of package {pkg}, which the metadata does not define (expected a defined package)"
            );
        }

        switch (XeRid.ObjectType(rid))
        {
            case XeRid.TypeType:
                type = schema.GetType(rid);
                return type is null
                    ? string.Create(
                        CultureInfo.InvariantCulture,
                        $"type RID 0x{rid:X8} (base type {XeRid.ObjectIndex(rid)} of package {pkg}), which the "
                            + $"metadata does not define (expected a defined type)"
                    )
                    : null;
            case XeRid.TypeMap:
                map = schema.GetMap(rid);
                return map is null
                    ? string.Create(
                        CultureInfo.InvariantCulture,
                        $"map RID 0x{rid:X8} (map {XeRid.ObjectIndex(rid)} of package {pkg}), which the metadata "
                            + $"does not define (expected a defined map)"
                    )
                    : null;
            default:
                return string.Create(
                    CultureInfo.InvariantCulture,
                    $"RID 0x{rid:X8} of object type {XeRid.ObjectType(rid)} (expected a type or a map)"
                );
        }
    }
}

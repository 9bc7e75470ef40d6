using System.Globalization;

namespace XeAnalyzer.Events;

/// <content>
/// Importing objects of another schema (event types, actions, or everything) with the packages, types and maps they
/// use, keeping their RIDs and reusing objects already present under the same RID and name.
/// </content>
partial class XeSchema
{
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
                throw new InvalidOperationException(
                    "Event " + source.FullName + " has a different field list than the one already in the schema."
                );
            }

            return existing;
        }

        XePackage p = ImportPackage(source.Package);
        var cols = new XeColumn[source.FieldArray.Length];
        for (int i = 0; i < cols.Length; i++)
        {
            XeColumn f = source.FieldArray[i];
            cols[i] = new XeColumn(
                XeColumnKind.Field,
                p,
                f.Name,
                i,
                f.Type is null ? null : ImportType(f.Type),
                f.Map is null ? null : ImportMap(f.Map),
                PointerSize,
                f.Description
            )
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

    /// <summary>Copies an action of another schema (with its package and type) into this one, keeping its
    /// RID.</summary>
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
        var c = new XeColumn(
            XeColumnKind.Action,
            p,
            source.Name,
            source.Index,
            source.Type is null ? null : ImportType(source.Type),
            source.Map is null ? null : ImportMap(source.Map),
            PointerSize,
            source.Description
        )
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

    /// <summary>Imports every package, type, map, action and event type of <paramref name="source"/> (keeping
    /// RIDs).</summary>
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

        var m = new XeMap(
            ImportPackage(source.Package),
            source.ObjectIndex,
            source.Name,
            source.IsBitmask,
            source.KeySize,
            [.. source.Entries],
            source.Description
        )
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

    private static void RequireSame(string existing, string incoming, uint rid)
    {
        if (!string.Equals(existing, incoming, StringComparison.Ordinal))
        {
            throw new InvalidOperationException(
                "RID 0x"
                    + rid.ToString("X8", CultureInfo.InvariantCulture)
                    + " is '"
                    + existing
                    + "' in this schema but '"
                    + incoming
                    + "' in the source."
            );
        }
    }
}

using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using XeAnalyzer.Events;

namespace XeAnalyzer.Xel;

/// <content>
/// Writing the schema as metadata buffers: each package with its event types, actions, maps and types, in the layout
/// the reader expects (one buffer, or <c>package0</c>'s types first as SQL Server writes them).
/// </content>
internal sealed partial class XelWriter
{
    private void WriteMetadata()
    {
        var packages = Schema.Packages.ToList();
        if (_options.SplitMetadata && Schema.GetPackage(0) is XePackage p0)
        {
            WriteMetadataBuffer([EncodePackage(p0, MetaPart.TypesOnly)]);
            WriteMetadataBuffer([
                .. packages.Select(p => EncodePackage(p, p.Index == 0 ? MetaPart.AllButTypes : MetaPart.All)),
            ]);
        }
        else
        {
            WriteMetadataBuffer([.. packages.Select(p => EncodePackage(p, MetaPart.All))]);
        }
    }

    private void WriteMetadataBuffer(List<byte[]> packages)
    {
        int data = packages.Sum(p => p.Length);
        int padded = RoundUp(MetadataDataOffset + data);
        byte[] b = new byte[padded];
        WriteBufferHeader(b, 0, uint.MaxValue, 1, padded, MetadataDataOffset, data);
        int at = MetadataDataOffset;
        foreach (byte[] p in packages)
        {
            p.CopyTo(b, at);
            at += p.Length;
        }

        _out.Write(b);
    }

    private enum MetaPart
    {
        All,
        TypesOnly,
        AllButTypes,
    }

    private byte[] EncodePackage(XePackage p, MetaPart part)
    {
        var w = new ByteWriter();
        w.U16(10);
        w.U32(0); // size, patched below
        w.Guid(_options.Signature);
        w.U16(0);
        w.U16(1);
        w.U16(0);
        w.U32(0);
        w.I64(_startFileTime);
        w.U64(_options.Frequency);
        w.Header(p.HeaderVersion, p.GenericCaps, p.SpecificCaps, p.Rid, p.Name, p.Description);
        w.Guid(p.Id);
        w.Guid(p.ModuleId);
        w.U16(p.MinContextVersion);

        bool withTypes = part != MetaPart.AllButTypes;
        bool withOthers = part != MetaPart.TypesOnly;
        List<XeEventType> events = withOthers ? [.. Schema.EventTypes.Where(e => e.Package.Index == p.Index)] : [];
        List<XeColumn> actions = withOthers ? [.. Schema.Actions.Where(a => a.Package.Index == p.Index)] : [];
        List<XeMap> maps = withOthers ? [.. Schema.Maps.Where(m => m.Package.Index == p.Index)] : [];
        List<XeType> types = withTypes ? [.. Schema.Types.Where(t => t.Package.Index == p.Index)] : [];

        (int Kind, ushort Version, ushort ObjectSize, uint Count)[] table =
            p.CollectionTable
            ??
            [
                (0, 0, 72, (uint)events.Count),
                (1, 0, 72, (uint)actions.Count),
                (2, 0, 56, 0),
                (3, 0, 48, (uint)maps.Count),
                (4, 0, 80, 0),
                (5, 0, 96, 0),
                (6, 0, 40, (uint)types.Count),
                (7, 0, 32, 0),
            ];
        w.U32((uint)table.Length);
        foreach ((int kind, ushort version, ushort objectSize, uint count) in table)
        {
            w.I32(kind);
            w.U16(version);
            w.U16(objectSize);
            w.U32(count);
        }

        w.U32((uint)events.Count);
        foreach (XeEventType e in events)
        {
            w.Header(e.HeaderVersion, e.GenericCaps, e.SpecificCaps, e.Rid, e.Name, e.Description);
            w.U16((ushort)e.StaticAttributes.Count);
            w.U16((ushort)e.CustomizableAttributes.Count);
            w.U16((ushort)e.FieldArray.Length);
            w.U16((ushort)e.FieldArray.Count(f => !f.IsVariableLength));
            foreach (XeStaticAttributeValue a in e.StaticAttributes)
            {
                w.U32(a.TypeRid);
                w.Str(a.Name);
                w.AttributeValue(a.TypeRid, a.Value);
                w.Str(a.Description);
            }

            foreach (XeCustomizableAttributeValue a in e.CustomizableAttributes)
            {
                w.U32(a.TypeRid);
                w.Str(a.Name);
                w.AttributeValue(a.TypeRid, a.Value);
                w.U64(a.DefaultValue);
                w.I32(a.Aggregation);
                w.I32(a.Capabilities);
                w.Str(a.Description);
            }

            foreach (XeColumn f in e.FieldArray)
            {
                w.U32(f.TypeRid);
                w.Str(f.Name);
                w.U16((ushort)f.PayloadOffset);
                w.U16(f.FieldCaps);
                w.Str(f.Description);
            }
        }

        w.U32((uint)actions.Count);
        foreach (XeColumn a in actions)
        {
            w.Header(a.HeaderVersion, a.GenericCaps, a.SpecificCaps, a.Rid, a.Name, a.Description);
            w.U32(a.TypeRid);
            w.U32(a.ActionStorageSize);
            w.I32(a.ActionStorageFlags);
        }

        w.U32((uint)maps.Count);
        foreach (XeMap m in maps)
        {
            w.Header(m.HeaderVersion, m.GenericCaps, (byte)(m.IsBitmask ? 1 : 0), m.Rid, m.Name, m.Description);
            w.U8((byte)m.KeySize);
            w.U16((ushort)m.Entries.Count);
            foreach (XeMapEntry entry in m.Entries)
            {
                w.U32(entry.Key);
                w.Str(entry.Name);
            }
        }

        w.U32((uint)types.Count);
        foreach (XeType t in types)
        {
            w.Header(t.HeaderVersion, t.GenericCaps, t.SpecificCaps, t.Rid, t.Name, t.Description);
            w.U8((byte)t.Size);
        }

        w.PadTo(8);
        byte[] bytes = w.ToArray();
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(2), (uint)bytes.Length);
        return bytes;
    }

    /// <summary>A little-endian byte builder for metadata.</summary>
    private sealed class ByteWriter
    {
        private readonly ArrayBufferWriter<byte> _w = new(4096);

        public void U8(byte v) => U8Advance(v);

        public void U16(ushort v)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(_w.GetSpan(2), v);
            _w.Advance(2);
        }

        public void U32(uint v)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(_w.GetSpan(4), v);
            _w.Advance(4);
        }

        public void I32(int v)
        {
            BinaryPrimitives.WriteInt32LittleEndian(_w.GetSpan(4), v);
            _w.Advance(4);
        }

        public void U64(ulong v)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(_w.GetSpan(8), v);
            _w.Advance(8);
        }

        public void I64(long v)
        {
            BinaryPrimitives.WriteInt64LittleEndian(_w.GetSpan(8), v);
            _w.Advance(8);
        }

        public void Guid(Guid g)
        {
            g.TryWriteBytes(_w.GetSpan(16));
            _w.Advance(16);
        }

        public void Str(string s)
        {
            int n = Encoding.Unicode.GetByteCount(s);
            Span<byte> span = _w.GetSpan(n + 2);
            Encoding.Unicode.GetBytes(s, span);
            span[n] = 0;
            span[n + 1] = 0;
            _w.Advance(n + 2);
        }

        public void Header(ushort version, byte generic, byte specific, uint rid, string name, string description)
        {
            U16(version);
            U8Advance(generic);
            U8Advance(specific);
            U32(rid);
            Str(name);
            Str(description);
        }

        public void AttributeValue(uint typeRid, object value)
        {
            switch (XelMetadataReader.AttributeKind(typeRid))
            {
                case 1:
                    Guid(value is Guid g ? g : System.Guid.Empty);
                    break;
                case 2:
                    Str(value as string ?? Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty);
                    break;
                default:
                    U64(value is ulong u ? u : Convert.ToUInt64(value, CultureInfo.InvariantCulture));
                    break;
            }
        }

        public void U8Advance(byte v)
        {
            _w.GetSpan(1)[0] = v;
            _w.Advance(1);
        }

        public void PadTo(int alignment)
        {
            while (_w.WrittenCount % alignment != 0)
            {
                U8Advance(0);
            }
        }

        public byte[] ToArray() => _w.WrittenSpan.ToArray();
    }
}

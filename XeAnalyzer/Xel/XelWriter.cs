using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Writes a <c>.xel</c> file from an <see cref="XeSchema"/> and events, laid out as SQL Server lays it out: a 512-byte
/// file header (magic, version 10, header size 512), metadata buffer(s), and event buffers whose padded length is a
/// multiple of 512, with data at offset 77, records of RID, flags, ticks and payload, and actions ended by RID
/// 0x60000000. The same input gives the same bytes.
/// </summary>
/// <remarks>Not thread-safe. Dispose (or <see cref="Flush"/>) to write the last buffers.</remarks>
internal sealed partial class XelWriter : IDisposable
{
    private const int FileHeaderSize = 512;
    private const int EventDataOffset = 77;
    private const int MetadataDataOffset = 76;
    private const uint HasActionsFlag = 0x8000_0000;
    private const uint RecordVersion = 10;
    private const uint ActionTerminatorRid = 0x6000_0000;

    private readonly Stream _out;
    private readonly bool _leaveOpen;
    private readonly XelWriterOptions _options;
    private readonly long _startFileTime;
    private readonly byte[][] _buffers;
    private readonly int[] _used;
    private uint _sequence;
    private bool _disposed;

    /// <summary>Starts a file: writes the file header and the metadata of <paramref name="schema"/> to
    /// <paramref name="output"/>.</summary>
    /// <param name="output">A writable stream.</param>
    /// <param name="schema">The metadata; do not change it while writing.</param>
    /// <param name="options">Options; defaults when <see langword="null"/>.</param>
    /// <param name="leaveOpen">Whether disposing the writer leaves <paramref name="output"/> open.</param>
    public XelWriter(Stream output, XeSchema schema, XelWriterOptions? options = null, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(schema);
        _out = output;
        _leaveOpen = leaveOpen;
        _options = options ?? new XelWriterOptions();
        Schema = schema;
        _startFileTime = _options.StartTimeUtc.ToFileTimeUtc();
        _buffers = new byte[_options.Partitions][];
        _used = new int[_options.Partitions];
        for (int i = 0; i < _buffers.Length; i++)
        {
            _buffers[i] = new byte[_options.BufferSize];
            _used[i] = EventDataOffset;
        }

        WriteFileHeader();
        WriteMetadata();
    }

    /// <summary>Creates <paramref name="path"/> (overwriting it) and starts writing.</summary>
    /// <param name="path">The output file.</param>
    /// <param name="schema">The metadata.</param>
    /// <param name="options">Options.</param>
    /// <returns>The writer.</returns>
    public static XelWriter Create(string path, XeSchema schema, XelWriterOptions? options = null)
    {
        var fs = OutputFile.Create(path, 1 << 16);
        try
        {
            return new XelWriter(fs, schema, options);
        }
        catch
        {
            fs.Dispose();
            throw;
        }
    }

    /// <summary>The schema being written.</summary>
    public XeSchema Schema { get; }

    /// <summary>Events written so far.</summary>
    public long EventsWritten { get; private set; }

    /// <summary>
    /// Appends an event. Events of another schema (for example read from another file) are written with the event type
    /// and actions of this schema that have the same RIDs and names (import them first with
    /// <see cref="XeSchema.ImportEvent"/>).
    /// </summary>
    /// <param name="e">The event.</param>
    /// <param name="partition">The buffer slot, or -1 for round-robin.</param>
    /// <exception cref="ArgumentException">The event's type or actions are not in the schema, or a value does not fit
    /// its column.</exception>
    public void Write(XEvent e, int partition = -1)
    {
        ArgumentNullException.ThrowIfNull(e);
        XeEventType type = MapEventType(e.EventType);
        int n = e.FieldCount;
        XeValue[] rented = ArrayPool<XeValue>.Shared.Rent(n + e.ActionCount);
        try
        {
            for (int i = 0; i < n; i++)
            {
                rented[i] = e.GetField(i);
            }

            for (int i = 0; i < e.ActionCount; i++)
            {
                rented[n + i] = e.GetAction(i);
            }

            WriteCore(type, e.Timestamp, rented.AsSpan(0, n), rented.AsSpan(n, e.ActionCount), partition);
        }
        finally
        {
            Array.Clear(rented, 0, n + e.ActionCount);
            ArrayPool<XeValue>.Shared.Return(rented);
        }
    }

    /// <summary>Appends an event given as values (the fast path for generators).</summary>
    /// <param name="type">An event type of <see cref="Schema"/>.</param>
    /// <param name="timestamp">The event time (UTC), not before <see cref="XelWriterOptions.StartTimeUtc"/>.</param>
    /// <param name="fields">One value per field, in field order, built for this type's columns.</param>
    /// <param name="actions">Action values, built for action columns of <see cref="Schema"/>.</param>
    /// <param name="partition">The buffer slot, or -1 for round-robin.</param>
    /// <exception cref="ArgumentException">A value does not fit its column.</exception>
    public void Write(
        XeEventType type,
        DateTime timestamp,
        ReadOnlySpan<XeValue> fields,
        ReadOnlySpan<XeValue> actions = default,
        int partition = -1
    )
    {
        ArgumentNullException.ThrowIfNull(type);
        WriteCore(MapEventType(type), timestamp, fields, actions, partition);
    }

    /// <summary>Writes every buffer that holds events and flushes the stream.</summary>
    public void Flush()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        for (int i = 0; i < _buffers.Length; i++)
        {
            FlushBuffer(i);
        }

        _out.Flush();
    }

    /// <summary>Flushes and closes the output (unless left open).</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        Flush();
        _disposed = true;
        if (!_leaveOpen)
        {
            _out.Dispose();
        }
    }

    private XeEventType MapEventType(XeEventType type)
    {
        XeEventType? mine = Schema.GetEventType(type.Rid);
        if (
            mine is null
            || !string.Equals(mine.FullName, type.FullName, StringComparison.Ordinal)
            || mine.FieldArray.Length != type.FieldArray.Length
        )
        {
            throw new ArgumentException(
                "Event type "
                    + type.FullName
                    + " (RID 0x"
                    + type.Rid.ToString("X8", CultureInfo.InvariantCulture)
                    + ") is not in the writer's schema.",
                nameof(type)
            );
        }

        return mine;
    }

    private void WriteCore(
        XeEventType type,
        DateTime timestamp,
        ReadOnlySpan<XeValue> fields,
        ReadOnlySpan<XeValue> actions,
        int partition
    )
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        XeColumn[] cols = type.FieldArray;
        if (fields.Length != cols.Length)
        {
            throw new ArgumentException(
                "Event "
                    + type.FullName
                    + " has "
                    + cols.Length.ToString(CultureInfo.InvariantCulture)
                    + " fields; got "
                    + fields.Length.ToString(CultureInfo.InvariantCulture)
                    + " values.",
                nameof(fields)
            );
        }

        long ft = (timestamp.Kind == DateTimeKind.Local ? timestamp.ToUniversalTime() : timestamp).ToFileTimeUtc();
        if (ft < _startFileTime)
        {
            throw new ArgumentOutOfRangeException(
                nameof(timestamp),
                timestamp,
                "The event time is before the writer's StartTimeUtc."
            );
        }

        ulong ticks =
            _options.Frequency == 10_000_000
                ? (ulong)(ft - _startFileTime)
                : (ulong)((UInt128)(ulong)(ft - _startFileTime) * _options.Frequency / 10_000_000UL);

        int fixedEnd = type.MinPayloadLength;
        long payload = fixedEnd;
        for (int i = 0; i < cols.Length; i++)
        {
            XeColumn c = cols[i];
            XeValue v = fields[i];
            if (!v.HasValue)
            {
                throw new ArgumentException(
                    "Field '" + c.Name + "' of " + type.FullName + " has no value.",
                    nameof(fields)
                );
            }

            int len = v.Length;
            if (c.IsVariableLength)
            {
                payload += len;
            }
            else if (len != c.Size || v.BaseType != c.BaseType)
            {
                throw new ArgumentException(
                    "Field '"
                        + c.Name
                        + "' of "
                        + type.FullName
                        + " stores "
                        + c.Size.ToString(CultureInfo.InvariantCulture)
                        + " bytes of "
                        + c.BaseType.ToString()
                        + "; the value has "
                        + len.ToString(CultureInfo.InvariantCulture)
                        + " bytes of "
                        + v.BaseType.ToString()
                        + ".",
                    nameof(fields)
                );
            }
        }

        long record = 24 + payload;
        for (int i = 0; i < actions.Length; i++)
        {
            XeColumn? c = actions[i].Column;
            if (
                c is null
                || c.Kind != XeColumnKind.Action
                || Schema.GetAction(c.Rid) is not XeColumn mine
                || !string.Equals(mine.FullName, c.FullName, StringComparison.Ordinal)
            )
            {
                throw new ArgumentException(
                    "Action value "
                        + i.ToString(CultureInfo.InvariantCulture)
                        + " is not for an action of the writer's schema.",
                    nameof(actions)
                );
            }

            record += 8 + actions[i].Length;
        }

        if (actions.Length > 0)
        {
            record += 8;
        }

        if (record > int.MaxValue / 2)
        {
            throw new ArgumentException("The event is too large.", nameof(fields));
        }

        int slot = partition >= 0 ? partition % _buffers.Length : (int)(EventsWritten % _buffers.Length);
        int size = (int)record;
        if (_used[slot] + size > _buffers[slot].Length)
        {
            FlushBuffer(slot);
            int needed = EventDataOffset + size;
            if (needed > _buffers[slot].Length)
            {
                _buffers[slot] = new byte[RoundUp(needed)];
            }
        }

        Span<byte> dst = _buffers[slot].AsSpan(_used[slot], size);
        BinaryPrimitives.WriteUInt32LittleEndian(dst, type.Rid);
        BinaryPrimitives.WriteUInt32LittleEndian(dst[4..], RecordVersion | (actions.Length > 0 ? HasActionsFlag : 0));
        BinaryPrimitives.WriteUInt32LittleEndian(dst[8..], 0);
        BinaryPrimitives.WriteUInt64LittleEndian(dst[12..], ticks);
        BinaryPrimitives.WriteUInt32LittleEndian(dst[20..], (uint)payload);
        Span<byte> pl = dst.Slice(24, (int)payload);
        int varAt = fixedEnd;
        for (int i = 0; i < cols.Length; i++)
        {
            XeColumn c = cols[i];
            XeValue v = fields[i];
            if (c.IsVariableLength)
            {
                int len = v.Length;
                BinaryPrimitives.WriteUInt32LittleEndian(pl[c.PayloadOffset..], (uint)varAt);
                BinaryPrimitives.WriteUInt32LittleEndian(pl[(c.PayloadOffset + 4)..], (uint)len);
                v.CopyRawTo(pl.Slice(varAt, len));
                varAt += len;
            }
            else
            {
                v.CopyRawTo(pl.Slice(c.PayloadOffset, c.Size));
            }
        }

        int at = 24 + (int)payload;
        if (actions.Length > 0)
        {
            foreach (XeValue a in actions)
            {
                int len = a.Length;
                BinaryPrimitives.WriteUInt32LittleEndian(dst[at..], a.Column!.Rid);
                BinaryPrimitives.WriteUInt32LittleEndian(dst[(at + 4)..], (uint)len);
                a.CopyRawTo(dst.Slice(at + 8, len));
                at += 8 + len;
            }

            BinaryPrimitives.WriteUInt32LittleEndian(dst[at..], ActionTerminatorRid);
            BinaryPrimitives.WriteUInt32LittleEndian(dst[(at + 4)..], 0);
        }

        _used[slot] += size;
        EventsWritten++;
    }

    private static int RoundUp(int n) => checked((n + 511) / 512 * 512);

    private void FlushBuffer(int slot)
    {
        int used = _used[slot];
        if (used == EventDataOffset)
        {
            return;
        }

        byte[] b = _buffers[slot];
        int padded = RoundUp(used);
        WriteBufferHeader(b, (uint)slot, ++_sequence, 0, padded, EventDataOffset, used - EventDataOffset);
        _options.Signature.TryWriteBytes(b.AsSpan(32, 16));
        _out.Write(b, 0, padded);
        Array.Clear(b, 0, padded);
        if (b.Length > _options.BufferSize)
        {
            _buffers[slot] = new byte[_options.BufferSize];
        }

        _used[slot] = EventDataOffset;
    }

    private static void WriteBufferHeader(
        Span<byte> b,
        uint slot,
        uint sequence,
        ushort type,
        int padded,
        int dataOffset,
        int dataLength
    )
    {
        BinaryPrimitives.WriteUInt32LittleEndian(b, 0);
        BinaryPrimitives.WriteUInt32LittleEndian(b[4..], slot);
        BinaryPrimitives.WriteUInt32LittleEndian(b[8..], sequence);
        BinaryPrimitives.WriteUInt16LittleEndian(b[12..], 10);
        BinaryPrimitives.WriteUInt16LittleEndian(b[14..], type);
        BinaryPrimitives.WriteUInt32LittleEndian(b[16..], (uint)padded);
        BinaryPrimitives.WriteUInt16LittleEndian(b[20..], 0);
        BinaryPrimitives.WriteUInt16LittleEndian(b[22..], (ushort)dataOffset);
        BinaryPrimitives.WriteUInt32LittleEndian(b[24..], (uint)dataLength);
        BinaryPrimitives.WriteUInt32LittleEndian(b[28..], 0);
    }

    private void WriteFileHeader()
    {
        byte[] h = new byte[FileHeaderSize];
        BinaryPrimitives.WriteUInt32LittleEndian(h, XelFile.Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(h.AsSpan(4), XelFile.SupportedVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(h.AsSpan(6), FileHeaderSize);
        _out.Write(h);
    }
}

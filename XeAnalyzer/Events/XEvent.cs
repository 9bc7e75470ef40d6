using System.Buffers.Binary;

namespace XeAnalyzer.Events;

/// <summary>Where an event came from: the capture file and the byte offset of its record (or no location for built
/// events).</summary>
/// <param name="FilePath">The capture file, or <see langword="null"/>.</param>
/// <param name="Offset">Absolute byte offset of the event record in the file, or -1.</param>
public readonly record struct XeSourceLocation(string? FilePath, long Offset)
{
    /// <summary>No location (an event built in code).</summary>
    public static XeSourceLocation None { get; } = new(null, -1);

    /// <inheritdoc/>
    public override string ToString() =>
        FilePath is null
            ? "<built>"
            : FilePath + "@" + Offset.ToString(System.Globalization.CultureInfo.InvariantCulture);
}

/// <summary>
/// One Extended Events event: the common currency of XeAnalyzer. Events read from a <c>.xel</c> file are lightweight
/// objects that refer to their buffer's byte array (one array per buffer, shared by that buffer's events) and to their
/// <see cref="XeEventType"/>; values decode on access. Events can also be built from values with <see cref="Create"/>
/// (for target-data XML, tests and generators).
/// </summary>
/// <remarks>
/// <para><b>Ownership.</b> Events of the <see cref="IEnumerable{T}"/> readers (<c>XelReader.ReadEvents</c>,
/// <c>CaptureSource.ReadEvents</c>)
/// and built events own their data: immutable, safe to share between threads and to keep (keeping one keeps its buffer
/// alive). An event handed to <see cref="Capture.ICaptureConsumer.Add"/> by <see cref="Capture.CaptureSource.Read"/> is
/// <see cref="IsTransient"/>: a view into a pooled buffer, valid only during that call, and so are the
/// <see cref="XeValue"/>s read from it (the same object is re-pointed at the next event, and the buffer is reused once
/// its events are delivered). A consumer that keeps an event beyond the call keeps <see cref="Detach"/>'s copy; one
/// that keeps a value copies it into its own types (numbers, strings, <see cref="XeValue.AsBytes"/>,
/// <see cref="XeValue.CopyCallstackTo"/>).</para>
/// </remarks>
public sealed class XEvent
{
    private byte[]? _buffer;
    private int _payloadOffset;
    private int _actionsOffset;
    private int _recordEnd;
    private int[]? _actionStarts;
    private string? _sourceFile;
    private long _sourceOffset = -1;
    private int _actionStartsIndex;
    private readonly XeValue[]? _fieldValues;
    private readonly XeValue[]? _actionValues;

    internal XEvent(
        XeEventType type,
        DateTime timestamp,
        byte[] buffer,
        int payloadOffset,
        int payloadLength,
        int actionsOffset,
        XeActionSet actions,
        XeSourceLocation source
    )
    {
        EventType = type;
        Timestamp = timestamp;
        _buffer = buffer;
        _payloadOffset = payloadOffset;
        PayloadLength = payloadLength;
        _actionsOffset = actionsOffset;
        ActionSet = actions;
        Source = source;
    }

    /// <summary>A transient view (see <see cref="IsTransient"/>), pointed at each event in turn with
    /// <see cref="PointBuffer"/> and <see cref="PointRecord"/>.</summary>
    internal XEvent(XeEventType type)
    {
        EventType = type;
        ActionSet = XeActionSet.Empty;
        IsTransient = true;
    }

    /// <summary>
    /// Points a transient view at one buffer: what <see cref="PointRecord"/> leaves alone (the buffer's bytes, where
    /// its records' actions start, its file), so the records of a buffer are pointed at without storing the same
    /// references again for every event.
    /// </summary>
    internal void PointBuffer(byte[] buffer, int[] actionStarts, string file)
    {
        _buffer = buffer;
        _actionStarts = actionStarts;
        _sourceFile = file;
    }

    /// <summary>Points a transient view, set up by <see cref="PointBuffer"/>, at one record of its buffer.</summary>
    internal void PointRecord(
        XeEventType type,
        DateTime timestamp,
        int payloadOffset,
        int payloadLength,
        int actionsOffset,
        int recordEnd,
        int actionStartsIndex,
        XeActionSet actions,
        long sourceOffset
    )
    {
        if (!ReferenceEquals(type, EventType))
        {
            EventType = type;
        }

        if (!ReferenceEquals(actions, ActionSet))
        {
            ActionSet = actions;
        }

        Timestamp = timestamp;
        _payloadOffset = payloadOffset;
        PayloadLength = payloadLength;
        _actionsOffset = actionsOffset;
        _recordEnd = recordEnd;
        _actionStartsIndex = actionStartsIndex;
        _sourceOffset = sourceOffset;
    }

    /// <summary>Sets where each action of a record read from a file starts (so <see cref="GetAction(int)"/> need not
    /// walk the actions before it).</summary>
    internal void SetActionStarts(int[] starts, int index)
    {
        _actionStarts = starts;
        _actionStartsIndex = index;
    }

    /// <summary>Clears a transient view's reference to its buffer (the buffer goes back to the pool).</summary>
    internal void Clear()
    {
        _buffer = null;
        _actionStarts = null;
    }

    /// <summary>
    /// Whether this event is a transient view into a pooled buffer: valid only during the
    /// <see cref="Capture.ICaptureConsumer.Add"/> call that handed it, like the values read from it. Keep
    /// <see cref="Detach"/>'s copy instead.
    /// </summary>
    public bool IsTransient { get; }

    /// <summary>
    /// An event that stays valid after the call that handed this one: this event itself when it owns its data (not
    /// <see cref="IsTransient"/>), else a copy of its record's bytes (payload and actions) with the same type, time,
    /// actions and source.
    /// </summary>
    /// <returns>An event that owns its data.</returns>
    public XEvent Detach()
    {
        if (!IsTransient)
        {
            return this;
        }

        byte[] b =
            _buffer
            ?? throw new InvalidOperationException(
                "The transient event is no longer valid: it was handed to a consumer call that has returned."
            );
        byte[] copy = b.AsSpan(_payloadOffset, _recordEnd - _payloadOffset).ToArray();
        return new XEvent(
            EventType,
            Timestamp,
            copy,
            0,
            PayloadLength,
            _actionsOffset - _payloadOffset,
            ActionSet,
            Source
        );
    }

    private XEvent(
        XeEventType type,
        DateTime timestamp,
        XeValue[] fields,
        XeValue[] actions,
        XeActionSet actionSet,
        XeSourceLocation source
    )
    {
        EventType = type;
        Timestamp = timestamp;
        _fieldValues = fields;
        _actionValues = actions;
        ActionSet = actionSet;
        Source = source;
    }

    /// <summary>The event type (name, package, UUID, fields).</summary>
    public XeEventType EventType { get; private set; }

    /// <summary>The short event name, for example <c>wait_info</c>.</summary>
    public string Name => EventType.Name;

    /// <summary>The package name, for example <c>sqlos</c>.</summary>
    public string PackageName => EventType.Package.Name;

    /// <summary><c>package.event</c>.</summary>
    public string FullName => EventType.FullName;

    /// <summary>The event-type GUID (XELite's <c>UUID</c>; not a per-event id).</summary>
    public Guid Uuid => EventType.Uuid;

    /// <summary>The event time: UTC, 100 ns resolution.</summary>
    public DateTime Timestamp { get; private set; }

    /// <summary>The event time as a UTC <see cref="DateTimeOffset"/> (what XELite returns).</summary>
    public DateTimeOffset TimestampOffset => new(Timestamp, TimeSpan.Zero);

    /// <summary>The capture file and record offset, or <see cref="XeSourceLocation.None"/> for a built event.</summary>
    public XeSourceLocation Source
    {
        get => new(_sourceFile, _sourceOffset);
        private set
        {
            _sourceFile = value.FilePath;
            _sourceOffset = value.Offset;
        }
    }

    /// <summary>The field columns (same as <see cref="XeEventType.Fields"/>).</summary>
    public IReadOnlyList<XeColumn> Fields => EventType.Fields;

    /// <summary>Number of fields.</summary>
    public int FieldCount => EventType.FieldArray.Length;

    /// <summary>The actions this event carries, in record order.</summary>
    public XeActionSet ActionSet { get; private set; }

    /// <summary>The action columns, in record order.</summary>
    public IReadOnlyList<XeColumn> Actions => ActionSet.Columns;

    /// <summary>Number of actions.</summary>
    public int ActionCount => ActionSet.Count;

    /// <summary>The value of <c>package0.event_sequence</c>, when the event carries it.</summary>
    public ulong? EventSequence =>
        ActionSet.EventSequenceIndex >= 0 ? GetAction(ActionSet.EventSequenceIndex).AsUInt64() : null;

    /// <summary>Payload length in bytes (0 for built events).</summary>
    internal int PayloadLength { get; private set; }

    /// <summary>The field value at <paramref name="index"/> (see <see cref="XeEventType.GetFieldIndex"/>).</summary>
    /// <param name="index">Field index.</param>
    /// <returns>The value.</returns>
    public XeValue GetField(int index)
    {
        XeColumn c = EventType.FieldArray[index];
        if (_fieldValues is not null)
        {
            return _fieldValues[index];
        }

        byte[] b = _buffer!;
        int at = _payloadOffset + c.PayloadOffset;
        if (c.IsVariableLength)
        {
            ReadOnlySpan<byte> slot = b.AsSpan(at, 8);
            int off = (int)BinaryPrimitives.ReadUInt32LittleEndian(slot);
            int len = (int)BinaryPrimitives.ReadUInt32LittleEndian(slot[4..]);
            return new XeValue(c, b, _payloadOffset + off, len);
        }

        return new XeValue(c, b, at, c.Size);
    }

    /// <summary>The field value named <paramref name="name"/>.</summary>
    /// <param name="name">Short field name.</param>
    /// <returns>The value.</returns>
    /// <exception cref="KeyNotFoundException">The event has no such field.</exception>
    public XeValue GetField(string name)
    {
        int i = EventType.GetFieldIndex(name);
        return i >= 0
            ? GetField(i)
            : throw new KeyNotFoundException("Event " + FullName + " has no field '" + name + "'.");
    }

    /// <summary>Looks up a field by short name.</summary>
    /// <param name="name">Short field name.</param>
    /// <param name="value">The value, when found.</param>
    /// <returns>Whether the field exists.</returns>
    public bool TryGetField(string name, out XeValue value)
    {
        int i = EventType.GetFieldIndex(name);
        value = i >= 0 ? GetField(i) : default;
        return i >= 0;
    }

    /// <summary>The action value at <paramref name="index"/> (see <see cref="XeActionSet.IndexOf"/>).</summary>
    /// <param name="index">Position in record order.</param>
    /// <returns>The value.</returns>
    public XeValue GetAction(int index)
    {
        if (_actionStarts is int[] starts)
        {
            // An event read from a file: where each action starts is known (the common case, kept small enough to
            // inline).
            XeColumn c = ActionSet[index];
            byte[] b = _buffer!;
            int p = starts[_actionStartsIndex + index];
            return new XeValue(c, b, p + 8, (int)BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(p + 4, 4)));
        }

        return GetActionWalking(index);
    }

    private XeValue GetActionWalking(int index)
    {
        if (_actionValues is not null)
        {
            return _actionValues[index];
        }

        XeColumn c = ActionSet[index];
        byte[] b = _buffer!;
        int p = _actionsOffset;
        for (int i = 0; i < index; i++)
        {
            p += 8 + (int)BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(p + 4, 4));
        }

        int len = (int)BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(p + 4, 4));
        return new XeValue(c, b, p + 8, len);
    }

    /// <summary>The action value named <paramref name="name"/> (short name, or <c>package.name</c>).</summary>
    /// <param name="name">The action name.</param>
    /// <returns>The value.</returns>
    /// <exception cref="KeyNotFoundException">The event has no such action.</exception>
    public XeValue GetAction(string name)
    {
        int i = ActionSet.IndexOf(name);
        return i >= 0
            ? GetAction(i)
            : throw new KeyNotFoundException("Event " + FullName + " has no action '" + name + "'.");
    }

    /// <summary>Looks up an action by short name (or <c>package.name</c>).</summary>
    /// <param name="name">The action name.</param>
    /// <param name="value">The value, when found.</param>
    /// <returns>Whether the event carries the action.</returns>
    public bool TryGetAction(string name, out XeValue value)
    {
        int i = ActionSet.IndexOf(name);
        value = i >= 0 ? GetAction(i) : default;
        return i >= 0;
    }

    /// <summary>
    /// Builds an event from values, without a binary buffer (for target-data XML, tests and generators).
    /// </summary>
    /// <param name="eventType">The event type.</param>
    /// <param name="timestamp">The event time (converted to UTC if it is not already).</param>
    /// <param name="fields">One value per field of <paramref name="eventType"/>, in field order, each built for that
    /// field's column.</param>
    /// <param name="actions">Action values (each built for an action column), in record order.</param>
    /// <param name="source">Where the event came from, if anywhere.</param>
    /// <returns>The event.</returns>
    /// <exception cref="ArgumentException">A value does not belong to the matching column.</exception>
    public static XEvent Create(
        XeEventType eventType,
        DateTime timestamp,
        IReadOnlyList<XeValue> fields,
        IReadOnlyList<XeValue>? actions = null,
        XeSourceLocation? source = null
    )
    {
        ArgumentNullException.ThrowIfNull(eventType);
        ArgumentNullException.ThrowIfNull(fields);
        if (fields.Count != eventType.FieldArray.Length)
        {
            throw new ArgumentException(
                "Event "
                    + eventType.FullName
                    + " has "
                    + eventType.FieldArray.Length.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + " fields; got "
                    + fields.Count.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    + " values.",
                nameof(fields)
            );
        }

        var f = new XeValue[fields.Count];
        for (int i = 0; i < f.Length; i++)
        {
            if (!ReferenceEquals(fields[i].Column, eventType.FieldArray[i]))
            {
                throw new ArgumentException(
                    "Value "
                        + i.ToString(System.Globalization.CultureInfo.InvariantCulture)
                        + " was not built for field '"
                        + eventType.FieldArray[i].Name
                        + "' of "
                        + eventType.FullName
                        + ".",
                    nameof(fields)
                );
            }

            f[i] = fields[i];
        }

        XeValue[] a = actions is null ? [] : [.. actions];
        var cols = new XeColumn[a.Length];
        for (int i = 0; i < a.Length; i++)
        {
            cols[i] = a[i].Column is { Kind: XeColumnKind.Action } c
                ? c
                : throw new ArgumentException(
                    "Action value "
                        + i.ToString(System.Globalization.CultureInfo.InvariantCulture)
                        + " was not built for an action column.",
                    nameof(actions)
                );
        }

        DateTime utc =
            timestamp.Kind == DateTimeKind.Utc
                ? timestamp
                : (
                    timestamp.Kind == DateTimeKind.Local
                        ? timestamp.ToUniversalTime()
                        : DateTime.SpecifyKind(timestamp, DateTimeKind.Utc)
                );
        return new XEvent(
            eventType,
            utc,
            f,
            a,
            a.Length == 0 ? XeActionSet.Empty : new XeActionSet(cols),
            source ?? XeSourceLocation.None
        );
    }

    /// <summary>Builds an event from values with a given action set (shared by many events).</summary>
    internal static XEvent CreateShared(
        XeEventType eventType,
        DateTime utc,
        XeValue[] fields,
        XeValue[] actions,
        XeActionSet set,
        XeSourceLocation source
    ) => new(eventType, utc, fields, actions, set, source);

    /// <inheritdoc/>
    public override string ToString() =>
        FullName + " @ " + Timestamp.ToString("o", System.Globalization.CultureInfo.InvariantCulture);
}

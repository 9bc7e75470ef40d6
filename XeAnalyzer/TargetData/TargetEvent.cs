using System.Globalization;

namespace XeAnalyzer.TargetData;

/// <summary>
/// One event from a ring_buffer or pair_matching target, an event list, or a bare <c>&lt;event&gt;</c>
/// (<c>sys.fn_xe_file_target_read_file</c>'s <c>event_data</c>): its name, package, timestamp, data fields and actions.
/// </summary>
internal sealed class TargetEvent : TargetDataElement
{
    /// <summary>Creates the element.</summary>
    /// <param name="lineNumber">1-based line of the <c>&lt;event&gt;</c> start tag.</param>
    /// <param name="targetIndex">0-based index of the containing root among the roots of the input.</param>
    /// <param name="container">The kind of root the event came from.</param>
    /// <param name="attributes">The event element's attributes in document order.</param>
    /// <param name="fields">The <c>&lt;data&gt;</c> fields in document order.</param>
    /// <param name="actions">The <c>&lt;action&gt;</c>s in document order.</param>
    public TargetEvent(
        long lineNumber,
        int targetIndex,
        TargetDataKind container,
        IReadOnlyList<KeyValuePair<string, string>> attributes,
        IReadOnlyList<EventField> fields,
        IReadOnlyList<EventField> actions
    )
        : base(lineNumber)
    {
        ArgumentNullException.ThrowIfNull(attributes);
        TargetIndex = targetIndex;
        Container = container;
        Attributes = attributes;
        Fields = fields;
        Actions = actions;
        Name = XmlAttributes.Find(attributes, "name") ?? string.Empty;
        Package = XmlAttributes.Find(attributes, "package");
        TimestampText = XmlAttributes.Find(attributes, "timestamp");
        if (
            TimestampText is not null
            && DateTimeOffset.TryParse(
                TimestampText,
                CultureInfo.InvariantCulture,
                DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal,
                out DateTimeOffset ts
            )
        )
        {
            Timestamp = ts;
        }
    }

    /// <summary>0-based index of the containing root among the roots of the input.</summary>
    public int TargetIndex { get; }

    /// <summary>The kind of root the event came from.</summary>
    public TargetDataKind Container { get; }

    /// <summary>The event name (<c>error_reported</c>), or empty when the element had none.</summary>
    public string Name { get; }

    /// <summary>The package name (<c>sqlserver</c>), when present.</summary>
    public string? Package { get; }

    /// <summary>The <c>timestamp</c> attribute as written, when present.</summary>
    public string? TimestampText { get; }

    /// <summary>The timestamp as UTC, when present and parseable (ISO 8601, <c>Z</c> or no zone = UTC).</summary>
    public DateTimeOffset? Timestamp { get; }

    /// <summary>All attributes of the event element in document order (<c>name</c>, <c>package</c>, <c>timestamp</c>,
    /// <c>id</c>, <c>version</c>, <c>key</c>, …).</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Attributes { get; }

    /// <summary>The <c>&lt;data&gt;</c> fields in document order.</summary>
    public IReadOnlyList<EventField> Fields { get; }

    /// <summary>The <c>&lt;action&gt;</c>s in document order.</summary>
    public IReadOnlyList<EventField> Actions { get; }

    /// <summary>Returns the value of the event element's attribute with this exact name, or
    /// <see langword="null"/>.</summary>
    /// <param name="name">The attribute name (case-sensitive).</param>
    public string? GetAttribute(string name) => XmlAttributes.Find(Attributes, name);

    /// <summary>Returns the first data field with this name (ordinal), or <see langword="null"/>.</summary>
    /// <param name="name">The field name.</param>
    public EventField? FindField(string name) => Find(Fields, name);

    /// <summary>Returns the first action with this name (ordinal), or <see langword="null"/>.</summary>
    /// <param name="name">The action name.</param>
    public EventField? FindAction(string name) => Find(Actions, name);

    private static EventField? Find(IReadOnlyList<EventField> list, string name)
    {
        for (int i = 0; i < list.Count; i++)
        {
            if (string.Equals(list[i].Name, name, StringComparison.Ordinal))
            {
                return list[i];
            }
        }

        return null;
    }
}

/// <summary>One <c>&lt;data&gt;</c> field or <c>&lt;action&gt;</c> of an event.</summary>
internal sealed class EventField
{
    /// <summary>Creates the field.</summary>
    /// <param name="isAction"><see langword="true"/> for an <c>&lt;action&gt;</c>, <see langword="false"/> for a
    /// <c>&lt;data&gt;</c> field.</param>
    /// <param name="name">The field or action name.</param>
    /// <param name="package">The action's package, when present.</param>
    /// <param name="typeName">The <c>&lt;type name&gt;</c>, when present (ring-buffer XML has it, <c>event_data</c>
    /// does not).</param>
    /// <param name="typePackage">The type's package, when present.</param>
    /// <param name="value">The <c>&lt;value&gt;</c> content, when present.</param>
    /// <param name="mapText">The <c>&lt;text&gt;</c> content (map or flag text), when present.</param>
    /// <param name="lineNumber">1-based line of the element.</param>
    public EventField(
        bool isAction,
        string name,
        string? package,
        string? typeName,
        string? typePackage,
        TargetValue? value,
        string? mapText,
        long lineNumber
    )
    {
        IsAction = isAction;
        Name = name;
        Package = package;
        TypeName = typeName;
        TypePackage = typePackage;
        Value = value;
        MapText = mapText;
        LineNumber = lineNumber;
    }

    /// <summary><see langword="true"/> for an <c>&lt;action&gt;</c>, <see langword="false"/> for a <c>&lt;data&gt;</c>
    /// field.</summary>
    public bool IsAction { get; }

    /// <summary>The field or action name.</summary>
    public string Name { get; }

    /// <summary>The package attribute, when present.</summary>
    public string? Package { get; }

    /// <summary>The type name (<c>int32</c>, <c>callstack</c>, <c>error_category</c>), when present.</summary>
    public string? TypeName { get; }

    /// <summary>The type's package, when present.</summary>
    public string? TypePackage { get; }

    /// <summary>The value content, when present. For map fields this is the numeric map key.</summary>
    public TargetValue? Value { get; }

    /// <summary>The map or flag text (<c>SERVER</c>; <c>BUFFER, DEFAULT_NO_USER, …</c>), when present.</summary>
    public string? MapText { get; }

    /// <summary>1-based line of the element.</summary>
    public long LineNumber { get; }

    /// <summary>The value text, or <see langword="null"/> when the field has no value.</summary>
    public string? ValueText => Value?.Text;
}

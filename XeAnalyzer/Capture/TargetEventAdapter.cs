using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Capture;

/// <summary>
/// Turns events of target-data XML (ring_buffer, pair_matching, <c>&lt;Events&gt;</c> lists, bare <c>event_data</c>
/// <c>&lt;event&gt;</c> elements) into <see cref="XEvent"/>s, so every analysis reads them like <c>.xel</c> events.
/// </summary>
/// <remarks>
/// <para>An <see cref="XeEventType"/> is built per event name from the fields seen (a new version when an event of the
/// same name has other fields or value types). A field's type comes from its <c>&lt;type name=…&gt;</c> when that names
/// a
/// <c>package0</c> base type and the value fits it; otherwise it is inferred from the value: an integer (decimal or
/// <c>0x</c> hex) becomes <c>uint64</c> (<c>int64</c> when negative), <c>true</c>/<c>false</c> a boolean, anything else
/// text. A field with a numeric <c>&lt;value&gt;</c> and a <c>&lt;text&gt;</c> becomes a map field: the map (named
/// after the field's type) collects each key with its text as they are met, so <see cref="XeValue.MapText"/> and
/// <see cref="XeValue.MapKey"/> work as for
/// <c>.xel</c> events; a flag value's comma-separated text is kept whole as the text of its key, and the first text
/// seen for a key wins. A <c>callstack</c> value of <c>0x…</c> addresses becomes a callstack; other stack text
/// (<c>module+0x…</c>) stays text.
/// <c>package0.event_sequence</c> is recognised, and must be an unsigned integer. Events without a parseable timestamp
/// get
/// <see cref="DateTime.MinValue"/> and are counted in <see cref="EventsWithoutTimestamp"/>.</para>
/// <para>Not thread-safe: use one converter per input.</para>
/// </remarks>
internal sealed class TargetEventAdapter
{
    /// <summary>The most distinct event shapes (name, fields and types) one converter accepts.</summary>
    public const int MaxEventTypes = 10_000;

    /// <summary>The most keys of one map (a map's keys arrive with the events that use them).</summary>
    public const int MaxMapEntries = 1_000_000;

    private readonly XeSchema _schema = new();
    private readonly string? _filePath;
    private readonly Dictionary<string, XePackage> _packages = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XeMap> _maps = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XeEventType> _types = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XeColumn> _actions = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XeActionSet> _actionSets = new(StringComparer.Ordinal);
    private readonly System.Text.StringBuilder _sig = new();

    /// <summary>Creates a converter.</summary>
    /// <param name="filePath">The input file, for event locations and messages; <see langword="null"/> for other
    /// sources.</param>
    public TargetEventAdapter(string? filePath = null)
    {
        _filePath = filePath;
    }

    /// <summary>The schema built so far (event types, maps and actions of the converted events).</summary>
    public XeSchema Schema => _schema;

    /// <summary>Events converted so far.</summary>
    public long EventsConverted { get; private set; }

    /// <summary>Events that had no parseable <c>timestamp</c> attribute (they get
    /// <see cref="DateTime.MinValue"/>).</summary>
    public long EventsWithoutTimestamp { get; private set; }

    /// <summary>Map values whose key had already been seen with another text (the first text is kept).</summary>
    public long MapTextConflicts { get; private set; }

    /// <summary>Converts one event.</summary>
    /// <param name="targetEvent">The event read by <see cref="TargetDataReader"/>.</param>
    /// <returns>The event.</returns>
    /// <exception cref="InvalidTextInputException">
    /// The input has more than <see cref="MaxEventTypes"/> distinct event shapes, or a <c>package0.event_sequence</c>
    /// that is not an unsigned integer.
    /// </exception>
    public XEvent Convert(TargetEvent targetEvent)
    {
        ArgumentNullException.ThrowIfNull(targetEvent);
        string package = PackageOf(targetEvent);
        string name = NameOf(targetEvent);

        var specs = new ValueSpec[targetEvent.Fields.Count];
        _sig.Clear().Append(package).Append('.').Append(name).Append('|');
        for (int i = 0; i < specs.Length; i++)
        {
            EventField f = targetEvent.Fields[i];
            specs[i] = Classify(f, FieldName(f, i), package, allowMap: true);
            _sig.Append(f.Name).Append(':').Append(specs[i].Signature).Append(';');
        }

        string signature = _sig.ToString();
        if (!_types.TryGetValue(signature, out XeEventType? type))
        {
            if (_types.Count >= MaxEventTypes)
            {
                throw new InvalidTextInputException(
                    _filePath,
                    Line(targetEvent.LineNumber),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"more than {MaxEventTypes} distinct event shapes (name, fields and value types); expected "
                            + $"Extended Events target data"
                    )
                );
            }

            var defs = new XeFieldDefinition[specs.Length];
            for (int i = 0; i < specs.Length; i++)
            {
                string fieldName = FieldName(targetEvent.Fields[i], i);
                defs[i] = specs[i].Map is XeMap m
                    ? XeFieldDefinition.Of(fieldName, m)
                    : XeFieldDefinition.Of(fieldName, specs[i].BaseType);
            }

            type = _schema.AddEvent(Package(package), name, Guid.Empty, defs);
            _types.Add(signature, type);
        }

        var values = new XeValue[specs.Length];
        for (int i = 0; i < specs.Length; i++)
        {
            values[i] = specs[i].Create(type.Fields[i]);
        }

        XeActionSet set = XeActionSet.Empty;
        XeValue[] actionValues = [];
        if (targetEvent.Actions.Count > 0)
        {
            var cols = new XeColumn[targetEvent.Actions.Count];
            var aspecs = new ValueSpec[cols.Length];
            _sig.Clear();
            for (int i = 0; i < cols.Length; i++)
            {
                EventField a = targetEvent.Actions[i];
                string apkg = string.IsNullOrEmpty(a.Package) ? "unknown" : a.Package!;
                string aname = a.Name.Length == 0 ? "action_" + i.ToString(CultureInfo.InvariantCulture) : a.Name;
                aspecs[i] = Classify(a, aname, apkg, allowMap: false);
                if (
                    aspecs[i].BaseType
                        is not (XeBaseType.UInt8 or XeBaseType.UInt16 or XeBaseType.UInt32 or XeBaseType.UInt64)
                    && string.Equals(apkg, "package0", StringComparison.Ordinal)
                    && string.Equals(aname, "event_sequence", StringComparison.Ordinal)
                )
                {
                    // Every analysis orders events by (timestamp, event_sequence): a sequence that is not a number is
                    // not one.
                    string found = aspecs[i].Text.Length > 40 ? aspecs[i].Text[..40] + "…" : aspecs[i].Text;
                    throw new InvalidTextInputException(
                        _filePath,
                        Line(a.LineNumber),
                        "expected an unsigned integer in the package0.event_sequence action (the event's sequence "
                            + "number), found '"
                            + found
                            + "'"
                    );
                }
                string key = apkg + "." + aname + ":" + aspecs[i].Signature;
                if (!_actions.TryGetValue(key, out XeColumn? col))
                {
                    if (_actions.Count >= MaxEventTypes)
                    {
                        throw new InvalidTextInputException(
                            _filePath,
                            Line(a.LineNumber),
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"more than {MaxEventTypes} distinct actions; expected Extended Events target data"
                            )
                        );
                    }

                    col = _schema.AddAction(Package(apkg), aname, aspecs[i].BaseType);
                    _actions.Add(key, col);
                }

                cols[i] = col;
                _sig.Append(key).Append(';');
            }

            string setKey = _sig.ToString();
            if (!_actionSets.TryGetValue(setKey, out XeActionSet? cached))
            {
                if (_actionSets.Count >= MaxEventTypes)
                {
                    throw new InvalidTextInputException(
                        _filePath,
                        Line(targetEvent.LineNumber),
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"more than {MaxEventTypes} distinct action lists; expected Extended Events target data"
                        )
                    );
                }

                cached = new XeActionSet(cols);
                _actionSets.Add(setKey, cached);
            }

            set = cached;
            actionValues = new XeValue[cols.Length];
            for (int i = 0; i < cols.Length; i++)
            {
                actionValues[i] = aspecs[i].Create(set[i]);
            }
        }

        DateTime timestamp;
        if (targetEvent.Timestamp is DateTimeOffset ts)
        {
            timestamp = ts.UtcDateTime;
        }
        else
        {
            timestamp = DateTime.SpecifyKind(DateTime.MinValue, DateTimeKind.Utc);
            EventsWithoutTimestamp++;
        }

        EventsConverted++;
        return XEvent.CreateShared(type, timestamp, values, actionValues, set, new XeSourceLocation(_filePath, -1));
    }

    /// <summary>The full name (<c>package.event</c>) the converted event will have.</summary>
    /// <param name="targetEvent">The event.</param>
    /// <returns>The name.</returns>
    public static string FullName(TargetEvent targetEvent) => PackageOf(targetEvent) + "." + NameOf(targetEvent);

    private static string PackageOf(TargetEvent te) => string.IsNullOrEmpty(te.Package) ? "unknown" : te.Package!;

    private static string NameOf(TargetEvent te) => te.Name.Length == 0 ? "unnamed" : te.Name;

    private static int? Line(long line) => line is > 0 and <= int.MaxValue ? (int)line : null;

    private XePackage Package(string name)
    {
        if (string.Equals(name, "package0", StringComparison.Ordinal))
        {
            return _schema.Package0;
        }

        if (!_packages.TryGetValue(name, out XePackage? p))
        {
            _ = _schema.Package0;
            p = _schema.AddPackage(name);
            _packages.Add(name, p);
        }

        return p;
    }

    /// <summary>A field's name, or <c>field_N</c> (its position) when the XML gives it none.</summary>
    private static string FieldName(EventField f, int index) =>
        f.Name.Length == 0 ? "field_" + index.ToString(CultureInfo.InvariantCulture) : f.Name;

    private ValueSpec Classify(EventField f, string fieldName, string eventPackage, bool allowMap)
    {
        string text = f.Value?.TextWithElements() ?? string.Empty;
        bool isInteger = FieldCondition.TryParseInteger(text, out ulong unsigned, out long signed, out bool negative);
        if (allowMap && f.MapText is not null && isInteger && !negative)
        {
            string mapPackage = string.IsNullOrEmpty(f.TypePackage) ? eventPackage : f.TypePackage!;
            string mapName = string.IsNullOrEmpty(f.TypeName) ? fieldName : f.TypeName!;
            XeMap map = MapFor(mapPackage, mapName, unsigned, f.MapText, f.LineNumber);
            return new ValueSpec(XeBaseType.UInt64, map, unsigned, 0, 0, text, null, Guid.Empty);
        }

        if (!allowMap && f.MapText is not null && (f.ValueText is null || !isInteger))
        {
            return Text(f.MapText);
        }

        XeBaseType declared = KnownBaseType(f.TypeName);
        if (declared != XeBaseType.None)
        {
            ValueSpec? spec = TryAs(declared, text, isInteger, unsigned, signed, negative);
            if (spec is not null)
            {
                return spec.Value;
            }
        }

        if (text.Length == 0)
        {
            return Text(text);
        }

        if (isInteger)
        {
            return negative
                ? new ValueSpec(XeBaseType.Int64, null, 0, signed, 0, text, null, Guid.Empty)
                : new ValueSpec(XeBaseType.UInt64, null, unsigned, 0, 0, text, null, Guid.Empty);
        }

        if (
            string.Equals(text, "true", StringComparison.OrdinalIgnoreCase)
            || string.Equals(text, "false", StringComparison.OrdinalIgnoreCase)
        )
        {
            return new ValueSpec(
                XeBaseType.Boolean,
                null,
                string.Equals(text, "true", StringComparison.OrdinalIgnoreCase) ? 1UL : 0UL,
                0,
                0,
                text,
                null,
                Guid.Empty
            );
        }

        return Text(text);
    }

    private static ValueSpec Text(string text) => new(XeBaseType.UnicodeString, null, 0, 0, 0, text, null, Guid.Empty);

    private static ValueSpec? TryAs(
        XeBaseType bt,
        string text,
        bool isInteger,
        ulong unsigned,
        long signed,
        bool negative
    )
    {
        switch (bt)
        {
            case XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64:
                if (
                    long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long l)
                    && Fits(bt, l)
                )
                {
                    return new ValueSpec(bt, null, 0, l, 0, text, null, Guid.Empty);
                }

                return null;
            case XeBaseType.UInt8
            or XeBaseType.UInt16
            or XeBaseType.UInt32
            or XeBaseType.UInt64
            or XeBaseType.Pointer
            or XeBaseType.CpuCycle
            or XeBaseType.FileTime
            or XeBaseType.GuidPointer:
                if (isInteger && !negative && FitsUnsigned(bt, unsigned))
                {
                    return new ValueSpec(bt, null, unsigned, signed, 0, text, null, Guid.Empty);
                }

                return null;
            case XeBaseType.Boolean:
                if (
                    string.Equals(text, "true", StringComparison.OrdinalIgnoreCase)
                    || (isInteger && unsigned == 1 && !negative)
                )
                {
                    return new ValueSpec(bt, null, 1, 1, 0, text, null, Guid.Empty);
                }

                if (
                    string.Equals(text, "false", StringComparison.OrdinalIgnoreCase)
                    || (isInteger && unsigned == 0 && !negative)
                )
                {
                    return new ValueSpec(bt, null, 0, 0, 0, text, null, Guid.Empty);
                }

                return null;
            case XeBaseType.Float32 or XeBaseType.Float64:
                return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double d)
                    ? new ValueSpec(bt, null, 0, 0, d, text, null, Guid.Empty)
                    : null;
            case XeBaseType.Guid:
                return Guid.TryParse(text, out Guid g) ? new ValueSpec(bt, null, 0, 0, 0, text, null, g) : null;
            case XeBaseType.Callstack:
                return TryParseFrames(text, out ulong[]? frames)
                    ? new ValueSpec(bt, null, 0, 0, 0, text, frames, Guid.Empty)
                    : null;
            case XeBaseType.AnsiString or XeBaseType.UnicodeString or XeBaseType.Xml:
                return new ValueSpec(bt, null, 0, 0, 0, text, null, Guid.Empty);
            default:
                return null;
        }
    }

    private static bool Fits(XeBaseType bt, long v) =>
        bt switch
        {
            XeBaseType.Int8 => v is >= sbyte.MinValue and <= sbyte.MaxValue,
            XeBaseType.Int16 => v is >= short.MinValue and <= short.MaxValue,
            XeBaseType.Int32 => v is >= int.MinValue and <= int.MaxValue,
            _ => true,
        };

    private static bool FitsUnsigned(XeBaseType bt, ulong v) =>
        bt switch
        {
            XeBaseType.UInt8 => v <= byte.MaxValue,
            XeBaseType.UInt16 => v <= ushort.MaxValue,
            XeBaseType.UInt32 => v <= uint.MaxValue,
            _ => true,
        };

    private static bool TryParseFrames(string text, out ulong[]? frames)
    {
        frames = null;
        var list = new List<ulong>();
        foreach (string raw in text.Split('\n'))
        {
            string line = raw.Trim();
            if (line.Length == 0)
            {
                continue;
            }

            if (
                !line.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
                || !ulong.TryParse(
                    line.AsSpan(2),
                    NumberStyles.AllowHexSpecifier,
                    CultureInfo.InvariantCulture,
                    out ulong a
                )
            )
            {
                return false;
            }

            list.Add(a);
            if (list.Count > 4096)
            {
                return false;
            }
        }

        frames = [.. list];
        return true;
    }

    private static XeBaseType KnownBaseType(string? typeName) =>
        typeName switch
        {
            "int8" => XeBaseType.Int8,
            "int16" => XeBaseType.Int16,
            "int32" => XeBaseType.Int32,
            "int64" => XeBaseType.Int64,
            "uint8" => XeBaseType.UInt8,
            "uint16" => XeBaseType.UInt16,
            "uint32" => XeBaseType.UInt32,
            "uint64" => XeBaseType.UInt64,
            "float32" => XeBaseType.Float32,
            "float64" => XeBaseType.Float64,
            "cpu_cycle" => XeBaseType.CpuCycle,
            "filetime" => XeBaseType.FileTime,
            "ptr" => XeBaseType.Pointer,
            "ansi_string" => XeBaseType.AnsiString,
            "unicode_string" => XeBaseType.UnicodeString,
            "guid" => XeBaseType.Guid,
            "callstack" => XeBaseType.Callstack,
            "boolean" => XeBaseType.Boolean,
            "xml" => XeBaseType.Xml,
            _ => XeBaseType.None,
        };

    private XeMap MapFor(string package, string name, ulong key, string text, long line)
    {
        string id = package + "." + name;
        if (!_maps.TryGetValue(id, out XeMap? map))
        {
            if (_maps.Count >= MaxEventTypes)
            {
                throw new InvalidTextInputException(
                    _filePath,
                    Line(line),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"more than {MaxEventTypes} distinct maps; expected Extended Events target data"
                    )
                );
            }

            map = _schema.AddMap(Package(package), name, [], keySize: 8);
            _maps.Add(id, map);
        }

        // XeMapEntry keys are 32-bit: a larger key renders as its number.
        if (key <= uint.MaxValue)
        {
            if (map.Entries.Count >= MaxMapEntries && map.TryGetName(key, out _) is false)
            {
                throw new InvalidTextInputException(
                    _filePath,
                    Line(line),
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"at most {MaxMapEntries:N0} keys in map {id}; expected Extended Events target data"
                    )
                );
            }

            map.TryAddEntry((uint)key, text, out bool conflict);
            if (conflict)
            {
                MapTextConflicts++;
            }
        }

        return map;
    }

    private readonly record struct ValueSpec(
        XeBaseType BaseType,
        XeMap? Map,
        ulong Unsigned,
        long Signed,
        double Double,
        string Text,
        ulong[]? Frames,
        Guid Guid
    )
    {
        public string Signature =>
            Map is not null
                ? "m" + Map.Rid.ToString(CultureInfo.InvariantCulture)
                : ((int)BaseType).ToString(CultureInfo.InvariantCulture);

        public XeValue Create(XeColumn column) =>
            Map is not null
                ? XeValue.Create(column, Unsigned)
                : BaseType switch
                {
                    XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64 => XeValue.Create(
                        column,
                        Signed
                    ),
                    XeBaseType.Float32 or XeBaseType.Float64 => XeValue.Create(column, Double),
                    XeBaseType.Guid => XeValue.Create(column, Guid),
                    XeBaseType.Callstack => XeValue.Create(column, Frames ?? []),
                    XeBaseType.AnsiString or XeBaseType.UnicodeString or XeBaseType.Xml => XeValue.Create(column, Text),
                    _ => XeValue.Create(column, Unsigned),
                };
    }
}

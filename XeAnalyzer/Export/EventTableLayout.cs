using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Export;

/// <summary>How a column's value is read from an <see cref="XeValue"/>.</summary>
internal enum ValueConversion
{
    Signed,
    Unsigned,
    Float,
    Boolean,
    FileTime,
    Text,
    Rendered,
    Binary,
    Callstack,
    MapText,
    MapKey,
}

/// <summary>The exported shape of one field or action: a value column (and, for a map, a key column).</summary>
internal readonly record struct ColumnShape(
    bool IsMap,
    ParquetColumnType ValueType,
    ParquetColumnType? KeyType,
    bool TextStack = false
)
{
    public static ColumnShape Of(XeColumn c)
    {
        if (c.Map is XeMap m)
        {
            return new ColumnShape(
                true,
                ParquetColumnType.String,
                m.KeySize switch
                {
                    1 => ParquetColumnType.UInt8,
                    2 => ParquetColumnType.UInt16,
                    4 => ParquetColumnType.UInt32,
                    _ => ParquetColumnType.UInt64,
                }
            );
        }

        // A text column holding frames (target-data XML carries stacks as text) is a stack by the one rule of
        // StackColumns.
        return new ColumnShape(
            false,
            ValueTypeOf(c),
            null,
            c.BaseType != XeBaseType.Callstack && Capture.StackColumns.IsStack(c)
        );
    }

    public static ValueConversion ConversionOf(XeColumn c)
    {
        if (c.IsMap)
        {
            return ValueConversion.MapText;
        }

        return c.BaseType switch
        {
            XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64 => ValueConversion.Signed,
            XeBaseType.UInt8
            or XeBaseType.UInt16
            or XeBaseType.UInt32
            or XeBaseType.UInt64
            or XeBaseType.CpuCycle
            or XeBaseType.Pointer
            or XeBaseType.GuidPointer => ValueConversion.Unsigned,
            XeBaseType.Float32 or XeBaseType.Float64 => ValueConversion.Float,
            XeBaseType.Boolean => ValueConversion.Boolean,
            XeBaseType.FileTime => ValueConversion.FileTime,
            XeBaseType.AnsiString or XeBaseType.UnicodeString or XeBaseType.Xml => ValueConversion.Text,
            XeBaseType.Guid or XeBaseType.ActivityId or XeBaseType.ActivityIdTransfer => ValueConversion.Rendered,
            XeBaseType.Callstack => ValueConversion.Callstack,
            XeBaseType.BinaryData => ValueConversion.Binary,
            _ => c.IsVariableLength || c.Size > 8 ? ValueConversion.Binary : ValueConversion.Unsigned,
        };
    }

    private static ParquetColumnType ValueTypeOf(XeColumn c) =>
        c.BaseType switch
        {
            XeBaseType.Int8 => ParquetColumnType.Int8,
            XeBaseType.Int16 => ParquetColumnType.Int16,
            XeBaseType.Int32 => ParquetColumnType.Int32,
            XeBaseType.Int64 => ParquetColumnType.Int64,
            XeBaseType.UInt8 => ParquetColumnType.UInt8,
            XeBaseType.UInt16 => ParquetColumnType.UInt16,
            XeBaseType.UInt32 => ParquetColumnType.UInt32,
            XeBaseType.UInt64 or XeBaseType.CpuCycle or XeBaseType.Pointer or XeBaseType.GuidPointer =>
                ParquetColumnType.UInt64,
            XeBaseType.Float32 => ParquetColumnType.Float,
            XeBaseType.Float64 => ParquetColumnType.Double,
            XeBaseType.Boolean => ParquetColumnType.Boolean,
            XeBaseType.FileTime => ParquetColumnType.TimestampMicros,
            XeBaseType.AnsiString
            or XeBaseType.UnicodeString
            or XeBaseType.Xml
            or XeBaseType.Guid
            or XeBaseType.ActivityId
            or XeBaseType.ActivityIdTransfer => ParquetColumnType.String,
            XeBaseType.Callstack => ParquetColumnType.Int64List,
            XeBaseType.BinaryData => ParquetColumnType.Binary,
            _ => c.IsVariableLength || c.Size > 8 ? ParquetColumnType.Binary : ParquetColumnType.UInt64,
        };

    /// <summary>Whether two shapes can share columns; <paramref name="merged"/> is the wider shape.</summary>
    public static bool TryMerge(ColumnShape a, ColumnShape b, out ColumnShape merged)
    {
        merged = a;
        if (a.IsMap != b.IsMap)
        {
            return false;
        }

        if (!TryWiden(a.ValueType, b.ValueType, out ParquetColumnType value))
        {
            return false;
        }

        ParquetColumnType? key = null;
        if (a.KeyType is ParquetColumnType ka && b.KeyType is ParquetColumnType kb)
        {
            if (!TryWiden(ka, kb, out ParquetColumnType k))
            {
                return false;
            }

            key = k;
        }

        merged = new ColumnShape(a.IsMap, value, key, a.TextStack || b.TextStack);
        return true;
    }

    /// <summary>Equal types merge; integers of the same signedness widen to the larger one.</summary>
    private static bool TryWiden(ParquetColumnType a, ParquetColumnType b, out ParquetColumnType wider)
    {
        wider = a;
        if (a == b)
        {
            return true;
        }

        int ra = Rank(a, out bool sa),
            rb = Rank(b, out bool sb);
        if (ra < 0 || rb < 0 || sa != sb)
        {
            return false;
        }

        wider = ra >= rb ? a : b;
        return true;
    }

    private static int Rank(ParquetColumnType t, out bool signed)
    {
        signed =
            t
                is ParquetColumnType.Int8
                    or ParquetColumnType.Int16
                    or ParquetColumnType.Int32
                    or ParquetColumnType.Int64;
        return t switch
        {
            ParquetColumnType.Int8 or ParquetColumnType.UInt8 => 0,
            ParquetColumnType.Int16 or ParquetColumnType.UInt16 => 1,
            ParquetColumnType.Int32 or ParquetColumnType.UInt32 => 2,
            ParquetColumnType.Int64 or ParquetColumnType.UInt64 => 3,
            _ => -1,
        };
    }

    public string Describe() => IsMap ? "map (key " + KeyType!.Value.ToString() + ")" : ValueType.ToString();
}

/// <summary>One field or action of a merged table, before column names are assigned.</summary>
internal sealed class TableMember(string key, string shortName, string packageName, ColumnShape shape)
{
    /// <summary>The field name, or the action's <c>package.name</c>.</summary>
    public string Key { get; } = key;

    public string ShortName { get; } = shortName;

    public string PackageName { get; } = packageName;

    public ColumnShape Shape { get; set; } = shape;

    public int ValueColumn { get; set; } = -1;

    public int KeyColumn { get; set; } = -1;

    /// <summary>For a callstack exported with a frame resolver: the <c>name_frames</c> column, else -1.</summary>
    public int FramesColumn { get; set; } = -1;
}

/// <summary>
/// The table of one event (<c>package.event</c>) and schema variant: the merged fields and actions of every event type
/// (from every input file) written to it, then the Parquet columns. See <see cref="XelParquetExporter"/> for the
/// layout.
/// </summary>
internal sealed class EventTable
{
    /// <summary>The common columns, first in every table.</summary>
    public static readonly ParquetColumn[] CommonColumns =
    [
        new("timestamp_utc", ParquetColumnType.TimestampMicros, isNullable: false),
        new("event_sequence", ParquetColumnType.UInt64),
        new("capture_file", ParquetColumnType.String, isNullable: false),
        new("file_offset", ParquetColumnType.Int64, isNullable: false),
        new("event_name", ParquetColumnType.String, isNullable: false),
        new("package", ParquetColumnType.String, isNullable: false),
    ];

    public const string EventSequenceAction = "package0.event_sequence";

    private readonly List<TableMember> _fields = [];
    private readonly List<TableMember> _actions = [];
    private readonly Dictionary<string, TableMember> _fieldsByKey = new(StringComparer.Ordinal);
    private readonly Dictionary<string, TableMember> _actionsByKey = new(StringComparer.Ordinal);
    private readonly List<string> _sourceFiles = [];

    public EventTable(string packageName, string eventName, int variant)
    {
        PackageName = packageName;
        EventName = eventName;
        Variant = variant;
    }

    public string PackageName { get; }

    public string EventName { get; }

    public string FullName => PackageName + "." + EventName;

    /// <summary>1 for the first schema of an event; 2, 3… for schemas that could not be merged with earlier
    /// ones.</summary>
    public int Variant { get; }

    public string FileName =>
        SafeFileName(FullName)
        + (Variant > 1 ? ".schema" + Variant.ToString(CultureInfo.InvariantCulture) : string.Empty)
        + ".parquet";

    public IReadOnlyList<string> SourceFiles => _sourceFiles;

    public ParquetColumn[] Columns { get; private set; } = [];

    public TableMember? Field(string name) => _fieldsByKey.GetValueOrDefault(name);

    public TableMember? Action(string fullName) => _actionsByKey.GetValueOrDefault(fullName);

    /// <summary>
    /// Adds an event type (and the actions its events carry) when every same-named field and action has a compatible
    /// shape; otherwise leaves the table unchanged and says why.
    /// </summary>
    public bool TryAdd(string file, XeEventType type, IReadOnlyList<XeColumn> actions, out string? conflict)
    {
        var fieldShapes = new List<(TableMember? Existing, XeColumn Column, ColumnShape Merged)>();
        foreach (XeColumn f in type.Fields)
        {
            ColumnShape s = ColumnShape.Of(f);
            TableMember? existing = _fieldsByKey.GetValueOrDefault(f.Name);
            if (existing is not null && !ColumnShape.TryMerge(existing.Shape, s, out s))
            {
                conflict =
                    "field '"
                    + f.Name
                    + "' is "
                    + ColumnShape.Of(f).Describe()
                    + " in "
                    + file
                    + " but "
                    + existing.Shape.Describe()
                    + " in "
                    + _sourceFiles[0];
                return false;
            }

            fieldShapes.Add((existing, f, s));
        }

        var actionShapes = new List<(TableMember? Existing, XeColumn Column, ColumnShape Merged)>();
        foreach (XeColumn a in actions)
        {
            if (string.Equals(a.FullName, EventSequenceAction, StringComparison.Ordinal))
            {
                continue;
            }

            ColumnShape s = ColumnShape.Of(a);
            TableMember? existing = _actionsByKey.GetValueOrDefault(a.FullName);
            if (existing is not null && !ColumnShape.TryMerge(existing.Shape, s, out s))
            {
                conflict =
                    "action '"
                    + a.FullName
                    + "' is "
                    + ColumnShape.Of(a).Describe()
                    + " in "
                    + file
                    + " but "
                    + existing.Shape.Describe()
                    + " in "
                    + _sourceFiles[0];
                return false;
            }

            actionShapes.Add((existing, a, s));
        }

        foreach ((TableMember? existing, XeColumn f, ColumnShape s) in fieldShapes)
        {
            if (existing is not null)
            {
                existing.Shape = s;
            }
            else if (!_fieldsByKey.ContainsKey(f.Name))
            {
                var m = new TableMember(f.Name, f.Name, f.Package.Name, s);
                _fields.Add(m);
                _fieldsByKey.Add(f.Name, m);
            }
        }

        foreach ((TableMember? existing, XeColumn a, ColumnShape s) in actionShapes)
        {
            if (existing is not null)
            {
                existing.Shape = s;
            }
            else if (!_actionsByKey.ContainsKey(a.FullName))
            {
                var m = new TableMember(a.FullName, a.Name, a.Package.Name, s);
                _actions.Add(m);
                _actionsByKey.Add(a.FullName, m);
            }
        }

        if (!_sourceFiles.Contains(file))
        {
            _sourceFiles.Add(file);
        }

        conflict = null;
        return true;
    }

    /// <summary>Whether some events of the table come from target-data XML, which has no file offsets
    /// (<c>file_offset</c> is then nullable).</summary>
    public bool HasEventsWithoutOffset { get; set; }

    /// <summary>
    /// Assigns column names and indices: the common columns, then fields (<c>name</c>; a map adds <c>name_key</c>),
    /// then actions (<c>name</c>; <c>action_name</c> when a field or common column has that name;
    /// <c>action_package_name</c> when that is taken too). A name still taken gets <c>_2</c>, <c>_3</c>… With
    /// <paramref name="resolvedFrames"/>, each callstack column is followed by <c>name_frames</c>.
    /// </summary>
    public void Complete(bool resolvedFrames)
    {
        var columns = new List<ParquetColumn>(CommonColumns);
        if (HasEventsWithoutOffset)
        {
            columns[3] = new ParquetColumn(CommonColumns[3].Name, CommonColumns[3].Type, isNullable: true);
        }

        var used = new HashSet<string>(CommonColumns.Select(c => c.Name), StringComparer.Ordinal);
        foreach (TableMember f in _fields)
        {
            string name = Unique(used, used.Contains(f.ShortName) ? "field_" + f.ShortName : f.ShortName);
            AddColumns(columns, used, f, name, resolvedFrames);
        }

        foreach (TableMember a in _actions)
        {
            string name = a.ShortName;
            if (used.Contains(name))
            {
                name = "action_" + a.ShortName;
            }

            if (used.Contains(name))
            {
                name = "action_" + a.PackageName + "_" + a.ShortName;
            }

            AddColumns(columns, used, a, Unique(used, name), resolvedFrames);
        }

        Columns = [.. columns];
    }

    private static void AddColumns(
        List<ParquetColumn> columns,
        HashSet<string> used,
        TableMember m,
        string name,
        bool resolvedFrames
    )
    {
        used.Add(name);
        m.ValueColumn = columns.Count;
        columns.Add(new ParquetColumn(name, m.Shape.ValueType));
        if (resolvedFrames && (m.Shape.ValueType == ParquetColumnType.Int64List || m.Shape.TextStack))
        {
            string framesName = Unique(used, name + "_frames");
            used.Add(framesName);
            m.FramesColumn = columns.Count;
            columns.Add(new ParquetColumn(framesName, ParquetColumnType.StringList));
        }

        if (m.Shape.KeyType is ParquetColumnType key)
        {
            string keyName = Unique(used, name + "_key");
            used.Add(keyName);
            m.KeyColumn = columns.Count;
            columns.Add(new ParquetColumn(keyName, key));
        }
    }

    private static string Unique(HashSet<string> used, string name)
    {
        if (!used.Contains(name))
        {
            return name;
        }

        for (int k = 2; ; k++)
        {
            string candidate = name + "_" + k.ToString(CultureInfo.InvariantCulture);
            if (!used.Contains(candidate))
            {
                return candidate;
            }
        }
    }

    private static string SafeFileName(string name)
    {
        char[] invalid = ['/', '\\', ':', '*', '?', '"', '<', '>', '|'];
        var chars = name.ToCharArray();
        for (int i = 0; i < chars.Length; i++)
        {
            if (Array.IndexOf(invalid, chars[i]) >= 0 || char.IsControl(chars[i]))
            {
                chars[i] = '_';
            }
        }

        string s = new(chars);
        return s is "." or ".." ? "_" : s;
    }
}

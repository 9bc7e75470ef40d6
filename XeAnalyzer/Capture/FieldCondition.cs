using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Events;

namespace XeAnalyzer.Capture;

/// <summary>How a <see cref="FieldCondition"/> compares a value with its own.</summary>
internal enum ConditionOperator
{
    /// <summary><c>=</c>: equal (see <see cref="EventFilter"/> for the rules).</summary>
    Equal,

    /// <summary><c>!=</c>: present and not equal.</summary>
    NotEqual,

    /// <summary><c>&lt;</c> on a number or a time.</summary>
    Less,

    /// <summary><c>&lt;=</c> on a number or a time.</summary>
    LessOrEqual,

    /// <summary><c>&gt;</c> on a number or a time.</summary>
    Greater,

    /// <summary><c>&gt;=</c> on a number or a time.</summary>
    GreaterOrEqual,

    /// <summary><c>~</c>: a .NET regular expression found in the rendered text.</summary>
    Matches,
}

/// <summary>
/// One <c>--where</c> condition of an <see cref="EventFilter"/>: <c>name=value</c>, <c>name!=value</c>,
/// <c>name&lt;value</c>, <c>name&lt;=value</c>, <c>name&gt;value</c>, <c>name&gt;=value</c> or <c>name~pattern</c>. The
/// name is a field or action of the event (see <see cref="EventFilter"/> for lookup and comparison rules). Immutable.
/// </summary>
public sealed class FieldCondition
{
    /// <summary>How long one regular-expression match may run before the filter gives up on the pattern.</summary>
    internal static readonly TimeSpan PatternTimeout = TimeSpan.FromSeconds(1);

    /// <summary>Creates an equality condition (<c>name=value</c>).</summary>
    /// <param name="name">The field or action name (short, or <c>package.action</c> for an action).</param>
    /// <param name="value">The value to compare with (map text or key, a number, or text).</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty.</exception>
    public FieldCondition(string name, string value)
        : this(name, ConditionOperator.Equal, value) { }

    /// <summary>Creates a condition with an operator.</summary>
    /// <exception cref="FormatException">An ordering operator's value is neither a number nor a time, or a
    /// <c>~</c> pattern is not a valid regular expression.</exception>
    internal FieldCondition(string name, ConditionOperator op, string value)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(value);
        Name = name.Trim();
        Value = value;
        Operator = op;
        IsActionName = Name.Contains('.', StringComparison.Ordinal);
        HasInteger = TryParseInteger(value, out ulong u, out long s, out bool negative);
        UnsignedValue = u;
        SignedValue = s;
        IsNegative = negative;
        HasDouble =
            double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double d)
            && double.IsFinite(d);
        DoubleValue = d;
        if (string.Equals(value, "true", StringComparison.OrdinalIgnoreCase))
        {
            HasInteger = true;
            UnsignedValue = 1;
            SignedValue = 1;
        }
        else if (string.Equals(value, "false", StringComparison.OrdinalIgnoreCase))
        {
            HasInteger = true;
            UnsignedValue = 0;
            SignedValue = 0;
        }

        if (
            op
            is ConditionOperator.Less
                or ConditionOperator.LessOrEqual
                or ConditionOperator.Greater
                or ConditionOperator.GreaterOrEqual
        )
        {
            TimeValue = EventFilter.TryParseTime(value, out DateTime t) ? t : null;
            if (!HasDouble && !HasInteger && TimeValue is null)
            {
                throw new FormatException(
                    "expected a number or a UTC time after "
                        + Name
                        + OperatorText(op)
                        + " (for example duration>=1000 or "
                        + "0x10 or 2024-03-01T12:00:00Z), found '"
                        + value
                        + "'"
                );
            }
        }
        else if (op == ConditionOperator.Matches)
        {
            try
            {
                Pattern = new Regex(value, RegexOptions.IgnoreCase | RegexOptions.CultureInvariant, PatternTimeout);
            }
            catch (ArgumentException ex)
            {
                throw new FormatException(
                    "expected a .NET regular expression after " + Name + "~, found '" + value + "': " + ex.Message,
                    ex
                );
            }
        }
    }

    /// <summary>The field or action name as given.</summary>
    public string Name { get; }

    /// <summary>The value as given.</summary>
    public string Value { get; }

    /// <summary>Whether <see cref="Name"/> is a full <c>package.action</c> name (then only actions are
    /// searched).</summary>
    public bool IsActionName { get; }

    internal bool HasInteger { get; }

    internal ulong UnsignedValue { get; }

    internal long SignedValue { get; }

    internal bool IsNegative { get; }

    internal bool HasDouble { get; }

    internal double DoubleValue { get; }

    /// <summary>How the value is compared.</summary>
    internal ConditionOperator Operator { get; }

    /// <summary>For an ordering operator: the value as a UTC time, when it reads as one.</summary>
    internal DateTime? TimeValue { get; }

    /// <summary>For <c>~</c>: the pattern.</summary>
    internal Regex? Pattern { get; }

    /// <summary>
    /// Parses <c>name</c>, an operator and a value: the first of the characters <c>= ! &lt; &gt; ~</c> starts the
    /// operator (<c>=</c>, <c>!=</c>, <c>&lt;</c>, <c>&lt;=</c>, <c>&gt;</c>, <c>&gt;=</c> or <c>~</c>), the rest is
    /// the value, which may be empty or hold those characters.
    /// </summary>
    /// <param name="text">The condition text.</param>
    /// <returns>The condition.</returns>
    /// <exception cref="FormatException">There is no operator, the name is empty, an ordering operator's value is
    /// neither a number nor a time, or a <c>~</c> pattern is not a valid regular expression.</exception>
    public static FieldCondition Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        int at = text.AsSpan().IndexOfAny("=!<>~");
        (ConditionOperator op, int length) =
            at < 0
                ? (ConditionOperator.Equal, 0)
                : text[at] switch
                {
                    '!' when at + 1 < text.Length && text[at + 1] == '=' => (ConditionOperator.NotEqual, 2),
                    '<' when at + 1 < text.Length && text[at + 1] == '=' => (ConditionOperator.LessOrEqual, 2),
                    '>' when at + 1 < text.Length && text[at + 1] == '=' => (ConditionOperator.GreaterOrEqual, 2),
                    '<' => (ConditionOperator.Less, 1),
                    '>' => (ConditionOperator.Greater, 1),
                    '~' => (ConditionOperator.Matches, 1),
                    '=' => (ConditionOperator.Equal, 1),
                    _ => (ConditionOperator.Equal, 0),
                };
        if (length == 0 || string.IsNullOrWhiteSpace(text[..at]))
        {
            throw new FormatException(
                "expected NAME=VALUE, NAME!=VALUE, NAME<VALUE, NAME<=VALUE, NAME>VALUE, "
                    + "NAME>=VALUE or NAME~PATTERN (for example class=NESTING_TRANSACTION_FULL, duration>=1000 or "
                    + "sql_text~^insert), found '"
                    + text
                    + "'"
            );
        }

        return new FieldCondition(text[..at], op, text[(at + length)..]);
    }

    /// <summary>Whether a value of a column matches this condition (see <see cref="EventFilter"/> for the
    /// rules).</summary>
    /// <param name="value">The value.</param>
    /// <returns>Whether it matches.</returns>
    public bool MatchesValue(XeValue value)
    {
        if (value.Column is null)
        {
            return false;
        }

        return Operator switch
        {
            ConditionOperator.Equal => IsEqual(value),
            ConditionOperator.NotEqual => !IsEqual(value),
            ConditionOperator.Matches => Pattern!.IsMatch(
                value.Column.Map is not null ? value.MapText : value.ToString()
            ),
            _ => Compare(value) is int c
                && Operator switch
                {
                    ConditionOperator.Less => c < 0,
                    ConditionOperator.LessOrEqual => c <= 0,
                    ConditionOperator.Greater => c > 0,
                    _ => c >= 0,
                },
        };
    }

    private bool IsEqual(XeValue value)
    {
        XeColumn column = value.Column!;
        if (column.Map is XeMap map)
        {
            ulong key = value.MapKey;
            if (HasInteger && !IsNegative && key == UnsignedValue)
            {
                return true;
            }

            return string.Equals(map.GetText(key), Value, StringComparison.OrdinalIgnoreCase);
        }

        XeBaseType bt = column.BaseType;
        switch (bt)
        {
            case XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64:
                return HasInteger && (IsNegative || UnsignedValue <= long.MaxValue) && value.AsInt64() == SignedValue;
            case XeBaseType.UInt8
            or XeBaseType.UInt16
            or XeBaseType.UInt32
            or XeBaseType.UInt64
            or XeBaseType.Pointer
            or XeBaseType.CpuCycle
            or XeBaseType.Boolean
            or XeBaseType.GuidPointer:
                return HasInteger && !IsNegative && value.AsUInt64() == UnsignedValue;
            case XeBaseType.Float32 or XeBaseType.Float64:
                return HasDouble && value.AsDouble() == DoubleValue;
            default:
                if (
                    HasInteger
                    && !IsNegative
                    && column.Size is 1 or 2 or 4 or 8
                    && !XeBaseTypes.IsText(bt)
                    && bt != XeBaseType.FileTime
                )
                {
                    return value.AsUInt64() == UnsignedValue;
                }

                return string.Equals(value.ToString(), Value, StringComparison.OrdinalIgnoreCase);
        }
    }

    /// <summary>
    /// The sign of the value compared with this condition's number or time, or <see langword="null"/> when the column
    /// holds neither (text, binary data, a callstack) or the value cannot be read as one.
    /// </summary>
    private int? Compare(XeValue value)
    {
        XeColumn column = value.Column!;
        if (column.Map is not null)
        {
            return HasInteger && !IsNegative ? value.MapKey.CompareTo(UnsignedValue)
                : HasDouble ? ((double)value.MapKey).CompareTo(DoubleValue)
                : null;
        }

        XeBaseType bt = column.BaseType;
        switch (bt)
        {
            case XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64:
                if (HasInteger)
                {
                    return !IsNegative && UnsignedValue > long.MaxValue ? -1 : value.AsInt64().CompareTo(SignedValue);
                }

                return HasDouble ? ((double)value.AsInt64()).CompareTo(DoubleValue) : null;
            case XeBaseType.Float32 or XeBaseType.Float64:
                return HasDouble ? value.AsDouble().CompareTo(DoubleValue) : null;
            case XeBaseType.FileTime:
                return TimeValue is DateTime t && value.AsUInt64() <= XeValue.MaxFileTime
                    ? value.AsDateTime().CompareTo(t)
                    : null;
            default:
                bool unsigned =
                    bt
                        is XeBaseType.UInt8
                            or XeBaseType.UInt16
                            or XeBaseType.UInt32
                            or XeBaseType.UInt64
                            or XeBaseType.Pointer
                            or XeBaseType.CpuCycle
                            or XeBaseType.Boolean
                    || (column.Size is 1 or 2 or 4 or 8 && !XeBaseTypes.IsText(bt) && bt != XeBaseType.GuidPointer);
                if (!unsigned)
                {
                    return null;
                }

                if (HasInteger)
                {
                    return IsNegative ? 1 : value.AsUInt64().CompareTo(UnsignedValue);
                }

                return HasDouble ? ((double)value.AsUInt64()).CompareTo(DoubleValue) : null;
        }
    }

    /// <inheritdoc/>
    public override string ToString() => Name + OperatorText(Operator) + Value;

    private static string OperatorText(ConditionOperator op) =>
        op switch
        {
            ConditionOperator.NotEqual => "!=",
            ConditionOperator.Less => "<",
            ConditionOperator.LessOrEqual => "<=",
            ConditionOperator.Greater => ">",
            ConditionOperator.GreaterOrEqual => ">=",
            ConditionOperator.Matches => "~",
            _ => "=",
        };

    /// <summary>Parses a decimal (optionally signed) or <c>0x</c> hexadecimal integer.</summary>
    internal static bool TryParseInteger(string text, out ulong unsigned, out long signed, out bool negative)
    {
        unsigned = 0;
        signed = 0;
        negative = false;
        ReadOnlySpan<char> s = text.AsSpan().Trim();
        if (s.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
        {
            if (
                s.Length > 2
                && ulong.TryParse(s[2..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out unsigned)
            )
            {
                signed = unchecked((long)unsigned);
                return true;
            }

            return false;
        }

        if (s.Length > 0 && s[0] == '-')
        {
            if (long.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out signed))
            {
                negative = signed < 0;
                unsigned = negative ? 0 : (ulong)signed;
                return true;
            }

            return false;
        }

        if (ulong.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out unsigned))
        {
            signed = unchecked((long)unsigned);
            return true;
        }

        return false;
    }
}

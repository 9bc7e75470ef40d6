using System.Globalization;
using XeAnalyzer.Events;

namespace XeAnalyzer.Capture;

/// <summary>
/// One <c>--where name=value</c> condition of an <see cref="EventFilter"/>. The name is a field or action of the event
/// (see <see cref="EventFilter"/> for lookup and comparison rules). Immutable.
/// </summary>
public sealed class FieldCondition
{
    /// <summary>Creates a condition.</summary>
    /// <param name="name">The field or action name (short, or <c>package.action</c> for an action).</param>
    /// <param name="value">The value to compare with (map text or key, a number, or text).</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty.</exception>
    public FieldCondition(string name, string value)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(value);
        Name = name.Trim();
        Value = value;
        IsActionName = Name.Contains('.', StringComparison.Ordinal);
        HasInteger = TryParseInteger(value, out ulong u, out long s, out bool negative);
        UnsignedValue = u;
        SignedValue = s;
        IsNegative = negative;
        HasDouble = double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double d) && double.IsFinite(d);
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
    }

    /// <summary>The field or action name as given.</summary>
    public string Name { get; }

    /// <summary>The value as given.</summary>
    public string Value { get; }

    /// <summary>Whether <see cref="Name"/> is a full <c>package.action</c> name (then only actions are searched).</summary>
    public bool IsActionName { get; }

    internal bool HasInteger { get; }

    internal ulong UnsignedValue { get; }

    internal long SignedValue { get; }

    internal bool IsNegative { get; }

    internal bool HasDouble { get; }

    internal double DoubleValue { get; }

    /// <summary>Parses <c>name=value</c> (the first <c>=</c> separates them; the value may be empty or contain <c>=</c>).</summary>
    /// <param name="text">The condition text.</param>
    /// <returns>The condition.</returns>
    /// <exception cref="FormatException">There is no <c>=</c>, or the name is empty.</exception>
    public static FieldCondition Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        int eq = text.IndexOf('=', StringComparison.Ordinal);
        if (eq <= 0 || string.IsNullOrWhiteSpace(text[..eq]))
        {
            throw new FormatException("expected field=value (for example class=NESTING_TRANSACTION_FULL or wait_type=120), found '" + text + "'");
        }

        return new FieldCondition(text[..eq], text[(eq + 1)..]);
    }

    /// <summary>Whether a value of a column matches this condition (see <see cref="EventFilter"/> for the rules).</summary>
    /// <param name="value">The value.</param>
    /// <returns>Whether it matches.</returns>
    public bool MatchesValue(XeValue value)
    {
        XeColumn? column = value.Column;
        if (column is null)
        {
            return false;
        }

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
            case XeBaseType.UInt8 or XeBaseType.UInt16 or XeBaseType.UInt32 or XeBaseType.UInt64 or XeBaseType.Pointer
                or XeBaseType.CpuCycle or XeBaseType.Boolean or XeBaseType.GuidPointer:
                return HasInteger && !IsNegative && value.AsUInt64() == UnsignedValue;
            case XeBaseType.Float32 or XeBaseType.Float64:
                return HasDouble && value.AsDouble() == DoubleValue;
            default:
                if (HasInteger && !IsNegative && column.Size is 1 or 2 or 4 or 8 && !XeBaseTypes.IsText(bt) && bt != XeBaseType.FileTime)
                {
                    return value.AsUInt64() == UnsignedValue;
                }

                return string.Equals(value.ToString(), Value, StringComparison.OrdinalIgnoreCase);
        }
    }

    /// <inheritdoc/>
    public override string ToString() => Name + "=" + Value;

    /// <summary>Parses a decimal (optionally signed) or <c>0x</c> hexadecimal integer.</summary>
    internal static bool TryParseInteger(string text, out ulong unsigned, out long signed, out bool negative)
    {
        unsigned = 0;
        signed = 0;
        negative = false;
        ReadOnlySpan<char> s = text.AsSpan().Trim();
        if (s.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
        {
            if (s.Length > 2 && ulong.TryParse(s[2..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out unsigned))
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

using System.Diagnostics.CodeAnalysis;

namespace XeAnalyzer.Events;

/// <summary>
/// What a per-event loop worked out for the last two (event type, action set) pairs, so an event of either costs two
/// reference comparisons instead of a dictionary lookup: captures often alternate two event types (latch_acquired and
/// latch_released, wait_info begin and end). A mutable struct: keep it in a field and call it in place.
/// </summary>
/// <typeparam name="T">What is remembered per pair.</typeparam>
internal struct RecentEventLayouts<T>
    where T : class
{
    private XeEventType? _type;
    private XeActionSet? _set;
    private T? _value;
    private XeEventType? _otherType;
    private XeActionSet? _otherSet;
    private T? _otherValue;

    /// <summary>The value remembered for the pair, if it is one of the last two (the one found becomes the
    /// last).</summary>
    public bool TryGet(XeEventType type, XeActionSet set, [NotNullWhen(true)] out T? value)
    {
        if (!ReferenceEquals(type, _type) || !ReferenceEquals(set, _set))
        {
            if (!ReferenceEquals(type, _otherType) || !ReferenceEquals(set, _otherSet))
            {
                value = null;
                return false;
            }

            (_otherType, _type) = (_type, _otherType);
            (_otherSet, _set) = (_set, _otherSet);
            (_otherValue, _value) = (_value, _otherValue);
        }

        value = _value!;
        return true;
    }

    /// <summary>Remembers the value of a pair as the last; the last one before becomes the other.</summary>
    public void Add(XeEventType type, XeActionSet set, T value)
    {
        _otherType = _type;
        _otherSet = _set;
        _otherValue = _value;
        _type = type;
        _set = set;
        _value = value;
    }

    /// <summary>Forgets both pairs.</summary>
    public void Clear() => this = default;
}

namespace XeAnalyzer.Events;

/// <summary>
/// The ordered actions carried by an event. Events of one event type in one file normally share one instance, so a
/// consumer can resolve action indices once and re-resolve only when <see cref="object.ReferenceEquals"/> says the set
/// changed.
/// </summary>
/// <remarks>Immutable; safe to share between threads.</remarks>
public sealed class XeActionSet
{
    private readonly XeColumn[] _actions;
    private readonly uint[] _rids;

    /// <summary>An empty set.</summary>
    public static XeActionSet Empty { get; } = new([]);

    /// <summary>Creates a set from action columns in record order.</summary>
    /// <param name="actions">The actions; each must be an <see cref="XeColumnKind.Action"/> column.</param>
    public XeActionSet(IReadOnlyList<XeColumn> actions)
    {
        ArgumentNullException.ThrowIfNull(actions);
        _actions = new XeColumn[actions.Count];
        _rids = new uint[actions.Count];
        EventSequenceIndex = -1;
        for (int i = 0; i < _actions.Length; i++)
        {
            XeColumn a = actions[i];
            if (a.Kind != XeColumnKind.Action)
            {
                throw new ArgumentException("Column '" + a.Name + "' is not an action.", nameof(actions));
            }

            _actions[i] = a;
            _rids[i] = a.Rid;
            if (
                EventSequenceIndex < 0
                && a.Package.Index == 0
                && string.Equals(a.Name, "event_sequence", StringComparison.Ordinal)
            )
            {
                EventSequenceIndex = i;
            }
        }
    }

    /// <summary>Number of actions.</summary>
    public int Count => _actions.Length;

    /// <summary>The action columns in record order.</summary>
    public IReadOnlyList<XeColumn> Columns => _actions;

    /// <summary>The position of <c>package0.event_sequence</c>, or -1.</summary>
    public int EventSequenceIndex { get; }

    /// <summary>The action at <paramref name="index"/>.</summary>
    /// <param name="index">Position in record order.</param>
    public XeColumn this[int index] => _actions[index];

    internal uint[] Rids => _rids;

    internal XeColumn[] Array => _actions;

    /// <summary>The position of the first action with short name <paramref name="name"/> (or <c>package.name</c>), or
    /// -1.</summary>
    /// <param name="name">The short or full action name (ordinal).</param>
    /// <returns>The position, or -1.</returns>
    public int IndexOf(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        bool full = name.Contains('.', StringComparison.Ordinal);
        for (int i = 0; i < _actions.Length; i++)
        {
            if (string.Equals(full ? _actions[i].FullName : _actions[i].Name, name, StringComparison.Ordinal))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>Whether this set carries the same actions (by RID, in the same order) as
    /// <paramref name="rids"/>.</summary>
    internal bool SameRids(ReadOnlySpan<uint> rids) => rids.SequenceEqual(_rids);
}

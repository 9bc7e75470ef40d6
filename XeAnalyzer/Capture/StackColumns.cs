using XeAnalyzer.Events;

namespace XeAnalyzer.Capture;

/// <summary>How a stack column holds its frames.</summary>
internal enum StackColumnKind
{
    /// <summary>Raw return addresses (a <c>callstack</c>-typed value).</summary>
    Addresses,

    /// <summary>Frame text: <c>module+offset</c>, symbolized frames, <c>callstack_rva</c> frame markup.</summary>
    Text,
}

/// <summary>The column of an event that holds its stack: a field (index ≥ 0) or an action (index = ~action
/// index).</summary>
/// <param name="Index">The field index, or the bitwise complement of the action index.</param>
/// <param name="Column">The column.</param>
/// <param name="Kind">How it holds frames.</param>
internal readonly record struct StackColumn(int Index, XeColumn Column, StackColumnKind Kind)
{
    /// <summary>Whether the stack is an action.</summary>
    public bool IsAction => Index < 0;

    /// <summary>The stack value of an event of the type this column was found for.</summary>
    /// <param name="e">The event.</param>
    /// <returns>The value.</returns>
    public XeValue GetValue(XEvent e)
    {
        ArgumentNullException.ThrowIfNull(e);
        return Index >= 0 ? e.GetField(Index) : e.GetAction(~Index);
    }

    /// <summary>
    /// Whether an event's stack holds frames: at least one address, or text that is not blank (system_health's
    /// <c>call_stack</c> is often empty, and an empty stack is not a stack of no frames).
    /// </summary>
    /// <param name="value">The stack value (<see cref="GetValue"/>).</param>
    /// <returns>Whether it holds frames.</returns>
    public bool HasFrames(XeValue value) =>
        Kind == StackColumnKind.Addresses
            ? value.CallstackFrameCount > 0
            : !string.IsNullOrWhiteSpace(value.ToString());
}

/// <summary>
/// The one rule that decides which column of an event holds its stack, used by <c>stacks</c>, <c>diff</c>, the report,
/// symbolization and export alike. A stack column is a callstack-typed field or action (raw return addresses:
/// <c>package0.callstack</c>, system_health's <c>call_stack</c> field), or a text column named like a stack
/// (<c>callstack_rva</c>, <c>task_callstack_rva</c>,
/// <c>tsql_callstack_rva</c>, <c>call_stack…</c>, <c>stack_frames…</c>, any name containing <c>callstack</c>;
/// target-data XML carries stacks as text). By default the <c>callstack</c> action is chosen, then the
/// <c>callstack_rva</c> action, then the event's first stack field, then any other stack action; <c>--stack NAME</c>
/// chooses another (see <see cref="Find"/>).
/// </summary>
internal static class StackColumns
{
    /// <summary>Whether a column can hold a stack (see <see cref="StackColumns"/>).</summary>
    /// <param name="column">The column.</param>
    /// <returns>Whether it is a stack column.</returns>
    public static bool IsStack(XeColumn column)
    {
        ArgumentNullException.ThrowIfNull(column);
        return KindOf(column, requested: false) is not null;
    }

    /// <summary>Whether a column name is one target data uses for stacks (<c>callstack</c>, <c>callstack_rva</c>,
    /// <c>call_stack</c>, <c>stack_frames</c>, …).</summary>
    /// <param name="name">The field or action name.</param>
    /// <returns>Whether the name is stack-like.</returns>
    public static bool IsStackName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return name.Contains("callstack", StringComparison.OrdinalIgnoreCase)
            || name.StartsWith("call_stack", StringComparison.OrdinalIgnoreCase)
            || name.StartsWith("stack_frames", StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>Finds the stack column of an event type with these actions.</summary>
    /// <param name="type">The event type.</param>
    /// <param name="actions">The actions its events carry.</param>
    /// <param name="requested">
    /// The column asked for (<c>--stack NAME</c>), or <see langword="null"/> for the default. A short name is looked up
    /// among the event's fields first, then its actions (exact, then ignoring case); a <c>package.name</c> only among
    /// actions. A requested column may be any callstack-typed or text column.
    /// </param>
    /// <param name="problem">When a requested column exists but cannot hold a stack: why (its type); otherwise
    /// <see langword="null"/>.</param>
    /// <returns>The column, or <see langword="null"/> when the event has none.</returns>
    public static StackColumn? Find(XeEventType type, XeActionSet actions, string? requested, out string? problem)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(actions);
        problem = null;
        if (requested is not null)
        {
            int index = EventFilter.FindColumn(
                type,
                actions,
                requested,
                requested.Contains('.', StringComparison.Ordinal)
            );
            if (index == int.MinValue)
            {
                return null;
            }

            XeColumn c = index >= 0 ? type.Fields[index] : actions[~index];
            if (KindOf(c, requested: true) is StackColumnKind k)
            {
                return new StackColumn(index, c, k);
            }

            problem =
                c.FullName
                + " of "
                + type.FullName
                + " is "
                + (c.IsMap ? "a map value" : "of type " + c.TypeName)
                + ", not a callstack";
            return null;
        }

        foreach (string name in (ReadOnlySpan<string>)["callstack", "callstack_rva"])
        {
            int a = actions.IndexOf(name);
            if (a >= 0 && KindOf(actions[a], requested: false) is StackColumnKind k)
            {
                return new StackColumn(~a, actions[a], k);
            }
        }

        for (int i = 0; i < type.Fields.Count; i++)
        {
            if (KindOf(type.Fields[i], requested: false) is StackColumnKind k)
            {
                return new StackColumn(i, type.Fields[i], k);
            }
        }

        for (int i = 0; i < actions.Count; i++)
        {
            if (KindOf(actions[i], requested: false) is StackColumnKind k)
            {
                return new StackColumn(~i, actions[i], k);
            }
        }

        return null;
    }

    /// <summary>Every stack column of an event type with these actions (fields first, then actions), for writers that
    /// keep them all.</summary>
    /// <param name="type">The event type.</param>
    /// <param name="actions">The actions.</param>
    /// <returns>The columns.</returns>
    public static IReadOnlyList<StackColumn> All(XeEventType type, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(actions);
        var list = new List<StackColumn>();
        for (int i = 0; i < type.Fields.Count; i++)
        {
            if (KindOf(type.Fields[i], requested: false) is StackColumnKind k)
            {
                list.Add(new StackColumn(i, type.Fields[i], k));
            }
        }

        for (int i = 0; i < actions.Count; i++)
        {
            if (KindOf(actions[i], requested: false) is StackColumnKind k)
            {
                list.Add(new StackColumn(~i, actions[i], k));
            }
        }

        return list.AsReadOnly();
    }

    private static StackColumnKind? KindOf(XeColumn c, bool requested)
    {
        if (c.IsMap)
        {
            return null;
        }

        if (c.BaseType == XeBaseType.Callstack)
        {
            return StackColumnKind.Addresses;
        }

        return XeBaseTypes.IsText(c.BaseType) && (requested || IsStackName(c.Name)) ? StackColumnKind.Text : null;
    }
}

using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Analysis.Stacks;

// Where each event type keeps its stack and weights: one layout per event type and action set, cached, its counts
// folded into the totals when the cache is full.
internal sealed partial class StackBucketBuilder
{
    private void FoldLayoutCounts()
    {
        foreach (EventLayout l in _layouts.Values)
        {
            if (l.Seen > 0)
            {
                _eventsSeen[l.EventName] = _eventsSeen.GetValueOrDefault(l.EventName) + l.Seen;
            }

            if (l.WithoutStack > 0)
            {
                _eventsWithoutStack[l.EventName] = _eventsWithoutStack.GetValueOrDefault(l.EventName) + l.WithoutStack;
            }

            if (l.EmptyStack > 0)
            {
                _eventsWithEmptyStack[l.EventName] =
                    _eventsWithEmptyStack.GetValueOrDefault(l.EventName) + l.EmptyStack;
                _emptyStackColumn ??= l.Stack?.Column.FullName;
            }
        }

        _layouts.Clear();
    }

    private EventLayout Layout(XEvent e)
    {
        XeEventType type = e.EventType;
        XeActionSet set = e.ActionSet;
        if (_recent.TryGet(type, set, out EventLayout? layout))
        {
            return layout;
        }

        if (!_layouts.TryGetValue((type, set), out layout))
        {
            layout = CreateLayout(type, set);
            if (_layouts.Count >= 100_000)
            {
                // The folded layouts are no longer counted: none may stay cached.
                FoldLayoutCounts();
                _recent.Clear();
            }

            _layouts.Add((type, set), layout);
        }

        _recent.Add(type, set, layout);
        return layout;
    }

    private EventLayout CreateLayout(XeEventType type, XeActionSet set)
    {
        var layout = new EventLayout { EventName = type.FullName, EventId = _eventNames.Intern(type.FullName) };
        layout.Stack = StackColumns.Find(type, set, Options.StackSource, out string? problem);
        if (problem is not null)
        {
            _unsupportedStack ??= problem;
        }

        if (layout.Stack is null)
        {
            _availableColumns ??= [.. type.Fields.Select(f => f.Name), .. set.Columns.Select(a => a.FullName)];
        }

        // A field the event's schema does not have stays absent (−1): never counted as 0.
        layout.Duration = LatchAnalysis.NumericField(type, "duration");
        layout.Signal = LatchAnalysis.NumericField(type, "signal_duration");
        DecideUnit(type, layout.Duration);
        DecideUnit(type, layout.Signal);
        return layout;
    }

    /// <summary>
    /// Decides the unit of a summed field while its schema is at hand, so that the field's description in the capture's
    /// metadata counts (<see cref="DurationUnits"/>); the first schema of an event name decides for that name.
    /// </summary>
    private void DecideUnit(XeEventType type, int field)
    {
        if (field >= 0)
        {
            XeColumn f = type.Fields[field];
            _fieldUnits.TryAdd((type.FullName, f.Name), DurationUnits.Of(type.Name, f.Name, f.Description));
        }
    }

    private sealed class EventLayout
    {
        public string EventName = string.Empty;
        public int EventId;
        public StackColumn? Stack;
        public int Duration = -1;
        public int Signal = -1;
        public long Seen;
        public long WithoutStack;
        public long EmptyStack;
    }
}

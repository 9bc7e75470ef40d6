using XeAnalyzer.Events;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Capture;

/// <summary>
/// Receives what a <see cref="CaptureSource"/> reads, pushed in input order: the start of each input, then its events
/// (those that passed the filter and that <see cref="Accepts"/> takes) and its histogram slots, then the input's
/// summary. Every analysis is fed through this one contract (<see cref="Analysis.IAnalysisRun"/> extends it), so one
/// read serves every consumer of a command.
/// </summary>
/// <remarks>
/// <para>Calls come from one thread, in order (the <c>.xel</c> reader decodes buffers ahead on other threads, but
/// delivers from the reading thread, in file order).</para>
/// <para><b>Ownership rule.</b> An event handed to <see cref="Add"/> is valid only during that call, and so are the
/// <see cref="XeValue"/>s read from it: events of <c>.xel</c> inputs are transient views
/// (<see cref="XEvent.IsTransient"/>) into pooled buffers, re-pointed at the next event and reused once their buffer is
/// delivered, so a read allocates (almost) nothing per event. A consumer that keeps an event beyond the call keeps
/// <see cref="XEvent.Detach"/>'s copy; one that keeps a value copies it into its own types (numbers, strings,
/// <see cref="XeValue.AsBytes"/>, <see cref="XeValue.CopyCallstackTo"/>). The analyses keep only small records (the
/// reorder window holds timestamps, sequence numbers and the few numbers each analysis needs, never events).</para>
/// </remarks>
public interface ICaptureConsumer
{
    /// <summary>Whether events of this type carrying these actions go to <see cref="Add"/>. Called once per distinct
    /// pair.</summary>
    /// <param name="eventType">The event type (from the input's own metadata).</param>
    /// <param name="actions">The actions the events carry.</param>
    /// <returns>Whether the consumer reads such events.</returns>
    bool Accepts(XeEventType eventType, XeActionSet actions);

    /// <summary>An input starts: its events and slots follow until the next call.</summary>
    /// <param name="input">The input (with its module map).</param>
    void BeginInput(CaptureInput input) { }

    /// <summary>One event of the current input that passed the filter and that <see cref="Accepts"/> takes.</summary>
    /// <param name="e">The event.</param>
    void Add(XEvent e);

    /// <summary>One slot of a histogram target of the current input (slots carry no event, so the event filter does not
    /// apply to them).</summary>
    /// <param name="target">The histogram (its <see cref="HistogramTarget.SourceKind"/> is known from the first slot
    /// with a value).</param>
    /// <param name="slot">The slot.</param>
    void AddHistogramSlot(HistogramTarget target, HistogramSlot slot) { }

    /// <summary>An input has been read: what the read found in it (its files, event types, targets).</summary>
    /// <param name="input">The input's summary.</param>
    void EndInput(InputSummary input) { }
}

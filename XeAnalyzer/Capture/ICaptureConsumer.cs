using XeAnalyzer.Events;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Capture;

/// <summary>
/// Receives what a <see cref="CaptureSource"/> reads, pushed in input order: the start of each input, then its events (those that passed
/// the filter and that <see cref="Accepts"/> takes) and its histogram slots. Every analysis is fed through this one contract
/// (<see cref="Analysis.IAnalysisRun"/> extends it), so one read serves every consumer of a command.
/// </summary>
/// <remarks>
/// Calls come from one thread, in order. An event is valid during <see cref="Add"/>; a consumer that keeps events beyond the call keeps
/// their buffers alive (copy what you keep when memory matters).
/// </remarks>
public interface ICaptureConsumer
{
    /// <summary>Whether events of this type carrying these actions go to <see cref="Add"/>. Called once per distinct pair.</summary>
    /// <param name="eventType">The event type (from the input's own metadata).</param>
    /// <param name="actions">The actions the events carry.</param>
    /// <returns>Whether the consumer reads such events.</returns>
    bool Accepts(XeEventType eventType, XeActionSet actions);

    /// <summary>An input starts: its events and slots follow until the next call.</summary>
    /// <param name="input">The input (with its module map).</param>
    void BeginInput(CaptureInput input)
    {
    }

    /// <summary>One event of the current input that passed the filter and that <see cref="Accepts"/> takes.</summary>
    /// <param name="e">The event.</param>
    void Add(XEvent e);

    /// <summary>One slot of a histogram target of the current input (slots carry no event, so the event filter does not apply to them).</summary>
    /// <param name="target">The histogram (its <see cref="HistogramTarget.SourceKind"/> is known from the first slot with a value).</param>
    /// <param name="slot">The slot.</param>
    void AddHistogramSlot(HistogramTarget target, HistogramSlot slot)
    {
    }
}

using System.Collections.Immutable;
using System.Globalization;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>One frame of a stack with its resolution: the captured <see cref="StackFrame"/> and the shared
/// <see cref="FrameResolution"/>.</summary>
/// <param name="Frame">The frame as captured (raw token, frame number, provenance).</param>
/// <param name="Resolution">What the frame resolves to.</param>
public readonly record struct ResolvedFrame(StackFrame Frame, FrameResolution Resolution)
{
    /// <summary>The status of the resolution.</summary>
    public FrameResolutionStatus Status => Resolution.Status;

    /// <summary>
    /// The text to print, without frame number: the resolved frame in the resolver's style, or, when unresolved, the
    /// frame exactly as captured (<see cref="StackFrame.Raw"/>).
    /// </summary>
    public string Text => Resolution.Text ?? Frame.Raw;

    /// <summary>
    /// <see cref="Text"/> preceded by the input's frame number as <c>{n:x2} </c> (lower-case hex, as resolvers print
    /// it) when the input had one; an unresolved <c>callstack_rva</c> frame is its markup alone (it carries its
    /// <c>id</c>).
    /// </summary>
    public string TextWithNumber =>
        Frame.FrameNumber is int n
        && (Resolution.Text is not null || Frame.Provenance != FrameProvenance.CallstackRvaXml)
            ? n.ToString("x2", CultureInfo.InvariantCulture) + " " + Text
            : Text;

    /// <summary>Returns <see cref="TextWithNumber"/>.</summary>
    public override string ToString() => TextWithNumber;
}

/// <summary>A stack with its frames resolved, in input order (leaf first), and its shape as captured.</summary>
public sealed class ResolvedCallstack
{
    internal ResolvedCallstack(Callstack stack, ImmutableArray<ResolvedFrame> frames, StackShape shape)
    {
        Stack = stack;
        Frames = frames;
        Shape = shape;
    }

    /// <summary>The stack as read (header, lines, frames).</summary>
    public Callstack Stack { get; }

    /// <summary>The resolved frames, one per <see cref="Callstack.Frames"/> entry and in the same order.</summary>
    public ImmutableArray<ResolvedFrame> Frames { get; }

    /// <summary>What the stack's frames were as captured.</summary>
    public StackShape Shape { get; }

    /// <summary>How many frames stayed unresolved.</summary>
    public int UnresolvedCount
    {
        get
        {
            int n = 0;
            foreach (ResolvedFrame f in Frames)
            {
                if (f.Status == FrameResolutionStatus.Unresolved)
                {
                    n++;
                }
            }

            return n;
        }
    }
}

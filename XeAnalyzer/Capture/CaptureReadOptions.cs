using XeAnalyzer.IO;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Capture;

/// <summary>How a <see cref="CaptureSource"/> opens and reads its inputs.</summary>
/// <remarks>Immutable.</remarks>
public sealed class CaptureReadOptions
{
    /// <summary>The defaults: strict reading, default limits, sidecar module maps.</summary>
    public static CaptureReadOptions Default { get; } = new();

    /// <summary>What the <c>.xel</c> reader does with damaged buffers (<c>--skip-corrupt</c>); default
    /// strict.</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Caps of the <c>.xel</c> reader.</summary>
    internal XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Caps of the target-data XML reader.</summary>
    internal TextInputLimits TextLimits { get; init; } = TextInputLimits.Default;

    /// <summary>
    /// The module map for every input (<c>--modules FILE</c>), or <see langword="null"/> to use each input's
    /// <c>&lt;set-name&gt;.modules.txt</c> sidecar when <see cref="UseSidecars"/> is set.
    /// </summary>
    public string? ModuleMapPath { get; init; }

    /// <summary>Whether sidecar module maps are looked for when <see cref="ModuleMapPath"/> is not given (default
    /// <see langword="true"/>).</summary>
    public bool UseSidecars { get; init; } = true;

    /// <summary>
    /// Receives <see cref="WorkKind.Reading"/> reports of every read of the source (bytes of all its input files read
    /// so far, of their total size; the item is the inputs as named), about once per mebibyte and once when the read
    /// ends;
    /// <see langword="null"/> (the default) for none. Events skipped by name before decoding move the position only
    /// when a later event is delivered, so a read of mostly skipped events reports in larger steps.
    /// </summary>
    public IProgress<WorkProgress>? Progress { get; init; }

    /// <summary>
    /// How many threads decode the event buffers of a <c>.xel</c> input (see
    /// <see cref="XelReadOptions.DecodeThreads"/>); default
    /// <see cref="Environment.ProcessorCount"/>, 1 to decode on the reading thread only (as a batch running one capture
    /// per core may want).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1..64.</exception>
    public int DecodeThreads
    {
        get;
        init =>
            field = value is >= 1 and <= 64
                ? value
                : throw new ArgumentOutOfRangeException(nameof(value), value, "DecodeThreads must be 1..64.");
    } = XelReadOptions.DefaultDecodeThreads;

    /// <summary>These options with at most <paramref name="threads"/> decode threads (the same instance when they
    /// already have no more).</summary>
    internal CaptureReadOptions WithAtMostDecodeThreads(int threads) =>
        DecodeThreads <= threads
            ? this
            : new CaptureReadOptions
            {
                Integrity = Integrity,
                Limits = Limits,
                TextLimits = TextLimits,
                ModuleMapPath = ModuleMapPath,
                UseSidecars = UseSidecars,
                DecodeThreads = Math.Max(1, threads),
                Progress = Progress,
            };
}

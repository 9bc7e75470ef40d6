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

    /// <summary>What the <c>.xel</c> reader does with damaged buffers (<c>--skip-corrupt</c>); default strict.</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Caps of the <c>.xel</c> reader.</summary>
    public XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Caps of the target-data XML reader.</summary>
    public TextInputLimits TextLimits { get; init; } = TextInputLimits.Default;

    /// <summary>
    /// The module map for every input (<c>--modules FILE</c>), or <see langword="null"/> to use each input's
    /// <c>&lt;set-name&gt;.modules.txt</c> sidecar when <see cref="UseSidecars"/> is set.
    /// </summary>
    public string? ModuleMapPath { get; init; }

    /// <summary>Whether sidecar module maps are looked for when <see cref="ModuleMapPath"/> is not given (default <see langword="true"/>).</summary>
    public bool UseSidecars { get; init; } = true;
}

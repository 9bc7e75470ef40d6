namespace XeAnalyzer.Xel;

/// <summary>What the reader does with damaged data.</summary>
public enum XelIntegrityHandling
{
    /// <summary>Any damage throws <see cref="InvalidXelDataException"/>.</summary>
    Strict,

    /// <summary>
    /// A damaged event buffer is skipped from the point of damage (events before it are kept), counted and reported in
    /// <see cref="XelDiagnostics"/>; a buffer header that cannot be trusted makes the reader look for the next buffer on a
    /// 512-byte boundary. File-level damage (not a <c>.xel</c> file, unreadable metadata) still throws.
    /// </summary>
    SkipCorruptBuffers,
}

/// <summary>Options of <see cref="XelReader"/>.</summary>
/// <remarks>Immutable apart from the <see cref="Diagnostics"/> collector it refers to.</remarks>
public sealed class XelReadOptions
{
    /// <summary>The default options: all events, strict, default limits, no diagnostics collector.</summary>
    public static XelReadOptions Default { get; } = new();

    /// <summary>
    /// Event names to keep (<c>package.event</c> or <c>event</c>, ordinal); <see langword="null"/> or empty keeps every event.
    /// Other events are skipped by RID before their payload is decoded.
    /// </summary>
    public IReadOnlyCollection<string>? EventNames { get; init; }

    /// <summary>What to do with damaged buffers. Default <see cref="XelIntegrityHandling.Strict"/>.</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Size and count caps. Default <see cref="XeReaderLimits.Default"/>.</summary>
    public XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Receives warnings and counts (skipped buffers, incomplete final buffers, undecodable events); optional.</summary>
    public XelDiagnostics? Diagnostics { get; init; }
}

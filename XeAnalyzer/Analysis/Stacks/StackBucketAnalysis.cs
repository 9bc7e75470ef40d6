using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>How <see cref="StackBucketAnalysis.AnalyzeFiles"/> reads its inputs.</summary>
/// <remarks>Immutable.</remarks>
public sealed class StackFileOptions
{
    /// <summary>The defaults: no filter, sidecar module maps, strict reading.</summary>
    public static StackFileOptions Default { get; } = new();

    /// <summary>Which events to bucket (<c>--event</c>, <c>--where</c>, <c>--from</c>/<c>--to</c>); event names are pushed down to the <c>.xel</c> reader.</summary>
    public EventFilter? Filter { get; init; }

    /// <summary>
    /// The module map for every input (<c>--modules FILE</c>). When <see langword="null"/>, each input uses its
    /// <c>&lt;set-name&gt;.modules.txt</c> sidecar (<see cref="ModuleListSidecar"/>) if there is one.
    /// </summary>
    public string? ModuleMapPath { get; init; }

    /// <summary>Whether sidecar module maps are looked for when <see cref="ModuleMapPath"/> is not given (default <see langword="true"/>).</summary>
    public bool UseSidecars { get; init; } = true;

    /// <summary>What the <c>.xel</c> reader does with damaged buffers.</summary>
    public XelIntegrityHandling Integrity { get; init; } = XelIntegrityHandling.Strict;

    /// <summary>Caps of the <c>.xel</c> reader.</summary>
    public XeReaderLimits Limits { get; init; } = XeReaderLimits.Default;

    /// <summary>Caps of the target-data XML reader.</summary>
    public TextInputLimits TextLimits { get; init; } = TextInputLimits.Default;

    /// <summary>Receives what the <c>.xel</c> reader skipped (damaged buffers make the result partial); <see langword="null"/> for none.</summary>
    public XelDiagnostics? Diagnostics { get; init; }
}

/// <summary>
/// Buckets events by callstack after symbolization: <c>xeanalyze stacks</c>. See <see cref="StackBucketBuilder"/> for how raw stacks are
/// aggregated, symbolized once and merged.
/// </summary>
/// <remarks>
/// <para><b>Inputs.</b> <c>.xel</c> files and rollover sets (the stack from the <c>package0.callstack</c> action, or any callstack-typed or
/// text field/action named by <see cref="StackBucketOptions.StackSource"/>); saved target-data XML: a histogram target's slots become
/// buckets with their counts (<c>module+offset</c> frames are resolved offline, frames SQL Server symbolized with trace flag 3656 pass
/// through), ring_buffer and event-list XML events whose callstack action holds frames.</para>
/// <para><b>Wait events.</b> When the events have a <c>duration</c> field, buckets sum and keep the maximum of <c>duration</c> and
/// <c>signal_duration</c>. <c>wait_info</c>/<c>wait_info_external</c> Begin events carry 0: filter with <c>opcode=End</c>.</para>
/// </remarks>
public sealed class StackBucketAnalysis
{
    /// <summary>Creates the analysis.</summary>
    /// <param name="options">Options; <see langword="null"/> for <see cref="StackBucketOptions.Default"/>.</param>
    public StackBucketAnalysis(StackBucketOptions? options = null)
    {
        Options = options ?? StackBucketOptions.Default;
    }

    /// <summary>The options.</summary>
    public StackBucketOptions Options { get; }

    /// <summary>Buckets the stacks of events of one input.</summary>
    /// <param name="events">The events (already filtered).</param>
    /// <param name="session">The session that resolves their frames (its module map places raw addresses).</param>
    /// <param name="cancellationToken">Checked every 4,096 events and during symbolization.</param>
    /// <returns>The result.</returns>
    public StackBucketResult Analyze(IEnumerable<XEvent> events, ResolverSession session, CancellationToken cancellationToken = default)
    {
        var builder = new StackBucketBuilder(Options);
        builder.AddEvents(events, session, null, cancellationToken);
        return builder.Build(cancellationToken);
    }

    /// <summary>
    /// Buckets the stacks of files: <c>.xel</c> files, rollover sets, folders and globs (<see cref="CaptureSet.Expand"/>), and target-data
    /// XML files (classified as <see cref="AnalysisInput.Open"/> does). Each capture set and XML file is one input with its own module map.
    /// </summary>
    /// <param name="inputs">Files, folders or globs.</param>
    /// <param name="resolver">The resolver (symbol path, frame style, offsets).</param>
    /// <param name="fileOptions">How to read; <see langword="null"/> for <see cref="StackFileOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops the reads and symbolization.</param>
    /// <returns>The result (its <see cref="StackBucketResult.MissingData"/> says when nothing could be bucketed).</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists.</exception>
    /// <exception cref="XeFormatException">An input or module map is malformed.</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public StackBucketResult AnalyzeFiles(IEnumerable<string> inputs, CallstackResolver resolver, StackFileOptions? fileOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        ArgumentNullException.ThrowIfNull(resolver);
        fileOptions ??= StackFileOptions.Default;
        AnalysisInput input = AnalysisInput.Open(inputs, new AnalysisInputOptions { Integrity = fileOptions.Integrity, Limits = fileOptions.Limits, TextLimits = fileOptions.TextLimits });
        ModuleMap? explicitMap = fileOptions.ModuleMapPath is string mp ? ModuleMap.Load(mp, cancellationToken) : null;
        EventFilter filter = fileOptions.Filter ?? EventFilter.None;
        var builder = new StackBucketBuilder(Options);
        foreach (CaptureSet set in input.Captures)
        {
            (ModuleMap? map, string? path, ModuleMapSource source) = MapFor(set.Files[0], explicitMap, fileOptions, cancellationToken);
            ResolverSession session = resolver.CreateSession(map);
            var readOptions = new XelReadOptions
            {
                Integrity = fileOptions.Integrity,
                Limits = fileOptions.Limits,
                Diagnostics = fileOptions.Diagnostics,
                EventNames = filter.EventNames.Count > 0 ? filter.EventNames : null,
            };
            IEnumerable<XEvent> events = XelReader.ReadEvents(set, readOptions, cancellationToken);
            if (filter.HasValueConditions)
            {
                events = events.Where(filter.Matches);
            }

            builder.AddEvents(events, session, new StackInputInfo(set.Files[0], "xel", path, source), cancellationToken);
        }

        foreach (string xml in input.TargetDataFiles)
        {
            (ModuleMap? map, string? path, ModuleMapSource source) = MapFor(xml, explicitMap, fileOptions, cancellationToken);
            ResolverSession session = resolver.CreateSession(map);
            using StackTextReader reader = StackTextReader.OpenFile(xml, new StackTextReaderOptions { FilePath = xml, Limits = fileOptions.TextLimits });
            builder.AddTargetData(reader, session, new StackInputInfo(xml, "target-xml", path, source), filter, cancellationToken);
        }

        return builder.Build(cancellationToken);
    }

    private static (ModuleMap? Map, string? Path, ModuleMapSource Source) MapFor(string file, ModuleMap? explicitMap, StackFileOptions options, CancellationToken ct)
    {
        if (explicitMap is not null)
        {
            return (explicitMap, options.ModuleMapPath, ModuleMapSource.Explicit);
        }

        if (options.UseSidecars && ModuleListSidecar.Find(file) is string sidecar)
        {
            return (ModuleMap.Load(sidecar, ct), sidecar, ModuleMapSource.Sidecar);
        }

        return (null, null, ModuleMapSource.None);
    }
}

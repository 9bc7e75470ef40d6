using System.Collections.Immutable;
using System.Globalization;
using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>The frames of one distinct raw stack after symbolization, rendered in the resolver's frame style.</summary>
/// <param name="Id">The raw stack's id in the table symbolized (its key is let go once the next stack is asked
/// for).</param>
/// <param name="Frames">The rendered frames, leaf first, with inline frames when the resolver gives them.</param>
/// <param name="Resolved">The resolved stack.</param>
internal readonly record struct SymbolizedStack(int Id, BucketFrame[] Frames, ResolvedCallstack Resolved);

/// <summary>
/// Symbolizes one input's raw-stack table: each distinct address once (through
/// <see cref="ResolverSession.ResolveAddresses"/>, in address order so results are deterministic) and each distinct
/// text stack once; renders each frame once (interned text), and feeds one
/// <see cref="ResolutionSummaryBuilder"/> (each distinct stack counted once) and the per-event
/// <see cref="StackSymbolizationTally"/> (frames weighted by the events of their stack).
/// </summary>
internal sealed class StackSymbolizer(
    ResolverSession session,
    int maxFramesPerStack,
    Func<string, string> intern,
    BucketFramePool? pool = null
)
{
    private readonly FrameStyle _style = session.Resolver.Options.Style;

    /// <summary>Rendered text frames kept for reuse by later stacks (bounded: with mostly distinct frames a cache only
    /// costs memory).</summary>
    private const int MaxCachedTextFrames = 65_536;

    private readonly Dictionary<(FrameResolution, string), BucketFrame> _textFrames = [];
    private StackTextParser? _parser;

    /// <summary>Stacks whose text had more frames than the cap (outermost frames dropped).</summary>
    public long TruncatedStacks { get; private set; }

    /// <summary>Distinct addresses or text stacks symbolized between two progress reports.</summary>
    private const int ProgressStep = 1024;

    public IEnumerable<SymbolizedStack> Symbolize(
        RawStackTable table,
        ResolutionSummaryBuilder summary,
        StackSymbolizationTally tally,
        CancellationToken cancellationToken,
        string? inputName = null
    )
    {
        // Every stack is added by now: the lookups are only memory from here on.
        table.ReleaseLookups();
        var distinct = new HashSet<ulong>();
        long textStacks = 0;
        for (int id = 0; id < table.Count; id++)
        {
            if (table.AddressesAt(id) is ulong[] a)
            {
                for (int i = 1; i < a.Length; i++)
                {
                    distinct.Add(a[i]);
                }
            }
            else
            {
                textStacks++;
            }
        }

        ulong[] addresses = [.. distinct.Order()];
        var resolutions = new FrameResolution[addresses.Length];
        IProgress<WorkProgress>? progress = session.Resolver.Options.Progress;
        string item = inputName ?? string.Empty;
        long total = addresses.Length + textStacks,
            done = 0;
        if (progress is null)
        {
            session.ResolveAddresses(addresses, resolutions, cancellationToken);
        }
        else
        {
            // In steps, in address order as in one call, so the results are the same.
            for (int start = 0; start < addresses.Length; start += ProgressStep)
            {
                int n = Math.Min(ProgressStep, addresses.Length - start);
                session.ResolveAddresses(addresses.AsSpan(start, n), resolutions.AsSpan(start, n), cancellationToken);
                done += n;
                progress.Report(new WorkProgress(WorkKind.Resolving, item, done, total, false));
            }
        }

        var byAddress = new Dictionary<ulong, (BucketFrame Frame, ResolvedFrame Resolved)>(addresses.Length);
        for (int i = 0; i < addresses.Length; i++)
        {
            string text = "0x" + addresses[i].ToString("X16", CultureInfo.InvariantCulture);
            var vaFrame = new VirtualAddressFrame(addresses[i], text, FrameProvenance.Binary);
            byAddress.Add(addresses[i], (Render(resolutions[i], vaFrame), new ResolvedFrame(vaFrame, resolutions[i])));
        }

        distinct.Clear();
        distinct.TrimExcess();
        for (int id = 0; id < table.Count; id++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            BucketFrame[] frames;
            ResolvedCallstack resolved;
            string? text = table.TextAt(id);
            if (table.AddressesAt(id) is ulong[] a)
            {
                frames = new BucketFrame[a.Length - 1];
                var rf = new ResolvedFrame[a.Length - 1];
                var sf = new StackFrame[a.Length - 1];
                for (int i = 1; i < a.Length; i++)
                {
                    (BucketFrame f, ResolvedFrame r) = byAddress[a[i]];
                    frames[i - 1] = f;
                    rf[i - 1] = r;
                    sf[i - 1] = r.Frame;
                }

                resolved = new ResolvedCallstack(
                    BinaryStack(sf),
                    ImmutableCollectionsMarshal.AsImmutableArray(rf),
                    sf.Length == 0 ? StackShape.NoFrames : StackShape.RawAddresses
                );
            }
            else
            {
                resolved = session.Resolve(Parse(text!, table.FirstLineAt(id)), cancellationToken);
                if (progress is not null && (++done & (ProgressStep - 1)) == 0)
                {
                    progress.Report(new WorkProgress(WorkKind.Resolving, item, done, total, false));
                }

                frames = new BucketFrame[resolved.Frames.Length];
                for (int i = 0; i < frames.Length; i++)
                {
                    ResolvedFrame r = resolved.Frames[i];
                    var key = (r.Resolution, r.Frame.Raw);
                    if (!_textFrames.TryGetValue(key, out BucketFrame? f))
                    {
                        f = Render(r.Resolution, r.Frame);
                        if (_textFrames.Count < MaxCachedTextFrames)
                        {
                            _textFrames.Add(key, f);
                        }
                    }

                    frames[i] = f;
                }
            }

            // A one-frame text stack usually renders as it was written (an unresolved module+offset frame): share the
            // string.
            if (
                frames.Length == 1
                && text is string written
                && !ReferenceEquals(frames[0].Text, written)
                && string.Equals(frames[0].Text, written, StringComparison.Ordinal)
            )
            {
                frames[0] = frames[0] with { Text = written };
            }

            summary.Add(resolved);
            tally.Add(resolved, table.CountAt(id));
            BucketFrame[] rendered = WithInlineFrames(frames, resolved);
            if (pool is not null)
            {
                for (int i = 0; i < rendered.Length; i++)
                {
                    rendered[i] = pool.Share(rendered[i]);
                }
            }

            yield return new SymbolizedStack(id, rendered, resolved);
            table.ReleaseKey(id);
        }

        table.Release();

        progress?.Report(new WorkProgress(WorkKind.Resolving, item, total, total, true));
    }

    /// <summary>
    /// Parses stack text as read (frames one per line, <c>callstack_rva</c> markup, SQLDumper and WinDbg lines), its
    /// lines numbered from the file line it starts at (0: not from a text file).
    /// </summary>
    private Callstack Parse(string text, long firstLine)
    {
        _parser ??= new StackTextParser();
        Callstack stack = _parser.Parse(text, maxFramesPerStack, out bool cut, firstLine);
        if (cut)
        {
            TruncatedStacks++;
        }

        return stack;
    }

    /// <summary>A stack of frames decoded from a binary capture: one line per frame, with no input line number
    /// (0).</summary>
    private static Callstack BinaryStack(StackFrame[] frames)
    {
        var lines = new StackLine[frames.Length];
        for (int i = 0; i < frames.Length; i++)
        {
            lines[i] = new StackLine(frames[i].Raw, 0, frames, i, 1, null);
        }

        return new Callstack(
            0,
            null,
            ImmutableCollectionsMarshal.AsImmutableArray(lines),
            ImmutableCollectionsMarshal.AsImmutableArray(frames),
            false
        );
    }

    /// <summary>Each frame preceded by its inline frames (innermost first), when the resolver gives them
    /// (<c>--inlines</c>).</summary>
    private BucketFrame[] WithInlineFrames(BucketFrame[] frames, ResolvedCallstack resolved)
    {
        int extra = 0;
        foreach (ResolvedFrame r in resolved.Frames)
        {
            extra += r.Resolution.InlineFrames.Count;
        }

        if (extra == 0)
        {
            return frames;
        }

        var expanded = new BucketFrame[frames.Length + extra];
        int k = 0;
        for (int i = 0; i < frames.Length; i++)
        {
            foreach (FrameResolution inline in resolved.Frames[i].Resolution.InlineFrames)
            {
                expanded[k++] = Render(inline, resolved.Frames[i].Frame);
            }

            expanded[k++] = frames[i];
        }

        return expanded;
    }

    private BucketFrame Render(FrameResolution r, StackFrame frame)
    {
        return new BucketFrame(intern(r.DisplayText(frame, _style)), r, intern);
    }
}

/// <summary>
/// Frame resolution counted per event (each distinct stack's frames weighted by its events), the PDBs the stacks used,
/// and the unresolved frames by reason: the report's symbolization view of the same raw-stack table the buckets come
/// from.
/// </summary>
internal sealed class StackSymbolizationTally
{
    // Frames counted per event are slot counts times frames: wider than a count, so they are summed as 128-bit numbers
    // and shown, with a warning (OutOfRange), as long.MaxValue if they pass it.
    private readonly Dictionary<
        string,
        (UnresolvedReason Reason, Int128 Count, string FirstExample, string FirstReason)
    > _groups = new(StringComparer.Ordinal);
    private readonly HashSet<PdbBinding> _pdbs = new(ReferenceEqualityComparer.Instance);
    private Int128 _stacks;
    private Int128 _frames;
    private Int128 _inEngine;
    private Int128 _resolvedOffline;
    private Int128 _unverified;
    private Int128 _unresolved;

    /// <summary>Whether a figure passed <see cref="long.MaxValue"/> (it is shown as that).</summary>
    public bool OutOfRange => _frames > long.MaxValue || _stacks > long.MaxValue;

    public void Add(ResolvedCallstack stack, long weight)
    {
        _stacks += weight;
        foreach (ResolvedFrame f in stack.Frames)
        {
            FrameResolution r = f.Resolution;
            if (r.Pdb is PdbBinding b)
            {
                _pdbs.Add(b);
            }

            _frames += weight;
            switch (r.Status)
            {
                case FrameResolutionStatus.InEngine:
                    _inEngine += weight;
                    break;
                case FrameResolutionStatus.ResolvedOffline:
                    _resolvedOffline += weight;
                    if (!r.IsVerified)
                    {
                        _unverified += weight;
                    }

                    break;
                default:
                    _unresolved += weight;
                    string key = r.ReasonGroup ?? r.ReasonText ?? "unresolved";
                    _groups[key] = _groups.TryGetValue(key, out var g)
                        ? (g.Reason, g.Count + weight, g.FirstExample, g.FirstReason)
                        : (r.Reason, weight, f.Frame.Raw, r.ReasonText ?? key);
                    break;
            }
        }
    }

    public StackSymbolization Build(ResolutionSummary summary) =>
        new(
            summary,
            Figure(_stacks),
            Figure(_frames),
            Figure(_inEngine),
            Figure(_resolvedOffline),
            Figure(_unverified),
            Figure(_unresolved),
            [
                .. _groups
                    .OrderByDescending(kv => kv.Value.Count)
                    .ThenBy(kv => kv.Key, StringComparer.Ordinal)
                    .Select(kv => new UnresolvedGroup(
                        kv.Value.Reason,
                        kv.Key,
                        Figure(kv.Value.Count),
                        kv.Value.FirstExample,
                        kv.Value.FirstReason,
                        0,
                        summary
                            .UnresolvedGroups.FirstOrDefault(g =>
                                string.Equals(g.Description, kv.Key, StringComparison.Ordinal)
                            )
                            ?.SearchLog
                            ?? []
                    )),
            ],
            [
                .. _pdbs
                    .OrderBy(b => b.PdbName, StringComparer.OrdinalIgnoreCase)
                    .ThenBy(b => b.Identity?.Key ?? string.Empty, StringComparer.Ordinal),
            ]
        );

    private static long Figure(Int128 value) => (long)Int128.Min(value, long.MaxValue);
}

/// <summary>
/// How the frames of a stack analysis resolved, counted per event: each distinct raw stack's frames weighted by its
/// events. Immutable.
/// </summary>
/// <param name="Resolution">The distinct stacks' resolution, each stack counted once (hints, reasons, search
/// logs).</param>
/// <param name="Stacks">Events (and histogram slot counts) with a stack.</param>
/// <param name="Frames">Frames, per event.</param>
/// <param name="InEngine">Frames symbolized in the engine (trace flag 3656).</param>
/// <param name="ResolvedOffline">Frames resolved offline against a PDB.</param>
/// <param name="Unverified">Of those, frames whose PDB was matched by name only.</param>
/// <param name="Unresolved">Frames not resolved (printed raw with a reason).</param>
/// <param name="UnresolvedByReason">Unresolved frames by reason, per event, most first.</param>
/// <param name="Pdbs">The PDBs the frames used (by name, then identity).</param>
internal sealed record StackSymbolization(
    ResolutionSummary Resolution,
    long Stacks,
    long Frames,
    long InEngine,
    long ResolvedOffline,
    long Unverified,
    long Unresolved,
    IReadOnlyList<UnresolvedGroup> UnresolvedByReason,
    IReadOnlyList<PdbBinding> Pdbs
);

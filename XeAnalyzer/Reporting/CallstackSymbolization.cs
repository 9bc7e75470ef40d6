using System.Buffers;
using System.Globalization;
using System.Runtime.InteropServices;
using XeAnalyzer.Analysis;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The symbolization summary of a capture report: every event's raw callstack (the <c>package0.callstack</c> action, else the
/// first callstack-typed field) is counted per distinct address list, each distinct list is resolved once through the
/// input's <see cref="ResolverSession"/> (its module list), and the frames are summarized as
/// <see cref="ResolutionSummary"/> does for <c>xeanalyze resolve</c>: frames symbolized in-engine, resolved offline
/// (and how many through a PDB matched by name only), unresolved by reason, the PDBs used, and hints. Counts are per event
/// (a stack seen 100 times counts its frames 100 times).
/// </summary>
/// <remarks>
/// Memory is bounded: at most <see cref="MaxDistinctStacks"/> distinct stacks are kept; the events of further ones are counted
/// and reported but not symbolized. Callstacks longer than <see cref="MaxFrames"/> frames are cut. Not possible (a note with the
/// session change) when no event carries a callstack.
/// </remarks>
/// <param name="maxDistinctStacks">The most distinct stacks kept (1 to 10,000,000; default 200,000).</param>
public sealed class CallstackSymbolization(int maxDistinctStacks = 200_000) : IReportAnalysis
{
    /// <summary>The most frames read per callstack.</summary>
    public const int MaxFrames = 1024;

    /// <summary>The most distinct stacks kept.</summary>
    public int MaxDistinctStacks { get; } = maxDistinctStacks is >= 1 and <= 10_000_000
        ? maxDistinctStacks
        : throw new ArgumentOutOfRangeException(nameof(maxDistinctStacks), maxDistinctStacks, "expected 1 to 10,000,000");

    /// <inheritdoc/>
    public string Key => "symbols";

    /// <inheritdoc/>
    public string Title => "Symbolization";

    /// <inheritdoc/>
    public IReadOnlyCollection<string>? EventNames => null;

    /// <inheritdoc/>
    public bool Accepts(XeEventType eventType, XeActionSet actions) => Locate(eventType, actions).Index >= 0;

    /// <inheritdoc/>
    public ReportAnalysisOutcome Analyze(IEnumerable<XEvent> events, ReportAnalysisContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(events);
        ArgumentNullException.ThrowIfNull(context);
        var tables = new List<(ResolverSession Session, Dictionary<ulong[], long> Stacks)>();
        var bySession = new Dictionary<ResolverSession, Dictionary<ulong[], long>>(ReferenceEqualityComparer.Instance);
        var layouts = new Dictionary<(XeEventType, XeActionSet), (bool IsAction, int Index)>(PairComparer.Instance);
        (XeEventType? Type, XeActionSet? Actions, bool IsAction, int Index) lastLayout = default;
        string? lastFile = null;
        Dictionary<ulong[], long>? current = null;
        ulong[] buffer = ArrayPool<ulong>.Shared.Rent(64);
        long eventsWithStacks = 0, eventsOverCap = 0, emptyStacks = 0, cutStacks = 0, distinct = 0, n = 0;
        var eventNames = new SortedDictionary<string, long>(StringComparer.Ordinal);
        try
        {
            foreach (XEvent e in events)
            {
                if ((++n & 0xFFF) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                if (!ReferenceEquals(e.EventType, lastLayout.Type) || !ReferenceEquals(e.ActionSet, lastLayout.Actions))
                {
                    if (!layouts.TryGetValue((e.EventType, e.ActionSet), out (bool IsAction, int Index) l))
                    {
                        l = Locate(e.EventType, e.ActionSet);
                        layouts.Add((e.EventType, e.ActionSet), l);
                    }

                    lastLayout = (e.EventType, e.ActionSet, l.IsAction, l.Index);
                }

                if (lastLayout.Index < 0)
                {
                    continue;
                }

                XeValue value = lastLayout.IsAction ? e.GetAction(lastLayout.Index) : e.GetField(lastLayout.Index);
                if (!value.HasValue)
                {
                    emptyStacks++;
                    continue;
                }

                int frames = value.CallstackFrameCount;
                if (frames == 0)
                {
                    emptyStacks++;
                    continue;
                }

                if (frames > MaxFrames)
                {
                    frames = MaxFrames;
                    cutStacks++;
                }

                if (buffer.Length < frames)
                {
                    ArrayPool<ulong>.Shared.Return(buffer);
                    buffer = ArrayPool<ulong>.Shared.Rent(frames);
                }

                int got = value.CopyCallstackTo(buffer.AsSpan(0, frames));
                eventsWithStacks++;
                string name = e.FullName;
                eventNames[name] = eventNames.GetValueOrDefault(name) + 1;
                if (current is null || !ReferenceEquals(e.Source.FilePath, lastFile))
                {
                    lastFile = e.Source.FilePath;
                    ResolverSession session = context.SessionFor(lastFile);
                    if (!bySession.TryGetValue(session, out current))
                    {
                        current = new Dictionary<ulong[], long>(StackComparer.Instance);
                        bySession.Add(session, current);
                        tables.Add((session, current));
                    }
                }

                Dictionary<ulong[], long>.AlternateLookup<ReadOnlySpan<ulong>> lookup = current.GetAlternateLookup<ReadOnlySpan<ulong>>();
                ReadOnlySpan<ulong> key = buffer.AsSpan(0, got);
                ref long count = ref CollectionsMarshal.GetValueRefOrNullRef(lookup, key);
                if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref count))
                {
                    count++;
                }
                else if (distinct < MaxDistinctStacks)
                {
                    lookup[key] = 1;
                    distinct++;
                }
                else
                {
                    eventsOverCap++;
                }
            }
        }
        finally
        {
            ArrayPool<ulong>.Shared.Return(buffer);
        }

        cancellationToken.ThrowIfCancellationRequested();
        if (eventsWithStacks == 0)
        {
            return ReportAnalysisOutcome.NotPossible(new MissingData(
                MissingDataKind.Action,
                ["package0.callstack"],
                emptyStacks > 0
                    ? "The events' callstack values are all empty, so there is nothing to symbolize."
                    : "No event carries a callstack (the package0.callstack action or a callstack field), so there are no stacks to symbolize or bucket.",
                "ALTER EVENT SESSION [your_session] ON SERVER DROP EVENT sqlserver.latch_acquired;\n" +
                "ALTER EVENT SESSION [your_session] ON SERVER ADD EVENT sqlserver.latch_acquired\n" +
                "    (ACTION (package0.callstack, sqlos.scheduler_id, package0.event_sequence));  -- the same for each event to bucket by stack\n" +
                "-- cheaper: a histogram target on the callstack, e.g. ADD TARGET package0.histogram (SET filtering_event_name = N'sqlserver.latch_acquired', source = N'package0.callstack', source_type = 1);"));
        }

        bool anyMap = tables.Any(t => t.Session.ModuleMap is not null);
        var builder = new ResolutionSummaryBuilder(null, anyMap);
        var pdbs = new HashSet<PdbBinding>(ReferenceEqualityComparer.Instance);
        var tally = new WeightedTally();
        foreach ((ResolverSession session, Dictionary<ulong[], long> stacks) in tables)
        {
            foreach (KeyValuePair<ulong[], long> kv in stacks.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StackComparer.Instance))
            {
                cancellationToken.ThrowIfCancellationRequested();
                var frames = new StackFrame[kv.Key.Length];
                for (int i = 0; i < frames.Length; i++)
                {
                    frames[i] = new VirtualAddressFrame(kv.Key[i], "0x" + kv.Key[i].ToString("X16", CultureInfo.InvariantCulture), FrameProvenance.Binary);
                }

                ResolvedCallstack resolved = session.Resolve(Callstack.FromFrames(frames), cancellationToken);
                foreach (ResolvedFrame f in resolved.Frames)
                {
                    if (f.Resolution.Pdb is PdbBinding b)
                    {
                        pdbs.Add(b);
                    }

                    tally.Add(f, kv.Value);
                }

                // The summary counts each distinct stack once (hints, reasons, search logs); the per-event figures are weighted here,
                // so the cost does not grow with events × frames.
                builder.Add(resolved);
            }
        }

        if (eventsOverCap > 0)
        {
            builder.AddWarning(eventsOverCap.ToString("N0", CultureInfo.InvariantCulture) + " event(s) had stacks beyond the " + MaxDistinctStacks.ToString("N0", CultureInfo.InvariantCulture) + " distinct stacks kept and are not in the counts");
        }

        if (cutStacks > 0)
        {
            builder.AddWarning(cutStacks.ToString("N0", CultureInfo.InvariantCulture) + " callstack(s) had more than " + MaxFrames.ToString(CultureInfo.InvariantCulture) + " frames; only the first " + MaxFrames.ToString(CultureInfo.InvariantCulture) + " (leaf first) were read");
        }

        foreach (string w in context.Resolver.Warnings)
        {
            builder.AddWarning(w);
        }

        // Build without the resolver: its PDB list spans every capture of a batch (the caches are shared), and a report must
        // list only what this capture used, whatever ran before it.
        ResolutionSummary summary = builder.Build();
        PdbBinding[] used = [.. pdbs.OrderBy(b => b.PdbName, StringComparer.OrdinalIgnoreCase).ThenBy(b => b.Identity?.Key ?? string.Empty, StringComparer.Ordinal)];
        var result = new SymbolizationResult(summary, tally.ToCounts(eventsWithStacks - eventsOverCap), tally.Groups(summary), used, eventsWithStacks, distinct, eventsOverCap, emptyStacks,
            [.. tables.Select(t => t.Session.ModuleMap is null ? "(none)" : DescribeMap(context, t.Session))], eventNames);
        return ReportAnalysisOutcome.Completed(result.ToReport(), eventsWithStacks, null, result, summary);
    }

    private static string DescribeMap(ReportAnalysisContext context, ResolverSession session)
    {
        foreach (KeyValuePair<string, string> kv in context.ModuleLists.OrderBy(kv => kv.Key, StringComparer.Ordinal))
        {
            if (ReferenceEquals(context.SessionFor(kv.Key), session))
            {
                return context.DisplayPath(kv.Value);
            }
        }

        return "(given)";
    }

    private static (bool IsAction, int Index) Locate(XeEventType type, XeActionSet actions)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(actions);
        int first = -1;
        for (int i = 0; i < actions.Count; i++)
        {
            if (actions[i].BaseType == XeBaseType.Callstack)
            {
                if (string.Equals(actions[i].Name, "callstack", StringComparison.Ordinal))
                {
                    return (true, i);
                }

                first = first < 0 ? i : first;
            }
        }

        if (first >= 0)
        {
            return (true, first);
        }

        for (int i = 0; i < type.Fields.Count; i++)
        {
            if (type.Fields[i].BaseType == XeBaseType.Callstack)
            {
                return (false, i);
            }
        }

        return (false, -1);
    }

    /// <summary>Frame statuses and unresolved reasons weighted by how many events carry each distinct stack.</summary>
    private sealed class WeightedTally
    {
        private readonly Dictionary<string, (UnresolvedReason Reason, long Count, string FirstExample, string FirstReason, int Order)> _groups = new(StringComparer.Ordinal);
        private long _frames, _inEngine, _offline, _unverified, _unresolved;

        public void Add(ResolvedFrame f, long weight)
        {
            FrameResolution r = f.Resolution;
            _frames += weight;
            switch (r.Status)
            {
                case FrameResolutionStatus.InEngine:
                    _inEngine += weight;
                    break;
                case FrameResolutionStatus.ResolvedOffline:
                    _offline += weight;
                    if (!r.IsVerified)
                    {
                        _unverified += weight;
                    }

                    break;
                default:
                    _unresolved += weight;
                    string key = r.ReasonGroup ?? r.ReasonText ?? "unresolved";
                    _groups[key] = _groups.TryGetValue(key, out var g)
                        ? (g.Reason, g.Count + weight, g.FirstExample, g.FirstReason, g.Order)
                        : (r.Reason, weight, f.Frame.Raw, r.ReasonText ?? key, _groups.Count);
                    break;
            }
        }

        public SymbolizationCounts ToCounts(long stacks) => new(stacks, _frames, _inEngine, _offline, _unverified, _unresolved);

        /// <summary>Reasons by weighted count (ties by description), with the search logs of the summary's groups.</summary>
        public IReadOnlyList<UnresolvedGroup> Groups(ResolutionSummary summary) =>
            [.. _groups.OrderByDescending(kv => kv.Value.Count).ThenBy(kv => kv.Key, StringComparer.Ordinal)
                .Select(kv => new UnresolvedGroup(kv.Value.Reason, kv.Key, kv.Value.Count, kv.Value.FirstExample, kv.Value.FirstReason, 0,
                    summary.UnresolvedGroups.FirstOrDefault(g => string.Equals(g.Description, kv.Key, StringComparison.Ordinal))?.SearchLog ?? []))];
    }

    /// <summary>Address lists by value (ordinal comparison for sorting), with lookups by span.</summary>
    private sealed class StackComparer : IEqualityComparer<ulong[]>, IAlternateEqualityComparer<ReadOnlySpan<ulong>, ulong[]>, IComparer<ulong[]>
    {
        public static readonly StackComparer Instance = new();

        public bool Equals(ulong[]? x, ulong[]? y) => ReferenceEquals(x, y) || (x is not null && y is not null && x.AsSpan().SequenceEqual(y));

        public int GetHashCode(ulong[] obj) => Hash(obj);

        public bool Equals(ReadOnlySpan<ulong> alternate, ulong[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<ulong> alternate) => Hash(alternate);

        public ulong[] Create(ReadOnlySpan<ulong> alternate) => alternate.ToArray();

        public int Compare(ulong[]? x, ulong[]? y) => x is null || y is null ? Comparer<ulong[]?>.Default.Compare(x, y) : x.AsSpan().SequenceCompareTo(y);

        private static int Hash(ReadOnlySpan<ulong> s)
        {
            var h = default(HashCode);
            h.AddBytes(MemoryMarshal.AsBytes(s));
            return h.ToHashCode();
        }
    }

    private sealed class PairComparer : IEqualityComparer<(XeEventType, XeActionSet)>
    {
        public static readonly PairComparer Instance = new();

        public bool Equals((XeEventType, XeActionSet) x, (XeEventType, XeActionSet) y) => ReferenceEquals(x.Item1, y.Item1) && ReferenceEquals(x.Item2, y.Item2);

        public int GetHashCode((XeEventType, XeActionSet) obj) =>
            HashCode.Combine(System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item1), System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj.Item2));
    }
}

using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Accumulates <see cref="ResolvedCallstack"/>s of one input into a <see cref="ResolutionSummary"/>: counts, reasons,
/// and the patterns behind the trace-flag hints. Not thread-safe (feed it from one thread).
/// </summary>
internal sealed class ResolutionSummaryBuilder
{
    private const int MaxGroups = 1000;
    private const int RecentSize = 8;
    private const string OtherGroup = "other reasons (too many distinct reasons to list)";

    private readonly HashSet<PdbBinding> _usedPdbs = new(ReferenceEqualityComparer.Instance);
    private readonly string? _inputName;
    private readonly bool _moduleMapGiven;
    private readonly long[] _shapes = new long[Enum.GetValues<StackShape>().Length];
    private readonly Dictionary<string, GroupState> _groups = new(StringComparer.Ordinal);
    private readonly SortedDictionary<string, (long Count, string First)> _ordinals = new(
        StringComparer.OrdinalIgnoreCase
    );
    private readonly SortedSet<string> _engineModules = new(StringComparer.OrdinalIgnoreCase);
    private readonly SortedSet<string> _unidentified = new(StringComparer.OrdinalIgnoreCase);
    private readonly SortedSet<string> _unidentifiedOther = new(StringComparer.OrdinalIgnoreCase);
    private readonly SortedDictionary<string, PdbBinding> _missingPdbs = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<string> _warnings = [];
    private readonly ModuleListFit _fit = new();

    // The repeats of the frames of lines keyed by text id (StackLine.TextId: the repeats of a line share one frame
    // instance), by id, added to the counts at the end; made on first use.
    private Tally?[]? _tallies;

    // The last few PDBs and engine module names added: frames alternate between a handful of modules, so the sets above
    // are only touched when a frame names one that is not among them.
    private readonly PdbBinding?[] _recentPdbs = new PdbBinding?[RecentSize];
    private readonly string?[] _recentEngineModules = new string?[RecentSize];
    private long _stacks;
    private long _frames;
    private long _inEngine;
    private long _offline;
    private long _unresolved;
    private long _unverified;
    private long _addresses;
    private long _engineCaptured;
    private long _engineCapturedUnresolved;
    private long _malformedLines;
    private string? _firstMalformed;
    private ModuleName? _lastModule;
    private bool _lastModuleIsEngine;

    /// <summary>Creates a builder.</summary>
    /// <param name="inputName">The input's name for messages (file path, <c>-</c>), or <see langword="null"/>.</param>
    /// <param name="moduleMapGiven">Whether a module map was given for the input (to warn when it is not used).</param>
    public ResolutionSummaryBuilder(string? inputName = null, bool moduleMapGiven = false)
    {
        _inputName = inputName;
        _moduleMapGiven = moduleMapGiven;
    }

    /// <summary>Counts one resolved stack (a continuation piece of a long plain-text stack counts its frames, not as
    /// another stack).</summary>
    /// <param name="stack">The stack.</param>
    public void Add(ResolvedCallstack stack)
    {
        ArgumentNullException.ThrowIfNull(stack);

        // A continuation is the next piece of a long plain-text stack, not a stack of its own.
        if (!stack.Stack.IsContinuation)
        {
            _stacks++;
            _shapes[(int)stack.Shape]++;
        }
        ReadOnlySpan<ResolvedFrame> frames = stack.Frames.AsSpan();
        int frameIndex = 0;
        foreach (ref readonly StackLine line in stack.Stack.Lines.AsSpan())
        {
            if (line.Diagnostic is not null && !line.HasFrames)
            {
                _malformedLines++;
                _firstMalformed ??= string.Create(
                    CultureInfo.InvariantCulture,
                    $"line {line.LineNumber}: {line.Diagnostic}"
                );
            }

            for (int k = 0; k < line.FrameCount && frameIndex < frames.Length; k++)
            {
                ref readonly ResolvedFrame f = ref frames[frameIndex++];
                if (line.TextId >= 0 && ReferenceEquals(line.SoleFrame, f.Frame))
                {
                    AddLineFrame(f.Frame, f.Resolution, line.LineNumber, line.TextId);
                }
                else
                {
                    Count(f.Frame, f.Resolution, line.LineNumber, 1);
                }
            }
        }

        // Frames not tied to a line (a stack built from frames directly keeps one line per frame, so this is
        // defensive).
        while (frameIndex < frames.Length)
        {
            ref readonly ResolvedFrame f = ref frames[frameIndex++];
            Count(f.Frame, f.Resolution, 0, 1);
        }
    }

    /// <summary>Adds a warning (an input warning of the reader, a setup problem) to the summary.</summary>
    /// <param name="warning">The text.</param>
    public void AddWarning(string warning)
    {
        ArgumentException.ThrowIfNullOrEmpty(warning);
        _warnings.Add(warning);
    }

    /// <summary>Builds the summary.</summary>
    /// <param name="resolver">The resolver, for its setup warnings (e.g. skipped binaries); or <see langword="null"/>.
    /// The PDBs listed are those the added frames used.</param>
    /// <returns>The summary.</returns>
    public ResolutionSummary Build(CallstackResolver? resolver = null)
    {
        foreach (Tally? t in _tallies ?? [])
        {
            if (t is { Repeats: > 0 })
            {
                Count(t.Frame, t.Resolution, 0, t.Repeats);
                t.Repeats = 0;
            }
        }

        IFormatProvider ic = CultureInfo.InvariantCulture;
        var shapes = new SortedDictionary<StackShape, long>();
        for (int i = 0; i < _shapes.Length; i++)
        {
            if (_shapes[i] > 0)
            {
                shapes[(StackShape)i] = _shapes[i];
            }
        }

        var groups = _groups
            .Select(kv => new UnresolvedGroup(
                kv.Value.Reason,
                kv.Key,
                kv.Value.Count,
                kv.Value.FirstExample,
                kv.Value.FirstReason,
                kv.Value.FirstLine,
                kv.Value.Reason is UnresolvedReason.NoPdb or UnresolvedReason.PdbDamaged
                    ? kv.Value.Pdb?.SearchLog ?? []
                    : []
            ))
            .OrderByDescending(g => g.Count)
            .ThenBy(g => g.Description, StringComparer.Ordinal)
            .ToList();

        var hints = new List<string>();
        if (_engineCaptured > 0 && (_inEngine > 0 || _engineCapturedUnresolved > 0))
        {
            string modules =
                string.Join(", ", _engineModules.Take(8)) + (_engineModules.Count > 8 ? ", …" : string.Empty);
            string observed =
                _inEngine > 0
                    ? string.Create(
                        ic,
                        $"{_engineCaptured} frame(s) of SQL Server modules ({modules}) were captured as "
                    ) + "module+offset while other frames were symbolized in-engine"
                    : string.Create(
                        ic,
                        $"{_engineCapturedUnresolved} of {_engineCaptured} frame(s) of SQL Server modules "
                            + $"({modules}) were captured unsymbolized and stay unresolved"
                    );
            hints.Add(
                observed
                    + ": on SQL Server 2019 and later trace flag 3656 alone no longer symbolizes; add 2592 (`DBCC "
                    + "TRACEON(3656, 2592, -1)`) and put the matching PDBs in Binn, or resolve offline with "
                    + "--symbols/--sql-build"
            );
        }

        foreach (KeyValuePair<string, (long Count, string First)> kv in _ordinals)
        {
            string pdb =
                kv.Key.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
                || kv.Key.EndsWith(".exe", StringComparison.OrdinalIgnoreCase)
                    ? kv.Key[..^4] + ".pdb"
                    : kv.Key + ".pdb";
            hints.Add(
                string.Create(
                    ic,
                    $"{kv.Value.Count} frame(s) of {kv.Key} are export ordinals (first: {kv.Value.First}): TF 3656 "
                        + $"was on but {pdb} was not in Binn; put the matching {pdb} next to sqlservr.exe, or resolve "
                        + $"offline with --binaries DIR (the DLLs, for their export tables) and --symbols/--sql-build"
                )
            );
        }

        // --sql-build names the PDBs of SQL Server's own modules only (the catalog ships with the tool); Windows
        // modules are identified by their DLLs.
        if (_unidentified.Count > 0)
        {
            hints.Add(
                "no PDB GUID/age is known for "
                    + string.Join(", ", _unidentified.Take(12))
                    + (_unidentified.Count > 12 ? ", …" : string.Empty)
                    + ", and no single PDB of that name was found: give --sql-build BUILD, --binaries DIR (the "
                    + "capture's "
                    + "DLLs) or CSV symbol metadata, so the matching PDB builds are looked up"
            );
        }

        if (_unidentifiedOther.Count > 0)
        {
            hints.Add(
                "no PDB GUID/age is known for "
                    + string.Join(", ", _unidentifiedOther.Take(12))
                    + (_unidentifiedOther.Count > 12 ? ", …" : string.Empty)
                    + ", and no single PDB of that name was found: give --binaries DIR with those DLLs copied from the "
                    + "server (or CSV symbol metadata), so their PDBs are identified"
            );
        }

        foreach (PdbBinding missing in _missingPdbs.Values.Take(8))
        {
            PdbIdentity id = missing.Identity!.Value;
            string looked =
                missing.SearchLog.Count == 0
                    ? string.Empty
                    : " (looked in: "
                        + string.Join("; ", missing.SearchLog.Take(3))
                        + (missing.SearchLog.Count > 3 ? "; …" : string.Empty)
                        + ")";
            hints.Add(
                string.Create(ic, $"{missing.PdbName} {id} was not found{looked}; fetch it with: ")
                    + string.Create(
                        ic,
                        $"xeanalyze symbols fetch --pdb {missing.PdbName} --guid {id.Guid:D} --age {id.Age}"
                    )
            );
        }

        var warnings = new List<string>(_warnings);
        if (resolver is not null)
        {
            warnings.AddRange(resolver.Warnings);
        }

        long noMap = _groups.TryGetValue("no module map for raw addresses", out GroupState? nm) ? nm.Count : 0;
        if (noMap > 0)
        {
            warnings.Add(
                string.Create(
                    ic,
                    $"{noMap} raw-address frame(s) but no module map: give the module list (--modules FILE: `select "
                        + $"name, base_address from sys.dm_os_loaded_modules`) captured from the same SQL Server "
                        + $"process "
                        + $"lifetime as the stacks"
                )
            );
        }

        if (_fit.Warning() is string misfit)
        {
            warnings.Add(misfit);
        }

        if (_moduleMapGiven && _addresses == 0)
        {
            warnings.Add(
                "a module map was given but no frame is a raw address, so it was not used (module+offset, symbolized "
                    + "and callstack_rva frames name their module themselves)"
            );
        }

        if (_malformedLines > 0)
        {
            warnings.Add(
                string.Create(
                    ic,
                    $"{_malformedLines} line(s) looked like frames but could not be parsed and are written unchanged "
                        + $"(first: {_firstMalformed})"
                )
            );
        }

        // Only the PDBs this input's frames used (found or not): a resolver shared across inputs (a batch) knows others
        // too, and which of those it had loaded by now depends on timing.
        IReadOnlyList<PdbBinding> pdbs = _usedPdbs
            .OrderBy(b => b.PdbName, StringComparer.OrdinalIgnoreCase)
            .ThenBy(b => b.Identity?.Key ?? string.Empty, StringComparer.Ordinal)
            .ToList()
            .AsReadOnly();
        return new ResolutionSummary(
            _inputName,
            _stacks,
            shapes.AsReadOnly(),
            _frames,
            _inEngine,
            _offline,
            _unresolved,
            _unverified,
            groups.AsReadOnly(),
            pdbs,
            hints.AsReadOnly(),
            warnings.AsReadOnly()
        )
        {
            ModuleListFit = _fit.Checked > 0 ? _fit.Copy() : null,
        };
    }

    /// <summary>
    /// Counts one occurrence of the frame of a line keyed by text id: in full the first time, then in the id's tally
    /// while the line has that frame instance and resolution. What a frame adds depends only on the frame and its
    /// resolution, apart from the first example and line of a reason group, which its first time sets.
    /// </summary>
    private void AddLineFrame(StackFrame frame, FrameResolution r, long line, int textId)
    {
        _tallies ??= new Tally?[LineInterner.MaxEntries];
        Tally? tally = _tallies[textId];
        if (tally is not null && ReferenceEquals(tally.Frame, frame) && ReferenceEquals(tally.Resolution, r))
        {
            tally.Repeats++;
            return;
        }

        Count(frame, r, line, 1);

        // An id another frame holds (ids of two readers, new symbol metadata) keeps it: this frame is counted in full.
        _tallies[textId] ??= new Tally(frame, r);
    }

    /// <summary>Counts <paramref name="times"/> occurrences of <paramref name="frame"/> resolved as
    /// <paramref name="r"/> (<paramref name="line"/>: of the first).</summary>
    private void Count(StackFrame frame, FrameResolution r, long line, long times)
    {
        _frames += times;
        if (r.Pdb is PdbBinding used && !SeenRecently(_recentPdbs, used))
        {
            _usedPdbs.Add(used);
        }

        switch (r.Status)
        {
            case FrameResolutionStatus.InEngine:
                _inEngine += times;
                break;
            case FrameResolutionStatus.ResolvedOffline:
                _offline += times;
                if (!r.IsVerified)
                {
                    _unverified += times;
                }

                break;
            default:
                _unresolved += times;
                AddGroup(frame, r, line, times);
                if (r.Reason == UnresolvedReason.NoPdb && r.Pdb is { Identity: null } unknown)
                {
                    SortedSet<string> names =
                        r.Module is ModuleName um && !IsSqlEngineModule(um) ? _unidentifiedOther : _unidentified;
                    if (names.Count < 64)
                    {
                        names.Add(r.ModuleDisplayName ?? unknown.PdbName);
                    }
                }
                else if (
                    r.Reason == UnresolvedReason.NoPdb
                    && r.Pdb is { Identity: PdbIdentity known } pdb
                    && _missingPdbs.Count < 64
                )
                {
                    _missingPdbs.TryAdd(pdb.PdbName + "/" + known.Key, pdb);
                }

                break;
        }

        switch (frame)
        {
            case VirtualAddressFrame:
                // Not a trace-flag case: a raw address is what the callstack action holds in a .xel whatever the flags,
                // which change only the text that target data shows.
                _addresses += times;
                if (r.Reason != UnresolvedReason.NoModuleMap)
                {
                    _fit.Add(r, times);
                }

                break;
            case ModuleOffsetFrame m when IsSqlEngineModule(m.ModuleName):
                AddEngineCaptured(r, m.ModuleName, times);
                break;
            case OrdinalFrame o:
                string key = r.ModuleDisplayName ?? o.ModuleName.Name;
                _ordinals[key] = _ordinals.TryGetValue(key, out var seen)
                    ? (seen.Count + times, seen.First)
                    : (times, o.Raw);
                break;
        }
    }

    private void AddEngineCaptured(FrameResolution r, ModuleName module, long times)
    {
        _engineCaptured += times;
        if (r.Status == FrameResolutionStatus.Unresolved)
        {
            _engineCapturedUnresolved += times;
        }

        string name = r.ModuleDisplayName ?? module.Name;
        if (_engineModules.Count < 64 && !SeenRecently(_recentEngineModules, name))
        {
            _engineModules.Add(name);
        }
    }

    /// <summary><see cref="FrameText.IsSqlEngineModule"/>, remembered for the last module instance (stacks share module
    /// names).</summary>
    private bool IsSqlEngineModule(ModuleName module)
    {
        if (!ReferenceEquals(module, _lastModule))
        {
            _lastModule = module;
            _lastModuleIsEngine = FrameText.IsSqlEngineModule(module);
        }

        return _lastModuleIsEngine;
    }

    /// <summary>True when <paramref name="item"/> (by reference) is among <paramref name="recent"/>; else remembers it
    /// there, replacing the oldest.</summary>
    private static bool SeenRecently<T>(T?[] recent, T item)
        where T : class
    {
        foreach (T? r in recent)
        {
            if (ReferenceEquals(r, item))
            {
                return true;
            }
        }

        Array.Copy(recent, 0, recent, 1, recent.Length - 1);
        recent[0] = item;
        return false;
    }

    private void AddGroup(StackFrame frame, FrameResolution r, long line, long times)
    {
        string key = r.ReasonGroup ?? r.ReasonText ?? "unresolved";
        if (!_groups.TryGetValue(key, out GroupState? g))
        {
            if (_groups.Count >= MaxGroups)
            {
                key = OtherGroup;
                if (!_groups.TryGetValue(key, out g))
                {
                    g = new GroupState(r.Reason, frame.Raw, r.ReasonText ?? key, line, null);
                    _groups.Add(key, g);
                }
            }
            else
            {
                g = new GroupState(r.Reason, frame.Raw, r.ReasonText ?? key, line, r.Pdb);
                _groups.Add(key, g);
            }
        }

        g.Count += times;
    }

    /// <summary>The repeats of one frame instance with one resolution, not yet added to the counts.</summary>
    private sealed class Tally(StackFrame frame, FrameResolution resolution)
    {
        public StackFrame Frame { get; } = frame;

        public FrameResolution Resolution { get; } = resolution;

        public long Repeats { get; set; }
    }

    private sealed class GroupState(
        UnresolvedReason reason,
        string firstExample,
        string firstReason,
        long firstLine,
        PdbBinding? pdb
    )
    {
        public UnresolvedReason Reason { get; } = reason;

        public string FirstExample { get; } = firstExample;

        public string FirstReason { get; } = firstReason;

        public long FirstLine { get; } = firstLine;

        public PdbBinding? Pdb { get; } = pdb;

        public long Count { get; set; }
    }
}

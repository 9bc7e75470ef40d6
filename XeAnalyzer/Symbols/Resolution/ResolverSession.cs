using System.Collections.Concurrent;
using System.Collections.Immutable;
using System.Globalization;
using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Pe;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Resolution of the frames of one input (made by <see cref="CallstackResolver.CreateSession"/>): the input's module
/// map for raw addresses and its CSV symbol metadata, plus caches of what each distinct address and in-engine symbol
/// resolved to. Thread-safe: frames may be resolved concurrently.
/// </summary>
internal sealed partial class ResolverSession
{
    private const int MaxViews = 4096;

    private readonly CallstackResolver _owner;
    private readonly FrameStyle _style;
    private readonly bool _offsets;
    private readonly bool _lines;
    private readonly bool _inlines;
    private readonly Dictionary<string, string> _knownFileNames = new(StringComparer.Ordinal);
    private readonly Dictionary<string, ModulePdbInfo> _optionMetadata = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<(string Raw, FrameProvenance Provenance), FrameResolution> _inEngine = new();
    private readonly ConcurrentDictionary<(string Module, int Ordinal, ulong Offset), FrameResolution> _ordinals =
        new();
    private readonly ConcurrentDictionary<ulong, FrameResolution> _outside = new();
    private readonly ConcurrentDictionary<RvaViewKey, ModuleView> _rvaViews = new();
    private readonly Lock _metadataGate = new();

    // 64 KB: below the large-object heap, since a batch makes a session per capture
    private const int SeenOnceBits = 13;
    private readonly ulong[] _seenOnce = new ulong[1 << SeenOnceBits];
    private readonly FrameResolution _noModuleMap;
    private volatile Generation _generation;

    internal ResolverSession(CallstackResolver owner, ModuleMap? moduleMap, IEnumerable<ModulePdbInfo>? symbolMetadata)
    {
        _owner = owner;
        _style = owner.Options.Style;
        _offsets = owner.Options.IncludeOffsets;
        _lines = owner.Options.IncludeSourceLines;
        _inlines = owner.Options.IncludeInlineFrames;
        ModuleMap = moduleMap;
        if (owner.Options.Binaries is ModuleBinaries binaries)
        {
            foreach (ModuleBinary b in binaries.Images)
            {
                _knownFileNames.TryAdd(b.Module.Key, b.Module.Name);
            }
        }

        if (moduleMap is not null)
        {
            foreach (LoadedModule m in moduleMap.Modules)
            {
                _knownFileNames[m.Name.Key] = m.Name.Name;
            }
        }

        foreach (ModulePdbInfo info in owner.Options.SymbolMetadata ?? [])
        {
            _optionMetadata.TryAdd(info.Module.Key, info);
        }

        var metadata = new Dictionary<string, ModulePdbInfo>(StringComparer.Ordinal);
        foreach (ModulePdbInfo info in symbolMetadata ?? [])
        {
            metadata.TryAdd(info.Module.Key, info);
        }

        _generation = new Generation(metadata);
        const string noMap = "no module map for raw addresses";
        _noModuleMap = Unresolved(null, null, null, null, UnresolvedReason.NoModuleMap, noMap, noMap);
    }

    /// <summary>The resolver the session belongs to.</summary>
    public CallstackResolver Resolver => _owner;

    /// <summary>The module list used for raw addresses, or <see langword="null"/>.</summary>
    public ModuleMap? ModuleMap { get; }

    /// <summary>
    /// Adds module → PDB identities (CSV symbol metadata found further into the input). Modules that already have an
    /// entry keep it. Frames resolved afterwards use them; earlier results are not changed.
    /// </summary>
    /// <param name="entries">The entries.</param>
    public void AddSymbolMetadata(IEnumerable<ModulePdbInfo> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        lock (_metadataGate)
        {
            Dictionary<string, ModulePdbInfo>? next = null;
            foreach (ModulePdbInfo info in entries)
            {
                if (
                    !_generation.Metadata.ContainsKey(info.Module.Key)
                    && (next is null || !next.ContainsKey(info.Module.Key))
                )
                {
                    next ??= new Dictionary<string, ModulePdbInfo>(_generation.Metadata, StringComparer.Ordinal);
                    next.Add(info.Module.Key, info);
                }
            }

            if (next is not null)
            {
                _generation = new Generation(next);
            }
        }
    }

    /// <summary>Resolves every frame of a stack and classifies its shape.</summary>
    /// <param name="stack">The stack.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolved stack (frames in the stack's order).</returns>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    public ResolvedCallstack Resolve(Callstack stack, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(stack);
        ImmutableArray<StackFrame> frameArray = stack.Frames;
        ReadOnlySpan<StackFrame> frames = frameArray.AsSpan();
        var resolved = new ResolvedFrame[frames.Length];
        // One generation for the whole stack: symbol metadata changes only between stacks.
        Generation generation = _generation;
        FrameEntry?[]? byText = null;
        int i = 0;
        foreach (ref readonly StackLine line in stack.Lines.AsSpan())
        {
            // A line of one frame that the text reader keyed by its text (a repeated line shares its frame instance).
            if (line.TextId >= 0 && i < frames.Length && ReferenceEquals(line.SoleFrame, frames[i]))
            {
                StackFrame frame = frames[i];
                FrameResolution r;
                if (frame is ModuleOffsetFrame or VirtualAddressFrame)
                {
                    byText ??= generation.FramesByTextId;
                    r = ResolveLineFrame(byText, frame, line.TextId, cancellationToken);
                }
                else
                {
                    r = ResolveFrame(frame, cancellationToken);
                }

                resolved[i++] = new ResolvedFrame(frame, r);
                continue;
            }

            for (int k = 0; k < line.FrameCount && i < frames.Length; k++, i++)
            {
                resolved[i] = new ResolvedFrame(frames[i], ResolveFrame(frames[i], cancellationToken));
            }
        }

        for (; i < resolved.Length; i++)
        {
            resolved[i] = new ResolvedFrame(frames[i], ResolveFrame(frames[i], cancellationToken));
        }

        return new ResolvedCallstack(
            stack,
            ImmutableCollectionsMarshal.AsImmutableArray(resolved),
            StackShapes.Classify(frameArray)
        );
    }

    /// <summary>Resolves one frame.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The frame with its resolution.</returns>
    public ResolvedFrame Resolve(StackFrame frame, CancellationToken cancellationToken = default) =>
        new(frame, ResolveFrame(frame, cancellationToken));

    /// <summary>Resolves one frame of any kind (the shared resolution, without the frame).</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolution.</returns>
    /// <exception cref="OperationCanceledException">The token was canceled.</exception>
    public FrameResolution ResolveFrame(StackFrame frame, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(frame);
        return frame switch
        {
            ModuleOffsetFrame m => Resolve(GetView(m.ModuleName), m.Offset, cancellationToken),
            VirtualAddressFrame v => ResolveAddress(v.Address, cancellationToken),
            SymbolizedFrame s => ResolveSymbolized(s),
            OrdinalFrame o => ResolveOrdinal(o, cancellationToken),
            RvaFrame r => ResolveRva(r, cancellationToken),
            _ => throw new ArgumentException("unknown frame type " + frame.GetType().Name, nameof(frame)),
        };
    }

    /// <summary>
    /// Resolves the frame of a line the text reader keyed by its text (<see cref="StackLine.TextId"/>): the repeats of
    /// a line share one frame instance, so a module+offset or raw-address frame resolved before in this generation of
    /// symbol metadata is answered from the generation's table by text id, the entry checked to hold this very frame
    /// (ids of two readers may meet in one session).
    /// </summary>
    private FrameResolution ResolveLineFrame(
        FrameEntry?[] byText,
        StackFrame frame,
        int textId,
        CancellationToken cancellationToken
    )
    {
        FrameEntry? entry = Volatile.Read(ref byText[textId]);
        if (entry is not null && ReferenceEquals(entry.Frame, frame))
        {
            return entry.Resolution;
        }

        FrameResolution r = ResolveFrame(frame, cancellationToken);
        Volatile.Write(ref byText[textId], new FrameEntry(frame, r));
        return r;
    }

    /// <summary>Resolves an RVA in a module (a module+offset frame).</summary>
    /// <param name="module">The module.</param>
    /// <param name="rva">The offset from the module's base.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolution.</returns>
    public FrameResolution ResolveModuleOffset(
        ModuleName module,
        ulong rva,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(module);
        return Resolve(GetView(module), rva, cancellationToken);
    }

    /// <summary>Resolves a raw virtual address through <see cref="ModuleMap"/>.</summary>
    /// <param name="address">The virtual address.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolution (unresolved with <see cref="UnresolvedReason.NoModuleMap"/> or
    /// <see cref="UnresolvedReason.NoModuleForAddress"/> when the map cannot place it).</returns>
    public FrameResolution ResolveAddress(ulong address, CancellationToken cancellationToken = default)
    {
        if (ModuleMap is null)
        {
            return _noModuleMap;
        }

        if (ModuleMap.TryResolve(address, out LoadedModule? module, out ulong rva))
        {
            return Resolve(GetView(module.Name), rva, cancellationToken);
        }

        if (_outside.TryGetValue(address, out FrameResolution? r))
        {
            return r;
        }

        r = Unresolved(
            null,
            null,
            null,
            null,
            UnresolvedReason.NoModuleForAddress,
            "no module for 0x" + address.ToString("X16", CultureInfo.InvariantCulture),
            "no module for the address (outside every module of the module map)"
        );
        if (_owner.TryReserveCacheEntry())
        {
            _outside.TryAdd(address, r);
        }

        return r;
    }

    /// <summary>Resolves raw return addresses (an <c>.xel</c> callstack, leaf first) through
    /// <see cref="ModuleMap"/>.</summary>
    /// <param name="addresses">The virtual addresses.</param>
    /// <param name="destination">Receives one resolution per address.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than
    /// <paramref name="addresses"/>.</exception>
    public void ResolveAddresses(
        ReadOnlySpan<ulong> addresses,
        Span<FrameResolution> destination,
        CancellationToken cancellationToken = default
    )
    {
        if (destination.Length < addresses.Length)
        {
            throw new ArgumentException("the destination is shorter than the addresses", nameof(destination));
        }

        for (int i = 0; i < addresses.Length; i++)
        {
            destination[i] = ResolveAddress(addresses[i], cancellationToken);
        }
    }

    private FrameResolution ResolveSymbolized(SymbolizedFrame s)
    {
        var key = (s.Raw, s.Provenance);
        if (_inEngine.TryGetValue(key, out FrameResolution? r))
        {
            return r;
        }

        string? display = s.Module is null ? null : DisplayName(s.Module);
        string? styled = display is null ? null : FrameText.StyledModule(display, _style);
        r = new FrameResolution(
            FrameResolutionStatus.InEngine,
            FrameText.Render(styled, s.Symbol, s.Displacement, _style, _offsets),
            s.Module,
            display,
            s.Symbol,
            s.Displacement,
            null,
            true,
            null,
            null,
            UnresolvedReason.None,
            null,
            null
        );
        if (_owner.TryReserveCacheEntry())
        {
            _inEngine.TryAdd(key, r);
        }

        return r;
    }

    private FrameResolution ResolveOrdinal(OrdinalFrame o, CancellationToken cancellationToken)
    {
        ModuleBinaries? binaries = _owner.Options.Binaries;
        ModuleBinary? binary = null;
        if (binaries is not null && binaries.TryGet(o.ModuleName, out binary))
        {
            PeExport? export = binary.Image.FindExportByOrdinal(o.Ordinal);
            if (export is not null && !export.IsForwarder && o.Offset <= uint.MaxValue)
            {
                return Resolve(GetView(o.ModuleName), export.Rva + o.Offset, cancellationToken);
            }
        }

        var key = (o.ModuleName.Key, o.Ordinal, o.Offset);
        if (_ordinals.TryGetValue(key, out FrameResolution? r))
        {
            return r;
        }

        string display = DisplayName(o.ModuleName);
        string ordinal = display + "!Ordinal" + o.Ordinal.ToString(CultureInfo.InvariantCulture);
        if (binary is null)
        {
            string why =
                binaries is not null && binaries.IsAmbiguous(o.ModuleName)
                    ? ordinal
                        + " can only be placed with the export table of "
                        + display
                        + ", which was found in two builds under the binaries folders"
                    : ordinal
                        + " can only be placed with the export table of "
                        + display
                        + " (give the DLL with --binaries DIR)";
            r = Unresolved(
                o.ModuleName,
                display,
                null,
                null,
                UnresolvedReason.OrdinalNeedsDll,
                "ordinal needs the DLL: " + why,
                "ordinal needs the DLL (" + display + ")"
            );
        }
        else
        {
            PeExport? export = binary.Image.FindExportByOrdinal(o.Ordinal);
            string why =
                export is null
                    ? binary.Path + " has no export with ordinal " + o.Ordinal.ToString(CultureInfo.InvariantCulture)
                : export.IsForwarder ? ordinal + " is forwarded to " + PdbNamesPrintable(export.ForwardedTo)
                : "the offset 0x" + o.Offset.ToString("x", CultureInfo.InvariantCulture) + " is beyond 4 GB";
            r = Unresolved(
                o.ModuleName,
                display,
                null,
                null,
                UnresolvedReason.OrdinalNotExported,
                why,
                "ordinal not exported by " + display
            );
        }

        if (_owner.TryReserveCacheEntry())
        {
            _ordinals.TryAdd(key, r);
        }

        return r;
    }

    private FrameResolution ResolveRva(RvaFrame r, CancellationToken cancellationToken)
    {
        if (!r.CanResolve)
        {
            string text = r.IsAbbreviated
                ? "abbreviated callstack_rva frame with no earlier full frame of its module"
                : "callstack_rva frame without PDB name, GUID/age and RVA";
            return Unresolved(
                r.Module,
                r.Module is null ? null : DisplayName(r.Module),
                null,
                null,
                UnresolvedReason.IncompleteFrame,
                text,
                text
            );
        }

        var key = new RvaViewKey(r.Module?.Name, r.PdbName!, r.Identity!.Value);
        if (!_rvaViews.TryGetValue(key, out ModuleView? view))
        {
            ModuleName? module = r.Module ?? ModuleFromPdbName(r.PdbName!);
            string? display = module is null ? null : DisplayName(module);
            view = new ModuleView(
                module,
                display,
                display is null ? null : FrameText.StyledModule(display, _style),
                _owner.GetPdb(r.PdbName!, r.Identity, PdbIdentitySource.Frame)
            );
            if (_rvaViews.Count < MaxViews)
            {
                view = _rvaViews.GetOrAdd(key, view);
            }
        }

        return Resolve(view, r.Rva!.Value, cancellationToken);
    }

    private static ModuleName? ModuleFromPdbName(string pdbName) =>
        ModuleName.TryCreate(pdbName, out _) ? ModuleName.FromPdbName(pdbName) : null;

    private static string PdbNamesPrintable(string? s) => Store.PdbNames.Printable(s);

    private static FrameResolution Unresolved(
        ModuleName? module,
        string? display,
        ulong? rva,
        PdbBinding? pdb,
        UnresolvedReason reason,
        string text,
        string group
    ) =>
        new(
            FrameResolutionStatus.Unresolved,
            null,
            module,
            display,
            null,
            null,
            rva,
            false,
            pdb,
            null,
            reason,
            text,
            group
        );
}

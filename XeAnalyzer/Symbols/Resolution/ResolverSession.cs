using System.Collections.Concurrent;
using System.Collections.Immutable;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Pe;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// Resolution of the frames of one input (made by <see cref="CallstackResolver.CreateSession"/>): the input's module map for raw
/// addresses and its CSV symbol metadata, plus caches of what each distinct address and in-engine symbol resolved to.
/// Thread-safe: frames may be resolved concurrently.
/// </summary>
internal sealed class ResolverSession
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
    private readonly ConcurrentDictionary<(string Module, int Ordinal, ulong Offset), FrameResolution> _ordinals = new();
    private readonly ConcurrentDictionary<ulong, FrameResolution> _outside = new();
    private readonly ConcurrentDictionary<RvaViewKey, ModuleView> _rvaViews = new();
    private readonly Lock _metadataGate = new();
    private const int SeenOnceBits = 13; // 64 KB: below the large-object heap, since a batch makes a session per capture
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
    /// Adds module → PDB identities (CSV symbol metadata found further into the input). Modules that already have an entry keep it.
    /// Frames resolved afterwards use them; earlier results are not changed.
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
                if (!_generation.Metadata.ContainsKey(info.Module.Key) && (next is null || !next.ContainsKey(info.Module.Key)))
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
        ImmutableArray<StackFrame> frames = stack.Frames;
        var resolved = new ResolvedFrame[frames.Length];
        ImmutableArray<StackLine> lines = stack.Lines;
        int i = 0;
        for (int l = 0; l < lines.Length; l++)
        {
            // A line of one frame that the text reader keyed by its text (a repeated line shares its frame instance).
            ref readonly StackLine line = ref lines.ItemRef(l);
            bool keyed = line.TextId >= 0 && i < frames.Length && ReferenceEquals(line.SoleFrame, frames[i]);
            if (keyed)
            {
                resolved[i] = new ResolvedFrame(frames[i], ResolveLineFrame(frames[i], line.TextId, cancellationToken));
                i++;
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

        return new ResolvedCallstack(stack, ImmutableCollectionsMarshal.AsImmutableArray(resolved), StackShapes.Classify(frames));
    }

    /// <summary>Resolves one frame.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The frame with its resolution.</returns>
    public ResolvedFrame Resolve(StackFrame frame, CancellationToken cancellationToken = default) => new(frame, ResolveFrame(frame, cancellationToken));

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
    private FrameResolution ResolveLineFrame(StackFrame frame, int textId, CancellationToken cancellationToken)
    {
        if (frame is not (ModuleOffsetFrame or VirtualAddressFrame))
        {
            return ResolveFrame(frame, cancellationToken);
        }

        FrameEntry?[] byText = _generation.FramesByTextId;
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
    public FrameResolution ResolveModuleOffset(ModuleName module, ulong rva, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(module);
        return Resolve(GetView(module), rva, cancellationToken);
    }

    /// <summary>Resolves a raw virtual address through <see cref="ModuleMap"/>.</summary>
    /// <param name="address">The virtual address.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <returns>The resolution (unresolved with <see cref="UnresolvedReason.NoModuleMap"/> or <see cref="UnresolvedReason.NoModuleForAddress"/> when the map cannot place it).</returns>
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

        r = Unresolved(null, null, null, null, UnresolvedReason.NoModuleForAddress,
            "no module for 0x" + address.ToString("X16", CultureInfo.InvariantCulture),
            "no module for the address (outside every module of the module map)");
        if (_owner.TryReserveCacheEntry())
        {
            _outside.TryAdd(address, r);
        }

        return r;
    }

    /// <summary>Resolves raw return addresses (an <c>.xel</c> callstack, leaf first) through <see cref="ModuleMap"/>.</summary>
    /// <param name="addresses">The virtual addresses.</param>
    /// <param name="destination">Receives one resolution per address.</param>
    /// <param name="cancellationToken">Stops a PDB search or download.</param>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <paramref name="addresses"/>.</exception>
    public void ResolveAddresses(ReadOnlySpan<ulong> addresses, Span<FrameResolution> destination, CancellationToken cancellationToken = default)
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
        r = new FrameResolution(FrameResolutionStatus.InEngine, FrameText.Render(styled, s.Symbol, s.Displacement, _style, _offsets),
            s.Module, display, s.Symbol, s.Displacement, null, true, null, null, UnresolvedReason.None, null, null);
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
            string why = binaries is not null && binaries.IsAmbiguous(o.ModuleName)
                ? ordinal + " can only be placed with the export table of " + display + ", which was found in two builds under the binaries folders"
                : ordinal + " can only be placed with the export table of " + display + " (give the DLL with --binaries DIR)";
            r = Unresolved(o.ModuleName, display, null, null, UnresolvedReason.OrdinalNeedsDll,
                "ordinal needs the DLL: " + why, "ordinal needs the DLL (" + display + ")");
        }
        else
        {
            PeExport? export = binary.Image.FindExportByOrdinal(o.Ordinal);
            string why = export is null ? binary.Path + " has no export with ordinal " + o.Ordinal.ToString(CultureInfo.InvariantCulture)
                : export.IsForwarder ? ordinal + " is forwarded to " + PdbNamesPrintable(export.ForwardedTo)
                : "the offset 0x" + o.Offset.ToString("x", CultureInfo.InvariantCulture) + " is beyond 4 GB";
            r = Unresolved(o.ModuleName, display, null, null, UnresolvedReason.OrdinalNotExported, why, "ordinal not exported by " + display);
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
            return Unresolved(r.Module, r.Module is null ? null : DisplayName(r.Module), null, null, UnresolvedReason.IncompleteFrame, text, text);
        }

        var key = new RvaViewKey(r.Module?.Name, r.PdbName!, r.Identity!.Value);
        if (!_rvaViews.TryGetValue(key, out ModuleView? view))
        {
            ModuleName? module = r.Module ?? ModuleFromPdbName(r.PdbName!);
            string? display = module is null ? null : DisplayName(module);
            view = new ModuleView(module, display, display is null ? null : FrameText.StyledModule(display, _style),
                _owner.GetPdb(r.PdbName!, r.Identity, PdbIdentitySource.Frame));
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

    private FrameResolution Resolve(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        if (view.TryGetRecent(rva, out FrameResolution? r))
        {
            return r;
        }

        if (!view.Cache.TryGetValue(rva, out r))
        {
            r = Compute(view, rva, cancellationToken);
            if (SeenBefore(view, rva) && _owner.TryReserveCacheEntry())
            {
                r = view.Cache.GetOrAdd(rva, r);
            }
        }

        view.SetRecent(rva, r);
        return r;
    }

    /// <summary>
    /// Whether the address was resolved before (and is not in the cache): only such addresses are admitted to the cache, so an input of
    /// unique addresses (200,000 random ones against a big PDB) does not fill it with entries that are never hit again. Remembers the
    /// last first sighting per slot of a small table; a collision only delays an admission. Lock-free: a slot holds a whole key or another.
    /// </summary>
    private bool SeenBefore(ModuleView view, ulong rva)
    {
        ulong key = unchecked(((rva + 1) * 0x9E3779B97F4A7C15UL) ^ (ulong)RuntimeHelpers.GetHashCode(view.Cache)) | 1;
        int slot = (int)(key >> (64 - SeenOnceBits));
        if (Volatile.Read(ref _seenOnce[slot]) == key)
        {
            return true;
        }

        Volatile.Write(ref _seenOnce[slot], key);
        return false;
    }

    private FrameResolution Compute(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        PdbHandle handle = view.Handle;
        PdbBinding binding = handle.Binding;
        if (rva > uint.MaxValue)
        {
            return Unresolved(view.Module, view.Display, rva, binding, UnresolvedReason.RvaOutOfRange,
                "RVA " + Rva(rva) + " does not fit in 32 bits", "RVA beyond 4 GB in " + (view.Display ?? binding.PdbName));
        }

        if (!handle.EnsureLoaded(cancellationToken))
        {
            return Unresolved(view.Module, view.Display, rva, binding, handle.FailureReason, handle.FailureText!, handle.FailureText!);
        }

        if (handle.ImageEnd != 0 && rva >= handle.ImageEnd)
        {
            // Nearest-preceding-public lookup has no upper bound, so without this check a frame of another build would
            // silently get the name of the last public in the image.
            RvaReasonText beyond = handle.BeyondImageReason ??=
                BeyondImage(Store.PdbNames.Printable(binding.PdbName), handle.ImageEnd);
            return new FrameResolution(
                FrameResolutionStatus.Unresolved, null, view.Module, view.Display, null, null, rva, false, binding, null,
                UnresolvedReason.BeyondImage, null, beyond.Group) { ReasonOfRva = beyond };
        }

        try
        {
            return Lookup(view, rva, cancellationToken);
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            // The index reads public names from the file (PdbFile.GetFileBackedSymbolIndex): it was changed since it was opened.
            string pdb = Store.PdbNames.Printable(binding.PdbName);
            return Unresolved(view.Module, view.Display, rva, binding, UnresolvedReason.PdbDamaged,
                "PDB damaged: " + pdb + " (" + binding.Path + ") cannot be read: " + InputFailure.Describe(ex), "PDB damaged: " + pdb);
        }
    }

    /// <summary>The lookup part of <see cref="Compute"/>, once the PDB is loaded and the RVA inside its image.</summary>
    private FrameResolution Lookup(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        PdbHandle handle = view.Handle;
        PdbBinding binding = handle.Binding;
        if (!handle.TryFind((uint)rva, out PdbSymbolHit hit))
        {
            string pdb = Store.PdbNames.Printable(binding.PdbName);
            return Unresolved(view.Module, view.Display, rva, binding, UnresolvedReason.BeforeFirstSymbol,
                "RVA " + Rva(rva) + " before the first symbol of " + pdb, "RVA before the first symbol of " + pdb);
        }

        // A PDB matched by name only: every frame carries the mark in its text, so every output (text, CSV, JSON, folded stacks,
        // flame graphs, reports) shows it, and such frames never bucket with verified ones.
        string mark = binding.IsVerified ? string.Empty : FrameText.UnverifiedMark;
        IReadOnlyList<string>? tied = handle.DisplayTiedNames(hit);
        if (!_lines && !_inlines)
        {
            string text = handle.Render(hit, view.Styled, _style, _offsets, mark, out int functionStart, out int functionLength);
            return new FrameResolution(text, functionStart, functionLength, view.Module, view.Display, hit.Displacement, rva, binding.IsVerified, binding, tied);
        }

        var h = (Name: handle.DisplayName(hit), hit.Displacement, Tied: tied);

        PdbSourceInfo source = handle.GetSourceInfo((uint)rva, _inlines, cancellationToken);
        FrameResolution[]? inline = null;
        if (_inlines && source.InlineFrames.Count > 0)
        {
            inline = new FrameResolution[source.InlineFrames.Count];
            for (int i = 0; i < inline.Length; i++)
            {
                PdbInlineFrame f = source.InlineFrames[i];
                string name = FrameText.Escape(f.Name);
                ulong displacement = rva >= f.BlockRva ? rva - f.BlockRva : 0;
                (string? file, int? line) = _lines && f.Location is PdbSourceLocation at ? (FrameText.Escape(at.File), (int?)at.Line) : ((string?)null, (int?)null);
                string text = FrameText.InlinePrefix + FrameText.Render(view.Styled, name, displacement, _style, _offsets) + FrameText.Location(file, line, _style) + mark;
                inline[i] = new FrameResolution(FrameResolutionStatus.ResolvedOffline, text, view.Module, view.Display, name, displacement, rva,
                    binding.IsVerified, binding, null, UnresolvedReason.None, null, null, file, line, null, isInline: true);
            }
        }

        (string? sourceFile, int? sourceLine) = _lines && source.Location is PdbSourceLocation l ? (FrameText.Escape(l.File), (int?)l.Line) : ((string?)null, (int?)null);
        string frameText = FrameText.Render(view.Styled, h.Name, h.Displacement, _style, _offsets) + FrameText.Location(sourceFile, sourceLine, _style) + mark;
        return new FrameResolution(FrameResolutionStatus.ResolvedOffline, frameText, view.Module, view.Display, h.Name, h.Displacement, rva,
            binding.IsVerified, binding, h.Tied, UnresolvedReason.None, null, null, sourceFile, sourceLine, inline);
    }

    private static string Rva(ulong rva) => "0x" + rva.ToString("x", CultureInfo.InvariantCulture);

    private static RvaReasonText BeyondImage(string pdb, ulong imageEnd) => new(
        "RVA ",
        " lies past the end of the image " + pdb + " describes (" + Rva(imageEnd)
            + "): the PDB (or the DLL given with --binaries) is of another build",
        "RVA past the end of the image of " + pdb + " (another build?)");

    private static FrameResolution Unresolved(ModuleName? module, string? display, ulong? rva, PdbBinding? pdb, UnresolvedReason reason, string text, string group) =>
        new(FrameResolutionStatus.Unresolved, null, module, display, null, null, rva, false, pdb, null, reason, text, group);

    private ModuleView GetView(ModuleName module)
    {
        Generation g = _generation;

        // A small direct-mapped front cache: stacks repeat a handful of module names (the parser shares their instances).
        int slot = RuntimeHelpers.GetHashCode(module) & (Generation.RecentSize - 1);
        ModuleView? recent = g.Recent[slot];
        if (recent is not null && ReferenceEquals(recent.Key, module))
        {
            return recent;
        }

        if (g.ByReference.TryGetValue(module, out ModuleView? view))
        {
            g.Recent[slot] = view.Key == module ? view : view.WithKey(module);
            return view;
        }

        if (!g.ByName.TryGetValue(module.Name, out view))
        {
            view = CreateView(module, g);
            if (g.ByName.Count < MaxViews)
            {
                view = g.ByName.GetOrAdd(module.Name, view);
            }
        }

        if (g.ByReference.Count < MaxViews)
        {
            g.ByReference.TryAdd(module, view);
        }

        g.Recent[slot] = ReferenceEquals(view.Key, module) ? view : view.WithKey(module);
        return view;
    }

    private ModuleView CreateView(ModuleName module, Generation g)
    {
        string pdbName;
        PdbIdentity? identity;
        PdbIdentitySource source;
        if (g.Metadata.TryGetValue(module.Key, out ModulePdbInfo? info) || _optionMetadata.TryGetValue(module.Key, out info))
        {
            (pdbName, identity, source) = (info.PdbName, info.Identity, PdbIdentitySource.SymbolMetadata);
        }
        else if (_owner.Options.Binaries is ModuleBinaries b && b.TryGet(module, out ModuleBinary? binary) && binary.CodeView is PeCodeViewRecord cv)
        {
            (pdbName, identity, source) = (cv.PdbFileName, cv.Identity, PdbIdentitySource.Binary);
        }
        else if (_owner.TryGetCatalogPdb(module, out SqlBuildPdb catalogPdb))
        {
            (pdbName, identity, source) = (catalogPdb.PdbFileName, catalogPdb.Identity, PdbIdentitySource.BuildCatalog);
        }
        else
        {
            (pdbName, identity, source) = (FrameText.WithoutExtension(module) + ".pdb", null, PdbIdentitySource.None);
        }

        string display = DisplayName(module);
        return new ModuleView(module, display, FrameText.StyledModule(display, _style), _owner.GetPdb(pdbName, identity, source));
    }

    private string DisplayName(ModuleName module) =>
        FrameText.DisplayName(module, _knownFileNames.TryGetValue(module.Key, out string? known) ? known : null);

    /// <summary>
    /// A frame instance and its resolution in one generation (see <see cref="Generation.FramesByTextId"/>).
    /// </summary>
    private sealed record FrameEntry(StackFrame Frame, FrameResolution Resolution);

    /// <summary>The per-module state of a metadata generation (replaced when CSV metadata arrives).</summary>
    private sealed class Generation(Dictionary<string, ModulePdbInfo> metadata)
    {
        private FrameEntry?[]? _framesByTextId;

        /// <summary>
        /// The frames of lines keyed by text id resolved in this generation, by id (made on first use; entries are
        /// immutable, so a racing reader sees a whole one).
        /// </summary>
        public FrameEntry?[] FramesByTextId
        {
            get
            {
                FrameEntry?[]? table = Volatile.Read(ref _framesByTextId);
                if (table is null)
                {
                    Interlocked.CompareExchange(ref _framesByTextId, new FrameEntry?[LineInterner.MaxEntries], null);
                    table = Volatile.Read(ref _framesByTextId)!;
                }

                return table;
            }
        }

        public Dictionary<string, ModulePdbInfo> Metadata { get; } = metadata;

        public ConcurrentDictionary<ModuleName, ModuleView> ByReference { get; } = new(ReferenceEqualityComparer.Instance);

        public ConcurrentDictionary<string, ModuleView> ByName { get; } = new(StringComparer.Ordinal);

        public const int RecentSize = 64;

        /// <summary>Recently used views by module instance (benign races: a slot holds a whole reference or another one).</summary>
        public ModuleView?[] Recent { get; } = new ModuleView?[RecentSize];
    }

    private readonly record struct RvaViewKey(string? Module, string PdbName, PdbIdentity Identity);

    /// <summary>A module as one spelling of it is rendered, bound to one PDB build, with its per-RVA cache.</summary>
    private sealed class ModuleView
    {
        private const int RecentBits = 12;
        private readonly RecentEntry?[] _recent;

        public ModuleView(ModuleName? module, string? display, string? styled, PdbHandle handle)
            : this(module, module, display, styled, handle, new ConcurrentDictionary<ulong, FrameResolution>(), new RecentEntry?[1 << RecentBits])
        {
        }

        private ModuleView(ModuleName? key, ModuleName? module, string? display, string? styled, PdbHandle handle, ConcurrentDictionary<ulong, FrameResolution> cache, RecentEntry?[] recent)
        {
            Key = key;
            Module = module;
            Display = display;
            Styled = styled;
            Handle = handle;
            Cache = cache;
            _recent = recent;
        }

        /// <summary>The module instance the view was looked up with (for the session's front cache).</summary>
        public ModuleName? Key { get; }

        public ModuleName? Module { get; }

        public string? Display { get; }

        public string? Styled { get; }

        public PdbHandle Handle { get; }

        public ConcurrentDictionary<ulong, FrameResolution> Cache { get; }

        /// <summary>The same view (same caches) under another module instance of the same spelling.</summary>
        public ModuleView WithKey(ModuleName key) => new(key, Module, Display, Styled, Handle, Cache, _recent);

        /// <summary>Looks up the direct-mapped front cache (no locks; entries are immutable, so a racing reader sees a whole entry).</summary>
        public bool TryGetRecent(ulong rva, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out FrameResolution? resolution)
        {
            RecentEntry? e = _recent[Slot(rva)];
            if (e is not null && e.Rva == rva)
            {
                resolution = e.Resolution;
                return true;
            }

            resolution = null;
            return false;
        }

        public void SetRecent(ulong rva, FrameResolution resolution) => _recent[Slot(rva)] = new RecentEntry(rva, resolution);

        private static int Slot(ulong rva) => (int)(unchecked(rva * 0x9E3779B97F4A7C15UL) >> (64 - RecentBits));
    }

    private sealed record RecentEntry(ulong Rva, FrameResolution Resolution);
}
